"""The embedded store's vector index is built by a child process: the engine holds the
GIL through a build (48 s for 94k memories), and a daemon that built it in its own
process answered nothing meanwhile, webhooks included."""

from __future__ import annotations

import os
import threading
import time
import uuid
from pathlib import Path

import numpy as np
import pytest
from structlog.testing import capture_logs

from recalld.ingest.errors import BusyError, RecalldError
from recalld.ingest.locked import LockedStore
from recalld.ingest.store import MemoryFilter, StoreConfig, StoredPoint, StoreLockedError
from recalld.ingest.store_edge import QdrantEdgeStore

N, DIM = 7000, 384  # enough dense vectors for the engine to build an HNSW index of them


def filled_store(tmp_path, n: int = N) -> QdrantEdgeStore:
    rows = np.random.default_rng(7).standard_normal((n, DIM)).astype(np.float32)
    store = QdrantEdgeStore(StoreConfig(dim=DIM, path=str(tmp_path / "edge")))
    for start in range(0, n, 1000):
        store.upsert([point(i + 1, rows[i].tolist()) for i in range(start, min(n, start + 1000))])
    assert store.unindexed() == n
    return store


def shard_entries(store_dir: Path) -> list[str]:
    """The shard's link and directories beside it: ["shard -> shard.1", "shard.1"] for a
    new store, the next number once a copy took the shard's place."""
    return sorted(f"{p.name} -> {os.readlink(p)}" if p.is_symlink() else p.name
                  for p in store_dir.iterdir() if p.name.startswith("shard"))  # fmt: skip


def point(i: int, vector: list[float]) -> StoredPoint:
    return StoredPoint(str(uuid.UUID(int=i)), {"record": "memory", "repo": "r", "deprecated": 0}, vector)


