"""The vector index built on a copy of the embedded engine's shard (``store_edge_copy``):
the copy keeps the engine's holes and, caught up, serves as the shard without a second
load (the link ``shard`` repointed at it); a crash anywhere leaves the store as one whole
shard; a store made before the link is moved under it; and a disk without room for a
copy builds in place, as before."""

from __future__ import annotations

import errno
import os
import shutil
import threading
import time
from contextlib import contextmanager
from functools import partial
from pathlib import Path

import pytest

from recalld.ingest import diskspace, store_edge_builds
from recalld.ingest.errors import BusyError, RecalldError
from recalld.ingest.locked import LockedStore
from recalld.ingest.store import MemoryFilter, StoreConfig
from recalld.ingest.store_edge import QdrantEdgeStore
from recalld.ingest.store_edge_copy import allocated_bytes, copy_file, copy_shard, recover, repoint
from recalld.ingest.store_edge_layout import run_child
from tests.store.test_index_build import DIM, N, child_pids, filled_store, point, shard_entries

SMALL = 1200


@pytest.fixture
def small_store(tmp_path, monkeypatch) -> QdrantEdgeStore:
    """A store of ``SMALL`` points whose builds index them (the engine's threshold lowered
    from ~7k such points): the crash tests need a build's outcome, not its length."""
    from recalld.ingest import store_edge_layout

    monkeypatch.setattr(store_edge_layout, "INDEXING_THRESHOLD_KB", 64)
    return filled_store(tmp_path, SMALL)


def test_a_copied_file_has_the_same_bytes_and_keeps_its_holes(tmp_path):
    source, target = tmp_path / "source", tmp_path / "target"
    with open(source, "wb") as out:
        out.write(b"head" * 1000)
        out.seek(64 << 20)  # 64 MiB of hole
        out.write(b"tail" * 1000)
    os.chmod(source, 0o640)
    copy_file(str(source), str(target))
    assert target.read_bytes() == source.read_bytes()
    assert allocated_bytes(tmp_path) < 1 << 20  # both files: the hole stayed a hole
    assert os.stat(target).st_mode & 0o777 == 0o640


def test_a_file_is_copied_through_the_process_where_the_kernel_cannot(tmp_path, monkeypatch):
    def refused(*_args):  # type: ignore[no-untyped-def]
        raise OSError(errno.EXDEV, "Invalid cross-device link")

    source, target = tmp_path / "source", tmp_path / "target"
    source.write_bytes(os.urandom(3 << 20) + bytes(1 << 20))
    monkeypatch.setattr(os, "copy_file_range", refused)
    copy_file(str(source), str(target))
    assert target.read_bytes() == source.read_bytes()


def marked(root: Path, name: str, text: str) -> None:
    """A directory ``name`` under ``root`` holding a file "marker" with ``text``: a shard to recover."""
    (root / name).mkdir()
    (root / name / "marker").write_text(text)


def marked_entries(root: Path) -> dict[str, str]:
    """Each entry under ``root`` (a link as "name -> target") and the marker read through it."""
    return {f"{p.name} -> {os.readlink(p)}" if p.is_symlink() else p.name: (p / "marker").read_text()
            for p in root.iterdir()}  # fmt: skip


