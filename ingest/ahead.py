"""Embedding ahead of the writer.

A sync knows which texts it will need as soon as a file is parsed. ``EmbedAhead`` turns
them into vectors on one background thread, in the order they were submitted, while
the sync's own thread goes on parsing, planning and writing; the writer then asks for
its batch with ``vectors`` (the same call as ``CachedEmbeddings.vectors``) and waits
only for what is not computed yet.

Only vectors go through here; nothing is written to the store, so a sync that fails
anywhere leaves no trace but warm cache entries. An error on the thread is raised to
the thread that asks for vectors; ``close`` stops the thread after its current chunk.
"""

from __future__ import annotations

import sys
import threading
from collections import deque
from collections.abc import Callable, Iterable, Sequence
from contextlib import ExitStack
from types import TracebackType

import numpy as np

from recalld.ingest.embed import Progress
from recalld.ingest.embed_cache import CachedEmbeddings
from recalld.ingest.errors import RecalldError
from recalld.ingest.plan import ADDED, FileSymbols, NewVersion, Scope, memory_id
from recalld.ingest.records import model_chars
from recalld.ingest.redaction import redacted_text
from recalld.ingest.writer import draft_text
from recalld.parsers.base import memory_type

# Texts per call into the model. Large, because the model pads each of its batches to
# its longest text after sorting a call's texts by length: chunks of 256 ran ~14 %
# slower than one call over the same texts (generated repo, torch backend). And each
# call leaves a core idle for ~40-70 ms (tokenising in halves, sorting, its last batch):
# Django's full index with calls of 2,048 idled 3.2 / 3.2 core-seconds against 4.4 / 3.9
# with 1,024 (alternating runs). A call's vectors reach the writer when the call ends,
# so once the queue runs short, a call takes half of what is left (at least MIN_CHUNK):
# the writer stores one part while the model computes the next, instead of storing the
# last chunk alone after the model is done.
CHUNK = 2048
MIN_CHUNK = 128
MAX_READY = 4096  # computed vectors held for the writer before the thread pauses
# The thread and the model's workers need the GIL for a moment between batches. While the
# sync's thread parses (Python through and through), each of those moments waited a whole
# switch interval (5 ms by default): parsing a 10k-symbol tree kept the model waiting 1.3 s
# for its first batch. At 1 ms the model starts at once (measured: its raw rate unchanged);
# at 0.25 ms its workers, which take the GIL a few times a batch, idle ~0.25 s less over a
# 30k-symbol index (1.87 / 1.76 → 1.62 / 1.53 s, alternating runs), the sync's CPU the same.
SWITCH_INTERVAL = 0.00025


