"""The content-addressed cache of vectors, (model id, text hash) → vector in SQLite, and
``CachedEmbeddings``, which serves a text's vector from it or embeds it once."""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path

import numpy as np

from recalld.daemon.logs import get_logger
from recalld.ingest.embed import Embedder, Progress, text_hash

log = get_logger("recalld.embed")


class EmbeddingCache:
    """(model id, text hash) → vector, in SQLite; shared by every repo and branch.

    An ordinary rowid table with a unique index on (model, text hash): a lookup, hit or
    miss, reads the small index's pages and a hit one row. (Caches before kept the
    vectors inside a WITHOUT ROWID primary key, whose ~1.6 KB rows fill a page with two:
    a lookup read ~6x the pages, 1,024 lookups took ~15 ms before each of a sync's model
    calls, and the file was twice the size. Such a cache is converted when opened.)"""

    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        self._db = sqlite3.connect(str(path), timeout=30, check_same_thread=False)
        self._lock = threading.Lock()
        with self._lock:
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=NORMAL")
            self._db.execute(
                "CREATE TABLE IF NOT EXISTS vectors (model TEXT NOT NULL, text_hash TEXT NOT NULL,"
                " vector BLOB NOT NULL, UNIQUE (model, text_hash))"
            )
            self._db.commit()
            self._convert_old_layout()

    def _convert_old_layout(self) -> None:
        """Moves the vectors of a cache an earlier version made into ``vectors``, once:
        under SQLite's write lock, so of two processes opening it the second finds it done.
        A cache of the current layout is only read (every sync opens it a second time, for
        its writes behind the model): no write lock taken."""
        if not self._has_old_table():
            return
        self._db.execute("BEGIN IMMEDIATE")
        try:
            if self._has_old_table():
                log.info("embedding cache: converting to the current layout, once", path=str(self.path))
                moved = self._db.execute(
                    "INSERT OR IGNORE INTO vectors (model, text_hash, vector)"
                    " SELECT model, text_hash, vector FROM embeddings"
                ).rowcount
                self._db.execute("DROP TABLE embeddings")
                log.info("embedding cache converted to its current layout", path=str(self.path), vectors=moved)
            self._db.commit()
        except BaseException:
            self._db.rollback()
            raise

    def _has_old_table(self) -> bool:
        query = "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'embeddings'"
        return self._db.execute(query).fetchone() is not None

    def get_many(self, model_id: str, hashes: Sequence[str]) -> dict[str, np.ndarray]:
        found: dict[str, np.ndarray] = {}
        unique = list(dict.fromkeys(hashes))
        with self._lock:
            for start in range(0, len(unique), 500):
                chunk = unique[start : start + 500]
                marks = ",".join("?" * len(chunk))
                rows = self._db.execute(
                    f"SELECT text_hash, vector FROM vectors WHERE model = ? AND text_hash IN ({marks})",
                    (model_id, *chunk),
                )
                for digest, blob in rows:
                    found[digest] = np.frombuffer(blob, dtype=np.float32)
        return found

    def put_many(self, model_id: str, items: dict[str, np.ndarray]) -> None:
        with self._lock:
            self._db.executemany(
                "INSERT OR REPLACE INTO vectors (model, text_hash, vector) VALUES (?, ?, ?)",
                [(model_id, h, np.asarray(v, dtype=np.float32).tobytes()) for h, v in items.items()],
            )
            self._db.commit()

    def close(self) -> None:
        with self._lock:
            self._db.close()


class WriteBehind:
    """Writes vectors to the cache on a thread of its own, through a connection of its
    own (WAL: the reader is never blocked), in order. Until written they are served from
    memory. A sync's model would otherwise wait ~65 ms per 1,024 vectors for SQLite
    before its next call. A failed write is logged, not raised: the vectors are in the
    store, and a text the cache lacks is only embedded again."""

    def __init__(self, cache: EmbeddingCache) -> None:
        self._cache = EmbeddingCache(cache.path)
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="recalld-cache-write")
        self._lock = threading.Lock()
        self._pending: dict[tuple[str, str], np.ndarray] = {}
        self._writes: list[Future[None]] = []

    def put(self, model_id: str, items: dict[str, np.ndarray]) -> None:
        with self._lock:
            self._pending.update(((model_id, digest), vector) for digest, vector in items.items())
        self._writes.append(self._pool.submit(self._write, model_id, items))

    def get(self, model_id: str, hashes: Sequence[str]) -> dict[str, np.ndarray]:
        with self._lock:
            return {d: v for d in hashes if (v := self._pending.get((model_id, d))) is not None}

    def _write(self, model_id: str, items: dict[str, np.ndarray]) -> None:
        try:
            self._cache.put_many(model_id, items)
        except (sqlite3.Error, OSError) as exc:
            log.error("embedding cache write failed", path=str(self._cache.path), vectors=len(items), error=str(exc))
        finally:
            with self._lock:
                for digest in items:
                    self._pending.pop((model_id, digest), None)

    def close(self) -> None:
        """Wait for every write, then close the connection."""
        self._pool.shutdown(wait=True)
        try:
            for write in self._writes:
                write.result()  # anything but a database error (those are logged) is raised here
        finally:
            self._cache.close()


