"""kill -9 at any write of a sync, then sync again: the state of an uninterrupted run."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
from bisect import bisect_left
from pathlib import Path

import pytest

from recalld.ingest import sync as sync_module
from recalld.ingest.plan import Scope
from recalld.ingest.records import TASK, checkpoint_point
from recalld.ingest.trust import apply_trust
from tests.ingest.conftest import Harness, StoreWrapper

ROOT = Path(__file__).resolve().parents[2]


def snapshot(h: Harness) -> set[tuple]:
    """Every memory of every type, closed ones included."""
    keys = ("type", "deprecated", "deprecated_reason", "superseded_by", "lineage", "valid_from_commit",
            "valid_to_commit", "start_line", "end_line", "path", "qualname", "task_id", "commit",
            "symbol_ids", "history")  # fmt: skip
    return {(m.id, *(repr(m.payload.get(k)) for k in keys)) for m in h.memories(deprecated=None, types=())}


def copy_state(base: Path, to: Path) -> None:
    """A copy of a state dir that keeps the engine's files sparse: ``shutil.copytree``
    writes their holes out (32 MB a file, ~275 MB a store, 6 GB over this module)."""
    subprocess.run(["cp", "-a", "--sparse=always", str(base), str(to)], check=True)


def build_history(repo) -> None:
    for i in range(40):
        body = "".join(f"def f{i}_{j}():\n    return {j}\n\n" for j in range(4))
        repo.write(f"pkg/m{i}.py", f"class C{i}:\n    def m(self):\n        return {i}\n\n" + body)
    repo.commit("c1")


def second_commit(repo, *, split: bool = False) -> None:
    """One commit of edits, moves, a removal and a function moved to another file
    (``split``: the edits and moves one commit, the rest a second)."""
    for i in range(0, 40, 3):
        repo.write(f"pkg/m{i}.py", (repo.path / f"pkg/m{i}.py").read_text().replace("return 0", "return 99"))
    (repo.path / "src").mkdir()
    for i in range(1, 40, 5):
        repo.git("mv", f"pkg/m{i}.py", f"src/m{i}.py")
    if split:
        repo.commit("c2a")
    repo.remove("pkg/m2.py")
    text = (repo.path / "pkg/m5.py").read_text()
    repo.write("pkg/m5.py", text.replace("def f5_3():\n    return 3\n\n", ""))
    repo.write("pkg/m7.py", (repo.path / "pkg/m7.py").read_text() + "def f5_3():\n    return 3\n")
    repo.commit("c2")


def worker_env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(ROOT)}  # as the test has set it


def worker_command(repo, state: Path, *worker_args: str) -> list[str]:  # type: ignore[no-untyped-def]
    return [sys.executable, "-m", "tests.ingest.crash_worker", str(repo.path), str(state), *worker_args]


def run_worker_until(repo, state: Path, kill_after: int, *worker_args: str) -> bool:
    """Run the worker, kill -9 it after ``kill_after`` writes; True if it was killed.
    ``worker_args``: the worker's own (see crash_worker)."""
    proc = subprocess.Popen(worker_command(repo, state, *worker_args), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            text=True, env=worker_env(), cwd=ROOT)  # fmt: skip
    assert proc.stdin is not None and proc.stdout is not None
    killed = False
    for line in proc.stdout:
        if line.split()[:2] == ["write", str(kill_after)]:
            proc.send_signal(signal.SIGKILL)  # the worker waits right after that write
            killed = True
            break
        if line.startswith("write "):
            proc.stdin.write("\n")
            proc.stdin.flush()
    proc.wait(timeout=120)
    proc.stdin.close()
    proc.stdout.close()
    return killed


def writes_of(repo, state: Path) -> list[str]:  # type: ignore[no-untyped-def]
    """What the worker announces of each write of a sync it runs to its end."""
    # stdin at its end: the worker's wait after each write returns at once
    done = subprocess.run(worker_command(repo, state), input="", capture_output=True, text=True, env=worker_env(),
                          cwd=ROOT, timeout=120)  # fmt: skip
    return [line.split(" ", 2)[2] for line in done.stdout.splitlines() if line.startswith("write ")]


