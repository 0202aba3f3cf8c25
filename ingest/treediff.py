"""The files that differ between two git trees, found without reading the subtrees they share.

libgit2's tree-to-tree diff expands every directory of both trees and compares their files
one by one, so its cost grows with the size of the repository rather than of the change:
~1.5 ms for a one-file commit of Django (6.8k files), where git's own ``diff-tree`` takes
~0.05 ms (libgit2 pull request 6863 would make it skip identical subtrees; not merged).
The search for writers reads up to ``writer_commits`` (10,000) commits past the history
read, each a tree diff, which then cost ~20 s on a copy of Django. Git trees are Merkle
trees: a subtree whose id is the same on both sides holds the same files, so ``changes``
descends only into the directories whose ids differ (0.14 ms for the same commits; for
80,000 files in 8,000 directories 7.8 against 0.11 ms: ``tests/bench/bench_treediff.py``).

It gives what libgit2 gives without flags (``GitDiffs`` made its changes so until stop
112; ``tests/ingest/test_treediff.py`` compares the two on crafted and real histories):
- every file that differs, in git's path order (a directory sorts as its name and ``/``),
  with its status ``A`` (added), ``D`` (deleted) or ``M`` (modified: content or mode);
- a directory replaced by a file, or a file by a directory, is the file deleted (or
  added) and each file under the directory added (or deleted), in path order;
- a file whose type changes (a regular file, a symbolic link, a submodule) is deleted and
  added, in that order: git's tree diff reports a type change only when asked to;
- an added file's old path is its new path, a deleted file's new path its old one; a
  side that has no file has the zero id and mode 0;
- paths are decoded as pygit2 decodes them: UTF-8, other bytes as surrogate escapes.

But for modes an old git wrote (``100664``, ``100600``; a directory as ``040000``),
which it gives as written. Here they are what they mean, as pygit2's tree entries give
them and the sync reads the tree (``100644``): libgit2's diff gave a ``100664`` file no
blob to read (not a regular mode), so a commit's read listed its file without symbols,
and a file whose mode was written both ways as changed. Each tree's entries are read
from the object's bytes, and those alike on both sides are left without a look.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass

import pygit2
from pygit2.enums import FileMode

_TYPE = 0o170000  # a mode's file type: regular, symbolic link, submodule (gitlink)
DIRECTORY, REGULAR, EXECUTABLE = FileMode.TREE, FileMode.BLOB, FileMode.BLOB_EXECUTABLE
LINK, SUBMODULE = FileMode.LINK, FileMode.COMMIT
ZERO = "0" * 40


@dataclass(frozen=True, slots=True)
class TreeSide:
    """One side of a changed file, as a diff delta's ``old_file`` or ``new_file``."""

    raw_path: bytes
    id: str
    mode: int

    @property
    def path(self) -> str:
        return os.fsdecode(self.raw_path)


@dataclass(frozen=True, slots=True)
class TreeChange:
    """A file that differs between the two trees; ``status`` is git's letter."""

    status: str
    old_file: TreeSide
    new_file: TreeSide

    def status_char(self) -> str:
        return self.status


# A tree's entry as git stores it: its mode in octal digits, its name, its id's 20 bytes
_ENTRY = re.compile(rb"([0-7]+) ([^\0]*)\0(.{20})", re.S)
Entry = tuple[bytes, bytes, bytes]  # mode, path from the top, id
Pair = tuple["bytes | None", "bytes | None", bytes]  # two directories' ids to compare, their path and "/"


def changes(repo: pygit2.Repository, old: pygit2.Tree | None, new: pygit2.Tree | None) -> list[TreeChange]:
    """The files that differ from ``old`` to ``new`` (None: the empty tree). A stack of
    what is left, not recursion: a hostile repository may nest directories thousands deep."""
    found: list[TreeChange] = []
    left: list[TreeChange | Pair] = [(_id(old), _id(new), b"")]
    while left:
        item = left.pop()
        if isinstance(item, TreeChange):
            found.append(item)
        else:
            left.extend(reversed(_compared(repo, *item)))
    return found


