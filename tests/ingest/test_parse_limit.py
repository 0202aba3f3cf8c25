"""Commits that changed more files than a commit's read parses (``commits.MAX_PARSED_FILES``):
what they wrote past the limit is still theirs, wherever the search for writers meets them."""

from __future__ import annotations

import pytest

from recalld.ingest import blamed as blamed_module
from recalld.ingest import commits as commits_module
from recalld.ingest.files import IndexOptions
from recalld.ingest.records import PROVENANCE_VERSION, checkpoint_id, task_memory_id
from tests.ingest.conftest import Harness
from tests.ingest.test_tasks import SCOPE, author_name, commit_by, structural, tasks, written_in_its_authors_commit

BIG = "def k():\n" + "".join(f"    x{i} = {i}\n" for i in range(12)) + "    return 3\n"


def synced_over_bob_and_cal(harness, repo, monkeypatch) -> dict[str, str]:  # type: ignore[no-untyped-def]
    """Ann writes ``k`` in z.py, a sync; Bob edits three files, z.py third by path (past the
    limit of two) with ``k2``; Cal adds a file; one sync over Bob's and Cal's commits."""
    monkeypatch.setattr(commits_module, "MAX_PARSED_FILES", 2)
    repo.write("z.py", BIG)
    commit_by(repo, monkeypatch, "Ann", "k")
    harness.sync(repo)
    made = bob_then_cal(repo, monkeypatch, 1)
    harness.sync(repo)
    return made


def bob_then_cal(repo, monkeypatch, n: int) -> dict[str, str]:  # type: ignore[no-untyped-def]
    """Bob writes ``one`` and ``two`` (returning ``n`` and ``2 * n``) and ``k2`` in z.py,
    third by path; Cal adds ``three`` in c.py."""
    repo.write("a1.py", f"def one():\n    return {n}\n")
    repo.write("a2.py", f"def two():\n    return {2 * n}\n")
    repo.write("z.py", BIG + "\n\ndef k2():\n    return 4\n")
    bob = commit_by(repo, monkeypatch, "Bob", "one, two and k2")
    repo.write("c.py", "def three():\n    return 3\n")
    return {"bob": bob, "cal": commit_by(repo, monkeypatch, "Cal", "three")}


def test_a_sync_over_several_commits_credits_what_one_wrote_past_the_limit(harness, git_repo, monkeypatch):
    """Bob's commit changes three files; the third (by path) is past the limit of two. A
    sync over his commit and Cal's gives what Bob wrote there to Bob, not to Cal's target."""
    repo = git_repo
    bob = synced_over_bob_and_cal(harness, repo, monkeypatch)["bob"]
    found = {key: author_name(p.payload) for key, p in structural(harness).items()}
    assert found[("z.py", "k2")] == "Bob" and found[("z.py", "k")] == "Ann"
    assert found[("a1.py", "one")] == "Bob" and found[("c.py", "three")] == "Cal"
    assert tasks(harness)[bob]["symbols_truncated"] is True
    written_in_its_authors_commit(harness, repo)


def test_a_file_added_past_the_limit_in_a_sync_over_several_commits_is_its_adders(harness, git_repo, monkeypatch):
    """The commits are read before the sync writes what it found (``read_ahead``): a file
    Bob added past the limit is in the store only after, and is read for the crediting."""
    monkeypatch.setattr(commits_module, "MAX_PARSED_FILES", 2)
    repo = git_repo
    repo.write("m.py", "def m():\n    return 0\n")
    commit_by(repo, monkeypatch, "Ann", "m")
    harness.sync(repo)
    for name in ("a1", "a2", "z9"):
        repo.write(f"{name}.py", f"def {name}():\n    return 1\n")
    bob = commit_by(repo, monkeypatch, "Bob", "three files")
    repo.write("c.py", "def three():\n    return 3\n")
    commit_by(repo, monkeypatch, "Cal", "three")
    harness.sync(repo)
    found = {key: author_name(p.payload) for key, p in structural(harness).items()}
    assert (found[("z9.py", "z9")], found[("z9.py", "<module>")], found[("c.py", "three")]) == ("Bob", "Bob", "Cal")
    assert structural(harness)[("z9.py", "z9")].id in tasks(harness)[bob]["symbol_ids"]
    written_in_its_authors_commit(harness, repo)


