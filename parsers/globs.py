"""gitignore-flavoured path globs, shared by the skip rules, the extractor registry and a
query's ``--path``: ``**`` spans directories, ``*`` and ``?`` stay in one path segment, a
pattern without ``/`` matches the file name anywhere. A character is any character, a
newline in a file's name too.

A pattern is a regular expression where that cannot backtrack for long, else walked over
the path one character at a time: a regular expression tries every placement of each run
of stars, and eight ``**/`` in a row over a path 40 directories deep took 52 s (ten over
two minutes), where a query's ``--path`` comes from whoever asks. The walk keeps the set of
places in the pattern that the path so far can reach, so its work is bounded by the path's
length times the pattern's (~30 µs for a short path; the regular expression ~1 µs). A path
is walked only when the pattern's literal parts are in it, in order, and it ends as the
pattern does: the default decision rules (``**/docs/adr/**/*.md``, ``*ADR*.md``, three runs
of stars each) are asked of every file of every tree read, and walking each path took a
Django first index 20 s of the sync thread's time (stop 92), where the check takes ~1 µs."""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import lru_cache, partial

# Two runs of stars backtrack at most over every pair of places in the path (the default
# skip rules, "**/vendor/**", "**/*.min.js", all have two).
REGEX_STARS = 2
DIRS, TAIL, ANY, STAR, ONE = "**/", "/**", "**", "*", "?"
STARS = frozenset({DIRS, TAIL, ANY, STAR})
_REGEX = {DIRS: "(?:.*/)?", TAIL: "(?:/.*)?", ANY: ".*", STAR: "[^/]*", ONE: "[^/]"}


@lru_cache(maxsize=512)
def _tokens(pattern: str) -> tuple[str, ...]:
    """The pattern's wildcards (DIRS: nothing or whole directories; TAIL, a last ``/**``:
    nothing or a slash and anything; ANY, ``**`` elsewhere; STAR; ONE) and its other
    characters, one token each. ``**/`` twice in a row is once, and so is a run of stars
    with an ANY in it, an ANY (``*****``, ``**/****/``: the walk's work grows with the
    pattern's places, and 8,000 stars in a query's ``--path`` took 35 ms a path)."""
    if "/" not in pattern:
        pattern = DIRS + pattern
    out: list[str] = []
    i = 0
    while i < len(pattern):
        if pattern.startswith(DIRS, i):
            token = DIRS
        elif pattern.startswith(TAIL, i) and i + 3 == len(pattern):
            token = TAIL
        elif pattern.startswith(ANY, i):
            token = ANY
        else:
            token = pattern[i]
        i += len(token)
        if out and out[-1] in STARS and token in STARS and ANY in (out[-1], token):
            out[-1] = ANY  # anything, then (or after) anything or nothing of some kind: anything
        elif not (token == DIRS and out and out[-1] == DIRS):
            out.append(token)
    return tuple(out)


def _regex_source(tokens: tuple[str, ...]) -> str:
    return "".join(_REGEX.get(token) or re.escape(token) for token in tokens) + r"\Z"


def _walkable(tokens: tuple[str, ...]) -> bool:
    return sum(token in STARS for token in tokens) > REGEX_STARS


def _reach(tokens: tuple[str, ...], states: set[int]) -> set[int]:
    """``states`` and every place after a run of stars there, which may match nothing."""
    todo = list(states)
    while todo:
        i = todo.pop()
        if i < len(tokens) and tokens[i] in STARS and i + 1 not in states:
            states.add(i + 1)
            todo.append(i + 1)
    return states


def _walk(tokens: tuple[str, ...], path: str) -> bool:
    """Whether ``path`` matches, by the set of places in the pattern it can reach: place
    ``i`` is before token ``i``; place ``n + 1 + i`` is inside a DIRS or TAIL token ``i``
    that has begun (a DIRS one ends at a slash, a TAIL one at the path's end)."""
    n = len(tokens)
    states = _reach(tokens, {0})
    for char in path:
        after: set[int] = set()
        for state in states:
            if state > n:  # inside a DIRS or TAIL token
                after.add(state)
                if char == "/" and tokens[state - n - 1] == DIRS:
                    after.add(state - n)
                continue
            if state == n:
                continue
            token = tokens[state]
            if token == ANY or (token == STAR and char != "/"):
                after.add(state)
            elif token == DIRS:
                after.add(state + n + 1)
                if char == "/":
                    after.add(state + 1)
            elif token == TAIL:
                if char == "/":
                    after.add(state + n + 1)
            elif token == char or (token == ONE and char != "/"):
                after.add(state + 1)
        if not after:
            return False
        states = _reach(tokens, after)
    return n in states or any(state > n and tokens[state - n - 1] == TAIL for state in states)


def _literals(tokens: tuple[str, ...]) -> tuple[tuple[str, ...], str]:
    """The pattern's runs of plain characters, in order, and the one it ends with ("" when
    it ends with a wildcard): a path it matches holds each, in order, and ends with the last."""
    runs, run = [], ""
    for token in tokens:
        if token in STARS or token == ONE:
            runs.append(run)
            run = ""
        else:
            run += token
    return tuple(r for r in (*runs, run) if r), run


def _walk_if_may(tokens: tuple[str, ...], runs: tuple[str, ...], end: str, path: str) -> bool:
    """``_walk``, for a path that holds the pattern's literal runs in order and ends as it does."""
    if not path.endswith(end):
        return False
    at = 0
    for run in runs:
        at = path.find(run, at)
        if at < 0:
            return False
        at += len(run)
    return _walk(tokens, path)


@lru_cache(maxsize=512)
def _matcher(pattern: str) -> Callable[[str], bool]:
    tokens = _tokens(pattern)
    if _walkable(tokens):
        return partial(_walk_if_may, tokens, *_literals(tokens))
    regex = re.compile(_regex_source(tokens), re.DOTALL)
    return lambda path: regex.match(path) is not None


def glob_match(path: str, pattern: str) -> bool:
    return _matcher(pattern)(path)


@lru_cache(maxsize=64)
def _any_regex(patterns: tuple[str, ...]) -> tuple[re.Pattern[str] | None, tuple[str, ...]]:
    """One combined regular expression of the patterns it can hold, and the ones walked."""
    short = [p for p in patterns if not _walkable(_tokens(p))]
    walked = tuple(p for p in patterns if _walkable(_tokens(p)))
    if not short:
        return None, walked
    return re.compile("|".join(f"(?:{_regex_source(_tokens(p))})" for p in short), re.DOTALL), walked


def match_any(path: str, patterns: tuple[str, ...]) -> bool:
    """Whether any pattern matches: one combined regex, for hot paths."""
    if not patterns:
        return False
    regex, walked = _any_regex(patterns)
    if regex is not None and regex.match(path) is not None:
        return True
    return any(_matcher(p)(path) for p in walked)


def first_match(path: str, patterns: tuple[str, ...]) -> str | None:
    return next((p for p in patterns if glob_match(path, p)), None)
