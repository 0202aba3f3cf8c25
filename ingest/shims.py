"""Code moved to another file with a shim left in its place, for the planner
(``ingest/plan.py``).

``git mv calc.py calc_impl.py`` and a new ``calc.py`` whose ``work()`` only calls the
moved one: git finds ``calc.py`` modified and ``calc_impl.py`` added (or the old content
of ``calc.py`` moved there, and the shim a rewrite). By name, ``calc.py:work`` would
continue where it is, edited into the shim, and the moved code would start a lineage
of its own. But the code that was ``work`` is in ``calc_impl.py`` unchanged: that is
where its lineage goes, and the shim is new. The same holds for a class left behind as
``class Calc(calc_impl.Calc): pass``, and for a function that kept its place and name
while its old body went to another file under the same name.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from typing import TYPE_CHECKING

from recalld.ingest.likeness import MOVED_WITH_EDITS, is_distinctive, likeness
from recalld.ingest.planned import NewVersion
from recalld.ingest.qualnames import short_name
from recalld.parsers.base import FILE_LEVEL_QUALNAMES, STRUCTURAL, memory_type

if TYPE_CHECKING:
    from recalld.ingest.plan import LiveMemory

# an old memory, its successor where it was (the shim), and the code that moved
Swap = tuple["LiveMemory", NewVersion, NewVersion]


def left_behind(edited: Iterable[tuple[LiveMemory, NewVersion]], orphans: Iterable[NewVersion]) -> list[Swap]:
    """Of the symbols edited in place (``edited``: each old memory and its successor
    there), those whose old code arrived unchanged, under the same kind and name, in
    one other file among ``orphans`` (new symbols with no predecessor), while what
    stayed is not alike the old code (``MOVED_WITH_EDITS``): each with its successor
    in place and the symbol that continues it instead. Code too short to tell apart
    (``return self``) is no evidence; nor is code that arrived in two places."""
    arrived: dict[tuple[str, str, str], list[NewVersion]] = defaultdict(list)
    for version in orphans:
        sym = version.symbol
        if sym.qualname not in FILE_LEVEL_QUALNAMES and memory_type(sym.kind) == STRUCTURAL:
            arrived[(sym.kind, short_name(sym.qualname), sym.content_hash)].append(version)
    swaps: list[Swap] = []
    taken: set[str] = set()
    for mem, stayed in edited:
        found = arrived.get((mem.kind, short_name(mem.qualname), mem.content_hash), [])
        if len(found) != 1 or found[0].id in taken or found[0].file.path == stayed.file.path:
            continue
        moved = found[0]
        if not is_distinctive(moved.symbol.source):
            continue
        # the arrival's code is the old code: how alike the two is how much stayed of it
        if likeness(moved.symbol.source, stayed.symbol.source, MOVED_WITH_EDITS):
            continue
        taken.add(moved.id)
        swaps.append((mem, stayed, moved))
    return swaps

