from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from recalld.ingest.embed_cache import CachedEmbeddings, EmbeddingCache
from recalld.ingest.files import IndexOptions
from recalld.ingest.store import Store, StoreConfig
from recalld.ingest.sync import Indexer
from tests.conftest import FakeEmbedder


def open_test_store(kind: str, path: Path, dim: int, **config: Any) -> Store:
    if kind == "edge":
        from recalld.ingest.store_edge import QdrantEdgeStore

        return QdrantEdgeStore(StoreConfig(dim=dim, path=str(path / "edge"), **config))
    from qdrant_client import QdrantClient

    from recalld.ingest.store_server import QdrantServerStore

    client = QdrantClient(path=str(path / "local"))
    return QdrantServerStore(StoreConfig(dim=dim, url="local"), client=client)


# Payload fields a write's clock sets: two runs of the same syncs differ in them alone.
WRITE_TIMES = frozenset({"indexed_at", "valid_from_sync", "valid_to_sync"})


def without_write_times(payload: dict[str, Any]) -> dict[str, Any]:
    """``payload`` without ``WRITE_TIMES``, in it and in each interval of its history."""
    kept = {k: v for k, v in payload.items() if k not in WRITE_TIMES}
    if kept.get("history"):
        kept["history"] = [without_write_times(entry) for entry in kept["history"]]
    return kept


class StoreWrapper:
    """A store that passes everything through to ``inner``, with hooks around each write
    (``before_write`` may raise, as a failing disk or a kill would)."""

    WRITES = frozenset({"upsert", "set_payload", "set_vectors", "delete"})

    def __init__(self, inner: Store) -> None:
        self._inner = inner

    def before_write(self, name: str, args: tuple) -> None:  # type: ignore[type-arg]
        pass

    def after_write(self, name: str, args: tuple) -> None:  # type: ignore[type-arg]
        pass

    def __getattr__(self, name):  # type: ignore[no-untyped-def]
        attr = getattr(self._inner, name)
        if name not in self.WRITES:
            return attr

        def write(*args, **kwargs):  # type: ignore[no-untyped-def]
            self.before_write(name, args)
            result = attr(*args, **kwargs)
            self.after_write(name, args)
            return result

        return write


class FailingWrite(StoreWrapper):
    """Passes calls through, but the ``on_call``-th ``write`` (``upsert``, ``set_vectors``,
    ...) raises ``error`` instead of writing: a full disk, or a kill as the store sees it."""

    def __init__(self, inner: Store, *, write: str, on_call: int, error: Exception) -> None:
        super().__init__(inner)
        self._write, self._left, self._error = write, on_call, error

    def before_write(self, name: str, args: tuple) -> None:  # type: ignore[type-arg]
        if name == self._write:
            self._left -= 1
            if self._left == 0:
                raise self._error


class Harness:
    """An Indexer on a real store with the fake embedder, and ways to look inside."""

    def __init__(self, kind: str, root: Path, options: IndexOptions | None = None, **store: Any) -> None:
        self.embedder = FakeEmbedder()
        self.store = open_test_store(kind, root, FakeEmbedder.dim, **store)
        self.cache = EmbeddingCache(root / "embeddings.db")
        self.embeddings = CachedEmbeddings(self.cache, FakeEmbedder.model_id, lambda: self.embedder)
        self.indexer = Indexer(store=self.store, embeddings=self.embeddings, options=options or IndexOptions())

    def sync(self, repo, **kw):  # type: ignore[no-untyped-def]
        return self.indexer.sync(repo="r", path=str(repo.path), branch="main", **kw)

    def memories(self, *, deprecated: int | None = 0, types: tuple[str, ...] | None = None) -> list:  # type: ignore[type-arg]
        """Memories of repo "r": those the planner keeps in line with the files unless
        ``types`` says otherwise (task memories follow commits; () = every type)."""
        from recalld.ingest.records import PLANNED_TYPES
        from recalld.ingest.store import MemoryFilter

        wanted = PLANNED_TYPES if types is None else types
        return list(self.store.scroll(MemoryFilter(repo="r", types=wanted, deprecated=deprecated)))

    def checkpoint(self) -> dict:  # type: ignore[type-arg]
        """The checkpoint of repo "r", branch main."""
        from recalld.ingest.plan import Scope
        from recalld.ingest.records import checkpoint_id

        return self.store.retrieve([checkpoint_id(Scope("r", "main"))])[0].payload

    def close(self) -> None:
        self.store.close()
        self.cache.close()


def fresh_memories(
    repo: Any, root: Path, key: Callable[[dict[str, Any]], Any], options: IndexOptions | None = None
) -> set[Any]:
    """What a fresh index of ``repo``'s branch holds, ``key`` of each live memory's
    payload: made in a store of its own under ``root``, closed after."""
    fresh = Harness("edge", root, options or IndexOptions())
    try:
        fresh.sync(repo)
        return {key(m.payload) for m in fresh.memories()}
    finally:
        fresh.close()


@pytest.fixture(params=["edge", "server"])
def harness(request: pytest.FixtureRequest, tmp_path: Path):
    h = Harness(request.param, tmp_path / "state")
    yield h
    h.close()
