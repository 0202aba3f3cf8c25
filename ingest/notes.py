"""Debt notes that left a file paired with those that arrived in it.

A debt entry's qualname is ``<anchor>:<kind>:<hash of its text>``: it changes when its
text is edited, and when the symbol it lies in (its anchor) is renamed or it moves to
another. The planner's other passes pair code; these pair notes, in two passes.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from recalld.ingest.keyed import unique_by

if TYPE_CHECKING:
    from recalld.ingest.plan import LiveMemory, NewVersion

NoteKey = Callable[[str, str, str], tuple[str, str, str]]  # (path, kind, qualname) → what pairs them


def paired_notes(leaving: list[LiveMemory], arriving: list[NewVersion]) -> list[tuple[LiveMemory, NewVersion, bool]]:
    """(note that left, note that arrived, whether only its text was edited). First, the
    only note of a kind that left an anchor of a file and the only one that arrived there
    are the same note, edited; then the only note of a text that left a file and the only
    one of that text that arrived in it under another anchor are the same note, moved (a
    TODO in sqlalchemy's ``reduce_columns#3`` when that became ``reduce_columns``)."""
    pairs: list[tuple[LiveMemory, NewVersion, bool]] = []
    for key, edited in ((_at_anchor, True), (_of_text, False)):
        taken = {id(mem) for mem, _, _ in pairs} | {id(version) for _, version, _ in pairs}
        left = unique_by([m for m in leaving if id(m) not in taken and anchor(m.kind, m.qualname)],
                         lambda m: key(m.path, m.kind, m.qualname))  # fmt: skip
        came = unique_by([v for v in arriving if id(v) not in taken and anchor(v.symbol.kind, v.symbol.qualname)],
                         lambda v: key(v.file.path, v.symbol.kind, v.symbol.qualname))  # fmt: skip
        pairs += [(mem, came[found], edited) for found, mem in left.items() if found in came]
    return pairs


def anchor(kind: str, qualname: str) -> str:
    """The symbol a note lies in: ``f`` of ``f:todo:1a2b``; "" when ``qualname`` is no note's."""
    marker = f":{kind}:"
    return qualname.rsplit(marker, 1)[0] if marker in qualname else ""


def _at_anchor(path: str, kind: str, qualname: str) -> tuple[str, str, str]:
    return path, kind, anchor(kind, qualname)


def _of_text(path: str, kind: str, qualname: str) -> tuple[str, str, str]:
    return path, kind, qualname[len(anchor(kind, qualname)) :]
