"""The overlapped sync (embedding ahead on a thread, batched writes) stores exactly
what a one-step-at-a-time sync stores, and fails cleanly when either side fails."""

from __future__ import annotations

import sqlite3
import threading
import time
import uuid

import numpy as np
import pytest
import structlog

from recalld.ingest import ahead as ahead_module
from recalld.ingest import sync as sync_module
from recalld.ingest import writer as writer_module
from recalld.ingest.ahead import EmbedAhead, LiveIds
from recalld.ingest.embed import text_hash
from recalld.ingest.embed_cache import CachedEmbeddings, EmbeddingCache
from recalld.ingest.plan import Scope
from recalld.ingest.records import checkpoint_id
from tests.conftest import FakeEmbedder
from tests.ingest.conftest import FailingWrite, Harness, without_write_times
from tests.ingest.test_crash import build_history, second_commit


class NoAhead:
    """The sequential reference: nothing is embedded ahead, the writer asks for all."""

    def __init__(self, embeddings: CachedEmbeddings, **_kw: object) -> None:
        self._embeddings = embeddings
        self.embedded = 0

    def __enter__(self) -> NoAhead:
        return self

    def __exit__(self, *_exc: object) -> None:
        pass

    def submit(self, texts: object) -> None:
        pass

    def mark(self) -> int:
        return 0

    def done(self, mark: int) -> bool:
        return True  # nothing is queued

    def vectors(self, texts, *, progress=None):  # type: ignore[no-untyped-def]
        vectors, computed = self._embeddings.vectors(texts, progress=progress)
        self.embedded += computed
        return vectors, computed


def full_state(h: Harness) -> dict[str, tuple]:
    points = h.memories(deprecated=None)
    vectors = h.store.get_vectors([p.id for p in points])
    state = {}
    for p in points:
        payload = without_write_times(p.payload)
        state[p.id] = (repr(sorted(payload.items())), tuple(round(x, 5) for x in vectors[p.id]))
    return state


def ahead_threads() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name == "recalld-embed-ahead"]


@pytest.fixture
def small_batches(monkeypatch):
    """Many chunks and many write batches even on a small repository."""
    monkeypatch.setattr(ahead_module, "CHUNK", 7)
    monkeypatch.setattr(writer_module, "UPSERT_BATCH", 11)


@pytest.mark.parametrize("kind", ["edge", "server"])
def test_overlapped_sync_stores_what_a_sequential_sync_stores(git_repo, tmp_path, monkeypatch, small_batches, kind):
    overlapped = Harness(kind, tmp_path / "overlapped")
    with monkeypatch.context() as m:
        m.setattr(sync_module, "EmbedAhead", NoAhead)
        sequential = Harness(kind, tmp_path / "sequential")
        build_history(git_repo)
        first = sequential.sync(git_repo)
        second_commit(git_repo)
        second = sequential.sync(git_repo)
    git_repo.git("reset", "-q", "--hard", "HEAD~1")
    untimed = {"seconds": 0, "history_seconds": 0}
    assert overlapped.sync(git_repo).as_dict() | untimed == first.as_dict() | untimed
    git_repo.git("reset", "-q", "--hard", "HEAD@{1}")
    assert overlapped.sync(git_repo).as_dict() | untimed == second.as_dict() | untimed
    assert first.embedded > 0 and second.embedded > 0
    assert full_state(overlapped) == full_state(sequential)
    assert not ahead_threads()
    overlapped.close()
    sequential.close()


class FailingEmbedder(FakeEmbedder):
    def __init__(self, fail_on_call: int) -> None:
        super().__init__()
        self.fail_on_call = fail_on_call

    def encode(self, texts):  # type: ignore[no-untyped-def]
        if len(self.calls) + 1 == self.fail_on_call:
            self.calls.append(-1)
            raise ValueError("model exploded")
        return super().encode(texts)


def reference_state(git_repo, tmp_path) -> dict[str, tuple]:  # type: ignore[no-untyped-def]
    clean = Harness("edge", tmp_path / "clean")
    clean.sync(git_repo)
    state = full_state(clean)
    clean.close()
    return state


def checkpoint(h: Harness) -> dict:  # type: ignore[type-arg]
    return h.store.retrieve([checkpoint_id(Scope("r", "main"))])[0].payload


