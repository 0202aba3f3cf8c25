"""Who wrote the versions a sync could not tell the writer of.

A branch's first index (and a sync whose indexed commit has gone from git) finds code
without knowing which commit wrote it: such a structural version has no ``author`` and
no ``task_id``. The task step reads commits newest first (the window, then the history
in chunks) and hands each one's record to ``WriterSearch.claim``, which gives every such
version the newest commit that produced it.

**Moves.** A commit that moves a file (renamed without edits, or renamed with edits for
the versions it left the same) did not write what it moved. The search takes such
versions back to the path they had before the commit, and an older commit that produced
exactly that version there (kind, qualified name and content hash) is their writer: a
mass move to ``src/``, a package renamed. What a commit renamed past the parse limit
goes back whole: only the same version can be claimed. Where a version was is tracked
for the versions still without a writer alone, and only while one search reads the
history newest first (``follow_moves``): a history read that resumes in a later search
first claims again the commits it read before (what they claimed stays theirs;
their moves are found again).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from collections.abc import Set as AbstractSet

from recalld.ingest.commits import CommitRecord
from recalld.ingest.plan import Scope, memory_id
from recalld.ingest.records import task_memory_id
from recalld.ingest.store import MemoryFilter, Store
from recalld.parsers.base import STRUCTURAL

UNKNOWN_WRITER = ("author", "task_id")  # a version without either: its writer is for the history read to find
VERSION_FIELDS = ("kind", "qualname", "content_hash", *UNKNOWN_WRITER)
PATHS_A_SCROLL = 256

VersionKey = tuple[str, str, str]  # kind, qualname, content hash: a version at whatever path


class WriterSearch:
    """Claims, for each commit read (newest first), the versions without a writer that
    it produced."""

    def __init__(self, store: Store, scope: Scope, *, follow_moves: bool) -> None:
        self.store = store
        self.scope = scope
        self.follow_moves = follow_moves
        # path before the commits read so far → version there → stored ids (all without a
        # writer) that were that version at that path, where a commit read moved them since
        self._away: defaultdict[str, dict[VersionKey, set[str]]] = defaultdict(dict)
        self._settled: set[str] = set()  # claimed, or away from their stored path

    def claim(self, records: Sequence[CommitRecord], unknown: set[str]) -> None:
        """``unknown``: the ids the records produced (at the path they are stored at) that
        have no writer; those claimed here leave it. A merge claims what it brought in
        with its task alone: its author need not have written it, and an older commit
        that produced the same code (before a revert) did not write this interval of it."""
        for record in records:
            claimed = self._claims(record, unknown)
            unknown.difference_update(claimed)
            if claimed:
                merge = len(record.details.parents) > 1
                writer = {"task_id": task_memory_id(self.scope, record.details.id),
                          "author": None if merge else record.details.author}  # fmt: skip
                self.store.set_payload(sorted(claimed), writer)

    def _claims(self, record: CommitRecord, unknown: AbstractSet[str]) -> set[str]:
        claimed: set[str] = set()
        moving: list[tuple[str, VersionKey, set[str]]] = []  # to the path before the commit, once all is taken
        for version in record.produced:
            key = (version.kind, version.qualname, version.content_hash)
            ids = self._away[version.path].pop(key, set()) if version.path in self._away else set()
            stored = memory_id(self.scope, version.path, *key)
            if stored in unknown and stored not in self._settled:
                ids.add(stored)
            if version.moved_from is None:
                claimed |= ids
            elif ids:
                moving.append((version.moved_from, key, ids))
        self._settled |= claimed
        if not self.follow_moves:
            return claimed
        # what the commit did not produce at a path it renamed was there before the same (a
        # file renamed without edits is not parsed, nor one past the parse limit)
        renames = [(c.old_path, c.new_path) for c in record.changes
                   if c.status == "renamed" and c.old_path and c.new_path]  # fmt: skip
        for path, versions in self._stored_at([new for _, new in renames]).items():
            for key, ids in versions.items():
                self._away[path].setdefault(key, set()).update(ids)
        for old, new in renames:
            moving.extend((old, key, ids) for key, ids in self._away.pop(new, {}).items())
        for path, key, ids in moving:
            self._away[path].setdefault(key, set()).update(ids)
            self._settled |= ids
        return claimed

    def _stored_at(self, paths: list[str]) -> dict[str, dict[VersionKey, set[str]]]:
        """The stored versions at ``paths`` without a writer and not claimed or moved yet."""
        found: defaultdict[str, dict[VersionKey, set[str]]] = defaultdict(dict)
        for start in range(0, len(paths), PATHS_A_SCROLL):
            batch = tuple(paths[start : start + PATHS_A_SCROLL])
            flt = MemoryFilter(repo=self.scope.repo, branch=self.scope.branch, types=(STRUCTURAL,),
                               paths=batch, deprecated=None)  # fmt: skip
            for point in self.store.scroll(flt, fields=("path", *VERSION_FIELDS)):
                payload = point.payload
                if point.id in self._settled or any(payload.get(field) for field in UNKNOWN_WRITER):
                    continue
                key = (payload["kind"], payload["qualname"], payload["content_hash"])
                found[payload["path"]].setdefault(key, set()).add(point.id)
        return found
