"""The one module that imports pygit2: committed trees, tree diffs with rename
detection and blobs, read from git's object database (never the work tree)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pygit2
from pygit2.enums import AttrCheck, DiffFind, FileMode, ObjectType

from recalld.ingest.errors import RecalldError

REGULAR_MODES = (FileMode.BLOB, FileMode.BLOB_EXECUTABLE)
# Renames: exact matches are cheap; the limit bounds libgit2's inexact pairing.
RENAME_LIMIT = 50_000


@dataclass(frozen=True, slots=True)
class TreeFile:
    path: str
    blob: str  # hex object id


@dataclass(frozen=True, slots=True)
class TreeSkip:
    path: str
    reason: str  # symlink | submodule | bad_path


@dataclass(frozen=True, slots=True)
class RenameDelta:
    old_path: str
    new_path: str
    similarity: int


@dataclass(frozen=True, slots=True)
class CommitInfo:
    id: str
    time: int  # committer time, unix seconds
    author: str
    summary: str


class GitRepository:
    """A repository opened by path (work tree or bare, worktrees included)."""

    def __init__(self, path: str | Path) -> None:
        try:
            found = pygit2.discover_repository(str(path))
        except Exception:  # noqa: BLE001 - pygit2 raises assorted errors for unreadable dirs
            found = None
        if not found:
            raise RecalldError(f"not a git repository: {path}")
        self._repo = pygit2.Repository(found)
        self.git_dir = self._repo.path
        self.workdir = self._repo.workdir

    @property
    def common_dir(self) -> str:
        """The shared git dir (differs from ``git_dir`` in a linked worktree)."""
        commondir = Path(self.git_dir) / "commondir"
        if commondir.is_file():
            return str((Path(self.git_dir) / commondir.read_text().strip()).resolve())
        return self.git_dir

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

    def has_commit(self, commit_id: str | None) -> bool:
        if not commit_id:
            return False
        try:
            obj = self._repo.get(commit_id)
        except (ValueError, KeyError):
            return False
        return obj is not None and obj.type == ObjectType.COMMIT

    def commit_info(self, commit_id: str) -> CommitInfo:
        commit = self._repo[commit_id].peel(pygit2.Commit)
        return CommitInfo(
            id=str(commit.id),
            time=int(commit.commit_time),
            author=f"{commit.author.name} <{commit.author.email}>",
            summary=commit.message.split("\n", 1)[0],
        )

    def resolve_commit(self, rev: str) -> str | None:
        """The commit a revision names (full or short id, branch, tag, ``main~2``), or None."""
        if not rev or rev.startswith("-"):
            return None
        try:
            commit = self._repo.revparse_single(rev).peel(pygit2.Commit)
        except (KeyError, ValueError, pygit2.GitError, pygit2.InvalidSpecError):
            return None
        return str(commit.id)

    def is_ancestor(self, ancestor: str, commit: str) -> bool:
        """Whether ``ancestor`` is ``commit`` or reachable from it."""
        if ancestor == commit:
            return True
        try:
            return bool(self._repo.descendant_of(commit, ancestor))
        except (KeyError, ValueError, pygit2.GitError):
            return False

    def commits_between(self, old: str, new: str) -> tuple[int, int]:
        """(commits in new not in old, commits in old not in new)."""
        ahead, behind = self._repo.ahead_behind(new, old)
        return int(ahead), int(behind)

    def walk_tree(self, commit_id: str) -> Iterator[TreeFile | TreeSkip]:
        """Every entry of the commit's tree: regular files, and what is never read."""
        root = self._repo[commit_id].peel(pygit2.Tree)
        stack: list[tuple[str, pygit2.Tree]] = [("", root)]
        while stack:
            prefix, tree = stack.pop()
            for entry in tree:
                name = _entry_name(entry)
                if name is None:
                    yield TreeSkip(prefix + repr(entry.raw_name)[2:-1], "bad_path")
                    continue
                path = prefix + name
                mode = entry.filemode
                if mode == FileMode.TREE:
                    stack.append((path + "/", self._repo[entry.id].peel(pygit2.Tree)))
                elif mode in REGULAR_MODES:
                    yield TreeFile(path, str(entry.id))
                elif mode == FileMode.LINK:
                    yield TreeSkip(path, "symlink")
                elif mode == FileMode.COMMIT:
                    yield TreeSkip(path, "submodule")
                else:
                    yield TreeSkip(path, "unknown_mode")

    def lookup(self, commit_id: str, path: str) -> TreeFile | TreeSkip | None:
        """The entry at ``path`` in the commit's tree, or None if there is none."""
        tree = self._repo[commit_id].peel(pygit2.Tree)
        try:
            entry = tree[path]
        except (KeyError, ValueError):
            return None
        mode = entry.filemode
        if mode in REGULAR_MODES:
            return TreeFile(path, str(entry.id))
        if mode == FileMode.TREE:
            return None
        return TreeSkip(path, {FileMode.LINK: "symlink", FileMode.COMMIT: "submodule"}.get(mode, "unknown_mode"))

    def changed_paths(self, old_commit: str, new_commit: str) -> tuple[set[str], list[RenameDelta]]:
        """Paths that differ between two commits, and the renames git finds among them."""
        old_tree = self._repo[old_commit].peel(pygit2.Tree)
        new_tree = self._repo[new_commit].peel(pygit2.Tree)
        diff = old_tree.diff_to_tree(new_tree)
        diff.find_similar(flags=DiffFind.FIND_RENAMES, rename_limit=RENAME_LIMIT)
        paths: set[str] = set()
        renames: list[RenameDelta] = []
        for delta in diff.deltas:
            paths.add(delta.old_file.path)
            paths.add(delta.new_file.path)
            if delta.status_char() == "R":
                renames.append(
                    RenameDelta(delta.old_file.path, delta.new_file.path, int(delta.similarity))
                )
        return paths, renames

    def blob_size(self, blob_id: str) -> int:
        _kind, size = self._repo.odb.read_header(pygit2.Oid(hex=blob_id))
        return int(size)

    def read_blob(self, blob_id: str) -> bytes:
        blob = self._repo.get(blob_id)
        return bytes(blob.data) if isinstance(blob, pygit2.Blob) else b""

    def attribute(self, commit_id: str, path: str, name: str) -> str | bool | None:
        """A .gitattributes value as committed at ``commit_id`` (work tree ignored)."""
        flags = AttrCheck.INCLUDE_COMMIT | AttrCheck.INDEX_ONLY | AttrCheck.NO_SYSTEM
        try:
            return self._repo.get_attr(path, name, flags=flags, commit=pygit2.Oid(hex=commit_id))
        except (pygit2.GitError, ValueError):
            return None


def _entry_name(entry: pygit2.Object) -> str | None:
    try:
        name = entry.name
    except UnicodeDecodeError:
        return None
    if not name or "\x00" in name or name in (".", ".."):
        return None
    return name
