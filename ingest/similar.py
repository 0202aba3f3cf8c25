"""Which files of a tree diff moved: git's rename detection (``-M``, with ``-B``'s
rewrites), worked out here from the blobs.

libgit2's ``find_similar`` measured every source against every added file, even where
one of them had an exact twin, and a sync ran it twice (its files, then the commit's task
memory): Django moved to ``src/`` with 150 of its 3,660 files edited took it 7.8 s a run
(git's own diff: 0.06 s; here 0.12 s), ruff 0.0.250 → 0.0.280 (1,448 files deleted, 957
added, 455 modified) 9.6 s (here 0.5 s). Here:

1. **Exact.** An added file whose blob a deleted file held moved from there; among
   several such, the one whose path shares the most trailing components (``a/six.py``
   → ``src/a/six.py``, not another ``six.py``). An empty file is paired only where it
   keeps its name and its directory's name (a tree moved), never with just any other
   empty file; after the rest, where it keeps its name and the other moves took its
   directory to the new one's (a package renamed: its ``__init__.py``).
2. **Alike.** The rest are measured as git measures them (``chunks``), but for white space: a file
   is the multiset of its chunks (each line with its newline, a line over ``CHUNK``
   bytes cut every ``CHUNK``; indentation and trailing blanks dropped, as libgit2's
   measure ignores them, so a file re-indented by a formatter while it moved, or turned
   from CRLF to LF, still pairs: eslint 9's ``token-store`` moved to ``languages/js/``
   as prettier turned its spaces into tabs), a chunk weighing its length; two files are
   as similar as the weight they share over the larger one's, one file moved from
   ``THRESHOLD`` % on. Between files of different names, chunks that over ``COMMON``
   sources hold (licence headers, blank lines, closing braces) count for nothing; a
   file that keeps its base name is measured whole and moved as long as it kept
   ``THRESHOLD`` % of its old content, however much it grew (``git mv``, then code
   added). An added file is measured only against the sources that share a chunk with
   it that few sources hold, and those of its name: a handful, not every source.
3. The most similar pairs first (exactly, not by whole percents), then a rewrite's own
   old self, then the longest shared path tail; each file in one pair at most.

A modified file is a **rewrite** (git's ``-B``) when it lost over ``THRESHOLD`` % of its
old content, or lost and gained that much of the larger side together (not under
``MIN_BREAK`` bytes): its old content is then a source and its new one a target, so code
moved out from behind a stub follows the move, a file that another's code replaced
continues that file, and files that traded contents (``git mv`` both ways, a rotation of
three) are renames, though the diff adds and deletes nothing. A rewrite most like its
own old self stays modified. A diff that adds and deletes nothing is asked only where two
modified files may be rewrites (a commit that edits one file reads no blob), and an
edit between a long head and tail the file kept is none by its bytes, its chunks never
counted (200 files of 27 kB edited: 0.13 s, all but the reading 0.01 s). Files over
``MAX_BYTES`` (or missing from a partial clone) are paired only when exact.
"""

from __future__ import annotations

import posixpath
from collections import Counter, defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from posixpath import basename
from typing import NamedTuple

from recalld.ingest.chunks import (
    MIN_BREAK,
    LineCache,
    judged,
    rewritten,
    similarity,
    without,
)

COMMON = 32  # a chunk more sources hold finds no candidates (blank lines, braces, boilerplate)
MAX_BYTES = 4 << 20


@dataclass(frozen=True, slots=True)
class FileChange:
    """One delta of a diff between two trees."""

    status: str  # added | modified | deleted | renamed
    old_path: str | None
    new_path: str | None
    old_blob: str | None  # None when absent or not a regular file
    new_blob: str | None
    similarity: int = 0


def with_moves(
    changes: Sequence[FileChange], read: Callable[[str], bytes | None], size: Callable[[str], int]
) -> list[FileChange]:
    """``changes`` (added, deleted and modified files, as a diff without rename detection
    lists them) with the moves found, each a ``renamed`` change from the source's old
    path and blob to the target's new ones. A deleted source and an added target go; a
    rewritten file whose old content moved stays ``added`` (its new content), one whose
    new content came from elsewhere is that rename alone. ``read``: a blob's content,
    None when it is too large or unreadable; ``size``: its size in bytes (-1 unknown)."""
    added = [i for i, c in enumerate(changes) if c.status == "added" and c.new_blob]
    deleted = [i for i, c in enumerate(changes) if c.status == "deleted" and c.old_blob]
    lines = LineCache(read)
    rewritten = _rewrites(changes, lines, size, alone=not added and not deleted)
    sources, targets = deleted + rewritten, added + rewritten
    if not sources or not targets:
        return list(changes)
    moves = _exact(changes, deleted, added, size)
    taken = {source for source, _ in moves.values()}
    left = [s for s in sources if s not in taken]
    moves.update(_assign(_alike(changes, left, [t for t in targets if t not in moves], lines)))
    moves.update(_empty_followers(changes, deleted, added, moves, size))
    return _applied(changes, moves)


