"""What a commit's tree holds (``GitTrees``, a part of ``gitrepo.GitRepository``): its
files and what is never read of it (links, submodules, undecodable paths), one path's
entry, and a path's git attributes as the commit's .gitattributes files give them."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pygit2
from pygit2.enums import FileMode

from recalld.ingest.errors import MissingBlobError
from recalld.ingest.gitattributes import RepositoryAttributes, beside_files
from recalld.ingest.gitnames import entry_name, shown_path
from recalld.ingest.gitrecords import TreeFile, TreeSkip
from recalld.ingest.gitrepo_objects import REGULAR_MODES, GitObjects

SKIPPED_MODES = {FileMode.LINK: "symlink", FileMode.COMMIT: "submodule"}  # never read; others "unknown_mode"


class GitTrees(GitObjects):
    _attributes: RepositoryAttributes | None  # made by the first ``attributes`` (None: not yet)

    def walk_tree(self, commit_id: str, under: str = "") -> Iterator[TreeFile | TreeSkip]:
        """Every entry of the commit's tree (or of its directory ``under``; none when
        there is no directory there): regular files, and what is never read."""
        root = self.tree(commit_id)
        if under:
            found = _entry_at(root, under)
            if found is None or found.filemode != FileMode.TREE:
                return
            root = self._repo[found.id].peel(pygit2.Tree)
        stack: list[tuple[str, pygit2.Tree]] = [(f"{under}/" if under else "", root)]
        while stack:
            prefix, tree = stack.pop()
            for entry in tree:
                name = entry_name(entry)
                if name is None:
                    yield TreeSkip(prefix + shown_path(entry.raw_name), "bad_path")
                    continue
                path = prefix + name
                mode = entry.filemode
                if mode == FileMode.TREE:
                    stack.append((path + "/", self._repo[entry.id].peel(pygit2.Tree)))
                elif mode in REGULAR_MODES:
                    yield TreeFile(path, str(entry.id))
                else:
                    yield TreeSkip(path, SKIPPED_MODES.get(mode, "unknown_mode"))

    def lookup(self, commit_id: str, path: str) -> TreeFile | TreeSkip | None:
        """The entry at ``path`` in the commit's tree, or None if there is none."""
        entry = _entry_at(self.tree(commit_id), path)
        if entry is None or entry.filemode == FileMode.TREE:
            return None
        if entry.filemode in REGULAR_MODES:
            return TreeFile(path, str(entry.id))
        return TreeSkip(path, SKIPPED_MODES.get(entry.filemode, "unknown_mode"))

    def touches(self, commit_id: str, path: str) -> bool:
        """Whether the commit changed what is at ``path`` (a file or a directory) against its
        first parent (a root commit: whether it holds something there); its object ids
        compared, no diff read."""
        commit = self._repo[commit_id].peel(pygit2.Commit)
        here = _entry_at(self.tree(commit_id), path)
        before = _entry_at(self.tree(str(commit.parent_ids[0])), path) if commit.parent_ids else None
        return (here.id if here is not None else None) != (before.id if before is not None else None)

    @property
    def attribute_files(self) -> tuple[Path, Path]:
        """The attribute files beside the tree (``gitattributes.beside_files``)."""
        try:
            configured: str | None = self._repo.config["core.attributesFile"]
        except (KeyError, pygit2.GitError):
            configured = None
        return beside_files(configured, self.common_dir)

    def attributes(self, commit_id: str, path: str) -> dict[str, str | bool]:
        """``path``'s attributes at ``commit_id``, as git gives them (``gitattributes``):
        from the commit's .gitattributes files, info/attributes and the user's global file
        (the index and the work tree ignored). True: set, False: unset, else the value."""
        if self._attributes is None:
            try:
                ignore_case = bool(self._repo.config.get_bool("core.ignorecase"))
            except (KeyError, pygit2.GitError):
                ignore_case = False
            beside = self.attribute_files  # where they are, asked once an instance (a sync, a query)
            self._attributes = RepositoryAttributes(self._folder_attributes, beside, ignore_case=ignore_case)
        return self._attributes.at(commit_id).of(path)

    def _folder_attributes(self, commit_id: str, folder: str) -> tuple[str, bytes] | None:
        """The .gitattributes file in ``folder`` of the commit's tree: its blob id and text,
        or None where there is none or it is not a regular file (git follows no link). A
        history read without fetching (``local_only``) takes one it lacks for none; a sync
        that fetches fails on it, as on any blob it cannot get."""
        entry = _entry_at(self.tree(commit_id), f"{folder}/.gitattributes".lstrip("/"))
        if entry is None or entry.filemode not in REGULAR_MODES:
            return None
        try:
            return str(entry.id), self.blobs.read(str(entry.id))
        except MissingBlobError:
            if self.blobs.fetching:
                raise
            return None


def _entry_at(tree: pygit2.Tree, path: str) -> pygit2.Object | None:
    """The entry at ``path`` (a file or a directory) under ``tree``, or None. pygit2 1.21's
    Tree[path] keeps a reference to the string it is given: an interned path leaks one
    string per distinct path, not one per lookup (a daemon looks up every changed path of
    every sync)."""
    try:
        return tree[sys.intern(path)]
    except (KeyError, ValueError):
        return None