# with ``split``, a sync over two commits: killed at the write that gives each version the
# commit that made it (credit.credit_window), and at the one before
CREDIT, BEFORE_CREDIT = -1, -2


@pytest.mark.parametrize("kill_after,split", [*((n, False) for n in (1, 2, 3, 5, 9, 17, 33)),
                                              (3, True), (BEFORE_CREDIT, True), (CREDIT, True)])  # fmt: skip
def test_kill_during_incremental_sync_converges(git_repo, tmp_path, kill_after, split):
    build_history(git_repo)
    base = tmp_path / "base"
    h = Harness("edge", base)
    h.sync(git_repo)
    h.close()
    second_commit(git_repo, split=split)
    if kill_after < 0:
        copy_state(base, tmp_path / "counted")
        credit = writes_of(git_repo, tmp_path / "counted").index("set_payload author,task_id,written_in") + 1
        kill_after += credit + 1

    clean_state = tmp_path / "clean"
    copy_state(base, clean_state)
    clean = Harness("edge", clean_state)
    clean.sync(git_repo)
    expected = snapshot(clean)
    clean.close()

    crashed_state = tmp_path / "crashed"
    copy_state(base, crashed_state)
    assert run_worker_until(git_repo, crashed_state, kill_after)
    resumed = Harness("edge", crashed_state)
    result = resumed.sync(git_repo)
    assert result.mode == "full"
    assert snapshot(resumed) == expected
    assert resumed.sync(git_repo).mode == "noop"
    resumed.close()


@pytest.mark.parametrize("kill_after", [1, 2])
def test_kill_during_first_index_converges(git_repo, tmp_path, kill_after):
    build_history(git_repo)
    clean = Harness("edge", tmp_path / "clean")
    clean.sync(git_repo)
    expected = snapshot(clean)
    clean.close()
    state = tmp_path / "crashed"
    assert run_worker_until(git_repo, state, kill_after)
    resumed = Harness("edge", state)
    resumed.sync(git_repo)
    assert snapshot(resumed) == expected
    resumed.close()


class Recording(StoreWrapper):
    """Keeps the ids each write names: points upserted whole, and set a payload (apart:
    the writer the task step's history found for a first index's versions)."""

    def __init__(self, inner) -> None:  # type: ignore[no-untyped-def]
        super().__init__(inner)
        self.upserted: set[str] = set()
        self.updated: set[str] = set()
        self.attributed: set[str] = set()

    def after_write(self, name: str, args: tuple) -> None:  # type: ignore[type-arg]
        if name == "upsert":
            self.upserted.update(p.id for p in args[0] if p.payload.get("type") != TASK)
        elif name == "set_payload":
            (self.attributed if set(args[1]) <= {"task_id", "author", "written_in"} else self.updated).update(args[0])


@pytest.mark.parametrize("kind", ["edge", "server"])
@pytest.mark.parametrize("moved_on", [False, True])
def test_a_resumed_first_index_brings_what_the_killed_one_wrote_up_to_date_in_place(
    git_repo, tmp_path, monkeypatch, kind, moved_on
):  # fmt: skip
    """A first index is killed after writing its plan, and its resume plans every memory
    anew (the killed sync created them all). None of those is written whole again: left as
    it is where it was written so, and where the branch moved on before the resume, what
    differs (the commit that opened it, its task) set by a state update. Writing them
    again whole took a killed first index's resume as long as the index itself, but the
    model. The store ends as one first index leaves it, vectors included."""
    from tests.ingest.test_pipeline import full_state  # which imports this module's history

    build_history(git_repo)
    h = Harness(kind, tmp_path / "killed")
    with monkeypatch.context() as dying:
        dying.setattr(sync_module.Indexer, "_sync_tasks", _killed)
        with pytest.raises(Killed):
            h.sync(git_repo)
    written = {m.id for m in h.memories(deprecated=None)}
    if moved_on:
        second_commit(git_repo)
    clean = Harness(kind, tmp_path / "clean")
    clean.sync(git_repo)
    expected = full_state(clean)
    clean.close()
    recording = Recording(h.store)
    h.indexer.store = recording  # type: ignore[assignment]
    result = h.sync(git_repo)
    assert moved_on or result.embedded == 0
    h.indexer.store = h.store
    assert full_state(h) == expected
    assert written and not recording.upserted & written
    updated = recording.updated & written
    assert (len(updated) > 100) if moved_on else not updated  # every memory of a file left alone gets its commit
    h.close()


