"""The one module that imports pygit2: committed trees, tree diffs with rename
detection and commit history, read from git's object database (never the work tree);
its blobs through ``blobs.Blobs`` (``GitRepository.blobs``), which fetches what a
partial clone lacks: blobs, and a treeless clone's trees (``GitRepository.tree``)."""

from __future__ import annotations

import copy
import hashlib
import sys
from collections.abc import Iterable, Iterator
from pathlib import Path

import pygit2
from pygit2.enums import FileMode, ObjectType, SortMode

from recalld.ingest.blobs import Blobs, promisor_remotes
from recalld.ingest.errors import MissingBlobError, RecalldError
from recalld.ingest.gitattributes import RepositoryAttributes, beside_files
from recalld.ingest.gitnames import entry_name, is_utf8, message_text, person, subject_of
from recalld.ingest.gitrecords import CommitDetails, CommitInfo, RenameDelta, TreeFile, TreeSkip
from recalld.ingest.similar import MAX_BYTES, FileChange, measured_blobs, with_moves

REGULAR_MODES = (FileMode.BLOB, FileMode.BLOB_EXECUTABLE)
SKIPPED_MODES = {FileMode.LINK: "symlink", FileMode.COMMIT: "submodule"}  # never read; others "unknown_mode"
CHANGES_KEPT = 4


# A tree diff's own statuses; "renamed" comes of ingest/similar.py's pairing.
_STATUS = {"A": "added", "M": "modified", "D": "deleted", "T": "typechange"}


