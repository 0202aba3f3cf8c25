"""Working out what changed: a pure function of old memories, new symbols and renames.

``plan_changes`` needs no store, no disk and no model. It decides, for every path
touched by a sync, which symbol versions stay, which are new (and whose lineage they
continue), which are closed and why, and which only moved lines.
"""

from __future__ import annotations

import posixpath
import re
import uuid
from collections import defaultdict
from collections.abc import Callable, Hashable, Iterable, Mapping
from dataclasses import dataclass, field
from difflib import SequenceMatcher
from functools import lru_cache
from typing import TypeVar

from recalld.ingest.likeness import (
    MOVED_WITH_EDITS,
    RENAMED_WITH_EDITS,
    Affinity,
    OldSource,
    is_distinctive,
    pair_alike,
)
from recalld.ingest.sparse import identifier_words
from recalld.parsers.base import FILE_LEVEL_QUALNAMES, Symbol

T = TypeVar("T")
K = TypeVar("K", bound=Hashable)

# A qualname and what extraction appends to tell repeats apart: parameter types, "#2".
_DECORATED = re.compile(r"([^(]+?)(?:\(.*\))?(?:#\d+)?")
_ID_NAMESPACE = uuid.UUID("6f1c7a52-3a43-4d0e-9a57-2c1b0f3e9d11")

ADDED, MODIFIED, RENAMED = "added", "modified", "renamed"
REMOVED, DELETED = "removed", "deleted"
RENAME_ROUNDS = 4  # scopes nested this deep are followed through renames of their own
# Above this many (left × arrived) pairs under one key, candidates are paired in the order
# found rather than ranked by affinity (hundreds of identical one-line constructors).
RANKED_PAIRS = 4096


@dataclass(frozen=True, slots=True)
class Scope:
    repo: str
    branch: str
    untrusted: bool = False  # memories from a ref marked untrusted: stored, left out of default search


def symbol_key(scope: Scope, path: str, kind: str, qualname: str) -> str:
    return f"{scope.repo}:{scope.branch}:{path}:{kind}:{qualname}"


@lru_cache(maxsize=1 << 16)  # a sync asks twice per symbol: to embed ahead, and to plan
def memory_id(scope: Scope, path: str, kind: str, qualname: str, content_hash: str) -> str:
    """Deterministic point id: the same code at the same place is always the same point."""
    key = symbol_key(scope, path, kind, qualname)
    return str(uuid.uuid5(_ID_NAMESPACE, f"{key}\x00{content_hash}"))


@dataclass(frozen=True, slots=True)
class LiveMemory:
    """The planning-relevant part of a live (not deprecated) memory in the store."""

    id: str
    path: str
    kind: str
    qualname: str
    content_hash: str
    lineage: str
    start_line: int
    end_line: int
    blob: str | None = None  # a module's: the file's blob it was last written with


@dataclass(frozen=True, slots=True)
class FileSymbols:
    """A file as it is at the target commit, with what the parser found in it."""

    path: str
    blob: str
    language: str
    symbols: tuple[Symbol, ...]


@dataclass(frozen=True, slots=True)
class NewVersion:
    id: str
    file: FileSymbols
    symbol: Symbol
    lineage: str
    change: str  # added | modified | renamed


@dataclass(frozen=True, slots=True)
class Closure:
    id: str
    reason: str  # modified | removed | deleted | renamed
    superseded_by: str | None


@dataclass(frozen=True, slots=True)
class Relocation:
    """An unchanged memory's new lines; a module's new blob too, when its file's bytes
    changed but not its symbols (line endings flipped)."""

    id: str
    start_line: int
    end_line: int
    blob: str | None = None


@dataclass(frozen=True, slots=True)
class Plan:
    new_versions: tuple[NewVersion, ...] = ()
    closures: tuple[Closure, ...] = ()
    relocations: tuple[Relocation, ...] = ()

    @property
    def is_empty(self) -> bool:
        return not (self.new_versions or self.closures or self.relocations)


