"""A store whose history an earlier release read (its checkpoint's ``provenance`` older
than PROVENANCE_VERSION, or missing) has it read again by the next sync, whatever that
sync brings: its task memories written again whole, its versions' writers sought."""

from __future__ import annotations

from functools import partial

import pytest

from recalld.ingest import tasks as tasks_module
from recalld.ingest.records import PROVENANCE_VERSION, checkpoint_id, task_memory_id
from recalld.ingest.store import StoredPoint
from tests.ingest.conftest import Harness
from recalld.ingest.files import IndexOptions
from tests.ingest.test_tasks import SCOPE, author_name, commit_by, commits_read, structural, tasks
from tests.ingest.test_tasks import written_in_its_authors_commit


def pull_request(repo, monkeypatch) -> str:  # type: ignore[no-untyped-def]
    """Ann writes f and g; Bob changes f on a branch that Mia merges; Hal adds a file. The merge."""
    by = partial(commit_by, repo, monkeypatch)
    repo.write("a.py", "def f():\n    return 1\n\n\ndef g():\n    return 1\n")
    by("Ann", "f and g")
    repo.git("checkout", "-q", "-b", "feat")
    repo.write("a.py", "def f():\n    return 2\n\n\ndef g():\n    return 1\n")
    by("Bob", "f returns 2")
    repo.git("checkout", "-q", "main")
    monkeypatch.setenv("GIT_AUTHOR_NAME", "Mia")
    repo.git("merge", "-q", "--no-ff", "-m", "merge feat", "feat")
    merge = repo.head()
    repo.write("b.py", "def b():\n    return 3\n")
    by("Hal", "b")
    return merge


def as_an_earlier_release_left_it(h: Harness, merge: str, *, unset: tuple[str, str] = ("a.py", "f")) -> None:
    """What a store of release 1 held: what the merge brought in (``unset``) without an
    author, the merge's task memory without the merged commits' subjects, task memories
    and a checkpoint without provenance."""
    f = structural(h)[unset]
    h.store.set_payload([f.id], {"author": None})
    mid = task_memory_id(SCOPE, merge)
    text = tasks(h)[merge]["text"]
    h.store.set_payload([mid], {"text": "\n".join(line for line in text.split("\n") if not line.startswith("merged:"))})
    for commit in tasks(h):
        h.store.set_payload([task_memory_id(SCOPE, commit)], {"provenance": None})
    point = h.store.retrieve([checkpoint_id(SCOPE)])[0]
    payload = {k: v for k, v in point.payload.items() if k != "provenance"}
    h.store.upsert([StoredPoint(id=point.id, payload=payload, vector=None)])


def test_a_history_an_earlier_release_read_is_read_again(git_repo, tmp_path, monkeypatch):
    merge = pull_request(git_repo, monkeypatch)
    h = Harness("edge", tmp_path / "state")
    try:
        h.sync(git_repo)
        assert h.checkpoint()["provenance"] == PROVENANCE_VERSION
        assert author_name(structural(h)[("a.py", "f")].payload) == "Bob"
        as_an_earlier_release_left_it(h, merge)
        assert author_name(structural(h)[("a.py", "f")].payload) == ""
        read = commits_read(monkeypatch)
        again = h.sync(git_repo)  # nothing new in git
        assert (again.history_owed, again.history_added) == (False, 3)  # every task memory (first parents)
        assert again.history_embedded == 0  # each text was embedded before
        assert set(read) >= set(tasks(h))
        assert author_name(structural(h)[("a.py", "f")].payload) == "Bob"
        assert "\nmerged: f returns 2" in tasks(h)[merge]["text"]
        checkpoint = h.checkpoint()
        assert (checkpoint["provenance"], checkpoint["history_owed"]) == (PROVENANCE_VERSION, 0)
        read.clear()
        assert h.sync(git_repo).history_added == 0 and read == []  # read once
    finally:
        h.close()


