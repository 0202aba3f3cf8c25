"""One contract, both adapters: the embedded engine and qdrant-client (local mode)."""

from __future__ import annotations

import os
import subprocess
import sys
import uuid
from pathlib import Path

import pytest

from recalld.ingest.errors import RecalldError
from recalld.ingest.store import NAMED_BOOST, MemoryFilter, StoreConfig, StoredPoint, StoreLockedError, retrieve_many
from recalld.ingest.store_edge import QdrantEdgeStore
from tests.ingest.conftest import open_test_store

DIM = 8


def vec(i: int) -> list[float]:
    v = [0.0] * DIM
    v[i % DIM] = 1.0
    v[(i + 1) % DIM] = 0.1 * (i // DIM)
    return v


def mem(i: int, **payload) -> StoredPoint:
    base = {"record": "memory", "repo": "r", "branch": "main", "kind": "function", "language": "python",
            "path": f"src/pkg/m{i}.py", "dirs": ["src", "src/pkg"], "deprecated": 0, "symbol_key": f"k{i}",
            "qualname": f"f{i}"}  # fmt: skip
    base.update(payload)
    return StoredPoint(str(uuid.uuid5(uuid.NAMESPACE_OID, str(i))), base, vec(i))


@pytest.fixture(params=["edge", "server"])
def store(request, tmp_path):
    s = open_test_store(request.param, tmp_path, DIM)
    yield s
    s.close()


def ids(points) -> set[str]:
    return {p.id for p in points}


def test_filters_each_field(store):
    points = [
        mem(0),
        mem(1, repo="other"),
        mem(2, branch="dev"),
        mem(3, kind="class"),
        mem(4, language="go", path="cmd/m4.go", dirs=["cmd"]),
        mem(5, deprecated=1),
        StoredPoint(str(uuid.uuid4()), {"record": "checkpoint", "repo": "r", "branch": "main"}, None),
    ]
    store.upsert(points)
    p = {i: points[i].id for i in range(6)}
    assert ids(store.scroll(MemoryFilter(repo="r", branch="main"))) == {p[0], p[3], p[4]}
    assert ids(store.scroll(MemoryFilter(repo="other"))) == {p[1]}
    assert ids(store.scroll(MemoryFilter(branch="dev"))) == {p[2]}
    assert ids(store.scroll(MemoryFilter(kinds=("class", "struct")))) == {p[3]}
    assert ids(store.scroll(MemoryFilter(language="go"))) == {p[4]}
    assert ids(store.scroll(MemoryFilter(dir_prefix="src/pkg", repo="r", branch="main"))) == {p[0], p[3]}
    assert ids(store.scroll(MemoryFilter(dir_prefix="cmd"))) == {p[4]}
    assert ids(store.scroll(MemoryFilter(paths=("src/pkg/m0.py", "cmd/m4.go")))) == {p[0], p[4]}
    assert ids(store.scroll(MemoryFilter(deprecated=1))) == {p[5]}
    assert len(ids(store.scroll(MemoryFilter(deprecated=None)))) == 6
    assert ids(store.scroll(MemoryFilter(qualnames=("f2", "f5"), deprecated=None))) == {p[2], p[5]}
    assert store.count(MemoryFilter(record="checkpoint", deprecated=None)) == 1
    assert store.count(MemoryFilter(record=None, deprecated=None)) == 7
    assert store.count(MemoryFilter(repo="nope")) == 0


def test_payload_merge_retrieve_delete_and_vectors(store):
    a, b = mem(0), mem(1)
    store.upsert([a, b])
    store.set_payload([a.id], {"deprecated": 1, "superseded_by": b.id})
    (got,) = store.retrieve([a.id, str(uuid.uuid4())])
    assert got.payload["deprecated"] == 1 and got.payload["superseded_by"] == b.id
    assert got.payload["qualname"] == "f0"
    store.set_payload([a.id], {"superseded_by": None})
    assert store.retrieve([a.id])[0].payload.get("superseded_by") is None
    vectors = store.get_vectors([a.id, b.id])
    assert vectors[b.id] == pytest.approx(vec(1))
    store.upsert([mem(1, qualname="again")])
    assert store.count(MemoryFilter(deprecated=None)) == 2
    store.delete([a.id])
    assert store.retrieve([a.id]) == []
    assert store.scroll(MemoryFilter(), fields=("path",)).__next__().payload == {"path": "src/pkg/m1.py"}


def test_whole_points_hold_their_payloads_and_both_vectors(store):
    from recalld.ingest.store import SparseVector

    a, b = mem(0), mem(1, history=[{"superseded_by": "x"}])
    a.sparse = SparseVector((3, 7), (1.0, 2.0))
    store.upsert([a, b])
    got = {p.id: p for p in store.whole([a.id, b.id, str(uuid.uuid4())])}
    assert set(got) == {a.id, b.id}
    assert got[a.id].payload == a.payload and got[b.id].payload == b.payload
    assert got[a.id].vector == pytest.approx(vec(0)) and got[b.id].vector == pytest.approx(vec(1))
    assert sorted(zip(got[a.id].sparse.indices, got[a.id].sparse.values)) == [(3, 1.0), (7, 2.0)]
    assert got[b.id].sparse is None or not got[b.id].sparse.indices
    assert store.whole([]) == []


def test_set_vectors_replaces_the_dense_vector_only_and_passes_over_missing_points(store):
    from recalld.ingest.store import SparseVector

    points = [mem(i) for i in range(40)]  # more than one engine call
    points[0].sparse = SparseVector((3, 7), (1.0, 2.0))
    store.upsert(points)
    gone = points[5].id
    store.delete([gone])
    new = {p.id: [float(n == (i + 3) % DIM) for n in range(DIM)] for i, p in enumerate(points)}  # unit: kept as given
    store.set_vectors(new)
    got = store.get_vectors(list(new))
    assert gone not in got and len(got) == 39
    assert all(got[i] == pytest.approx(new[i]) for i in got)
    assert store.retrieve([points[7].id])[0].payload == points[7].payload
    # the keyword vector is kept: a keyword search still finds the point
    hits = store.hybrid_search(None, SparseVector((7,), (1.0,)), MemoryFilter(), 5)
    assert [h.point.id for h in hits] == [points[0].id]
    store.set_vectors({})


def test_retrieve_many_returns_only_the_fields_asked_for(store):
    points = [mem(i) for i in range(1200)]  # more than one retrieve batch
    store.upsert(points)
    wanted = [p.id for p in points[::2]] + [str(uuid.uuid4())]
    assert [p.payload for p in retrieve_many(store, wanted, fields=())] == [{}] * 600
    assert ids(retrieve_many(store, wanted, fields=())) == set(wanted[:-1])
    got = {p.id: p.payload for p in retrieve_many(store, wanted, fields=("path", "qualname"))}
    assert got[points[2].id] == {"path": "src/pkg/m2.py", "qualname": "f2"}
    assert retrieve_many(store, wanted[:1])[0].payload["kind"] == "function"  # None: the whole payload


def test_scroll_pages_through_everything(store):
    points = [mem(i) for i in range(2500)]
    for start in range(0, len(points), 500):
        store.upsert(points[start : start + 500])
    assert ids(store.scroll(MemoryFilter())) == ids(points)
    assert store.count(MemoryFilter()) == 2500


def test_search_ranks_and_filters(store):
    store.upsert([mem(0), mem(1), mem(2, kind="class"), mem(8, deprecated=1)])
    hits = store.search(vec(0), MemoryFilter(), 3)
    assert [h.point.payload["qualname"] for h in hits][0] == "f0"
    assert all(hits[i].score >= hits[i + 1].score for i in range(len(hits) - 1))
    assert "f8" not in {h.point.payload["qualname"] for h in hits}
    assert [h.point.payload["qualname"] for h in store.search(vec(0), MemoryFilter(kinds=("class",)), 5)] == ["f2"]


def test_reopen_keeps_everything(tmp_path):
    for kind in ("edge", "server"):
        first = open_test_store(kind, tmp_path / kind, DIM)
        first.upsert([mem(i, kind="class" if i % 2 else "function", valid_to_time=i * 10) for i in range(10)])
        first.set_payload([mem(3).id], {"deprecated": 1})
        first.close()
        again = open_test_store(kind, tmp_path / kind, DIM)
        assert again.count(MemoryFilter()) == 9 and again.count(MemoryFilter(deprecated=1)) == 1
        assert again.count(MemoryFilter(kinds=("class",), dir_prefix="src/pkg")) == 4  # keyword indexes
        assert again.count(MemoryFilter(closed_before=45)) == 3  # integer range index (3 is deprecated)
        assert again.search(vec(4), MemoryFilter(kinds=("function",)), 1)[0].point.payload["qualname"] == "f4"
        assert again.upgrade() is False  # made by this version: nothing to bring up to date
        again.close()


@pytest.mark.parametrize("adapter", ["edge", "server"])
def test_indexes_only_the_fields_filters_use(adapter, tmp_path, monkeypatch):
    """An index costs every write that carries its field: a new store indexes the fields
    a ``MemoryFilter`` can filter on, and no other (not lineage, content_hash or blob,
    which every memory carries). qdrant-client's local mode keeps no indexes: for the
    server adapter, the indexes it asks for are what counts."""
    from qdrant_client import QdrantClient

    from recalld.ingest.store import INTEGER_FIELDS, KEYWORD_FIELDS

    asked: list[str] = []
    create = QdrantClient.create_payload_index

    def record(client, collection, name, *args, **kwargs):  # noqa: ANN001
        asked.append(name)
        return create(client, collection, name, *args, **kwargs)

    monkeypatch.setattr(QdrantClient, "create_payload_index", record)
    store = open_test_store(adapter, tmp_path, DIM)
    schema = set(store._shard.info().payload_schema) if adapter == "edge" else set(asked)
    store.close()
    assert schema == {*KEYWORD_FIELDS, *INTEGER_FIELDS}
    assert not {"lineage", "content_hash", "blob"} & schema


def test_edge_store_rebuilds_the_payload_indexes_an_older_version_made(tmp_path, monkeypatch):
    """A store whose payload indexes an earlier version built (all on the heap) opens
    and filters as before; ``upgrade`` rebuilds them one field per call, filters keep
    working throughout, and once reopened the store has nothing left to do."""
    import qdrant_edge as qe

    from recalld.ingest import store_edge
    from recalld.ingest.store import INTEGER_FIELDS, KEYWORD_FIELDS

    def heap_index(name: str) -> qe.PayloadSchemaType:  # what earlier versions created
        return qe.PayloadSchemaType.Integer if name in INTEGER_FIELDS else qe.PayloadSchemaType.Keyword

    unused = ("lineage", "blob")  # earlier versions also indexed fields no filter uses
    with monkeypatch.context() as patch:
        patch.setattr(store_edge, "index_params", heap_index)
        patch.setattr(store_edge, "KEYWORD_FIELDS", (*KEYWORD_FIELDS, *unused))
        old = open_test_store("edge", tmp_path, DIM)
        old.upsert([mem(i, deprecated=i % 2, valid_to_time=i * 10, lineage=f"l{i}", blob="b") for i in range(20)])
        old.close()
    store = open_test_store("edge", tmp_path, DIM)
    assert store.count(MemoryFilter(deprecated=1)) == 10
    steps = 0
    while store.upgrade():
        steps += 1
        assert store.count(MemoryFilter(deprecated=1, dir_prefix="src", closed_before=100)) == 5
    assert steps == len(KEYWORD_FIELDS) + len(INTEGER_FIELDS) + len(unused)
    store.close()
    again = open_test_store("edge", tmp_path, DIM)
    assert set(again._shard.info().payload_schema) == {*KEYWORD_FIELDS, *INTEGER_FIELDS}
    assert again.retrieve([mem(3).id])[0].payload["lineage"] == "l3"  # the field stays, unindexed
    assert again.upgrade() is False
    assert again.count(MemoryFilter(deprecated=1, dir_prefix="src", closed_before=100)) == 5
    assert again.search(vec(3), MemoryFilter(deprecated=1), 1)[0].point.payload["qualname"] == "f3"
    again.close()


def test_edge_store_reopens_what_the_engine_indexed_with_filters_and_search(tmp_path):
    """Past the engine's indexing threshold (~6.7k points of 384 dims) ``optimize`` moves
    the points to an immutable segment, the one whose payload indexes are kept on disk
    or on the heap by field: they filter alike there and after a reopen."""
    import numpy as np

    from recalld.ingest.store_edge import QdrantEdgeStore

    n, dim = 7000, 384
    rows = np.random.default_rng(3).standard_normal((n, dim)).astype(np.float32)
    points = [
        StoredPoint(str(uuid.UUID(int=i + 1)), {"record": "memory", "repo": f"r{i % 2}", "kind": "class" if i % 3 else "function",
                    "dirs": [f"d{i % 5}"], "deprecated": int(i % 7 == 0), "untrusted": int(i % 11 == 0), "valid_to_time": i},
                    row.tolist())
        for i, row in enumerate(rows)
    ]  # fmt: skip
    config = StoreConfig(dim=dim, path=str(tmp_path / "edge"))
    store = QdrantEdgeStore(config)
    for start in range(0, n, 1000):
        store.upsert(points[start : start + 1000])
    store.optimize()
    assert store.unindexed() == 0

    def live(i: int) -> bool:
        return i % 7 != 0

    expected = [
        sum(1 for i in range(n) if i % 2 and live(i)),
        sum(1 for i in range(n) if i % 2 and i % 3 and i % 5 == 2 and live(i)),
        sum(1 for i in range(n) if not live(i)),
        99,  # valid_to_time 1..99, live or not
        sum(1 for i in range(n) if live(i) and i % 11),
    ]

    def figures(s: QdrantEdgeStore) -> list[object]:
        return [
            s.count(MemoryFilter(repo="r1")),
            s.count(MemoryFilter(repo="r1", kinds=("class",), dir_prefix="d2")),
            s.count(MemoryFilter(deprecated=1)),
            s.count(MemoryFilter(closed_before=100, deprecated=None)),
            s.count(MemoryFilter(hide_untrusted=True)),
            s.search(rows[44].tolist(), MemoryFilter(repo="r0"), 1)[0].point.id,
        ]

    assert figures(store) == [*expected, points[44].id]
    store.close()
    again = QdrantEdgeStore(config)
    assert figures(again) == [*expected, points[44].id]
    again.close()


def test_edge_store_is_owned_by_one_process(tmp_path):
    from recalld.ingest.store_edge import QdrantEdgeStore

    config = StoreConfig(dim=DIM, path=str(tmp_path / "edge"))
    owner = QdrantEdgeStore(config)
    try:
        code = (
            "import sys\nfrom recalld.ingest.store import StoreConfig, StoreLockedError\n"
            "from recalld.ingest.store_edge import QdrantEdgeStore\n"
            f"try:\n    QdrantEdgeStore(StoreConfig(dim={DIM}, path={str(tmp_path / 'edge')!r}))\n"
            "except StoreLockedError as e:\n    print(e); sys.exit(3)\n"
        )
        done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
        assert done.returncode == 3, done.stderr
        assert "in use by another process" in done.stdout
    finally:
        owner.close()
    QdrantEdgeStore(config).close()  # released on close


def test_dimension_mismatch_is_refused(tmp_path):
    for kind in ("edge", "server"):
        open_test_store(kind, tmp_path / kind, DIM).close()
        with pytest.raises(RecalldError, match="dimensional|wrong size"):
            open_test_store(kind, tmp_path / kind, DIM * 2)


def test_two_writers_share_one_collection(tmp_path):
    """Two stores on one server collection (two machines) keep each other's repos intact."""
    from qdrant_client import QdrantClient

    from recalld.ingest.store_server import QdrantServerStore

    client = QdrantClient(path=str(tmp_path / "shared"))
    one = QdrantServerStore(StoreConfig(dim=DIM, url="local"), client=client)
    two = QdrantServerStore(StoreConfig(dim=DIM, url="local"), client=client)
    one.upsert([mem(i, repo="alpha") for i in range(5)])
    two.upsert([mem(i + 100, repo="beta") for i in range(5)])
    two.upsert([mem(i, repo="alpha") for i in range(5)])  # the same repo synced elsewhere: same ids
    assert one.count(MemoryFilter(repo="alpha")) == 5 and one.count(MemoryFilter(repo="beta")) == 5
    client.close()


def test_filters_on_type_qualname_name_code_writer_and_lineage(store):
    points = [mem(0, type="structural", name="f", content_hash="same", written_in="c1", lineage="l1"),
              mem(1, type="note", qualname=None, name=None),
              mem(2, type="task", qualname="C.f", name="f", content_hash="own"),
              mem(3, type="structural", name="f", content_hash="same", written_in="c2", lineage="l2")]  # fmt: skip
    store.upsert(points)
    p = [x.id for x in points]
    assert ids(store.scroll(MemoryFilter(types=("note", "task")))) == {p[1], p[2]}
    assert ids(store.scroll(MemoryFilter(qualnames=("C.f",)))) == {p[2]}
    assert ids(store.scroll(MemoryFilter(names=("f",), types=("structural",)))) == {p[0], p[3]}
    assert store.count(MemoryFilter(names=("f",), codes=("same",))) == 2
    assert store.count(MemoryFilter(names=("f",), codes=("own", "none"))) == 1
    assert ids(store.scroll(MemoryFilter(written_in=("c2", "c3")))) == {p[3]}
    assert ids(store.scroll(MemoryFilter(lineages=("l2", "l3"), deprecated=None))) == {p[3]}


def sparse(*words: str):
    from recalld.ingest.sparse import query_vector

    return query_vector(" ".join(words))


def kmem(i: int, words: str, **payload) -> StoredPoint:
    from recalld.ingest.sparse import document_vector

    point = mem(i, **payload)
    point.sparse = document_vector(words)
    return point


def test_hybrid_search_fuses_keywords_and_meaning(store):
    store.upsert([kmem(0, "alpha"), kmem(1, "parse_config loader"), kmem(2, "beta"), kmem(3, "gamma"),
                  kmem(4, "parse_config", deprecated=1)])  # fmt: skip
    by_keyword = store.hybrid_search(None, sparse("parse_config"), MemoryFilter(), 5)
    assert [h.point.payload["qualname"] for h in by_keyword] == ["f1"]
    by_meaning = store.hybrid_search(vec(2), None, MemoryFilter(), 1)
    assert by_meaning[0].point.payload["qualname"] == "f2"
    fused = store.hybrid_search(vec(0), sparse("parse_config"), MemoryFilter(), 4)
    names = [h.point.payload["qualname"] for h in fused]
    assert set(names[:2]) == {"f0", "f1"}  # the dense winner and the keyword winner lead
    assert "f4" not in names and all(fused[i].score >= fused[i + 1].score for i in range(len(fused) - 1))
    assert [h.point.payload["qualname"] for h in store.hybrid_search(vec(0), sparse("parse_config"),
            MemoryFilter(kinds=("class",)), 4)] == []  # fmt: skip
    assert store.hybrid_search(None, None, MemoryFilter(), 3) == []
    assert store.hybrid_search(vec(1), sparse("nothing_matches"), MemoryFilter(), 1)[0].point.payload["qualname"] == "f1"
    # one ranking (no keyword term, or no keyword vectors) is scored by similarity, or by rank as the
    # engine fuses one
    assert store.hybrid_search(vec(1), None, MemoryFilter(), 1)[0].score == pytest.approx(1.0)
    alone = store.hybrid_search(vec(1), None, MemoryFilter(), 4, ranked=True)
    with_empty = store.hybrid_search(vec(1), sparse("nothing_matches"), MemoryFilter(), 4)  # fused by the engine
    assert [h.point.id for h in alone] == [h.point.id for h in with_empty]
    assert [round(h.score, 6) for h in alone] == [round(h.score, 6) for h in with_empty] == [
        round(1 / (60 + n), 6) for n in range(4)
    ]


def test_hybrid_search_puts_the_named_memories_first(store):
    """``named`` puts the memories of that name or qualified name first, ahead of what
    leads both other rankings, in each mode, by a score above every fused one; filters
    still hold; a name no memory has changes nothing."""
    store.upsert([kmem(0, "probe_0 value", name="probe_0", qualname="probe_0"),
                  kmem(1, "probe_1 value", name="probe_1", qualname="probe_1"),
                  kmem(2, "probe_2 probe_2 value", name="probe_2", qualname="probe_2"),
                  kmem(3, "load", name="load", qualname="Config.load"),
                  kmem(4, "load", name="load", qualname="Cache.load"),
                  kmem(5, "probe_1 value", name="probe_1", qualname="probe_1", deprecated=1)])  # fmt: skip

    def found(dense, words, named, flt=None, limit=3):  # type: ignore[no-untyped-def]
        hits = store.hybrid_search(dense, words, flt or MemoryFilter(), limit, named=named)
        return [h.point.payload["qualname"] for h in hits]

    # probe_2 leads by meaning (vec 2) and by keywords (its name twice); probe_1 is named
    assert found(vec(2), sparse("probe_2 probe_1"), ())[0] == "probe_2"
    assert found(vec(2), sparse("probe_2 probe_1"), ("probe_1",))[0] == "probe_1"
    assert found(None, sparse("probe_2 probe_1"), ("probe_1",))[0] == "probe_1"  # keywords alone
    assert found(vec(2), None, ("probe_1",))[0] == "probe_1"  # meaning alone
    assert set(found(vec(2), sparse("load"), ("load",), limit=2)) == {"Config.load", "Cache.load"}
    assert found(vec(2), sparse("load"), ("Cache.load",))[0] == "Cache.load"  # by its qualified name
    assert found(vec(2), sparse("probe_2"), ("probe_1",), MemoryFilter(kinds=("class",))) == []
    assert found(vec(2), sparse("probe_2"), ("nothing",)) == found(vec(2), sparse("probe_2"), ())
    hits = store.hybrid_search(vec(2), sparse("probe_2 probe_1"), MemoryFilter(), 5, named=("probe_1",))
    assert all(hits[i].score >= hits[i + 1].score for i in range(len(hits) - 1))
    assert hits[0].score > NAMED_BOOST > hits[1].score
    assert [h.point.payload.get("deprecated") for h in hits].count(1) == 0


def test_keyword_vectors_score_the_same_whatever_the_order_of_their_indices(store):
    from recalld.ingest.store import SparseVector

    indices, values = (5, 90, 1200, 70_000, 4_000_000_000), (0.5, 1.25, 2.0, 0.75, 1.5)
    ascending, descending = mem(0), mem(1)
    ascending.sparse = SparseVector(indices, values)
    descending.sparse = SparseVector(indices[::-1], values[::-1])
    other = mem(2)
    other.sparse = SparseVector((6, 91), (1.0, 1.0))
    store.upsert([ascending, descending, other])
    query = SparseVector((4_000_000_000, 1200, 5), (1.0, 1.0, 1.0))  # the query's order is its own
    hits = store.hybrid_search(None, query, MemoryFilter(), 3)
    assert {h.point.payload["qualname"] for h in hits} == {"f0", "f1"}
    assert hits[0].score == pytest.approx(hits[1].score)


def test_untrusted_hidden_by_must_not_and_types_filter(store):
    points = [mem(0, untrusted=0, type="structural"), mem(1, untrusted=1, type="structural"),
              mem(2, type="task"), mem(3, type="debt")]  # fmt: skip
    store.upsert(points)
    p = [x.id for x in points]
    assert ids(store.scroll(MemoryFilter(hide_untrusted=True))) == {p[0], p[2], p[3]}  # lacking the field: kept
    assert len(ids(store.scroll(MemoryFilter()))) == 4
    assert ids(store.scroll(MemoryFilter(types=("task", "debt")))) == {p[2], p[3]}
    hits = store.hybrid_search(vec(1), None, MemoryFilter(hide_untrusted=True), 4)
    assert p[1] not in {h.point.id for h in hits}


def test_valid_at_time_and_states_include_reopened_history(store):
    from recalld.ingest.store import ValidAt

    closed = {"deprecated": 1}
    points = [
        mem(0, valid_from_commit="c1", valid_from_time=100, valid_to_commit=None, valid_to_time=0),
        mem(1, valid_from_commit="c1", valid_from_time=100, valid_to_commit="c2", valid_to_time=200, **closed),
        mem(2, valid_from_commit="c2", valid_from_time=200, valid_to_commit=None, valid_to_time=0),
        # open c1..c2, reopened at c3 by a revert
        mem(3, valid_from_commit="c3", valid_from_time=300, valid_to_commit=None, valid_to_time=0,
            history=[{"valid_from_commit": "c1", "valid_from_time": 100, "valid_to_commit": "c2", "valid_to_time": 200}]),
        # a manual memory: no commit opened it; remembered at 120
        mem(4, valid_from_commit=None, valid_from_time=120, valid_to_commit=None, valid_to_time=0),
    ]  # fmt: skip
    store.upsert(points)
    p = [x.id for x in points]

    def at(**kw) -> set[str]:
        return ids(store.scroll(MemoryFilter(deprecated=None, valid_at=ValidAt(**kw))))

    assert at(time=50) == set()
    assert at(time=110) == {p[0], p[1], p[3]}
    assert at(time=150) == {p[0], p[1], p[3], p[4]}
    assert at(time=200) == {p[0], p[2], p[4]}
    assert at(time=300) == {p[0], p[2], p[3], p[4]}
    assert at(time=110, commits=("c1",)) == {p[0], p[1], p[3]}
    assert at(time=150, commits=("c1",)) == {p[0], p[1], p[3], p[4]}  # the manual one by time
    assert at(time=250, commits=("c1", "c2")) == {p[0], p[2], p[4]}
    assert at(time=999, commits=("c1", "c2", "c3")) == {p[0], p[2], p[3], p[4]}
    assert at(time=50, commits=()) == set()
    hits = store.hybrid_search(vec(1), None, MemoryFilter(deprecated=None, valid_at=ValidAt(time=150)), 5)
    assert {h.point.id for h in hits} == {p[0], p[1], p[3], p[4]}


def test_valid_at_an_interval_last_valid_after_it_closed(store):
    """An interval records where it was last valid (``valid_through_*``): one a move
    back closed (from c3 to c1) held at c2 though c1 closed it; one a move forward over
    an indexed state closed (c1 to c3 over c2) did not hold there. The time alone tells
    so for an earlier interval kept in the history only."""
    from recalld.ingest.store import ValidAt

    back = {"valid_from_commit": "c2", "valid_from_time": 200, "valid_to_commit": "c1", "valid_to_time": 100,
            "valid_through_commit": "c3", "valid_through_time": 300}  # fmt: skip
    points = [
        mem(0, **back, deprecated=1),
        mem(1, valid_from_commit="c4", valid_from_time=400, valid_to_commit=None, valid_to_time=0, history=[back]),
        mem(2, valid_from_commit="c1", valid_from_time=100, valid_to_commit="c3", valid_to_time=300,
            valid_through_commit="c1", valid_through_time=100, deprecated=1),
        mem(3, valid_from_commit="c1", valid_from_time=100, valid_to_commit="c2", valid_to_time=200, deprecated=1),
    ]  # fmt: skip
    store.upsert(points)
    p = [x.id for x in points]

    def at(**kw) -> set[str]:
        return ids(store.scroll(MemoryFilter(deprecated=None, valid_at=ValidAt(**kw))))

    assert at(time=250, commits=("c1", "c2"), later=("c2", "c3", "c4")) == {p[0], p[1]}
    assert at(time=150, commits=("c1",), later=("c1", "c2", "c3", "c4")) == {p[2], p[3]}
    assert at(time=350, commits=("c1", "c2", "c3"), later=("c3", "c4")) == {p[0], p[1]}
    assert at(time=250) == {p[1], p[2]}
    assert at(time=150) == {p[2], p[3]}


def test_valid_at_a_sync_spanned_by_the_interval(store):
    """Syncs stamped 10 (to c1), 20 (c2), 30 (back to c1), 40 (forward to c3, over c2):
    a version reopened at c1 by the third and kept over c2 by the fourth spans c2 in
    commits, not in syncs; the visit to c2 (20) is what it is asked at. An interval
    without stamps (made before syncs were stamped) is judged by its commits."""
    from recalld.ingest.store import ValidAt

    def interval(f: str, fs: int, t: str | None = None, ts: int | None = None) -> dict:  # type: ignore[type-arg]
        return {"valid_from_commit": f, "valid_from_sync": fs, "valid_to_commit": t, "valid_to_sync": ts}

    points = [
        # c1's version of a function c2 changed and c3 changed back: open 10-20, reopened at 30
        mem(0, **interval("c1", 30), history=[interval("c1", 10, "c2", 20)]),
        # c2's version: 20-30, closed by the move back
        mem(1, **interval("c2", 20, "c1", 30), deprecated=1),
        # added at c2, kept by c3: 20-30, reopened at 40
        mem(2, **interval("c3", 40), history=[interval("c2", 20, "c1", 30)]),
        # made before syncs were stamped: opened at c1, open
        mem(3, valid_from_commit="c1", valid_to_commit=None),
    ]  # fmt: skip
    store.upsert(points)
    p = [x.id for x in points]

    def at(**kw) -> set[str]:
        return ids(store.scroll(MemoryFilter(deprecated=None, valid_at=ValidAt(time=0, **kw))))

    assert at(commits=("c1", "c2"), later=("c2", "c3"), visit=20) == {p[1], p[2], p[3]}
    assert at(commits=("c1",), later=("c1", "c2", "c3"), visit=30) == {p[0], p[3]}
    assert at(commits=("c1", "c2", "c3"), later=("c3",), visit=40) == {p[0], p[2], p[3]}
    # by commits alone, the reopened c1 version is taken for valid at c2
    assert p[0] in at(commits=("c1", "c2"), later=("c2", "c3"))


def test_edge_store_counts_memories_with_keyword_vectors_as_unindexed_until_optimized(tmp_path):
    """The engine's indexed count includes every keyword (sparse) vector: ``unindexed``
    must still report the dense vectors no vector index holds, or the daemon never
    builds one for a store of memories (they all carry keyword vectors)."""
    import numpy as np

    from recalld.ingest.store import SparseVector
    from recalld.ingest.store_edge import QdrantEdgeStore

    n, dim = 7000, 384
    rows = np.random.default_rng(5).standard_normal((n, dim)).astype(np.float32)
    keyword = [SparseVector((i % 97, 1000 + i % 13), (1.0, 0.5)) if i % 10 else None for i in range(n)]
    points = [StoredPoint(str(uuid.UUID(int=i + 1)), {"record": "memory"}, row.tolist(), keyword[i])
              for i, row in enumerate(rows)]  # fmt: skip
    store = QdrantEdgeStore(StoreConfig(dim=dim, path=str(tmp_path / "edge")))
    for start in range(0, n, 1000):
        store.upsert(points[start : start + 1000])
    store.upsert([StoredPoint(str(uuid.UUID(int=n + 1)), {"record": "checkpoint"})])  # no vector at all
    assert store.unindexed() == n
    store.optimize()
    assert store.unindexed() == 0
    store.close()


class _Counting:
    """A shard whose calls are counted by name."""

    def __init__(self, shard, calls: list[str]) -> None:
        self.shard, self.calls = shard, calls

    def __getattr__(self, name: str):  # type: ignore[no-untyped-def]
        self.calls.append(name)
        return getattr(self.shard, name)


def test_an_edge_store_nothing_wrote_to_closes_without_a_flush(tmp_path):
    """A read-only command's close flushed the shard all the same (~0.3 s of each
    ``recalld outline`` or ``symbol``, whose whole close took 0.68 s). Only a shard written
    since its last flush is flushed now, and what was written is there when reopened."""
    first = open_test_store("edge", tmp_path, DIM)
    first.upsert([mem(1)])
    first.close()
    calls: list[str] = []
    reader = open_test_store("edge", tmp_path, DIM)
    reader._shard = _Counting(reader._shard, calls)
    assert reader.count(MemoryFilter()) == 1
    reader.close()
    assert "flush" not in calls and calls[-1] == "close", calls
    calls.clear()
    writer = open_test_store("edge", tmp_path, DIM)
    writer._shard = _Counting(writer._shard, calls)
    writer.upsert([mem(2)])
    writer.close()
    assert calls.count("flush") == 1 and calls[-1] == "close", calls
    again = open_test_store("edge", tmp_path, DIM)
    assert again.count(MemoryFilter()) == 2
    again.close()


def test_edge_store_upserts_in_engine_calls_that_hold_the_gil_briefly(tmp_path, monkeypatch):
    """The engine holds the GIL through an update: a large upsert goes in calls of at
    most ENGINE_CALL points (a model worker waits for each), and every point is stored."""
    from recalld.ingest import store_edge

    store = open_test_store("edge", tmp_path, DIM)
    sizes: list[int] = []
    upsert_points = store_edge.qe.UpdateOperation.upsert_points

    def counted(points):  # type: ignore[no-untyped-def]
        sizes.append(len(points))
        return upsert_points(points)

    monkeypatch.setattr(store_edge.qe.UpdateOperation, "upsert_points", counted)
    points = [mem(i) for i in range(store_edge.ENGINE_CALL * 3 + 5)]
    store.upsert(points)
    assert sizes == [store_edge.ENGINE_CALL] * 3 + [5]
    assert ids(store.scroll(MemoryFilter())) == ids(points)
    store.close()


def test_a_store_lock_is_kept_through_an_exec_and_adopted_by_the_new_program(tmp_path):
    """A daemon restarting in place (exec, same pid) keeps its store locked in between, then
    opens it again; without ``keep_across_exec`` another process takes the store meanwhile."""
    worker = Path(__file__).with_name("exec_worker.py")
    store = str(tmp_path / "edge")
    for keep, between in (("1", "locked"), ("0", "free")):
        with subprocess.Popen(
            [sys.executable, str(worker), store], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
            env={**os.environ, "KEEP": keep},
        ) as proc:  # fmt: skip
            assert proc.stdout is not None and proc.stdin is not None
            try:
                assert proc.stdout.readline().strip() == f"between: {between}"
                assert proc.stdout.readline().strip() == f"after: owner {proc.pid}"
                with pytest.raises(StoreLockedError, match=f"pid {proc.pid}"):
                    QdrantEdgeStore(StoreConfig(dim=8, path=store))
                proc.stdin.write("\n")
                proc.stdin.flush()
                assert proc.wait(timeout=30) == 0
            finally:
                proc.kill()
    QdrantEdgeStore(StoreConfig(dim=8, path=store)).close()  # released when the new program closes it


def test_edge_store_writes_what_a_files_points_share_once_and_reads_back_every_payload_whole(tmp_path, monkeypatch):
    """A file's memories share most of their payload; the edge store converts those fields
    once (a set_payload over the file's points) and every payload reads back as given:
    nulls kept, a value shared only where every point has it with the same type."""
    from recalld.ingest import store_edge

    store = open_test_store("edge", tmp_path, DIM)
    shared_writes: list[tuple[int, set[str]]] = []
    set_payload = store_edge.qe.UpdateOperation.set_payload

    def counted(ids, payload, *args):  # type: ignore[no-untyped-def]
        shared_writes.append((len(ids), set(payload)))
        return set_payload(ids, payload, *args)

    monkeypatch.setattr(store_edge.qe.UpdateOperation, "set_payload", counted)
    one_file = [mem(i, path="src/pkg/big.py", blob="b1", superseded_by=None, history=[], untrusted=i % 2,
                    flag=True if i else 1) for i in range(store_edge.ENGINE_CALL + 3)]  # fmt: skip
    others = [mem(100 + i) for i in range(3)]  # a path each: nothing to share
    store.upsert([*one_file[:10], *others, *one_file[10:]])
    assert shared_writes == [(store_edge.ENGINE_CALL, {"kind", "language", "path", "dirs", "deprecated", "blob", "history"}),
                             (3, {"kind", "language", "path", "dirs", "deprecated", "blob", "history"})]  # fmt: skip
    stored = {p.id: p.payload for p in store.retrieve([p.id for p in [*one_file, *others]])}
    assert stored == {p.id: p.payload for p in [*one_file, *others]}
    assert all("superseded_by" in payload and payload["superseded_by"] is None for payload in stored.values()
               if payload["path"] == "src/pkg/big.py")  # fmt: skip
    store.close()


def test_a_point_keeps_its_identity_in_its_own_write(tmp_path):
    """Were a crash to fall between a file's points and their shared fields, each point
    still has its repository (deleted with it) and no state that makes it live."""
    from recalld.ingest.store_sharing import OWN_FIELDS, shared_fields

    points = [mem(i, path="a.py", symbol_key="k", qualname="q") for i in range(5)]
    shared = shared_fields(points)
    assert not OWN_FIELDS & set(shared)
    assert {"repo", "branch", "record"} <= OWN_FIELDS
    assert "deprecated" in shared and "path" in shared
    assert shared_fields(points[:3]) == {}  # too few to gain


def test_the_servers_version_is_checked_in_line_not_on_a_thread_that_warns_later(monkeypatch):
    """qdrant-client checks a server's version on a thread of its own, which warns when it
    ends: after the store's error, in whatever runs then (a later test, under warnings as
    errors). The store asks the version itself, once it reached the server."""
    import socket

    from qdrant_client.qdrant_remote import QdrantRemote

    from recalld.ingest.errors import StoreServerError
    from recalld.ingest.store_server import QdrantServerStore, _compatible

    threads: list[object] = []
    monkeypatch.setattr(QdrantRemote, "_check_compatibility", staticmethod(lambda *args: threads.append(args)))
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        closed = f"http://127.0.0.1:{probe.getsockname()[1]}"
    with pytest.raises(StoreServerError, match="did not answer"):
        QdrantServerStore(StoreConfig(dim=DIM, url=closed))
    assert threads == []
    assert _compatible("1.20.0", "1.21.3") and _compatible("1.20.0", "1.19.0-rc1")
    assert not _compatible("1.20.0", "1.18.2") and not _compatible("1.20.0", "2.0.0") and not _compatible("1.20", "x")


@pytest.mark.filterwarnings("ignore")  # qdrant-client: an API key over http
def test_a_qdrant_server_that_does_not_answer_or_refuses_is_a_clear_error(tmp_path):
    """A server that is not there (refused), goes away after the store opened, or answers
    with an error (a wrong API key): the store raises a ``RecalldError`` naming the server,
    the call and the reason, where qdrant-client's exceptions were tracebacks of the CLI
    and HTTP 500s of the daemon's API."""
    import json
    import socket
    import threading
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    from qdrant_client import QdrantClient

    from recalld.ingest.errors import StoreServerError
    from recalld.ingest.store_server import QdrantServerStore

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        closed = f"http://127.0.0.1:{probe.getsockname()[1]}"  # nothing listens once it is closed
    with pytest.raises(StoreServerError, match=rf"Qdrant at {closed} did not answer \(collection_exists\): .*refused"):
        QdrantServerStore(StoreConfig(dim=DIM, url=closed))

    store = QdrantServerStore(StoreConfig(dim=DIM, url=closed), client=QdrantClient(path=str(tmp_path / "local")))
    store.upsert([mem(1)])
    store._client._client = QdrantClient(url=closed, check_compatibility=False)  # type: ignore[attr-defined]
    for call, name in ((lambda: store.search(vec(1), MemoryFilter(repo="r"), 3), "query_points"),
                       (lambda: list(store.scroll(MemoryFilter())), "scroll"),
                       (lambda: store.upsert([mem(2)]), "upsert"),
                       (lambda: store.count(MemoryFilter()), "count")):  # fmt: skip
        with pytest.raises(StoreServerError, match=rf"did not answer \({name}\)"):
            call()

    class WrongKey(BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 - the stdlib's name
            data = json.dumps({"status": {"error": "Invalid api-key"}}).encode()
            self.send_response(403)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *_args: object) -> None:
            pass

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), WrongKey)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{httpd.server_address[1]}"
    try:
        refused = rf"Qdrant at {url} refused collection_exists: .*403.*Invalid api-key"
        with pytest.raises(StoreServerError, match=refused):
            QdrantServerStore(StoreConfig(dim=DIM, url=url, api_key="wrong"))
    finally:
        httpd.shutdown()
        httpd.server_close()
