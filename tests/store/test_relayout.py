"""The keyword (sparse) index of an indexed segment is mapped, not held on the heap
(``store_edge_layout``); a store an older version laid out with it on the heap is laid out
anew by the daemon's next idle build, and meanwhile a seal leaves its segments as they are.
Here the engine indexes a segment of any size (its threshold is 10 MB of vectors)."""

from __future__ import annotations

import json
import uuid

import numpy as np
import pytest
import qdrant_edge as qe

from recalld.daemon.upkeep import StoreUpkeep
from recalld.ingest import store_edge
from recalld.ingest.sparse import document_vector, query_vector
from recalld.ingest.store import MemoryFilter, StoredPoint
from recalld.ingest.store_edge import QdrantEdgeStore
from recalld.ingest.writer import upsert_points
from tests.store.test_seal import DIM, open_store, small_seals  # noqa: F401 - the fixture

WORDS = "parse render socket buffer inode queue timer mutex packet route cache page".split()
pytestmark = pytest.mark.usefixtures("small_seals")


def points(first: int, n: int) -> list[StoredPoint]:
    rows = np.random.default_rng(first).standard_normal((n, DIM)).astype(np.float32)
    made = []
    for i in range(n):
        text = f"{WORDS[(first + i) % 12]}_{WORDS[(first + i) // 12 % 12]} point{first + i}"
        payload = {"record": "memory", "repo": "r", "deprecated": 0, "n": first + i}
        made.append(StoredPoint(str(uuid.UUID(int=first + i + 1)), payload, rows[i].tolist(), document_vector(text)))
    return made


def keyword_indexes(store: QdrantEdgeStore) -> dict[str, str]:
    """Each segment's keyword index kind, as the engine wrote it in the segment's config."""
    kinds = {}
    for config in sorted((store._shard_dir / "segments").glob("*/segment.json")):
        data = json.loads(config.read_text())["config"]["sparse_vector_data"]["sparse"]
        kinds[config.parent.name] = data["index"]["index_type"]
    return kinds


def indexed(store: QdrantEdgeStore) -> dict[str, str]:
    """``keyword_indexes`` of the indexed segments (the one appended to is always on the heap)."""
    return {name: kind for name, kind in keyword_indexes(store).items() if kind != "MutableRam"}


def answers(store: QdrantEdgeStore) -> list[list[tuple[float, str]]]:
    """Every point keyword searches find, ids and scores (IDF from the store's counts), ties by id."""
    found = []
    for query in ("socket buffer", "point7", "inode_queue", "mutex timer page", "route", "cache_parse point99"):
        hits = store.hybrid_search(None, query_vector(query), MemoryFilter(repo="r", deprecated=0), 2000)
        found.append(sorted((-round(h.score, 5), h.point.id) for h in hits))
    return found


def test_a_new_store_maps_the_keyword_index_of_each_segment_it_indexes(tmp_path):
    store = open_store(tmp_path)
    assert not store.relayout_due()
    upsert_points(store, points(0, 700))  # sealed after the 2nd batch of 256
    assert list(indexed(store).values()) == ["Mmap"]
    store.optimize()  # the rest indexed, merged with the sealed segment
    kinds = indexed(store)
    assert list(kinds.values()) == ["Mmap"] and store.unindexed() == 0, kinds
    assert answers(store)[1][0][1] == str(uuid.UUID(int=8))  # "point7"
    store.close()
    again = open_store(tmp_path)
    assert not again.relayout_due() and indexed(again) == kinds
    again.close()


def older_store(tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """A store as stop 80's recalld left it: the keyword index on the heap, sealed and
    built, no ``layout`` file."""
    with monkeypatch.context() as patched:
        patched.setattr(store_edge, "sparse_params", lambda: qe.EdgeSparseVectorParams(modifier=qe.Modifier.Idf))
        store = open_store(tmp_path)
    upsert_points(store, points(0, 700))
    store.close()
    (tmp_path / "edge" / "layout").unlink()


def test_an_older_stores_segments_are_laid_out_anew_by_the_next_idle_build_and_answer_the_same(tmp_path, monkeypatch):
    older_store(tmp_path, monkeypatch)
    store = open_store(tmp_path)
    old = keyword_indexes(store)
    assert store.relayout_due() and set(old.values()) == {"ImmutableRam", "MutableRam"}, old
    upsert_points(store, points(700, 300))  # a seal among a sync's writes leaves them as they are
    sealed = keyword_indexes(store)
    assert list(sealed.values()).count("ImmutableRam") == 2, sealed  # the older one and the new seal
    assert all(sealed[name] == "ImmutableRam" for name, kind in old.items() if kind == "ImmutableRam")
    assert store.relayout_due()
    before = answers(store)
    upkeep = StoreUpkeep(store, idle=lambda: True, every=1, check_every=1)  # 1,000 points: no build for them
    upkeep.tick(now=0)
    assert upkeep.wait(120)  # the build runs on a thread of its own
    kinds = indexed(store)
    assert kinds and set(kinds.values()) == {"Mmap"} and not set(kinds) & set(sealed), kinds  # all rebuilt
    assert not store.relayout_due() and answers(store) == before
    assert store.count(MemoryFilter(repo="r")) == 1000
    store.close()
    again = open_store(tmp_path)
    assert not again.relayout_due() and answers(again) == before
    again.close()


def test_a_store_without_keyword_vectors_has_nothing_to_lay_out_anew(tmp_path):
    path = tmp_path / "edge" / "shard"
    path.mkdir(parents=True)
    config = qe.EdgeConfig(vectors={"dense": qe.EdgeVectorParams(size=DIM, distance=qe.Distance.Cosine)})
    qe.EdgeShard.create(str(path), config).close()  # as the first versions made it
    store = open_store(tmp_path)
    assert not store.has_sparse and not store.relayout_due()
    upsert_points(store, [StoredPoint(p.id, p.payload, p.vector) for p in points(0, 400)])
    store.optimize()  # the child is told there is no keyword vector to place
    assert store.count(MemoryFilter(repo="r")) == 400 and store.unindexed() == 0
    store.close()
