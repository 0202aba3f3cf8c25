"""A Qdrant server or cluster through qdrant-client (tests: its local mode).

The only module importing ``qdrant_client``. Several writers may share the collection:
creation races are harmless, every write waits for the server's acknowledgement.
"""

from __future__ import annotations

import importlib.metadata
from collections.abc import Iterator, Sequence
from dataclasses import replace
from typing import Any, cast

from qdrant_client import QdrantClient, models
from qdrant_client.http.exceptions import ResponseHandlingException, UnexpectedResponse

from recalld.daemon.logs import get_logger
from recalld.ingest.errors import RecalldError, StoreServerError, StoreUnansweredError
from recalld.ingest.store import (
    DENSE,
    INTEGER_FIELDS,
    KEYWORD_FIELDS,
    NAMED_BOOST,
    RRF_K,
    SPARSE,
    MemoryFilter,
    ScoredMemory,
    Shared,
    SparseVector,
    StoreConfig,
    StoredPoint,
    fused_rankings,
    one_ranking_scores,
    passing_over_missing,
    payload_selector,
    prefetch_limit,
    vectored_point,
)
from recalld.ingest.store_server_filter import named_condition, to_filter

PAGE = 1000
log = get_logger("recalld.store")


def _check_version(client: QdrantClient, url: str) -> None:
    """Log a warning when the server's version is not one qdrant-client vouches for (the
    same major version, minor versions at most one apart)."""
    ours = importlib.metadata.version("qdrant-client")
    theirs = client.info().version
    if not _compatible(ours, theirs):
        log.warning("the Qdrant server's version is not one this client is made for: calls may fail",
                    server=url, server_version=theirs, client_version=ours)  # fmt: skip


def _compatible(client: str, server: str) -> bool:
    try:
        ours, theirs = ([int(part) for part in v.split("-")[0].split(".")[:2]] for v in (client, server))
    except ValueError:
        return False
    return ours[0] == theirs[0] and abs(ours[1] - theirs[1]) <= 1