@dataclass(slots=True)
class _Draft:
    """Mutable working state of one planning run."""

    scope: Scope
    new: dict[str, NewVersion] = field(default_factory=dict)
    closures: dict[str, Closure] = field(default_factory=dict)
    relocations: list[Relocation] = field(default_factory=list)
    orphans: list[NewVersion] = field(default_factory=list)  # new, no predecessor yet
    leftovers: list[tuple[LiveMemory, str]] = field(default_factory=list)  # closed, no successor

    def add(self, file: FileSymbols, sym: Symbol, lineage: str | None, change: str) -> NewVersion:
        mid = memory_id(self.scope, file.path, sym.kind, sym.qualname, sym.content_hash)
        version = NewVersion(mid, file, sym, lineage or mid, change)
        self.new[mid] = version
        if lineage is None:
            self.orphans.append(version)
        return version

    def close(self, mem: LiveMemory, reason: str, successor: str | None) -> None:
        self.closures[mem.id] = Closure(mem.id, reason, successor)


def plan_changes(
    *,
    scope: Scope,
    live: Iterable[LiveMemory],
    targets: Mapping[str, FileSymbols],
    gone: Iterable[str],
    renames: Mapping[str, str],
    old_source: OldSource | None = None,
) -> Plan:
    """Plan the store writes that bring ``live`` in line with ``targets``.

    ``targets`` holds every touched path that exists (and is indexed) at the target
    commit; ``gone`` every touched path that no longer does; ``renames`` maps an old
    path in ``gone`` to its new path in ``targets``, or a path in ``targets`` whose old
    content moved to another (a rewrite: git's ``-B -M``). ``live`` must include the live
    memories at all of those paths; memories at other paths are left alone.
    ``old_source`` tells a closing memory's code, for symbols that moved and were edited
    in one commit (a class split across files) or were renamed; without it such a move
    or rename is a removal.
    """
    gone_set = set(gone)
    # A file rewritten in place whose old content git found elsewhere (``eslint.js`` →
    # ``legacy-eslint.js`` while ``flat-eslint.js`` → ``eslint.js``): what it held moves.
    moved_out = {old for old, new in renames.items() if old in targets and new in targets and old != new}
    renamed_from = {
        new: old for old, new in renames.items() if (old in gone_set or old in moved_out) and new in targets
    }
    by_path: dict[str, list[LiveMemory]] = defaultdict(list)
    for mem in live:
        if mem.path in targets or mem.path in gone_set:
            by_path[mem.path].append(mem)
    moving: dict[str, list[LiveMemory]] = {}
    for path in moved_out:  # what the new content holds unchanged stays where it is
        staying = {memory_id(scope, path, s.kind, s.qualname, s.content_hash) for s in targets[path].symbols}
        moving[path] = [m for m in by_path[path] if m.id not in staying]
        by_path[path] = [m for m in by_path[path] if m.id in staying]

    draft = _Draft(scope)
    for path in sorted(targets):
        source = renamed_from.get(path)
        moved_from = (moving.pop(source, []) if source in moved_out else by_path.pop(source, [])) if source else []
        _plan_file(draft, targets[path], by_path.pop(path, []), moved_from)
    for path in sorted(gone_set - set(renamed_from.values())):
        for mem in by_path.pop(path, []):
            draft.leftovers.append((mem, DELETED))
    _match_edits(draft)
    _match_moves(draft, {old: new for new, old in renamed_from.items()}, old_source)
    return Plan(
        new_versions=tuple(draft.new.values()),
        # A version written as live is never closed by the same plan (its id is its content's).
        closures=tuple(c for c in draft.closures.values() if c.id not in draft.new),
        relocations=tuple(draft.relocations),
    )


def _plan_file(
    draft: _Draft, file: FileSymbols, here: list[LiveMemory], moved_from: list[LiveMemory]
) -> None:
    here_by_key = _group_by_key(here)
    moved_by_key = _group_by_key(moved_from)
    for sym in file.symbols:
        key = (sym.kind, sym.qualname)
        same_place = here_by_key.pop(key, [])
        if same_place:
            _continue_in_place(draft, file, sym, same_place)
            continue
        predecessors = moved_by_key.pop(key, [])
        if predecessors:
            version = draft.add(file, sym, predecessors[0].lineage, RENAMED)
            for mem in predecessors:
                draft.close(mem, RENAMED, version.id)
            continue
        draft.add(file, sym, None, ADDED)
    for mems in (*here_by_key.values(), *moved_by_key.values()):
        for mem in mems:
            draft.leftovers.append((mem, REMOVED))


