"""A first index read, planned and written a part at a time (ingest/parts.py): the store
ends as when the tree is one part, the reader stays within ``HELD_SYMBOLS`` of the writer
when the model is slow, and a kill between parts converges."""

from __future__ import annotations

import time

import pytest

from recalld.ingest import parts
from recalld.ingest.touched import READING_LABEL
from recalld.ingest.writer import EMBEDDING_LABEL
from tests.conftest import FakeEmbedder
from tests.ingest.conftest import Harness, without_write_times
from tests.ingest.test_crash import run_worker_until, snapshot
from tests.ingest.test_pipeline import RecordingProgress

PART, HELD = 16, 40


def mixed_tree(repo) -> None:  # type: ignore[no-untyped-def]
    """Files of several languages in several folders, one with more symbols than a part,
    the same function in two files (one text, one vector), a file with a syntax error, a
    binary file and a file of no language; two commits of history."""
    for i in range(12):
        body = "".join(f"def f{i}_{j}(x):\n    '''Step {j} of {i}.'''\n    return x + {j}\n\n" for j in range(3))
        repo.write(f"app/m{i:02}.py", f"class C{i}:\n    def run(self):\n        return {i}\n\n" + body)
    repo.write("app/big.py", "".join(f"def big_{j}():\n    return {j}\n\n" for j in range(50)))
    repo.write("lib/a.py", "def shared(v):\n    return v * 2\n")
    repo.write("lib/b.py", "def shared(v):\n    return v * 2\n")
    repo.write("lib/broken.py", "def fine():\n    return 1\n\ndef broken(:\n    pass\n")
    repo.write("web/ui.js", "export function render(node) {\n  return node;\n}\nclass View {\n  show() {}\n}\n")
    repo.write("svc/main.go", "package svc\n\n// Serve answers.\nfunc Serve() int { return 1 }\n")
    repo.write("docs/logo.bin", "\x00\x01binary\x00")
    repo.write("notes.txt", "plain text\n")
    repo.commit("first")
    repo.write("app/m03.py", (repo.path / "app/m03.py").read_text() + "def added():\n    return 0\n")
    repo.commit("second")


@pytest.fixture
def small_parts(monkeypatch):  # type: ignore[no-untyped-def]
    monkeypatch.setattr(parts, "PART_SYMBOLS", PART)
    monkeypatch.setattr(parts, "HELD_SYMBOLS", HELD)


def every_memory(h: Harness) -> dict[str, tuple]:  # type: ignore[type-arg]
    points = h.memories(deprecated=None, types=())
    vectors = h.store.get_vectors([p.id for p in points])
    return {p.id: (repr(sorted(without_write_times(p.payload).items())), tuple(round(x, 5) for x in vectors[p.id]))
            for p in points}  # fmt: skip


def recorded_parts(monkeypatch) -> list[tuple[str, int]]:  # type: ignore[no-untyped-def]
    """("read" | "write", symbols) in the order parts are planned and written."""
    events: list[tuple[str, int]] = []
    plan, write = parts.plan_changes, parts.write_plan

    def planned(**kw):  # type: ignore[no-untyped-def]
        made = plan(**kw)
        events.append(("read", len(made.new_versions)))
        return made

    def written(store, ahead, scope, made, *a, **kw):  # type: ignore[no-untyped-def]
        events.append(("write", len(made.new_versions)))
        return write(store, ahead, scope, made, *a, **kw)

    monkeypatch.setattr(parts, "plan_changes", planned)
    monkeypatch.setattr(parts, "write_plan", written)
    return events


@pytest.mark.parametrize("kind", ["edge", "server"])
def test_a_first_index_in_parts_stores_what_one_part_stores(git_repo, tmp_path, monkeypatch, kind):
    mixed_tree(git_repo)
    whole = Harness(kind, tmp_path / "whole")
    first = whole.sync(git_repo)
    with monkeypatch.context() as m:
        m.setattr(parts, "PART_SYMBOLS", PART)
        m.setattr(parts, "HELD_SYMBOLS", HELD)
        events = recorded_parts(m)
        parted = Harness(kind, tmp_path / "parted")
        in_parts = parted.sync(git_repo)
    untimed = {"seconds": 0, "history_seconds": 0}
    assert in_parts.as_dict() | untimed == first.as_dict() | untimed
    assert first.added > 100 and first.syntax_errors == 1 and first.history_added == 1
    assert len([e for e in events if e[0] == "read"]) >= 6
    assert every_memory(parted) == every_memory(whole)
    git_repo.remove("lib/b.py")
    git_repo.write("web/ui.js", "export function render(node) {\n  return null;\n}\n")
    git_repo.commit("third")
    assert parted.sync(git_repo).as_dict() | untimed == whole.sync(git_repo).as_dict() | untimed
    assert every_memory(parted) == every_memory(whole)
    whole.close()
    parted.close()


class SlowEmbedder(FakeEmbedder):
    def encode(self, texts):  # type: ignore[no-untyped-def]
        time.sleep(0.004 * len(texts))
        return super().encode(texts)


def test_a_slow_model_keeps_the_reader_within_held_symbols_of_the_writer(git_repo, tmp_path, monkeypatch,
                                                                        small_parts):  # fmt: skip
    mixed_tree(git_repo)
    h = Harness("edge", tmp_path / "state")
    h.embedder = SlowEmbedder()
    events = recorded_parts(monkeypatch)
    progress = RecordingProgress()
    result = h.sync(git_repo, progress=progress)
    read = written = 0
    largest = max(n for event, n in events if event == "read")
    for event, n in events:
        if event == "read":
            read += n
        else:
            assert read - written <= HELD + largest, events
            written += n
    assert written == read == result.added  # the project-structure memory among them
    assert events.index(("write", events[1][1])) < len(events) - 2  # written while the tree was read
    assert progress.bars[READING_LABEL][0] == progress.bars[READING_LABEL][1] == 20  # every file
    assert 0 < progress.bars[EMBEDDING_LABEL][0] == progress.bars[EMBEDDING_LABEL][1] <= HELD + largest
    h.close()


@pytest.mark.parametrize(("kill_after", "moved_on"), [(2, False), (5, False), (8, False), (4, True), (7, True)])
def test_a_kill_between_parts_converges(git_repo, tmp_path, monkeypatch, kill_after, moved_on):
    """``moved_on``: the branch moves on before the next sync, which removes a file and
    empties another: what the killed sync wrote of them goes."""
    mixed_tree(git_repo)
    state = tmp_path / "crashed"
    assert run_worker_until(git_repo, state, kill_after, str(PART), str(HELD))
    if moved_on:
        git_repo.remove("app/m01.py")
        git_repo.write("app/big.py", "")
        git_repo.commit("moved on")
    clean = Harness("edge", tmp_path / "clean")
    clean.sync(git_repo)
    expected = snapshot(clean)
    clean.close()
    monkeypatch.setattr(parts, "PART_SYMBOLS", PART)
    monkeypatch.setattr(parts, "HELD_SYMBOLS", HELD)
    resumed = Harness("edge", state)
    assert resumed.sync(git_repo).mode == "full"
    assert snapshot(resumed) == expected
    assert resumed.sync(git_repo).mode == "noop"
    resumed.close()
