"""C#'s pointer indirection of a bracketed operand, which C#'s grammar (0.23) cannot
read (``*(p + 1)``, ``*(int*)src``: it takes only a name or member after ``*``), given
to it as an expression of the same length. Its recovery from the error is poor: one
``Set(*(IntPtr*)buffer)`` in Mono's ``_SafeNetHandles.cs`` left the whole file an ERROR
node and 14 of its 21 classes unfound.

- In an expression (after an operator, a bracket, a comma, ``return``), ``*(`` is read
  as ``-(``: ``x = *(uint*)&f`` → ``x = -(uint*)&f``.
- Assigned to where a statement opens (``*(int*)(dest + 4) = *(int*)(src + 4);``, and
  ``*dest++ = *src++;``, which it cannot read either), the target is read as a discard,
  ``_``, the rest of it blanked up to its operator; with no operator after it
  (``*(p)++;``), the ``*`` alone is blanked.

Where ``*`` follows a name, a literal or a closing bracket it is a multiplication and
stays. Definitions read their text from the source as written: only the tree sees this.
"""

from __future__ import annotations

import re

# ``*(`` after what ends no operand: an operator, an opening bracket, a comma, ``return``, ``ref``
# (not ``/*(``, a comment's opening)
_IN_EXPRESSION = re.compile(
    rb"(?:[=(,?:!~+\-*%&|^<>\[]|/(?=[ \t])|\b(?:return|yield|await|throw|ref|out|in))[ \t]*(\*)[ \t]*\("
)
# ``*(``, ``*p++``, ``*++p`` opening a statement: after a block's or statement's end or an
# ``else`` on its line, or first on it, or after a ``)`` (``if (c) *(p) = 0;``:
# ``_statement_header`` tells)
_OPENS_STATEMENT = re.compile(
    rb"(?m)(^|[{};)]|\belse)[ \t]*(\*)[ \t]*(?:\(|[A-Za-z_][A-Za-z0-9_]*[ \t]*(?:\+\+|--)|\+\+|--)"
)
_HEADER_WORD = re.compile(rb"\b(?:if|while|for|foreach|lock|using|fixed)[ \t]*$")
# an assignment's operator on the rest of the line: ``=`` not in ``==``, ``<=``, ``>=``, ``!=``, ``=>``
_ASSIGNMENT = re.compile(rb"(?:\?\?|<<|>>|[-+*/%&|^])?(?<![=!<>])=(?![=>])")
# the end of a statement or block (or a case's label, an ``else``) before blank or comment lines
_ENDS_STATEMENT = re.compile(rb"(?:[;{}):]|\belse)(?:[ \t]*//[^\n]*|\s)*$")


def readable(data: bytes) -> bytes:
    """``data`` with its bracketed pointer indirections given to the grammar as above."""
    if b"*" not in data:
        return data
    out = bytearray(data)
    for match in _IN_EXPRESSION.finditer(data):
        out[match.start(1)] = ord("-")
    for match in _OPENS_STATEMENT.finditer(data):
        star = match.start(2)
        first = not match.group(1) and data.rfind(b"\n", 0, star) >= 0
        if first and not _ENDS_STATEMENT.search(data, max(0, star - 400), star):
            continue  # a multiplication continued from the line before
        if match.group(1) == b")" and not _statement_header(data, match.start(1)):
            continue  # ``f(x) *(y)``: a multiplication
        _discard_target(data, out, star)
    return bytes(out)


def _statement_header(data: bytes, closing: int) -> bool:
    """Whether the ``)`` at ``closing`` ends an ``if``'s, a loop's or a ``lock``'s header on its line."""
    depth = 0
    at = closing
    line_start = data.rfind(b"\n", 0, closing) + 1
    while at >= line_start:
        byte = data[at]
        depth += byte == ord(")")
        depth -= byte == ord("(")
        if depth == 0:
            return bool(_HEADER_WORD.search(data, line_start, at))
        at -= 1
    return False


def _discard_target(data: bytes, out: bytearray, star: int) -> None:
    """``*(…) = value;`` first on its line read as ``_ = value;`` (bracket depth 0 only)."""
    end = data.find(b"\n", star)
    line_end = len(data) if end < 0 else end
    depth = 0
    at = star + 1
    while at < line_end:
        byte = data[at]
        if byte in b"([":
            depth += 1
        elif byte in b")]":
            depth -= 1
        elif byte == ord(";"):
            break
        elif depth == 0 and byte in b"=?<>-+*/%&|^":
            operator = _ASSIGNMENT.match(data, at)
            if operator:
                out[star:at] = b"_" + b" " * (at - star - 1)
                return
        at += 1
    out[star] = ord(" ")
