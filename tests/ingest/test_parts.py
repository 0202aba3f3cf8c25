"""A first index read, planned and written a part at a time (ingest/parts.py): the store
ends as when the tree is one part, the reader stays within ``HELD_SYMBOLS`` of the writer
when the model is slow, and a kill between parts converges."""

from __future__ import annotations

import time

import pytest

from recalld.ingest import parts, sync
from recalld.ingest.authorship import UNKNOWN_WRITER
from recalld.ingest.plan import Scope
from recalld.ingest.records import PLANNING_FIELDS, REREAD_FIELDS, checkpoint_id, live_filter, live_memory
from recalld.ingest.recovery import RECOVERY_FIELDS
from recalld.ingest.stored_live import FILE_FIELDS
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


def last_parts_bar(progress: RecordingProgress) -> list[int]:
    """The bar of what is left to write once the tree is read: total, advanced (the task
    step's bars come after it)."""
    labels = [label for label, _bar in progress.runs]
    return next(bar for label, bar in progress.runs[labels.index(READING_LABEL):] if label == EMBEDDING_LABEL)


def recorded_parts(monkeypatch) -> list[tuple[str, int]]:  # type: ignore[no-untyped-def]
    """("read" | "write", new versions) in the order parts are planned and written."""
    events: list[tuple[str, int]] = []
    planned, write = parts.TreeParts._planned, parts.write_plan

    def recorded(self, plan, *a, **kw):  # type: ignore[no-untyped-def]
        events.append(("read", len(plan.new_versions)))
        return planned(self, plan, *a, **kw)

    def written(store, ahead, scope, made, *a, **kw):  # type: ignore[no-untyped-def]
        events.append(("write", len(made.new_versions)))
        return write(store, ahead, scope, made, *a, **kw)

    monkeypatch.setattr(parts.TreeParts, "_planned", recorded)
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
    assert 0 < last_parts_bar(progress)[0] == last_parts_bar(progress)[1] <= HELD + largest
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


def moved_across_files(repo) -> None:  # type: ignore[no-untyped-def]
    """After ``mixed_tree``: a function moves to a new file, another is renamed in place,
    a file is deleted and a class is split across two files: what a planner pairs across
    the files that changed."""
    repo.write("lib/a.py", "def other(v):\n    return v - 1\n")
    repo.write("lib/c.py", "def shared(v):\n    return v * 2\n\n\ndef helper():\n    return 3\n")
    body = (repo.path / "app/m05.py").read_text().replace("def f5_1(x):", "def f5_first(x):")
    repo.write("app/m05.py", body)
    repo.remove("web/ui.js")
    cls, steps = (repo.path / "app/m07.py").read_text().split("\n\n", 1)
    repo.write("app/m07.py", cls + "\n")
    repo.write("app/m07_steps.py", steps)
    repo.commit("moved across files")


def lineage_of(h: Harness, path: str, qualname: str) -> str:
    [mem] = [m for m in h.memories() if (m.payload["path"], m.payload["qualname"]) == (path, qualname)]
    return mem.payload["lineage"]


COUNTS = ("added", "modified", "renamed", "deprecated", "relocated", "embedded")  # what the files read found differs


def test_a_full_compare_reads_unchanged_files_in_parts_and_pairs_moves_across_the_rest(git_repo, tmp_path,
                                                                                      monkeypatch):  # fmt: skip
    """``--full`` over stored memories: the files whose bytes the store read are planned
    alone, a part at a time; the files that changed are planned whole, so a function that
    moved to a new file keeps its lineage. The store ends as an incremental sync leaves it."""
    mixed_tree(git_repo)
    incremental, full = Harness("edge", tmp_path / "incremental"), Harness("edge", tmp_path / "full")
    incremental.sync(git_repo)
    full.sync(git_repo)
    before = lineage_of(full, "lib/a.py", "shared")
    moved_across_files(git_repo)
    expected = incremental.sync(git_repo)
    moving: list[set[str]] = []
    read = parts.WholeTree.moving

    def recorded(self, progress):  # type: ignore[no-untyped-def]
        found = read(self, progress)
        moving.append(set(found.files) | found.gone)
        return found

    monkeypatch.setattr(parts.WholeTree, "moving", recorded)
    monkeypatch.setattr(parts, "PART_SYMBOLS", PART)
    monkeypatch.setattr(parts, "HELD_SYMBOLS", HELD)
    events = recorded_parts(monkeypatch)
    progress = RecordingProgress()
    result = full.sync(git_repo, full=True, progress=progress)
    assert result.mode == "full" and expected.mode == "incremental"
    assert {k: getattr(result, k) for k in COUNTS} == {k: getattr(expected, k) for k in COUNTS}
    changed = {".", "lib/a.py", "lib/c.py", "app/m05.py", "web/ui.js", "app/m07.py", "app/m07_steps.py"}
    assert moving == [changed | {"notes.txt", "docs/logo.bin"}]  # and the files the store holds nothing of
    assert len([e for e in events if e[0] == "read"]) >= 6  # the unchanged files: parts of 16 symbols
    assert lineage_of(full, "lib/c.py", "shared") == before
    assert progress.bars[READING_LABEL] == [21, 21]  # every file of the tree
    written = result.added + result.modified + result.renamed
    assert last_parts_bar(progress) == [written, written]  # what the changed files write, left to the end
    assert every_memory(full) == every_memory(incremental)
    assert full.sync(git_repo).mode == "noop"
    incremental.close()
    full.close()