class EmbedAhead:
    def __init__(
        self, embeddings: CachedEmbeddings, *, chunk: int | None = None, max_ready: int | None = None
    ) -> None:
        self._embeddings = embeddings
        self._chunk = chunk or CHUNK
        self._max_ready = max_ready or MAX_READY
        self._cond = threading.Condition()
        # Texts are their own keys (Python caches a str's hash; the cache's sha256 is
        # computed once, inside CachedEmbeddings).
        self._queue: deque[str] = deque()  # submitted, not started yet
        self._pending: set[str] = set()  # submitted, not finished
        # every text ever submitted, by its hash: a full index of the Linux kernel submits
        # ~1M texts, ~0.6 GB held as strings. A text whose hash collides is not queued, and
        # the writer then has it from the cache or the model itself.
        self._seen: set[int] = set()
        self._queued = 0  # texts queued so far
        self._finished = 0  # of those, the model's thread finished (in the order queued)
        self._ready: dict[str, np.ndarray] = {}  # computed, not taken by the writer yet
        self._waiting = 0  # callers blocked in vectors()
        self._error: BaseException | None = None
        self._closed = False
        self._thread: threading.Thread | None = None
        self.embedded = 0  # texts the model computed, on the thread and in vectors()
        self._reported = 0  # of those, how many vectors() has reported
        self._scope = ExitStack()

    def __enter__(self) -> EmbedAhead:
        self._scope.enter_context(self._embeddings.writing_behind())  # the model never waits for SQLite
        return self

    def __exit__(self, _t: type[BaseException] | None, _e: BaseException | None, _tb: TracebackType | None) -> None:
        self.close()

    def submit(self, texts: Iterable[str]) -> None:
        """Queue texts to embed (duplicates and texts queued before are ignored)."""
        with self._cond:
            if self._closed:
                return
            for text in texts:
                key = hash(text)
                if key not in self._seen:
                    self._seen.add(key)
                    self._pending.add(text)
                    self._queue.append(text)
                    self._queued += 1
            if self._queue and self._thread is None:
                if sys.getswitchinterval() > SWITCH_INTERVAL:
                    sys.setswitchinterval(SWITCH_INTERVAL)  # for the process: see SWITCH_INTERVAL
                self._thread = threading.Thread(target=self._run, name="recalld-embed-ahead", daemon=True)
                self._thread.start()
            self._cond.notify_all()

    def mark(self) -> int:
        """Where the queue ends now: ``done(mark)`` once every text queued before is computed."""
        with self._cond:
            return self._queued

    def done(self, mark: int) -> bool:
        """Whether every text queued before ``mark`` is computed (so a writer asking for
        their vectors would not wait), or the thread failed (the writer asks and is told)."""
        with self._cond:
            return self._finished >= mark or self._error is not None

    def vectors(self, texts: Sequence[str], *, progress: Progress | None = None) -> tuple[list[np.ndarray], int]:
        """Vectors for ``texts``, and how many texts the model computed since the last
        call (summed over a sync's calls: every text it computed, each once).

        Waits for submitted texts still being computed; texts never submitted come from
        the cache or the model right here."""
        with self._cond:
            self._waiting += 1
            self._cond.notify_all()
            try:
                while self._error is None and any(t in self._pending for t in texts):
                    self._cond.wait()
            finally:
                self._waiting -= 1
            if isinstance(self._error, RecalldError):  # the model cannot load: said as it was (a line, not a traceback)
                raise RecalldError(self._error.message) from self._error
            if self._error is not None:
                raise RuntimeError("embedding thread failed") from self._error
            found = {t: self._ready.pop(t) for t in dict.fromkeys(texts) if t in self._ready}
            self._cond.notify_all()
        rest = [t for t in dict.fromkeys(texts) if t not in found]
        if rest:  # taken by an earlier call (a text asked for twice), or never submitted
            found.update(self._embeddings.cached(rest))
            rest = [t for t in rest if t not in found]
        fresh = 0
        if rest:
            vectors, fresh = self._embeddings.vectors(rest)
            found.update(zip(rest, vectors))
        with self._cond:
            self.embedded += fresh
            computed, self._reported = self.embedded - self._reported, self.embedded
        if progress is not None:
            progress(len(texts))
        return [found[t] for t in texts], computed

    def close(self) -> None:
        """Stop the thread (after the chunk it is computing) and drop what is left; every
        computed vector is in the cache once it returns."""
        with self._cond:
            self._closed = True
            self._queue.clear()
            self._cond.notify_all()
            thread = self._thread
        if thread is not None:
            thread.join()
        self._scope.close()

    def _run(self) -> None:
        while True:
            with self._cond:
                while not self._closed and (not self._queue or self._full()):
                    self._cond.wait()
                if self._closed:
                    return
                size = min(self._chunk, max(MIN_CHUNK, (len(self._queue) + 1) // 2), len(self._queue))
                chunk = [self._queue.popleft() for _ in range(size)]
            try:
                vectors, fresh = self._embeddings.vectors(chunk, batch=len(chunk))  # one call into the model
            except BaseException as exc:  # noqa: BLE001 - handed to the waiting writer
                with self._cond:
                    self._error = exc
                    self._cond.notify_all()
                return
            with self._cond:
                for text, vector in zip(chunk, vectors):
                    self._ready[text] = vector
                    self._pending.discard(text)
                self._finished += len(chunk)
                self.embedded += fresh
                self._cond.notify_all()

    def _full(self) -> bool:
        """Pause while enough vectors wait for the writer, unless it is waiting too."""
        return len(self._ready) >= self._max_ready and not self._waiting


class NewTexts:
    """Queues the texts of parsed symbols that will be new versions on an ``EmbedAhead``,
    in the order ``write_plan`` writes them: files in path order, modules after all the
    rest. A wrong guess costs nothing but time: the writer asks for what it needs.

    ``reopened``, when set, tells which of a file's new ids are stored closed points
    that come back by a state update (a reset, a revert): their texts are not queued,
    which saved redacting ~5k texts that would only be found in the cache on each way of
    Django's 50-release reset (an incremental sync sets it; a full index has nothing
    stored to ask about)."""

    def __init__(self, ahead: EmbedAhead, scope: Scope, *, max_chars: int, test_chars: int) -> None:
        self._ahead = ahead
        self._scope = scope
        self._max_chars, self._test_chars = max_chars, test_chars
        self._modules: list[str] = []
        self.live_ids = LiveIds(())  # live memories of the touched paths
        self.reopened: Callable[[list[str]], set[str]] | None = None

    def __call__(self, file: FileSymbols) -> None:
        scope = self._scope
        new = [(memory_id(scope, file.path, s.kind, s.qualname, s.content_hash), s) for s in file.symbols]
        if new and self.live_ids:  # live: the plan leaves it alone
            new = [pair for pair, absent in zip(new, self.live_ids.absent([mid for mid, _ in new])) if absent]
        if new and self.reopened is not None:
            back = self.reopened([mid for mid, _ in new])
            new = [(mid, sym) for mid, sym in new if mid not in back]
        texts: list[str] = []
        for mid, sym in new:
            # exactly what vectorise will embed: the draft's text, secrets redacted, as much as the model reads
            text = redacted_text(draft_text(NewVersion(mid, file, sym, mid, ADDED), max_chars=self._max_chars))
            text = text[: model_chars(file.path, memory_type(sym.kind), self._test_chars)]
            (self._modules if sym.kind == "module" else texts).append(text)
        self._ahead.submit(texts)

    def finish(self) -> None:
        self._ahead.submit(self._modules)
        self._modules = []


class LiveIds:
    """The ids of the live memories a sync compares its files with, as the ids' 64-bit
    hashes: 63 bytes an id, where a set of the id strings took 113 (the 1.1M memories of
    the whole Linux kernel: ~70 MB against ~125). A sorted array of them took 8 bytes an
    id, but a binary search's cache misses for each: a ``--full`` compare of 300k
    memories took 4 % longer. Two ids may share a hash: a new version is then taken for
    live and its text not queued ahead, and the writer has its vector from the cache or
    the model itself, as any text not queued."""

    def __init__(self, hashes: Iterable[int]) -> None:
        self._hashes = set(hashes)

    @classmethod
    def of(cls, ids: Iterable[str]) -> LiveIds:
        return cls(map(hash, ids))

    def __len__(self) -> int:
        return len(self._hashes)

    def absent(self, ids: Sequence[str]) -> list[bool]:
        """For each of ``ids``, whether no live memory has its hash."""
        held = self._hashes
        return [hash(i) not in held for i in ids]