def test_recover_leaves_the_link_at_one_whole_shard_whatever_the_crash_left(tmp_path):
    here = tmp_path / "shard"
    shard, left = partial(marked, tmp_path), partial(marked_entries, tmp_path)

    shard("shard.1", "as it is"), shard("shard.2", "half copied")
    os.symlink("shard.1", here)  # a copy, or its build, cut short
    assert recover(here) == ["shard.2 removed"] and left() == {"shard -> shard.1": "as it is", "shard.1": "as it is"}
    shard("shard.2", "built")
    repoint(here, tmp_path / "shard.2")  # cut after the swap, before the shard it replaced was removed
    assert recover(here) == ["shard.1 removed"] and left() == {"shard -> shard.2": "built", "shard.2": "built"}
    os.symlink("shard.1", tmp_path / "shard.link")  # cut inside a swap, before its one rename
    assert recover(here) == ["shard.link removed"] and left() == {"shard -> shard.2": "built", "shard.2": "built"}
    shard("dropped-shard.1", "being removed")  # cut while the shard replaced was removed
    assert recover(here) == ["dropped-shard.1 removed"] and left() == {"shard -> shard.2": "built", "shard.2": "built"}
    assert recover(here) == [] and left() == {"shard -> shard.2": "built", "shard.2": "built"}
    os.rename(tmp_path / "shard.2", tmp_path / "shard.3")  # a link to nothing: a directory moved by hand
    with pytest.raises(RecalldError, match="points at .*shard.2, which is not there"):
        recover(here)


def test_recover_moves_a_shard_made_before_the_link_and_ends_its_builds(tmp_path):
    here = tmp_path / "shard"
    shard, left = partial(marked, tmp_path), partial(marked_entries, tmp_path)

    shard("shard", "as it was"), shard("shard.next", "half copied")  # that version's copy, or its build, cut short
    assert recover(here) == ["shard.next removed", "shard moved into shard.1, which shard now links to"]
    assert left() == {"shard -> shard.1": "as it was", "shard.1": "as it was"}
    here.unlink()
    shutil.rmtree(tmp_path / "shard.1")
    shard("shard.old", "as it was"), shard("shard.next", "built")  # cut between that version's swap's renames
    assert recover(here) == ["shard.next taken as shard", "shard.old removed",
                             "shard moved into shard.1, which shard now links to"]  # fmt: skip
    assert left() == {"shard -> shard.1": "built", "shard.1": "built"}
    here.unlink()  # cut between the move into shard.1 and the link
    assert recover(here) == ["shard linked to shard.1"] and left() == {"shard -> shard.1": "built", "shard.1": "built"}
    os.rename(here, tmp_path / "shard.old")  # that version, run on this layout, renamed the link away
    os.rename(tmp_path / "shard.1", here)
    shard("shard.4", "this version's shard, left behind")
    moved = "shard moved into shard.1, which shard now links to"
    assert recover(here) == ["shard.old removed", "shard.4 removed", moved]
    assert left() == {"shard -> shard.1": "built", "shard.1": "built"}


def test_a_store_made_before_the_link_is_opened_and_built_as_ever(tmp_path, small_store):
    store = small_store
    store.close()
    edge = tmp_path / "edge"
    (edge / "shard").unlink()
    os.rename(edge / "shard.1", edge / "shard")  # the shard as a version before stop 86 kept it
    reopened = QdrantEdgeStore(StoreConfig(dim=DIM, path=str(edge)))
    assert shard_entries(edge) == ["shard -> shard.1", "shard.1"]
    assert reopened.count(MemoryFilter(repo="r")) == SMALL and reopened.unindexed() == SMALL
    reopened.optimize()
    assert reopened.unindexed() == 0 and shard_entries(edge) == ["shard -> shard.2", "shard.2"]
    reopened.close()


def test_a_store_opened_after_a_crash_mid_swap_has_the_built_copy(tmp_path, small_store):
    store = small_store
    store.flush()
    copy = copy_shard(store._shard_dir)
    run_child("build", copy, DIM, keyword=store.has_sparse, failed="cannot build")
    store.close()
    repoint(store._shard_dir, copy)  # the process dies here, before the shard it replaced is removed
    reopened = QdrantEdgeStore(StoreConfig(dim=DIM, path=str(tmp_path / "edge")))
    assert reopened.count(MemoryFilter(repo="r")) == SMALL and reopened.unindexed() == 0
    assert shard_entries(tmp_path / "edge") == ["shard -> shard.2", "shard.2"]
    reopened.close()


