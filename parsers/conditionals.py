"""C#'s conditional compilation as a compiler would see one build of it, where the
grammar cannot read it as written: the source as the grammar is given it, the same
length, byte for byte, with its directive lines blanked and, of each ``#if`` … ``#elif``
… ``#else`` … ``#endif`` group asked for, one branch left standing: the first whose
condition holds where the symbols the file does not ``#define`` or ``#undef`` are all
defined (or all undefined), else its ``#else``, else its first, so that a group of one
branch keeps it (``#if MOBILE`` … ``#endif``: its directives alone blanked).

C#'s grammar reads a group whose branches each hold whole declarations or statements,
not one that cuts through a construct, and a cut can cost the whole file, read as one
ERROR node and no symbol but its module (Mono's ``corert/Decimal.cs``: ``public
Decimal(int value)`` then ``#if __MonoCS__`` ``: this()`` ``#endif``; ``FileStream.cs``,
an ``else`` just before an ``#endif``; a class's base list written twice, one for each
platform). Which groups are reduced, and which reading is kept, ``rereading.py`` tells.

Swift's ``#if`` … ``#elseif`` … ``#else`` … ``#endif`` is read the same way: its grammar
reads a group around declarations or statements, not one around a ``switch``'s cases
(``#if os(iOS)`` ``case UIApplication.willEnterForegroundNotification:`` … ``#elseif
os(macOS)`` …), which cost expo-modules-core 58's ``AppContext.swift`` its class (12 of
its 58 symbols read). A condition this cannot read (``os(iOS)``, ``canImport(UIKit)``,
``swift(>=5.9)``) holds, so a build keeps its first branch.
"""

from __future__ import annotations

import operator
import re
from collections.abc import Iterable
from dataclasses import dataclass

from recalld.parsers.c_tokens import blank_lines

# A directive line: ``#`` first on its line (spaces before and after it allowed), by the
# language whose conditionals are read (``LanguageSpec.conditionals``): C#'s every one
# (``#region``, ``#pragma``, ``#define`` …), Swift's its conditional compilation's alone, as
# a line can start with a macro's ``#expect(…)`` or ``#Preview {``, which are code.
DIRECTIVES = {
    "csharp": re.compile(rb"(?m)^[ \t]*#[ \t]*([a-z]+)\b([^\n]*)"),
    "swift": re.compile(rb"(?m)^[ \t]*#(if|elseif|else|endif)\b([^\n]*)"),
}
_TOKEN = re.compile(rb"[ \t]*(\|\||&&|==|!=|!|\(|\)|[A-Za-z_][A-Za-z0-9_]*)")
_BRANCHES = (b"elif", b"elseif", b"else")  # C#'s ``#elif``, Swift's ``#elseif``
_ERRORS_READ = 64  # the errors of a reading whose groups are reduced in the next
_PRECEDENCE = ((b"||",), (b"&&",), (b"==", b"!="))  # the loosest first
_OPERATORS = {b"||": operator.or_, b"&&": operator.and_, b"==": operator.eq, b"!=": operator.ne}


@dataclass(frozen=True, slots=True)
class _Directive:
    start: int  # its line's first byte
    end: int  # the byte after its line's last (its newline)
    word: bytes
    rest: bytes  # after its word, without a ``//`` comment
    group: int  # the index of its group's ``#if`` among the directives; -1 outside a group


