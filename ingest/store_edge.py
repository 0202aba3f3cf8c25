"""The embedded store: Qdrant's in-process engine (qdrant-edge) in the state directory.

With its filters (``store_edge_filter``), its layout (``store_edge_layout``: payload
indexes, and the children that build and seal segments), its index builds
(``store_edge_builds``) and its writes (``store_edge_written``: each an engine operation
made from plain values, kept on the disk during a build), the only modules importing
``qdrant_edge``. The engine's WAL lock makes one process the owner; a second opener gets
``StoreLockedError``. Nothing is written while the disk is nearly full (``diskspace``).

A write returns once the engine has applied it and appended it to its write-ahead log,
so it survives the process being killed (the WAL is replayed on load) and is searchable
at once. ``flush`` persists the segments and truncates the WAL (~0.1–1 s whatever the
change, holding the GIL), so it is never done per write: the daemon flushes when idle,
``close`` always does. ``optimize`` builds the HNSW index of the points written since,
which plain (brute-force) segments need beyond a few ten thousand points: in a child
process, since the engine holds the GIL through a build too (48 s for the Go standard
library's 94k memories), on a copy of the shard while this one answers reads and
writes (``store_edge_copy``: the shard is in a numbered directory that the link
``shard`` points at, so that the caught-up copy serves from where it was built).
``seal`` builds the index of the segment the engine appends to (whose payload indexes
it holds on the heap) once ``seal_over`` points were written to it, mid-sync, the same
way. Most payload indexes, and the keyword index of indexed segments, are
memory-mapped rather than heap copies (those were ~3/4 of reopening a 100k-memory store);
stores made before get them by ``upgrade`` and the next ``optimize`` (``relayout_due``).
"""

from __future__ import annotations

import time
from collections.abc import Iterator, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import qdrant_edge as qe

from recalld.daemon.logs import get_logger
from recalld.ingest.diskspace import DiskRoom
from recalld.ingest.errors import RecalldError
from recalld.ingest.store import (
    DENSE,
    INTEGER_FIELDS,
    KEYWORD_FIELDS,
    NAMED_BOOST,
    RRF_K,
    SPARSE,
    MemoryFilter,
    ScoredMemory,
    SparseVector,
    StoreConfig,
    StoredPoint,
    StoreLockedError,
    fused_rankings,
    one_ranking_scores,
    passing_over_missing,
    payload_selector,
    prefetch_limit,
    vectored_point,
)
from recalld.ingest.store_edge_builds import ShardBuilds
from recalld.ingest.store_edge_copy import beside, is_link, live_dir, recover, repoint
from recalld.ingest.store_edge_filter import named_condition, to_filter
from recalld.ingest.store_edge_layout import LAYOUT, index_params, next_upgrade, sparse_params
from recalld.ingest.store_edge_written import ENGINE, Recipe, Written, operation
from recalld.ingest.store_sharing import by_path, own_fields, shared_fields
from recalld.ingest.store_lock import LOCK_NAME, take_lock

PAGE = 1000
# Points per engine update. The engine holds the GIL through an update (~0.1 ms a point):
# 256 points held it ~25 ms, and a model worker that finished its batch meanwhile could not
# start the next one (a sync embeds while it writes). Calls of 32 cost the same per point.
ENGINE_CALL = 32
log = get_logger("recalld.store")