def test_a_store_opened_after_a_crash_mid_build_drops_the_copy(tmp_path, small_store):
    store = small_store
    store.flush()
    copy_shard(store._shard_dir)  # the build never ended
    store.close()
    reopened = QdrantEdgeStore(StoreConfig(dim=DIM, path=str(tmp_path / "edge")))
    assert reopened.count(MemoryFilter(repo="r")) == SMALL and reopened.unindexed() == SMALL
    assert shard_entries(tmp_path / "edge") == ["shard -> shard.1", "shard.1"]
    reopened.optimize()
    assert reopened.unindexed() == 0
    reopened.close()


def test_without_room_for_a_copy_the_index_is_built_in_place_and_reads_wait(tmp_path, monkeypatch):
    """Room for the copy and as much again for what the build writes, beside the minimum."""
    store = LockedStore(filled_store(tmp_path))
    shard_bytes = allocated_bytes(tmp_path / "edge" / "shard")
    monkeypatch.setattr(diskspace, "free_bytes", lambda _path: 2 * shard_bytes + (256 << 20) - 1)
    builder = threading.Thread(target=store.optimize)
    builder.start()
    try:
        while not child_pids() and builder.is_alive():
            time.sleep(0.001)
        assert shard_entries(tmp_path / "edge") == ["shard -> shard.1", "shard.1"]  # no copy
        with pytest.raises(BusyError, match="building the vector index"):
            store.count(MemoryFilter(repo="r"))
    finally:
        builder.join()
    assert store.unindexed() == 0 and store.count(MemoryFilter(repo="r")) == N
    store.close()


def test_a_stop_while_the_shard_is_copied_starts_no_build_after_it(tmp_path, small_store, monkeypatch):
    """The daemon's stop ends the children under way; one told while the copy is made, when
    there is none yet, would otherwise have waited out a whole build before it stopped."""
    from recalld.ingest import child, store_edge_copy

    store = small_store

    def copy_and_stop(shard_dir):  # type: ignore[no-untyped-def]
        copied = store_edge_copy.copy_shard(shard_dir)
        child.stop_children()  # SIGTERM to the daemon, mid-copy
        return copied

    with monkeypatch.context() as patched:
        patched.setattr(store_edge_builds, "copy_shard", copy_and_stop)
        with pytest.raises(RecalldError, match=r"cannot build the vector index of store .*: the daemon stops$"):
            store.optimize()
    assert not child_pids() and shard_entries(tmp_path / "edge") == ["shard -> shard.1", "shard.1"]
    assert store.count(MemoryFilter(repo="r")) == SMALL and store.unindexed() == SMALL
    store.optimize()  # a build begun after the stop is not refused
    assert store.unindexed() == 0
    store.close()


def engine_whose_loads(monkeypatch, load):  # type: ignore[no-untyped-def]
    """The engine as ``store_edge_builds`` sees it, each ``EdgeShard.load`` through
    ``load(real_load, path)``."""
    engine = store_edge_builds.qe

    class Shards:
        @staticmethod
        def load(path, *config):  # type: ignore[no-untyped-def]
            return load(lambda: engine.EdgeShard.load(path, *config), path)

    class Engine:
        EdgeShard = Shards

        def __getattr__(self, name):  # type: ignore[no-untyped-def]
            return getattr(engine, name)

    monkeypatch.setattr(store_edge_builds, "qe", Engine())


def test_a_built_copy_that_does_not_load_leaves_the_shard_as_it_was(tmp_path, small_store, monkeypatch):
    store, loads = small_store, []

    def fails(load, path):  # type: ignore[no-untyped-def]  # the built copy's load
        loads.append(path)
        raise RuntimeError("a segment cannot be read")

    with monkeypatch.context() as patched:
        engine_whose_loads(patched, fails)
        with pytest.raises(RecalldError, match="the built copy did not load: a segment cannot be read$"):
            store.optimize()
    assert loads == [str(tmp_path / "edge" / "shard.2")]  # the copy; the shard was never closed
    assert shard_entries(tmp_path / "edge") == ["shard -> shard.1", "shard.1"]
    assert store.count(MemoryFilter(repo="r")) == SMALL and store.unindexed() == SMALL  # as it was: not built
    store.optimize()
    assert store.unindexed() == 0
    store.close()


