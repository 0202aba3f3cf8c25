"""Who moves code does not write it: a version a sync opens where a commit renamed its
file, the code the same, keeps the writer (author, commit, task) of the version it was
moved from, as a first index finds by following the move back; a synced store and a
fresh index of the same commit name the same writers."""

from __future__ import annotations

from functools import partial
from pathlib import Path

import pytest

from recalld.ingest.files import IndexOptions
from recalld.ingest.records import checkpoint_id, task_memory_id
from recalld.ingest.store import MemoryFilter
from tests.ingest.conftest import Harness
from tests.ingest.test_tasks import SCOPE, author_name, commit_by, structural, tasks, written_in_its_authors_commit

CORE = "def f():\n    return 1\n\n\ndef g():\n    return 2\n\n\nclass A:\n    def m(self):\n        return 3\n"


def writers(h: Harness) -> dict[tuple[str, str], tuple[str, str | None]]:
    """(path, qualname) → (author's name, commit it was written in) of each live structural version."""
    return {key: (author_name(p.payload), p.payload.get("written_in")) for key, p in structural(h).items()}


def moved_to_src(harness: Harness, repo, by) -> tuple[str, str]:  # type: ignore[no-untyped-def]
    """Ann writes ``pkg/core.py``, Bob moves ``pkg`` to ``src``: a sync each. Their commits."""
    repo.write("pkg/core.py", CORE)
    ann = by("Ann", "core")
    harness.sync(repo)
    repo.git("mv", "pkg", "src")
    bob = by("Bob", "everything under src/")
    harness.sync(repo)
    return ann, bob


def test_a_file_moved_keeps_who_wrote_its_code(harness, git_repo, monkeypatch):
    """A mass move to ``src/`` opens every version at its new path, by the move's commit
    (``valid_from_commit``, ``change`` renamed), written by Ann as before; a rename with
    an edit gives the edited function and the module to the renamer, the rest stays Ann's."""
    repo, by = git_repo, partial(commit_by, git_repo, monkeypatch)
    ann, bob = moved_to_src(harness, repo, by)
    moved = structural(harness)
    assert {key[0] for key in moved} == {"src/core.py"}
    for point in moved.values():
        p = point.payload
        assert (p["change"], p["valid_from_commit"]) == ("renamed", bob)
        assert (author_name(p), p["written_in"], p["task_id"]) == ("Ann", ann, task_memory_id(SCOPE, ann))
    repo.git("mv", "src/core.py", "src/base.py")
    repo.write("src/base.py", CORE.replace("return 2", "return 20"))
    cid = by("Cid", "core.py is base.py; g returns 20")
    harness.sync(repo)
    assert writers(harness) == {
        ("src/base.py", "<module>"): ("Cid", cid), ("src/base.py", "g"): ("Cid", cid),
        ("src/base.py", "f"): ("Ann", ann), ("src/base.py", "A"): ("Ann", ann), ("src/base.py", "A.m"): ("Ann", ann),
    }  # fmt: skip
    assert bob in tasks(harness)  # the move has its task memory all the same
    written_in_its_authors_commit(harness, repo)


def test_code_moved_to_another_file_is_written_there(harness, git_repo, monkeypatch):
    """A function cut from one file and pasted into another, the first file staying, is
    the paster's code there (git blame without ``-C``; the history read finds the same)."""
    repo, by = git_repo, partial(commit_by, git_repo, monkeypatch)
    repo.write("core.py", CORE)
    by("Ann", "core")
    harness.sync(repo)
    repo.write("core.py", CORE.replace("def f():\n    return 1\n\n\n", ""))
    repo.write("util.py", "def f():\n    return 1\n")
    dan = by("Dan", "f to util.py")
    harness.sync(repo)
    assert writers(harness)[("util.py", "f")] == ("Dan", dan)