def test_the_index_is_built_by_a_child_on_a_copy_while_the_process_reads_and_writes_on(tmp_path, monkeypatch):
    """What is written during the build lands in the shard at once and is written to the
    built copy before it takes the shard's place; past ``WRITES_DURING_BUILD`` points a
    write waits for the build's end (a patient one) or is refused, as is a seal."""
    from recalld.ingest import locked

    monkeypatch.setattr(locked, "WRITES_DURING_BUILD", 3)
    store = LockedStore(filled_store(tmp_path))
    ones = np.ones(DIM).tolist()
    added, late = point(N + 1, ones), point(N + 2, ones)
    patient_wrote: list[float] = []

    def patient_write() -> None:  # a sync worker's write past the limit: it waits for the build's end
        with store.patient():
            store.upsert([late])
        patient_wrote.append(time.monotonic())

    ticks: list[float] = []
    done = threading.Event()

    def tick() -> None:  # what the daemon's API threads need: the GIL, now and then
        while not done.is_set():
            ticks.append(time.monotonic())
            time.sleep(0.005)

    ticker = threading.Thread(target=tick)
    ticker.start()
    builder = threading.Thread(target=store.optimize)
    writer = threading.Thread(target=patient_write)
    started = time.monotonic()
    builder.start()
    try:
        while store.sharing != "write" and builder.is_alive():  # the copy made: its child builds it
            time.sleep(0.001)
        waited = time.monotonic() + 10  # the writes are shared first, the child started right after
        while not child_pids() and builder.is_alive() and time.monotonic() < waited:
            time.sleep(0.001)
        assert store.busy == "building the vector index" and child_pids()
        assert shard_entries(tmp_path / "edge") == ["shard -> shard.1", "shard.1", "shard.2", "shard.written"]
        read_during = store.count(MemoryFilter(repo="r"))  # answered from the shard still open here
        searched_during = store.search(ones, MemoryFilter(repo="r"), 5)
        store.upsert([added])  # three points written during the build: taken at once
        store.set_payload([str(uuid.UUID(int=1))], {"deprecated": 1})
        store.delete([str(uuid.UUID(int=2))])
        written_during = store.count(MemoryFilter(repo="r"))  # live ones: one more, one deleted, one deprecated
        assert store.seal_due() is False
        with capture_logs() as logs:
            for _ in range(2):  # past the limit: refused, not kept waiting for the build; logged once
                with pytest.raises(BusyError, match=r"recalld serve is building the vector index \(\d+ s so far\)"):
                    store.upsert([late])
        told = [e for e in logs if e["event"].startswith("so much was written during the build")]
        assert [(e["points"], e["bound"], e["doing"]) for e in told] == [(3, 3, "building the vector index")]
        with pytest.raises(BusyError, match="building the vector index"):
            store.seal()  # needs the store alone
        writer.start()
        with pytest.raises(StoreLockedError):  # this process keeps the store: no other recalld opens it meanwhile
            QdrantEdgeStore(StoreConfig(dim=DIM, path=str(tmp_path / "edge")))
        time.sleep(0.2)
        waited = not patient_wrote and builder.is_alive()
    finally:
        builder.join()
        ended = time.monotonic()
        done.set()
        ticker.join()
        if writer.ident is not None:
            writer.join()
    assert read_during == N and len(searched_during) == 5 and written_during == N - 1 and waited and patient_wrote
    assert shard_entries(tmp_path / "edge") == ["shard -> shard.2", "shard.2"]  # the copy serves, the shard gone
    during = [started, *(t for t in ticks if started < t < ended), ended]
    longest = max(b - a for a, b in zip(during, during[1:], strict=False))
    assert longest < (ended - started) / 3, (longest, ended - started)  # in-process: one gap as long as the build
    assert store.busy is None and store.sharing is None
    store.close()
    reopened = QdrantEdgeStore(StoreConfig(dim=DIM, path=str(tmp_path / "edge")))  # the built copy, as it is on disk
    ids = [str(uuid.UUID(int=i)) for i in (1, 2, N + 1, N + 2)]
    found = {p.id: p.payload["deprecated"] for p in reopened.retrieve(ids)}
    assert found == {ids[0]: 1, ids[2]: 0, ids[3]: 0}  # written during the build, and the one after it
    assert reopened.count(MemoryFilter(repo="r")) == N and reopened.unindexed() <= 3  # live: 2 more, 2 less
    assert {hit.point.id for hit in reopened.search(ones, MemoryFilter(repo="r"), 2)} == {ids[2], ids[3]}
    reopened.close()


def test_a_failed_build_is_an_error_and_leaves_the_store_open_and_whole(tmp_path, monkeypatch):
    from recalld.ingest import child

    store = filled_store(tmp_path)
    monkeypatch.setattr(child.sys, "executable", "false")  # a child that fails at once
    with pytest.raises(RecalldError, match=r"cannot build the vector index of store .*edge: exit 1"):
        store.optimize()
    monkeypatch.undo()
    assert store.count(MemoryFilter(repo="r")) == N and store.unindexed() == N
    store.upsert([point(N + 1, np.ones(DIM).tolist())])
    store.optimize()
    assert store.unindexed() == 0 and store.count(MemoryFilter(repo="r")) == N + 1
    store.close()


def test_a_build_killed_midway_leaves_the_store_whole_and_the_next_one_completes(tmp_path):
    """Stopping the daemon (systemd signals every process of the unit) or Ctrl-C kills a
    build under way: the engine's segments are only swapped once one is built."""
    import signal

    store = filled_store(tmp_path)
    failed: list[str] = []

    def build() -> None:
        try:
            store.optimize()
        except RecalldError as exc:
            failed.append(exc.message)

    builder = threading.Thread(target=build)
    builder.start()
    try:
        children: list[str] = []
        while not children and builder.is_alive():
            children = child_pids()
            time.sleep(0.01)
        time.sleep(0.5)  # into the child's load or build
        for child in children:
            os.kill(int(child), signal.SIGINT)
    finally:
        builder.join()
    assert failed == [f"cannot build the vector index of store {tmp_path / 'edge'}: killed by SIGINT"]
    assert shard_entries(tmp_path / "edge") == ["shard -> shard.1", "shard.1"]  # the copy it was building dropped
    assert store.count(MemoryFilter(repo="r")) == N and store.unindexed() == N
    store.optimize()
    assert store.unindexed() == 0 and store.count(MemoryFilter(repo="r")) == N
    store.close()
    reopened = QdrantEdgeStore(StoreConfig(dim=DIM, path=str(tmp_path / "edge")))
    assert reopened.count(MemoryFilter(repo="r")) == N and reopened.unindexed() == 0
    reopened.close()