def _continue_in_place(draft: _Draft, file: FileSymbols, sym: Symbol, mems: list[LiveMemory]) -> None:
    mid = memory_id(draft.scope, file.path, sym.kind, sym.qualname, sym.content_hash)
    current = next((m for m in mems if m.id == mid), None)
    if current is None:
        version = draft.add(file, sym, mems[0].lineage, MODIFIED)
        successor = version.id
    else:
        successor = current.id
        moved_blob = sym.kind == "module" and current.blob is not None and current.blob != file.blob
        blob = file.blob if moved_blob else None
        if blob is not None or (current.start_line, current.end_line) != (sym.start_line, sym.end_line):
            draft.relocations.append(Relocation(current.id, sym.start_line, sym.end_line, blob))
    for mem in mems:
        if mem is not current:
            draft.close(mem, MODIFIED, successor)


def _match_moves(draft: _Draft, renames: Mapping[str, str], old_source: OldSource | None) -> None:
    """Pair symbols that left their file or scope with symbols that appeared elsewhere.

    Exact code first (same kind, name and content, the closest candidate first); then
    (with ``old_source``) a symbol renamed where it is (same file, or the file git says
    its code went to, and the same parent scope) with code alike (``RENAMED_WITH_EDITS``):
    ``compute_perimeter`` renamed ``circle_perimeter``; then the same (kind, qualname)
    where one candidate is closer than the others; then the same (kind, name) with code
    alike (``MOVED_WITH_EDITS``): ``Flask.errorhandler`` edited into ``Scaffold.
    errorhandler`` in another file; last renames in place again, in scopes those passes
    paired. File-level entries (a module, a whole decision document) only move with their
    file (a git rename). Derived entries move like symbols: a TODO whose code moved to
    another file, a tool setting moved from setup.cfg to pyproject.toml.
    """
    closing = [(m, r) for m, r in draft.leftovers if m.qualname not in FILE_LEVEL_QUALNAMES]
    arriving = [v for v in draft.orphans if v.symbol.qualname not in FILE_LEVEL_QUALNAMES]
    matched: dict[str, NewVersion] = {}
    taken: set[str] = set()
    affinity = _affinity(renames)

    def pair_by(
        old_key: Callable[[LiveMemory], Hashable],
        new_key: Callable[[NewVersion], Hashable],
        *,
        guess: bool,
        admissible: Callable[[LiveMemory, NewVersion], bool] | None = None,
    ) -> None:
        olds: dict[Hashable, list[LiveMemory]] = defaultdict(list)
        for mem, _reason in closing:
            if mem.id not in matched:
                olds[old_key(mem)].append(mem)
        news: dict[Hashable, list[NewVersion]] = defaultdict(list)
        for version in arriving:
            if version.id not in taken:
                news[new_key(version)].append(version)
        for key, left in olds.items():
            for mem, version in _closest_pairs(left, news.get(key, []), affinity, guess=guess, admissible=admissible):
                matched[mem.id] = version
                taken.add(version.id)

    # The same code: any pairing keeps what was known, the closest first; code too short
    # to tell apart (``return self``) only in its own scope or file.
    def telling(mem: LiveMemory, version: NewVersion) -> bool:
        return (
            _parent(mem.qualname) == _parent(version.symbol.qualname)
            or renames.get(mem.path, mem.path) == version.file.path
            or is_distinctive(version.symbol.source)
        )

    pair_by(lambda m: (m.kind, _short_name(m.qualname), m.content_hash),
            lambda v: (v.symbol.kind, _short_name(v.symbol.qualname), v.symbol.content_hash), guess=True,
            admissible=telling)  # fmt: skip
    memo: dict[tuple[str, str, float], float] = {}  # likeness of pairs already compared
    if old_source is not None:  # alike code in the file git says the old code went to
        _match_renames(closing, arriving, matched, taken, renames, old_source, affinity, memo)
    # The same name, other code: only where one candidate is closer than the rest.
    pair_by(lambda m: (m.kind, m.qualname), lambda v: (v.symbol.kind, v.symbol.qualname), guess=False)
    if old_source is not None:
        by_name = pair_alike(
            closing, arriving, matched, taken, old_source, threshold=MOVED_WITH_EDITS,
            old_key=lambda m: (m.kind, _short_name(m.qualname)),
            new_key=lambda v: (v.symbol.kind, _short_name(v.symbol.qualname)), affinity=affinity, memo=memo,
        )  # fmt: skip
        matched.update(by_name)
        _match_renames(closing, arriving, matched, taken, renames, old_source, affinity, memo)

    for mem, reason in draft.leftovers:
        successor = matched.get(mem.id)
        if successor is None:
            draft.close(mem, reason, None)
            continue
        moved = NewVersion(successor.id, successor.file, successor.symbol, mem.lineage, RENAMED)
        draft.new[successor.id] = moved
        draft.close(mem, RENAMED, successor.id)