def count_writes(repo, base: Path, tmp: Path, *, sync_only: bool = False) -> int:
    """How many writes a sync from ``base`` makes; ``sync_only``: up to its clean
    checkpoint, the history read it may then owe left out."""
    from tests.ingest.test_sync_history import CountingStore

    copy_state(base, tmp)
    h = Harness("edge", tmp)
    writes = CountingStore.wrap(h)
    clean: list[int] = []
    written = writes.before_write

    def noting(name: str, args: tuple) -> None:  # type: ignore[type-arg]
        written(name, args)
        if name == "upsert" and any(p.payload.get("record") == "checkpoint" and not p.payload.get("pending")
                                    for p in args[0]):  # fmt: skip
            clean.append(writes.count)

    writes.before_write = noting  # type: ignore[method-assign]
    h.sync(repo)
    h.close()
    return clean[0] if sync_only else writes.count


@pytest.mark.parametrize("from_end", [1, 2, 3])
def test_kill_during_a_rewrite_converges(git_repo, tmp_path, from_end):
    """reset back and recommit: the last writes close and write task memories."""
    build_history(git_repo)
    git_repo.write("pkg/m3.py", "def rewritten():\n    return 3\n")
    git_repo.commit("c2")
    git_repo.write("pkg/m4.py", "def later():\n    return 4\n")
    git_repo.commit("c3")
    base = tmp_path / "base"
    h = Harness("edge", base)
    h.sync(git_repo)
    h.close()
    git_repo.git("reset", "-q", "--hard", "HEAD~2")
    second_commit(git_repo)  # subject "c2": supersedes the old c2 by subject and author

    # the history read the move back owes (code it brings back that its first sync, at c3, never read) after it
    total = count_writes(git_repo, base, tmp_path / "count", sync_only=True)
    clean_state = tmp_path / "clean"
    copy_state(base, clean_state)
    clean = Harness("edge", clean_state)
    result = clean.sync(git_repo)
    assert (result.tasks_added, result.tasks_deprecated) == (1, 2)
    expected = snapshot(clean)
    clean.close()

    crashed_state = tmp_path / "crashed"
    copy_state(base, crashed_state)
    assert run_worker_until(git_repo, crashed_state, total - from_end)
    resumed = Harness("edge", crashed_state)
    assert resumed.sync(git_repo).mode == "full"
    assert snapshot(resumed) == expected
    assert resumed.sync(git_repo).mode == "noop"
    resumed.close()


@pytest.mark.parametrize("from_end", [1, 2])
def test_kill_during_the_history_backfill_converges(git_repo, tmp_path, from_end):
    """The history is written after the clean checkpoint: killed before its first
    write (2) or before its mark is cleared (1), the next sync only finishes it."""
    build_history(git_repo)
    for i in range(4):
        git_repo.write(f"pkg/later{i}.py", f"def later{i}():\n    return {i}\n")
        git_repo.commit(f"later {i}")
    (tmp_path / "empty").mkdir()
    total = count_writes(git_repo, tmp_path / "empty", tmp_path / "count")
    clean = Harness("edge", tmp_path / "clean")
    assert clean.sync(git_repo).history_added == 4
    expected = snapshot(clean)
    clean.close()
    state = tmp_path / "crashed"
    assert run_worker_until(git_repo, state, total - from_end)
    resumed = Harness("edge", state)
    assert resumed.checkpoint()["pending"] is None and resumed.checkpoint()["history_owed"] == 1
    result = resumed.sync(git_repo)
    assert result.mode == "noop" and result.history_added == (4 if from_end == 2 else 0)
    assert snapshot(resumed) == expected and resumed.checkpoint()["history_owed"] == 0
    resumed.close()