@pytest.mark.parametrize("fail_on_call", [1, 3])
def test_embedding_thread_failure_fails_the_sync_and_the_next_sync_converges(
    git_repo, tmp_path, small_batches, fail_on_call
):
    build_history(git_repo)
    expected = reference_state(git_repo, tmp_path)
    h = Harness("edge", tmp_path / "failing")
    h.embedder = FailingEmbedder(fail_on_call)
    with pytest.raises(RuntimeError, match="embedding thread failed") as info:
        h.sync(git_repo)
    assert isinstance(info.value.__cause__, ValueError)
    assert not ahead_threads()
    if fail_on_call > 1:  # batches were written before the failure: the sync is pending
        assert checkpoint(h)["pending"] == git_repo.head() and checkpoint(h)["commit"] is None
    h.embedder = FakeEmbedder()
    assert h.sync(git_repo).mode == "full"
    assert full_state(h) == expected
    assert h.sync(git_repo).mode == "noop"
    h.close()


@pytest.mark.parametrize("fail_on_upsert", [1, 2, 5])
def test_store_failure_mid_write_stops_the_embedding_thread(git_repo, tmp_path, small_batches, fail_on_upsert):
    build_history(git_repo)
    expected = reference_state(git_repo, tmp_path)
    h = Harness("edge", tmp_path / "failing")
    real_store = h.store
    h.indexer.store = FailingWrite(real_store, write="upsert", on_call=fail_on_upsert, error=OSError("disk full"))  # type: ignore[assignment]
    with pytest.raises(OSError, match="disk full"):
        h.sync(git_repo)
    assert not ahead_threads()
    found = real_store.retrieve([checkpoint_id(Scope("r", "main"))])
    assert not found or found[0].payload["commit"] is None
    h.indexer.store = real_store
    h.sync(git_repo)
    assert full_state(h) == expected
    h.close()


def make_embeddings(tmp_path, embedder: FakeEmbedder) -> CachedEmbeddings:  # type: ignore[no-untyped-def]
    return CachedEmbeddings(EmbeddingCache(tmp_path / "e.db"), embedder.model_id, lambda: embedder)


def test_embed_ahead_computes_each_text_once_and_in_order(tmp_path):
    embedder = FakeEmbedder()
    embeddings = make_embeddings(tmp_path, embedder)
    texts = [f"text {i}" for i in range(50)]
    with EmbedAhead(embeddings, chunk=8, max_ready=4) as ahead:
        ahead.submit(texts[:30])
        ahead.submit(texts[10:40] + texts[:5])  # duplicates are queued once
        got, computed = ahead.vectors(texts[:20])
        rest, computed_rest = ahead.vectors(texts[20:] + texts[:3])  # 40..49 never submitted
    direct = FakeEmbedder().encode(texts)
    assert np.allclose(np.stack(got + rest[:30]), direct)
    assert np.allclose(np.stack(rest[30:]), direct[:3])
    assert computed + computed_rest == 50 == ahead.embedded == sum(embedder.calls)
    assert max(embedder.calls[:-1]) <= 8 and embedder.calls[-1] == 10  # the last: texts never submitted
    embeddings._cache.close()


def test_embed_ahead_calls_shrink_as_the_queue_runs_short(tmp_path, monkeypatch):
    """The writer gets the last vectors in parts, so it stores one while the model computes the next."""
    monkeypatch.setattr(ahead_module, "MIN_CHUNK", 4)
    gate = threading.Event()

    class Gated(FakeEmbedder):
        def encode(self, texts):  # type: ignore[no-untyped-def]
            gate.wait(5)
            return super().encode(texts)

    embedder = Gated()
    embeddings = make_embeddings(tmp_path, embedder)
    texts = [f"text {i}" for i in range(100)]
    with EmbedAhead(embeddings, chunk=64) as ahead:
        ahead.submit(texts[:1])  # the thread starts and waits in its first call
        while ahead._queue:
            time.sleep(0.001)
        ahead.submit(texts[1:])
        gate.set()
        got, _ = ahead.vectors(texts)
    assert embedder.calls == [1, 50, 25, 12, 6, 4, 2]
    assert np.allclose(np.stack(got), FakeEmbedder().encode(texts))
    embeddings._cache.close()


def test_a_vector_asked_for_again_does_not_wait_for_the_model(tmp_path):
    """A text the writer asks for a second time (two symbols with the same text) comes
    from the cache, even while the model is busy with a chunk: waiting for the chunk
    (seconds, in a real sync) also paused the model, which waits for a writer behind it."""
    gate, busy = threading.Event(), threading.Event()

    class Gated(FakeEmbedder):
        def encode(self, texts):  # type: ignore[no-untyped-def]
            if "slow" in texts[0]:
                busy.set()
                assert gate.wait(10)
            return super().encode(texts)

    embedder = Gated()
    embeddings = make_embeddings(tmp_path, embedder)
    with EmbedAhead(embeddings, chunk=4) as ahead:
        ahead.submit(["twice"])
        first, _ = ahead.vectors(["twice"])
        ahead.submit(["slow 1", "slow 2"])
        assert busy.wait(10)  # the model is inside its call
        done: list[tuple[list[np.ndarray], int]] = []
        asker = threading.Thread(target=lambda: done.append(ahead.vectors(["twice"])))
        asker.start()
        asker.join(5)
        answered = bool(done)
        gate.set()
        asker.join(10)
    assert answered, "the second ask waited for the model's call"
    assert np.allclose(done[0][0][0], first[0]) and done[0][1] == 0
    embeddings._cache.close()


