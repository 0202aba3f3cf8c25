"""The one storage contract. Adapters live in ``store_edge.py`` (its filters in
``store_edge_filter.py``, its layout in ``store_edge_layout.py``) and ``store_server.py``;
nothing outside them imports a Qdrant library."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from typing import Any, NamedTuple, Protocol

from recalld.ingest.diskspace import DEFAULT_MIN_FREE_MB

Shared = Callable[[], AbstractContextManager[None]]  # entered while other threads share the store (``Store.optimize``)

# Payload fields that filters use (MemoryFilter); every adapter creates an index on each,
# and on no other field: an index costs every write that carries its field (lineage,
# content_hash and blob, in every memory, took ~10 % of writing memories to the
# embedded store, the conversion into engine points included). symbol_key is not one: no
# search filters on it (path, kind and qualname are its parts), and its index cost ~4 %
# of the engine's writes (Django's 39.7k points: 4.50 -> 4.32 s, paired).
KEYWORD_FIELDS = (
    "record",  # "memory" | "checkpoint"
    "type",  # memory type: "structural", ...
    "repo",
    "branch",
    "kind",
    "language",
    "path",
    "dirs",  # every ancestor directory of path ("a", "a/b"), for path-prefix filters
    "qualname",
    "name",
    "valid_from_commit",  # as-of a commit
    "valid_to_commit",
)
INTEGER_FIELDS = (
    "deprecated",  # 0 | 1 (qdrant-edge never matches a boolean filter)
    "untrusted",  # 0 | 1: from a ref marked untrusted in config
    "valid_from_time",
    "valid_to_time",  # 0 while still valid
    "valid_from_sync",  # the stamps of the syncs that opened and closed it (records.next_stamp): as-of a
    "valid_to_sync",  # commit, what changed since one, what retention prunes
)

DENSE = "dense"
SPARSE = "sparse"  # keyword vector (ingest/sparse.py), IDF applied by the engine
RRF_K = 60  # reciprocal rank fusion constant of hybrid search
RRF_WEIGHTS = (1.0, 1.0)  # (dense, keyword) influence on the fused ranking
# Added to the fused score of a memory the query names (``hybrid_search``'s ``named``):
# more than any fused score (at most 3 / 60), so those come first, in their fused order.
# Weighted RRF cannot do it: Qdrant divides a rank by its weight (1 / (rank / w + k - 1)),
# and with k = 60 no weight lifts one ranking's first above 1 / 59.
NAMED_BOOST = 1.0
MIN_PREFETCH = 50


def one_ranking_scores(similarities: Sequence[float], weight: float, *, ranked: bool) -> list[float]:
    """The scores of a search's one ranking (best first): its similarities, or with
    ``ranked`` each place's fused score as the engines' RRF gives it (above). A search
    answers with one ranking where the query has no keyword term or the store no keyword
    vectors, and ranked, its answer reads as a fused one's (``hybrid_search``)."""
    if not ranked:
        return [float(s) for s in similarities]
    return [1.0 / ((place + 1) / weight + RRF_K - 1) for place in range(len(similarities))]


def prefetch_limit(limit: int) -> int:
    """How many candidates each side of a hybrid search brings to the fusion."""
    return max(MIN_PREFETCH, 2 * limit)


def fused_rankings(dense: bool, sparse: bool, named: bool) -> list[tuple[str, bool, float]]:
    """What a hybrid search fuses, as (vector, among the named memories only, RRF weight):
    each vector it has, and with ``named`` the first of them again among the memories
    the query names (which brings them into the fusion when neither ranking has them)."""
    rankings = [(DENSE, False, RRF_WEIGHTS[0])] if dense else []
    if sparse:
        rankings.append((SPARSE, False, RRF_WEIGHTS[1]))
    if named and rankings:
        rankings.append((rankings[0][0], True, 1.0))
    return rankings


