"""`recalld symbol`, `recalld outline` and `recalld export` as of a commit the index never
synced on its own say which state they answer for, on stderr: run alone and through the
daemon."""

from __future__ import annotations

from tests.service.conftest import recalld


def test_symbol_and_outline_note_the_state_they_answer_for(daemon, repo):
    recalld("repo", "add", str(repo.path))
    recalld("sync")
    first = repo.head()
    repo.write("app/core.py", 'def alpha():\n    """First, changed."""\n    return 2\n')
    skipped = repo.commit("two")
    repo.write("app/more.py", "def beta():\n    return 3\n")
    repo.commit("three")
    said = f"note: the index never synced commit {skipped[:12]} (HEAD~1's) on its own"
    state = f"the answer is its state at {first[:12]}"

    def asked() -> None:
        shown = recalld("symbol", "alpha", "--as-of", "HEAD~1")
        assert "First." in shown.stdout and said in shown.stderr and state in shown.stderr, shown.stderr
        listed = recalld("outline", "app/core.py", "--as-of", "HEAD~1", "--json")
        assert '"alpha"' in listed.stdout and said in listed.stderr, listed.stderr
        exact = recalld("symbol", "alpha", "--as-of", "HEAD")
        assert "First, changed." in exact.stdout and "note:" not in exact.stderr
        exported = recalld("export", "--as-of", "HEAD~1")
        assert '"alpha"' in exported.stdout and said in exported.stderr and state in exported.stderr, exported.stderr
        assert "note:" not in recalld("export", "--as-of", "HEAD").stderr
        # before the first sync: an empty answer, and why (it said nothing)
        before = recalld("export", "--as-of", "2001-01-01")
        assert before.stdout == "" and "note: no code memory is valid at 2001-01-01" in before.stderr, before.stderr

    recalld("sync")  # two commits in one step
    asked()  # the command alone
    daemon.start()
    asked()  # through the daemon
    assert daemon.stop() == 0


def test_as_of_a_synced_commit_git_has_pruned_says_so(repo):
    """A commit the index synced that a reset left, pruned by `git gc`, was "no such
    commit" alone: the index knew it, git no longer does."""
    recalld("repo", "add", str(repo.path))
    recalld("sync")
    first = repo.head()
    repo.write("app/more.py", "def beta():\n    return 3\n")
    gone = repo.commit("two")
    recalld("sync")
    repo.git("reset", "-q", "--hard", first)
    recalld("sync")
    assert '"beta"' in recalld("export", "--as-of", gone[:10]).stdout  # a commit the branch left, git still has
    repo.git("reflog", "expire", "--expire=now", "--all")
    repo.git("gc", "-q", "--prune=now")
    for command in (("export",), ("symbol", "beta"), ("search", "beta")):
        asked = recalld(*command, "--as-of", gone[:10], check=False)
        assert asked.returncode == 1, asked.stdout
        assert f"the index synced commit {gone[:12]}, which git has since pruned" in asked.stderr, asked.stderr
