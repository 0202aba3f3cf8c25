"""The live memories a sync compares its files with, read from the store by path.

An incremental sync reads those of the paths git says changed (``live_at``). A whole
tree's compare (``touched.whole_tree``) needs to know at once only what each stored file
tells: which paths hold memories, the blob each module was read from, the languages
they were read in, and the memories' ids (``StoredLive``). Each path's memories
themselves are read when its part is planned (``StoredLive.take``): the compare holds
those of a part or two, not every memory of the repository. After an interrupted sync
they are the state before it, worked out from every point at once, and held whole.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from recalld.ingest.plan import LiveMemory, Scope
from recalld.ingest.records import PLANNING_FIELDS, live_filter, live_memory
from recalld.ingest.redaction import holds_redaction
from recalld.ingest.store import Store, StoredPoint

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
    ordered = sorted(paths)
    live: list[LiveMemory] = []
    for start in range(0, len(ordered), PATH_CHUNK):
        flt = live_filter(scope, paths=tuple(ordered[start : start + PATH_CHUNK]))
        live.extend(_memory(point, reread) for point in store.scroll(flt, fields=fields))
    return live


def _memory(point: StoredPoint, reread: bool) -> LiveMemory:
    return live_memory(point, redacted=reread and holds_redaction(point.payload))


class StoredLive:
    """The live memories of a whole tree's compare: what their files tell, known at once,
    and each path's memories given once, when asked for (``take``).

    ``held``: the points of the state before an interrupted sync, which are then held
    whole; otherwise every live memory of ``scope`` is read now for its ``FILE_FIELDS``
    alone, and a path's memories with ``fields`` when it is taken."""

    def __init__(
        self, store: Store, scope: Scope, *, fields: tuple[str, ...], reread: bool,
        held: Iterable[StoredPoint] | None = None,
    ) -> None:  # fmt: skip
        self._store, self._scope, self._fields, self._reread = store, scope, fields, reread
        self._held: dict[str, list[LiveMemory]] | None = None
        if held is not None:
            memories = [_memory(point, reread) for point in held]
            self._held = {}
            for memory in memories:
                self._held.setdefault(memory.path, []).append(memory)
            files: Iterator[tuple[str, str, str, Any, Any]] = (
                (m.id, m.path, m.kind, m.blob, m.language) for m in memories
            )
        else:
            files = _file_fields(store.scroll(live_filter(scope), fields=FILE_FIELDS))
        self.ids: set[str] = set()  # of every live memory
        self.stored_blob: dict[str, str | None] = {}  # path → the blob its module memory was read from
        self.languages: dict[str, set[str | None]] = {}  # path → the languages its memories were read in
        modules: set[str] = set()
        for memory_id, path, kind, blob, language in files:
            self.ids.add(memory_id)
            self.languages.setdefault(path, set()).add(language)
            if kind != "module":
                self.stored_blob.setdefault(path, None)
            elif path in modules:  # two modules at one path: the store is inconsistent
                self.stored_blob[path] = None
            else:
                modules.add(path)
                self.stored_blob[path] = blob
        self._left = set(self.languages)  # paths whose memories are not taken yet

    @property
    def paths(self) -> set[str]:
        """Every path that holds live memories (taken or not)."""
        return set(self.languages)

    def take(self, paths: Iterable[str]) -> dict[str, list[LiveMemory]]:
        """The live memories at ``paths`` by path, in path order; a path's are given once
        (asked again, or holding none: left out)."""
        wanted = sorted(path for path in set(paths) if path in self._left)
        self._left.difference_update(wanted)
        if self._held is not None:
            return {path: self._held.pop(path) for path in wanted if path in self._held}
        read: dict[str, list[LiveMemory]] = {}
        for memory in live_at(self._store, self._scope, wanted, fields=self._fields, reread=self._reread):
            read.setdefault(memory.path, []).append(memory)
        return {path: read[path] for path in wanted if path in read}


def _file_fields(points: Iterable[StoredPoint]) -> Iterator[tuple[str, str, str, Any, Any]]:
    for point in points:
        p = point.payload
        yield point.id, p["path"], p["kind"], p.get("blob"), p.get("language")
