"""A long sync seals what it writes (``Store.seal``): the embedded engine holds the segment
it appends to, payload indexes and all, on the heap until that segment's index is built,
~4 KB a point. Here a seal is due every 300 points, and the engine indexes a segment of
any size (its threshold is 10 MB of vectors)."""

from __future__ import annotations

import threading
import uuid

import numpy as np
import pytest

from recalld.ingest import child, store_edge_builds, store_edge_layout
from recalld.ingest.diskspace import DiskRoom
from recalld.ingest.errors import BusyError
from recalld.ingest.locked import LockedStore
from recalld.ingest.store import MemoryFilter, StoreConfig, StoredPoint
from recalld.ingest.store_edge import QdrantEdgeStore
from recalld.ingest.writer import upsert_points
from tests.ingest.conftest import Harness
from tests.ingest.test_parts import every_memory
from tests.store.test_index_build import shard_entries

SEAL_OVER, DIM = 300, 16


@pytest.fixture
def small_seals(monkeypatch):  # type: ignore[no-untyped-def]
    monkeypatch.setattr(store_edge_layout, "INDEXING_THRESHOLD_KB", 1)


def open_store(tmp_path) -> QdrantEdgeStore:  # type: ignore[no-untyped-def]
    return QdrantEdgeStore(StoreConfig(dim=DIM, path=str(tmp_path / "edge"), seal_over=SEAL_OVER))


def points(first: int, n: int) -> list[StoredPoint]:
    rows = np.random.default_rng(first).standard_normal((n, DIM)).astype(np.float32)
    payload = {"record": "memory", "repo": "r", "deprecated": 0}
    return [StoredPoint(str(uuid.UUID(int=first + i + 1)), {**payload, "n": first + i}, rows[i].tolist())
            for i in range(n)]  # fmt: skip


def test_points_written_past_the_bound_are_sealed_between_batches_each_segment_on_its_own(tmp_path, small_seals):
    store = open_store(tmp_path)
    written = points(0, 700)
    upsert_points(store, written)  # batches of 256: sealed after the 2nd (512 >= 300), 188 left
    assert store.unindexed() == 188
    assert store._shard.info().segments_count == 2  # the sealed one and the one appended to
    upsert_points(store, points(700, 700))  # 444: sealed; 256; 444: sealed
    assert store.unindexed() == 0
    assert store._shard.info().segments_count == 4  # nothing merged into a later seal's index
    assert store.count(MemoryFilter(repo="r")) == 1400
    for point in (written[3], written[650]):  # before and after the first seal
        hit = store.search(point.vector, MemoryFilter(repo="r"), 1)[0]  # type: ignore[arg-type]
        assert hit.point.id == point.id and hit.point.payload["n"] == point.payload["n"]
    store.close()
    again = open_store(tmp_path)
    assert again.count(MemoryFilter(repo="r")) == 1400 and again.unindexed() == 0
    again.close()


def test_a_failed_seal_is_logged_and_leaves_every_write_in_place(tmp_path, small_seals, monkeypatch):
    store = open_store(tmp_path)
    python = child.sys.executable
    monkeypatch.setattr(child.sys, "executable", "false")  # a child that fails at once
    upsert_points(store, points(0, 700))
    assert store.count(MemoryFilter(repo="r")) == 700 and store.unindexed() == 700
    assert not store.seal_due()  # the next seal after seal_over more points, not at each batch
    assert shard_entries(tmp_path / "edge") == ["shard -> shard.1", "shard.1"]  # copy dropped
    monkeypatch.setattr(child.sys, "executable", python)
    upsert_points(store, points(700, 300))
    assert store.unindexed() == 44 and store.count(MemoryFilter(repo="r")) == 1000  # 188 + 256 sealed, 44 left
    store.close()


class Sealing:
    """A store whose seal runs until released; its counts are 1."""

    dim = DIM
    shared = False

    def __init__(self) -> None:
        self.started, self.release = threading.Event(), threading.Event()

    def seal(self, *, reads: object = None, writes: object = None) -> bool:  # never shares: as a seal in place
        self.started.set()
        self.release.wait(30)
        return True

    def count(self, flt: MemoryFilter) -> int:
        return 1


