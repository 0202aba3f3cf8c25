"""Whether a symbol's name tells it apart from others, and whether its code is its own,
for the planner's pairing passes (``ingest/moves.py``, ``ingest/namesake.py``): how many
live symbols bear a name, or a name and its very code, as the store holds them before a
sync writes (``NameCounts``; ``collect.NameCounts`` asks the store)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from typing import TYPE_CHECKING, Protocol

from recalld.ingest.qualnames import short_name
from recalld.ingest.sparse import identifier_words

if TYPE_CHECKING:
    from recalld.ingest.plan import LiveMemory

# The most symbols of one kind in the tree (the one that left among them) that a name of
# two or more words may be borne by and still tell two symbols apart. On twelve release
# steps (README, Exactness on real histories) the names of that sort that paired
# unrelated symbols were borne by 4 to 74 symbols of their kind, or by 3 (pytest's hook
# ``pytest_runtest_teardown``, tests' ``TestMain``, ``test_unicode``); of the pairs that
# stood on such a name alone, those of names borne by 3 were mostly wrong (4 or 5 of 7),
# by 2 mostly right (14 of 18), by 1 nearly all (80).
RARE_NAME = 2


class NameCounts(Protocol):
    """How many live symbols of a kind bear a name in the tree a sync starts from; with
    ``code``, a content hash, how many of them have that very code."""

    def __call__(self, kind: str, name: str, *, code: str | None = None) -> int: ...


class SpecificNames:
    """Whether a symbol's own name tells it apart (see the module): two or more words,
    borne by no more than ``RARE_NAME`` symbols of its kind (``counts``: unknown, any; see
    ``namesake``)."""

    def __init__(self, counts: NameCounts | None, leaving: Iterable[LiveMemory] = ()) -> None:
        self._counts = counts
        self._leavers = leaving  # what the sync closes: counted by code_of when first asked
        self._leaving: Counter[tuple[str, str, str]] | None = None
        self._known: dict[tuple[str, str], int] = {}
        self._bearers: dict[tuple[str, str, str], int] = {}

    def __call__(self, mem: LiveMemory) -> bool:
        name = short_name(mem.qualname)
        if len(identifier_words(name)) < 2:
            return False
        if self._counts is None:
            return True
        key = (mem.kind, name)
        count = self._known.get(key)
        if count is None:
            count = self._known[key] = self._counts(*key)
        return count <= RARE_NAME

    def commonplace(self, mem: LiveMemory) -> bool:
        """Whether its very code stays in another live symbol of its kind and name (one
        not ``leaving``): boilerplate that many classes share says nothing of where one of
        them went. three.js r125 deleted ``Geometry``, whose ``dispose`` had the code of
        ``BufferGeometry``'s and ``Material``'s, while ``InstancedMesh`` gained one: no
        move. Setters that every loader repeated, all gone to a new base class, did move."""
        if self._counts is None:
            return False
        key = code_of(mem)
        count = self._bearers.get(key)
        if count is None:
            count = self._bearers[key] = self._counts(key[0], key[1], code=key[2])
        if self._leaving is None:  # most syncs never ask: a deleted tree of 30k symbols took 0.15 s to count
            self._leaving = Counter(map(code_of, self._leavers))
        return count > self._leaving[key]


def code_of(mem: LiveMemory) -> tuple[str, str, str]:
    """A symbol's kind, name and content hash: what namesakes of the same code share."""
    return mem.kind, short_name(mem.qualname), mem.content_hash
