"""Wiring: config → registry, store, embeddings, indexer. Heavy parts open lazily, and
are imported when first used: a command that only reads the store (``outline``,
``symbol`` with no daemon running) loads neither numpy nor the sync's modules."""

from __future__ import annotations

import os
from collections.abc import Callable
from functools import cached_property
from typing import TYPE_CHECKING

from recalld.daemon.config import Config
from recalld.daemon.registry import RepoRegistry
from recalld.ingest.embed import DEFAULT_MODEL, Embedder
from recalld.ingest.errors import DaemonStartedError, RecalldError
from recalld.ingest.store import Store, StoreConfig, StoreLockedError, open_store

if TYPE_CHECKING:  # the backends', numpy's and the sync's: imported where first used
    from recalld.ingest.embed_cache import CachedEmbeddings, EmbeddingCache
    from recalld.ingest.embed_select import Choice
    from recalld.ingest.sync import Indexer

# Dimensions of models we know without loading them.
KNOWN_DIMS = {DEFAULT_MODEL: 384}


class App:
    def __init__(self, config: Config, *, notice: Callable[[str], None] | None = None) -> None:
        """``notice`` tells the person at a command about slow one-time work (the model's export)."""
        self.config = config
        self._notice = notice
        self._embedder: Embedder | None = None

    @cached_property
    def registry(self) -> RepoRegistry:
        return RepoRegistry(self.config.state_db)

    @cached_property
    def backend(self) -> Choice:
        """The embedding backend; may export the ONNX model on first use (see embed_select)."""
        from recalld.ingest.embed_select import choose_backend

        return choose_backend(self.config.embedding_settings(), notice=self._notice)

    def embedder(self) -> Embedder:
        if self._embedder is None:
            from recalld.ingest.embed_select import build_embedder

            self._embedder = build_embedder(self.config.embedding_settings(), self.backend)
        return self._embedder

    @cached_property
    def model_id(self) -> str:
        return self.backend.model_id

    @cached_property
    def space(self) -> str:
        """The configured vectors' space (ingest/revector.py), known without a model."""
        from recalld.ingest.embed_select import vector_space

        return vector_space(self.config.embedding_settings())

    @cached_property
    def dim(self) -> int:
        model = self.config.get("embedding", "model")
        return KNOWN_DIMS.get(model) or self.embedder().dim

    @cached_property
    def store(self) -> Store:
        config = StoreConfig(
            dim=self.dim,
            path=None if self.config.store_url else str(self.config.store_path),
            url=self.config.store_url,
            api_key=self.config.store_api_key,
            collection=self.config.get("store", "collection"),
            min_free_mb=self.config.get("store", "min_free_mb"),
            seal_over=self.config.get("store", "seal_over"),
        )
        try:
            return open_store(config)
        except StoreLockedError as exc:
            started = self._daemon_meanwhile()
            if started is not None:  # asked by the command run again (``context.run_command``)
                raise DaemonStartedError(f"{exc}; the daemon (pid {started}) started meanwhile: run the command"
                                         " again to ask it") from exc  # fmt: skip
            raise RecalldError(str(exc)) from exc

    def _daemon_meanwhile(self) -> int | None:
        """The pid of the daemon that holds the store where it took it since this command
        looked for one (it started in between), else None."""
        from recalld.daemon.client import STARTING_SUFFIX, live_runtime

        runtime = self.config.runtime_file
        for path in (runtime, runtime.with_suffix(STARTING_SUFFIX)):
            daemon = live_runtime(path)
            if daemon is not None and daemon["pid"] != os.getpid():
                return int(daemon["pid"])
        return None

    @cached_property
    def embedding_cache(self) -> EmbeddingCache:
        from recalld.ingest.embed_cache import EmbeddingCache

        return EmbeddingCache(self.config.embedding_cache)

    @cached_property
    def embeddings(self) -> CachedEmbeddings:
        from recalld.ingest.embed_cache import CachedEmbeddings

        return CachedEmbeddings(self.embedding_cache, self.model_id, self.embedder, space=self.space)

    @cached_property
    def indexer(self) -> Indexer:
        from recalld.ingest.sync import Indexer

        return Indexer(store=self.store, embeddings=self.embeddings, options=self.config.index_options())

    def close(self) -> None:
        if "store" in self.__dict__:
            self.store.close()
        if "registry" in self.__dict__:
            self.registry.close()
        if "embedding_cache" in self.__dict__:  # its database files tidied (WAL checkpointed)
            self.embedding_cache.close()
