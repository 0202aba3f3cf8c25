"""gitignore-flavoured path globs, shared by the skip rules and the extractor registry."""

from __future__ import annotations

import re
from functools import lru_cache


@lru_cache(maxsize=512)
def _glob_regex(pattern: str) -> re.Pattern[str]:
    """``**`` spans directories, ``*`` and ``?`` stay in one path segment, a pattern
    without ``/`` matches the file name anywhere."""
    if "/" not in pattern:
        pattern = "**/" + pattern
    out: list[str] = []
    i = 0
    while i < len(pattern):
        if pattern.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
        elif pattern.startswith("/**", i) and i + 3 == len(pattern):
            out.append("(?:/.*)?")
            i += 3
        elif pattern.startswith("**", i):
            out.append(".*")
            i += 2
        elif pattern[i] == "*":
            out.append("[^/]*")
            i += 1
        elif pattern[i] == "?":
            out.append("[^/]")
            i += 1
        else:
            out.append(re.escape(pattern[i]))
            i += 1
    return re.compile("".join(out) + r"\Z")


def glob_match(path: str, pattern: str) -> bool:
    return _glob_regex(pattern).match(path) is not None


@lru_cache(maxsize=64)
def _any_regex(patterns: tuple[str, ...]) -> re.Pattern[str]:
    return re.compile("|".join(f"(?:{_glob_regex(p).pattern})" for p in patterns))


def match_any(path: str, patterns: tuple[str, ...]) -> bool:
    """Whether any pattern matches: one combined regex, for hot paths."""
    return bool(patterns) and _any_regex(patterns).match(path) is not None


def first_match(path: str, patterns: tuple[str, ...]) -> str | None:
    return next((p for p in patterns if glob_match(path, p)), None)