def history_of_moves(repo, monkeypatch) -> list[str]:  # type: ignore[no-untyped-def]
    """Commits that move code about: a package moved under ``src/``, a file renamed with
    edits, a class split into a new file, a file moved back, a function pasted elsewhere."""
    by = partial(commit_by, repo, monkeypatch)
    made = []
    repo.write("pkg/core.py", CORE)
    repo.write("pkg/extra.py", "def h():\n    return 4\n")
    made.append(by("Ann", "core and extra"))
    repo.git("mv", "pkg", "src")
    made.append(by("Bob", "everything under src/"))
    repo.git("mv", "src/core.py", "src/base.py")
    repo.write("src/base.py", CORE.replace("return 2", "return 20"))
    made.append(by("Cid", "core.py is base.py; g returns 20"))
    repo.write("src/base.py", CORE.replace("return 2", "return 20").split("\n\nclass A")[0] + "\n")
    repo.write("src/a.py", "class A:\n    def m(self):\n        return 3\n")
    made.append(by("Dan", "A to its own file"))
    repo.git("mv", "src/extra.py", "extra.py")
    made.append(by("Eve", "extra.py back at the top"))
    repo.write("extra.py", "def h():\n    return 4\n\n\ndef k():\n    return 5\n")
    made.append(by("Fay", "k"))
    return made


@pytest.mark.parametrize("one_by_one", [True, False], ids=["a sync a commit", "one sync over all"])
def test_a_synced_store_names_the_writers_a_fresh_index_finds(git_repo, tmp_path, monkeypatch, one_by_one):
    """Syncs over a history of moves, a commit at a time (the hooks') or all at once (a
    pull), name the same writer of every live version as a first index of the tip does,
    which follows the moves back through the history."""
    repo = git_repo
    repo.write("seed.py", "def s():\n    return 0\n")
    commit_by(repo, monkeypatch, "Zed", "seed")
    synced = Harness("edge", tmp_path / "synced")
    fresh = Harness("edge", tmp_path / "fresh", IndexOptions(backfill_commits=50))
    try:
        synced.sync(repo)
        start = repo.head()
        made = history_of_moves(repo, monkeypatch)
        for commit in made if one_by_one else made[-1:]:
            repo.git("reset", "-q", "--hard", commit)
            synced.sync(repo)
        fresh.sync(repo)
        found = writers(synced)
        assert found == writers(fresh)
        ann, bob, cid, dan, eve, fay = made
        assert found[("src/a.py", "A.m")] == ("Dan", dan)  # a new file: written there
        assert found[("src/base.py", "f")] == ("Ann", ann) and found[("extra.py", "h")] == ("Ann", ann)
        assert found[("extra.py", "k")] == ("Fay", fay) and found[("seed.py", "s")] == ("Zed", start)
        written_in_its_authors_commit(synced, repo)
    finally:
        synced.close()
        fresh.close()


def test_a_store_that_gave_moved_code_to_the_mover_is_mended_by_the_next_sync(harness, git_repo, monkeypatch):
    """Provenance 5 gave a sync's moved code to the commit that moved it. The next sync
    reads the history again and gives it back to the commit that wrote it."""
    repo, by = git_repo, partial(commit_by, git_repo, monkeypatch)
    ann, bob = moved_to_src(harness, repo, by)
    ids = [p.id for p in structural(harness).values()]
    mover = {"author": "Bob <author@example.invalid>", "written_in": bob, "task_id": task_memory_id(SCOPE, bob)}
    harness.store.set_payload(ids, mover)
    harness.store.set_payload([checkpoint_id(SCOPE), *(task_memory_id(SCOPE, c) for c in tasks(harness))],
                              {"provenance": 5})  # fmt: skip
    assert set(writers(harness).values()) == {("Bob", bob)}
    again = harness.sync(repo)
    assert again.mode == "noop" and not again.history_owed
    assert set(writers(harness).values()) == {("Ann", ann)}
    written_in_its_authors_commit(harness, repo)


def test_code_moved_whose_writer_is_still_sought_is_found_by_the_history_read(harness, git_repo, monkeypatch):
    """Code whose writer a first index's history read has yet to find, moved by the next
    commit: the sync opens it without a writer (not the mover's), and the history read it
    owes follows the move back to the commit that wrote it."""
    repo, by = git_repo, partial(commit_by, git_repo, monkeypatch)
    repo.write("pkg/core.py", CORE)
    ann = by("Ann", "core")
    harness.sync(repo)
    unwritten = {"author": None, "written_in": None, "task_id": None}
    harness.store.set_payload([p.id for p in structural(harness).values()], unwritten)
    harness.store.set_payload([checkpoint_id(SCOPE)], {"history_owed": 1})  # as before its history read
    repo.git("mv", "pkg", "src")
    by("Bob", "everything under src/")
    harness.sync(repo)
    assert set(writers(harness).values()) == {("Ann", ann)}
    flt = MemoryFilter(repo="r", types=("structural",), deprecated=1)
    assert {author_name(p.payload) for p in harness.store.scroll(flt)} == {"Ann"}  # the closed ones too
    written_in_its_authors_commit(harness, repo)


