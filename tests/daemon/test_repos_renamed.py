"""A registration whose branch was renamed (``git branch -m``): what says the branch is
gone (status, search's notes, repo add and repo set) names the branch's new name too."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from recalld.daemon.query import lag
from recalld.daemon.repos import unfollowed, unfollowed_notes
from tests.conftest import GitRepo
from tests.daemon.test_cli import recalld


@pytest.fixture
def repo(tmp_path) -> GitRepo:
    r = GitRepo(tmp_path / "p1")
    r.write("a.py", "def a():\n    pass\n")
    r.commit("init")
    r.git("branch", "feat")
    return r


def entry(repo: GitRepo, branch: str = "feat") -> SimpleNamespace:
    return SimpleNamespace(name="p1", path=str(repo.path), branch=branch)


def test_status_and_notes_name_the_new_name_of_a_renamed_branch(repo):
    repo.git("branch", "-m", "feat", "feat2")
    repo.git("branch", "-m", "feat2", "feature")
    renamed = ("it was renamed to 'feature', which the next sync follows (recalld sync p1, or keep recalld serve"
               " running)")
    gone = f"branch 'feat' not found in {repo.path}: {renamed}"
    assert unfollowed(entry(repo)) == gone
    assert lag(entry(repo), None)["error"] == gone
    [note] = unfollowed_notes([entry(repo), entry(repo, "main")])
    assert note.startswith(f"p1: {gone}: its memories may be stale")


def test_a_renamed_branch_s_reflogs_are_read_once(repo, monkeypatch, tmp_path):
    """``branch_missing`` looked for the new name, then ``missing_branch`` looked for it
    again: every reflog of the repository read twice for one status line."""
    from recalld.daemon.registry import RepoRegistry
    from recalld.ingest.gitrepo import GitRepository

    repo.git("branch", "-m", "feat", "feature")
    reads = []
    found = GitRepository.renamed_to
    monkeypatch.setattr(GitRepository, "renamed_to", lambda self, b: reads.append(b) or found(self, b))
    registry = RepoRegistry(tmp_path / "state.db")
    assert "it was renamed to 'feature'" in (unfollowed(entry(repo), registry) or "")
    assert reads == ["feat"]


def test_a_branch_renamed_then_deleted_is_only_not_found(repo):
    repo.git("branch", "-m", "feat", "feat2")
    repo.git("branch", "-D", "-q", "feat2")
    assert unfollowed(entry(repo)) == f"branch 'feat' not found in {repo.path}"


def test_repo_add_and_repo_set_name_the_new_name_of_a_renamed_branch(repo):
    recalld("repo", "add", str(repo.path), "--branch", "feat")
    repo.git("branch", "-m", "feat", "feature")
    hint = "(it was renamed to 'feature': --branch feature)"
    added = recalld("repo", "add", str(repo.path), "--branch", "feat", "--name", "p2", check=False)
    assert added.returncode == 1 and f"no branch 'feat' in {repo.path} {hint}" in added.stderr, added.stderr
    kept = recalld("repo", "set", "p1", "--path", str(repo.path), check=False)
    assert kept.returncode == 1 and f"no branch 'feat' in {repo.path} {hint}" in kept.stderr, kept.stderr
    named = recalld("repo", "set", "p1", "--branch", "feat", check=False)
    assert named.returncode == 1 and f"no branch 'feat' in {repo.path} {hint}" in named.stderr, named.stderr


def test_a_suggested_command_quotes_a_name_a_shell_would_split(tmp_path):
    """`recalld repo add ".../sp ace"` said to run `recalld sync sp ace`, which syncs two
    repositories that do not exist; the notes of a renamed branch quoted the name in one
    command and not in the next. A plain name stays as it is (the tests above)."""
    spaced = GitRepo(tmp_path / "sp ace")
    spaced.write("a.py", "def a():\n    pass\n")
    spaced.commit("init")
    spaced.git("branch", "feat")
    added = recalld("repo", "add", str(spaced.path), "--branch", "feat")
    assert added.stdout.startswith(f"registered sp ace: {spaced.path} @ feat (run `recalld sync 'sp ace'`)")
    unsynced = recalld("search", "a").stderr
    assert "note: sp ace: memories never synced feat (recalld sync 'sp ace', or keep" in unsynced, unsynced
    spaced.git("branch", "-m", "feat", "feature")
    note = recalld("search", "a").stderr
    assert ("which the next sync follows (recalld sync 'sp ace', or keep recalld serve running): its memories"
            " may be stale until then\n") in note, note
    moved = recalld("repo", "set", "sp ace", "--branch", "feature")
    assert moved.stdout.endswith("; run `recalld sync 'sp ace'`\n"), moved.stdout