@pytest.mark.parametrize("kind", ["edge", "server"])
def test_versions_an_earlier_release_gave_an_author_alone_get_the_commit_it_wrote_them_in(
    git_repo, tmp_path, monkeypatch, kind
):
    """A store of provenance 2 named who wrote a version but not in which commit: the next
    sync reads the history again and each version gets the commit (``written_in``) it
    would have had from a first index, its author and task unchanged: Ann's g from the
    search past the history read (two commits here), Bob's f through the merge."""
    merge = pull_request(git_repo, monkeypatch)
    h = Harness(kind, tmp_path / "state", IndexOptions(backfill_commits=2))
    try:
        h.sync(git_repo)
        fields = ("author", "task_id", "written_in")
        first = {key: tuple(map(p.payload.get, fields)) for key, p in structural(h).items()}
        assert written_in_its_authors_commit(h, git_repo) == len(first) == 5
        h.store.set_payload([p.id for p in structural(h).values()], {"written_in": None})
        h.store.set_payload([checkpoint_id(SCOPE), *(task_memory_id(SCOPE, c) for c in tasks(h))], {"provenance": 2})
        again = h.sync(git_repo)  # nothing new in git
        assert again.mode == "noop" and again.history_added == 2 and not again.history_owed
        assert {key: tuple(map(p.payload.get, fields)) for key, p in structural(h).items()} == first
        ann = git_repo.git("rev-list", "--max-parents=0", "HEAD")
        assert first[("a.py", "g")] == (first[("a.py", "g")][0], None, ann)  # past the history read: no task
        assert first[("a.py", "f")][1:] == (task_memory_id(SCOPE, merge), git_repo.git("rev-parse", "feat"))
    finally:
        h.close()


def test_a_history_read_again_that_stops_goes_on_where_it_stopped(git_repo, tmp_path, monkeypatch):
    """The daemon stops the read for a newer event: the checkpoint keeps the earlier
    provenance (through the next sync's write too), and each read goes on where the one
    before stopped (what it wrote carries this release's provenance), so syncs that are
    each stopped after a chunk still finish it."""
    monkeypatch.setattr(tasks_module, "HISTORY_CHUNK", 1)
    merge = pull_request(git_repo, monkeypatch)
    h = Harness("edge", tmp_path / "state")
    try:
        h.sync(git_repo)
        as_an_earlier_release_left_it(h, merge)
        seen: list[int] = []  # the checkpoint's mark while the read goes on: owed
        stopped = h.sync(git_repo, stop_history=lambda: seen.append(h.checkpoint()["history_owed"]) or True)
        assert (stopped.history_owed, stopped.history_added, seen) == (True, 1, [1])
        assert (h.checkpoint().get("provenance"), h.checkpoint()["history_owed"]) == (None, 1)
        assert author_name(structural(h)[("a.py", "f")].payload) == ""
        git_repo.write("c.py", "def c():\n    return 4\n")
        new = commit_by(git_repo, monkeypatch, "Ivy", "c")
        syncs = [h.sync(git_repo, stop_history=lambda: True)]
        assert syncs[0].tasks_added == 1 and new in tasks(h)
        while syncs[-1].history_owed and len(syncs) < 5:
            syncs.append(h.sync(git_repo, stop_history=lambda: True))
        assert [s.history_added for s in syncs] == [1, 1] and not syncs[-1].history_owed
        assert {p["provenance"] for p in tasks(h).values()} == {PROVENANCE_VERSION}
        assert author_name(structural(h)[("a.py", "f")].payload) == "Bob"
        assert "\nmerged: f returns 2" in tasks(h)[merge]["text"]
        assert (h.checkpoint()["provenance"], h.checkpoint()["history_owed"]) == (PROVENANCE_VERSION, 0)
    finally:
        h.close()


def test_with_task_memory_off_the_history_is_not_read_but_stays_owed_to_a_later_release(
    git_repo, tmp_path, monkeypatch
):
    """No history read without task memory: the checkpoint keeps what it had, so turning
    task memory on later reads the history with this release's rules."""
    from recalld.ingest.files import IndexOptions

    merge = pull_request(git_repo, monkeypatch)
    h = Harness("edge", tmp_path / "state")
    try:
        h.sync(git_repo)
        as_an_earlier_release_left_it(h, merge)
    finally:
        h.close()
    off = Harness("edge", tmp_path / "state", IndexOptions(backfill_commits=0))
    try:
        git_repo.write("c.py", "def c():\n    return 4\n")
        commit_by(git_repo, monkeypatch, "Ivy", "c")
        result = off.sync(git_repo)
        assert (result.history_added, result.history_owed) == (0, False)
        assert off.checkpoint().get("provenance") is None
    finally:
        off.close()
    on = Harness("edge", tmp_path / "state")
    try:
        assert on.sync(git_repo).history_owed is False
        assert author_name(structural(on)[("a.py", "f")].payload) == "Bob"
        assert on.checkpoint()["provenance"] == PROVENANCE_VERSION
    finally:
        on.close()