def payload_selector(fields: Sequence[str] | None) -> bool | list[str]:
    """An adapter's payload selection for ``fields``: None, the whole payload; names,
    those keys; no names, none."""
    return True if fields is None else list(fields) or False


@dataclass(frozen=True, slots=True)
class SparseVector:
    indices: tuple[int, ...]  # uint32, unique, in any order (the engines sort them)
    values: tuple[float, ...]


@dataclass(frozen=True, slots=True)
class ValidAt:
    """An as-of condition: what was valid at a time, or at a state of the branch.

    ``time``: valid_from_time <= time, and still valid or time < valid_to_time; an earlier
    interval (in ``history``) also while time <= valid_through_time, where it was last
    valid before a move back closed it (``records.closing_fields``).
    ``commits``: the indexed states at or before the asked commit and ``later`` those at
    or after the last of them; ``visit``: the stamp of a sync that moved the branch to
    that last state (``records.next_stamp``), when one is known. An interval stamped by
    the syncs that opened and closed it held there when it spans ``visit``: exact
    whichever way the branch moved. Else (opened before syncs were stamped, or no
    visit known) when it opened at one of ``commits`` and is still open or was last valid
    at one of ``later``, or closed before recalld recorded where it was last valid and
    did not close at one of ``commits``. Memories that no commit opened (manual ones)
    are judged by ``time`` (the commit's time). Either way an earlier interval kept in
    the point's ``history`` (a reopened point) counts too. ``state``: that last state (not
    a condition: where an answer reads its lines, ``daemon/asof.LinesAt``).
    """

    time: int
    commits: tuple[str, ...] | None = None  # None: by time only
    later: tuple[str, ...] = ()
    visit: int | None = None
    state: str | None = None
    commit: str | None = None  # the commit asked for (a date's: the branch's then), where ``state`` is, or precedes it


@dataclass(frozen=True, slots=True)
class MemoryFilter:
    """A conjunction of conditions; ``None``/empty means "don't filter on it"."""

    record: str | None = "memory"
    repo: str | None = None
    branch: str | None = None
    # (repo, branch) pairs: a memory of one of these repositories only of that branch or of
    # none (a manual memory); other repositories' memories of any branch
    followed: tuple[tuple[str, str], ...] = ()
    types: tuple[str, ...] = ()  # memory types (structural, task, ...)
    kinds: tuple[str, ...] = ()
    language: str | None = None
    paths: tuple[str, ...] = ()  # path is any of these
    dir_prefix: str | None = None  # path lies under this directory
    deprecated: int | None = 0  # None: both live and closed
    qualnames: tuple[str, ...] = ()
    names: tuple[str, ...] = ()
    named: tuple[str, ...] = ()  # name or qualname is any of these
    codes: tuple[str, ...] = ()  # content_hash is any of these
    written_in: tuple[str, ...] = ()  # the commit named as its writer's is any of these
    lineages: tuple[str, ...] = ()  # lineage is any of these (no index: a symbol's versions, when asked for)
    closed_before: int | None = None  # closed before this (unix seconds): by its sync's stamp, else valid_to_time
    opened_after: int | None = None  # its interval opened by a sync stamped after this, or by none stamped
    stamped_since: int | None = None  # its interval opened or closed by a sync stamped at or after this
    hide_untrusted: bool = False  # leave out untrusted == 1 (points without the field stay)
    valid_at: ValidAt | None = None


class FollowedScopes(NamedTuple):
    """``MemoryFilter.followed`` as the adapters write it (``followed_scopes``)."""

    # Where the filter names its repository (a search of one): the branches its memories must
    # be of, or of none, each a whole condition; the other repositories' pairs left out
    own: tuple[str, ...]
    # Otherwise: (repository, branch) for each repository whose memories must be of that branch
    # or of none, any one of which a memory is of unless it is of none of those repositories
    each: tuple[tuple[str, str], ...]


def followed_scopes(flt: MemoryFilter) -> FollowedScopes:
    if flt.repo is not None:
        return FollowedScopes(tuple(branch for repo, branch in flt.followed if repo == flt.repo), ())
    return FollowedScopes((), flt.followed)


