"""What others write while a copy of the embedded store's shard is built is kept on the
disk, beside the shard, and written to the copy before it takes the shard's place
(``store_edge_written``): nothing of it in memory, so writes during a build are no longer
bounded by the heap (10k points until stop 84)."""

from __future__ import annotations

import errno
import threading
import uuid

import numpy as np
import pytest
import qdrant_edge as qe

from recalld.ingest import locked
from recalld.ingest.errors import RecalldError
from recalld.ingest.locked import LockedStore
from recalld.ingest.store import DENSE, SPARSE, MemoryFilter, SparseVector, StoreConfig, StoredPoint
from recalld.ingest.store_edge import QdrantEdgeStore
from recalld.ingest.store_edge_written import ENGINE, Written
from tests.store.test_seal import HeldChild
from tests.store.test_index_build import shard_entries

DIM = 8


def open_store(path) -> QdrantEdgeStore:  # type: ignore[no-untyped-def]
    return QdrantEdgeStore(StoreConfig(dim=DIM, path=str(path)))


def uid(i: int) -> str:
    return str(uuid.UUID(int=i))


def points(first: int, n: int, *, path: str | None = "pkg/m.py") -> list[StoredPoint]:
    rows = np.random.default_rng(first).standard_normal((n, DIM)).astype(np.float32)
    out = []
    for i in range(n):
        payload = {"record": "memory", "repo": "r", "deprecated": 0, "n": first + i, "name": f"f{first + i}",
                   "dirs": ["pkg"], "doc": None, "path": path}  # fmt: skip
        sparse = SparseVector((first + i, 7), (0.5 + i, 0.1)) if i % 2 else None
        out.append(StoredPoint(uid(first + i + 1), payload, [float(x) for x in rows[i]], sparse))
    return out


def everything(store: QdrantEdgeStore, ids: list[str]) -> dict[str, tuple]:  # type: ignore[type-arg]
    """Each point's payload, dense vector and keyword vector, as the engine holds them."""
    records = store._shard.retrieve(ids, True, [DENSE, SPARSE])
    out = {}
    for record in records:
        sparse = record.vector.get(SPARSE)
        keyword = None if sparse is None else (list(sparse.indices), list(sparse.values))
        out[str(record.id)] = (record.payload, record.vector.get(DENSE), keyword)
    return out


def test_each_kind_of_write_kept_on_the_disk_is_written_again_exactly(tmp_path):
    """Points sharing a file's fields and points alone, keyword vectors, payload updates,
    deletions, vector updates and an operation made elsewhere: the operations read back
    from the file make the same store as the writes themselves, float32 for float32."""
    store = open_store(tmp_path / "a")
    store._written = written = Written(tmp_path / "kept")
    store.upsert(points(0, 40) + points(100, 3, path=None))  # a file's 40 share fields; 3 alone
    store.set_payload([uid(1), uid(2)], {"deprecated": 1, "why": ["renamed", None]})
    store.delete([uid(3)])
    store.set_vectors({uid(4): [0.25] * DIM, uid(999): [1.0] * DIM})  # one missing: passed over
    store._update((ENGINE, qe.UpdateOperation.set_payload([uid(5)], {"engine": "made"})))
    assert (tmp_path / "kept").stat().st_size == written.size > 0
    assert sum(not isinstance(e, tuple) for e in written._entries) == 1  # only the engine's own operation in memory
    again = open_store(tmp_path / "b")
    for index in range(len(written)):
        again._shard.update(written.operation(index))
    ids = [uid(i) for i in (*range(1, 41), 101, 102, 103, 999)]
    first, second = everything(store, ids), everything(again, ids)
    assert first == second and len(first) == 42
    assert first[uid(1)][0]["why"] == ["renamed", None] and first[uid(5)][0]["engine"] == "made"
    assert first[uid(4)][1] == pytest.approx([1 / DIM**0.5] * DIM)  # cosine: stored normalised
    assert first[uid(2)][2] == ([1, 7], [1.5, pytest.approx(0.1)])
    written.close()
    assert not (tmp_path / "kept").exists()
    store.close()
    again.close()


def test_writes_past_the_old_bound_during_a_build_land_in_the_built_copy(tmp_path, monkeypatch):
    """12,000 points written while the child builds (past the 10,000 kept in memory until
    stop 84): none refused, kept in ``shard.written`` meanwhile, all in the copy once it
    took the shard's place, and the file removed."""
    held = HeldChild(monkeypatch)
    inner = open_store(tmp_path / "edge")
    inner.upsert(points(0, 500))
    store = LockedStore(inner)
    builder = threading.Thread(target=store.optimize)
    builder.start()
    try:
        assert held.started.wait(30) and store.sharing == "write"
        for start in range(1000, 13_000, 256):
            store.upsert(points(start, min(256, 13_000 - start)))
        kept = (tmp_path / "edge" / "shard.written").stat().st_size
    finally:
        held.release.set()
        builder.join()
    assert locked.WRITES_DURING_BUILD >= 12_000 and kept > 12_000 * DIM * 4
    assert shard_entries(tmp_path / "edge") == ["shard -> shard.2", "shard.2"]
    assert store.count(MemoryFilter(repo="r")) == 12_500
    store.close()
    again = open_store(tmp_path / "edge")
    assert again.count(MemoryFilter(repo="r")) == 12_500
    last = again.retrieve([uid(13_000)])[0]
    assert last.payload["n"] == 12_999
    again.close()


def test_a_write_the_disk_cannot_keep_fails_the_build_and_the_shard_keeps_it(tmp_path, monkeypatch):
    """The shard took the write; the copy cannot have it, so it is dropped and the build
    fails (logged by the daemon, tried again later) rather than losing the write."""
    held = HeldChild(monkeypatch)

    def full(self, data, offset):  # type: ignore[no-untyped-def]
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(Written, "_write", full)
    inner = open_store(tmp_path / "edge")
    inner.upsert(points(0, 500))
    store = LockedStore(inner)
    failures: list[BaseException] = []

    def build() -> None:
        try:
            store.optimize()
        except RecalldError as exc:
            failures.append(exc)

    builder = threading.Thread(target=build)
    builder.start()
    try:
        assert held.started.wait(30)
        store.upsert(points(1000, 1))  # taken: the shard has it
    finally:
        held.release.set()
        builder.join()
    assert len(failures) == 1 and "No space left on device" in str(failures[0])
    assert shard_entries(tmp_path / "edge") == ["shard -> shard.1", "shard.1"]  # the copy dropped
    assert store.retrieve([uid(1001)])[0].payload["n"] == 1000 and store.busy is None
    store.close()
    again = open_store(tmp_path / "edge")
    assert again.count(MemoryFilter(repo="r")) == 501
    again.close()


def test_what_a_build_cut_short_kept_is_removed_when_the_store_opens(tmp_path):
    open_store(tmp_path / "edge").close()
    (tmp_path / "edge" / "shard.written").write_bytes(b"\x80\x05 cut short")
    store = open_store(tmp_path / "edge")
    assert not (tmp_path / "edge" / "shard.written").exists()
    store.close()