def big_first_commit(repo, monkeypatch) -> dict[str, str]:  # type: ignore[no-untyped-def]
    """Ann's root commit adds three files (the third past the limit of two), Bob edits the
    third past the limit again beside two more, and Cal adds a file."""
    repo.write("a1.py", "def one():\n    return 1\n")
    repo.write("a2.py", "def two():\n    return 2\n")
    repo.write("z.py", BIG)
    ann = commit_by(repo, monkeypatch, "Ann", "one, two, k")
    return {"ann": ann, **bob_then_cal(repo, monkeypatch, 10)}


@pytest.mark.parametrize("backfill", [3, 1], ids=["history read", "search past it"])
def test_a_first_index_finds_who_wrote_past_the_limit_without_blame(tmp_path, git_repo, monkeypatch, backfill):
    """The history read (all three commits) and the search past it (the history read
    holds Cal's alone) read the files past the limit where a version is sought: Ann wrote
    ``k``, Bob ``k2``, and git blame is left nothing."""
    monkeypatch.setattr(commits_module, "MAX_PARSED_FILES", 2)
    made = big_first_commit(git_repo, monkeypatch)
    blamed: list[str] = []
    monkeypatch.setattr(blamed_module, "_blame", lambda git, commit, path, spans: blamed.append(path) or {})
    h = Harness("edge", tmp_path / "state", IndexOptions(backfill_commits=backfill))
    try:
        h.sync(git_repo)
        found = {key: author_name(p.payload) for key, p in structural(h).items()}
        assert (found[("z.py", "k")], found[("z.py", "k2")], found[("z.py", "<module>")]) == ("Ann", "Bob", "Bob")
        assert (found[("a1.py", "one")], found[("c.py", "three")]) == ("Bob", "Cal")
        assert blamed == []
        if backfill == 3:  # its task memory links what it produced past the limit too
            linked = set(tasks(h)[made["bob"]]["symbol_ids"])
            assert {structural(h)[("z.py", q)].id for q in ("k2", "<module>")} <= linked
        written_in_its_authors_commit(h, git_repo)
    finally:
        h.close()


def test_a_store_an_earlier_release_credited_wrongly_is_mended_by_the_next_sync(harness, git_repo, monkeypatch):
    """Provenance 4 gave what Bob wrote past the limit to the target of the sync over his
    commit, Cal's. The next sync reads that history again and gives it to Bob."""
    repo = git_repo
    bob, cal = synced_over_bob_and_cal(harness, repo, monkeypatch).values()
    k2 = structural(harness)[("z.py", "k2")]
    assert (k2.payload["written_in"], k2.payload["task_id"]) == (bob, task_memory_id(SCOPE, bob))
    three = structural(harness)[("c.py", "three")].payload
    harness.store.set_payload([k2.id], {key: three[key] for key in ("author", "written_in", "task_id")})
    harness.store.set_payload([checkpoint_id(SCOPE), *(task_memory_id(SCOPE, c) for c in tasks(harness))],
                              {"provenance": 4})  # fmt: skip
    assert author_name(structural(harness)[("z.py", "k2")].payload) == "Cal" and three["written_in"] == cal
    again = harness.sync(repo)
    assert again.mode == "noop" and not again.history_owed
    k2 = structural(harness)[("z.py", "k2")]
    assert (author_name(k2.payload), k2.payload["written_in"]) == ("Bob", bob)
    assert harness.checkpoint()["provenance"] == PROVENANCE_VERSION == 7
    written_in_its_authors_commit(harness, repo)


@pytest.mark.parametrize("history", [True, False], ids=["history read", "none"])
def test_a_first_index_of_a_commit_past_the_limit(tmp_path, git_repo, monkeypatch, history):
    """A first index leaves what its commit wrote past the limit to the history read, after
    the repository is searchable, which gives it its writer and its task memory's links;
    with no history read to follow (the target's task memory alone, no search past it),
    the sync's own task step reads it."""
    monkeypatch.setattr(commits_module, "MAX_PARSED_FILES", 2)
    for name in ("a1", "a2", "z9"):
        git_repo.write(f"{name}.py", f"def {name}():\n    return 1\n")
    ann = commit_by(git_repo, monkeypatch, "Ann", "three files")
    options = IndexOptions() if history else IndexOptions(backfill_commits=1, writer_commits=0)
    h = Harness("edge", tmp_path / "state", options)
    try:
        result = h.sync(git_repo)
        assert not result.history_owed and not h.checkpoint().get("history_owed")
        found = structural(h)
        assert {key: author_name(p.payload) for key, p in found.items()} == {
            (f"{n}.py", q): "Ann" for n in ("a1", "a2", "z9") for q in (n, "<module>")}
        assert sorted(tasks(h)[ann]["symbol_ids"]) == sorted(p.id for p in found.values())
    finally:
        h.close()