def _match_renames(
    closing: list[tuple[LiveMemory, str]],
    arriving: list[NewVersion],
    matched: dict[str, NewVersion],
    taken: set[str],
    renames: Mapping[str, str],
    old_source: OldSource,
    affinity: Affinity,
    memo: dict[tuple[str, str, float], float],
) -> None:
    """Symbols renamed where they are: the same file (or the one git renamed it to) and
    the same scope, or the scope's own successor (``Shape.area`` → ``Figure.surface``
    once ``Shape`` → ``Figure`` is known), with code alike. Outer scopes are paired
    first, so each round may let the next pair what they hold."""
    for _round in range(RENAME_ROUNDS):
        scopes = {(renames.get(m.path, m.path), m.qualname): matched[m.id].symbol.qualname
                  for m, _ in closing if m.id in matched}  # fmt: skip

        def old_key(mem: LiveMemory) -> Hashable:
            path, parent = renames.get(mem.path, mem.path), _parent(mem.qualname)
            return path, mem.kind, scopes.get((path, parent), parent)

        found = pair_alike(
            closing, arriving, matched, taken, old_source, threshold=RENAMED_WITH_EDITS, old_key=old_key,
            new_key=lambda v: (v.file.path, v.symbol.kind, _parent(v.symbol.qualname)), affinity=affinity,
            short_ok=_names_share_a_word, memo=memo,
        )  # fmt: skip
        if not found:
            return
        matched.update(found)


def _closest_pairs(
    olds: list[LiveMemory],
    news: list[NewVersion],
    affinity: Affinity,
    *,
    guess: bool,
    admissible: Callable[[LiveMemory, NewVersion], bool] | None = None,
) -> list[tuple[LiveMemory, NewVersion]]:
    """Candidates of one key paired one to one (``admissible`` ones only), the closest
    first (``affinity``): of two classes that traded a method with the same code, each
    keeps its own. Without ``guess``, a pair only where each is the other's one closest
    candidate (a class's ``.js`` file rather than its ``.d.ts`` declaration; each of two
    vendored copies of a module moved into a package continues its own copy)."""
    if not news or (len(olds) * len(news) > RANKED_PAIRS and not guess):
        return []
    if len(olds) * len(news) > RANKED_PAIRS:  # hundreds of one-line constructors: in order
        pairs: list[tuple[LiveMemory, NewVersion]] = []
        free = list(news)
        for mem in olds:
            version = next((v for v in free if admissible is None or admissible(mem, v)), None)
            if version is not None:
                free.remove(version)
                pairs.append((mem, version))
        return pairs
    scores = {
        (i, j): affinity(mem, version)
        for i, mem in enumerate(olds)
        for j, version in enumerate(news)
        if admissible is None or admissible(mem, version)
    }
    chosen = _mutual_best(scores) if not guess else _greedy(scores)
    return [(olds[i], news[j]) for i, j in chosen]


def _greedy(scores: dict[tuple[int, int], tuple[float, ...]]) -> list[tuple[int, int]]:
    """The closest pairs first, ties in the order the candidates came."""
    chosen: list[tuple[int, int]] = []
    used_old: set[int] = set()
    used_new: set[int] = set()
    for (i, j), _closeness in sorted(scores.items(), key=lambda item: (item[1], -item[0][0], -item[0][1]), reverse=True):
        if i not in used_old and j not in used_new:
            used_old.add(i)
            used_new.add(j)
            chosen.append((i, j))
    return chosen


def _mutual_best(scores: dict[tuple[int, int], tuple[float, ...]]) -> list[tuple[int, int]]:
    """Pairs each of whose sides is the other's one closest candidate, taken in rounds
    (a pair taken may leave another pair mutually closest); a tie pairs nothing."""
    chosen: list[tuple[int, int]] = []
    while True:
        best_new = _unique_best(scores, lambda pair: pair[0], lambda pair: pair[1])
        best_old = _unique_best(scores, lambda pair: pair[1], lambda pair: pair[0])
        mutual = [(i, j) for i, j in best_new.items() if best_old.get(j) == i]
        if not mutual:
            return chosen
        chosen.extend(mutual)
        taken_old, taken_new = {i for i, _ in mutual}, {j for _, j in mutual}
        scores = {pair: s for pair, s in scores.items() if pair[0] not in taken_old and pair[1] not in taken_new}


