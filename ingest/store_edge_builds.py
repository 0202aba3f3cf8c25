"""How the embedded store builds its vector index (``QdrantEdgeStore``'s part that does):
an idle build (``optimize``) and a sync's seal of what it wrote (``seal``), each by a
child (``store_edge_layout.run_child``), since the engine holds the GIL through a build;
on a copy of the shard while this process reads and writes on the shard it keeps open
(``store_edge_copy``; what it writes meanwhile is kept on the disk, ``store_edge_written``,
and written to the copy too before it takes the shard's place) when the disk has room for
the copy, else on the shard itself, which nobody reads meanwhile. With ``store_edge`` and
its other ``store_edge_*`` modules but the copy's, the only modules importing ``qdrant_edge``.
"""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Sequence
from contextlib import nullcontext
from pathlib import Path

import qdrant_edge as qe

from recalld.daemon.logs import get_logger
from recalld.ingest.child import stops
from recalld.ingest.diskspace import DiskRoom
from recalld.ingest.errors import RecalldError
from recalld.ingest.store import MemoryFilter, ScoredMemory, Shared
from recalld.ingest.store_edge_copy import (
    WRITTEN_SUFFIX,
    allocated_bytes,
    beside,
    copy_shard,
    drop,
    drop_later,
    repoint,
)
from recalld.ingest.store_edge_layout import LAYOUT, run_child
from recalld.ingest.store_edge_written import Written

WARM_SEARCHES = 64  # after an index build (see ShardBuilds.warm)
# Rounds of the catch-up while others write on, until one writes fewer operations than
# CAUGHT_UP (32 points each): the last round, which others wait out, is then short even
# when a long sync wrote throughout the build.
CATCH_UP_ROUNDS = 4
CAUGHT_UP = 64
log = get_logger("recalld.store")


