"""What changed between two trees (``GitDiffs``, a part of ``gitrepo.GitRepository``):
a commit's changes against its first parent and two commits' changed paths (``treediff``,
which reads only the subtrees that differ), with the files that moved found by
``similar``, and git's patch id of a commit (the same change after a rebase)."""

from __future__ import annotations

import pygit2

from recalld.ingest import treediff
from recalld.ingest.errors import MissingBlobError
from recalld.ingest.gitnames import is_utf8, shown_path
from recalld.ingest.gitrecords import RenameDelta
from recalld.ingest.gitrepo_objects import REGULAR_MODES, GitObjects
from recalld.ingest.similar import MAX_BYTES, FileChange, measured_blobs, with_moves

CHANGES_KEPT = 4

# A tree diff's own statuses (a type change is a deletion and an addition: treediff);
# "renamed" comes of ingest/similar.py's pairing.
_STATUS = {"A": "added", "M": "modified", "D": "deleted"}


class GitDiffs(GitObjects):
    # (old tree, new tree) → its changes, the moves found, and the new side's paths no
    # path can name: a sync of one commit asks for the same pair twice (its files, then
    # the commit's task memory)
    _changed: dict[tuple[str, str], tuple[list[FileChange], list[str]]]

    def commit_changes(self, commit_id: str) -> list[FileChange]:
        """The commit's deltas against its first parent (a root commit: against nothing)."""
        return self._changes(*self._first_parent_trees(commit_id))

    def changed_paths(self, old_commit: str, new_commit: str) -> tuple[set[str], list[RenameDelta]]:
        """Paths that differ between two commits, and the files that moved among them."""
        self.fetch_trees([old_commit, new_commit], parents=False)
        old_tree, new_tree = self.tree(old_commit), self.tree(new_commit)
        changes = self._changes(old_tree, new_tree)
        paths = {path for c in changes for path in (c.old_path, c.new_path) if path is not None}
        moved = [c for c in changes if c.status == "renamed"]
        renames = [RenameDelta(str(c.old_path), str(c.new_path), c.similarity) for c in moved]
        return paths, renames

    def unnamed_paths(self, old_commit: str, new_commit: str) -> list[str]:
        """The files added or changed between two commits whose path is not UTF-8, as the
        tree's walk shows one it skips (``caf\\xe9.py``): ``changed_paths`` leaves them
        out, as no memory can be stored at them, and a sync counts them skipped."""
        self.fetch_trees([old_commit, new_commit], parents=False)
        return list(self._diffed(self.tree(old_commit), self.tree(new_commit))[1])

    def _changes(self, old: pygit2.Tree | None, new: pygit2.Tree) -> list[FileChange]:
        """The deltas between two trees (None: the empty tree) with the files that moved
        found (``similar``); the last few pairs asked are kept."""
        return list(self._diffed(old, new)[0])

    def _diffed(self, old: pygit2.Tree | None, new: pygit2.Tree) -> tuple[list[FileChange], list[str]]:
        key = (str(old.id) if old is not None else "", str(new.id))
        if key not in self._changed:
            unnamed: list[str] = []
            changes = self._moves(treediff.changes(self._repo, old, new), unnamed)
            if len(self._changed) >= CHANGES_KEPT:
                del self._changed[next(iter(self._changed))]
            self._changed[key] = (changes, unnamed)
        return self._changed[key]

    def _moves(self, deltas: list[treediff.TreeChange], unnamed: list[str]) -> list[FileChange]:
        """The changes with the moves among them found; ``unnamed`` gets the new side's
        paths that are not UTF-8 (not of a deletion: nothing is there to read)."""
        changes: list[FileChange] = []
        for delta in deltas:
            status = _STATUS.get(delta.status_char())
            if status is None:
                continue
            old, new = delta.old_file, delta.new_file
            if not (is_utf8(old.path) and is_utf8(new.path)):
                if status != "deleted" and not is_utf8(new.path):
                    unnamed.append(shown_path(new.raw_path))
                continue  # never read: the tree's walk skips it (bad_path)
            changes.append(
                FileChange(
                    status=status,
                    old_path=None if status == "added" else old.path,
                    new_path=None if status == "deleted" else new.path,
                    old_blob=str(old.id) if status != "added" and old.mode in REGULAR_MODES else None,
                    new_blob=str(new.id) if status != "deleted" and new.mode in REGULAR_MODES else None,
                )
            )
        if self.blobs.fetching:  # what pairing may measure, in one fetch rather than a fetch a blob
            try:
                self.blobs.prefetch(measured_blobs(changes))
            except MissingBlobError:
                pass  # what is still missing pairs only by its id; the file reader says what it lacks
        return with_moves(changes, self._similarity_read, self._similarity_size)

    def _similarity_read(self, blob_id: str) -> bytes | None:
        """A blob to measure; None if it is too large or missing (a partial clone)."""
        try:
            return self.blobs.read(blob_id) if self.blobs.size(blob_id) <= MAX_BYTES else None
        except (KeyError, ValueError, pygit2.GitError, MissingBlobError):
            return None

    def _similarity_size(self, blob_id: str) -> int:
        """A blob's size; -1 when it is missing (a partial clone)."""
        try:
            return self.blobs.size(blob_id)
        except (KeyError, ValueError, pygit2.GitError, MissingBlobError):
            return -1

    def patch_id(self, commit_id: str) -> str | None:
        """git's stable patch id of a non-merge commit (same change, same id after a
        rebase); None for a merge, a commit that changes nothing, or one whose blobs a
        partial clone lacks (the id hashes their lines; git reads no object it lacks)."""
        trees = self._patch_trees(commit_id)
        diff = _tree_diff(*trees) if trees is not None else None
        try:
            return str(diff.patchid) if diff is not None and len(diff) else None
        except (KeyError, pygit2.GitError):
            return None

    def patch_paths(self, commit_id: str) -> tuple[tuple[str, str], ...] | None:
        """The (old, new) paths of every file a non-merge commit changes, sorted; None
        where ``patch_id`` is None. A patch id hashes each file's paths with its
        changes, so two commits can only share a patch id if they share these, and
        these cost a tree comparison where the patch id reads and diffs every blob
        (~0.1 s for a commit of a thousand files)."""
        trees = self._patch_trees(commit_id)
        if trees is None:
            return None
        deltas = treediff.changes(self._repo, *trees)
        return tuple(sorted((d.old_file.path, d.new_file.path) for d in deltas)) or None

    def _patch_trees(self, commit_id: str) -> tuple[pygit2.Tree | None, pygit2.Tree] | None:
        """The trees a patch id compares: a non-merge commit's first parent's and its own;
        None for a merge."""
        commit = self._repo[commit_id].peel(pygit2.Commit)
        return None if len(commit.parent_ids) > 1 else self._first_parent_trees(commit_id)

    def _first_parent_trees(self, commit_id: str) -> tuple[pygit2.Tree | None, pygit2.Tree]:
        """The commit's first parent's tree (None for a root commit) and its own."""
        commit = self._repo[commit_id].peel(pygit2.Commit)
        self.fetch_trees([commit_id])
        return (self.tree(str(commit.parent_ids[0])) if commit.parent_ids else None), self.tree(commit_id)


def _tree_diff(old: pygit2.Tree | None, new: pygit2.Tree) -> pygit2.Diff:
    """``old`` → ``new``; from the empty tree where ``old`` is None."""
    return old.diff_to_tree(new) if old is not None else new.diff_to_tree(swap=True)
