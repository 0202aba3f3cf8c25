"""Git's wildmatch, as gitattributes and gitignore patterns use it, over a path's bytes:
compiled to a regular expression where that cannot backtrack for long (few stars, a short
path), else run as git's own algorithm (``dowild``, whose aborts bound it). Either way,
``*`` and ``?`` stop at a slash, ``**`` between slashes crosses them (and, as git compares
a pattern's literal start apart, right after it), character classes are read as wildmatch
reads them (a first ``]`` a member, ``a-z`` ranges, ``[:alpha:]`` names in git's own
ctype, ``!``/``^`` negation, backslash escapes), and ``core.ignorecase`` folds letters as
wildmatch folds them. A pattern wildmatch gives up on (a trailing backslash, an unclosed
class, an unknown class name) matches nothing."""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import partial

Matcher = Callable[[bytes], bool]

WILDCARD = re.compile(rb"[*?\[\\]")  # what ends a pattern's literal start
# A regular expression backtracks through every placement of each star: three runs of
# stars on a name of 4,000 bytes took 10 s (``*a*a*b``), ten on one of 40 bytes 18 s, two
# on a path of 4,000 bytes 56 ms. Those are matched by wildmatch's own algorithm, whose
# aborts bound the work by the text's length (1–33 ms there), 20–50 times slower than a
# regular expression on the paths of a tree.
REGEX_STARS = 2
REGEX_TEXT = 256
_MATCH, _NO_MATCH, _ABORT_ALL, _ABORT_TO_STARSTAR = 0, 1, 2, 3
_DIGITS, _LOWER, _UPPER = range(48, 58), range(97, 123), range(65, 91)
_GRAPH = frozenset(range(33, 127))
_ALNUM = frozenset([*_DIGITS, *_LOWER, *_UPPER])
_CLASSES = {  # wildmatch's [:name:], in git's own ctype (its space is " \t\n\r")
    b"alnum": _ALNUM,
    b"alpha": frozenset([*_LOWER, *_UPPER]),
    b"blank": frozenset(b" \t"),
    b"cntrl": frozenset([*range(32), 127]),
    b"digit": frozenset(_DIGITS),
    b"graph": _GRAPH,
    b"lower": frozenset(_LOWER),
    b"print": _GRAPH | {32},
    b"punct": _GRAPH - _ALNUM,
    b"space": frozenset(b" \t\n\r"),
    b"upper": frozenset(_UPPER),
    b"xdigit": frozenset(b"0123456789abcdefABCDEF"),
}


def compile_pattern(raw: bytes, *, ignore_case: bool) -> tuple[Matcher | None, bool]:
    """The pattern compiled to match a file's path under the rules' folder (or its name,
    for a pattern without a slash), and whether it matches the name; None never matches."""
    if raw.endswith(b"/"):  # a folder's pattern: attributes are asked of files
        return None, False
    basename = b"/" not in raw
    # git compares a path pattern's literal start and wildmatches the rest on its own, so
    # a "**" right after the literal start counts as at the pattern's start
    raw = raw if basename else raw.removeprefix(b"/")
    literal = WILDCARD.search(raw)
    cut = 0 if basename else literal.start() if literal else len(raw)
    start, rest = raw[:cut], raw[cut:]
    body = _translate(rest, pathname=not basename, fold=ignore_case)
    if body is None:
        return None, basename
    stars = _star_runs(rest)
    slowly: Matcher = partial(_match_slowly, start, rest, not basename, ignore_case)
    if stars > REGEX_STARS:
        return slowly, basename
    regex = re.compile(b"".join(_literal(byte, ignore_case) for byte in start) + body, re.DOTALL)
    if not stars:
        return (lambda text: regex.fullmatch(text) is not None), basename
    return (lambda text: regex.fullmatch(text) is not None if len(text) <= REGEX_TEXT else slowly(text)), basename