class ShardBuilds:
    """The index builds of ``QdrantEdgeStore`` (which sets these attributes and the
    methods below the line)."""

    dim: int
    seal_over: int
    has_sparse: bool
    _path: Path
    _shard_dir: Path  # the link to the shard's directory
    _live: Path  # that directory, which the engine loaded the shard from
    _shard: qe.EdgeShard
    _room: DiskRoom
    _layout: Path
    _relayout: bool
    _unsealed: int | None
    _written: Written | None
    _dropping: threading.Thread | None  # removing the directory of the shard a copy replaced
    _dirty: bool  # the shard was written since its last flush

    def flush(self) -> None:
        raise NotImplementedError

    def unindexed(self) -> int:
        raise NotImplementedError

    def search(self, vector: Sequence[float], flt: MemoryFilter, limit: int) -> list[ScoredMemory]:
        raise NotImplementedError

    def optimize(self, *, reads: Shared | None = None, writes: Shared | None = None) -> None:
        """The index is built by a child process, and its memory (1.2 GB at its peak for
        100k points) goes with it; this process keeps the store's lock file (no other
        recalld opens the store meanwhile). Built on a copy of the shard while this process
        keeps the shard open, when the disk has room for the copy and what the build writes
        into it (``store_edge_copy``): ``reads`` entered while the copy is made, ``writes``
        while the child builds it (``LockedStore`` lets other threads read, then write
        too); else on the shard itself, closed meanwhile. Then ``warm``, which the caller
        asks for (``LockedStore``: after its hold, others' calls between the searches)."""
        self._room.ensure("build the vector index")
        self._by_child("build", reads, writes, failed=f"cannot build the vector index of store {self._path}")
        self._unsealed = None
        if self._relayout:
            self._layout.write_text(LAYOUT)
            self._relayout = False

    def relayout_due(self) -> bool:
        """Whether the segments are as an older version made them (the keyword index on
        the heap): the next ``optimize`` rebuilds them all as this version makes them."""
        return self._relayout

    def seal_due(self) -> bool:
        """Whether ``seal_over`` points were written since the segment the engine appends
        to was last sealed or indexed (counted from the store once, then as written)."""
        if self.seal_over <= 0:
            return False
        if self._unsealed is None:
            self._unsealed = self.unindexed()
        return self._unsealed >= self.seal_over

    def seal(self, *, reads: Shared | None = None, writes: Shared | None = None) -> bool:
        """The index of the appendable segment built, nothing merged into it: its payload
        indexes go from the heap to mapped files (``store_edge_layout``). On a copy as
        ``optimize`` builds, ``reads`` and ``writes`` as there: the sync that seals waits,
        others read and write on. A seal that failed is logged, never raised: the points
        stay where they were, searchable, and the next seal is due after ``seal_over`` more."""
        started, sealing = time.monotonic(), self.unindexed()
        log.info("sealing the written memories: indexing them, the sync waits", store=str(self._path), points=sealing)
        try:
            self._room.ensure("seal the written memories")
            failed = f"cannot index the written memories of store {self._path}"
            self._by_child("seal", reads, writes, failed=failed)
        except RecalldError as exc:
            log.warning("written memories not sealed: the engine holds them on the heap until an index is built",
                        store=str(self._path), error=exc.message)  # fmt: skip
            return False
        finally:
            self._unsealed = 0
        log.info("sealed the written memories", store=str(self._path), points=sealing,
                 seconds=round(time.monotonic() - started, 2))  # fmt: skip
        return True

    def _by_child(self, action: str, reads: Shared | None, writes: Shared | None, *, failed: str) -> None:
        """``action`` ("build" or "seal") by a child: on a copy of the shard when the disk
        has room for it and what the child writes into it, else on the shard itself."""
        self.dropped()  # the room an earlier build freed counted
        size = allocated_bytes(self._live)
        if self._room.spares(2 * size):
            self._on_copy(action, reads or nullcontext, writes or nullcontext, failed=failed)
        else:
            log.warning(f"too little room on the disk for a copy: the {action} is done in place, reads wait",
                        store=str(self._path), shard_mb=size >> 20)  # fmt: skip
            self._in_child(action, failed=failed)

    def _in_child(self, action: str, *, failed: str) -> None:
        """``action`` by a child while this process has the shard closed and keeps the
        store's lock file; the shard is loaded again whatever the child's outcome."""
        self.flush()
        self._shard.close()
        del self._shard
        try:
            run_child(action, self._live, self.dim, keyword=self.has_sparse, failed=failed)
        finally:
            self._shard = qe.EdgeShard.load(str(self._live))

    def _on_copy(self, action: str, reads: Shared, writes: Shared, *, failed: str) -> None:
        """``action`` on a copy made while this process reads on from the shard (nothing
        written to it meanwhile), done while it reads and writes on: what it writes
        meanwhile is kept, and written to the built copy too, which then serves in the
        shard's place (``_take``)."""
        self.flush()
        begun = stops()  # a daemon told to stop while it copies starts no build after
        with reads():
            try:
                copy = copy_shard(self._shard_dir)
            except OSError as exc:
                raise RecalldError(f"{failed}: cannot copy its shard: {exc}") from exc
        try:
            try:
                self._written = written = Written(beside(self._shard_dir, WRITTEN_SUFFIX))
            except OSError as exc:
                raise RecalldError(f"{failed}: cannot keep what is written meanwhile: {exc}") from exc
            catch_up = CatchUp(copy, written, failed=failed)
            try:
                with writes():
                    run_child(action, copy, self.dim, keyword=self.has_sparse, failed=failed,
                              unless_stopped_since=begun)  # fmt: skip
                    self._flush_beside()
                    for _ in range(CATCH_UP_ROUNDS):  # what was written so far, while others write on
                        if catch_up.round() < CAUGHT_UP:
                            break
                catch_up.round()  # the rest, others waiting
                built = catch_up.handover()
            finally:
                catch_up.close()
            self._take(built, copy, failed=failed)
        except BaseException:
            if self._live != copy:  # never once it serves, whatever came after
                drop(copy)
            raise
        finally:
            if self._written is not None:
                self._written.close()
            self._written = None

    def _flush_beside(self) -> None:
        """The shard flushed while others write on: what was written during the build
        (the engine flushes it holding the GIL, 0.29 s for 30k points) is not flushed by
        the shard's close in ``_take``, which others wait out; it closes with what comes
        after. At 100k points, 30k written during the build: the close 0.52 → 0.33 s (the
        rest is the engine's own teardown), ~1.1k written: 0.17 → 0.16 s. A flush that
        fails is logged: the shard's log keeps what was written, and its close flushes it."""
        if not self._dirty:
            return
        started = time.monotonic()
        try:
            self.flush()
        except Exception as exc:  # noqa: BLE001 - the engine's errors name no type
            log.warning("the shard did not flush before the built copy takes its place", store=str(self._path),
                        error=str(exc))  # fmt: skip
            return
        log.info("flushed the shard before the built copy takes its place", store=str(self._path),
                 seconds=round(time.monotonic() - started, 3))  # fmt: skip

    def _take(self, built: qe.EdgeShard, copy: Path, *, failed: str) -> None:
        """The caught-up copy, as the catch-up loaded it, in the shard's place: the link
        repointed (a crash from then on opens the copy), the shard closed and its
        directory removed on a thread (``dropped`` waits for that). Until stop 86 both
        were closed here and the copy loaded again where the shard had been, since the
        engine keeps the paths it loaded: at 100k points, 30k of them written during the
        build, ~1.3 s that every call waited out."""
        try:
            repoint(self._shard_dir, copy)
        except OSError as exc:
            built.close()
            raise RecalldError(f"{failed}: the built copy did not take the shard's place: {exc}") from exc
        old, old_dir = self._shard, self._live
        self._shard, self._live = built, copy
        started = time.monotonic()
        try:
            old.close()  # it flushes what was written since ``_flush_beside``
        except Exception as exc:  # noqa: BLE001 - the copy serves already; the shard is dropped anyway
            log.warning("the shard that the built copy replaced did not close cleanly", store=str(self._path),
                        error=str(exc))  # fmt: skip
        self._dropping = drop_later(old_dir)
        log.info("the built copy took the shard's place", store=str(self._path), shard=copy.name,
                 closed_s=round(time.monotonic() - started, 3))  # fmt: skip

    def dropped(self) -> None:
        """Waits until the directory of a shard that a copy replaced is removed."""
        if self._dropping is not None:
            self._dropping.join()
            self._dropping = None

    def warm(self, each: Shared | None = None) -> None:
        """A few searches of random vectors, so that the first searches of a freshly
        loaded shard are not the slow ones: after a 100k-point build, the first 60
        filtered searches read p95 11.1 ms and the next 60 3.0 ms; with these first
        (0.45 s), 2.5 ms. Each inside ``each`` when given (a turn of its own). Not on
        open: a CLI command opens the store for one search. Until stop 85 ``optimize``
        ran them before it let others in again, and they lengthened the pause at the
        build's end (0.32–0.39 s at 100k memories, 30k of them written during the build)."""
        draw = random.Random(0)
        for _ in range(WARM_SEARCHES):
            with (each or nullcontext)():
                self.search([draw.gauss(0.0, 1.0) for _ in range(self.dim)], MemoryFilter(), 10)


