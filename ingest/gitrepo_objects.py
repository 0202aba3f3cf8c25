"""A git repository opened with pygit2 (``GitObjects``): the object database every other
``gitrepo_*`` module reads, where the repository lives, its blobs (``blobs.Blobs``,
which fetches what a partial clone lacks) and its trees, which a treeless clone may lack
too. The base of ``gitrepo.GitRepository`` and of each of its parts."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

import pygit2
from pygit2.enums import FileMode, ObjectType

from recalld.ingest.blobs import Blobs, promisor_remotes
from recalld.ingest.errors import RecalldError

REGULAR_MODES = (FileMode.BLOB, FileMode.BLOB_EXECUTABLE)


class GitObjects:
    """A repository opened by path (work tree or bare, worktrees included)."""

    def __init__(self, path: str | Path) -> None:
        try:
            found = pygit2.discover_repository(str(path))
        except Exception:  # noqa: BLE001 - pygit2 raises assorted errors for unreadable dirs
            found = None
        if not found:
            raise RecalldError(f"not a git repository: {path}")
        try:
            self._repo = pygit2.Repository(found)
        except pygit2.GitError as exc:  # a SHA-256 repository ("unknown object format"), a broken config
            reason = str(exc).removeprefix(found).lstrip(": ")
            raise RecalldError(f"cannot open the git repository at {found}: {reason}") from None
        self.git_dir = self._repo.path
        self.workdir = self._repo.workdir
        # A partial clone's blobs it lacks are fetched from its promisor remotes when read
        self.blobs = Blobs(self._repo, self.git_dir, promisor_remotes((e.name, e.value) for e in self._repo.config))

    @property
    def common_dir(self) -> str:
        """The shared git dir (differs from ``git_dir`` in a linked worktree)."""
        commondir = Path(self.git_dir) / "commondir"
        if commondir.is_file():
            return str((Path(self.git_dir) / commondir.read_text().strip()).resolve())
        return self.git_dir

    def tree(self, rev: str) -> pygit2.Tree:
        """The tree of a commit (or a tree's own id), fetched first where a treeless clone
        (``git clone --filter=tree:0``) lacks it: such a clone holds the commits of its
        history but only the trees it checked out, and libgit2 fetches nothing."""
        found = self._repo[rev]
        if found.type == ObjectType.TREE:
            return found.peel(pygit2.Tree)
        tree_id = found.peel(pygit2.Commit).tree_id
        if self.blobs.partial:
            self.blobs.fetch_trees([str(tree_id)])
        return self._repo[tree_id].peel(pygit2.Tree)

    def fetch_trees(self, commit_ids: Iterable[str], *, parents: bool = True) -> None:
        """In one fetch, the trees a treeless clone lacks of ``commit_ids`` (and of their
        first parents: what their changes are read against); nothing in another clone."""
        if not self.blobs.partial:
            return
        wanted: list[str] = []
        for commit_id in commit_ids:
            commit = self._repo[commit_id].peel(pygit2.Commit)
            wanted.append(str(commit.tree_id))
            if parents and commit.parent_ids:
                wanted.append(str(self._repo[commit.parent_ids[0]].peel(pygit2.Commit).tree_id))
        self.blobs.fetch_trees(wanted)