def test_embed_ahead_close_while_busy_does_not_hang(tmp_path):
    gate = threading.Event()

    class Slow(FakeEmbedder):
        def encode(self, texts):  # type: ignore[no-untyped-def]
            gate.wait(5)
            return super().encode(texts)

    embeddings = make_embeddings(tmp_path, Slow())
    ahead = EmbedAhead(embeddings, chunk=2)
    ahead.submit([f"t{i}" for i in range(100)])
    gate.set()
    ahead.close()
    assert not ahead_threads()
    ahead.submit(["after close"])  # ignored
    assert not ahead_threads()
    embeddings._cache.close()


class RecordingEmbedder(FakeEmbedder):
    def __init__(self) -> None:
        super().__init__()
        self.texts: list[str] = []

    def encode(self, texts):  # type: ignore[no-untyped-def]
        self.texts.extend(texts)
        return super().encode(texts)


def test_a_full_sync_embeds_every_memory_ahead_and_the_project_first(git_repo, tmp_path, small_batches):
    """Nothing is left for the writer's thread to embed, the task memories of the commits
    a first sync backfills included (read before the plan is written, their texts queued
    after the files'): it never waits on the model for a text it could have had computed
    ahead, and the model does not sit idle while the commits are read."""
    build_history(git_repo)
    h = Harness("edge", tmp_path / "state")
    h.embedder = ThreadRecordingEmbedder()
    result = h.sync(git_repo)
    on_writer = [t for name, texts in h.embedder.by_thread for t in texts if name != "recalld-embed-ahead"]
    assert on_writer == [] and result.tasks_added > 0
    ahead = [t for _, texts in h.embedder.by_thread for t in texts]
    tasks = [p.payload["text"] for p in h.memories(types=("task",))]
    assert set(tasks) <= set(ahead) and ahead[-len(tasks):] != [] and set(ahead[-len(tasks):]) == set(tasks)
    first_call = h.embedder.by_thread[0][1]
    assert first_call[0].startswith("Project structure")
    assert result.embedded == sum(len(texts) for _, texts in h.embedder.by_thread)
    h.close()


class ThreadRecordingEmbedder(FakeEmbedder):
    def __init__(self) -> None:
        super().__init__()
        self.by_thread: list[tuple[str, list[str]]] = []

    def encode(self, texts):  # type: ignore[no-untyped-def]
        self.by_thread.append((threading.current_thread().name, list(texts)))
        return super().encode(texts)


def test_embedding_ahead_never_sees_a_secret(git_repo, tmp_path, small_batches):
    token = "ghp_" + "R7kQ2mZx9LpW4vN8bT3sF6hJ1cY5dG0aUeIo"
    build_history(git_repo)
    git_repo.write("pkg/conf.py", f'def connect():\n    """Log in."""\n    return login("{token}")\n')
    git_repo.commit("with a token")
    h = Harness("edge", tmp_path / "state")
    h.embedder = RecordingEmbedder()
    result = h.sync(git_repo)
    assert result.embedded + result.history_embedded == len(h.embedder.texts)  # each once: ahead and writer agree
    assert h.embedder.texts and not any(token in t for t in h.embedder.texts)
    assert any("[REDACTED" in t for t in h.embedder.texts)
    h.close()