def test_code_moved_since_a_commit_past_the_limit_wrote_it_is_that_commits(tmp_path, git_repo, monkeypatch):
    """Ann adds z9.py past the limit; Bob moves it without edits. The search follows the move
    back to z9.py, where the store holds nothing, and reads Ann's commit there too."""
    monkeypatch.setattr(commits_module, "MAX_PARSED_FILES", 2)
    for name in ("a1", "a2", "z9"):
        git_repo.write(f"{name}.py", f"def {name}():\n    return 1\n")
    commit_by(git_repo, monkeypatch, "Ann", "three files")
    git_repo.git("mv", "z9.py", "moved.py")
    commit_by(git_repo, monkeypatch, "Bob", "z9.py is moved.py")
    blamed: list[str] = []
    monkeypatch.setattr(blamed_module, "_blame", lambda git, commit, path, spans: blamed.append(path) or {})
    h = Harness("edge", tmp_path / "state")
    try:
        h.sync(git_repo)
        found = {key: author_name(p.payload) for key, p in structural(h).items()}
        assert (found[("moved.py", "z9")], found[("moved.py", "<module>")], blamed) == ("Ann", "Ann", [])
        written_in_its_authors_commit(h, git_repo)
    finally:
        h.close()


def test_a_history_read_stops_inside_a_commit_past_the_limit_and_goes_on_later(tmp_path, git_repo, monkeypatch):
    """The files past the limit are read as many at a time as a commit's read parses, a
    stop asked between: stopped after the first two, the read is owed, and the next sync
    reads the rest. Nothing is left to git blame."""
    monkeypatch.setattr(commits_module, "MAX_PARSED_FILES", 2)
    names = [f"m{i}" for i in range(7)]
    for name in names:
        git_repo.write(f"{name}.py", f"def {name}():\n    return 1\n")
    commit_by(git_repo, monkeypatch, "Ann", "seven files")
    blamed: list[str] = []
    monkeypatch.setattr(blamed_module, "_blame", lambda git, commit, path, spans: blamed.append(path) or {})
    h = Harness("edge", tmp_path / "state")
    try:
        first = h.sync(git_repo, stop_history=lambda: True)
        by_ann = {n for n in names if author_name(structural(h)[(f"{n}.py", n)].payload) == "Ann"}
        assert first.history_owed and h.checkpoint()["history_owed"]
        assert by_ann == {"m0", "m1", "m2", "m3"}  # the sync's own two, then the first two past the limit
        again = h.sync(git_repo)
        assert not again.history_owed and not h.checkpoint()["history_owed"]
        assert {author_name(p.payload) for p in structural(h).values()} == {"Ann"} and blamed == []
        written_in_its_authors_commit(h, git_repo)
    finally:
        h.close()


def test_code_moved_from_past_the_limit_in_a_sync_over_several_commits_is_its_writers(harness, git_repo, monkeypatch):
    """Ann adds three files (the third past the limit of two), Bob moves the third; one sync
    over both, as after a sync killed on its way through Ann's commit. The moved code is
    Ann's, as a fresh index finds by following the move back; it was given to Bob, and
    nothing mended it."""
    monkeypatch.setattr(commits_module, "MAX_PARSED_FILES", 2)
    repo = git_repo
    repo.write("m.py", "def m():\n    return 0\n")
    commit_by(repo, monkeypatch, "Ann", "m")
    harness.sync(repo)
    repo.write("a1.py", "def one():\n    return 1\n")
    repo.write("a2.py", "def two():\n    return 2\n")
    repo.write("pkg/z.py", BIG)
    ann = commit_by(repo, monkeypatch, "Ann", "three files")
    repo.git("mv", "pkg", "lib")
    commit_by(repo, monkeypatch, "Bob", "pkg is lib")
    harness.sync(repo)
    found = {key: (author_name(p.payload), p.payload.get("written_in")) for key, p in structural(harness).items()}
    assert found[("lib/z.py", "k")] == ("Ann", ann) and found[("a1.py", "one")] == ("Ann", ann)
    written_in_its_authors_commit(harness, repo)