def test_a_reset_back_and_forward_keeps_the_writers(harness, git_repo, monkeypatch, tmp_path: Path):
    """A reset back before the move reopens the code at its old path, and forward again
    at the new one: Ann's all along, as the way forward had it."""
    repo, by = git_repo, partial(commit_by, git_repo, monkeypatch)
    repo.write("pkg/core.py", CORE)
    ann = by("Ann", "core")
    harness.sync(repo)
    repo.git("mv", "pkg", "src")
    by("Bob", "everything under src/")
    repo.write("src/core.py", CORE + "\n\ndef n():\n    return 6\n")
    cid = by("Cid", "n")
    harness.sync(repo)
    forward = writers(harness)
    assert forward[("src/core.py", "f")] == ("Ann", ann) and forward[("src/core.py", "n")] == ("Cid", cid)
    repo.git("reset", "-q", "--hard", ann)
    harness.sync(repo)
    assert set(writers(harness).values()) == {("Ann", ann)}
    repo.git("reset", "-q", "--hard", cid)
    harness.sync(repo)
    assert writers(harness) == forward
    written_in_its_authors_commit(harness, repo)


def test_a_reset_forward_gives_code_written_then_moved_within_the_window_to_its_writer(harness, git_repo, monkeypatch):
    """Bob edits ``total``, Cid renames its file, Dan edits ``tax``; one sync over the
    three credits ``total`` to Bob (the store never held Bob's version at the old path,
    so no task memory links it there). A reset back and forward again, reading none of
    those commits, gives it Bob again: the interval it had before names him."""
    repo, by = git_repo, partial(commit_by, git_repo, monkeypatch)
    repo.write("orders.py", "def total(items):\n    return sum(items)\n\n\ndef tax(x):\n    return x\n")
    ann = by("Ann", "start")
    harness.sync(repo)
    repo.write("orders.py", "def total(items):\n    return sum(items) * 2\n\n\ndef tax(x):\n    return x\n")
    bob = by("Bob", "double totals")
    repo.git("mv", "orders.py", "cart.py")
    by("Cid", "orders is cart")
    repo.write("cart.py", "def total(items):\n    return sum(items) * 2\n\n\ndef tax(x):\n    return x * 3\n")
    dan = by("Dan", "tax triples")
    harness.sync(repo)
    forward = writers(harness)
    assert (forward[("cart.py", "total")], forward[("cart.py", "tax")]) == (("Bob", bob), ("Dan", dan))
    repo.git("reset", "-q", "--hard", ann)
    harness.sync(repo)
    repo.git("reset", "-q", "--hard", dan)
    harness.sync(repo)
    assert writers(harness) == forward
    written_in_its_authors_commit(harness, repo)


@pytest.mark.parametrize("reset", [False, True], ids=["one sync", "and a reset back and forward"])
def test_code_a_commit_of_the_window_moved_keeps_its_writer_where_the_window_pairs_no_files(
    harness, git_repo, monkeypatch, reset
):
    """Bob renames a.py, Cid rewrites all of it but ``f``: from before Bob to after Cid git
    pairs no files, and the sync over both finds ``f`` moved from a.py to b.py. Bob's
    rename, followed back, takes it to a.py before the window, where Ann wrote it."""
    repo, by = git_repo, partial(commit_by, git_repo, monkeypatch)
    filler = "".join(f"\n\ndef old{i}(x):\n    return x * {i} + {i * i}\n" for i in range(12))
    repo.write("a.py", "def f():\n    return 1\n" + filler)
    ann = by("Ann", "a")
    harness.sync(repo)
    repo.git("mv", "a.py", "b.py")
    by("Bob", "a.py is b.py")
    repo.write("b.py", "def f():\n    return 1\n" + filler.replace("old", "new").replace(" + ", " - "))
    cid = by("Cid", "new functions")
    harness.sync(repo)
    if reset:
        repo.git("reset", "-q", "--hard", ann)
        harness.sync(repo)
        repo.git("reset", "-q", "--hard", cid)
        harness.sync(repo)
    found = writers(harness)
    assert (found[("b.py", "f")], found[("b.py", "new3")]) == (("Ann", ann), ("Cid", cid))
    written_in_its_authors_commit(harness, repo)