def measured_blobs(changes: Sequence[FileChange]) -> list[str]:
    """The blobs ``with_moves`` may read (a partial clone fetches them in one go): those
    of added and deleted files, and of modified ones unless a single file is edited."""
    edited = [changes[i] for i in _edited(changes)]
    moved = [c for c in changes if c.status in ("added", "deleted")]
    alone = len(edited) < 2 and not any(c.old_blob or c.new_blob for c in moved)
    return [b for c in moved + ([] if alone else edited) for b in (c.old_blob, c.new_blob) if b]


def _edited(changes: Sequence[FileChange]) -> list[int]:
    """The modified files, their blobs on both sides regular files."""
    return [i for i, c in enumerate(changes) if c.status == "modified" and c.old_blob and c.new_blob]


def _rewrites(
    changes: Sequence[FileChange], lines: LineCache, size: Callable[[str], int], *, alone: bool
) -> list[int]:
    """The modified files that are rewrites (git's ``-B``): sources and targets of moves.
    ``alone``: the diff adds and deletes nothing, so a rewrite can only have moved to
    another (files swapped, or rotated): none unless two may be, first by their sizes,
    before any blob is read (a commit that edits one file reads nothing). A file's weight
    is at most its size, and one more for a last line without its newline."""
    edited = _edited(changes)
    if alone and len(edited) < 2:
        return []
    breakable = [
        i for i in edited
        if max(size(str(changes[i].old_blob)), size(str(changes[i].new_blob))) + 1 >= MIN_BREAK
    ]  # fmt: skip
    if alone and len(breakable) < 2:
        return []
    found = [i for i in breakable if rewritten(lines, str(changes[i].old_blob), str(changes[i].new_blob))]
    return [] if alone and len(found) < 2 else found


def _applied(changes: Sequence[FileChange], moves: dict[int, tuple[int, int]]) -> list[FileChange]:
    moved_away = {source for target, (source, _) in moves.items() if source != target}
    out: list[FileChange] = []
    for i, change in enumerate(changes):
        if i in moves and moves[i][0] == i:  # a rewrite most like its own old self: modified
            out.append(change)
        elif i in moves:
            source, score = moves[i]
            old_path, old_blob = changes[source].old_path, changes[source].old_blob
            out.append(replace(change, status="renamed", old_path=old_path, old_blob=old_blob, similarity=score))
        elif i not in moved_away:
            out.append(change)
        elif change.status == "modified":
            out.append(replace(change, status="added", old_path=None, old_blob=None))
    return out


class _Entry(NamedTuple):
    """A candidate pair, ordered as pairs are taken: the most similar first, then a
    rewrite's own old self, then the longest shared path tail. The similarity is exact:
    in whole percents, guava's two copies of a class, both rewritten in place, were each
    as like the other's new copy as its own, and went crosswise. A rewrite continues
    itself unless another file is more like it."""

    negative_score: float
    elsewhere: bool  # the source is not the target's own old self
    negative_tail: int  # path components the two share at the end, negated
    old: str
    new: str
    source: int
    target: int


def _exact(
    changes: Sequence[FileChange], sources: list[int], targets: list[int], size: Callable[[str], int]
) -> dict[int, tuple[int, int]]:
    """Added files whose blob a deleted file held. An empty file holds nothing to follow:
    paired only where it keeps its name and its directory's (a tree moved), never with
    any other empty file, as git would."""
    by_blob: dict[str, list[int]] = defaultdict(list)
    for source in sources:
        by_blob[str(changes[source].old_blob)].append(source)
    twins = [
        _entry(changes, source, target, 100)
        for target in targets
        for source in by_blob.get(str(changes[target].new_blob), ())
    ]
    return _assign([e for e in twins if -e.negative_tail >= 2 or size(str(changes[e.target].new_blob)) != 0])


def _empty_followers(
    changes: Sequence[FileChange], sources: list[int], targets: list[int], moves: dict[int, tuple[int, int]],
    size: Callable[[str], int],
) -> dict[int, tuple[int, int]]:
    """Empty files left unpaired that moved with their directory: a deleted empty file and
    an added one of the same name, where the other moves took the first's directory to the
    second's. A package renamed (``git mv humanize humanise``) moves its empty
    ``__init__.py`` with its modules, which shares only its name with the new one and was
    ``_exact``'s to leave (it pairs none but a tree moved whole)."""
    taken = {source for source, _ in moves.values()}
    empty_sources = [s for s in sources if s not in taken and size(str(changes[s].old_blob)) == 0]
    empty_targets = {
        posixpath.split(str(changes[t].new_path)): t
        for t in targets
        if t not in moves and size(str(changes[t].new_blob)) == 0
    }
    if not empty_sources or not empty_targets:
        return {}
    went: dict[str, set[str]] = defaultdict(set)
    for target, (source, _) in moves.items():
        for old, new in _moved_directories(str(changes[source].old_path), str(changes[target].new_path)):
            went[old].add(new)
    entries = []
    for source in empty_sources:
        directory, name = posixpath.split(str(changes[source].old_path))
        for new in went.get(directory, ()):
            follower = empty_targets.get((new, name))
            if follower is not None:
                entries.append(_entry(changes, source, follower, 100))
    return _assign(entries)