def test_other_threads_are_refused_while_a_seal_runs_and_a_patient_one_waits(tmp_path):
    sealing = Sealing()
    release, started = sealing.release, sealing.started
    store = LockedStore(sealing)  # type: ignore[arg-type]
    counted: list[int] = []

    def patient_count() -> None:  # another sync worker's call: it waits its turn
        with store.patient():
            counted.append(store.count(MemoryFilter()))

    sealer, waiter = threading.Thread(target=store.seal), threading.Thread(target=patient_count)
    sealer.start()
    try:
        started.wait(30)
        waiter.start()
        with pytest.raises(BusyError, match=r"recalld serve is sealing the memories it wrote \(\d+ s so far\)"):
            store.count(MemoryFilter())
        assert counted == [] and waiter.is_alive()
    finally:
        release.set()
        sealer.join()
        waiter.join()
    assert counted == [1]
    assert store.busy is None and store.count(MemoryFilter()) == 1


def test_a_sync_worker_waits_for_another_workers_seal_before_it_looks_for_strays(git_repo):
    """A sync worker's first sync of a repository counts what the store holds of it beyond
    its followed branch (``branch_points.drop_strays``): while another worker's sync seals
    the store, that count was refused (``BusyError``) and the sync failed. It waits now,
    as the sync's own calls do."""
    from types import SimpleNamespace

    from recalld.daemon.registry import RepoEntry
    from recalld.daemon.service import Service

    git_repo.write("a.py", "def f():\n    return 1\n")
    git_repo.commit("one")
    sealing = Sealing()
    store = LockedStore(sealing)  # type: ignore[arg-type]
    synced: list[str] = []
    failed: list[BaseException] = []
    app = SimpleNamespace(
        registry=SimpleNamespace(get=lambda name: RepoEntry(name, str(git_repo.path), "main", 0)),
        store=store,
        indexer=SimpleNamespace(sync=lambda **kw: synced.append(kw["repo"]) or SimpleNamespace(mode="noop")),
    )  # fmt: skip
    service = SimpleNamespace(app=app, _stop=threading.Event(), journal=None, recycler=SimpleNamespace(worked=False))

    def sync() -> None:
        try:
            Service._sync_repo(service, "r", SimpleNamespace(events=[]))  # type: ignore[arg-type]
        except BaseException as exc:  # noqa: BLE001 - the test reads it
            failed.append(exc)

    sealer, worker = threading.Thread(target=store.seal), threading.Thread(target=sync)
    sealer.start()
    try:
        sealing.started.wait(30)
        worker.start()
        worker.join(0.5)
        assert failed == [] and synced == [] and worker.is_alive()
    finally:
        sealing.release.set()
        sealer.join()
        worker.join(30)
    assert failed == [] and synced == ["r"]


class HeldChild:
    """``run_child`` held back until released, so that a test acts while it would run."""

    def __init__(self, monkeypatch) -> None:  # type: ignore[no-untyped-def]
        self.started, self.release = threading.Event(), threading.Event()
        real = store_edge_builds.run_child

        def run_child(*args, **kwargs) -> None:  # type: ignore[no-untyped-def]
            self.started.set()
            self.release.wait(30)
            real(*args, **kwargs)

        monkeypatch.setattr(store_edge_builds, "run_child", run_child)


def test_a_seal_on_a_copy_lets_others_read_and_write_and_keeps_what_they_wrote(tmp_path, small_seals, monkeypatch):
    held = HeldChild(monkeypatch)
    inner = open_store(tmp_path)
    inner.upsert(points(0, 700))  # not through upsert_points: nothing sealed yet
    store = LockedStore(inner)
    sealer = threading.Thread(target=store.seal)
    sealer.start()
    try:
        assert held.started.wait(30)
        assert store.sharing == "write" and store.busy == "sealing the memories it wrote"
        assert (tmp_path / "edge" / "shard.2").is_dir()
        counted = store.count(MemoryFilter(repo="r"))
        found = store.search(points(0, 1)[0].vector, MemoryFilter(repo="r"), 1)  # type: ignore[arg-type]
        store.upsert(points(700, 1))
        store.set_payload([str(uuid.UUID(int=1))], {"deprecated": 1})
        store.delete([str(uuid.UUID(int=2))])
        assert store.seal_due() is False  # one child at a time
    finally:
        held.release.set()
        sealer.join()
    assert counted == 700 and found[0].point.id == str(uuid.UUID(int=1))
    assert store.busy is None and store.sharing is None
    assert shard_entries(tmp_path / "edge") == ["shard -> shard.2", "shard.2"]
    assert inner.unindexed() <= 2 and inner._shard.info().segments_count == 2  # the 700 sealed, not what came since
    assert store.count(MemoryFilter(repo="r")) == 699  # one added, one deprecated, one deleted
    store.close()
    again = open_store(tmp_path)
    ids = [str(uuid.UUID(int=i)) for i in (1, 2, 701)]
    assert {p.id: p.payload["deprecated"] for p in again.retrieve(ids)} == {ids[0]: 1, ids[2]: 0}
    assert again.count(MemoryFilter(repo="r")) == 699 and again.unindexed() <= 2
    again.close()