def test_a_full_compare_with_nothing_changed_writes_nothing(git_repo, tmp_path, small_parts):
    mixed_tree(git_repo)
    h = Harness("edge", tmp_path / "state")
    h.sync(git_repo)
    stored, checkpoint = every_memory(h), h.checkpoint()
    again = h.sync(git_repo, full=True)
    assert again.mode == "full" and again.added == again.deprecated == again.relocated == again.embedded == 0
    assert every_memory(h) == stored and h.checkpoint() == checkpoint
    h.close()


@pytest.mark.parametrize("kind", ["edge", "server"])
@pytest.mark.parametrize("outdated", [False, True])
def test_a_full_compare_reads_each_parts_memories_when_it_plans_it(git_repo, tmp_path, monkeypatch, small_parts,
                                                                   kind, outdated):  # fmt: skip
    """The compare reads what every live memory's file tells at once (path, kind, blob,
    language), and a part's memories with the planner's fields only when it plans the
    part: never every memory of the repository whole. Each is read once, and the store
    ends as a compare that held them all would leave it (the other full-compare tests)."""
    mixed_tree(git_repo)
    h = Harness(kind, tmp_path / "state")
    h.sync(git_repo)
    live = {p.id: p.payload["path"] for p in h.memories()}
    if outdated:  # memories of an earlier extractor: their signatures and texts are read again
        checkpoint_point = h.store.retrieve([checkpoint_id(Scope("r", "main"))])[0]
        h.store.set_payload([checkpoint_point.id], {"extraction": checkpoint_point.payload["extraction"] - 1})
    reads: list = []
    scroll = h.store.scroll

    def recorded(flt, *, fields=None):  # type: ignore[no-untyped-def]
        found = list(scroll(flt, fields=fields))
        if flt.repo == "r" and flt.deprecated == 0 and "task" not in flt.types:
            reads.append((tuple(fields or ()), flt.paths, [p.id for p in found], flt.opened_after))
        return iter(found)

    monkeypatch.setattr(h.store, "scroll", recorded)
    result = h.sync(git_repo, full=True)
    assert result.mode == "full" and result.added == result.deprecated == 0
    # after an earlier extractor, what the sync opened is read again (for its writers): nothing here
    assert [ids for _, _, ids, after in reads if after is not None] == ([[]] if outdated else [])
    reads = [r[:3] for r in reads if r[3] is None]
    whole = [r for r in reads if not r[1]]
    assert [fields for fields, _, _ in whole] == [FILE_FIELDS]  # every memory's file fields, once
    assert sorted(whole[0][2]) == sorted(live)
    planning = [r for r in reads if r[1]]
    wanted = REREAD_FIELDS if outdated else PLANNING_FIELDS
    assert planning and all(fields == wanted for fields, _, _ in planning)
    read_ids = [i for _, _, ids in planning for i in ids]
    assert sorted(read_ids) == sorted(live)  # each memory read once, as its part is planned
    assert len(planning) >= 6  # the moving files' read, then one a part
    # a part ends at the file that brings it to PART symbols: only the one bigger than a part reads more
    assert all(len(ids) < PART + 8 or "app/big.py" in paths for _, paths, ids in planning)
    h.close()


@pytest.mark.parametrize("kind", ["edge", "server"])
def test_the_live_memories_of_one_file_share_its_path_kind_language_and_blob(git_repo, tmp_path, kind):
    """A sync holds the live memories of every path it plans together (a mass move's, a
    part's): what their file gives them all is one string each, not a copy a memory."""
    mixed_tree(git_repo)
    h = Harness(kind, tmp_path / "state")
    h.sync(git_repo)
    points = list(h.store.scroll(live_filter(Scope("r", "main")), fields=PLANNING_FIELDS))
    live = [live_memory(point) for point in points]
    ours = [m for m in live if m.path == "app/big.py"]
    assert len(ours) == 51 and {m.blob for m in ours} and {m.language for m in ours} == {"python"}
    for field in ("path", "kind", "language", "blob"):
        by_value: dict[str, set[int]] = {}
        for m in ours:
            by_value.setdefault(getattr(m, field), set()).add(id(getattr(m, field)))
        assert all(len(ids) == 1 for ids in by_value.values()), field
    h.close()