@dataclass(slots=True)
class StoredPoint:
    id: str  # a UUID string
    payload: dict[str, Any]
    vector: list[float] | None = None
    sparse: SparseVector | None = None


@dataclass(frozen=True, slots=True)
class ScoredMemory:
    score: float
    point: StoredPoint


# Points written to the embedded engine's appendable segment before a sync seals them
# (``Store.seal``): ~4–7 KB each on the heap until then; a seal of 100k points ~3 min.
DEFAULT_SEAL_OVER = 100_000


@dataclass(frozen=True, slots=True)
class StoreConfig:
    dim: int
    path: str | None = None  # embedded engine directory
    url: str | None = None  # Qdrant server / cluster
    api_key: str | None = None
    collection: str = "recalld"
    min_free_mb: int = DEFAULT_MIN_FREE_MB  # the embedded engine writes only while this much is free
    seal_over: int = DEFAULT_SEAL_OVER  # the embedded engine's points written before a sync seals them (0: never)
    extra: dict[str, Any] = field(default_factory=dict)


class StoreLockedError(RuntimeError):
    """Another process holds the embedded store."""


class Store(Protocol):
    dim: int
    # other writers may use its points (a server's collection): a writer deletes none of a
    # branch it stops following, nor a repository's it unregisters, unless told to
    shared: bool

    def upsert(self, points: Sequence[StoredPoint]) -> None:
        """Insert or replace points (with vectors); returns after the engine acknowledged.

        Acknowledged writes are searchable and survive the process being killed; ``flush``
        makes them durable on disk as well (power loss)."""

    def set_payload(self, ids: Sequence[str], payload: dict[str, Any]) -> None:
        """Merge ``payload`` into the payload of each existing point."""

    def retrieve(self, ids: Sequence[str], *, fields: Sequence[str] | None = None) -> list[StoredPoint]:
        """The points that exist among ``ids``, without vectors; ``fields`` as in ``scroll``."""

    def scroll(self, flt: MemoryFilter, *, fields: Sequence[str] | None = None) -> Iterator[StoredPoint]:
        """Every point matching ``flt``, without vectors, read in pages.

        ``fields`` limits the payload keys returned (None: all of them)."""

    def stream(self, flt: MemoryFilter, *, fields: Sequence[str] | None = None) -> Iterator[StoredPoint]:
        """``scroll`` for a long read that goes on while others use the store (an export):
        a shared store lets others in between its pages (``LockedStore.stream``)."""

    def get_vectors(self, ids: Sequence[str]) -> dict[str, list[float]]:
        """Dense vectors of the points that exist among ``ids``."""

    def whole(self, ids: Sequence[str]) -> list[StoredPoint]:
        """The points that exist among ``ids``, each with its payload and both its vectors:
        what writing it again under another id takes (``ingest/rebranch``)."""

    def set_vectors(self, vectors: dict[str, list[float]]) -> None:
        """Replace the dense vector of each point (by id), payload and keyword vector
        kept; ids of points that no longer exist are passed over."""

    def count(self, flt: MemoryFilter) -> int: ...

    def search(self, vector: Sequence[float], flt: MemoryFilter, limit: int) -> list[ScoredMemory]:
        """Nearest memories by the dense vector among those matching ``flt``."""

    def hybrid_search(
        self, dense: Sequence[float] | None, sparse: SparseVector | None, flt: MemoryFilter, limit: int,
        *, named: Sequence[str] = (), ranked: bool = False,
    ) -> list[ScoredMemory]:
        """Both vectors prefetched with ``flt`` and fused by RRF in the engine; with one
        of them None, that one alone. A store without keyword vectors uses the dense one.
        ``named``: identifiers the query names (``daemon.retrieve.identifiers``); the
        memories whose name or qualname is one of them are ranked once more among
        themselves (``fused_rankings``) and come first: ``NAMED_BOOST`` is added to their
        fused score. A search of one ranking is scored by its similarity, or with ``ranked``
        by its rank as a fused one is (``one_ranking_scores``)."""

    def delete(self, ids: Sequence[str]) -> None: ...

    def flush(self) -> None:
        """Persist every acknowledged write to disk; nothing to do when nothing changed.
        Costs an fsync or more, so call it when idle, never once per write."""

    def unindexed(self) -> int:
        """How many points are searched by brute force (not in a vector index yet)."""

    def optimize(self, *, reads: Shared | None = None, writes: Shared | None = None) -> None:
        """Build the vector index for the unindexed points (slow: call when idle).
        ``reads`` is entered for as long as other threads may read the store while it
        builds, ``writes`` for as long as they may also write to it (the store keeps what
        they write for what it builds); either not at all where it cannot be."""

    def warm(self, each: Shared | None = None) -> None:
        """After ``optimize``: a few searches, so that the first ones asked are not slowed
        by a freshly loaded index (nothing to do where nothing was loaded); each inside
        ``each`` when given."""

    def seal_due(self) -> bool:
        """Whether so many points were written since the last ``seal`` or ``optimize``
        that ``seal`` should run (cheap: asked after each batch a sync writes)."""

    def seal(self, *, reads: Shared | None = None, writes: Shared | None = None) -> bool:
        """Move the points written lately out of what the engine holds on the heap until
        an index is built, by building it (slow: ~1.7 ms a point on 2 cores, asked for by
        ``seal_due``); False when it failed or a store has nothing to seal (a server). Never
        raises for a seal that failed: the store stays whole. ``reads`` and ``writes`` as
        ``optimize`` has them."""

    def relayout_due(self) -> bool:
        """Whether an older version laid the store's indexed data out otherwise: the next
        ``optimize`` rebuilds it all, so call it when idle even with nothing unindexed."""

    def upgrade(self) -> bool:
        """Bring one more part of a store that an older version wrote up to date (slow:
        call when idle, once per look); False once nothing is left to do."""

    def close(self) -> None: ...