def test_a_link_that_cannot_be_repointed_leaves_the_shard_as_it_was(tmp_path, small_store, monkeypatch):
    store = small_store

    def refused(_link, _target):  # type: ignore[no-untyped-def]
        raise OSError(errno.EACCES, "Permission denied")

    with monkeypatch.context() as patched:
        patched.setattr(store_edge_builds, "repoint", refused)
        with pytest.raises(RecalldError, match="the built copy did not take the shard's place: .*Permission denied$"):
            store.optimize()
    assert shard_entries(tmp_path / "edge") == ["shard -> shard.1", "shard.1"]
    assert store.count(MemoryFilter(repo="r")) == SMALL and store.unindexed() == SMALL
    store.close()


def test_the_caught_up_copy_serves_without_a_second_load(tmp_path, small_store, monkeypatch):
    """The copy loaded to take what was written during the build is the shard from then
    on: nothing is loaded at the swap, the shard it replaced is renamed out of the
    shard's names at once and removed on a thread, and a write after it lands in the
    copy's directory (a reopened store has it)."""
    store, loads = small_store, []
    added, after = point(SMALL + 1, [1.0] * DIM), point(SMALL + 2, [0.5] * DIM)

    def write_then_build(*args, **kwargs):  # type: ignore[no-untyped-def]
        store.upsert([added])
        run_child(*args, **kwargs)

    def counted(load, path):  # type: ignore[no-untyped-def]
        loads.append(path)
        return load()

    with monkeypatch.context() as patched:
        patched.setattr(store_edge_builds, "run_child", write_then_build)
        engine_whose_loads(patched, counted)
        store.optimize()
    assert loads == [str(tmp_path / "edge" / "shard.2")]
    assert shard_entries(tmp_path / "edge") == ["shard -> shard.2", "shard.2"]
    store.dropped()
    assert not [p for p in (tmp_path / "edge").iterdir() if p.name.startswith("dropped-")]  # removed on a thread
    store.upsert([after])
    assert store.unindexed() == 2 and store.count(MemoryFilter(repo="r")) == SMALL + 2  # the two written since it began
    store.close()
    reopened = QdrantEdgeStore(StoreConfig(dim=DIM, path=str(tmp_path / "edge")))
    assert reopened.count(MemoryFilter(repo="r")) == SMALL + 2 and reopened.unindexed() == 2
    reopened.close()


def test_writes_during_the_build_that_the_copy_refuses_stay_in_the_shard_and_the_copy_is_dropped(
    tmp_path, small_store, monkeypatch
):
    store = small_store
    added = point(SMALL + 1, [1.0] * DIM)

    def write_then_build(*args, **kwargs):  # type: ignore[no-untyped-def]  # a sync writes while the child builds
        store.upsert([added])
        run_child(*args, **kwargs)

    class Refusing:  # the built copy, as loaded to take what was written meanwhile
        def __init__(self, shard):  # type: ignore[no-untyped-def]
            self.shard = shard

        def update(self, _operation):  # type: ignore[no-untyped-def]
            raise RuntimeError("no space for the segment")

        def __getattr__(self, name):  # type: ignore[no-untyped-def]
            return getattr(self.shard, name)

    with monkeypatch.context() as patched:
        patched.setattr(store_edge_builds, "run_child", write_then_build)
        engine_whose_loads(patched, lambda load, path: Refusing(load()) if path.endswith("shard.2") else load())
        failed = "what was written during the build did not apply to it: no space for the segment$"
        with pytest.raises(RecalldError, match=failed):
            store.optimize()
    assert shard_entries(tmp_path / "edge") == ["shard -> shard.1", "shard.1"]
    assert store.count(MemoryFilter(repo="r")) == SMALL + 1 and store.unindexed() == SMALL + 1  # not built, not lost
    store.optimize()
    store.close()
    reopened = QdrantEdgeStore(StoreConfig(dim=DIM, path=str(tmp_path / "edge")))
    assert reopened.unindexed() == 0 and reopened.retrieve([added.id])[0].payload["repo"] == "r"
    reopened.close()


