"""Retention pruning of deprecated memories (the scheduler's daily job)."""

from __future__ import annotations

import time

from recalld.daemon.tasks import DAY, prune_deprecated


def test_prune_removes_only_long_closed_memories(harness, git_repo):
    git_repo.write("a.py", "def keep():\n    return 1\n\n\ndef go():\n    return 2\n")
    git_repo.commit("one")
    harness.sync(git_repo)
    git_repo.write("a.py", "def keep():\n    return 1\n")
    git_repo.commit("two")
    harness.sync(git_repo)
    closed = harness.memories(deprecated=1)
    live = harness.memories()
    assert {p.payload["qualname"] for p in closed} == {"go", "<module>"}

    assert prune_deprecated(harness.store, older_than_days=0, now=time.time() + 1000 * DAY) == 0
    assert prune_deprecated(harness.store, older_than_days=90) == 0  # closed just now: kept
    assert prune_deprecated(harness.store, older_than_days=90, now=time.time() + 91 * DAY) == len(closed)
    assert harness.memories(deprecated=1) == []
    assert sorted(p.id for p in harness.memories()) == sorted(p.id for p in live)
