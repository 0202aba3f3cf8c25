"""The planner's pairing in a file of code whose name only changed its decoration
(``plan.plan_changes``): unchanged to the letter, or edited where a name is declared
more than once."""

from __future__ import annotations

from collections import Counter, defaultdict
from typing import TYPE_CHECKING

from recalld.ingest.keyed import unique_by
from recalld.ingest.likeness import MOVED_WITH_EDITS, OldSource, closest_first, likeness
from recalld.ingest.qualnames import member_of

if TYPE_CHECKING:
    from recalld.ingest.plan import FileSymbols, LiveMemory
    from recalld.parsers.base import Symbol

REPEATS_COMPARED = 64  # the most (old × new) pairs of one repeated name compared


def redecorated(file: FileSymbols, ids: list[str], here: list[LiveMemory]) -> dict[int, LiveMemory]:
    """Code unchanged to the letter whose name only changed its decoration (``#4``, the
    parameters' types), by the index of its symbol in ``file``: it continues under its new
    name even where another symbol now bears its old one. Overloads put in another order
    swap their ``#2`` and plain names, and sqlalchemy's ``inspect#4`` became ``inspect``
    when typings were named by their types, while its first typing, ``inspect``, became
    ``inspect(Type[…], …)``: paired by name, each continued the other's lineage. So do a
    setter and a class's own method that an earlier extractor numbered (``value#2`` is
    ``value=``, ``controller_path#2`` ``self.controller_path``: ``qualnames.member_of``).
    ``ids``: the point ids of ``file``'s symbols, in order."""
    held, arrived = {m.id for m in here}, set(ids)
    leaving = unique_by([m for m in here if m.id not in arrived], lambda m: (m.kind, m.content_hash))
    if not leaving:
        return {}
    arriving = unique_by([i for i, mid in enumerate(ids) if mid not in held], lambda i: _content(file.symbols[i]))
    found: dict[int, LiveMemory] = {}
    for content, index in arriving.items():
        sym, mem = file.symbols[index], leaving.get(content)
        if mem is not None and member_of(mem.qualname) == member_of(sym.qualname):
            found[index] = mem
    return found


def realigned_repeats(
    file: FileSymbols, ids: list[str], here: list[LiveMemory], old_source: OldSource, paired: dict[int, LiveMemory]
) -> dict[int, LiveMemory]:
    """Edited code of a name a file declares more than once (``if win: def home()… else:
    def home()…``: ``home`` and ``home#2``), paired by how alike the code is rather than
    by its ordinal mark: when the Windows branch is removed and the posix ``home``
    dedented, the only ``home`` left continues ``home#2``, and ``home`` is removed.
    By the index of its symbol in ``file``; where the name pairs them alike (``home``
    with ``home``), nothing: the planner pairs those by name. ``paired``: those
    ``redecorated`` found, left alone."""
    counts = Counter(_family(m.kind, m.qualname) for m in here)
    counts |= Counter(_family(s.kind, s.qualname) for s in file.symbols)
    held, arrived, taken = {m.id for m in here}, set(ids), {m.id for m in paired.values()}
    leaving: dict[tuple[str, tuple[str, str]], list[LiveMemory]] = defaultdict(list)
    for mem in here:
        key = _family(mem.kind, mem.qualname)
        if counts[key] > 1 and mem.id not in arrived and mem.id not in taken:
            leaving[key].append(mem)
    arriving: dict[tuple[str, tuple[str, str]], list[int]] = defaultdict(list)
    for index, (mid, sym) in enumerate(zip(ids, file.symbols)):
        if mid not in held and index not in paired and (key := _family(sym.kind, sym.qualname)) in leaving:
            arriving[key].append(index)
    found: dict[int, LiveMemory] = {}
    for key, indexes in arriving.items():
        olds = leaving[key]
        if len(olds) * len(indexes) > REPEATS_COMPARED:
            continue
        scores: dict[tuple[int, int], tuple[float, ...]] = {}
        for i, mem in enumerate(olds):
            before = old_source(mem)
            for j, index in enumerate(indexes):
                if before is not None and (score := likeness(before, file.symbols[index].source, MOVED_WITH_EDITS)):
                    scores[(i, j)] = (score,)
        for i, j in closest_first(scores):
            if olds[i].qualname != file.symbols[indexes[j]].qualname:
                found[indexes[j]] = olds[i]
    return found


def _family(kind: str, qualname: str) -> tuple[str, tuple[str, str]]:
    return kind, member_of(qualname)


def _content(sym: Symbol) -> tuple[str, str]:
    return sym.kind, sym.content_hash