def test_vectors_are_cached_behind_the_model_and_all_written_on_leaving(tmp_path, monkeypatch):
    """Within a sync the model's next call does not wait for SQLite: a write still in
    progress holds nothing up, its vectors are served from memory meanwhile, and every
    one of them is in the cache once the sync's scope is left."""
    embedder = FakeEmbedder()
    embeddings = make_embeddings(tmp_path, embedder)
    release, writing = threading.Event(), threading.Event()
    put_many = EmbeddingCache.put_many

    def slow_put(self, model_id, items):  # type: ignore[no-untyped-def]
        writing.set()
        assert release.wait(10)
        put_many(self, model_id, items)

    monkeypatch.setattr(EmbeddingCache, "put_many", slow_put)
    texts = [f"text {i}" for i in range(20)]
    with embeddings.writing_behind():
        first, computed = embeddings.vectors(texts[:10])
        assert computed == 10 and writing.wait(10)  # returned while its write is blocked
        again, computed_again = embeddings.vectors(texts[:10] + texts[10:])  # from memory, not the model
        assert computed_again == 10 and sum(embedder.calls) == 20
        assert np.allclose(np.stack(again[:10]), np.stack(first))
        release.set()
    monkeypatch.setattr(EmbeddingCache, "put_many", put_many)
    fresh = EmbeddingCache(tmp_path / "e.db")
    assert len(fresh.get_many(embedder.model_id, [text_hash(t) for t in texts])) == 20
    fresh.close()
    embeddings._cache.close()
    assert not [t for t in threading.enumerate() if t.name.startswith("recalld-cache-write")]


def test_a_cache_write_landing_during_a_lookup_is_not_computed_again(tmp_path, monkeypatch):
    """A vector being written is found whether its write lands before, during or after
    the lookup (the test lands it between the reads of the cache and of what is still
    being written). Seen under load: a text asked for twice in a sync was embedded twice."""
    embedder = FakeEmbedder()
    embeddings = make_embeddings(tmp_path, embedder)
    release = threading.Event()
    put_many, get_many = EmbeddingCache.put_many, EmbeddingCache.get_many

    def held_put(self, model_id, items):  # type: ignore[no-untyped-def]
        assert release.wait(10)
        put_many(self, model_id, items)

    def read_then_land(self, model_id, hashes):  # type: ignore[no-untyped-def]
        found = get_many(self, model_id, hashes)
        release.set()  # the write lands now, after this read...
        behind = embeddings._behind
        if behind is not None:
            behind._pool.submit(lambda: None).result()  # ...and has left the write queue
        return found

    monkeypatch.setattr(EmbeddingCache, "put_many", held_put)
    with embeddings.writing_behind():
        embeddings.vectors(["a", "b"])
        monkeypatch.setattr(EmbeddingCache, "get_many", read_then_land)
        _, computed = embeddings.vectors(["a", "b", "c"])
        release.set()
    assert computed == 1 and sum(embedder.calls) == 3
    embeddings._cache.close()


def test_a_failed_cache_write_is_logged_and_the_vectors_still_served(tmp_path, monkeypatch):
    embedder = FakeEmbedder()
    embeddings = make_embeddings(tmp_path, embedder)

    def disk_full(self, model_id, items):  # type: ignore[no-untyped-def]
        raise sqlite3.OperationalError("database or disk is full")

    monkeypatch.setattr(EmbeddingCache, "put_many", disk_full)
    with structlog.testing.capture_logs() as logs, embeddings.writing_behind():
        got, computed = embeddings.vectors(["a", "b"])
    assert computed == 2 and np.allclose(np.stack(got), FakeEmbedder().encode(["a", "b"]))
    assert [e["event"] for e in logs if e["log_level"] == "error"] == ["embedding cache write failed"]
    embeddings._cache.close()


def test_a_cache_of_the_earlier_layout_is_converted_and_keeps_its_vectors(tmp_path):
    """Vectors cached by an earlier version (WITHOUT ROWID table ``embeddings``) are
    served after the cache is opened, from the rowid table, and the old table is gone;
    a second opening finds nothing left to convert."""
    path = tmp_path / "e.db"
    vector = np.arange(4, dtype=np.float32)
    db = sqlite3.connect(path)
    db.execute(
        "CREATE TABLE embeddings (model TEXT NOT NULL, text_hash TEXT NOT NULL,"
        " vector BLOB NOT NULL, PRIMARY KEY (model, text_hash)) WITHOUT ROWID"
    )
    db.execute("INSERT INTO embeddings VALUES (?, ?, ?)", ("m", text_hash("kept"), vector.tobytes()))
    db.commit()
    db.close()
    with structlog.testing.capture_logs() as logs:
        cache = EmbeddingCache(path)
    assert np.array_equal(cache.get_many("m", [text_hash("kept")])[text_hash("kept")], vector)
    assert [e["vectors"] for e in logs if e["event"].startswith("embedding cache converted")] == [1]
    cache.close()
    tables = dict(sqlite3.connect(path).execute("SELECT name, sql FROM sqlite_master WHERE type = 'table'").fetchall())
    assert set(tables) == {"vectors"} and "WITHOUT ROWID" not in tables["vectors"].upper()
    with structlog.testing.capture_logs() as logs:
        EmbeddingCache(path).close()
    assert not [e for e in logs if e["event"].startswith("embedding cache converted")]


