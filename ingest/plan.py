"""Working out what changed: a pure function of old memories, new symbols and renames.

``plan_changes`` needs no store, no disk and no model. It decides, for every path
touched by a sync, which symbol versions stay, which are new (and whose lineage they
continue), which are closed and why, and which only moved lines.
"""

from __future__ import annotations

import uuid
from collections import defaultdict
from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass, field, replace
from functools import lru_cache

from recalld.ingest.likeness import OldSource
from recalld.ingest.moves import paired_moves
from recalld.ingest.notes import paired_notes
from recalld.ingest.planned import Closure, FileSymbols, NewVersion, Plan, Relocation
from recalld.ingest.redecorated import realigned_repeats, redecorated
from recalld.ingest.shims import left_behind
from recalld.ingest.specific import NameCounts, SpecificNames
from recalld.parsers.base import FILE_LEVEL_QUALNAMES, STRUCTURAL, Symbol, containers, memory_type

# the memory types whose versions name who wrote them, and keep it when moved
_WRITTEN = (STRUCTURAL, "debt")
_ID_NAMESPACE = uuid.UUID("6f1c7a52-3a43-4d0e-9a57-2c1b0f3e9d11")

ADDED, MODIFIED, RENAMED = "added", "modified", "renamed"
# A symbol gone from its file; every symbol of a file deleted; of a file still there that
# the sync no longer reads (grown past the size limit, made binary or generated, excluded,
# or one its parser failed on: the sync's skips say which).
REMOVED, DELETED, SKIPPED = "removed", "deleted", "skipped"


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
    language: str | None = None  # its file's (None: the one its path tells)
    signature: str | None = None  # as stored (None: not read, or none stored)
    docstring: str | None = None  # as stored (None: not read)
    # a field as stored holds a redaction (read on an outdated extraction's sync; the
    # signature, always)
    redacted: bool = False


