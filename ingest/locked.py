"""A Store wrapper that serialises calls, for a daemon where API threads and sync
workers share one store (qdrant-client's local mode is not thread-safe).

Building the vector index takes minutes (a child process builds it: ``store_edge``), and
sealing what a long sync wrote ~3 min every 100k memories (``Store.seal``). During a
build or a seal on a copy of the shard other threads read as ever and write too
(``reads`` and ``writes``: the store writes what they wrote to the copy before it takes
over), up to ``WRITES_DURING_BUILD`` points. Otherwise (one done on the shard itself, for
want of room on the disk), and for what must have the store alone (an upgrade, closing
it), another thread's call is refused with ``BusyError`` instead of waiting: the API
tells its client at once (HTTP 503), and the CLI waits and asks again; a sync worker
waits (``patient``).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from functools import partial
from itertools import islice
from typing import Any, Literal, TypeVar

from recalld.daemon.logs import get_logger
from recalld.ingest.errors import BusyError
from recalld.ingest.store import MemoryFilter, ScoredMemory, Shared, SparseVector, Store, StoredPoint

BUSY_CHECK = 0.1  # seconds a call waits for the lock between looks at whether the store is busy
STREAM_PAGE = 1000  # points ``stream`` reads in one turn
# Points other threads may write during a build or seal on a copy: the store keeps them on
# the disk beside the shard to write them to the copy too (``store_edge_written``: ~2.5 KB
# a point of a sync's memories, ~0.6 GB at the bound; each costs ~70 µs more to write
# again). Past it, writes wait for the build's end. Until stop 84 the engine's operations
# were kept in memory (~7 KB a point), and writes waited past 10k points: one large sync
# during a build held back every repository's commits until the build ended.
WRITES_DURING_BUILD = 250_000
INDEX_BUILD = "building the vector index"
SEALING = "sealing the memories it wrote"
T = TypeVar("T")
log = get_logger("recalld.store")
Turn = Literal["read", "write", "own"]  # what a call does: reads, writes, or needs the store alone


class LockedStore:
    def __init__(self, inner: Store) -> None:
        self._inner = inner
        self._lock = threading.RLock()
        self.dim = inner.dim
        self.shared = inner.shared
        self._busy: tuple[str, float] | None = None  # what takes the store for long, since when
        self._shared: Literal["read", "write"] | None = None  # while busy: what other threads may do
        self._shared_writes = 0  # points written by other threads during this build
        self._bound_told = False  # the log told this build's writes reached WRITES_DURING_BUILD
        self._patient = threading.local()  # .on: this thread waits its turn (``patient``)

    @contextmanager
    def patient(self) -> Iterator[None]:
        """Calls from this thread wait while the store is held for long, rather than being
        refused: a sync worker's, whose refused call would fail its sync while another
        worker's sync seals what it wrote, or while an index build ends."""
        self._patient.on = True
        try:
            yield
        finally:
            self._patient.on = False

    @contextmanager
    def _turn(self, does: Turn = "write", points: int = 0, *, wait: bool = False) -> Iterator[None]:
        """The store to this thread; refused (``BusyError``) while it is held for long,
        unless ``wait`` or the thread is ``patient``, or the holder lets others do what
        this call does (``_share``: then it waits for another caller's turn, however
        long, as the engine may hold the GIL for a second); ``points``: how many a write
        writes."""
        wait = wait or getattr(self._patient, "on", False)
        while True:
            if self._lock.acquire(timeout=BUSY_CHECK):
                if self._lets(does, points):
                    if self._shared is not None and does == "write":
                        self._shared_writes += points
                    break
                self._lock.release()  # not while others only share the store: its turn is the build's end
                time.sleep(BUSY_CHECK)
            elif self._shared is not None and self._lets(does, points):
                continue
            held = self.held()
            if held is not None and not wait:
                raise BusyError(held)
        try:
            yield
        finally:
            self._lock.release()

    def _lets(self, does: Turn, points: int) -> bool:
        """Whether a call goes on while the store is shared (if it is)."""
        if self._shared is None or does == "read":
            return True
        if does != "write" or self._shared != "write":
            return False
        if self._shared_writes + points <= WRITES_DURING_BUILD:
            return True
        if not self._bound_told:  # once a build: why syncs wait and the API answers 503 from now on
            self._bound_told = True
            log.warning("so much was written during the build that further writes wait for its end",
                        doing=self.busy, points=self._shared_writes, bound=WRITES_DURING_BUILD)  # fmt: skip
        return False

    @contextmanager
    def _share(self, does: Literal["read", "write"]) -> Iterator[None]:
        """Within a long hold (this thread has the store once): other threads' reads, and
        their writes if ``does`` is "write", are served meanwhile; what needs the store
        alone is still refused or kept waiting. What follows the writes (what they wrote
        applied to the built copy, the copy swapped in and its first searches, ~1 s) is
        waited out, not refused."""
        self._shared = does
        self._lock.release()
        try:
            yield
        finally:
            self._lock.acquire()
            self._shared = None
            if does == "write":
                self._busy, self._shared_writes, self._bound_told = None, 0, False

    @property
    def busy(self) -> str | None:
        """What takes the store for long right now, if anything."""
        busy = self._busy
        return None if busy is None else busy[0]

    def held(self) -> str | None:
        """What takes the store for long and since when, as a refused call is told."""
        busy = self._busy
        return None if busy is None else f"recalld serve is {busy[0]} ({time.monotonic() - busy[1]:.0f} s so far)"

    @property
    def sharing(self) -> Literal["read", "write"] | None:
        """While the store is held for long: whether other threads read ("read"), or read
        and write ("write"), meanwhile (None: neither)."""
        return self._shared

    def meanwhile(self) -> str:
        """What others may do while the store builds or seals on a copy, for ``status``."""
        if self._shared != "write":
            return "searches are answered meanwhile"
        n = self._shared_writes
        written = f"{n:,} point{'' if n == 1 else 's'} written since it began"
        if self._bound_told:
            return f"searches are answered meanwhile; writes wait for its end ({written}, the most one build keeps)"
        return "searches and writes go on meanwhile" + (f" ({written})" if n else "")

    def upsert(self, points: Sequence[StoredPoint]) -> None:
        with self._turn("write", len(points)):
            self._inner.upsert(points)

    def set_payload(self, ids: Sequence[str], payload: dict[str, Any]) -> None:
        with self._turn("write", len(ids)):
            self._inner.set_payload(ids, payload)

    def retrieve(self, ids: Sequence[str], *, fields: Sequence[str] | None = None) -> list[StoredPoint]:
        with self._turn("read"):
            return self._inner.retrieve(ids, fields=fields)

    def get_vectors(self, ids: Sequence[str]) -> dict[str, list[float]]:
        with self._turn("read"):
            return self._inner.get_vectors(ids)

    def whole(self, ids: Sequence[str]) -> list[StoredPoint]:
        with self._turn("read"):
            return self._inner.whole(ids)

    def set_vectors(self, vectors: dict[str, list[float]]) -> None:
        with self._turn("write", len(vectors)):
            self._inner.set_vectors(vectors)

    def scroll(self, flt: MemoryFilter, *, fields: Sequence[str] | None = None) -> Iterator[StoredPoint]:
        with self._turn("read"):
            points = list(self._inner.scroll(flt, fields=fields))
        return iter(points)

    def stream(self, flt: MemoryFilter, *, fields: Sequence[str] | None = None) -> Iterator[StoredPoint]:
        """``scroll``'s points read ``STREAM_PAGE`` at a time, the store taken for each page
        alone: an export of every memory neither holds them all in memory (one of 30k
        raised the daemon's RSS by 214 MB, now by 64 MB: the store's pages it mapped)
        nor the store for its whole length. The first page is refused while the store is busy, as any call; later ones
        wait their turn, as a read half done is not to be cut off. Points written between
        two pages may or may not be read."""
        pages = self._inner.scroll(flt, fields=fields)
        first = True
        while True:
            with self._turn("read", wait=not first):
                page = list(islice(pages, STREAM_PAGE))
            yield from page
            if len(page) < STREAM_PAGE:
                return
            first = False

    def count(self, flt: MemoryFilter) -> int:
        with self._turn("read"):
            return self._inner.count(flt)

    def search(self, vector: Sequence[float], flt: MemoryFilter, limit: int) -> list[ScoredMemory]:
        with self._turn("read"):
            return self._inner.search(vector, flt, limit)

    def hybrid_search(
        self, dense: Sequence[float] | None, sparse: SparseVector | None, flt: MemoryFilter, limit: int,
        *, named: Sequence[str] = (), ranked: bool = False,
    ) -> list[ScoredMemory]:
        with self._turn("read"):
            return self._inner.hybrid_search(dense, sparse, flt, limit, named=named, ranked=ranked)

    def delete(self, ids: Sequence[str]) -> None:
        with self._turn("write", len(ids)):
            self._inner.delete(ids)

    def flush(self) -> None:
        with self._turn("write"):
            self._inner.flush()

    def unindexed(self) -> int:
        with self._turn("read"):
            return self._inner.unindexed()

    def optimize(self, *, reads: Shared | None = None, writes: Shared | None = None) -> None:
        """Other threads read, then write too, meanwhile when the build is on a copy (the
        ``reads`` and ``writes`` given to the store are ``_share``; ones given here are not
        needed). Then the store's ``warm`` searches, once others may call again: each a
        read turn of its own, given up if the store is held for long again meanwhile."""
        self._long_shared(INDEX_BUILD, self._inner.optimize)
        try:
            self.warm()
        except BusyError:
            pass  # a seal in place began: what it loads is searched soon enough

    def warm(self, each: Shared | None = None) -> None:
        """The store's ``warm``, each search a read turn of its own (``each`` not needed)."""
        self._inner.warm(partial(self._turn, "read"))

    def seal_due(self) -> bool:
        """Never while others write during a build or another seal: one child at a time,
        and the build's end counts again what is left to seal."""
        with self._turn("read"):
            return self._shared is None and self._inner.seal_due()

    def seal(self) -> bool:
        """Other threads read, then write too, meanwhile when the seal is on a copy, as
        during ``optimize``; the sync that seals waits for it."""
        return self._long_shared(SEALING, self._inner.seal)

    def _long_shared(self, doing: str, work: Callable[..., T]) -> T:
        """``_long``, ``work`` given the ``reads`` and ``writes`` (``_share``) that a store
        enters while others may share it (a build or seal on a copy of its shard)."""
        reads, writes = partial(self._share, "read"), partial(self._share, "write")
        return self._long(doing, lambda: work(reads=reads, writes=writes))

    def _long(self, doing: str, work: Callable[[], T]) -> T:
        """``work`` with the store, other threads' calls refused (``BusyError``) meanwhile."""
        with self._turn("own"):
            self._busy = (doing, time.monotonic())
            try:
                return work()
            finally:
                self._busy = None

    def relayout_due(self) -> bool:
        with self._turn("read"):
            return self._inner.relayout_due()

    def upgrade(self) -> bool:
        with self._turn("own"):
            return self._inner.upgrade()

    def close(self) -> None:
        with self._turn("own"):
            self._inner.close()