class QdrantServerStore:
    def __init__(self, config: StoreConfig, client: QdrantClient | None = None) -> None:
        self.dim = config.dim
        self.shared = True  # a collection several writers may use (README: Stores)
        self.collection = config.collection
        try:
            # the client's own version check runs on a thread of its own and warns whenever it
            # ends, after a failed connection too: checked here instead, once and in line
            given = client or QdrantClient(url=config.url, api_key=config.api_key, timeout=30,
                                           check_compatibility=False)  # fmt: skip
            self._client = cast(QdrantClient, _Answered(given, config.url or ""))
            self._ensure_collection()
            if client is None:
                _check_version(self._client, config.url or "")
        except StoreServerError:
            raise
        except (ConnectionError, OSError, ValueError) as exc:
            raise RecalldError(f"cannot use Qdrant at {config.url}: {_reason(exc)}") from exc

    def _ensure_collection(self) -> None:
        if not self._client.collection_exists(self.collection):
            try:
                self._client.create_collection(
                    self.collection,
                    vectors_config={DENSE: models.VectorParams(size=self.dim, distance=models.Distance.COSINE)},
                    sparse_vectors_config={SPARSE: models.SparseVectorParams(modifier=models.Modifier.IDF)},
                )
            except (StoreServerError, ValueError) as exc:  # local mode: ValueError
                if "already exists" not in str(exc):
                    raise
        info = self._client.get_collection(self.collection)
        vectors = info.config.params.vectors
        existing = vectors.get(DENSE) if isinstance(vectors, dict) else None
        if existing is None or existing.size != self.dim:
            size = existing.size if existing is not None else "no"
            raise RecalldError(
                f"collection {self.collection!r} has {size} {DENSE!r} vectors of the wrong size"
                f" (model makes {self.dim}): use another collection for this model"
            )
        self.has_sparse = SPARSE in (info.config.params.sparse_vectors or {})
        if not self.has_sparse:
            log.warning("collection has no keyword vectors: search is dense-only", collection=self.collection,
                        fix="sync into a new collection")  # fmt: skip
        indexed = set(info.payload_schema or {})
        for name in KEYWORD_FIELDS:
            if name not in indexed:
                self._client.create_payload_index(self.collection, name, models.PayloadSchemaType.KEYWORD, wait=True)
        for name in INTEGER_FIELDS:
            if name not in indexed:
                self._client.create_payload_index(self.collection, name, models.PayloadSchemaType.INTEGER, wait=True)

    def upsert(self, points: Sequence[StoredPoint]) -> None:
        if not points:
            return
        native = [models.PointStruct(id=p.id, vector=self._vectors(p), payload=p.payload) for p in points]
        self._client.upsert(self.collection, native, wait=True)

    def _vectors(self, point: StoredPoint) -> dict[str, Any]:
        vectors: dict[str, Any] = {}
        if point.vector is not None:
            vectors[DENSE] = list(point.vector)
        if point.sparse is not None and point.sparse.indices and self.has_sparse:
            vectors[SPARSE] = _sparse(point.sparse)
        return vectors

    def set_payload(self, ids: Sequence[str], payload: dict[str, Any]) -> None:
        if ids:
            self._client.set_payload(self.collection, payload, points=list(ids), wait=True)

    def delete(self, ids: Sequence[str]) -> None:
        if ids:
            self._client.delete(self.collection, models.PointIdsList(points=list(ids)), wait=True)

    def retrieve(self, ids: Sequence[str], *, fields: Sequence[str] | None = None) -> list[StoredPoint]:
        if not ids:
            return []
        records = self._client.retrieve(
            self.collection, list(ids), with_payload=payload_selector(fields), with_vectors=False
        )
        return [_point(r) for r in records]

    def get_vectors(self, ids: Sequence[str]) -> dict[str, list[float]]:
        if not ids:
            return {}
        records = self._client.retrieve(self.collection, list(ids), with_payload=False, with_vectors=[DENSE])
        out: dict[str, list[float]] = {}
        for r in records:
            vector = r.vector.get(DENSE) if isinstance(r.vector, dict) else None
            if vector is not None:
                out[str(r.id)] = list(vector)  # type: ignore[arg-type]
        return out

    def whole(self, ids: Sequence[str]) -> list[StoredPoint]:
        records = self._client.retrieve(self.collection, list(ids), with_payload=True, with_vectors=True) if ids else []
        return [vectored_point(r.id, r.payload, r.vector) for r in records]

    def set_vectors(self, vectors: dict[str, list[float]]) -> None:
        def update(ids: list[str]) -> None:
            native = [models.PointVectors(id=i, vector={DENSE: list(vectors[i])}) for i in ids]
            self._client.update_vectors(self.collection, native, wait=True)

        if vectors:
            passing_over_missing(self, list(vectors), update)

    def scroll(self, flt: MemoryFilter, *, fields: Sequence[str] | None = None) -> Iterator[StoredPoint]:
        native = to_filter(flt)
        with_payload = payload_selector(fields)
        offset: Any = None
        while True:
            records, offset = self._client.scroll(
                self.collection, scroll_filter=native, limit=PAGE, offset=offset,
                with_payload=with_payload, with_vectors=False,
            )  # fmt: skip
            for record in records:
                yield _point(record)
            if offset is None:
                return

    def stream(self, flt: MemoryFilter, *, fields: Sequence[str] | None = None) -> Iterator[StoredPoint]:
        return self.scroll(flt, fields=fields)  # read a page at a time already

    def count(self, flt: MemoryFilter) -> int:
        return int(self._client.count(self.collection, count_filter=to_filter(flt), exact=True).count)

    def search(self, vector: Sequence[float], flt: MemoryFilter, limit: int) -> list[ScoredMemory]:
        response = self._client.query_points(
            self.collection, query=list(vector), using=DENSE, query_filter=to_filter(flt),
            limit=limit, with_payload=True, with_vectors=False,
        )  # fmt: skip
        return [ScoredMemory(float(h.score), _point(h)) for h in response.points]

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
            vectors[DENSE] = list(dense)
        if keywords and sparse is not None:
            vectors[SPARSE] = _sparse(sparse)
        plain = to_filter(flt)
        only_named = to_filter(replace(flt, named=tuple(named))) if named else plain
        if len(rankings) == 1:
            using = rankings[0][0]
            response = self._client.query_points(
                self.collection, query=vectors[using], using=using, query_filter=plain,
                limit=limit, with_payload=True, with_vectors=False,
            )  # fmt: skip
            hits = response.points
            scores = one_ranking_scores([h.score for h in hits], rankings[0][2], ranked=ranked)
            return [ScoredMemory(score, _point(h)) for score, h in zip(scores, hits, strict=True)]
        fetch = prefetch_limit(limit)
        stages = [models.Prefetch(query=vectors[v], using=v, filter=only_named if n else plain, limit=fetch)
                  for v, n, _ in rankings]  # fmt: skip
        query: Any = models.RrfQuery(rrf=models.Rrf(k=RRF_K, weights=[w for _, _, w in rankings]))
        if named:  # the fused ranking again, NAMED_BOOST added to the named memories' scores
            # every candidate of the three rankings is scored again (at most their sum)
            stages = [models.Prefetch(query=query, prefetch=stages, limit=fetch * len(stages))]
            boost = models.MultExpression(mult=[NAMED_BOOST, named_condition(named)])
            query = models.FormulaQuery(formula=models.SumExpression(sum=["$score", boost]))
        response = self._client.query_points(
            self.collection, prefetch=stages, query=query, limit=limit, with_payload=True, with_vectors=False
        )
        return [ScoredMemory(float(h.score), _point(h)) for h in response.points]

    def flush(self) -> None:
        """Nothing to do: the server persists acknowledged writes on its own schedule."""

    def unindexed(self) -> int:
        return 0  # the server indexes in the background on its own

    def optimize(self, *, reads: Shared | None = None, writes: Shared | None = None) -> None:
        """Nothing to do: the server's optimizers run on their own."""

    def warm(self, each: Shared | None = None) -> None:
        """Nothing to do: this process loads no index."""

    def seal_due(self) -> bool:
        return False  # the server's optimizers seal what it writes on their own

    def seal(self, *, reads: Shared | None = None, writes: Shared | None = None) -> bool:
        return False

    def relayout_due(self) -> bool:
        return False  # the server lays its segments out as its own configuration says

    def upgrade(self) -> bool:
        return False  # missing indexes are created when the store opens

    def close(self) -> None:
        self._client.close()


