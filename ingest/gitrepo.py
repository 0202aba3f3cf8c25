"""The repository reader, and with the ``gitrepo_*`` modules the only code that imports
pygit2: committed trees, tree diffs with rename detection and commit history, read from
git's object database (never the work tree); its blobs through ``blobs.Blobs``
(``GitRepository.blobs``), which fetches what a partial clone lacks: blobs, and a
treeless clone's trees (``GitRepository.tree``).

``GitRepository`` is its parts, one job a module, each on the opened repository
(``gitrepo_objects.GitObjects``: the object database, where it lives, blobs and trees):
``gitrepo_branches`` (branches and their tips), ``gitrepo_history`` (commits, ancestry,
walks, a shallow clone's boundary), ``gitrepo_trees`` (a tree's files, attributes) and
``gitrepo_diffs`` (changes between trees, moves, patch ids)."""

from __future__ import annotations

import copy
from pathlib import Path

from recalld.ingest.gitrepo_branches import GitBranches
from recalld.ingest.gitrepo_diffs import GitDiffs
from recalld.ingest.gitrepo_history import GitHistory
from recalld.ingest.gitrepo_trees import GitTrees
from recalld.ingest.similar import FileChange  # what commit_changes gives, imported from here too


class GitRepository(GitBranches, GitHistory, GitTrees, GitDiffs):
    """A repository opened by path (work tree or bare, worktrees included)."""

    def __init__(self, path: str | Path) -> None:
        super().__init__(path)
        # What its parts keep of what they read, each for the life of this instance
        self._changed: dict[tuple[str, str], tuple[list[FileChange], list[str]]] = {}
        self._shallow = None
        self._attributes = None

    def local_only(self) -> GitRepository:
        """This repository, reading only the blobs it holds (``Blobs.local_only``)."""
        view = copy.copy(self)
        view.blobs = self.blobs.local_only()
        view._attributes = None  # its own, reading the view's blobs
        return view