def test_a_pending_marker_at_the_indexed_commit_is_cleared(git_repo, tmp_path):
    """A --full sync of the commit already indexed, killed after its pending marker,
    leaves ``pending`` = ``commit``: the next sync must still end with a clean
    checkpoint, not a plan found empty and the marker left (every later sync a full one)."""
    build_history(git_repo)
    h = Harness("edge", tmp_path / "state")
    try:
        first = h.sync(git_repo)
        h.store.upsert([checkpoint_point(Scope("r", "main"), commit=first.to_commit, pending=first.to_commit)])
        assert h.sync(git_repo).mode == "full"
        assert h.checkpoint()["pending"] is None
        assert h.sync(git_repo).mode == "noop"
    finally:
        h.close()


class Killed(Exception):
    """A sync dies after writing its plan, before its task step and its checkpoint."""


def _killed(*args: object, **kwargs: object) -> None:
    raise Killed


def by_sync(h: Harness, stamps: list[int]) -> set[tuple]:
    """Every planned memory with the syncs that opened and closed it and each interval
    of its history, as places in ``stamps`` (the syncs that ended, in order): a killed
    sync's stamp is the next one's place, as an as-of answer, which visits only the
    states syncs ended at, reads it."""

    def at(stamp: int | None) -> object:
        return None if stamp is None else bisect_left(stamps, stamp)

    out = set()
    for m in h.memories(deprecated=None):
        p = m.payload
        intervals = tuple((at(e.get("valid_from_sync")), at(e.get("valid_to_sync"))) for e in p.get("history") or ())
        out.add((m.id, p.get("deprecated"), at(p.get("valid_from_sync")), at(p.get("valid_to_sync")), intervals))
    return out


def committed(repo, message: str, files: dict[str, str]) -> str:  # type: ignore[no-untyped-def]
    for path, text in files.items():
        repo.write(path, text)
    return repo.commit(message)


def reset_to(repo, rev: str) -> None:  # type: ignore[no-untyped-def]
    subprocess.run(["git", "-C", str(repo.path), "reset", "-q", "--hard", rev], check=True)


def uninterrupted_and_resumed(
    git_repo, tmp_path: Path, monkeypatch, *, kind: str, synced: list[str], killed_at: str, ends_at: str
) -> tuple[tuple[set, set], tuple[set, set]]:  # type: ignore[no-untyped-def]  # fmt: skip
    """Two runs sync the branch to each of ``synced``. The clean one then syncs to
    ``ends_at``; the other's sync to ``killed_at`` is killed after its plan and, where the
    branch went on to ``ends_at`` meanwhile, the resume there is killed too, and a third
    sync ends it. Each run's planned memories by the syncs that opened and closed them
    (``by_sync``) and its snapshot, less the stamps."""
    found = []
    for name in ("clean", "killed"):
        h = Harness(kind, tmp_path / name)
        stamps = []
        for rev in synced:
            reset_to(git_repo, rev)
            h.sync(git_repo)
            stamps.append(h.checkpoint()["sync_stamp"])
        if name == "killed":
            with monkeypatch.context() as dying:
                dying.setattr(sync_module.Indexer, "_sync_tasks", _killed)
                for rev in dict.fromkeys([killed_at, ends_at]):
                    reset_to(git_repo, rev)
                    with pytest.raises(Killed):
                        h.sync(git_repo)
        reset_to(git_repo, ends_at)
        h.sync(git_repo)
        stamps.append(h.checkpoint()["sync_stamp"])
        assert h.checkpoint()["pending"] is None and h.sync(git_repo).mode == "noop"
        found.append((by_sync(h, stamps), {tuple(STAMP.sub("", field) for field in t) for t in snapshot(h)}))
        h.close()
    return found[0], found[1]