class _Answered:
    """The client, its failures raised as ``StoreServerError`` naming the server and the
    call: no answer (refused, reset, timed out: ``ResponseHandlingException``) or an error
    answer (``UnexpectedResponse``: a wrong API key, a collection deleted meanwhile) were
    tracebacks of the CLI and HTTP 500s of the daemon's API."""

    def __init__(self, client: QdrantClient, url: str) -> None:
        self._client = client
        self._url = url

    def __getattr__(self, name: str) -> Any:
        attr = getattr(self._client, name)
        if not callable(attr):
            return attr

        def call(*args: Any, **kwargs: Any) -> Any:
            try:
                return attr(*args, **kwargs)
            except ResponseHandlingException as exc:
                raise StoreUnansweredError(f"Qdrant at {self._url} did not answer ({name}): {_reason(exc)}") from exc
            except UnexpectedResponse as exc:
                raise StoreServerError(f"Qdrant at {self._url} refused {name}: {_reason(exc)}") from exc

        return call


def _reason(exc: BaseException) -> str:
    """An exception's message on one line, with the transport error it wraps."""
    text = " ".join(str(exc).split()) or type(exc).__name__
    cause = exc.__cause__ or exc.__context__
    if isinstance(exc, ResponseHandlingException) and cause is not None and str(cause) not in text:
        text = f"{text}: {' '.join(str(cause).split())}"
    return text


def _sparse(vector: SparseVector) -> models.SparseVector:
    return models.SparseVector(indices=list(vector.indices), values=list(vector.values))


def _point(record: Any) -> StoredPoint:
    return StoredPoint(id=str(record.id), payload=dict(record.payload or {}))
