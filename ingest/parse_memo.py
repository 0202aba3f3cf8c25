"""The parsed files of recent syncs, kept so that a file read again is not parsed again.

A reset of the tracked branch and its way back read the same blobs twice: every file the
reset changed is parsed on the way back and, unchanged, on the way forward again. Parsing
is the larger share of such a sync (~2.8 ms per file, Django's 50-release reset touches
~1,000 files a side), so the parse of a blob is kept and reused.

Exactness: ``parse`` is a pure function of the language, the bytes and the path (the
path lets tooling and document extractors tell files apart), and a blob id names its bytes.
A key of (blob, language, path) therefore gives back exactly what parsing would.

Memory: a ``ParseResult`` holds ~4x the bytes of its source (symbol sources, docstrings,
signatures, hashes), so the memo is bounded by the source bytes it stands for: 32 MiB
while syncs run (~130 MB held, room for both sides of a reset across ~1,000 files),
trimmed to 8 MiB, the most recently read files, once the daemon is idle.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass

from recalld.parsers.base import ParseResult

BUSY_BYTES = 32 * 1024 * 1024
IDLE_BYTES = 8 * 1024 * 1024

MemoKey = tuple[str, str, str]  # blob id, language, path


@dataclass(frozen=True, slots=True)
class ReadFile:
    """What reading one blob gave: its parse, or None for a binary blob."""

    parsed: ParseResult | None
    invalid_utf8: bool = False


class ParseMemo:
    """A thread-safe least-recently-used map of read files, bounded by source bytes."""

    def __init__(self, budget: int) -> None:
        self._budget = budget
        self._entries: OrderedDict[MemoKey, tuple[ReadFile, int]] = OrderedDict()
        self._size = 0
        self._lock = threading.Lock()

    @property
    def size(self) -> int:
        """The source bytes the kept files stand for."""
        return self._size

    def __len__(self) -> int:
        return len(self._entries)

    def get(self, key: MemoKey) -> ReadFile | None:
        with self._lock:
            entry = self._entries.get(key)
            if entry is None:
                return None
            self._entries.move_to_end(key)
            return entry[0]

    def put(self, key: MemoKey, read: ReadFile, size: int) -> None:
        """Keep ``read`` (its source was ``size`` bytes), dropping the least recently used
        files over the budget; a file larger than the whole budget is not kept."""
        if size > self._budget:
            return
        with self._lock:
            old = self._entries.pop(key, None)
            if old is not None:
                self._size -= old[1]
            self._entries[key] = (read, size)
            self._size += size
            self._drop_to(self._budget)

    def trim(self, budget: int) -> None:
        """Keep only the most recently used files within ``budget`` bytes (0 empties it)."""
        with self._lock:
            self._drop_to(budget)

    def _drop_to(self, budget: int) -> None:
        while self._size > budget and self._entries:
            _, (_, size) = self._entries.popitem(last=False)
            self._size -= size


PARSED = ParseMemo(BUSY_BYTES)


def forget_parsed() -> None:
    """An idle daemon keeps only the files it read last (a reset's way back reads them)."""
    PARSED.trim(IDLE_BYTES)
