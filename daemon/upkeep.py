"""Upkeep while the daemon is idle: flush acknowledged writes to disk, build the vector
index once enough points are searched by brute force (or, once, to lay out anew a store
an older version laid out otherwise: ``Store.relayout_due``), bring a store an older
version wrote up to date one step at a time, and hand memory freed by the last syncs back to
the operating system (their memos and the model's memory arena first:
``ingest.sync.forget_memos``, ``CachedEmbeddings.release``); then read ahead what the
first query of a kind would read after those syncs (``warm``: every branch's indexed
states, which as-of and ``changes --since`` questions go by: ``daemon.asof``).

Syncs never flush (the embedded engine's WAL already survives a killed process) and
never build indexes; both are slow (a flush holds the GIL; a build, run by a child
process, takes minutes), and so wait for a moment with no sync running or queued. A
daemon that is never idle (syncs queued back to back) still flushes, at most
``BUSY_FLUSH_EVERY`` after its last flush: the engine reuses the space of points it
rewrote only after a flush, and a store written by 39 syncs with no flush held 1.4 GB on
disk and in mapped pages against 274 MB with one after each.

A build runs on a thread of its own (``recalld-index-build``), so that the daemon's loop
goes on meanwhile: it starts the syncs of commits made during the build, which write on
while the store builds on a copy of its shard (``Store.optimize``), and pings systemd's
watchdog; until the build ends the upkeep only flushes the shard that those syncs write
to, when the build lets others write and as often as without a build. A build that fails is
logged and tried again once more points need it (a relayout alone: at the daemon's next
start).
"""

from __future__ import annotations

import ctypes
import threading
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from recalld.daemon.logs import get_logger
from recalld.ingest.child import stop_children
from recalld.ingest.errors import BusyError, RecalldError
from recalld.ingest.store import Store
from recalld.ingest.sync import forget_memos

log = get_logger("recalld.upkeep")
CHECK_EVERY = 5.0  # seconds between looks at whether the daemon is idle
FLUSH_EVERY = 60.0  # seconds between flushes (a flush holds the GIL ~0.1–1 s)
BUSY_FLUSH_EVERY = 600.0  # seconds a daemon with syncs always running goes without a flush
OPTIMIZE_OVER = 20_000  # unindexed points that make brute-force search slow (~10 ms)