@dataclass(slots=True)
class _Draft:
    """Mutable working state of one planning run."""

    scope: Scope
    new: dict[str, NewVersion] = field(default_factory=dict)
    closures: dict[str, Closure] = field(default_factory=dict)
    relocations: list[Relocation] = field(default_factory=list)
    rewrites: list[NewVersion] = field(default_factory=list)
    orphans: list[NewVersion] = field(default_factory=list)  # new, no predecessor yet
    leftovers: list[tuple[LiveMemory, str]] = field(default_factory=list)  # closed, no successor
    edited: list[tuple[LiveMemory, NewVersion]] = field(default_factory=list)  # in place, another content

    def add(
        self, file: FileSymbols, sym: Symbol, lineage: str | None, change: str, moved: str | None = None
    ) -> NewVersion:
        mid = memory_id(self.scope, file.path, sym.kind, sym.qualname, sym.content_hash)
        version = NewVersion(mid, file, sym, lineage or mid, change, moved=moved)
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
    old_docstring: OldSource | None = None,
    name_counts: NameCounts | None = None,
    skipped: Collection[str] = frozenset(),
    unchanged: Collection[str] = frozenset(),
) -> Plan:
    """Plan the store writes that bring ``live`` in line with ``targets``.

    ``targets`` holds every touched path that exists (and is indexed) at the target
    commit; ``gone`` every touched path that no longer does; ``renames`` maps an old
    path in ``gone`` to its new path in ``targets``, or a path in ``targets`` whose old
    content moved to another (a rewrite: git's ``-B -M``). ``live`` must include the live
    memories at all of those paths; memories at other paths are left alone.
    ``old_source`` tells a closing memory's code, for symbols that moved and were edited
    in one commit (a class split across files) or were renamed; without it such a move
    or rename is a removal. ``old_docstring`` tells its docstring (a JavaScript
    function's JSDoc is no part of its code), which with its code tells several
    symbols of one name apart. ``name_counts`` tells how many live
    symbols of a kind bear a name (see ``specific.SpecificNames``); without it any name
    of two or more words is taken as rare. ``skipped``: the paths of ``gone`` that are
    still in the tree, but not read (their memories close as ``skipped``, not ``deleted``).
    ``unchanged``: paths of ``targets`` no commit of the sync changed, read because their
    attributes did (``collect.reattributed``): what they hold is ``reread``, memories or none.
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
    same_bytes = {path for path, mems in by_path.items() if path in targets and path not in renamed_from
                  and _read_from(targets[path].blob, mems)} | {p for p in unchanged if p in targets}  # fmt: skip
    # a file git moved from a path the store holds nothing of (a vendored tree, a ``.txt`` made
    # ``.py``): what arrives with it was written before the move, by whom the history read finds
    moved_in = {new for new, old in renamed_from.items() if old not in by_path}
    moving: dict[str, list[LiveMemory]] = {}
    for path in moved_out:
        moving[path], by_path[path] = _staying(scope, targets[path], by_path[path], other_source=path in renamed_from)

    # Files git paired with nothing: one that left whole and one that is new may be the same
    # file. A rewritten file none of whose memories stay counts as new: its old lineage
    # went with its old content, and its new content may be a file git did not pair.
    left_whole = frozenset(gone_set - set(renamed_from.values()))
    new_files = frozenset(p for p in targets if p not in renamed_from and not by_path.get(p))
    draft = _Draft(scope)
    for path in sorted(targets):
        source = renamed_from.get(path)
        moved_from = (moving.pop(source, []) if source in moved_out else by_path.pop(source, [])) if source else []
        _plan_file(draft, targets[path], by_path.pop(path, []), moved_from, old_source)
    for path in sorted(gone_set - set(renamed_from.values())):
        reason = SKIPPED if path in skipped else DELETED
        for mem in by_path.pop(path, []):
            draft.leftovers.append((mem, reason))
    _follow_moved_code(draft)
    _match_edits(draft)
    moved_files = {old: new for new, old in renamed_from.items()}
    specific = SpecificNames(name_counts, leaving=[mem for mem, _reason in draft.leftovers])
    _match_moves(draft, moved_files, old_source, specific, files=(left_whole, new_files), old_docstring=old_docstring)
    return Plan(
        new_versions=tuple(replace(v, reread=True) if v.file.path in same_bytes
                           or (v.file.path in moved_in and v.change == ADDED) else v for v in draft.new.values()),
        # A version written as live is never closed by the same plan (its id is its content's).
        closures=tuple(c for c in draft.closures.values() if c.id not in draft.new),
        relocations=tuple(draft.relocations),
        rewrites=tuple(draft.rewrites),
    )


def _read_from(blob: str, mems: list[LiveMemory]) -> bool:
    """Whether ``mems`` (those live at a path) were read from ``blob``: their module
    memories all were (an interrupted sync may have written the new one, not closed the old)."""
    modules = [m.blob for m in mems if m.kind == "module"]
    return bool(modules) and all(b == blob for b in modules)


def _staying(
    scope: Scope, file: FileSymbols, mems: list[LiveMemory], *, other_source: bool
) -> tuple[list[LiveMemory], list[LiveMemory]]:
    """The memories of a rewritten file whose old content went elsewhere: those that move
    with it, and those that stay. What the new content holds unchanged stays. So does a
    symbol it still declares, unless the new content came from another file (``eslint.
    js``'s ``ESLint`` went to ``legacy-eslint.js`` as ``flat-eslint.js`` became ``eslint.
    js``): ``class Flask(Scaffold)`` is still ``Flask`` when its methods left for a new
    ``scaffold.py``. The module memory goes with the content (webpack's ``lib/Chunk.
    js`` moved to ``lib/graph/`` and left a line that exports it from there)."""
    unchanged = {memory_id(scope, file.path, s.kind, s.qualname, s.content_hash) for s in file.symbols}
    declared = set() if other_source else {(s.kind, s.qualname) for s in file.symbols}
    declared -= {(m.kind, m.qualname) for m in mems if m.qualname in FILE_LEVEL_QUALNAMES}  # with the content
    moving: list[LiveMemory] = []
    staying: list[LiveMemory] = []
    for mem in mems:
        (staying if mem.id in unchanged or (mem.kind, mem.qualname) in declared else moving).append(mem)
    return moving, staying


def _plan_file(
    draft: _Draft, file: FileSymbols, here: list[LiveMemory], moved_from: list[LiveMemory], old_source: OldSource | None
) -> None:
    ids = [memory_id(draft.scope, file.path, s.kind, s.qualname, s.content_hash) for s in file.symbols]
    # A memory whose id is a symbol's is that symbol's, whatever its stored qualified name
    # reads: earlier rules redacted names (``APCUPSdData``) as secrets.
    here_by_key = _group_by_key(here, {mid: (s.kind, s.qualname) for mid, s in zip(ids, file.symbols)})
    moved_by_key = _group_by_key(moved_from)
    relocated_before = len(draft.relocations)
    renamed_here = redecorated(file, ids, here)
    if old_source is not None:
        renamed_here |= realigned_repeats(file, ids, here, old_source, renamed_here)
    for renamed in renamed_here.values():
        here_by_key[(renamed.kind, renamed.qualname)].remove(renamed)
    for index, sym in enumerate(file.symbols):
        if (predecessor := renamed_here.get(index)) is not None:
            version = draft.add(file, sym, predecessor.lineage, RENAMED)
            draft.close(predecessor, RENAMED, version.id)
            continue
        key = (sym.kind, sym.qualname)
        same_place = here_by_key.pop(key, [])
        if same_place:
            _continue_in_place(draft, file, sym, same_place)
            continue
        predecessors = moved_by_key.pop(key, [])
        if predecessors:
            same = next(filter(None, (moved_unchanged(mem, sym) for mem in predecessors)), None)
            version = draft.add(file, sym, predecessors[0].lineage, RENAMED, same)
            for mem in predecessors:
                draft.close(mem, RENAMED, version.id)
            continue
        draft.add(file, sym, None, ADDED)
    for mems in (*here_by_key.values(), *moved_by_key.values()):
        for mem in mems:
            draft.leftovers.append((mem, REMOVED))
    if any(r.signature is not None for r in draft.relocations[relocated_before:]):
        _rewrite_containers(draft, file, here, relocated_before)


def _rewrite_containers(draft: _Draft, file: FileSymbols, here: list[LiveMemory], relocated_before: int) -> None:
    """Where the signatures of unchanged code were read again (an earlier extractor's), the
    unchanged symbols that hold others (the module, a class) are written again whole: their
    keyword vectors are made of their members' signatures (``records.memory_keywords``).
    The file's own relocations are those from ``relocated_before`` on."""
    held = {m.id: m for m in here}
    rewriting = {v.id for v in draft.rewrites}
    for sym in containers(file.symbols):
        mem = held.get(memory_id(draft.scope, file.path, sym.kind, sym.qualname, sym.content_hash))
        if mem is not None and mem.id not in rewriting:
            draft.rewrites.append(NewVersion(mem.id, file, sym, mem.lineage, MODIFIED))
            rewriting.add(mem.id)
    draft.relocations[relocated_before:] = [r for r in draft.relocations[relocated_before:] if r.id not in rewriting]


def _continue_in_place(draft: _Draft, file: FileSymbols, sym: Symbol, mems: list[LiveMemory]) -> None:
    mid = memory_id(draft.scope, file.path, sym.kind, sym.qualname, sym.content_hash)
    current = next((m for m in mems if m.id == mid), None)
    if current is None:
        version = draft.add(file, sym, mems[0].lineage, MODIFIED)
        successor = version.id
        if len(mems) == 1:
            draft.edited.append((mems[0], version))
    elif (
        current.redacted or (current.docstring is not None and current.docstring != sym.docstring)
        or (current.language is not None and current.language != file.language)
    ):  # fmt: skip
        # Its text may hold the docstring, or earlier rules' redactions, and names its file's
        # language, which a header's other code may change (C's ``.h`` read as C++ once a
        # class is added to it): written again whole.
        successor = current.id
        draft.rewrites.append(NewVersion(current.id, file, sym, current.lineage, MODIFIED))
    else:
        successor = current.id
        moved_blob = sym.kind == "module" and current.blob is not None and current.blob != file.blob
        blob = file.blob if moved_blob else None
        reread = current.signature is not None and current.signature != sym.signature
        if blob is not None or reread or (current.start_line, current.end_line) != (sym.start_line, sym.end_line):
            now = NewVersion(current.id, file, sym, current.lineage, MODIFIED) if reread else None
            draft.relocations.append(
                Relocation(current.id, sym.start_line, sym.end_line, blob, sym.signature if reread else None, now)
            )
    for mem in mems:
        if mem is not current:
            draft.close(mem, MODIFIED, successor)


def _match_moves(
    draft: _Draft,
    renames: Mapping[str, str],
    old_source: OldSource | None,
    specific: SpecificNames,
    *,
    files: tuple[frozenset[str], frozenset[str]] = (frozenset(), frozenset()),
    old_docstring: OldSource | None = None,
) -> None:
    """Pair symbols that left their file or scope with symbols that appeared elsewhere
    (``moves.paired_moves``): each that found a successor closes as ``renamed``, its
    lineage carried on (as ``modified`` if only its kind changed); the rest close for
    their reason."""
    matched = paired_moves(draft.leftovers, draft.orphans, renames, old_source, specific, files,
                           old_docstring=old_docstring)  # fmt: skip
    for mem, reason in draft.leftovers:
        successor = matched.get(mem.id)
        if successor is None:
            draft.close(mem, reason, None)
            continue
        change = MODIFIED if (mem.path, mem.qualname) == (successor.file.path, successor.symbol.qualname) else RENAMED
        along = renames.get(mem.path) == successor.file.path  # in its file, renamed: not moved to another
        draft.new[successor.id] = NewVersion(successor.id, successor.file, successor.symbol, mem.lineage, change,
                                             moved=moved_unchanged(mem, successor.symbol) if along else None)
        draft.close(mem, change, successor.id)


def _follow_moved_code(draft: _Draft) -> None:
    """Code moved unchanged to another file, a shim of its name left in its place
    (``shims.left_behind``): the moved code continues its lineage, the shim is new."""
    for mem, stayed, moved in left_behind(draft.edited, draft.orphans):
        shim = replace(stayed, lineage=stayed.id, change=ADDED)
        draft.new[shim.id] = shim
        draft.orphans[draft.orphans.index(moved)] = shim
        draft.new[moved.id] = replace(moved, lineage=mem.lineage, change=RENAMED)
        draft.close(mem, RENAMED, moved.id)


def _match_edits(draft: _Draft) -> None:
    """Debt notes edited where they are, or whose anchor was renamed (``notes.py``)."""
    leaving = [mem for mem, reason in draft.leftovers if reason == REMOVED]
    for mem, successor, edited in paired_notes(leaving, draft.orphans):
        change = MODIFIED if edited else RENAMED
        draft.leftovers.remove((mem, REMOVED))
        draft.orphans.remove(successor)
        draft.new[successor.id] = NewVersion(successor.id, successor.file, successor.symbol, mem.lineage, change)
        draft.close(mem, change, successor.id)


def moved_unchanged(mem: LiveMemory, sym: Symbol) -> str | None:
    """``mem``'s id where ``sym``, its successor in its file renamed, is the same code (kind,
    qualified name and content): moved, not written (``authorship`` follows a file's renames
    back), it keeps ``mem``'s writer. So does a debt note (a TODO) moved with its file.
    Code moved to another file is written there (git blame)."""
    same = (mem.kind, mem.qualname, mem.content_hash) == (sym.kind, sym.qualname, sym.content_hash)
    return mem.id if same and memory_type(sym.kind) in _WRITTEN else None


def _group_by_key(
    mems: list[LiveMemory], keys: Mapping[str, tuple[str, str]] | None = None
) -> dict[tuple[str, str], list[LiveMemory]]:
    """``mems`` by kind and qualified name, or by the key ``keys`` gives their id."""
    grouped: dict[tuple[str, str], list[LiveMemory]] = defaultdict(list)
    for mem in mems:
        grouped[keys.get(mem.id, (mem.kind, mem.qualname)) if keys else (mem.kind, mem.qualname)].append(mem)
    return grouped
