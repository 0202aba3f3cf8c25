"""The provenance checkers on a small history of their own, with several authors: each
must run and pass (the single sync's versions credited as the syncs one by one credit
them, also where each two commits were a side branch a merge brought in, and where the
single sync's window stopped short of them; the search
past a one-commit history read finding the writers a read of every commit finds, and on
the merged copy)."""

from __future__ import annotations

import subprocess
import sys
from functools import partial
from pathlib import Path

import pytest

from tests.conftest import GitRepo
from tests.ingest.test_tasks import commit_by

CHECKERS = Path(__file__).parent


def shop(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> GitRepo:
    """Four commits by four authors: a file written, edited, renamed without edits, edited."""
    repo = GitRepo(tmp_path / "shop")
    commit = partial(commit_by, repo, monkeypatch)
    repo.write("shop/orders.py", "def total(items):\n    return sum(items)\n")
    commit("Ann", "start")
    repo.write("shop/orders.py", "def total(items):\n    return sum(items) * 2\n\n\ndef tax(x):\n    return x\n")
    commit("Bob", "double totals, add tax")
    repo.git("mv", "shop/orders.py", "shop/cart.py")
    commit("Cid", "orders is cart")
    repo.write("shop/cart.py", "def total(items):\n    return sum(items) * 2\n\n\ndef tax(x):\n    return x * 3\n")
    commit("Dan", "tax triples")
    return repo


def checked(checker: str, repo: GitRepo, history: int, *more: str) -> str:
    """What ``checker`` printed of ``repo``'s last ``history`` commits; it must have passed."""
    command = [sys.executable, str(CHECKERS / checker), "--repo", str(repo.path), "--history", str(history), *more]
    done = subprocess.run(command, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr[-2000:]
    return done.stdout


@pytest.mark.parametrize(("checker", "history", "lines"), [
    ("check_credit.py", 3, {"3 commits: live versions 3 one by one": 1,
                            "at once: live versions 3; its last sync opened 3 of them, 2 made by the tip itself": 1,
                            "back and forward again: live versions 3; its last sync opened 3 of them, 2 made by the tip"
                            " itself": 1, "  same commit as one by one: 3; differing: 0": 2,
                            "a first index of the tip: live versions 3, 3 as one by one (1 of them renamed there)": 1,
                            "  same writer as one by one: 3; differing: 0": 1}),
    ("check_credit.py --merges 2", 2, {"2 commits: live versions 3 one by one": 1,
                                       "  same commit as one by one: 3; differing: 0": 2}),
    ("check_credit.py --window 2", 3, {"at once, its window cut at 2 commits: live versions 3, 3 as one by one (1 of"
                                       " them renamed there)": 1, "back and forward again, its window cut at 2 commits:"
                                       " live versions 3, 3 as one by one (1 of them renamed there)": 1,
                                       "  same writer as one by one: 3; differing: 0": 3}),
    ("check_writers.py", 1, {"4 first-parent commits; 3 structural versions": 1, "same author: 3; differing: 0": 1}),
    ("check_writers.py --merges 2", 1, {"  searched: 2 merges of up to 2 commits each, the first commit before them": 1,
                                        "same author: 3; differing: 0": 1}),
], ids=["credit", "credit-merged", "credit-cut", "writers", "writers-merged"])  # fmt: skip
def test_a_checker_passes_on_a_history_of_its_own(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, checker: str, history: int, lines: dict[str, int]
) -> None:
    name, *more = checker.split()
    said = checked(name, shop(tmp_path, monkeypatch), history, *more).splitlines()
    assert {line: said.count(line) for line in lines} == lines, said