def child_pids() -> list[str]:
    """The processes this one's threads started."""
    found: list[str] = []
    for task in os.listdir(f"/proc/{os.getpid()}/task"):
        try:
            found += Path(f"/proc/{os.getpid()}/task/{task}/children").read_text().split()
        except FileNotFoundError:  # a thread that ended meanwhile
            pass
    return found


def test_while_the_store_is_shared_a_call_waits_out_another_callers_long_turn(tmp_path):
    """During a build on a copy, a search that finds another caller's write holding the
    lock (the engine may hold the GIL for a second meanwhile) waits for it: refused, as a
    call is while the build has the store alone, it would be told to retry for nothing."""
    from tests.ingest.conftest import StoreWrapper

    building, release = threading.Event(), threading.Event()

    class Sharing(StoreWrapper):
        def optimize(self, *, reads=None, writes=None) -> None:  # type: ignore[no-untyped-def]
            with writes():
                building.set()
                assert release.wait(30)

        def upsert(self, points) -> None:  # type: ignore[no-untyped-def]
            time.sleep(0.5)  # a long turn
            self._inner.upsert(points)

    store = LockedStore(Sharing(QdrantEdgeStore(StoreConfig(dim=4, path=str(tmp_path / "edge")))))
    builder = threading.Thread(target=store.optimize)
    builder.start()
    assert building.wait(10)
    writer = threading.Thread(target=store.upsert, args=([point(1, [1.0, 0.0, 0.0, 0.0])],))
    writer.start()
    try:
        time.sleep(0.05)  # the writer has the lock
        assert store.count(MemoryFilter(repo="r")) == 1  # waited for the write, not refused
    finally:
        release.set()
        writer.join()
        builder.join()
    store.close()


def test_the_searches_that_warm_a_built_store_come_after_others_are_let_in_again(tmp_path, monkeypatch):
    """A freshly built shard is warmed with a few searches (``warm``), each a read turn of
    its own once the build is over: held with the build until stop 85, they made every
    other call wait ~0.4 s more at its end."""
    from recalld.ingest.store_edge_builds import WARM_SEARCHES

    inner = QdrantEdgeStore(StoreConfig(dim=4, path=str(tmp_path / "edge")))
    inner.upsert([point(i, [1.0, float(i), 0.0, 0.0]) for i in range(1, 200)])
    store = LockedStore(inner)
    held, seen = [True], []  # whether the build's hold was on, at each search
    real_long, real = store._long, QdrantEdgeStore.search

    def long(doing, work):  # type: ignore[no-untyped-def]
        try:
            return real_long(doing, work)
        finally:
            held[0] = False

    def search(self, vector, flt, limit):  # type: ignore[no-untyped-def]
        seen.append((held[0], store._lock._is_owned()))  # type: ignore[attr-defined]
        return real(self, vector, flt, limit)

    store._long = long  # type: ignore[method-assign]
    monkeypatch.setattr(QdrantEdgeStore, "search", search)
    store.optimize()
    assert seen == [(False, True)] * WARM_SEARCHES  # after the hold, each in a turn of its own
    assert store.count(MemoryFilter(repo="r")) == 199
    store.close()
