"""A branch's memories carried to its new name: the store is then what indexing the same
history under the new name makes, and syncs go on from it."""

from __future__ import annotations

from typing import Any

import pytest

from recalld.ingest.rebranch import carry_branch
from recalld.ingest.result import NoProgress
from recalld.ingest.store import MemoryFilter, Store
from tests.conftest import GitRepo
from tests.ingest.conftest import FailingWrite, Harness, StoreWrapper, without_write_times

# The checkpoint's fields a sync's clock sets, beside the memories' WRITE_TIMES.
CLOCKED = ("sync_stamp", "updated_at", "pending_after")

STEPS: list[dict[str, str | None]] = [
    {"a.py": "def foo(x):\n    return x\n\n\ndef bar():\n    pass\n\n\nclass C:\n    def m(self):\n        return 1\n",
     "b.py": "def helper():\n    return 2\n"},
    {"a.py": "def foo(x):\n    return x + 1\n\n\ndef baz():\n    pass\n\n\nclass C:\n    def m(self):\n"
             "        return 1\n"},
    {"a.py": None, "src/a.py": "def foo(x):\n    return x + 1\n\n\ndef baz():\n    pass\n\n\nclass C:\n"
                               "    def m(self):\n        return 1\n"},
    {"b.py": None, "src/c.py": "def helper():\n    return 2\n"},
]  # fmt: skip


def commit(repo: GitRepo, files: dict[str, str | None], message: str) -> None:
    for path, text in files.items():
        if text is None:
            repo.remove(path)
        else:
            repo.write(path, text)
    repo.commit(message)


def unclocked(payload: dict[str, Any]) -> dict[str, Any]:
    """``payload`` but for what a write's clock sets, a task's ``symbol_ids`` as the set they are."""
    kept = {k: v for k, v in without_write_times(payload).items() if k not in CLOCKED}
    if kept.get("symbol_ids"):
        kept["symbol_ids"] = sorted(kept["symbol_ids"])
    return kept


def stored(store: Store, branch: str) -> dict[str, dict[str, Any]]:
    """Every point of repo r's ``branch``, but for what a write's clock sets."""
    points = store.scroll(MemoryFilter(record=None, repo="r", branch=branch, deprecated=None))
    return {p.id: unclocked(p.payload) for p in points}


@pytest.fixture
def fresh(tmp_path):
    h = Harness("edge", tmp_path / "fresh")
    yield h
    h.close()


def test_carried_memories_are_what_the_new_name_would_have_indexed_and_syncs_go_on(harness, fresh, tmp_path):
    repo = GitRepo(tmp_path / "repo")
    repo.git("checkout", "-q", "-b", "master")
    for n, files in enumerate(STEPS):
        commit(repo, files, f"step {n}")
        repo.git("branch", "-f", "main", "master")
        harness.indexer.sync(repo="r", path=str(repo.path), branch="master")
        fresh.indexer.sync(repo="r", path=str(repo.path), branch="main")
    repo.git("branch", "-D", "-q", "main")
    repo.git("branch", "-m", "master", "main")
    before = stored(harness.store, "master")
    assert any(p.get("superseded_by") for p in before.values())  # a history to carry: closed versions, lineages

    carried = carry_branch(harness.store, "r", "master", "main", progress=NoProgress())

    want = stored(fresh.store, "main")
    assert carried.unmapped == 0 and carried.memories == len(want) - 1  # the checkpoint is no memory
    assert carried.live == sum(p["record"] == "memory" and not p["deprecated"] for p in want.values()) > 0
    assert stored(harness.store, "main") == want
    assert stored(harness.store, "master") == before  # left for the caller to drop

    harness.indexer.remove_repo("r", branch="master")
    indexed = repo.head()
    commit(repo, {"src/a.py": "def foo(x):\n    return x + 2\n"}, "step 4")
    went = harness.indexer.sync(repo="r", path=str(repo.path), branch="main")
    fresh.indexer.sync(repo="r", path=str(repo.path), branch="main")
    assert (went.mode, went.from_commit, went.files_changed) == ("incremental", indexed, 1)
    assert stored(harness.store, "main") == stored(fresh.store, "main")
    assert stored(harness.store, "master") == {}


def test_a_point_whose_id_its_payload_does_not_give_is_left_out(harness, tmp_path):
    repo = GitRepo(tmp_path / "repo")
    commit(repo, STEPS[0], "one")
    harness.sync(repo)
    [foo] = [m for m in harness.memories() if m.payload["qualname"] == "foo"]
    harness.store.set_payload([foo.id], {"content_hash": "not-its-own"})

    carried = carry_branch(harness.store, "r", "main", "trunk", progress=NoProgress())

    assert carried.unmapped == 1
    moved = stored(harness.store, "trunk")
    assert "foo" not in {p.get("qualname") for p in moved.values()}
    assert {p.get("qualname") for p in moved.values()} >= {"bar", "C", "C.m", "helper"}


def test_a_carry_stopped_midway_is_done_again_whole(harness, tmp_path, monkeypatch):
    """The checkpoint is carried last, on its own: a carry stopped before it leaves the new
    name without one, so the next carry does not take it for indexed already (by another
    writer of a shared store) and writes every point, not only those the first one did."""
    repo = GitRepo(tmp_path / "repo")
    for n, files in enumerate(STEPS):
        commit(repo, files, f"step {n}")
        harness.sync(repo)
    monkeypatch.setattr("recalld.ingest.rebranch.CARRY_BATCH", 2)  # many batches for a few points
    written: list[list[str]] = []

    class Recording(StoreWrapper):
        def after_write(self, name: str, args: tuple) -> None:  # type: ignore[type-arg]
            if name == "upsert":
                written.append([p.payload["record"] for p in args[0]])

    carry_branch(Recording(harness.store), "r", "main", "trunk", progress=NoProgress())  # type: ignore[arg-type]
    assert len(written) > 2 and written[-1] == ["checkpoint"] and "checkpoint" not in sum(written[:-1], [])

    stopped = FailingWrite(harness.store, write="upsert", on_call=len(written), error=OSError("killed"))
    with pytest.raises(OSError):
        carry_branch(stopped, "r", "main", "side", progress=NoProgress())  # type: ignore[arg-type]
    assert "checkpoint" not in {p["record"] for p in stored(harness.store, "side").values()}
    carried = carry_branch(harness.store, "r", "main", "side", progress=NoProgress())
    assert not carried.indexed and len(stored(harness.store, "side")) == len(stored(harness.store, "main"))
