"""A sync whose window stopped at its limit (a pull of more than ``backfill_commits``
commits, a daemon stopped through as many): the commits past the limit are not read by
the sync, so what they wrote has no writer among the window's commits. It is left to the
history read, which the sync then owes, and which finds the commit that wrote it, as a
first index of the same commit does; the window's own commits keep what they wrote."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from functools import partial
from pathlib import Path

from recalld.ingest.files import IndexOptions
from recalld.ingest.records import checkpoint_id, task_memory_id
from tests.ingest.conftest import Harness
from tests.ingest.test_moved_writer import writers
from tests.ingest.test_tasks import SCOPE, commit_by, structural, tasks, written_in_its_authors_commit

LIMIT = IndexOptions(backfill_commits=2)
F = "def f():\n    return 1\n"


@contextmanager
def indexed_by_ann(repo, by, tmp_path: Path, code: str = F) -> Iterator[tuple[Harness, Harness]]:  # type: ignore
    """Ann writes a.py (``code``) and a store whose window holds two commits indexes it;
    the other store, empty, is for a first index of the tip (``both_synced``)."""
    repo.write("a.py", code)
    by("Ann", "a")
    h = Harness("edge", tmp_path / "state", LIMIT)
    fresh = Harness("edge", tmp_path / "fresh", LIMIT)
    try:
        h.sync(repo)
        yield h, fresh
    finally:
        h.close()
        fresh.close()


def both_synced(h: Harness, fresh: Harness, repo) -> dict[tuple[str, str], tuple[str, str | None]]:  # type: ignore
    """Syncs ``h`` over the new commits at once and indexes the tip in ``fresh``: both must
    name the same writers, each in its author's commit. ``h``'s writers; its history read."""
    result = h.sync(repo)
    fresh.sync(repo)
    found = writers(h)
    assert found == writers(fresh)
    assert not result.history_owed
    written_in_its_authors_commit(h, repo)
    return found


def three_functions(repo, by) -> dict[str, str]:  # type: ignore[no-untyped-def]
    """Bob, Cid and Dan each add a function (g, h, k) in a file of its own: their commits."""
    made = {}
    for who, name in (("Bob", "g"), ("Cid", "h"), ("Dan", "k")):
        repo.write(f"{name}.py", f"def {name}():\n    return 2\n")
        made[who] = by(who, name)
    return made


def test_code_a_commit_past_the_window_wrote_gets_its_writer_from_the_history_read(git_repo, tmp_path, monkeypatch):
    """Ann's index; Bob, Cid and Dan each add a function and one sync takes all three,
    its window cut at two commits (Dan's, Cid's): Bob's function is Bob's, not Dan's."""
    repo, by = git_repo, partial(commit_by, git_repo, monkeypatch)
    with indexed_by_ann(repo, by, tmp_path) as (h, fresh):
        made = three_functions(repo, by)
        found = both_synced(h, fresh, repo)
        assert [found[(f"{n}.py", n)] for n in "ghk"] == [(w, made[w]) for w in ("Bob", "Cid", "Dan")]


def test_code_written_past_the_window_and_moved_in_it_is_followed_back_to_its_writer(git_repo, tmp_path, monkeypatch):
    """Bob writes x.py past the window; Cid renames it to y.py and edits ``g2`` in the
    window, Dan adds k.py: ``g`` is Bob's (the move followed back past the window),
    ``g2`` and the module Cid's, ``k`` Dan's, as a first index has them."""
    repo, by = git_repo, partial(commit_by, git_repo, monkeypatch)
    with indexed_by_ann(repo, by, tmp_path) as (h, fresh):
        repo.write("x.py", "def g():\n    return 2\n\n\ndef g2():\n    return 3\n")
        bob = by("Bob", "x")
        repo.git("mv", "x.py", "y.py")
        repo.write("y.py", "def g():\n    return 2\n\n\ndef g2():\n    return 30\n")
        cid = by("Cid", "x.py is y.py; g2 returns 30")
        repo.write("k.py", "def k():\n    return 4\n")
        dan = by("Dan", "k")
        found = both_synced(h, fresh, repo)
        assert (found[("y.py", "g")], found[("y.py", "g2")], found[("y.py", "<module>")], found[("k.py", "k")]) == (
            ("Bob", bob), ("Cid", cid), ("Cid", cid), ("Dan", dan))  # fmt: skip