class QdrantEdgeStore(ShardBuilds):
    def __init__(self, config: StoreConfig) -> None:
        if not config.path:
            raise ValueError("the embedded store needs a path")
        self.dim = config.dim
        self.shared = False  # the daemon's or the CLI's alone (``StoreLockedError``)
        self._path = Path(config.path)
        self._path.mkdir(parents=True, exist_ok=True)
        self._room = DiskRoom(self._path, config.min_free_mb)
        self._room.ensure("open the store")  # loading replays the engine's log into its files
        self._lock_file = take_lock(self._path / LOCK_NAME)
        self._dirty = False
        self._upgraded = False  # every payload index known to be as this version makes it
        self.seal_over = config.seal_over
        self._unsealed: int | None = None  # points written to the appendable segment (None: not counted yet)
        self._written: Written | None = None  # kept while a copy is built (``ShardBuilds``)
        self._dropping = None  # removing a replaced shard's directory (``ShardBuilds``)
        self._shard_dir = shard_dir = self._path / "shard"  # a link to the shard's directory (``store_edge_copy``)
        self._layout = self._path / "layout"  # LAYOUT once the segments are as this version makes them
        vectors = {DENSE: qe.EdgeVectorParams(size=config.dim, distance=qe.Distance.Cosine)}
        sparse = {SPARSE: sparse_params()}
        try:
            for step in recover(shard_dir):
                log.warning("the store's shard directories put in order on open (a build cut short, or a store "
                            "made before the shard's link)", store=str(self._path), step=step)  # fmt: skip
            if not is_link(shard_dir):  # a new store
                first = beside(shard_dir, ".1")
                first.mkdir(exist_ok=True)
                repoint(shard_dir, first)
            self._live = live_dir(shard_dir)  # the directory the engine loads: never renamed while loaded
            if (self._live / "segments").exists() or any(self._live.glob("*")):
                self._shard = qe.EdgeShard.load(str(self._live))
            else:
                config_ = qe.EdgeConfig(vectors=vectors, sparse_vectors=sparse)
                self._shard = qe.EdgeShard.create(str(self._live), config_)
                self._create_indexes()
                self._dirty = True
                self._layout.write_text(LAYOUT)
        except Exception as exc:  # noqa: BLE001 - the engine reports locks as runtime errors
            self._lock_file.close()
            if "WouldBlock" in str(exc):
                raise StoreLockedError(f"store {self._path} is in use by another process") from exc
            raise
        self._check_dim()
        self.has_sparse = self._probe_sparse()
        if not self.has_sparse:
            log.warning("store has no keyword vectors: search is dense-only", store=str(self._path),
                        fix="move the store directory away and sync again")  # fmt: skip
        self._relayout = self.has_sparse and _read(self._layout) != LAYOUT

    def _probe_sparse(self) -> bool:
        """Whether the shard has the keyword vector (stores made before it existed do not)."""
        probe = qe.QueryRequest(limit=1, query=qe.Query.Nearest(qe.SparseVector([0], [1.0]), using=SPARSE))
        try:
            self._shard.query(probe)
        except Exception:  # noqa: BLE001 - the engine reports an unknown vector as a runtime error
            return False
        return True

    def _create_indexes(self) -> None:
        for name in (*KEYWORD_FIELDS, *INTEGER_FIELDS):
            self._shard.update(qe.UpdateOperation.create_field_index(name, index_params(name)))

    def upgrade(self) -> bool:
        """One step of ``store_edge_layout.next_upgrade`` (a rebuild reads every payload,
        ~2 s at 100k points, and holds the GIL); False once there is none left."""
        step = None if self._upgraded else next_upgrade(self._shard.info().payload_schema)
        if step is None:
            self._upgraded = True
            return False
        started = time.monotonic()
        self._update((ENGINE, step.operation))
        log.info(step.done, store=str(self._path), field=step.field, left=step.left,
                 seconds=round(time.monotonic() - started, 2))  # fmt: skip
        return True

    def _check_dim(self) -> None:
        marker = self._path / "dim"
        if marker.exists():
            stored = int(marker.read_text().strip() or 0)
            if stored != self.dim:
                self.close()
                raise RecalldError(
                    f"store {self._path} holds {stored}-dimensional vectors but the model makes {self.dim}:"
                    " use another state directory or collection for this model"
                )
        else:
            marker.write_text(str(self.dim))

    def upsert(self, points: Sequence[StoredPoint]) -> None:
        """The points of one file write what their payloads share once, right after the
        points themselves (while the engine has them at hand): see ``shared_fields``.
        Points that share nothing go in calls of their own, ``ENGINE_CALL`` at a time."""
        alone: list[tuple[Any, ...]] = []
        for group in by_path(points):
            shared = shared_fields(group)
            if not shared:
                alone += [(p.id, p.vector, self._sparse(p), p.payload) for p in group]
                continue
            for start in range(0, len(group), ENGINE_CALL):
                chunk = group[start : start + ENGINE_CALL]
                own = [(p.id, p.vector, self._sparse(p), own_fields(p.payload, shared)) for p in chunk]
                self._update(("points", own))
                self._update(("payload", [p.id for p in chunk], shared))
        for start in range(0, len(alone), ENGINE_CALL):
            self._update(("points", alone[start : start + ENGINE_CALL]))
        if self._unsealed is not None:
            self._unsealed += len(points)

    def _sparse(self, point: StoredPoint) -> tuple[tuple[int, ...], tuple[float, ...]] | None:
        if point.sparse is None or not point.sparse.indices or not self.has_sparse:
            return None
        return point.sparse.indices, point.sparse.values

    def set_payload(self, ids: Sequence[str], payload: dict[str, Any]) -> None:
        """Sets the given keys; one set to None is removed (the engine's merge), which
        readers and filters (``IsEmpty``) take as null."""
        if not ids:
            return
        self._update(("payload", list(ids), payload))

    def delete(self, ids: Sequence[str]) -> None:
        if not ids:
            return
        self._update(("delete", list(ids)))

    def _update(self, recipe: Recipe) -> None:
        """The write ``recipe`` describes (``store_edge_written``) applied to the shard,
        and kept while a copy of the shard is built, for the copy too."""
        self._room.ensure("write to the store")
        try:
            self._shard.update(operation(recipe))
        finally:  # marked after the write: a build's flush of the shard may run between two writes
            self._dirty = True
        if self._written is not None:
            self._written.add(recipe)

    def flush(self) -> None:
        if self._dirty:
            # unmarked first: during a build, a write on another thread meanwhile (the engine's
            # calls hold the GIL: one at a time) marks it again, for the next flush
            self._dirty = False
            try:
                self._shard.flush()
            except BaseException:
                self._dirty = True
                raise

    def unindexed(self) -> int:
        """Dense vectors not in the vector index yet. The engine's indexed count also
        counts every keyword (sparse) vector, whose index is always up to date: taken
        as it is, a store of memories looked indexed before any vector index was built."""
        indexed = int(self._shard.info().indexed_vectors_count)
        keyword = self._with_vector(SPARSE) if self.has_sparse else 0
        return max(0, self._with_vector(DENSE) - (indexed - keyword))

    def _with_vector(self, name: str) -> int:
        flt = qe.Filter(must=[qe.HasVectorCondition(name)])
        return int(self._shard.count(qe.CountRequest(exact=True, filter=flt)))

    def retrieve(self, ids: Sequence[str], *, fields: Sequence[str] | None = None) -> list[StoredPoint]:
        if not ids:
            return []
        return [_point(r) for r in self._shard.retrieve(list(ids), payload_selector(fields), False)]

    def get_vectors(self, ids: Sequence[str]) -> dict[str, list[float]]:
        records = self._shard.retrieve(list(ids), False, [DENSE]) if ids else []
        out: dict[str, list[float]] = {}
        for record in records:
            vector = record.vector.get(DENSE) if isinstance(record.vector, dict) else None
            if isinstance(vector, list):
                out[str(record.id)] = [float(x) for x in vector]  # type: ignore[arg-type]
        return out

    def whole(self, ids: Sequence[str]) -> list[StoredPoint]:
        vectors = [DENSE, SPARSE] if self.has_sparse else [DENSE]
        records = self._shard.retrieve(list(ids), True, vectors) if ids else []
        return [vectored_point(r.id, r.payload, r.vector) for r in records]

    def set_vectors(self, vectors: dict[str, list[float]]) -> None:
        ids = list(vectors)

        def update(chunk: list[str]) -> None:
            self._update(("vectors", [(i, vectors[i]) for i in chunk]))

        for start in range(0, len(ids), ENGINE_CALL):
            passing_over_missing(self, ids[start : start + ENGINE_CALL], update)

    def scroll(self, flt: MemoryFilter, *, fields: Sequence[str] | None = None) -> Iterator[StoredPoint]:
        native = to_filter(flt)
        offset: Any = None
        while True:
            request = qe.ScrollRequest(
                offset=offset, limit=PAGE, filter=native, with_payload=payload_selector(fields), with_vector=False
            )
            records, offset = self._shard.scroll(request)
            for record in records:
                yield _point(record)
            if offset is None:
                return

    def stream(self, flt: MemoryFilter, *, fields: Sequence[str] | None = None) -> Iterator[StoredPoint]:
        return self.scroll(flt, fields=fields)  # read a page at a time already

    def count(self, flt: MemoryFilter) -> int:
        return int(self._shard.count(qe.CountRequest(exact=True, filter=to_filter(flt))))

    def search(self, vector: Sequence[float], flt: MemoryFilter, limit: int) -> list[ScoredMemory]:
        request = qe.QueryRequest(
            limit=limit,
            query=qe.Query.Nearest(list(vector), using=DENSE),
            filter=to_filter(flt),
            with_payload=True,
            with_vector=False,
        )
        hits = self._shard.query(request)
        return [ScoredMemory(float(h.score), _point(h)) for h in hits]

    def hybrid_search(
        self, dense: Sequence[float] | None, sparse: SparseVector | None, flt: MemoryFilter, limit: int,
        *, named: Sequence[str] = (), ranked: bool = False,
    ) -> list[ScoredMemory]:
        keywords = sparse is not None and bool(sparse.indices) and self.has_sparse
        rankings = fused_rankings(dense is not None, keywords, bool(named))
        if not rankings:
            return []
        vectors: dict[str, Any] = {}
        if dense is not None:
            vectors[DENSE] = qe.Query.Nearest(list(dense), using=DENSE)
        if keywords and sparse is not None:
            vectors[SPARSE] = qe.Query.Nearest(qe.SparseVector(list(sparse.indices), list(sparse.values)), using=SPARSE)
        plain = to_filter(flt)
        only_named = to_filter(replace(flt, named=tuple(named))) if named else plain
        if len(rankings) == 1:
            request = qe.QueryRequest(
                limit=limit, query=vectors[rankings[0][0]], filter=plain, with_payload=True, with_vector=False
            )
            hits = self._shard.query(request)
            scores = one_ranking_scores([h.score for h in hits], rankings[0][2], ranked=ranked)
            return [ScoredMemory(score, _point(h)) for score, h in zip(scores, hits, strict=True)]
        fetch = prefetch_limit(limit)
        stages = [qe.Prefetch(limit=fetch, query=vectors[v], filter=only_named if n else plain)
                  for v, n, _ in rankings]  # fmt: skip
        rrf: Any = qe.Fusion.Rrf(k=RRF_K, weights=[w for _, _, w in rankings])  # stubs type variants apart
        if named:  # the fused ranking again, NAMED_BOOST added to the named memories' scores
            # every candidate of the three rankings is scored again (at most their sum)
            stages = [qe.Prefetch(limit=fetch * len(stages), query=rrf, prefetches=stages)]
            expr = qe.Expression
            boost = expr.Mult([expr.Constant(NAMED_BOOST), expr.Condition(named_condition(named))])
            rrf = qe.Formula(expr.Sum([expr.Variable("$score"), boost]))
        request = qe.QueryRequest(limit=limit, prefetches=stages, query=rrf, with_payload=True, with_vector=False)
        return [ScoredMemory(float(h.score), _point(h)) for h in self._shard.query(request)]

    def close(self) -> None:
        self.dropped()
        shard: qe.EdgeShard | None = getattr(self, "_shard", None)
        if shard is not None:
            # Only what was written: a flush of a shard nothing wrote to syncs its files all the
            # same, ~5 ms on an idle disk but 0.3 s measured while other processes wrote to it
            # (a read-only command's close took 0.68 s then). What a load replayed from the
            # engine's log stays in the log, for the next writer's flush.
            self.flush()
            shard.close()
            del self._shard
        if not self._lock_file.closed:
            self._lock_file.close()


def _read(path: Path) -> str:
    return path.read_text().strip() if path.exists() else ""


def _point(record: Any) -> StoredPoint:
    return StoredPoint(id=str(record.id), payload=dict(record.payload or {}))

