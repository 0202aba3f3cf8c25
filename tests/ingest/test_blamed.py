"""Writers by git blame (``ingest/blamed.py``): only where the search read the history to
its root, only for versions with neither an author nor a task, file by file with a stop."""

from __future__ import annotations

import subprocess
from functools import partial

from recalld.ingest.blamed import blame_leftovers
from recalld.ingest.files import IndexOptions
from recalld.ingest.gitrepo import GitRepository
from recalld.ingest.plan import Scope
from recalld.ingest.records import PROVENANCE_VERSION, checkpoint_id, task_memory_id
from recalld.ingest.result import NoProgress
from tests.ingest.conftest import Harness
from tests.ingest.test_reread_writers import written
from tests.ingest.test_tasks import SCOPE, commit_by, structural, tasks


def languages_named_later(repo, monkeypatch) -> dict[str, str]:  # type: ignore[no-untyped-def]
    """Ann writes a header and a ``.inc`` file, Bob a module, Cal names the header C++ and
    the ``.inc`` files Python: what only Cal's attributes make read, no commit produced."""
    by = partial(commit_by, repo, monkeypatch)
    header = "static int scale(int v) { return v; }\nstatic double scale(double v) { return v; }\n"
    repo.write("include/codec.h", header)
    repo.write("tool.inc", "def helper():\n    return 1\n")
    ann = by("Ann", "codec, tool")
    repo.write("main.py", "def main():\n    return 0\n")
    bob = by("Bob", "main")
    repo.write(".gitattributes", "*.h linguist-language=C++\n*.inc linguist-language=Python\n")
    cal = by("Cal", "languages")
    return {"ann": ann, "bob": bob, "cal": cal}


def test_a_search_that_stops_short_of_the_root_blames_nothing(git_repo, tmp_path, monkeypatch):
    """The search past the history read walks ``writer_commits`` only: what it leaves may
    be older code it did not reach, which blame would walk the whole history for. It
    keeps no writer, and the history is not owed again for it."""
    languages_named_later(git_repo, monkeypatch)
    h = Harness("edge", tmp_path / "short", IndexOptions(backfill_commits=1, writer_commits=1))
    try:
        h.sync(git_repo)
        found = written(h)
        assert not h.checkpoint().get("history_owed")
    finally:
        h.close()
    assert found[("main.py", "main")] == ("Bob", found[("main.py", "main")][1])  # the search read Bob's commit
    assert found[("tool.inc", "helper")] == found[("include/codec.h", "scale(int)")] == ("", None)
    whole = Harness("edge", tmp_path / "whole", IndexOptions(backfill_commits=1, writer_commits=2))
    try:
        whole.sync(git_repo)
        assert written(whole)[("tool.inc", "helper")][0] == "Ann"  # down to the root: blamed
    finally:
        whole.close()


def test_blame_stops_between_files_when_asked_and_gives_the_rest_later(git_repo, tmp_path, monkeypatch):
    """With the history off nothing is read for writers: the first index leaves all
    without one. Asked to stop after its first file, blame has given that file's versions
    theirs and says it did not finish; the next call gives the rest, and leaves a version
    with a task (a merge's alone) as it is."""
    made = languages_named_later(git_repo, monkeypatch)
    h = Harness("edge", tmp_path / "state", IndexOptions(backfill_commits=0))
    scope, git = Scope("r", "main"), GitRepository(str(git_repo.path))
    try:
        h.sync(git_repo)
        assert {w for w, _ in written(h).values()} == {""}
        main = next(p for p in h.memories() if p.payload["qualname"] == "main")
        h.store.set_payload([main.id], {"task_id": "a merge's task"})
        count, complete = blame_leftovers(h.store, git, scope, made["cal"], stop=lambda: True, progress=NoProgress())
        first = written(h)
        count2, complete2 = blame_leftovers(h.store, git, scope, made["cal"], stop=lambda: False, progress=NoProgress())
        then = written(h)
    finally:
        h.close()
    assert (count, complete) == (3, False)  # include/codec.h: its module and two overloads
    assert {k for k, w in first.items() if w[0]} == {k for k in first if k[0] == "include/codec.h"}
    assert (count2, complete2) == (3, True)  # main.py's module, tool.inc's two
    assert then[("tool.inc", "helper")] == ("Ann", made["ann"])
    assert then[("main.py", "<module>")] == ("Bob", made["bob"])
    assert then[("main.py", "main")] == ("", None)


