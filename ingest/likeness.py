"""Pairing code that moved or was renamed *and* was edited in the same commit: what left
is paired with what arrived under the same key (kind and name, or place and scope) when
their code is alike, the most alike first, one to one. Used by the planner
(``ingest/plan.py``) once exact matches are taken."""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Callable, Hashable, Mapping
from difflib import SequenceMatcher
from typing import TYPE_CHECKING

from recalld.parsers.base import STRUCTURAL, memory_type

if TYPE_CHECKING:
    from recalld.ingest.plan import LiveMemory, NewVersion

# How alike (difflib's ratio over tokens) an edited symbol that moved to another
# scope must be to the one of the same kind and name that left.
MOVED_WITH_EDITS = 0.6
# A symbol renamed in place (same file and scope, another name) must be more alike.
RENAMED_WITH_EDITS = 0.7
MOVE_CANDIDATES = 16  # the most (left × arrived) pairs of one key compared
# Code shorter than this (tokens) is too little to tell apart from other short code: a
# one-line constructor is 0.6 alike to many another one.
MIN_TOKENS = 16
_TOKEN = re.compile(r"\w+|[^\w\s]")
OldSource = Callable[["LiveMemory"], "str | None"]  # a live memory's source, None if unknown
# How close two candidates are beside their code (greater is closer; plan._affinity).
Affinity = Callable[["LiveMemory", "NewVersion"], tuple[float, ...]]


def pair_alike(
    closing: list[tuple[LiveMemory, str]],
    arriving: list[NewVersion],
    matched: Mapping[str, NewVersion],
    taken: set[str],
    old_source: OldSource,
    *,
    old_key: Callable[[LiveMemory], Hashable],
    new_key: Callable[[NewVersion], Hashable],
    threshold: float,
    affinity: Affinity,
) -> dict[str, NewVersion]:
    """Unmatched code symbols of one key paired one to one, the most alike first, when
    alike enough: ``Flask.errorhandler`` and ``Blueprint.errorhandler`` both merged into
    ``Scaffold.errorhandler`` continue the closer one. A key that many symbols left or
    arrived at (``__init__`` in a rewrite) is not guessed at; equally alike pairs go by
    ``affinity``."""
    old_by_key: dict[Hashable, list[LiveMemory]] = defaultdict(list)
    for mem, _reason in closing:
        if mem.id not in matched and memory_type(mem.kind) == STRUCTURAL:
            old_by_key[old_key(mem)].append(mem)
    if not old_by_key:  # a first index: nothing left, nothing to pair
        return {}
    new_by_key: dict[Hashable, list[NewVersion]] = defaultdict(list)
    for version in arriving:
        if version.id not in taken and memory_type(version.symbol.kind) == STRUCTURAL:
            new_by_key[new_key(version)].append(version)
    pairs: dict[str, NewVersion] = {}
    for key, olds in old_by_key.items():
        news = new_by_key.get(key, [])
        if not news or len(olds) * len(news) > MOVE_CANDIDATES:
            continue
        scored: list[tuple[float, tuple[float, ...], str, str]] = []
        for mem in olds:
            before = old_source(mem)
            if before is not None:
                scored.extend(
                    (-score, tuple(-a for a in affinity(mem, v)), mem.id, v.id)
                    for v in news
                    if (score := likeness(before, v.symbol.source, threshold))
                )
        by_id = {v.id: v for v in news}
        for _score, _closeness, old_id, new_id in sorted(scored):
            if old_id not in pairs and new_id not in taken:
                pairs[old_id] = by_id[new_id]
                taken.add(new_id)
    return pairs


def likeness(before: str, after: str, threshold: float) -> float:
    """difflib's ratio of the two codes' tokens (words and punctuation, so that a
    reflowed docstring or a re-indented body stays alike); 0 below ``threshold`` or
    for code of fewer than ``MIN_TOKENS`` tokens."""
    old, new = _TOKEN.findall(before), _TOKEN.findall(after)
    if min(len(old), len(new)) < MIN_TOKENS:
        return 0.0
    matcher = SequenceMatcher(None, old, new, autojunk=False)
    if matcher.real_quick_ratio() < threshold or matcher.quick_ratio() < threshold:
        return 0.0
    ratio = matcher.ratio()
    return ratio if ratio >= threshold else 0.0
