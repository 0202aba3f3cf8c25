"""The exactness checker on a small history of its own: it must run, and find every
incremental state, after moves back and forth, equal to a fresh index, as-of answers
(their lines and signatures too) included."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import GitRepo

CHECKER = Path(__file__).with_name("check_exact.py")
SHOP = '''"""Orders."""


def total(items):
    """Sum of the prices."""
    return sum(item.price for item in items)


class Cart:
    def add(self, item):
        self.items.append(item)
'''
ROUTE = "export function route(path: string): string {\n  return path;\n}\n"
CALENDAR = "var first = 1,\n  isSelected = function (dt) {\n    return dt;\n  };\n"


@pytest.mark.parametrize("full", [[], ["--full"]])  # each step synced from git's diff, or the whole tree compared
def test_the_checker_finds_a_history_with_moves_and_renames_exact(tmp_path: Path, full: list[str]) -> None:
    repo = GitRepo(tmp_path / "shop")
    repo.write("shop/orders.py", SHOP)
    repo.write("web/app.ts", ROUTE)
    repo.write("web/cal.js", CALENDAR)
    repo.commit("start")
    above = "import decimal\n\n\ndef rounded(value):\n    return round(value, 2)\n\n\n"
    moved = SHOP.replace('"""Orders."""\n\n\n', '"""Orders."""\n' + above)
    repo.write("shop/orders.py", moved)  # the code below moves down
    repo.commit("a helper above")
    repo.git("mv", "shop/orders.py", "shop/cart.py")
    repo.write("web/app.ts", "// TODO: check the path\n" + ROUTE)
    repo.write("web/cal.js", CALENDAR.replace("var ", "const "))  # the same code, another signature
    repo.commit("renamed, a TODO")
    repo.write("shop/cart.py", moved.replace("def total", "def grand_total"))
    repo.commit("total renamed")
    command = [sys.executable, str(CHECKER), "--repo", str(repo.path), "--history", "3", "--every", "1", *full]
    done = subprocess.run(command, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr[-2000:]
    checks = [line for line in done.stdout.splitlines() if line.startswith("CHECK")]
    # steps, resets, as-of answers and their intervals, changes two ways, known states
    assert len(checks) == 3 + 3 + 2 * 4 + 2 * 3 + 1 and all(" exact: " in line for line in checks), done.stdout
    timed = [line for line in checks if re.search(r"fresh index \d+ \(\d+\.\d s\);", line)]
    assert len(timed) == 3 + 3, done.stdout  # a step's and a reset's check say how long their fresh index took
    assert done.stdout.rstrip().endswith("every check exact")