def _compared(repo: pygit2.Repository, old: bytes | None, new: bytes | None, prefix: bytes) -> list[TreeChange | Pair]:
    """What differs between two directories, in order: files, and directories to compare
    (one whose other side is None is added or deleted whole). Their entries are read from
    the objects' bytes; those alike on both sides (mode, name and id) are left at once."""
    olds, news = _entries(repo, old), _entries(repo, new)
    if olds and news:
        alike = set(olds).intersection(news)
        olds, news = [e for e in olds if e not in alike], [e for e in news if e not in alike]
    out: list[TreeChange | Pair] = []
    i = j = 0
    while i < len(olds) or j < len(news):  # both in git's order: merged
        key_a = _key(olds[i]) if i < len(olds) else None
        key_b = _key(news[j]) if j < len(news) else None
        if key_b is None or (key_a is not None and key_a < key_b):
            out.append(_whole(olds[i], prefix, "D"))
            i += 1
        elif key_a is None or key_b < key_a:
            out.append(_whole(news[j], prefix, "A"))
            j += 1
        else:
            a, b = olds[i], news[j]
            i, j = i + 1, j + 1
            if a[2] == b[2] and _mode(a[0]) == _mode(b[0]):  # written apart, the same (100664 and 100644)
                continue
            if _mode(a[0]) == DIRECTORY:  # both directories: their keys end in "/" alike
                out.append((a[2], b[2], prefix + a[1] + b"/"))
            elif _mode(a[0]) & _TYPE == _mode(b[0]) & _TYPE:
                out.append(TreeChange("M", _side(a, prefix), _side(b, prefix)))
            else:  # a type change: deleted, then added
                out += [_whole(a, prefix, "D"), _whole(b, prefix, "A")]
    return out


def _id(tree: pygit2.Tree | None) -> bytes | None:
    return None if tree is None else tree.id.raw


def _entries(repo: pygit2.Repository, tree: bytes | None) -> list[Entry]:
    """A tree's entries in the order git keeps them."""
    if tree is None:
        return []
    kind, data = repo.odb.read(pygit2.Oid(raw=tree))
    if kind != pygit2.enums.ObjectType.TREE:
        raise ValueError(f"object {tree.hex()} is not a tree")
    return _ENTRY.findall(data)


def _key(entry: Entry) -> bytes:
    """Where git sorts an entry among its siblings: a directory as its name and ``/``."""
    return entry[1] + b"/" if _mode(entry[0]) == DIRECTORY else entry[1]


def _whole(entry: Entry, prefix: bytes, status: str) -> TreeChange | Pair:
    """An entry added (``A``) or deleted (``D``) whole: a file, or a directory to compare
    with nothing."""
    if _mode(entry[0]) == DIRECTORY:
        path = prefix + entry[1] + b"/"
        return (None, entry[2], path) if status == "A" else (entry[2], None, path)
    side, none = _side(entry, prefix), TreeSide(prefix + entry[1], ZERO, 0)
    return TreeChange(status, none, side) if status == "A" else TreeChange(status, side, none)


def _side(entry: Entry, prefix: bytes) -> TreeSide:
    return TreeSide(prefix + entry[1], entry[2].hex(), _mode(entry[0]))


def _mode(written: bytes) -> int:
    """An entry's mode as pygit2's tree entries give it: what git once wrote otherwise
    (``100664``, ``100600``, a directory as ``040000``) as what git writes now."""
    mode = int(written, 8)
    kind = mode & _TYPE
    if kind == DIRECTORY:
        return int(DIRECTORY)
    if mode & 0o111:
        return int(EXECUTABLE)
    return kind if kind in (LINK, SUBMODULE) else int(REGULAR)