@pytest.mark.parametrize("moved_on", [False, True])
def test_a_kill_anywhere_in_a_reset_that_reopens_converges(git_repo, tmp_path, moved_on):
    """The branch goes back from c2 to c1: the sync reopens what c2 closed (modified
    functions, moved files, a function moved between files) and moves lines back. Killed
    after any of its writes (a stride over them), it is resumed at c1 or, ``moved_on``, at
    a commit after c1 that modifies a reopened function again, moves lines of a file
    whose memories were reopened and deletes another: each ends as one uninterrupted
    sync from c2 leaves the store."""
    build_history(git_repo)
    c1 = git_repo.head()
    second_commit(git_repo)
    c2 = git_repo.head()
    reset_to(git_repo, c1)
    text = (git_repo.path / "pkg/m0.py").read_text()
    committed(git_repo, "after c1", {"pkg/m0.py": "\n\n" + text.replace("return 0", "return 7")})
    git_repo.remove("pkg/m6.py")
    later = git_repo.commit("after c1, m6 gone")
    base = tmp_path / "base"
    h = Harness("edge", base)
    for rev in (c1, c2):
        reset_to(git_repo, rev)
        h.sync(git_repo)
    h.close()
    reset_to(git_repo, c1)
    total = count_writes(git_repo, base, tmp_path / "count")
    end = later if moved_on else c1
    expected = None
    for kill_after in sorted({1, 2, 3, *range(5, total, max(1, total // 6)), total - 1}):
        reset_to(git_repo, c1)
        state = tmp_path / f"killed{kill_after}"
        copy_state(base, state)
        assert run_worker_until(git_repo, state, kill_after), kill_after
        reset_to(git_repo, end)
        if expected is None:  # one uninterrupted sync from c2 to the end
            copy_state(base, tmp_path / "clean")
            clean = Harness("edge", tmp_path / "clean")
            clean.sync(git_repo)
            expected = {tuple(STAMP.sub("", field) for field in t) for t in snapshot(clean)}
            clean.close()
        resumed = Harness("edge", state)
        resumed.sync(git_repo)
        assert {tuple(STAMP.sub("", field) for field in t) for t in snapshot(resumed)} == expected, kill_after
        assert resumed.sync(git_repo).mode == "noop"
        resumed.close()


@pytest.mark.parametrize("moved_between", [False, True])
def test_a_resumed_reset_keeps_the_syncs_that_opened_and_closed_each_memory(git_repo, tmp_path, monkeypatch,
                                                                             moved_between):  # fmt: skip
    """The branch goes back to X, where an earlier sync closed ``f``, and that sync is
    killed after its plan. Its resume leaves every memory opened and closed by the syncs
    an uninterrupted run's are (``changes`` and retention read the stamps): ``f`` still
    closed by the sync to X, not by the resume. Telling the killed sync's closures by its
    target commit took ``f``'s for one and closed it again. ``moved_between``: the branch
    goes on to Z before the resume, which is killed too, and a third sync ends it, as one
    sync from Y to Z would. The sync to X reopened X's project memory, which Z's replaces:
    counted live before the killed sync, it was closed again, superseded by Z's."""
    committed(git_repo, "A", {"a.py": "def f():\n    return 1\n\n\ndef g():\n    return 2\n"})
    x = committed(git_repo, "X", {"a.py": "def g():\n    return 2\n"})
    tip = committed(git_repo, "Y", {"b.py": "def h():\n    return 3\n"})
    reset_to(git_repo, x)  # Z, made once (both runs go to the same commit): from X, g changed, a new file
    z = committed(git_repo, "Z", {"a.py": "def g():\n    return 22\n", "c.py": "def k():\n    return 4\n"})
    clean, killed = uninterrupted_and_resumed(git_repo, tmp_path, monkeypatch, kind="edge", synced=[f"{x}~1", x, tip],
                                              killed_at=x, ends_at=z if moved_between else x)  # fmt: skip
    assert killed[1] == clean[1]  # the same memories, lineages, intervals' commits
    assert killed[0] == clean[0]  # opened and closed by the same syncs


@pytest.mark.parametrize("kind", ["edge", "server"])
@pytest.mark.parametrize("back_at_the_end", [False, True])
def test_a_resume_closes_again_what_the_killed_sync_reopened(git_repo, tmp_path, monkeypatch, kind,
                                                             back_at_the_end):  # fmt: skip
    """``f`` is closed at B and comes back at C elsewhere in its file (the same id: new
    lines, task, lineage). The sync to C is killed after reopening it, and the branch goes
    on to D before the resume (killed too). Where ``f`` is gone at D, it ends closed as B
    left it: its interval, lines and task back from the history entry the reopen added
    (``records.REOPENED_OVER``), where it was left live and closed anew by the sync to D.
    Where it is at D, it is reopened once, as by one sync from B to D."""
    committed(git_repo, "A", {"a.py": "def g():\n    return 2\n\n\ndef f():\n    return 1\n"})
    b = committed(git_repo, "B", {"a.py": "def g():\n    return 2\n"})
    c = committed(git_repo, "C", {"a.py": "def f():\n    return 1\n\n\ndef g():\n    return 2\n"})
    at_d = {} if back_at_the_end else {"a.py": "def g():\n    return 2\n"}
    d = committed(git_repo, "D", {"c.py": "def k():\n    return 4\n", **at_d})
    clean, killed = uninterrupted_and_resumed(git_repo, tmp_path, monkeypatch, kind=kind, synced=[f"{b}~1", b],
                                              killed_at=c, ends_at=d)  # fmt: skip
    assert killed[1] == clean[1]
    assert killed[0] == clean[0]
    (f,) = [t for t in killed[1] if t[11] == "'f'"]  # snapshot's: qualname, after start_line and end_line, path
    assert f[8:10] == (("1", "2") if back_at_the_end else ("5", "6"))  # at D's lines, or A's closed again


STAMP = re.compile(r"'valid_(from|to)_sync': \d+")  # a run's own clock


def test_the_pending_marker_keeps_the_last_ended_syncs_stamp_through_kills(git_repo, tmp_path, monkeypatch):
    """Each killed sync's marker names the stamp of the last sync that ended (0 before
    any), a second kill keeps it, and the sync that ends clears the marker."""
    build_history(git_repo)
    h = Harness("edge", tmp_path / "state")
    with monkeypatch.context() as dying:
        dying.setattr(sync_module.Indexer, "_sync_tasks", _killed)
        with pytest.raises(Killed):
            h.sync(git_repo)
        assert h.checkpoint()["pending_after"] == 0 and h.checkpoint()["sync_stamp"] > 0
    h.sync(git_repo)
    ended = h.checkpoint()["sync_stamp"]
    assert h.checkpoint()["pending"] is None
    second_commit(git_repo)
    with monkeypatch.context() as dying:
        dying.setattr(sync_module.Indexer, "_sync_tasks", _killed)
        for _ in range(2):
            with pytest.raises(Killed):
                h.sync(git_repo)
            assert h.checkpoint()["pending_after"] == ended < h.checkpoint()["sync_stamp"]
    marker = h.checkpoint()
    apply_trust(h.store, Scope("r", "main", untrusted=True), marker)  # the branch's trust changed meanwhile
    assert h.checkpoint()["pending_after"] == ended and h.checkpoint()["pending"] == marker["pending"]
    h.sync(git_repo)
    assert h.checkpoint()["pending"] is None and h.checkpoint()["sync_stamp"] > ended
    h.close()
