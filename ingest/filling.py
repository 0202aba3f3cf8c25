"""Reading what a commit wrote past the parse limit, for who wrote it.

A commit's read parses at most ``commits.MAX_PARSED_FILES`` of its changed files, for its
task memory. What it produced in the rest is read for the search for writers and a
sync's crediting where the store holds code at those paths, live or closed, once the
sync wrote what it found (``Filling``): the versions a search may seek there, or a sync
over several commits credit. That is bounded by what was indexed: a vendored tree a
commit added and a later one deleted before any sync saw it is not parsed. The files are
read as many at a time as a commit's read parses, ``stop`` asked between
(``CommitReader.filled``): a history read gives way to newer events inside a first
commit that imported thousands of files, and leaves the rest to its next read (``cut``).
"""

from __future__ import annotations

from collections.abc import Callable

from recalld.ingest.authorship import scrolls_at
from recalld.ingest.commits import CommitReader, CommitRecord
from recalld.ingest.plan import Scope
from recalld.ingest.store import Store


class Filling:
    """Fills the records of one branch where the store holds code. ``stop``: asked between
    reads (a history read's ask); ``cut``: a fill it stopped, so a record lacks some of
    what its commit wrote (the read is left incomplete)."""

    def __init__(self, reader: CommitReader, store: Store, scope: Scope) -> None:
        self.reader, self.store, self.scope = reader, store, scope
        self.stop: Callable[[], bool] | None = None
        self.cut = False

    def __call__(self, record: CommitRecord) -> CommitRecord:
        if not record.unparsed:
            return record
        batches = scrolls_at(self.store, self.scope, record.unparsed, fields=("path",), deprecated=None)
        record, whole = self.reader.filled(record, {p.payload["path"] for batch in batches for p in batch},
                                           stop=self.stop)  # fmt: skip
        self.cut |= not whole
        return record