def _moved_directories(old: str, new: str) -> list[tuple[str, str]]:
    """The directories a file's move took elsewhere: its own, and each parent of it while
    the two paths agree below it (``a/b/c.py`` → ``x/b/c.py`` moved ``a/b`` to ``x/b``
    and ``a`` to ``x``; the top is ``""``)."""
    olds, news = old.split("/")[:-1], new.split("/")[:-1]
    found = []
    while olds != news:
        found.append(("/".join(olds), "/".join(news)))
        if not olds or not news or olds[-1] != news[-1]:
            break
        olds, news = olds[:-1], news[:-1]
    return found


def _assign(scored: list[_Entry]) -> dict[int, tuple[int, int]]:
    """target → (source, similarity in whole percents, as git reports it): the best pairs
    first, each file in one pair at most."""
    moves: dict[int, tuple[int, int]] = {}
    taken: set[int] = set()
    for entry in sorted(scored):
        source, target = entry.source, entry.target
        if source not in taken and target not in moves:
            moves[target] = (source, max(1, int(-entry.negative_score)))
            taken.add(source)
    return moves


def _alike(changes: Sequence[FileChange], sources: list[int], targets: list[int], lines: LineCache) -> list[_Entry]:
    """Pairs at or over ``THRESHOLD`` among the sources that share a chunk with a target
    that at most ``COMMON`` sources hold, and those of its base name (unless more than
    ``COMMON`` share it). Between files of different names, chunks more sources hold
    (licence headers, blank lines, closing braces) count for nothing: two small files are
    not one because both are mostly boilerplate (Go's three-line licence header made any
    two small files of its standard library half alike). A file that keeps its name is
    measured whole: the name vouches for it. The weight a target shares with each source
    of another name is summed from who holds each of its chunks, not measured pair by
    pair (JDK 8 → 11, 2,707 files added: ~100k measures, its moves found in 4.8 s; 2.7 s
    now, the same moves)."""
    if not sources or not targets:
        return []
    holders: dict[bytes, list[tuple[int, int]]] = defaultdict(list)  # chunk -> (source, its weight there)
    named: dict[str, list[int]] = defaultdict(list)
    names: dict[int, str] = {}
    own_totals: Counter[int] = Counter()  # a source's weight but the common chunks'
    for source in sources:
        found = lines.of(str(changes[source].old_blob))
        for chunk, weight in found.weights.items() if found else ():
            holders[chunk].append((source, weight))
        own_totals[source] = found.total if found else 0
        names[source] = name = basename(str(changes[source].old_path))
        named[name].append(source)
    common = {chunk for chunk, held in holders.items() if len(held) > COMMON}
    for chunk in common:
        for source, weight in holders[chunk]:
            own_totals[source] -= weight
    scored = []
    for target in targets:
        found = lines.of(str(changes[target].new_blob))
        if found is None:
            continue
        mine = without(found, common)
        name = basename(str(changes[target].new_path))
        shared: dict[int, int] = defaultdict(int)
        for chunk, weight in mine.weights.items():
            for source, held in holders.get(chunk, ()):
                shared[source] += weight if weight < held else held
        alike = named.get(name, []) if len(named.get(name, [])) <= COMMON else []
        for source in {*alike, *(s for s in shared if names[s] == name)}:  # the name vouches for the boilerplate
            whole = lines.of(str(changes[source].old_blob))
            score = similarity(whole, found, same_name=True) if whole is not None else 0
            if score:
                scored.append(_entry(changes, source, target, score))
        for source, both in shared.items():
            if names[source] == name:
                continue
            score = judged(both, own_totals[source], mine.total, same_name=False)
            if score:
                scored.append(_entry(changes, source, target, score))
    return scored


def _entry(changes: Sequence[FileChange], source: int, target: int, score: float) -> _Entry:
    old, new = str(changes[source].old_path), str(changes[target].new_path)
    return _Entry(-score, source != target, -_common_tail(old, new), old, new, source, target)


def _common_tail(old: str, new: str) -> int:
    """How many trailing path components two paths share (``a/b/c.py``, ``src/a/b/c.py``: 3)."""
    shared = 0
    for a, b in zip(reversed(old.split("/")), reversed(new.split("/"))):
        if a != b:
            break
        shared += 1
    return shared


