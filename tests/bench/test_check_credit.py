"""The provenance checker on a small history of its own, with several authors: it must
run and find the single sync's versions credited as the syncs one by one credit them."""

from __future__ import annotations

import subprocess
import sys
from functools import partial
from pathlib import Path

import pytest

from tests.conftest import GitRepo
from tests.ingest.test_tasks import commit_by

CHECKER = Path(__file__).with_name("check_credit.py")


def test_one_sync_over_a_history_is_credited_as_a_sync_per_commit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
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
    command = [sys.executable, str(CHECKER), "--repo", str(repo.path), "--history", "3"]
    done = subprocess.run(command, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr[-2000:]
    assert "3 commits:" in done.stdout, done.stdout
    assert "at once: live versions 3; its last sync opened 3" in done.stdout, done.stdout
    assert "back and forward again: live versions 3; its last sync opened 3" in done.stdout, done.stdout
    assert done.stdout.count("differing: 0") == 2, done.stdout