RETRIEVE_BATCH = 1000


def vectored_point(point_id: Any, payload: Any, vectors: Any) -> StoredPoint:
    """A point as an engine read it back with its named vectors (both engines give a dict
    of the dense list and a sparse vector of ``indices`` and ``values``)."""
    named = vectors if isinstance(vectors, dict) else {}
    dense, sparse = named.get(DENSE), named.get(SPARSE)
    keywords = None if sparse is None else SparseVector(tuple(sparse.indices), tuple(map(float, sparse.values)))
    return StoredPoint(str(point_id), dict(payload or {}), None if dense is None else list(map(float, dense)), keywords)


def retrieve_many(store: Store, ids: Sequence[str], *, fields: Sequence[str] | None = None) -> list[StoredPoint]:
    """``store.retrieve`` for any number of ids, a batch at a time."""
    found: list[StoredPoint] = []
    for start in range(0, len(ids), RETRIEVE_BATCH):
        found.extend(store.retrieve(ids[start : start + RETRIEVE_BATCH], fields=fields))
    return found


def passing_over_missing(store: Store, ids: list[str], update: Callable[[list[str]], None]) -> None:
    """``update(ids)``; if it fails, again with those of ``ids`` that still exist: both
    engines refuse a vector update for a missing point (one deleted meanwhile, say by
    ``repo remove``), and the error names no type to catch."""
    try:
        update(ids)
    except Exception:  # noqa: BLE001 - re-raised below unless a point was missing
        found = [point.id for point in store.retrieve(ids, fields=())]
        if len(found) == len(ids):
            raise
        if found:
            update(found)


def open_store(config: StoreConfig) -> Store:
    """The server adapter when a URL is configured, else the embedded engine."""
    if config.url:
        from recalld.ingest.store_server import QdrantServerStore

        return QdrantServerStore(config)
    from recalld.ingest.store_edge import QdrantEdgeStore

    return QdrantEdgeStore(config)
