"""A Store wrapper that serialises calls, for a daemon where API threads and sync
workers share one store (qdrant-client's local mode is not thread-safe)."""

from __future__ import annotations

import threading
from collections.abc import Iterator, Sequence
from typing import Any

from recalld.ingest.store import MemoryFilter, ScoredMemory, SparseVector, Store, StoredPoint


class LockedStore:
    def __init__(self, inner: Store) -> None:
        self._inner = inner
        self._lock = threading.RLock()
        self.dim = inner.dim

    def upsert(self, points: Sequence[StoredPoint]) -> None:
        with self._lock:
            self._inner.upsert(points)

    def set_payload(self, ids: Sequence[str], payload: dict[str, Any]) -> None:
        with self._lock:
            self._inner.set_payload(ids, payload)

    def retrieve(self, ids: Sequence[str], *, fields: Sequence[str] | None = None) -> list[StoredPoint]:
        with self._lock:
            return self._inner.retrieve(ids, fields=fields)

    def get_vectors(self, ids: Sequence[str]) -> dict[str, list[float]]:
        with self._lock:
            return self._inner.get_vectors(ids)

    def set_vectors(self, vectors: dict[str, list[float]]) -> None:
        with self._lock:
            self._inner.set_vectors(vectors)

    def scroll(self, flt: MemoryFilter, *, fields: Sequence[str] | None = None) -> Iterator[StoredPoint]:
        with self._lock:
            points = list(self._inner.scroll(flt, fields=fields))
        return iter(points)

    def count(self, flt: MemoryFilter) -> int:
        with self._lock:
            return self._inner.count(flt)

    def search(self, vector: Sequence[float], flt: MemoryFilter, limit: int) -> list[ScoredMemory]:
        with self._lock:
            return self._inner.search(vector, flt, limit)

    def hybrid_search(
        self, dense: Sequence[float] | None, sparse: SparseVector | None, flt: MemoryFilter, limit: int
    ) -> list[ScoredMemory]:
        with self._lock:
            return self._inner.hybrid_search(dense, sparse, flt, limit)

    def delete(self, ids: Sequence[str]) -> None:
        with self._lock:
            self._inner.delete(ids)

    def flush(self) -> None:
        with self._lock:
            self._inner.flush()

    def unindexed(self) -> int:
        with self._lock:
            return self._inner.unindexed()

    def optimize(self) -> None:
        with self._lock:
            self._inner.optimize()

    def upgrade(self) -> bool:
        with self._lock:
            return self._inner.upgrade()

    def close(self) -> None:
        with self._lock:
            self._inner.close()