class CatchUp:
    """What was written to the shard while its copy was built (``Written``: the recipes of
    the engine's operations, as ``QdrantEdgeStore._update`` applied them), written to the
    copy in the same order, in rounds: each writes what was added since the last. The copy
    is loaded at the first operation to write (or its ``handover``), and that instance
    goes on to serve as the shard. A failure, or a write that could not be kept, is a
    ``RecalldError``: the copy does not take the shard's place, and the shard has them all."""

    def __init__(self, copy: Path, written: Written, *, failed: str) -> None:
        self._copy, self._written, self._failed = copy, written, failed
        self._built: qe.EdgeShard | None = None
        self._done = 0

    def round(self) -> int:
        """Writes what was added since the last round; how many operations."""
        if self._written.failed is not None:
            raise RecalldError(f"{self._failed}: {self._written.failed}")
        if self._done == len(self._written):
            return 0
        started, begun = time.monotonic(), self._done
        built = self._load()
        try:
            while self._done < len(self._written):  # other threads may append meanwhile
                built.update(self._written.operation(self._done))
                self._done += 1
            built.flush()
        except Exception as exc:  # noqa: BLE001 - the engine's errors name no type
            raise RecalldError(f"{self._failed}: what was written during the build did not apply to it: {exc}") from exc
        if self._written.failed is not None:  # one added while this round wrote
            raise RecalldError(f"{self._failed}: {self._written.failed}")
        log.info("wrote to the built copy what was written while the child built it", store=str(self._copy.parent),
                 operations=self._done - begun, kept_mb=round(self._written.size / 2**20, 1),
                 seconds=round(time.monotonic() - started, 2))  # fmt: skip
        return self._done - begun

    def _load(self) -> qe.EdgeShard:
        if self._built is None:
            try:
                self._built = qe.EdgeShard.load(str(self._copy))
            except Exception as exc:  # noqa: BLE001 - the engine's errors name no type
                raise RecalldError(f"{self._failed}: the built copy did not load: {exc}") from exc
        return self._built

    def handover(self) -> qe.EdgeShard:
        """The caught-up copy, loaded (if no round did), for the caller to keep: it serves
        as the shard from its path, which is why the copy is never renamed."""
        built, self._built = self._load(), None
        return built

    def close(self) -> None:
        """The copy closed, unless handed over (a build that failed)."""
        if self._built is not None:
            self._built.close()
            self._built = None
