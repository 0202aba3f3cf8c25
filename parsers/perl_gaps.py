"""What Perl's grammar (tree-sitter-perl 2.0) cannot read, given to it the same length for
a second reading of a file it read with syntax errors (``rereading.py``):

- A match, substitution or quoted regex delimited by ``$`` (Linux's ``get_maintainer.pl``:
  ``$text =~ m$[A-Za-z…]+\\@[A-Za-z0-9\\.-]+$g``): its delimiters read as one its text
  does not hold. The grammar reads the rest of the file as one error.
- An attribute whose argument is blank (``sub getpwent :prototype( ) {…}``, Perl's
  ``User::pwent`` and its kin): the blanks read as ``;``.
- ``@#`` (no code writes it: a pattern's, ``m/[@#]_/``, YAML::Tiny's
  ``/(?:^[~!@#%&*|>?:,'"`{}\\[\\]]|…)/``) and ``$#`` before a bracket or a slash (``/$#/``),
  which the grammar reads as the start of an array's last index: their ``#`` read as ``_``.
- A left shift written without spaces before a name (``$num |= (1<<index($flags, $_))``),
  read as a here-document's start: read as a product.

Definitions read their text from the source as written: only the tree sees this.
"""

from __future__ import annotations

import re

# ``m``, ``qr`` or ``s`` where a pattern may open: after ``=~``, ``!~``, an opening
# bracket, a comma, ``=`` or a statement's start, never a variable's name (``$s $x``)
_DOLLAR_QUOTE = re.compile(rb"((?:^|[~(,;{=!])[ \t]*)(m|qr|s)([ \t]*)\$", re.MULTILINE)
_DELIMITERS = b"!|~,:;^&%"
_BLANK_ATTRIBUTE = re.compile(rb"(^[ \t]*sub[ \t]+[\w:']+[^{;\n]*?:[ \t]*\w+\()([ \t]+)(?=\))", re.MULTILINE)
_ARRAY_HASH = re.compile(rb"@#|\$#(?=[\]/])")
_SHIFT = re.compile(rb"((?:[\d)\]]|\$\w+))<<(?=[A-Za-z_])")


def readable(data: bytes) -> bytes:
    """``data`` as Perl's grammar reads it, the same length and lines."""
    if b"$" in data:
        data = _dollar_quotes(data)
    if b"sub" in data:
        data = _BLANK_ATTRIBUTE.sub(lambda m: m.group(1) + b";" * len(m.group(2)), data)
    if b"#" in data:
        data = _ARRAY_HASH.sub(lambda m: m.group(0)[:1] + b"_", data)
    if b"<<" in data:
        data = _SHIFT.sub(lambda m: m.group(1) + b"* ", data)
    return data


def _dollar_quotes(data: bytes) -> bytes:
    """Each ``$``-delimited match, substitution or quoted regex with delimiters its text
    does not hold; one whose end is not found, or whose text holds every stand-in, as written."""
    out = bytearray(data)
    at = 0
    while (m := _DOLLAR_QUOTE.search(data, at)) is not None:
        parts = 2 if m.group(2) == b"s" else 1
        ends = _ends(data, m.end(), parts)
        at = m.end()
        if ends is None:
            continue
        text = data[m.end() : ends[-1]]
        stand_in = next((bytes([d]) for d in _DELIMITERS if d not in text), None)
        if stand_in is None:
            continue
        for where in (m.end() - 1, *ends):
            out[where : where + 1] = stand_in
        at = ends[-1] + 1
    return bytes(out)


def _ends(data: bytes, start: int, parts: int) -> list[int] | None:
    """The offsets of the ``$`` that end each of ``parts`` texts from ``start`` (a
    backslash escapes the byte after it), or None where the file ends first."""
    ends: list[int] = []
    i = start
    while len(ends) < parts:
        j = data.find(b"$", i)
        if j < 0:
            return None
        backslashes = 0
        while j - backslashes - 1 >= i and data[j - backslashes - 1] == 0x5C:
            backslashes += 1
        if backslashes % 2 == 0:
            ends.append(j)
        i = j + 1
    return ends