@pytest.mark.parametrize(("kill_after", "moved_on"), [(1, False), (3, False), (2, True), (4, True)])
def test_a_kill_during_a_full_compare_in_parts_converges(git_repo, tmp_path, kill_after, moved_on):
    """``moved_on``: before the next sync the branch drops the new file and the renamed
    function: what the killed sync wrote of them goes, what it closed comes back."""
    mixed_tree(git_repo)
    clean, state = tmp_path / "clean", tmp_path / "crashed"
    for root in (clean, state):
        h = Harness("edge", root)
        h.sync(git_repo)
        h.close()
    moved_across_files(git_repo)
    assert run_worker_until(git_repo, state, kill_after, str(PART), str(HELD), "full")
    if moved_on:
        git_repo.remove("lib/c.py")
        body = (git_repo.path / "app/m05.py").read_text().replace("def f5_first(x):", "def f5_1(x):")
        git_repo.write("app/m05.py", body)
        git_repo.commit("moved on")
    h = Harness("edge", clean)
    h.sync(git_repo)
    expected = snapshot(h)
    h.close()
    resumed = Harness("edge", state)
    assert resumed.sync(git_repo).mode == "full"
    assert snapshot(resumed) == expected
    assert resumed.sync(git_repo).mode == "noop"
    resumed.close()


class Killed(Exception):
    """The sync dies after writing its plan, before its task step and its checkpoint."""


@pytest.mark.parametrize("kind", ["edge", "server"])
def test_a_resumed_sync_reads_the_state_before_a_path_at_a_time(git_repo, tmp_path, monkeypatch, small_parts, kind):
    """After an interrupted sync the compare tells what it closed and created from every
    planned point's file and recovery fields, read once, and reads a path's memories,
    live and closed, with the planner's fields (and whether it is closed) only when it
    plans the path: the memories live before that sync each once. The outcome is an
    uninterrupted sync's."""
    mixed_tree(git_repo)
    clean, h = Harness(kind, tmp_path / "clean"), Harness(kind, tmp_path / "state")
    for each in (clean, h):
        each.sync(git_repo)
    live = {p.id: p.payload["path"] for p in h.memories()}
    moved_across_files(git_repo)
    clean.sync(git_repo)
    expected = snapshot(clean)
    clean.close()

    def killed(*args, **kwargs):  # type: ignore[no-untyped-def]
        raise Killed

    with monkeypatch.context() as dying:
        dying.setattr(sync.Indexer, "_sync_tasks", killed)
        with pytest.raises(Killed):
            h.sync(git_repo)
    closed = {p.id for p in h.memories(deprecated=1)} & live.keys()
    assert closed and {p.id for p in h.memories()} - live.keys()  # it closed some and created others
    reads: list[tuple[tuple[str, ...], tuple[str, ...], list[str]]] = []
    scroll = h.store.scroll

    def recorded(flt, *, fields=None):  # type: ignore[no-untyped-def]
        found = list(scroll(flt, fields=fields))
        if flt.repo == "r" and "task" not in flt.types:
            reads.append((tuple(fields or ()), flt.paths, [p.id for p in found]))
        return iter(found)

    monkeypatch.setattr(h.store, "scroll", recorded)
    assert h.sync(git_repo).mode == "full"
    monkeypatch.undo()
    whole = [r for r in reads if not r[1]]
    # every planned point, once; then the history read asks whether any writer is still to find
    assert [fields for fields, _, _ in whole] == [FILE_FIELDS + RECOVERY_FIELDS, ("path", *UNKNOWN_WRITER)]
    planning = [r for r in reads if r[1]]
    assert planning and all(fields == (*PLANNING_FIELDS, "deprecated") for fields, _, _ in planning)
    read_ids = [i for _, _, ids in planning for i in ids]
    assert len(read_ids) == len(set(read_ids)) and closed <= set(read_ids)  # closed by the killed sync too
    paths = {path for _, chunk, _ in planning for path in chunk}
    assert set(read_ids) & live.keys() == {i for i, path in live.items() if path in paths}
    assert len(paths) < len(set(live.values()))  # the files that changed (their bytes), not every one
    assert snapshot(h) == expected
    assert h.sync(git_repo).mode == "noop"
    h.close()