class CachedEmbeddings:
    """Vectors for texts: from the cache when seen before, else from the embedder.

    The embedder is created on first need only, so a sync with nothing new to embed
    never loads a model.
    """

    def __init__(
        self, cache: EmbeddingCache, model_id: str, factory: Callable[[], Embedder], *, space: str | None = None
    ) -> None:
        self._cache = cache
        self.model_id = model_id
        # What the vectors are comparable within (ingest/revector.py): by default the
        # cache key; the app's leaves out the backend, whose vectors agree to ~0.99.
        self.space = space or model_id
        self._factory = factory
        self._embedder: Embedder | None = None
        self._lock = threading.RLock()
        self._behind: WriteBehind | None = None
        self._behind_users = 0
        self.embedded = 0

    @property
    def embedder(self) -> Embedder:
        with self._lock:
            if self._embedder is None:
                self._embedder = self._factory()
                # The cache key is the producer's: a backend that fell back to another
                # files its vectors under its own id.
                self.model_id = self._embedder.model_id
            return self._embedder

    def release(self) -> None:
        """Let a loaded model give back memory it keeps between calls (its backend's
        ``release``, where it has one); the model stays loaded."""
        with self._lock:
            embedder = self._embedder
        release = getattr(embedder, "release", None)
        if release is not None:
            release()

    @contextmanager
    def writing_behind(self) -> Iterator[None]:
        """Within it (a sync), computed vectors are cached by a ``WriteBehind``: the model's
        next call does not wait for them to be written. On leaving, every write is done."""
        with self._lock:
            self._behind_users += 1  # the WriteBehind itself comes with the first vectors
        try:
            yield
        finally:
            with self._lock:
                self._behind_users -= 1
                behind = self._behind if self._behind_users == 0 else None
                if behind is not None:
                    self._behind = None
            if behind is not None:
                behind.close()

    def vectors(
        self, texts: Sequence[str], *, batch: int = 256, progress: Progress | None = None
    ) -> tuple[list[np.ndarray], int]:
        """Vectors for ``texts`` and how many of them had to be computed."""
        with self._lock:
            return self._vectors(texts, batch=batch, progress=progress)

    def cached(self, texts: Sequence[str]) -> dict[str, np.ndarray]:
        """The vectors of ``texts`` computed before (cached, or still being written), by
        text. Never waits for the model: ``vectors`` holds the lock through a model call
        (a chunk of an ``EmbedAhead``: seconds), and a writer that only needed a vector
        the cache had stood that long, while the model then paused for the writer."""
        by_hash = {text_hash(t): t for t in texts}
        return {by_hash[d]: v for d, v in self._known(list(by_hash)).items()}

    def _known(self, hashes: Sequence[str]) -> dict[str, np.ndarray]:
        # Vectors still being written first, then the cache: a vector leaves the former
        # only once it is in the latter, so none falls between the two. (The other way
        # round, a write that landed between the two lookups was computed again.)
        behind = self._behind
        known = behind.get(self.model_id, hashes) if behind is not None else {}
        if len(known) < len(hashes):
            known.update(self._cache.get_many(self.model_id, [d for d in hashes if d not in known]))
        return known

    def _vectors(self, texts: Sequence[str], *, batch: int, progress: Progress | None) -> tuple[list[np.ndarray], int]:
        hashes = [text_hash(t) for t in texts]
        known = self._known(hashes)
        behind = self._behind
        missing: dict[str, str] = {}
        for digest, text in zip(hashes, texts):
            if digest not in known:
                missing.setdefault(digest, text)
        if progress is not None:
            progress(len(texts) - len(missing))
        pending = list(missing.items())
        for start in range(0, len(pending), batch):
            chunk = pending[start : start + batch]
            rows = self.embedder.encode([text for _, text in chunk])
            fresh = {digest: rows[i] for i, (digest, _) in enumerate(chunk)}
            if self._behind_users:
                behind = self._behind = behind or WriteBehind(self._cache)
                behind.put(self.model_id, fresh)
            else:
                self._cache.put_many(self.model_id, fresh)
            known.update(fresh)
            self.embedded += len(chunk)
            if progress is not None:
                progress(len(chunk))
        return [known[d] for d in hashes], len(pending)