def test_a_full_sync_gives_no_commit_of_its_own_the_code_of_files_they_did_not_change(git_repo, tmp_path, monkeypatch):
    """``sync --full`` reads every file again: what it opens in a file no commit of the
    sync changed (one only Cal's attributes made readable) is not Cal's, where what Cal
    changed is; before stop 110 all of it was Cal's."""
    made = languages_named_later(git_repo, monkeypatch)
    git_repo.git("reset", "-q", "--hard", made["bob"])
    h = Harness("edge", tmp_path / "state")
    try:
        h.sync(git_repo)
        git_repo.write(".gitattributes", "*.inc linguist-language=Python\n")
        git_repo.write("main.py", "def main():\n    return 1\n")
        cal = commit_by(git_repo, monkeypatch, "Cal", "inc is Python, main returns 1")
        result = h.sync(git_repo, full=True)
        found = written(h)
        assert not h.checkpoint().get("history_owed")
    finally:
        h.close()
    assert result.mode == "full"
    assert found[("main.py", "main")] == ("Cal", cal) and found[("main.py", "<module>")] == ("Cal", cal)
    assert found[("tool.inc", "helper")] == found[("tool.inc", "<module>")] == ("Ann", made["ann"])


def test_a_shallow_clone_s_boundary_is_no_writer_of_what_blame_gives_it(git_repo, tmp_path, monkeypatch):
    """``git clone --depth 2``: git blame gives the boundary commit every line older than
    it, code it need not have written (the tip's in a ``--depth 1`` clone, as CI makes
    them). Such code keeps no writer; what the clone's own commit changed is its."""
    by = partial(commit_by, git_repo, monkeypatch)
    git_repo.write("a.py", "def f():\n    return 1\n")
    by("Ann", "f")
    git_repo.write("b.py", "def g():\n    return 2\n\n\ndef h():\n    return 3\n")
    by("Bob", "g and h")
    git_repo.write("b.py", "def g():\n    return 20\n\n\ndef h():\n    return 3\n")
    cal = by("Cal", "g returns 20")
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", "--depth=2", f"file://{git_repo.path}", str(clone)], check=True)

    class Shallow:
        path = clone

    h = Harness("edge", tmp_path / "state")
    try:
        h.sync(Shallow)
        found = written(h)
    finally:
        h.close()
    assert found[("b.py", "g")] == ("Cal", cal)
    assert found[("a.py", "f")] == found[("b.py", "h")] == found[("a.py", "<module>")] == ("", None)


def test_a_store_of_an_earlier_release_gets_the_writers_blame_finds(git_repo, tmp_path, monkeypatch):
    """A store of provenance 3 left what no commit produced without a writer: the next
    sync, with nothing new in git, reads the history again and blames it, as a first
    index by this release does."""
    made = languages_named_later(git_repo, monkeypatch)
    h = Harness("edge", tmp_path / "state")
    try:
        h.sync(git_repo)
        first = written(h)
        blamed = [p.id for p in structural(h).values() if p.payload["path"] == "tool.inc"]
        h.store.set_payload(blamed, {"author": None, "written_in": None})
        h.store.set_payload([checkpoint_id(SCOPE), *(task_memory_id(SCOPE, c) for c in tasks(h))], {"provenance": 3})
        assert written(h)[("tool.inc", "helper")] == ("", None)
        again = h.sync(git_repo)
        assert again.mode == "noop" and not again.history_owed
        assert written(h) == first and first[("tool.inc", "helper")] == ("Ann", made["ann"])
        assert h.checkpoint()["provenance"] == PROVENANCE_VERSION == 7
    finally:
        h.close()