class GitRepository:
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
        # (old tree, new tree) → its changes, the moves found: a sync of one commit asks
        # for the same pair twice (its files, then the commit's task memory)
        self._changed: dict[tuple[str, str], list[FileChange]] = {}
        self._shallow: frozenset[str] | None = None
        self._attributes: RepositoryAttributes | None = None
        # A partial clone's blobs it lacks are fetched from its promisor remotes when read
        self.blobs = Blobs(self._repo, self.git_dir, promisor_remotes((e.name, e.value) for e in self._repo.config))

    def local_only(self) -> GitRepository:
        """This repository, reading only the blobs it holds (``Blobs.local_only``)."""
        view = copy.copy(self)
        view.blobs = self.blobs.local_only()
        view._attributes = None  # its own, reading the view's blobs
        return view

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

    def is_unborn(self, branch: str) -> bool:
        """Whether ``branch`` is the checked-out branch of a repository with no commit yet
        (it has no tip and is not missing)."""
        return bool(self._repo.head_is_unborn) and self.current_branch() == branch

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
            author=person(commit.author),
            summary=subject_of(message_text(commit)),
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

    def commit_details(self, commit_id: str) -> CommitDetails:
        commit = self._repo[commit_id].peel(pygit2.Commit)
        return CommitDetails(
            id=str(commit.id),
            message=message_text(commit),
            author=person(commit.author),
            author_time=int(commit.author.time),
            committer_time=int(commit.commit_time),
            parents=self._parents(commit),
        )

    def _parents(self, commit: pygit2.Commit) -> tuple[str, ...]:
        """The commit's parents as it names them: libgit2 reads a shallow clone's boundary
        commit as a root, though its object names the parents the clone does not hold."""
        if commit.parent_ids or str(commit.id) not in self.shallow_boundaries:
            return tuple(str(p) for p in commit.parent_ids)
        header = self._repo.odb.read(commit.id)[1].split(b"\n\n", 1)[0]
        return tuple(line[7:].decode() for line in header.split(b"\n") if line.startswith(b"parent "))

    @property
    def shallow_boundaries(self) -> frozenset[str]:
        """The commits a shallow clone holds without their parents (``.git/shallow``, which
        ``git clone --depth`` and ``git fetch --deepen`` write); read once an instance."""
        if self._shallow is None:
            shallow = Path(self.common_dir) / "shallow"
            listed = shallow.read_text(encoding="ascii", errors="replace") if shallow.is_file() else ""
            self._shallow = frozenset(line.strip() for line in listed.splitlines() if line.strip())
        return self._shallow

    @property
    def shallow_state(self) -> str:
        """What a checkpoint keeps of ``shallow_boundaries`` to see a fetch deepen the clone:
        "" for a complete clone."""
        if not self.shallow_boundaries:
            return ""
        return hashlib.sha1("\n".join(sorted(self.shallow_boundaries)).encode(), usedforsecurity=False).hexdigest()

    def reads_parents(self, commit_id: str) -> bool:
        """Whether the repository holds ``commit_id`` with a parent (not a root, nor a shallow boundary)."""
        return self.has_commit(commit_id) and bool(self._repo[commit_id].peel(pygit2.Commit).parent_ids)

    def walk_commits(self, tip: str, *, hide: str | None, limit: int, first_parent: bool) -> list[str]:
        """Up to ``limit`` commits reachable from ``tip`` and not from ``hide``, newest first."""
        if limit <= 0:
            return []
        sort = SortMode.TOPOLOGICAL | SortMode.TIME if hide else SortMode.NONE
        walker = self._repo.walk(pygit2.Oid(hex=tip), sort)
        if first_parent:
            walker.simplify_first_parent()
        if hide:
            walker.hide(pygit2.Oid(hex=hide))
        found: list[str] = []
        for commit in walker:
            found.append(str(commit.id))
            if len(found) >= limit:
                break
        return found

    def not_reachable(self, commits: list[str], tip: str) -> set[str]:
        """Those of ``commits`` that are not ``tip`` or one of its ancestors (gone ones included)."""
        present = [c for c in commits if self.has_commit(c)]
        gone = set(commits) - set(present)
        if not present:
            return gone
        walker = self._repo.walk(None)
        for commit in present:
            walker.push(pygit2.Oid(hex=commit))
        walker.hide(pygit2.Oid(hex=tip))
        wanted = set(present)
        return gone | {str(c.id) for c in walker if str(c.id) in wanted}

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

    def commit_changes(self, commit_id: str) -> list[FileChange]:
        """The commit's deltas against its first parent (a root commit: against nothing)."""
        return self._changes(*self._first_parent_trees(commit_id))

    def _changes(self, old: pygit2.Tree | None, new: pygit2.Tree) -> list[FileChange]:
        """The deltas between two trees (None: the empty tree) with the files that moved
        found (``similar``); the last few pairs asked are kept."""
        key = (str(old.id) if old is not None else "", str(new.id))
        if key not in self._changed:
            diff = _tree_diff(old, new)
            if len(self._changed) >= CHANGES_KEPT:
                del self._changed[next(iter(self._changed))]
            self._changed[key] = self._moves(diff)
        return list(self._changed[key])

    def _moves(self, diff: pygit2.Diff) -> list[FileChange]:
        changes: list[FileChange] = []
        for delta in diff.deltas:
            status = _STATUS.get(delta.status_char())
            if status is None:
                continue
            old, new = delta.old_file, delta.new_file
            if not (is_utf8(old.path) and is_utf8(new.path)):
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
        diff = self._patch_diff(commit_id)
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
        diff = self._patch_diff(commit_id)
        if diff is None:
            return None
        return tuple(sorted((d.old_file.path, d.new_file.path) for d in diff.deltas)) or None

    def _patch_diff(self, commit_id: str) -> pygit2.Diff | None:
        """The diff a patch id is of: the first-parent diff of a non-merge commit."""
        commit = self._repo[commit_id].peel(pygit2.Commit)
        return None if len(commit.parent_ids) > 1 else self._first_parent_diff(commit_id)

    def _first_parent_diff(self, commit_id: str) -> pygit2.Diff:
        return _tree_diff(*self._first_parent_trees(commit_id))

    def _first_parent_trees(self, commit_id: str) -> tuple[pygit2.Tree | None, pygit2.Tree]:
        """The commit's first parent's tree (None for a root commit) and its own."""
        commit = self._repo[commit_id].peel(pygit2.Commit)
        self.fetch_trees([commit_id])
        return (self.tree(str(commit.parent_ids[0])) if commit.parent_ids else None), self.tree(commit_id)

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
                    yield TreeSkip(prefix + repr(entry.raw_name)[2:-1], "bad_path")
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

    def changed_paths(self, old_commit: str, new_commit: str) -> tuple[set[str], list[RenameDelta]]:
        """Paths that differ between two commits, and the files that moved among them."""
        self.fetch_trees([old_commit, new_commit], parents=False)
        old_tree, new_tree = self.tree(old_commit), self.tree(new_commit)
        changes = self._changes(old_tree, new_tree)
        paths = {path for c in changes for path in (c.old_path, c.new_path) if path is not None}
        moved = [c for c in changes if c.status == "renamed"]
        renames = [RenameDelta(str(c.old_path), str(c.new_path), c.similarity) for c in moved]
        return paths, renames

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


def _tree_diff(old: pygit2.Tree | None, new: pygit2.Tree) -> pygit2.Diff:
    """``old`` → ``new``; from the empty tree where ``old`` is None."""
    return old.diff_to_tree(new) if old is not None else new.diff_to_tree(swap=True)


def _entry_at(tree: pygit2.Tree, path: str) -> pygit2.Object | None:
    """The entry at ``path`` (a file or a directory) under ``tree``, or None. pygit2 1.21's
    Tree[path] keeps a reference to the string it is given: an interned path leaks one
    string per distinct path, not one per lookup (a daemon looks up every changed path of
    every sync)."""
    try:
        return tree[sys.intern(path)]
    except (KeyError, ValueError):
        return None