def _unique_best(
    scores: dict[tuple[int, int], tuple[float, ...]],
    side: Callable[[tuple[int, int]], int],
    other: Callable[[tuple[int, int]], int],
) -> dict[int, int]:
    """For each candidate on one side, the other side's closest, where no other ties it."""
    best: dict[int, tuple[tuple[float, ...], int | None]] = {}
    for pair, closeness in scores.items():
        current = best.get(side(pair))
        if current is None or closeness > current[0]:
            best[side(pair)] = (closeness, other(pair))
        elif closeness == current[0]:
            best[side(pair)] = (closeness, None)
    return {key: found for key, (_closeness, found) in best.items() if found is not None}


def _affinity(renames: Mapping[str, str]) -> Affinity:
    """How close a symbol that arrived is to one that left, beside their code: the same
    qualified name, the same enclosing scope, the same file type, then alike paths."""

    def affinity(mem: LiveMemory, version: NewVersion) -> tuple[float, ...]:
        old_path, new_path, new = renames.get(mem.path, mem.path), version.file.path, version.symbol.qualname
        return (
            float(mem.qualname == new),
            float(_parent(mem.qualname) == _parent(new)),
            float(posixpath.splitext(old_path)[1] == posixpath.splitext(new_path)[1]),
            SequenceMatcher(None, old_path, new_path).ratio(),
        )

    return affinity


def _names_share_a_word(mem: LiveMemory, version: NewVersion) -> bool:
    """Whether two names share a word (``setup`` → ``setup_test``): short code renamed in
    place is taken for the same only then, not ``__enter__`` → ``_is_active``."""
    old = set(identifier_words(_short_name(mem.qualname)))
    return not old.isdisjoint(identifier_words(_short_name(version.symbol.qualname)))


def _parent(qualname: str) -> str:
    """The scope a symbol is declared in: ``Parser`` for ``Parser.parse(java.io.Reader)``."""
    declared = _DECORATED.fullmatch(qualname)
    name = declared.group(1) if declared else qualname
    return name.rsplit(".", 1)[0] if "." in name else ""


def _match_edits(draft: _Draft) -> None:
    """An entry whose qualname is ``<anchor>:<kind>:<hash of its text>`` (a debt comment)
    changes its qualname when its text is edited. When exactly one such entry left an
    anchor of a file and exactly one arrived there, it is the same note, edited."""
    leaving = unique_by(
        [(m, r) for m, r in draft.leftovers if r == REMOVED and _anchor(m.kind, m.qualname)],
        lambda item: (item[0].path, item[0].kind, _anchor(item[0].kind, item[0].qualname)),
    )
    arriving = unique_by(
        [v for v in draft.orphans if _anchor(v.symbol.kind, v.symbol.qualname)],
        lambda v: (v.file.path, v.symbol.kind, _anchor(v.symbol.kind, v.symbol.qualname)),
    )
    for key, (mem, _reason) in leaving.items():
        successor = arriving.get(key)
        if successor is None:
            continue
        draft.leftovers.remove((mem, REMOVED))
        draft.orphans.remove(successor)
        draft.new[successor.id] = NewVersion(successor.id, successor.file, successor.symbol, mem.lineage, MODIFIED)
        draft.close(mem, MODIFIED, successor.id)


def _anchor(kind: str, qualname: str) -> str:
    marker = f":{kind}:"
    return qualname.rsplit(marker, 1)[0] if marker in qualname else ""


def _short_name(qualname: str) -> str:
    """The name a symbol is declared with: ``parse`` for ``Parser.parse``, for an overload
    named by its parameters (``Parser.parse(java.io.Reader)``) and for a repeat
    (``Parser.parse#2``), so a symbol that only gained or lost that mark is the same."""
    declared = _DECORATED.fullmatch(qualname)
    return (declared.group(1) if declared else qualname).rsplit(".", 1)[-1]


def _group_by_key(mems: list[LiveMemory]) -> dict[tuple[str, str], list[LiveMemory]]:
    grouped: dict[tuple[str, str], list[LiveMemory]] = defaultdict(list)
    for mem in mems:
        grouped[(mem.kind, mem.qualname)].append(mem)
    return grouped


def unique_by(items: list[T], key: Callable[[T], K]) -> dict[K, T]:
    """Items by key, leaving out every key that more than one item has."""
    seen: dict[K, T] = {}
    dupes: set[K] = set()
    for item in items:
        k = key(item)
        if k in seen:
            dupes.add(k)
        seen[k] = item
    return {k: v for k, v in seen.items() if k not in dupes}