def test_a_window_that_holds_every_commit_owes_no_history_read(git_repo, tmp_path, monkeypatch):
    """Two commits, a window of two: the sync reads both and owes nothing more; three
    commits, one past the limit, make it owe the read, which the sync's caller then does."""
    repo, by = git_repo, partial(commit_by, git_repo, monkeypatch)
    with indexed_by_ann(repo, by, tmp_path) as (h, _):
        for n, who in enumerate(("Bob", "Cid")):
            repo.write(f"b{n}.py", f"def b{n}():\n    return {n}\n")
            by(who, f"b{n}")
        assert h.sync(repo).history_seconds == 0
        for n, who in enumerate(("Dan", "Eve", "Fay")):
            repo.write(f"c{n}.py", f"def c{n}():\n    return {n}\n")
            by(who, f"c{n}")
        result = h.sync(repo)
        assert result.history_seconds > 0 and not result.history_owed
        assert writers(h)[("c0.py", "c0")][0] == "Dan"


def copied_then_deleted(repo, by, code: str) -> str:  # type: ignore[no-untyped-def]
    """Bob copies a.py (``code``) to b.py, Cid deletes a.py, Dan adds k.py: Bob's commit."""
    repo.write("b.py", code)
    bob = by("Bob", "a copy of a.py")
    repo.git("rm", "-q", "a.py")
    by("Cid", "a.py is gone")
    repo.write("k.py", "def k():\n    return 4\n")
    by("Dan", "k")
    return bob


def test_a_copy_past_the_window_of_a_file_deleted_in_it_is_the_copiers(git_repo, tmp_path, monkeypatch):
    """Bob copies a.py to b.py past the window, Cid deletes a.py in it: the sync's diff
    pairs the two as a rename, but the code at b.py was written there by Bob's copy (as
    git blame without ``-C`` has it, and as a first index finds), not moved by Cid."""
    repo, by = git_repo, partial(commit_by, git_repo, monkeypatch)
    code = F + "\n\ndef g():\n    return 2\n"
    with indexed_by_ann(repo, by, tmp_path, code) as (h, fresh):
        bob = copied_then_deleted(repo, by, code)
        assert both_synced(h, fresh, repo)[("b.py", "f")] == ("Bob", bob)


def test_what_merges_past_the_window_brought_in_is_not_the_last_merges(git_repo, tmp_path, monkeypatch):
    """Mia merges Bob's, Cid's and Dan's branches one after the other; one sync to the last
    merge reads it and Dan's commit: Bob's and Cid's functions are theirs (through the
    merges the history read reads), not Mia's by the last merge."""
    repo, by = git_repo, partial(commit_by, git_repo, monkeypatch)
    with indexed_by_ann(repo, by, tmp_path) as (h, fresh):
        made = {}
        for who, name in (("Bob", "g"), ("Cid", "h"), ("Dan", "k")):
            repo.git("checkout", "-q", "-b", name)
            repo.write(f"{name}.py", f"def {name}():\n    return 2\n")
            made[who] = by(who, name)
            repo.git("checkout", "-q", "main")
            monkeypatch.setenv("GIT_AUTHOR_NAME", "Mia")
            repo.git("merge", "-q", "--no-ff", "-m", f"merge {name}", name)
        found = both_synced(h, fresh, repo)
        assert [found[(f"{n}.py", n)] for n in "ghk"] == [(w, made[w]) for w in ("Bob", "Cid", "Dan")]


def test_a_reset_forward_past_the_window_leaves_what_it_did_not_link_to_the_history_read(
    git_repo, tmp_path, monkeypatch
):
    """The branch reset back to Ann's commit and forward to Dan's again: the reset forward
    reopens Bob's, Cid's and Dan's functions, its window (Dan's, Cid's) cut short of Bob's
    commit; Bob's function is Bob's again, not Dan's."""
    repo, by = git_repo, partial(commit_by, git_repo, monkeypatch)
    with indexed_by_ann(repo, by, tmp_path) as (h, fresh):
        ann = repo.head()
        made = three_functions(repo, by)
        h.sync(repo)
        repo.git("reset", "-q", "--hard", ann)
        h.sync(repo)
        repo.git("reset", "-q", "--hard", made["Dan"])
        found = both_synced(h, fresh, repo)
        assert [found[(f"{n}.py", n)] for n in "ghk"] == [(w, made[w]) for w in ("Bob", "Cid", "Dan")]


