"""Pairing code that moved or was renamed *and* was edited in the same commit: what left
is paired with what arrived under the same key (kind and name, or place and scope) when
their code is alike, the most alike first, one to one. Used by the planner
(``ingest/plan.py``) once exact matches are taken."""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Callable, Hashable, Mapping
from difflib import SequenceMatcher
from itertools import islice
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
LONG_CODE = 3000  # tokens: longer code is compared by its tokens' overlap (see likeness)
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
    short_ok: Callable[[LiveMemory, NewVersion], bool] | None = None,
    memo: dict[tuple[str, str, float], float] | None = None,
) -> dict[str, NewVersion]:
    """Unmatched code symbols of one key paired one to one, the most alike first, when
    alike enough: ``Flask.errorhandler`` and ``Blueprint.errorhandler`` both merged into
    ``Scaffold.errorhandler`` continue the closer one. A key that many symbols left or
    arrived at (``__init__`` in a rewrite) is not guessed at; equally alike pairs go by
    ``affinity``. Code under ``MIN_TOKENS`` pairs only where ``short_ok`` says so.
    ``memo`` keeps the comparisons for the next call (the rename rounds ask again about
    pairs they left unpaired: ~3 s a round for two test classes of 15k and 9k tokens)."""
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
        scored: list[tuple[float, tuple[float, ...], tuple[str, ...], NewVersion]] = []
        for mem in olds:
            before = old_source(mem)
            if before is None:
                continue
            for v in news:
                key = (mem.id, v.id, threshold)
                score = memo.get(key) if memo is not None else None
                if score is None:
                    floor = 0 if short_ok is not None and short_ok(mem, v) else MIN_TOKENS
                    score = likeness(before, v.symbol.source, threshold, min_tokens=floor)
                    if memo is not None:
                        memo[key] = score
                if score:  # ties go by affinity, then by name: the same on every branch and run
                    names = (mem.path, mem.qualname, mem.id, v.file.path, v.symbol.qualname)
                    scored.append((-score, tuple(-a for a in affinity(mem, v)), names, v))
        for _score, _closeness, listed, version in sorted(scored, key=lambda item: item[:3]):
            old_id = listed[2]
            if old_id not in pairs and version.id not in taken:
                pairs[old_id] = version
                taken.add(version.id)
    return pairs


def is_distinctive(code: str) -> bool:
    """Whether ``code`` is long enough (``MIN_TOKENS``) to tell apart from other code."""
    return next(islice(_TOKEN.finditer(code), MIN_TOKENS - 1, None), None) is not None


def likeness(before: str, after: str, threshold: float, *, min_tokens: int = MIN_TOKENS) -> float:
    """difflib's ratio of the two codes' tokens (words and punctuation, so that a
    reflowed docstring or a re-indented body stays alike); 0 below ``threshold`` or
    for code of fewer than ``min_tokens`` tokens."""
    old, new = _TOKEN.findall(before), _TOKEN.findall(after)
    if min(len(old), len(new)) < min_tokens:
        return 0.0
    matcher = SequenceMatcher(None, old, new, autojunk=False)
    if matcher.real_quick_ratio() < threshold or matcher.quick_ratio() < threshold:
        return 0.0
    # Past LONG_CODE tokens (a class of thousands of lines, compared whole) the ratio's
    # time grows with the product of the lengths (~1.2 s at 10k × 13k tokens): the
    # tokens' overlap as multisets, which quick_ratio measured, stands in for it.
    ratio = matcher.quick_ratio() if max(len(old), len(new)) > LONG_CODE else matcher.ratio()
    return ratio if ratio >= threshold else 0.0
