"""The parsed files of recent syncs, kept so that a file read again is not parsed again.

A reset of the tracked branch and its way back read the same blobs twice: every file the
reset changed is parsed on the way back and, unchanged, on the way forward again. Parsing
is the larger share of such a sync (~3.9 ms per file: Django's 50-release reset parses
959 files, 16 MB, per side in 3.8 s of CPU), so the parse of a blob is kept and reused.

Exactness: ``parse`` is a pure function of the language, the bytes and the path (the
path lets tooling and document extractors tell files apart), and a blob id names its bytes.
A key of (blob, language, path) therefore gives back exactly what parsing would.

Memory: a ``ParseResult`` holds ~3-4x the bytes of its source (symbol sources, docstrings,
signatures, hashes), so the memo is bounded by the source bytes it stands for, 32 MiB
(~130 MB held while syncs run: both sides of a reset across ~1,000 files). A daemon
that goes idle packs what it keeps (``pack``: pickled and zlib-compressed, ~0.65x the
source, ~0.5 s of CPU per 16 MB of source, when nothing else wants it); a packed file
read again loads in ~0.3 ms, a tenth of parsing it, since a reset and the way back are
seldom seconds apart.
"""

from __future__ import annotations

import pickle
import threading
import zlib
from collections import OrderedDict
from dataclasses import dataclass

from recalld.parsers.base import ParseResult

BUDGET_BYTES = 32 * 1024 * 1024
ENTRY_BYTES = 1024  # what a kept file counts for at least: an empty one still holds a parse

MemoKey = tuple[str, str, str]  # blob id, language, path


@dataclass(frozen=True, slots=True)
class ReadFile:
    """What reading one blob gave: its parse, or None and why not (files.unreadable)."""

    parsed: ParseResult | None
    unread: str = ""  # why parsed is None: "binary", "minified", "generated"
    generated: bool = False  # parsed, though its opening comments say a generator wrote it


class ParseMemo:
    """A thread-safe least-recently-used map of read files, bounded by source bytes.
    An entry is a ``ReadFile`` or, once packed, its pickle compressed."""

    def __init__(self, budget: int) -> None:
        self._budget = budget
        self._entries: OrderedDict[MemoKey, tuple[ReadFile | bytes, int]] = OrderedDict()
        self._size = 0
        self._lock = threading.Lock()

    @property
    def size(self) -> int:
        """The source bytes the kept files stand for."""
        return self._size

    def __len__(self) -> int:
        return len(self._entries)

    def packed(self) -> int:
        """How many kept files are packed."""
        with self._lock:
            return sum(isinstance(read, bytes) for read, _ in self._entries.values())

    def get(self, key: MemoKey) -> ReadFile | None:
        with self._lock:
            entry = self._entries.get(key)
            if entry is None:
                return None
            self._entries.move_to_end(key)
        read = entry[0]
        if isinstance(read, bytes):
            loaded: ReadFile = pickle.loads(zlib.decompress(read))
            return loaded
        return read

    def put(self, key: MemoKey, read: ReadFile, size: int) -> None:
        """Keep ``read`` (its source was ``size`` bytes), dropping the least recently used
        files over the budget; a file larger than the whole budget is not kept."""
        size = max(size, ENTRY_BYTES)
        if size > self._budget:
            return
        with self._lock:
            old = self._entries.pop(key, None)
            if old is not None:
                self._size -= old[1]
            self._entries[key] = (read, size)
            self._size += size
            self._drop_to(self._budget)

    def pack(self) -> int:
        """Pack every kept file not packed yet, one at a time (a sync that starts
        meanwhile waits for one file at most); returns how many were packed."""
        with self._lock:
            keys = [key for key, (read, _) in self._entries.items() if not isinstance(read, bytes)]
        done = 0
        for key in keys:
            with self._lock:
                entry = self._entries.get(key)
            if entry is None or isinstance(entry[0], bytes):
                continue
            packed = zlib.compress(pickle.dumps(entry[0], protocol=pickle.HIGHEST_PROTOCOL), 1)
            with self._lock:
                if self._entries.get(key) is entry:  # not dropped or replaced meanwhile
                    self._entries[key] = (packed, entry[1])
                    done += 1
        return done

    def trim(self, budget: int) -> None:
        """Keep only the most recently used files within ``budget`` bytes (0 empties it)."""
        with self._lock:
            self._drop_to(budget)

    def _drop_to(self, budget: int) -> None:
        while self._size > budget and self._entries:
            _, (_, size) = self._entries.popitem(last=False)
            self._size -= size


PARSED = ParseMemo(BUDGET_BYTES)
