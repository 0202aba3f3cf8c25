"""A model (or text length) changed in config: every stored memory is embedded again."""

from __future__ import annotations

import uuid

import numpy as np
import pytest

from recalld.ingest.embed_cache import CachedEmbeddings
from recalld.ingest.errors import RecalldError
from recalld.ingest.files import IndexOptions
from recalld.ingest.result import NoProgress
from recalld.ingest.revector import MARKER_ID, ensure_space, stored_space
from recalld.ingest.store import MemoryFilter, StoredPoint
from recalld.ingest.sync import Indexer
from tests.conftest import FakeEmbedder, GitRepo
from tests.ingest.conftest import FailingWrite, Harness

EVERY_MEMORY = MemoryFilter(record="memory", deprecated=None)


class OtherModel(FakeEmbedder):
    """Another model of the same dimension: other vectors for the same texts."""

    model_id = "other-model"

    def encode(self, texts):  # type: ignore[no-untyped-def]
        return super().encode([f"other\x00{t}" for t in texts])


def embeddings_of(h: Harness, embedder: FakeEmbedder) -> CachedEmbeddings:
    return CachedEmbeddings(h.cache, embedder.model_id, lambda: embedder)


def history(h: Harness, repo) -> None:  # type: ignore[no-untyped-def]
    """Two synced commits: live, closed and task memories."""
    repo.write("app/core.py", 'def f():\n    """Adds."""\n    return 1\n\n\nclass K:\n    def m(self):\n        return 2\n')
    repo.write("app/old.py", "def gone():\n    return 0\n")
    repo.commit("first")
    h.sync(repo)
    repo.remove("app/old.py")
    repo.write("app/core.py", "def f():\n    return 10\n")
    repo.commit("second: closes gone, K and K.m")
    h.sync(repo)


def note(text: str, vector: np.ndarray) -> StoredPoint:
    """A memory no sync owns (as `recalld remember` writes one)."""
    payload = {"record": "memory", "type": "note", "kind": "manual", "repo": None, "branch": None, "text": text,
               "deprecated": 0}  # fmt: skip
    return StoredPoint(str(uuid.uuid4()), payload, vector.tolist())


def assert_vectors_of(h: Harness, embedder: FakeEmbedder) -> int:
    """Every memory's vector is ``embedder``'s of its stored text; how many memories."""
    points = list(h.store.scroll(EVERY_MEMORY, fields=("text",)))
    stored = h.store.get_vectors([p.id for p in points])
    expected = embedder.encode([p.payload["text"] for p in points])
    for point, vector in zip(points, expected):
        assert stored[point.id] == pytest.approx(vector.tolist(), abs=1e-6), point.payload["text"]
    return len(points)


def test_a_new_model_embeds_every_memory_again_closed_task_and_manual_ones_too(harness, git_repo):
    history(harness, git_repo)
    harness.store.upsert([note("prefer small commits", harness.embedder.encode(["prefer small commits"])[0])])
    memories = harness.store.count(EVERY_MEMORY)
    kinds = {(p.payload["type"], p.payload["deprecated"]) for p in harness.store.scroll(EVERY_MEMORY)}
    assert {("structural", 1), ("task", 0), ("note", 0)} <= kinds
    assert stored_space(harness.store) == (True, FakeEmbedder.model_id)

    other = OtherModel()
    indexer = Indexer(store=harness.store, embeddings=embeddings_of(harness, other), options=IndexOptions())
    result = indexer.sync(repo="r", path=str(git_repo.path), branch="main")
    assert result.mode == "noop" and result.reembedded == memories
    assert result.summary().startswith(f"re-embedded {memories} memories")
    assert assert_vectors_of(harness, other) == memories
    assert stored_space(harness.store) == (True, "other-model")

    # the same model again: nothing embedded, the model not even loaded
    again = OtherModel()
    indexer = Indexer(store=harness.store, embeddings=embeddings_of(harness, again), options=IndexOptions())
    assert indexer.sync(repo="r", path=str(git_repo.path), branch="main").reembedded == 0
    assert again.calls == []


