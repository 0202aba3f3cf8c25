"""Pairing what left with what arrived in one commit, for the planner (``ingest/plan.py``):
candidates of one key ranked by affinity (the same name, scope, file type, alike paths),
and code that moved or was renamed *and* was edited paired when alike, the most alike
first, one to one."""

from __future__ import annotations

import posixpath
import re
from collections import Counter, defaultdict
from collections.abc import Callable, Hashable, Mapping
from difflib import SequenceMatcher
from itertools import islice
from typing import TYPE_CHECKING

from recalld.ingest.qualnames import declared_words, parent_scope
from recalld.parsers.base import STRUCTURAL, memory_type

if TYPE_CHECKING:
    from recalld.ingest.plan import LiveMemory, NewVersion

# How alike (difflib's ratio over tokens) an edited symbol that moved to another
# scope must be to the one of the same kind and name that left.
MOVED_WITH_EDITS = 0.6
# A symbol renamed in place (same file and scope, another name) must be more alike.
RENAMED_WITH_EDITS = 0.7
MOVE_CANDIDATES = 16  # the most (left × arrived) pairs of one key compared
# The same within one scope of one file (renamed in place): a function's TypeScript
# overloads are symbols of their own, and five overloads renamed were 25 pairs.
IN_PLACE_CANDIDATES = 256
# Code shorter than this (tokens) is too little to tell apart from other short code: a
# one-line constructor is 0.6 alike to many another one.
MIN_TOKENS = 16
LONG_CODE = 3000  # tokens: longer code is compared by its tokens' overlap (see likeness)
_TOKEN = re.compile(r"\w+|[^\w\s]")
# Above this many (left × arrived) pairs under one key, candidates are paired in the order
# found rather than ranked by affinity (hundreds of identical one-line constructors).
RANKED_PAIRS = 4096
OldSource = Callable[["LiveMemory"], "str | None"]  # a live memory's source, None if unknown
# How close two candidates are (greater is closer; affinity_of).
Affinity = Callable[["LiveMemory", "NewVersion"], tuple[float, ...]]
# Likeness already measured, by (old id, new id, threshold, least tokens): the passes ask
# about the same pairs again, some with a floor for short code and some without.
Likenesses = dict[tuple[str, str, float, int], float]


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
    memo: Likenesses | None = None,
    candidates: int = MOVE_CANDIDATES,
) -> dict[str, NewVersion]:
    """Unmatched code symbols of one key paired one to one, the most alike first, when
    alike enough: ``Flask.errorhandler`` and ``Blueprint.errorhandler`` both merged into
    ``Scaffold.errorhandler`` continue the closer one. A key that many symbols left or
    arrived at (``__init__`` in a rewrite) is not guessed at; equally alike pairs go by
    ``affinity`` (``candidates``: the most pairs of one key compared). Code under
    ``MIN_TOKENS`` pairs only where ``short_ok`` says so.
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
        if not news or len(olds) * len(news) > candidates:
            continue
        scored: list[tuple[float, tuple[float, ...], tuple[str, ...], NewVersion]] = []
        for mem in olds:
            before = old_source(mem)
            if before is None:
                continue
            for v in news:
                floor = 0 if short_ok is not None and short_ok(mem, v) else MIN_TOKENS
                score = memoised_likeness(memo, mem, v, before, threshold, min_tokens=floor)
                if score:  # ties go by affinity, then by name: the same on every branch and run
                    names = (mem.path, mem.qualname, mem.id, v.file.path, v.symbol.qualname)
                    scored.append((-score, tuple(-a for a in affinity(mem, v)), names, v))
        for _score, _closeness, listed, version in sorted(scored, key=lambda item: item[:3]):
            old_id = listed[2]
            if old_id not in pairs and version.id not in taken:
                pairs[old_id] = version
                taken.add(version.id)
    return pairs


def memoised_likeness(
    memo: Likenesses | None,
    mem: LiveMemory,
    version: NewVersion,
    before: str,
    threshold: float,
    *,
    min_tokens: int = MIN_TOKENS,
) -> float:
    """``likeness`` of a leaver's code (``before``) and an arrival's, kept in ``memo`` by
    (old id, new id, threshold, ``min_tokens``) for the passes that ask about the same
    pair again."""
    key = _likeness_key(mem, version, threshold, min_tokens)
    score = memo.get(key) if memo is not None else None
    if score is None:
        score = likeness(before, version.symbol.source, threshold, min_tokens=min_tokens)
        if memo is not None:
            memo[key] = score
    return score


def measured_likeness(
    memo: Likenesses, mem: LiveMemory, version: NewVersion, threshold: float, *, min_tokens: int = MIN_TOKENS
) -> float:
    """The likeness a pass already measured for this pair, 0.0 where none did: a
    question that is no reason to compare code."""
    return memo.get(_likeness_key(mem, version, threshold, min_tokens), 0.0)


def _likeness_key(
    mem: LiveMemory, version: NewVersion, threshold: float, min_tokens: int
) -> tuple[str, str, float, int]:
    return (mem.id, version.id, threshold, min_tokens)


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


def tokens(text: str) -> Counter[str]:
    """A text's tokens as a multiset, for ``overlap``."""
    return Counter(_TOKEN.findall(text))