def _star_runs(p: bytes) -> int:
    """How many runs of stars the pattern has, escaped ones left out (one in a class is
    counted: it only sends the pattern the slower, bounded way)."""
    runs, i, n = 0, 0, len(p)
    while i < n:
        if p[i] == 0x5C:
            i += 2
        elif p[i] == 0x2A:
            runs += 1
            while i < n and p[i] == 0x2A:
                i += 1
        else:
            i += 1
    return runs


def _match_slowly(start: bytes, rest: bytes, pathname: bool, fold: bool, text: bytes) -> bool:
    head = text[: len(start)]
    if (head.lower() != start.lower()) if fold else (head != start):
        return False
    try:
        return _dowild(rest, 0, text, len(start), pathname, fold) == _MATCH
    except RecursionError:  # a line of ~1,000 runs of stars: git would recurse as deep
        return False


def _dowild(p: bytes, i: int, text: bytes, t: int, pathname: bool, fold: bool) -> int:
    """wildmatch itself (git's ``dowild``) from ``p[i:]`` against ``text[t:]``: a star that
    finds no place for the rest in the text left says no outer star will either."""
    n, m = len(p), len(text)
    while i < n:
        c = p[i]
        if t >= m and c != 0x2A:
            return _ABORT_ALL
        if c == 0x2A:
            j = i + 1
            while j < n and p[j] == 0x2A:
                j += 1
            crosses = not pathname
            if pathname and j - i > 1:
                if (i == 0 or p[i - 1] == 0x2F) and (j == n or p[j] == 0x2F or p[j : j + 2] == b"\\/"):
                    if j < n and p[j] == 0x2F and _dowild(p, j + 1, text, t, pathname, fold) == _MATCH:
                        return _MATCH
                    crosses = True
            if j == n:
                return _MATCH if crosses or text.find(b"/", t) < 0 else _NO_MATCH
            if not crosses and p[j] == 0x2F:  # one star, then a slash: the rest of this folder's name
                t = text.find(b"/", t)
                if t < 0:
                    return _NO_MATCH
                i = j
                continue
            while t < m:
                found = _dowild(p, j, text, t, pathname, fold)
                if found != _NO_MATCH:
                    if not crosses or found != _ABORT_TO_STARSTAR:
                        return found
                elif not crosses and text[t] == 0x2F:
                    return _ABORT_TO_STARSTAR
                t += 1
            return _ABORT_ALL
        byte = text[t]
        if c == 0x3F:
            if pathname and byte == 0x2F:
                return _NO_MATCH
        elif c == 0x5B:
            found_class = _char_class(p, i + 1, pathname=pathname, fold=fold)
            if found_class is None:
                return _ABORT_ALL
            if byte not in found_class[0]:
                return _NO_MATCH
            i = found_class[1] - 1
        else:
            if c == 0x5C:
                i += 1
                if i >= n:
                    return _NO_MATCH
                c = p[i]
            elif fold:
                c = _fold(c)
            if (_fold(byte) if fold else byte) != c:
                return _NO_MATCH
        i += 1
        t += 1
    return _MATCH if t >= m else _NO_MATCH


def _fold(byte: int) -> int:
    return byte | 0x20 if 0x41 <= byte <= 0x5A else byte


def _literal(byte: int, fold: bool) -> bytes:
    if fold and byte in _CLASSES[b"alpha"]:
        return b"[%c%c]" % (byte | 0x20, byte & ~0x20)
    return re.escape(bytes((byte,)))