def test_a_failure_once_the_copy_serves_never_drops_it(tmp_path, small_store, monkeypatch):
    """Past the link's repointing the copy is the shard: whatever fails after (here the
    old directory's removal) leaves it serving and on the disk."""
    store = small_store

    def broken(_directory):  # type: ignore[no-untyped-def]
        raise RuntimeError("cannot start a thread")

    with monkeypatch.context() as patched:
        patched.setattr(store_edge_builds, "drop_later", broken)
        with pytest.raises(RuntimeError, match="cannot start a thread"):
            store.optimize()
    assert os.readlink(tmp_path / "edge" / "shard") == "shard.2" and (tmp_path / "edge" / "shard.2").is_dir()
    assert store.count(MemoryFilter(repo="r")) == SMALL and store.unindexed() == 0  # the built copy serves
    store.close()
    reopened = QdrantEdgeStore(StoreConfig(dim=DIM, path=str(tmp_path / "edge")))
    assert shard_entries(tmp_path / "edge") == ["shard -> shard.2", "shard.2"]  # the old one removed on open
    assert reopened.count(MemoryFilter(repo="r")) == SMALL and reopened.unindexed() == 0
    reopened.close()


def test_what_was_written_during_the_build_is_flushed_while_others_write_on_not_at_the_swap(
    tmp_path, small_store, monkeypatch
):
    """The shard is flushed once the child is done, while others may still write: the
    close at the swap, which every call waits out, is left only what comes after (a write
    during the catch-up, which the reopened store has too)."""
    store, events, sharing = small_store, [], [False]
    added, later = point(SMALL + 1, [1.0] * DIM), point(SMALL + 2, [0.5] * DIM)
    store.flush()

    class Recorded:  # the shard, its flushes and close noted with whether others may write
        def __init__(self, shard):  # type: ignore[no-untyped-def]
            self.shard = shard

        def flush(self) -> None:
            events.append(("flush", sharing[0]))
            self.shard.flush()

        def close(self) -> None:
            events.append(("close", sharing[0]))
            self.shard.close()

        def __getattr__(self, name):  # type: ignore[no-untyped-def]
            return getattr(self.shard, name)

    @contextmanager
    def writes():  # type: ignore[no-untyped-def]
        sharing[0] = True
        try:
            yield
        finally:
            sharing[0] = False

    def write_then_build(*args, **kwargs):  # type: ignore[no-untyped-def]
        store.upsert([added])
        run_child(*args, **kwargs)

    real_round = store_edge_builds.CatchUp.round

    def write_then_round(self):  # type: ignore[no-untyped-def]  # a write before the catch-up's first round
        if ("write", True) not in events:
            store.upsert([later])
            events.append(("write", sharing[0]))
        return real_round(self)

    store._shard = Recorded(store._shard)  # type: ignore[assignment]
    with monkeypatch.context() as patched:
        patched.setattr(store_edge_builds, "run_child", write_then_build)
        patched.setattr(store_edge_builds.CatchUp, "round", write_then_round)
        store.optimize(writes=writes)
    assert events == [("flush", True), ("write", True), ("close", False)]
    store.close()
    reopened = QdrantEdgeStore(StoreConfig(dim=DIM, path=str(tmp_path / "edge")))
    assert reopened.count(MemoryFilter(repo="r")) == SMALL + 2 and reopened.unindexed() == 2
    reopened.close()