class RecordingProgress:
    """A progress sink that keeps, per label, the total it began with and what advanced
    (the last bar of the label), and every bar in order (``runs``: label, total, advanced)."""

    def __init__(self) -> None:
        self.bars: dict[str, list[int]] = {}
        self.runs: list[tuple[str, list[int]]] = []
        self._label = ""

    def begin(self, label: str, total: int) -> None:
        self._label = label
        self.bars[label] = [total, 0]
        self.runs.append((label, self.bars[label]))

    def advance(self, n: int) -> None:
        self.bars[self._label][1] += n

    def end(self) -> None:
        pass


def test_a_first_index_reports_reading_the_tree_file_by_file(harness, git_repo):
    from recalld.ingest.touched import READING_LABEL

    for i in range(7):
        git_repo.write(f"pkg/m{i}.py", f"def f{i}():\n    return {i}\n")
    git_repo.write("README.md", "# r\n")
    git_repo.commit("seven modules")
    progress = RecordingProgress()
    harness.sync(git_repo, progress=progress)
    assert progress.bars[READING_LABEL] == [8, 8]  # every file of the tree, the skipped one too
    assert progress.bars["embedding"][0] == progress.bars["embedding"][1] > 0


def test_an_incremental_sync_reports_reading_the_changed_files(harness, git_repo):
    """A commit of many files is read file by file with a bar of its own before the
    embedding's (a 5,000-file commit read for ~50 s with nothing shown)."""
    from recalld.ingest.touched import READING_LABEL

    for i in range(6):
        git_repo.write(f"pkg/m{i}.py", f"def f{i}():\n    return {i}\n")
    git_repo.commit("six modules")
    harness.sync(git_repo)
    for i in range(3):
        git_repo.write(f"pkg/m{i}.py", f"def f{i}():\n    return {i + 10}\n")
    git_repo.write("notes.txt", "not code\n")
    git_repo.remove("pkg/m5.py")
    git_repo.commit("three changed, one added, one deleted")
    progress = RecordingProgress()
    result = harness.sync(git_repo, progress=progress)
    assert result.mode == "incremental"
    assert progress.bars[READING_LABEL] == [5, 5]  # the changed paths: modified, added, deleted
    assert [label for label, _ in progress.runs][:2] == [READING_LABEL, "embedding"]


def test_live_ids_tell_held_ids_from_others():
    """``LiveIds`` answers for each id whether no live memory has it (by 64-bit hashes:
    two ids sharing one would only leave a text to the writer)."""
    held = [str(uuid.uuid4()) for _ in range(5_000)]
    others = [str(uuid.uuid4()) for _ in range(5_000)]
    live = LiveIds.of(held)
    assert len(live) == 5_000
    asked = held[::7] + others + held[3::11]
    assert live.absent(asked) == [i not in set(held) for i in asked]
    assert LiveIds.of([]).absent(held[:3]) == [True] * 3 and not LiveIds.of([])
    assert live.absent([]) == []


@pytest.mark.parametrize("interrupted", [False, True])
def test_a_full_compare_queues_for_the_model_only_the_versions_not_live(git_repo, tmp_path, monkeypatch, interrupted):
    """A whole tree's compare queues ahead the texts of the new versions it reads, not
    those of memories already live, nor those a killed sync created, which are not live
    before it but stored, and which its resume brings up to date in place."""
    git_repo.write("a.py", "def one():\n    return 1\n\n\ndef two():\n    return 2\n")
    git_repo.write("b.py", "def three():\n    return 3\n")
    git_repo.commit("first")
    h = Harness("edge", tmp_path / "state")
    h.sync(git_repo)
    git_repo.write("a.py", "def one():\n    return 1\n\n\ndef two():\n    return 22\n")
    git_repo.commit("second")
    if interrupted:
        with monkeypatch.context() as dying:
            dying.setattr(sync_module.Indexer, "_sync_tasks", _killed)
            with pytest.raises(_Killed):
                h.sync(git_repo)
    submitted: list[str] = []
    submit = EmbedAhead.submit

    def recorded(self, texts):  # type: ignore[no-untyped-def]
        submitted.extend(texts)
        return submit(self, texts)

    monkeypatch.setattr(EmbedAhead, "submit", recorded)
    assert h.sync(git_repo, full=True).mode == "full"
    structural = [t for t in submitted if "def " in t]
    # the changed function (and its module), unless the killed sync wrote them
    assert any("return 22" in t for t in structural) != interrupted
    assert not any("def three" in t or ("def one" in t and "def two" not in t) for t in structural)
    h.close()


class _Killed(Exception):
    pass


def _killed(*args: object, **kwargs: object) -> None:
    raise _Killed
