"""A repository's branches (``GitBranches``, a part of ``gitrepo.GitRepository``): the
checked-out one, a branch's tip, whether it is local, remote-tracking, unborn or
missing, and the name a missing one was renamed to."""

from __future__ import annotations

import re
from collections.abc import Iterable

import pygit2

from recalld.ingest.errors import RecalldError
from recalld.ingest.gitrepo_objects import GitObjects

# What ``git branch -m`` (and libgit2's rename: "branch: ...") writes into the reflog
RENAMED = re.compile(r"branch: renamed refs/heads/(\S+) to refs/heads/(\S+)", re.IGNORECASE)
# What the reason a renamed branch is not followed yet says of the next sync.
FOLLOWED = "which the next sync follows"


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

    def renamed_to(self, branch: str) -> str | None:
        """The name the local branch ``branch`` goes by since it was renamed (``git branch
        -m``, once or more), or None: when ``branch`` exists, was never renamed, or the
        branch it became was deleted since. A branch's reflog goes with it when it is
        renamed, and the rename is written into it ("Branch: renamed refs/heads/old to
        refs/heads/new"), so the branch whose own reflog renames ``branch`` away, and
        after that only itself, is it (HEAD's reflog, which has the renames of the
        checked-out branch too, would only add those of branches deleted since). Without
        reflogs (``core.logAllRefUpdates=false``, a bare repository's default) or with one
        unreadable, it is not found: None, never an error."""
        refs = self._repo.references
        if refs.get(f"refs/heads/{branch}") is not None:
            return None
        found: list[tuple[int, str]] = []  # (when it stopped being ``branch``, its name now)
        for ref in refs:
            name = ref.removeprefix("refs/heads/")
            if name == ref:
                continue
            try:
                when = _renamed_away(refs[ref].log(), branch, name)
            except (pygit2.GitError, OSError, KeyError, ValueError):  # a reflog unreadable, a ref gone meanwhile
                continue
            if when is not None:
                found.append((when, name))
        return max(found)[1] if found else None

    def missing_branch(self, branch: str, *, path: str, repo: str) -> str:
        """Why registration ``repo``'s ``branch`` at ``path``, which has no tip and is not
        unborn, is not followed now (``missing_note`` of its new name, if it was renamed)."""
        return missing_note(branch, self.renamed_to(branch), path=path, repo=repo)


def missing_note(branch: str, now: str | None, *, path: str, repo: str) -> str:
    """Why registration ``repo``'s ``branch`` at ``path`` is not followed now: it is not
    found, and when it was renamed, its new name ``now``, which the next sync follows
    (``daemon.repos.follow_renamed``)."""
    from recalld.daemon.repos import sync_hint

    gone = f"branch {branch!r} not found in {path}"
    if now is None:
        return gone
    return f"{gone}: it was renamed to {now!r}, {FOLLOWED} ({sync_hint(repo)})"


def _renamed_away(log: Iterable[pygit2.RefLogEntry], branch: str, name: str) -> int | None:
    """When the branch ``name``, by its reflog ``log`` (newest first), last stopped being
    called ``branch``; None if its renames since do not lead to ``name`` (a copy made by
    ``git branch -c`` has its original's reflog) or it never was ``branch``."""
    now: str | None = None  # its name after the last rename away from ``branch``
    when = 0
    for entry in reversed(list(log)):
        renamed = RENAMED.fullmatch((entry.message or "").strip())
        if renamed is None:
            continue
        old, new = renamed.groups()
        if old == branch:
            now, when = new, int(entry.committer.time)
        elif now is not None:
            now = new if old == now else None
    return when if now == name else None