def test_code_an_earlier_release_left_with_an_older_merge_is_followed_again(git_repo, tmp_path, monkeypatch):
    """Bob's pull request changes f; a later one renames its file. The stop-105 release
    followed the rename back to the older merge and left f with that merge's task, no
    author (it read no merged branch). Read again, f is followed the same way and the
    older merge's branch gives it Bob, as a first index does now."""
    by = partial(commit_by, git_repo, monkeypatch)
    git_repo.write("a.py", "def f():\n    return 1\n\n\ndef g():\n    return 1\n")
    by("Ann", "f and g")
    for branch, who, change in (("feat", "Bob", "f returns 2"), ("move", "Cid", "a.py is b.py")):
        git_repo.git("checkout", "-q", "-b", branch)
        if branch == "feat":
            git_repo.write("a.py", "def f():\n    return 2\n\n\ndef g():\n    return 1\n")
        else:
            git_repo.git("mv", "a.py", "b.py")
        by(who, change)
        git_repo.git("checkout", "-q", "main")
        monkeypatch.setenv("GIT_AUTHOR_NAME", "Mia")
        git_repo.git("merge", "-q", "--no-ff", "-m", f"merge {branch}", branch)
    h = Harness("edge", tmp_path / "state")
    try:
        h.sync(git_repo)
        first = {key: (p.payload["task_id"], author_name(p.payload)) for key, p in structural(h).items()}
        assert first[("b.py", "f")][1] == "Bob" and first[("b.py", "g")][1] == "Ann"
        as_an_earlier_release_left_it(h, git_repo.head(), unset=("b.py", "f"))
        assert author_name(structural(h)[("b.py", "f")].payload) == ""
        h.sync(git_repo)
        assert {key: (p.payload["task_id"], author_name(p.payload)) for key, p in structural(h).items()} == first
    finally:
        h.close()


@pytest.mark.parametrize("tip_merges", [False, True])
def test_a_first_index_that_gave_the_tip_every_version_is_credited_again(git_repo, tmp_path, monkeypatch, tip_merges):
    """Releases before stop 103 gave each version a first index found the tip's author
    and task, and wrote no ``change``. Read again, the tip keeps what it wrote and the
    rest goes to the commits that did, as a first index gives it now; a tip that is a
    merge keeps its task alone for what it brought in, its branch's commits the author."""
    pull_request(git_repo, monkeypatch)
    if tip_merges:
        git_repo.git("checkout", "-q", "-b", "late")
        git_repo.write("c.py", "def c():\n    return 4\n")
        commit_by(git_repo, monkeypatch, "Ivy", "c")
        git_repo.git("checkout", "-q", "main")
        git_repo.git("merge", "-q", "--no-ff", "-m", "merge late", "late")
    tip = git_repo.head()
    h = Harness("edge", tmp_path / "state")
    try:
        h.sync(git_repo)
        first = {key: (p.payload["task_id"], author_name(p.payload)) for key, p in structural(h).items()}
        assert first[("a.py", "f")][1] == "Bob" and first[("b.py", "b")][1] == "Hal"
        assert not tip_merges or first[("c.py", "c")] == (task_memory_id(SCOPE, tip), "Ivy")
        versions = structural(h)
        hal = versions[("b.py", "b")].payload["author"]
        h.store.set_payload([p.id for p in versions.values()],
                            {"author": hal, "task_id": task_memory_id(SCOPE, tip), "change": None})  # fmt: skip
        as_an_earlier_release_left_it(h, git_repo.head(), unset=("a.py", "g"))
        h.sync(git_repo)
        assert {key: (p.payload["task_id"], author_name(p.payload)) for key, p in structural(h).items()} == first
    finally:
        h.close()


def test_what_a_read_gave_through_a_move_keeps_its_writer_when_read_again(git_repo, tmp_path, monkeypatch):
    """Ann wrote f, Bob moved its file to src/ and Hal added b: the history read follows
    the move and gives f to Ann. Read again for an earlier release's provenance, f is
    not taken for what Ann's task names and her commit did not write: that commit
    did not open it (the sync of the tip did); only such are found again. One commit a
    chunk: Bob's is read again before Ann's."""
    monkeypatch.setattr(tasks_module, "HISTORY_CHUNK", 1)
    by = partial(commit_by, git_repo, monkeypatch)
    git_repo.write("a.py", "def f():\n    return 1\n")
    by("Ann", "f")
    git_repo.git("mv", "a.py", "src.py")
    by("Bob", "a.py is src.py")
    git_repo.write("b.py", "def b():\n    return 3\n")
    by("Hal", "b")
    h = Harness("edge", tmp_path / "state")
    try:
        h.sync(git_repo)
        first = {key: (p.payload["task_id"], author_name(p.payload)) for key, p in structural(h).items()}
        assert first[("src.py", "f")][1] == "Ann"
        as_an_earlier_release_left_it(h, git_repo.head(), unset=("b.py", "b"))
        h.sync(git_repo)
        assert {key: (p.payload["task_id"], author_name(p.payload)) for key, p in structural(h).items()} == first
    finally:
        h.close()