def test_a_reembedding_done_by_a_sync_of_a_branch_with_no_commit_yet_is_said(harness, git_repo, tmp_path):
    """The process's first sync embeds the store again, whichever repository it is of:
    one of a branch with no commit yet (the first registered, by name) said nothing of it."""
    history(harness, git_repo)
    memories = harness.store.count(EVERY_MEMORY)
    empty = GitRepo(tmp_path / "empty")
    indexer = Indexer(store=harness.store, embeddings=embeddings_of(harness, OtherModel()), options=IndexOptions())
    result = indexer.sync(repo="e", path=str(empty.path), branch="main")
    assert result.reembedded == memories
    assert result.summary() == (f"re-embedded {memories} memories for the configured model; synced e@main: the"
                                " branch has no commit yet, nothing to index")  # fmt: skip


def test_a_reembedding_done_before_a_sync_failed_is_said_by_the_next_sync(harness, git_repo, tmp_path):
    """`recalld sync` whose first repository's path was gone re-embedded the store before
    that sync failed, and none of the others said so."""
    history(harness, git_repo)
    memories = harness.store.count(EVERY_MEMORY)
    indexer = Indexer(store=harness.store, embeddings=embeddings_of(harness, OtherModel()), options=IndexOptions())
    with pytest.raises(RecalldError):
        indexer.sync(repo="gone", path=str(tmp_path / "gone"), branch="main")
    assert stored_space(harness.store) == (True, "other-model")
    assert indexer.sync(repo="r", path=str(git_repo.path), branch="main").reembedded == memories
    assert indexer.sync(repo="r", path=str(git_repo.path), branch="main").reembedded == 0


def test_a_store_without_a_marker_is_taken_to_be_of_the_configured_model(harness, git_repo):
    history(harness, git_repo)
    harness.store.delete([MARKER_ID])  # as a store an earlier version wrote
    assert ensure_space(harness.store, embeddings_of(harness, OtherModel()), test_chars=0, progress=NoProgress()) == 0
    assert stored_space(harness.store) == (True, "other-model")
    assert assert_vectors_of(harness, harness.embedder)


def killed_at_second_update(store):  # type: ignore[no-untyped-def]
    """The store as a re-embedding killed after writing one page of vectors sees it."""
    return FailingWrite(store, write="set_vectors", on_call=2, error=RuntimeError("killed"))


def test_an_interrupted_reembedding_is_done_again_whichever_model_comes_next(harness, git_repo, monkeypatch):
    monkeypatch.setattr("recalld.ingest.revector.PAGE", 4)  # several pages, one written before the failure
    history(harness, git_repo)
    memories = harness.store.count(EVERY_MEMORY)
    assert memories > 8
    failing = killed_at_second_update(harness.store)
    with pytest.raises(RuntimeError, match="killed"):
        ensure_space(  # type: ignore[arg-type]
            failing, embeddings_of(harness, OtherModel()), test_chars=0, progress=NoProgress()
        )
    assert stored_space(harness.store) == (True, None)  # mixed: no space named
    # back to the first model: the page that was re-embedded must not keep the other's vectors
    back = FakeEmbedder()
    assert ensure_space(harness.store, embeddings_of(harness, back), test_chars=0, progress=NoProgress()) == memories
    assert assert_vectors_of(harness, back) == memories
    assert stored_space(harness.store) == (True, FakeEmbedder.model_id)


def test_a_reembedding_done_again_computes_only_what_it_had_not(harness, git_repo, monkeypatch):
    monkeypatch.setattr("recalld.ingest.revector.PAGE", 4)
    history(harness, git_repo)
    other = OtherModel()
    killed = killed_at_second_update(harness.store)
    with pytest.raises(RuntimeError):
        ensure_space(killed, embeddings_of(harness, other), test_chars=0, progress=NoProgress())
    first = sum(other.calls)
    assert ensure_space(harness.store, embeddings_of(harness, other), test_chars=0, progress=NoProgress()) > 0
    texts = {p.payload["text"] for p in harness.store.scroll(EVERY_MEMORY, fields=("text",))}
    assert sum(other.calls) == len(texts)  # each distinct text computed once over both runs
    assert first > 0


def test_the_space_names_the_model_and_what_it_reads_not_the_backend(tmp_path):
    from recalld.ingest.embed_select import EmbeddingSettings, vector_space

    def space(**options: object) -> str:
        return vector_space(EmbeddingSettings(model_cache=tmp_path, **options))  # type: ignore[arg-type]

    assert space() == space(backend="torch") == space(backend="onnx") == space(device="cuda")
    spaces = {space(), space(max_tokens=64), space(max_tokens=128), space(model="/models/other"), space(words_only=False),
              space(test_max_chars=0), space(test_max_chars=300)}  # fmt: skip
    assert len(spaces) == 7