def overlap(old: Counter[str], new: Counter[str]) -> float:
    """The share of two texts' tokens (``tokens``) they have in common, as multisets
    (difflib's ``quick_ratio``, the bound of ``likeness``): enough to rank candidates
    by, and cheap for long code; 1 for two empty texts."""
    total = old.total() + new.total()
    return 2 * (old & new).total() / total if total else 1.0


def closest_pairs(
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
    vendored copies of a module moved into a package continues its own copy). Candidates
    equally close pair in the order they are written in: clap's twelve ``type Value =
    String;`` of as many parsers, renamed when they became ``FalseyValueParser.Value``,
    each continue their own, not one another's."""
    if not news or (len(olds) * len(news) > RANKED_PAIRS and not guess):
        return []
    olds = sorted(olds, key=lambda m: (m.path, m.start_line))
    news = sorted(news, key=lambda v: (v.file.path, v.symbol.start_line))
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
    chosen = _mutual_best(scores) if not guess else closest_first(scores)
    return [(olds[i], news[j]) for i, j in chosen]


def closest_first(scores: dict[tuple[int, int], tuple[float, ...]]) -> list[tuple[int, int]]:
    """The closest pairs first, ties in the order the candidates came."""
    chosen: list[tuple[int, int]] = []
    used_old: set[int] = set()
    used_new: set[int] = set()
    ranked = sorted(scores.items(), key=lambda item: (item[1], -item[0][0], -item[0][1]), reverse=True)
    for (i, j), _closeness in ranked:
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


def affinity_of(renames: Mapping[str, str], between: Affinity | None = None) -> Affinity:
    """How close a symbol that arrived is to one that left: the same qualified name, the
    same enclosing scope, the same file type, then what ``between`` tells (related
    files, alike code: its elements go between), then alike paths."""

    def affinity(mem: LiveMemory, version: NewVersion) -> tuple[float, ...]:
        old_path, new_path, new = renames.get(mem.path, mem.path), version.file.path, version.symbol.qualname
        return (
            float(mem.qualname == new),
            float(parent_scope(mem.qualname) == parent_scope(new)),
            float(posixpath.splitext(old_path)[1] == posixpath.splitext(new_path)[1]),
            *(between(mem, version) if between is not None else ()),
            SequenceMatcher(None, old_path, new_path).ratio(),
        )

    return affinity


def names_share_a_word(mem: LiveMemory, version: NewVersion) -> bool:
    """Whether two names share a word (``setup`` → ``setup_test``): short code renamed in
    place is taken for the same only then, not ``__enter__`` → ``_is_active``."""
    return not declared_words(mem.qualname).isdisjoint(declared_words(version.symbol.qualname))