def _translate(p: bytes, *, pathname: bool, fold: bool) -> bytes | None:
    """wildmatch's pattern as a regular expression (None where wildmatch gives up on it: a
    trailing backslash, an unclosed class). With ``pathname``, ``*``, ``?`` and classes stop
    at a slash and ``**`` between slashes crosses them; with ``fold`` (``core.ignorecase``)
    letters match either case as wildmatch folds them."""
    out: list[bytes] = []
    i, n = 0, len(p)
    while i < n:
        c = p[i]
        if c == 0x2A:  # *
            j = i + 1
            while j < n and p[j] == 0x2A:
                j += 1
            if pathname and j - i > 1 and (i == 0 or p[i - 1] == 0x2F):
                if j == n:
                    out.append(b".*")
                    i = j
                    continue
                if p[j] == 0x2F:  # "**/": no folder or any folders
                    out.append(b"(?:.*/)?")
                    i = j + 1
                    continue
                if p[j : j + 2] == b"\\/":
                    out.append(b".*")
                    i = j
                    continue
            out.append(b"[^/]*" if pathname else b".*")
            i = j
        elif c == 0x3F:  # ?
            out.append(b"[^/]" if pathname else b".")
            i += 1
        elif c == 0x5B:  # [
            found = _char_class(p, i + 1, pathname=pathname, fold=fold)
            if found is None:
                return None
            chosen, i = found
            out.append(b"[" + b"".join(b"\\x%02x" % byte for byte in sorted(chosen)) + b"]" if chosen else b"(?!)")
        elif c == 0x5C:  # \
            if i + 1 >= n:
                return None
            escaped = p[i + 1]
            # wildmatch folds the text's letter but not an escaped one: an upper-case one matches nothing
            out.append(b"(?!)" if fold and escaped in _CLASSES[b"upper"] else _literal(escaped, fold))
            i += 2
        else:
            out.append(_literal(c, fold))
            i += 1
    return b"".join(out)


def _char_class(p: bytes, i: int, *, pathname: bool, fold: bool) -> tuple[frozenset[int], int] | None:
    """The class that opens before ``i``, as wildmatch reads it (its first member may be
    a "]"; ``a-z`` ranges, ``[:alpha:]`` names, backslash escapes; ``!`` or ``^``
    negates): the bytes of the text it matches, and the index after its "]"; None where
    wildmatch gives up."""
    n = len(p)
    negated = i < n and p[i] in b"!^"
    i += negated
    members: set[int] = set()
    ranges: list[tuple[int, int]] = []
    previous = 0
    while True:
        if i >= n:
            return None
        c = p[i]
        if c == 0x5C or (c == 0x2D and previous and i + 1 < n and p[i + 1] != 0x5D):
            i += 1 + (c == 0x2D and p[i + 1] == 0x5C)  # a range's end may be escaped too
            if i >= n:
                return None
            if c == 0x5C:
                c = p[i]
                members.add(c)
            else:
                ranges.append((previous, p[i]))
                c = 0
        elif c == 0x5B and p[i + 1 : i + 2] == b":":
            end = p.find(b"]", i + 2)
            if end < 0:
                return None
            name = p[i + 2 : end]
            if name.endswith(b":"):
                named = _CLASSES.get(name[:-1])
                if named is None:
                    return None
                members.update(_CLASSES[b"alpha"] if fold and name == b"upper:" else named)
                c = 0
                i = end
            else:  # no ":]": the "[" is a member like any other
                members.add(c)
        else:
            members.add(c)
        previous = c
        i += 1
        if i < n and p[i] == 0x5D:
            break
    chosen = {byte for byte in range(256) if _in_class(byte, members, ranges, fold) != negated}
    if pathname:
        chosen.discard(0x2F)
    return frozenset(chosen), i + 1


def _in_class(byte: int, members: set[int], ranges: list[tuple[int, int]], fold: bool) -> bool:
    """Whether a class holds ``byte`` as wildmatch tests it: folding lowers the text's
    letter first, and a range holds a lower-case letter whose upper case it spans."""
    if fold:
        byte = _fold(byte)
    if byte in members:
        return True
    upper = byte & ~0x20 if fold and byte in _CLASSES[b"lower"] else None
    return any(low <= byte <= high or (upper is not None and low <= upper <= high) for low, high in ranges)
