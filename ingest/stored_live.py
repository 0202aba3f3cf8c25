"""The live memories a sync compares its files with, read from the store by path.

An incremental sync reads those of the paths git says changed (``live_at``). A whole
tree's compare (``touched.whole_tree``) needs to know at once only what each stored file
tells: which paths hold memories, the blob each module was read from, the languages
they were read in, and the memories' ids (``StoredLive``). Each path's memories
themselves are read when its part is planned (``StoredLive.take``): the compare holds
those of a part or two, not every memory of the repository. After an interrupted sync
they are the state before it (ingest/recovery.py): what it closed is live again and
what it created absent, told apart by every planned point's recovery fields at once, and
read likewise a path at a time.
"""

from __future__ import annotations

from array import array
from collections.abc import Callable, Iterable, Iterator
from functools import partial
from typing import Any

from recalld.ingest.ahead import LiveIds
from recalld.ingest.plan import LiveMemory, Scope
from recalld.ingest.records import PLANNED_TYPES, PLANNING_FIELDS, live_filter, live_memory
from recalld.ingest.recovery import DISCARD, LIVE, RECOVERY_FIELDS, REOPENED, RESTORE, before_interrupted
from recalld.ingest.redaction import holds_redaction
from recalld.ingest.store import MemoryFilter, Store, StoredPoint

PATH_CHUNK = 256  # paths a filtered read of the store asks for at once
# What a whole tree's compare reads of every live memory before its files.
FILE_FIELDS = ("path", "kind", "blob", "language")


def live_at(
    store: Store, scope: Scope, paths: Iterable[str], *, fields: tuple[str, ...] = PLANNING_FIELDS,
    reread: bool = False,
) -> list[LiveMemory]:  # fmt: skip
    """The live memories at ``paths``, as the store yields them ``PATH_CHUNK`` paths at a
    time. ``reread``: the memories were made by an earlier extractor, whose text is read
    for its redactions only (see ``records.REREAD_FIELDS``)."""
    points = _at(store, sorted(paths), lambda chunk: live_filter(scope, paths=chunk), fields)
    return [_memory(point, reread) for point in points]


def _at(
    store: Store, ordered: list[str], where: Callable[[tuple[str, ...]], MemoryFilter], fields: tuple[str, ...]
) -> Iterator[StoredPoint]:
    """The points ``where`` a chunk of ``ordered`` paths, ``PATH_CHUNK`` paths a read."""
    for start in range(0, len(ordered), PATH_CHUNK):
        yield from store.scroll(where(tuple(ordered[start : start + PATH_CHUNK])), fields=fields)


def _planned(scope: Scope, paths: tuple[str, ...] = ()) -> MemoryFilter:
    """The planned memories of ``scope`` (at ``paths``), live and closed."""
    return MemoryFilter(repo=scope.repo, branch=scope.branch, types=PLANNED_TYPES, deprecated=None, paths=paths)


def _memory(point: StoredPoint, reread: bool) -> LiveMemory:
    return live_memory(point, redacted=reread and holds_redaction(point.payload))


class StoredLive:
    """The live memories of a whole tree's compare: what their files tell, known at once,
    and each path's memories given once, when asked for (``take``).

    Every live memory of ``scope`` is read now for its ``FILE_FIELDS`` alone, and a
    path's memories with ``fields`` when it is taken. ``interrupted``: the target, the
    indexed commit and the marker's ``pending_after`` of an interrupted sync, whose
    memories are then those of the state before it (``recovery.before_interrupted``):
    every planned point, live or closed, is read now with its recovery fields too, and a
    path's are read whole when it is taken, those live before it kept, in the store's
    order, as an uninterrupted sync reads them.
    ``ids``: every live memory's (``ahead.LiveIds``)."""

    def __init__(
        self, store: Store, scope: Scope, *, fields: tuple[str, ...], reread: bool,
        interrupted: tuple[str, str | None, int | None] | None = None,
    ) -> None:  # fmt: skip
        self._store, self._scope, self._fields, self._reread = store, scope, fields, reread
        self._interrupted = interrupted is not None
        self.restore: set[str] = set()  # closed by the interrupted sync
        self.discard: set[str] = set()  # created by the interrupted sync
        self.reopened: set[str] = set()  # reopened by the interrupted sync (recovery.before_writing)
        # the paths of those: the interrupted sync's relocations there (lines moved in
        # place, which no stamp tells) are undone by reading them again
        self.unsettled: set[str] = set()
        if interrupted is None:
            files = _file_fields(store.scroll(live_filter(scope), fields=FILE_FIELDS))
        else:
            files = _file_fields(self._before(*interrupted))
        hashes = array("q")  # of every live memory's id (LiveIds)
        self.stored_blob: dict[str, str | None] = {}  # path → the blob its module memory was read from
        self.languages: dict[str, set[str | None]] = {}  # path → the languages its memories were read in
        modules: set[str] = set()
        for memory_id, path, kind, blob, language in files:
            hashes.append(hash(memory_id))
            self.languages.setdefault(path, set()).add(language)
            if kind != "module":
                self.stored_blob.setdefault(path, None)
            elif path in modules:  # two modules at one path: the store is inconsistent
                self.stored_blob[path] = None
            else:
                modules.add(path)
                self.stored_blob[path] = blob
        self._left = set(self.languages)  # paths whose memories are not taken yet
        self.ids = LiveIds(hashes)

    @property
    def paths(self) -> set[str]:
        """Every path that holds live memories (taken or not)."""
        return set(self.languages)

    def take(self, paths: Iterable[str]) -> dict[str, list[LiveMemory]]:
        """The live memories at ``paths`` by path, in path order; a path's are given once
        (asked again, or holding none: left out)."""
        wanted = sorted(path for path in set(paths) if path in self._left)
        self._left.difference_update(wanted)
        if self._interrupted:
            points = _at(self._store, wanted, partial(_planned, self._scope), (*self._fields, "deprecated"))
            memories = [_memory(point, self._reread) for point in points if self._was_live(point)]
        else:
            memories = live_at(self._store, self._scope, wanted, fields=self._fields, reread=self._reread)
        read: dict[str, list[LiveMemory]] = {}
        for memory in memories:
            read.setdefault(memory.path, []).append(memory)
        return {path: read[path] for path in wanted if path in read}

    def _was_live(self, point: StoredPoint) -> bool:
        """Whether ``point`` was live before the interrupted sync (``restore`` and
        ``discard`` as ``_before`` found them)."""
        return point.id in self.restore if point.payload.get("deprecated") else point.id not in self.discard

    def _before(self, interrupted: str, indexed: str | None, after: int | None) -> Iterator[StoredPoint]:
        """The points of the memories live before the interrupted sync (file and recovery
        fields); its closures, creations and reopens noted in ``restore``, ``discard`` and
        ``reopened``, and their paths in ``unsettled``."""
        for point in self._store.scroll(_planned(self._scope), fields=FILE_FIELDS + RECOVERY_FIELDS):
            state = before_interrupted(point.payload, interrupted, indexed, after)
            if state in (RESTORE, DISCARD, REOPENED):
                self.unsettled.add(point.payload["path"])
            if state == DISCARD:
                self.discard.add(point.id)
            elif state == REOPENED:
                self.reopened.add(point.id)
            elif state == RESTORE:
                self.restore.add(point.id)
                yield point
            elif state == LIVE:
                yield point


def _file_fields(points: Iterable[StoredPoint]) -> Iterator[tuple[str, str, str, Any, Any]]:
    for point in points:
        p = point.payload
        yield point.id, p["path"], p["kind"], p.get("blob"), p.get("language")