def test_code_a_merge_past_its_window_brought_as_a_move_is_left_for_the_history_read(git_repo, tmp_path, monkeypatch):
    """Bob copies old.py to new.py on a branch Mia merges; Cid deletes old.py on another
    she merges next. One sync over both, its window cut at two commits, finds old.py
    renamed to new.py; but the commit that wrote new.py's ``f`` may lie past the window
    (a first index finds Bob): it is not given Ann's writer but left, as what none of the
    window's commits wrote, to the history read the sync owes, which finds Bob."""
    repo, by = git_repo, partial(commit_by, git_repo, monkeypatch)
    code = "def f():\n    return 1\n" + "".join(f"\n\ndef g{i}():\n    return {i}\n" for i in range(6))
    repo.write("old.py", code)
    by("Ann", "old")
    h = Harness("edge", tmp_path / "state", IndexOptions(backfill_commits=2))
    fresh = Harness("edge", tmp_path / "fresh", IndexOptions(backfill_commits=2))
    try:
        h.sync(repo)
        made: dict[str, str] = {}
        for branch, who, change in (("copy", "Bob", lambda: repo.write("new.py", code)),
                                    ("drop", "Cid", lambda: repo.git("rm", "-q", "old.py"))):  # fmt: skip
            repo.git("checkout", "-q", "-b", branch)
            change()
            made[who] = by(who, branch)
            repo.write(f"{branch}.txt", "more\n")
            by(who, f"{branch}: more")
            repo.git("checkout", "-q", "main")
            monkeypatch.setenv("GIT_AUTHOR_NAME", "Mia")
            repo.git("merge", "-q", "--no-ff", "-m", f"merge {branch}", branch)
        h.sync(repo)
        fresh.sync(repo)
        assert writers(fresh)[("new.py", "f")] == ("Bob", made["Bob"])
        assert writers(h) == writers(fresh)
        assert structural(h)[("new.py", "f")].payload["task_id"] == structural(fresh)[("new.py", "f")].payload["task_id"]
        written_in_its_authors_commit(h, repo)
    finally:
        h.close()
        fresh.close()


def test_a_todo_moved_with_its_file_keeps_who_wrote_it(harness, git_repo, monkeypatch):
    """Bob writes a TODO, Cid renames its file: the TODO is still Bob's, not the mover's."""
    repo, by = git_repo, partial(commit_by, git_repo, monkeypatch)
    repo.write("pkg/core.py", CORE)
    by("Ann", "core")
    harness.sync(repo)
    repo.write("pkg/core.py", CORE.replace("    return 1\n", "    # TODO: handle the empty case\n    return 1\n"))
    bob = by("Bob", "a TODO")
    harness.sync(repo)
    repo.git("mv", "pkg", "src")
    by("Cid", "everything under src/")
    harness.sync(repo)
    todo = [p.payload for p in harness.store.scroll(MemoryFilter(repo="r", types=("debt",), deprecated=0))]
    assert [(p["path"], author_name(p), p["written_in"]) for p in todo] == [("src/core.py", "Bob", bob)]


@pytest.mark.parametrize("source", ["vendor/helper.py", "helper.txt"])
def test_code_moved_from_a_path_the_store_holds_nothing_of_keeps_who_wrote_it(harness, git_repo, monkeypatch, source):
    """Ann's ``vendor/helper.py`` (not read: vendored) or ``helper.txt`` (no code), moved by
    Bob to ``lib/helper.py``: the sync opens it without a writer, not Bob's, and the
    history read it owes follows the move back to Ann, as a fresh index finds."""
    repo, by = git_repo, partial(commit_by, git_repo, monkeypatch)
    repo.write(source, "def helper(a):\n    return a * 2\n")
    repo.write("app.py", "def app():\n    return 1\n")
    ann = by("Ann", "a helper")
    harness.sync(repo)
    (repo.path / "lib").mkdir()
    repo.git("mv", source, "lib/helper.py")
    by("Bob", "the helper is ours")
    harness.sync(repo)
    assert writers(harness)[("lib/helper.py", "helper")] == ("Ann", ann)
    written_in_its_authors_commit(harness, repo)
