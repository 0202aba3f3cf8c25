"""The planner's pairing of code unchanged to the letter whose name only changed its
decoration (``plan.plan_changes``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from recalld.ingest.keyed import unique_by
from recalld.ingest.qualnames import member_of

if TYPE_CHECKING:
    from recalld.ingest.plan import FileSymbols, LiveMemory
    from recalld.parsers.base import Symbol


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


def _content(sym: Symbol) -> tuple[str, str]:
    return sym.kind, sym.content_hash
