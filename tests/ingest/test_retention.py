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


def test_a_version_a_move_back_closed_is_kept_as_long_as_one_closed_now(harness, git_repo, monkeypatch):
    """Retention counts from when a sync closed a memory, not from the time of the commit
    it moved to: a reset to a commit of two years ago closes what later ones made now."""
    monkeypatch.setenv("GIT_COMMITTER_DATE", "2000-01-01T00:00:00+00:00")
    git_repo.write("a.py", "def keep():\n    return 1\n")
    old = git_repo.commit("old")
    harness.sync(git_repo)
    monkeypatch.delenv("GIT_COMMITTER_DATE")
    git_repo.write("a.py", "def keep():\n    return 1\n\n\ndef added():\n    return 2\n")
    git_repo.commit("new")
    harness.sync(git_repo)
    git_repo.git("reset", "-q", "--hard", old)
    harness.sync(git_repo)
    closed = harness.memories(deprecated=1, types=())  # the new commit's code and its task memory
    assert "added" in {p.payload.get("qualname") for p in closed}
    assert prune_deprecated(harness.store, older_than_days=90) == 0
    assert len(harness.memories(deprecated=1, types=())) == len(closed)
    assert prune_deprecated(harness.store, older_than_days=90, now=time.time() + 91 * DAY) == len(closed)
    assert harness.memories(deprecated=1, types=()) == []


def test_a_prune_that_finds_the_store_building_its_index_is_postponed_not_lost(harness):
    """The daily job runs on the scheduler's thread; while a child builds the vector index
    the store refuses it, and the job runs again minutes later instead of the next day."""
    import threading
    from datetime import datetime
    from types import SimpleNamespace

    from recalld.daemon.tasks import BUSY_RETRY, prune_job
    from recalld.ingest.locked import LockedStore
    from tests.ingest.conftest import StoreWrapper

    release = threading.Event()

    class Building(StoreWrapper):
        def optimize(self, *, reads=None, writes=None) -> None:  # built in place: no reads
            release.wait(60)

    store = LockedStore(Building(harness.store))
    builder = threading.Thread(target=store.optimize)
    builder.start()
    moved: list[tuple[str, datetime]] = []
    scheduler = SimpleNamespace(modify_job=lambda job, next_run_time: moved.append((job, next_run_time)))
    service = SimpleNamespace(app=SimpleNamespace(store=store), config=SimpleNamespace(get=lambda *_key: 90))
    try:
        while store.busy is None:
            time.sleep(0.001)
        prune_job(service, scheduler)  # type: ignore[arg-type]
    finally:
        release.set()
        builder.join()
    assert [job for job, _ in moved] == ["prune"]
    assert 0.9 * BUSY_RETRY < (moved[0][1] - datetime.now()).total_seconds() <= BUSY_RETRY
    prune_job(service, scheduler)  # type: ignore[arg-type]  # the store free again: it runs, nothing moved
    assert len(moved) == 1
