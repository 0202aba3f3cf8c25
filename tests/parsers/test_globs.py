"""Path globs: the walk over a pattern's places agrees with the regular expression, a
name's newline is a character like any other, and many runs of stars stay fast."""

from __future__ import annotations

import random
import re
import time
from functools import lru_cache

from recalld.parsers.globs import _regex_source, _tokens, _walk, _walkable, first_match, glob_match, match_any

PIECES = ["a", "b", "/", "*", "?", "**", "**/", "/**", "\n"]


def test_the_walk_and_the_regular_expression_agree_on_random_patterns_and_paths() -> None:
    rng = random.Random(7)
    checked = 0
    for _ in range(3000):
        pattern = "".join(rng.choice(PIECES) for _ in range(rng.randint(1, 6)))
        tokens = _tokens(pattern)
        regex = re.compile(_regex_source(tokens), re.DOTALL)
        for _ in range(8):
            path = "".join(rng.choice("ab/\n") for _ in range(rng.randint(0, 9)))
            expected = regex.match(path) is not None
            assert _walk(tokens, path) == expected and glob_match(path, pattern) == expected, (pattern, path)
            checked += 1
    assert checked == 24000


def test_a_newline_in_a_name_is_matched_by_every_wildcard() -> None:
    assert glob_match("vendor/a\nb.py", "**/vendor/**")
    assert glob_match("new\nline.py", "**")
    assert glob_match("new\nline.py", "*.py")
    assert glob_match("src/new\nline.py", "src/**")
    assert match_any("lib/vendor/a\nb.py", ("**/node_modules/**", "**/vendor/**"))
    assert first_match("x/a\nb.min.js", ("**/*.map", "**/*.min.js")) == "**/*.min.js"


def test_many_runs_of_stars_are_walked_and_answer_as_the_rules_say() -> None:
    deep = "/".join(["d"] * 40) + "/m.py"
    assert _tokens("**/" * 10 + "x") == ("**/", "x")  # ten in a row are one
    for pattern in ["**/" * 10 + "x", "**/d/" * 8 + "**/x", "*d*d*d*d*d*d*d*d*d*d*x"]:
        assert _walkable(_tokens(pattern)) == ("/d/" in pattern or "*d*" in pattern)
        started = time.perf_counter()
        assert not glob_match(deep, pattern)
        assert not match_any(deep, (pattern, "**/*.rs"))
        assert time.perf_counter() - started < 5  # the regular expression took minutes
    assert glob_match(deep, "**/d/" * 8 + "**/m.py")
    assert glob_match(deep, "d/**/d/*/d/**/*.py")
    assert match_any(deep, ("**/*.rs", "**/d/" * 8 + "*.py"))
    assert not glob_match(deep, "**/d/" * 8 + "*.rs")


def _reference(path: str, pattern: str) -> bool:
    """The rules of the syntax, read by recursion over both strings (slow, plain)."""
    pattern = pattern if "/" in pattern else "**/" + pattern

    @lru_cache(maxsize=None)
    def rest(i: int, j: int) -> bool:  # whether pattern[i:] matches path[j:]
        if i == len(pattern):
            return j == len(path)
        if pattern.startswith("**/", i):
            return rest(i + 3, j) or any(path[k] == "/" and rest(i + 3, k + 1) for k in range(j, len(path)))
        if pattern.startswith("/**", i) and i + 3 == len(pattern):
            return j == len(path) or path[j] == "/"
        if pattern.startswith("**", i):
            return any(rest(i + 2, k) for k in range(j, len(path) + 1))
        if pattern[i] == "*":
            return any(rest(i + 1, k) for k in range(j, len(path) + 1) if "/" not in path[j:k])
        if j < len(path) and (path[j] == pattern[i] or (pattern[i] == "?" and path[j] != "/")):
            return rest(i + 1, j + 1)
        return False

    return rest(0, 0)


def test_runs_of_stars_are_one_wildcard_and_answer_as_the_rules_say() -> None:
    """A run of stars with ``**`` in it is one ``**``: the walk's work grew with the
    pattern's places, and a query's ``--path`` of 8,000 stars took 35 ms a path."""
    assert _tokens("*" * 8000) == ("**",) and _tokens("**/****/" * 500 + "x") == ("**", "x")
    assert _tokens("a/***") == ("a", "/", "**") and _tokens("a/**/*") == ("a", "/", "**/", "*")
    paths = [f"pkg/module_{n}/sub/file_{n}.py" for n in range(300)]
    started = time.perf_counter()
    for pattern in ("*" * 8000, "**/****/" * 1000, "?*" * 5 + "*" * 8000):
        assert all(glob_match(path, pattern) for path in paths)
    assert time.perf_counter() - started < 2  # 300 paths: 32 s
    rng = random.Random(11)
    for _ in range(2000):
        pattern = "".join(rng.choice(PIECES[:-1]) for _ in range(rng.randint(1, 10)))
        for _ in range(6):
            path = "".join(rng.choice("ab/") for _ in range(rng.randint(0, 8)))
            assert glob_match(path, pattern) == _reference(path, pattern), (pattern, path)


def test_the_rules_of_the_syntax() -> None:
    assert glob_match("a/b/c.py", "*.py") and not glob_match("a/b/c.py", "a/*.py")
    assert glob_match("a/b/c.py", "a/**/*.py") and glob_match("a/c.py", "a/**/*.py")
    assert glob_match("a", "a/**") and glob_match("a/b/c", "a/**") and not glob_match("ab", "a/**")
    assert glob_match("a/b", "a/?") and not glob_match("a//", "a/?")


def test_a_path_without_the_patterns_literal_parts_is_not_walked(monkeypatch) -> None:
    """The default decision rules have three runs of stars and are asked of every file of
    every tree read: a path that cannot match is told by its literal parts, not walked (the
    walk made each path of a Django tree cost 214 µs instead of 13)."""
    from recalld.parsers import globs
    from recalld.parsers.registry import DEFAULT_DECISION_GLOBS, claimed_language

    walked: list[str] = []
    walk = globs._walk
    monkeypatch.setattr(globs, "_walk", lambda tokens, path: walked.append(path) or walk(tokens, path))
    globs._matcher.cache_clear()
    globs._any_regex.cache_clear()
    assert sum(globs._walkable(globs._tokens(p)) for p in DEFAULT_DECISION_GLOBS) == 10
    for path in ("django/db/models/query.py", "docs/ref/models/querysets.txt", "README.md", "docs/adr", "x/ADR/y.md"):
        assert claimed_language(path) is None
    assert walked == ["x/ADR/y.md"]  # ADR in it, .md at its end: only a walk tells (a * stays in one directory)
    assert claimed_language("docs/adr/0001-record.md") == "adr" and claimed_language("x/ADR-7.md") == "adr"
    assert not match_any("docs/adr/x.txt", DEFAULT_DECISION_GLOBS) and not glob_match("ADR.mdx", "*ADR*.md")