def test_a_history_read_follows_moves_through_the_commits_whose_task_memories_it_reopens(
    git_repo, tmp_path, monkeypatch
):
    """Mia merges Bob's new file, Cid's rename of a.py to b.py (rewriting most of it) and
    Dan's new file. Reset back to Ann's commit and forward again, the sync's window (the
    last merge, Dan's commit) stops short; the history read reopens the task memory of
    Cid's merge, closed by the reset, and follows its move back: ``f`` is Ann's, as a
    first index has it (git blame, past a rename that rewrote most of the file, names Cid)."""
    repo, by = git_repo, partial(commit_by, git_repo, monkeypatch)
    long = "".join(f"\n\ndef g{i}():\n    return {i}\n" for i in range(12))
    with indexed_by_ann(repo, by, tmp_path, F + long) as (h, fresh):
        ann = repo.head()

        def rename() -> None:
            repo.git("mv", "a.py", "b.py")
            repo.write("b.py", F + long.replace("return", "return -"))

        for who, change in (("Bob", lambda: repo.write("x.py", "def x():\n    return 0\n")), ("Cid", rename),
                            ("Dan", lambda: repo.write("d.py", "def d():\n    return 4\n"))):  # fmt: skip
            repo.git("checkout", "-q", "-b", who)
            change()
            by(who, who)
            repo.git("checkout", "-q", "main")
            monkeypatch.setenv("GIT_AUTHOR_NAME", "Mia")
            repo.git("merge", "-q", "--no-ff", "-m", f"merge {who}", who)
        tip = repo.head()
        h.sync(repo)
        repo.git("reset", "-q", "--hard", ann)
        h.sync(repo)
        repo.git("reset", "-q", "--hard", tip)
        assert both_synced(h, fresh, repo)[("b.py", "f")] == ("Ann", ann)


def test_a_store_whose_sync_gave_the_target_what_commits_past_its_window_wrote_is_mended(
    git_repo, tmp_path, monkeypatch
):
    """A store of provenance 6 gave Dan, the target of a sync cut at two commits, Bob's
    function (past the window): the next sync reads the history again (provenance 7) and
    Bob's function is Bob's."""
    repo, by = git_repo, partial(commit_by, git_repo, monkeypatch)
    with indexed_by_ann(repo, by, tmp_path) as (h, fresh):
        made = three_functions(repo, by)
        h.sync(repo)
        g = structural(h)[("g.py", "g")]
        k = structural(h)[("k.py", "k")].payload
        h.store.set_payload([g.id], {f: k[f] for f in ("author", "written_in", "task_id")})  # as stop 114 left it
        h.store.set_payload([checkpoint_id(SCOPE), *(task_memory_id(SCOPE, c) for c in tasks(h))], {"provenance": 6})
        assert writers(h)[("g.py", "g")] == ("Dan", made["Dan"])
        assert both_synced(h, fresh, repo)[("g.py", "g")] == ("Bob", made["Bob"])


def test_a_store_whose_sync_paired_a_copy_past_its_window_as_a_move_is_mended(git_repo, tmp_path, monkeypatch):
    """A store of provenance 6 kept Ann as the writer of the copy Bob made past the
    window (the sync's diff paired it with the a.py Cid deleted): the next sync reads the
    history again and what that sync opened as moved is sought again: Bob's."""
    repo, by = git_repo, partial(commit_by, git_repo, monkeypatch)
    code = F + "\n\ndef g():\n    return 2\n"
    with indexed_by_ann(repo, by, tmp_path, code) as (h, fresh):
        ann = structural(h)[("a.py", "f")].payload
        bob = copied_then_deleted(repo, by, code)
        h.sync(repo)
        copied = [p.id for (path, _), p in structural(h).items() if path == "b.py"]
        h.store.set_payload(copied, {f: ann[f] for f in ("author", "written_in", "task_id")})  # as stop 114 left it
        h.store.set_payload([checkpoint_id(SCOPE), *(task_memory_id(SCOPE, c) for c in tasks(h))], {"provenance": 6})
        assert writers(h)[("b.py", "f")][0] == "Ann"
        assert both_synced(h, fresh, repo)[("b.py", "f")] == ("Bob", bob)


def test_a_window_of_one_commit_owes_no_history_read(git_repo, tmp_path, monkeypatch):
    """``backfill_commits = 1``: a sync reads its target alone and credits nothing (the
    target keeps what it opened), so three commits at once owe no history read."""
    repo, by = git_repo, partial(commit_by, git_repo, monkeypatch)
    repo.write("a.py", F)
    by("Ann", "a")
    h = Harness("edge", tmp_path / "state", IndexOptions(backfill_commits=1))
    try:
        h.sync(repo)
        made = three_functions(repo, by)
        result = h.sync(repo)
        assert (result.history_seconds, result.history_owed) == (0, False)
        assert writers(h)[("g.py", "g")] == ("Dan", made["Dan"])
    finally:
        h.close()