@dataclass(slots=True)
class StoreUpkeep:
    store: Store
    idle: Callable[[], bool]
    activity: Callable[[], int] = lambda: 0  # changes whenever a sync has run
    stopping: Callable[[], bool] = lambda: False  # the daemon stops (and ends a build under way)
    release_model: Callable[[], None] = lambda: None  # the model gives back its spare memory
    released: Callable[[], None] = lambda: None  # told after memory was released (the daemon may restart)
    warm: Callable[[], None] = lambda: None  # reads ahead for queries after syncs (the as-of states), on a thread
    every: float = FLUSH_EVERY
    busy_every: float = BUSY_FLUSH_EVERY
    optimize_over: int = OPTIMIZE_OVER
    check_every: float = CHECK_EVERY
    _next_check: float = 0.0
    _next_flush: float = 0.0
    _flushed_at: float | None = None  # when the store was last flushed (None: not yet looked)
    _trimmed_after: int | None = None  # activity() when memory was last released
    _left_unindexed: int = 0  # what the last build left (segments below the engine's threshold)
    _upgrading: bool = True  # until the store says nothing is left to upgrade
    _relayout: bool = True  # the store may be laid out as an older version did it (asked once)
    _build: threading.Thread | None = None  # an index build under way
    _warming: threading.Thread | None = None  # ``warm`` under way
    _warmed_after: int | None = None  # activity() when ``warm`` last started

    def tick(self, now: float | None = None) -> None:
        now = time.monotonic() if now is None else now
        if now < self._next_check:
            return
        self._next_check = now + self.check_every
        if self._flushed_at is None:
            self._flushed_at = now
        if self.building():  # its syncs write to the shard it copies: see ``_flush_due``
            self._flush_due(now, self.every if self.idle() else self.busy_every, "during the index build")
            return
        if not self.idle():
            self._flush_due(now, self.busy_every, "while syncs run")
            return
        if self.activity() != self._trimmed_after:
            self._trimmed_after = self.activity()
            forget_memos()
            self.release_model()
            release_memory()
            self.released()
            if self.stopping():  # the daemon stops or restarts: no flush or index build to start now
                return
        self._start_warming()
        if now >= self._next_flush:
            self._next_flush = now + self.every
            self._flush_and_index(now)
        elif self._upgrading:  # one step per look, never on top of a flush or index build
            self._upgrading = self.store.upgrade()

    def _flush_due(self, now: float, every: float, why: str) -> None:
        """The store flushed once ``every`` seconds passed since the last flush, by the
        daemon's loop while syncs run or a build does; the next one counted from this
        one even where it is refused (``BusyError``: a sync seals what it wrote, or a
        build has the store alone: the copy being made, its end, a build in place).
        During a build on a copy others write to the shard, so it is flushed as it is
        without a build: until stop 87 nothing they wrote during a build was flushed
        before its end, a long build's writes kept the space of what they rewrote
        meanwhile, and the build's end flushed them all while every call waited (see
        ``ShardBuilds._flush_beside``)."""
        last = now if self._flushed_at is None else self._flushed_at
        if now - last < every:
            return
        self._flushed_at = now
        started = time.monotonic()
        try:
            self.store.flush()
        except BusyError:
            return
        log.info(f"flushed the store {why}", seconds=round(time.monotonic() - started, 2))

    def _flush_and_index(self, now: float) -> None:
        started = time.monotonic()
        self._flushed_at = now
        self.store.flush()
        unindexed = self.store.unindexed()
        relayout = self._relayout and self.store.relayout_due()
        self._relayout = False  # known from the store's open: built (or tried) once a process
        if unindexed - self._left_unindexed < self.optimize_over and not relayout:
            return
        why = {"relayout": "every segment, as an older version laid the store out"} if relayout else {}
        log.info("building the vector index", unindexed=unindexed, **why)
        self._build = threading.Thread(target=self._index, args=(unindexed, started), name="recalld-index-build")
        self._build.start()

    def building(self) -> bool:
        """Whether an index build is under way."""
        return self._build is not None and self._build.is_alive()

    def wait(self, timeout: float | None = None) -> bool:
        """The index build under way (if any) waited for; False if it still runs."""
        if self._build is not None:
            self._build.join(timeout)
        return not self.building()

    def end(self, timeout: float | None = None) -> bool:
        """The index build under way (if any) ended, its child stopped (the build is left
        for the next start), and waited for, as ``warm`` is: the daemon's stop, before it
        closes the store."""
        if self.building():
            stop_children()
        if self._warming is not None:
            self._warming.join(timeout)
        return self.wait(timeout)

    def _start_warming(self) -> None:
        """``warm`` on a thread of its own once syncs ran since it last started, unless it
        still runs (the syncs that ran meanwhile are then for a later look): the daemon's
        loop goes on starting syncs meanwhile (a first read of the as-of states takes
        seconds)."""
        if self.stopping() or self.activity() == self._warmed_after:
            return
        if self._warming is not None and self._warming.is_alive():
            return
        self._warmed_after = self.activity()
        self._warming = threading.Thread(target=self._warm, name="recalld-warm", daemon=True)
        self._warming.start()

    def _warm(self) -> None:
        try:
            self.warm()
        except Exception:  # noqa: BLE001 - a thread's crash would go unseen; a query reads it itself
            log.error("reading ahead for queries failed", traceback=traceback.format_exc())

    def _index(self, unindexed: int, started: float) -> None:
        try:
            self.store.optimize()
        except RecalldError as exc:
            if self.stopping():
                log.info("vector index build left for the next start: the daemon stops", unindexed=unindexed)
            else:
                log.error("vector index not built; searches stay slower until it is", error=exc.message,
                          again_at=unindexed + self.optimize_over)  # fmt: skip
            self._left_unindexed = unindexed
            return
        except Exception:  # noqa: BLE001 - a thread's crash would go unseen
            log.error("vector index build crashed", unindexed=unindexed, traceback=traceback.format_exc())
            self._left_unindexed = unindexed
            return
        finally:
            # The shard closed for the build is freed, but its pages kept by glibc.
            release_memory()
        self._left_unindexed = self.store.unindexed()
        log.info("built the vector index", unindexed=self._left_unindexed, seconds=round(time.monotonic() - started, 2))


M_ARENA_MAX = -8  # glibc mallopt parameter
ARENAS = 2


def limit_malloc_arenas() -> bool:
    """Cap glibc's malloc arenas (default: 8 per core, one per thread that allocates):
    the model, the API and the sync workers all allocate from their own threads, and
    every arena keeps its own free pages. Call before those threads start."""
    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):
        return False
    return bool(mallopt(M_ARENA_MAX, ARENAS))


def release_memory() -> bool:
    """Return free heap pages to the OS (glibc's malloc_trim): a sync's parse trees and
    texts are freed when it ends, but glibc keeps the pages, so idle RSS stayed at the
    peak of the largest sync. False where there is no glibc."""
    trim = _malloc_trim()
    if trim is None:
        return False
    trim(0)
    return True


@lru_cache(maxsize=1)
def _malloc_trim() -> Any:
    try:
        return ctypes.CDLL(None).malloc_trim
    except (OSError, AttributeError):
        return None
