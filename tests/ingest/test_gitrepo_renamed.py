"""A tracked branch renamed (``git branch -m``): ``GitRepository.renamed_to`` reads the
name it goes by now from git's reflogs, and a sync of the old name says it."""

from __future__ import annotations

import pytest

from recalld.ingest.errors import RecalldError
from recalld.ingest.gitrepo import GitRepository
from tests.conftest import GitRepo


@pytest.fixture
def repo(git_repo: GitRepo) -> GitRepo:
    git_repo.write("a.py", "def a():\n    pass\n")
    git_repo.commit("init")
    git_repo.git("branch", "feat")
    return git_repo


def renamed(repo: GitRepo, branch: str) -> str | None:
    return GitRepository(repo.path).renamed_to(branch)


def test_a_renamed_branch_is_found_by_its_new_name(repo):
    repo.git("branch", "-m", "feat", "feature")
    assert renamed(repo, "feat") == "feature"
    assert renamed(repo, "feature") is None  # there: not renamed
    assert renamed(repo, "nope") is None  # never was


def test_a_branch_renamed_twice_is_found_by_its_last_name(repo):
    repo.git("branch", "-m", "feat", "feat2")
    repo.git("branch", "-m", "feat2", "feat3")
    assert renamed(repo, "feat") == "feat3"
    assert renamed(repo, "feat2") == "feat3"


def test_the_checked_out_branch_renamed_is_found(repo):
    repo.git("branch", "-m", "main", "trunk")
    assert renamed(repo, "main") == "trunk"


def test_a_branch_renamed_then_deleted_is_not_found(repo):
    repo.git("branch", "-m", "feat", "feat2")
    repo.git("branch", "-D", "-q", "feat2")
    assert renamed(repo, "feat") is None
    repo.git("branch", "feat2")  # another branch of that name, never called feat
    assert renamed(repo, "feat") is None
    repo.git("branch", "-m", "main", "trunk")  # HEAD's reflog holds that rename too, and trunk is gone
    repo.git("checkout", "-q", "-b", "other")
    repo.git("branch", "-D", "-q", "trunk")
    assert renamed(repo, "main") is None


def test_a_copy_of_a_renamed_branch_is_not_taken_for_it(repo):
    """``git branch -c`` copies the reflog, renames included, to the copy."""
    repo.git("branch", "-m", "feat", "feat2")
    repo.git("branch", "-c", "feat2", "copy")
    assert renamed(repo, "feat") == "feat2"


def test_the_last_branch_of_a_name_renamed_is_found(repo, monkeypatch):
    """Two branches had the name in turn: the later one's new name is the answer."""
    monkeypatch.setenv("GIT_COMMITTER_DATE", "1700000000 +0000")
    repo.git("branch", "-m", "feat", "zeta")
    monkeypatch.setenv("GIT_COMMITTER_DATE", "1700000100 +0000")
    repo.git("branch", "feat")
    repo.git("branch", "-m", "feat", "alpha")
    assert renamed(repo, "feat") == "alpha"


def test_no_reflog_means_no_new_name(git_repo):
    git_repo.git("config", "core.logAllRefUpdates", "false")
    git_repo.commit("init")
    git_repo.git("branch", "feat")
    git_repo.git("branch", "-m", "feat", "feat2")
    assert renamed(git_repo, "feat") is None


def test_an_unreadable_reflog_means_no_new_name(repo):
    repo.git("branch", "-m", "feat", "feat2")
    log = repo.path / ".git" / "logs" / "refs" / "heads" / "feat2"
    log.unlink()
    log.mkdir()  # libgit2: "requested file is a directory"
    assert renamed(repo, "feat") is None
    log.rmdir()
    log.write_text("not a reflog\n")
    assert renamed(repo, "feat") is None


def test_a_branch_renamed_in_a_linked_worktree_is_found_from_it(repo, tmp_path):
    worktree = tmp_path / "wt"
    repo.git("worktree", "add", "-q", "-b", "wt", str(worktree))
    repo.git("-C", str(worktree), "branch", "-m", "wt", "wt2")
    assert GitRepository(worktree).renamed_to("wt") == "wt2"
    assert renamed(repo, "wt") == "wt2"


def test_a_bare_repository_renames_are_found_where_it_keeps_reflogs(repo, tmp_path):
    bare = tmp_path / "bare.git"
    repo.git("clone", "-q", "--bare", str(repo.path), str(bare))
    repo.git("-C", str(bare), "branch", "-m", "feat", "feat2")
    assert GitRepository(bare).renamed_to("feat") is None  # a bare repository keeps no reflogs by default
    repo.git("-C", str(bare), "config", "core.logAllRefUpdates", "true")
    repo.git("-C", str(bare), "branch", "-m", "feat2", "feat3")
    assert GitRepository(bare).renamed_to("feat2") == "feat3"


def test_a_sync_of_a_renamed_branch_says_its_new_name(repo, tmp_path):
    from tests.ingest.conftest import Harness

    harness = Harness("edge", tmp_path / "state")
    try:
        harness.indexer.sync(repo="r", path=str(repo.path), branch="feat")
        repo.git("branch", "-m", "feat", "feature")
        with pytest.raises(RecalldError) as raised:
            harness.indexer.sync(repo="r", path=str(repo.path), branch="feat")
        assert raised.value.message == (f"branch 'feat' not found in {repo.path}: it was renamed to 'feature',"
                                        " which the next sync follows (recalld sync r, or keep recalld serve"
                                        " running)")  # fmt: skip
        repo.git("branch", "-D", "-q", "feature")
        with pytest.raises(RecalldError) as raised:
            harness.indexer.sync(repo="r", path=str(repo.path), branch="feat")
        assert raised.value.message == f"branch 'feat' not found in {repo.path}"
    finally:
        harness.close()