class Conditionals:
    """The directive lines of one file and the groups they make."""

    def __init__(self, data: bytes, *, language: str = "csharp") -> None:
        self.data = data
        self.directives: list[_Directive] = []
        self.spans: dict[int, tuple[int, int]] = {}  # a group's ``#if`` index → its bytes
        self.branches: dict[int, list[int]] = {}  # a group's ``#if`` index → its branches' directives
        self.nested: dict[int, list[int]] = {}  # a group's ``#if`` index → the groups right within it
        open_groups: list[int] = []
        for match in DIRECTIVES[language].finditer(data):
            word, rest = match.group(1), match.group(2).split(b"//")[0]
            index = len(self.directives)
            group = -1
            if word == b"if":
                if open_groups:
                    self.nested[open_groups[-1]].append(index)
                open_groups.append(index)
                group = index
                self.branches[index] = [index]
                self.nested[index] = []
            elif word in (*_BRANCHES, b"endif") and open_groups:
                group = open_groups[-1] if word != b"endif" else open_groups.pop()
            self.directives.append(_Directive(match.start(), match.end(), word, rest, group))
            if word in _BRANCHES and group >= 0:
                self.branches[group].append(index)
            if word == b"endif" and group >= 0:
                self.spans[group] = (self.directives[group].start, match.end())
        for group in open_groups:  # unclosed: to the end of the file
            self.spans[group] = (self.directives[group].start, len(data))
        self.groups = frozenset(self.spans)

    def to_reduce(self, errors: Iterable[tuple[int, int]], reduced: frozenset[int]) -> frozenset[int]:
        """``reduced`` and the innermost of the other groups a syntax error's bytes fall in or
        around, but for those it falls in only within a group nested in them (an error in an
        ``#if`` within a class's ``#if`` … ``#else`` reduces that one, not the class's, unless
        a reading with that one reduced errs there still)."""
        found = set()
        for low, high in list(errors)[:_ERRORS_READ]:
            for group, (start, end) in self.spans.items():
                if group not in reduced and low <= end and high >= start and not any(
                    self.spans[inner][0] <= low and high <= self.spans[inner][1]
                    for inner in self.nested[group] if inner not in reduced
                ):
                    found.add(group)
        return reduced | {group for group in found if not self._holds_any(group, found)}

    def _holds_any(self, group: int, groups: set[int]) -> bool:
        return any(inner in groups or self._holds_any(inner, groups) for inner in self.nested[group])

    def build(self, reduced: frozenset[int], *, undefined_is: bool) -> bytes:
        """The file with each group in ``reduced`` reduced to the branch a build takes
        where the symbols the file does not define itself are ``undefined_is``."""
        out = bytearray(self.data)
        defined: dict[bytes, bool] = {}
        # per open group: the branch kept (-1: all of them), whether the code around it stands
        groups: list[tuple[int, bool]] = []
        active = True
        for index, directive in enumerate(self.directives):
            word, around = directive.word, active
            if word == b"if":
                kept = self._kept(index, defined, undefined_is) if index in reduced else -1
                groups.append((kept, active))
                active = active and kept in (-1, index)
            elif directive.group >= 0 and word in _BRANCHES:
                kept, around = groups[-1]
                active = around and kept in (-1, index)
            elif directive.group >= 0:
                around = groups.pop()[1]
                active = around
            elif word in (b"define", b"undef") and active:
                defined[directive.rest.strip()] = word == b"define"
            if not around or directive.group < 0 or directive.group in reduced:
                out[directive.start:directive.end] = b" " * (directive.end - directive.start)
            if not active:
                following = self.directives[index + 1].start if index + 1 < len(self.directives) else len(out)
                out[directive.end:following] = blank_lines(self.data[directive.end:following])
        return bytes(out)

    def _kept(self, group: int, defined: dict[bytes, bool], undefined_is: bool) -> int:
        """The branch a build keeps of a group: the first whose condition holds, else its
        ``#else``, else its first (a build keeps one branch of every group it reduces: of
        one with one branch, that, its directives alone blanked)."""
        for index in self.branches[group]:
            directive = self.directives[index]
            if directive.word == b"else" or _holds(directive.rest, defined, undefined_is):
                return index
        return group


def _holds(expression: bytes, defined: dict[bytes, bool], undefined_is: bool) -> bool:
    """The value of an ``#if``'s condition (``!``, ``&&``, ``||``, ``==``, ``!=``, brackets,
    ``true``, ``false``, symbols); one it cannot read holds."""
    tokens = _tokens(expression)
    if tokens is None:
        return True
    reader = _Condition(tokens, defined, undefined_is)
    try:
        value = reader.either()
    except IndexError:
        return True
    return value if reader.at == len(tokens) else True


def _tokens(expression: bytes) -> list[bytes] | None:
    tokens = []
    at = 0
    expression = expression.rstrip()
    while at < len(expression):
        token = _TOKEN.match(expression, at)
        if token is None:
            return None
        tokens.append(token.group(1))
        at = token.end()
    return tokens


class _Condition:
    """A recursive descent over a condition's tokens, by C#'s precedence: ``!``, then
    ``==`` and ``!=``, then ``&&``, then ``||`` (``_PRECEDENCE``)."""

    def __init__(self, tokens: list[bytes], defined: dict[bytes, bool], undefined_is: bool) -> None:
        self.tokens = tokens
        self.defined = defined
        self.undefined_is = undefined_is
        self.at = 0

    def _next(self) -> bytes:
        token = self.tokens[self.at]
        self.at += 1
        return token

    def _ahead(self, *words: bytes) -> bool:
        return self.at < len(self.tokens) and self.tokens[self.at] in words

    def either(self, level: int = 0) -> bool:
        """The value of the operators of ``level`` and tighter from here on."""
        if level == len(_PRECEDENCE):
            return self._single()
        value = self.either(level + 1)
        while self._ahead(*_PRECEDENCE[level]):
            value = _OPERATORS[self._next()](value, self.either(level + 1))
        return value

    def _single(self) -> bool:
        token = self._next()
        if token == b"!":
            return not self._single()
        if token == b"(":
            value = self.either()
            if self._next() != b")":
                raise IndexError("unclosed bracket")
            return value
        if token in (b"true", b"false"):
            return token == b"true"
        if token in _OPERATORS or token == b")":
            raise IndexError("operator without operand")
        return self.defined.get(token, self.undefined_is)
