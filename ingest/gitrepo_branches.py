"""A repository's branches (``GitBranches``, a part of ``gitrepo.GitRepository``): the
checked-out one, a branch's tip, and whether it is local, remote-tracking, unborn or
missing."""

from __future__ import annotations

import pygit2

from recalld.ingest.errors import RecalldError
from recalld.ingest.gitrepo_objects import GitObjects


class GitBranches(GitObjects):
    def current_branch(self) -> str:
        if self._repo.head_is_unborn:
            target = self._repo.references["HEAD"].target
            return str(target).removeprefix("refs/heads/")
        if self._repo.head_is_detached:
            raise RecalldError("HEAD is detached: name a branch with --branch")
        return self._repo.head.shorthand

    def branch_tip(self, branch: str) -> str | None:
        """The commit the branch points at, or None for an unborn/missing branch.

        A local branch (``main``) or a remote-tracking one (``origin/main``: what a
        webhook-triggered fetch moves in an ordinary clone)."""
        for name in (f"refs/heads/{branch}", f"refs/remotes/{branch}"):
            ref = self._repo.references.get(name)
            if ref is not None:
                return str(ref.resolve().peel(pygit2.Commit).id)
        return None

    def is_remote_tracking(self, branch: str) -> bool:
        """Whether ``branch`` names a remote-tracking branch (``origin/pr/7``), not a local one."""
        refs = self._repo.references
        return refs.get(f"refs/heads/{branch}") is None and refs.get(f"refs/remotes/{branch}") is not None

    def branch_exists(self, branch: str) -> bool:
        return self.branch_tip(branch) is not None

    def is_unborn(self, branch: str) -> bool:
        """Whether ``branch`` is the checked-out branch of a repository with no commit yet
        (it has no tip and is not missing)."""
        return bool(self._repo.head_is_unborn) and self.current_branch() == branch