def test_a_seal_without_room_for_a_copy_is_done_in_place_and_others_are_refused(tmp_path, small_seals, monkeypatch):
    held = HeldChild(monkeypatch)
    monkeypatch.setattr(DiskRoom, "spares", lambda _room, _extra: False)
    inner = open_store(tmp_path)
    inner.upsert(points(0, 700))
    store = LockedStore(inner)
    sealer = threading.Thread(target=store.seal)
    sealer.start()
    try:
        assert held.started.wait(30)
        assert store.sharing is None and shard_entries(tmp_path / "edge") == ["shard -> shard.1", "shard.1"]
        with pytest.raises(BusyError, match="sealing the memories it wrote"):
            store.count(MemoryFilter(repo="r"))
    finally:
        held.release.set()
        sealer.join()
    assert inner.unindexed() == 0 and store.count(MemoryFilter(repo="r")) == 700
    store.close()


def tree(repo, files: int) -> None:  # type: ignore[no-untyped-def]
    for i in range(files):
        body = "".join(f"def f{i}_{j}(x):\n    '''Step {j} of {i}.'''\n    return x + {j}\n\n" for j in range(12))
        repo.write(f"pkg/m{i:02}.py", f"class C{i}:\n    def run(self):\n        return {i}\n\n" + body)


def test_a_sync_that_seals_as_it_writes_leaves_the_store_an_unsealed_one_does(git_repo, tmp_path, small_seals):
    """Seals among the writes of a first index, then among those of a commit that moves a
    function across files, renames one, deletes a file and changes another (closures and
    line moves of memories that sealed segments hold)."""
    tree(git_repo, 40)  # 40 * 15 memories
    git_repo.commit("first")
    sealing, plain = Harness("edge", tmp_path / "sealing"), Harness("edge", tmp_path / "plain")
    try:
        plain.store.seal_over = 0  # never
        plain.sync(git_repo)
        sealing.store.seal_over = 200  # sealed after each batch of 256
        sealing.sync(git_repo)
        assert sealing.store._shard.info().segments_count >= 3 and sealing.store.unindexed() < 200
        moved = "def f3_5(x):\n    '''Step 5 of 3.'''\n    return x + 5\n\n"
        m03 = (git_repo.path / "pkg/m03.py").read_text()
        git_repo.write("pkg/m03.py", m03.replace(moved, "").replace("def f3_7(", "def f3_seven("))
        git_repo.write("pkg/new.py", moved)
        (git_repo.path / "pkg/m10.py").unlink()
        git_repo.write("pkg/m20.py", "# moved down\n\n" + (git_repo.path / "pkg/m20.py").read_text())
        git_repo.commit("second")
        plain_result = plain.sync(git_repo)
        sealing.store.seal_over = 5  # the second sync's few writes seal too
        sealing_result = sealing.sync(git_repo)
        assert (sealing_result.added, sealing_result.deprecated) == (plain_result.added, plain_result.deprecated)
        assert every_memory(sealing) == every_memory(plain)
        lineage = {m.payload["qualname"]: m.payload["lineage"] for m in sealing.memories()}
        first = {m.payload["qualname"]: m.payload["lineage"] for m in plain.memories()}
        assert lineage["f3_5"] == first["f3_5"]
    finally:
        sealing.close()
        plain.close()
