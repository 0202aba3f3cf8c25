"""Writers after a move of the branch other than forward (``ingest/off_branch.py``): the
code a reset back brings back is its earlier writer's, not the target's author's, and the
code an amend or a rebase leaves in place names a commit still on the branch. A synced
store names the writers a fresh index of the same commit finds."""

from __future__ import annotations

from functools import partial

from recalld.ingest.files import IndexOptions
from tests.ingest.conftest import Harness
from tests.ingest.test_moved_writer import writers
from tests.ingest.test_tasks import commit_by, written_in_its_authors_commit


def fresh_writers(repo, tmp_path) -> dict:  # type: ignore[no-untyped-def, type-arg]
    fresh = Harness("edge", tmp_path / "fresh", IndexOptions(backfill_commits=50))
    try:
        fresh.sync(repo)
        return writers(fresh)
    finally:
        fresh.close()


def test_code_a_reset_back_brings_back_is_its_writers_not_the_targets(harness, git_repo, monkeypatch, tmp_path):
    """Eve writes f, Frank g, Gus edits f; a reset to Frank's commit brings Eve's f back.
    It read "since Frank's commit by Frank", who never touched a.py."""
    repo, by = git_repo, partial(commit_by, git_repo, monkeypatch)
    repo.write("a.py", "def f():\n    return 1\n")
    eve = by("Eve", "f")
    harness.sync(repo)
    repo.write("g.py", "def g():\n    return 2\n")
    frank = by("Frank", "g")
    harness.sync(repo)
    repo.write("a.py", "def f():\n    return 10\n")
    by("Gus", "f returns 10")
    harness.sync(repo)
    repo.git("reset", "-q", "--hard", frank)
    harness.sync(repo)
    found = writers(harness)
    assert found[("a.py", "f")] == ("Eve", eve) and found[("g.py", "g")] == ("Frank", frank)
    assert found == fresh_writers(repo, tmp_path)
    written_in_its_authors_commit(harness, repo)


def test_code_an_amend_leaves_in_place_names_the_amended_commit(harness, git_repo, monkeypatch, tmp_path):
    """Ann commits x.py and y.py, then amends y.py alone: x's code named the commit the
    amend dropped (no longer on the branch); now the one that replaced it, as a fresh
    index of the branch does. Code written before them stays its writer's."""
    repo, by = git_repo, partial(commit_by, git_repo, monkeypatch)
    repo.write("base.py", "def base():\n    return 0\n")
    zed = by("Zed", "base")
    harness.sync(repo)
    repo.write("x.py", "def xx():\n    return 1\n")
    repo.write("y.py", "def yy():\n    return 2\n")
    dropped = by("Ann", "x and y")
    harness.sync(repo)
    repo.write("y.py", "def yy():\n    return 20\n")
    repo.git("commit", "-q", "-a", "--amend", "-m", "x and y, y amended")
    amended = repo.head()
    assert amended != dropped
    harness.sync(repo)
    found = writers(harness)
    assert found == {("base.py", "<module>"): ("Zed", zed), ("base.py", "base"): ("Zed", zed),
                     **{(f"{n}.py", q): ("Ann", amended) for n in "xy" for q in ("<module>", n * 2)}}  # fmt: skip
    assert found == fresh_writers(repo, tmp_path)
    written_in_its_authors_commit(harness, repo, gone=(dropped,))


def test_code_a_rebased_commit_moved_names_the_rebased_commit_that_wrote_it(harness, git_repo, monkeypatch, tmp_path):
    """A first index of a branch where Fay wrote ``f.py`` and Gus moved it to ``g.py``
    (the history read followed the move back to Fay), then ``git rebase`` of the branch:
    ``g.py``'s ``f`` named Fay's dropped commit, which no task memory links to it; now the
    rebased one, as a fresh index of the branch does."""
    repo, by = git_repo, partial(commit_by, git_repo, monkeypatch)
    repo.write("m.py", "def m():\n    return 0\n")
    by("Zed", "base")
    repo.git("checkout", "-q", "-b", "feat")
    repo.write("f.py", "def f(y):\n    return y\n")
    dropped = by("Fay", "f")
    repo.git("mv", "f.py", "g.py")
    by("Gus", "f.py is g.py")
    repo.write("h.py", "def h():\n    return 3\n")
    by("Hal", "h")
    repo.git("branch", "-q", "-M", "feat", "main")  # the harness tracks main
    repo.git("branch", "-q", "base", "HEAD~3")
    harness.sync(repo)
    assert writers(harness)[("g.py", "f")] == ("Fay", dropped)
    repo.git("checkout", "-q", "base")
    repo.write("z.py", "def z():\n    return 1\n")
    by("Zed", "z")
    repo.git("checkout", "-q", "main")
    repo.git("rebase", "-q", "base")
    harness.sync(repo)
    rebased = repo.git("log", "--format=%H", "-1", "--author=Fay").strip()
    assert rebased != dropped and writers(harness)[("g.py", "f")] == ("Fay", rebased)
    assert writers(harness) == fresh_writers(repo, tmp_path)
    written_in_its_authors_commit(harness, repo, gone=(dropped,))
