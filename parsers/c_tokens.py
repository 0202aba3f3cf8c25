"""C's and C++'s tokens as the readers of their macros match them in a line's bytes
(``macros.py``, ``reserved.py``), and the blanking that keeps every byte's offset."""

from __future__ import annotations

import re

STRING = rb'"(?:[^"\\\n]|\\.)*"'
# what arguments hold between brackets: string literals too (``PYBIND11_DEPRECATED("Use …")``), a
# slash that starts no comment (``PYBIND11_INPLACE_OP(operator/=)``)
PLAIN = rb"(?:[^()\"'/\n]++|/(?![/*])|" + STRING + rb")*+"  # possessive: none of it is a bracket
ARGUMENTS = rb"\(" + PLAIN + rb"(?:\(" + PLAIN + rb"\)" + PLAIN + rb")*\)"  # one level of nested brackets
BLOCK_COMMENT = rb"/\*(?:[^*]|\*(?!/))*\*/"
# A macro's name: capitals, digits and underscores, with an underscore in it, and a leading one
# too (cffi's ``_CFFI_UNUSED_FN``): C's reserved names with a capital are its keywords (``_Bool``).
MACRO = rb"_?[A-Z][A-Z0-9]*_[A-Z0-9_]*"
# Type keywords, beside which an attribute stands where no type can.
TYPE_WORDS = rb"void|char|short|int|long|float|double|bool|signed|unsigned"
_LINE_BYTES = re.compile(rb"[^\n]")
_NOT_SPACE = re.compile(rb"\S")


def blank(line: bytes, start: int, end: int) -> bytes:
    return line[:start] + b" " * (end - start) + line[end:]


def blank_match(found: re.Match[bytes]) -> bytes:
    """A match blanked whole, one space a byte (``re.sub``'s replacement)."""
    return b" " * len(found.group(0))


def blank_group(found: re.Match[bytes]) -> bytes:
    """A match's text with its first group blanked (``re.sub``'s replacement)."""
    return blank(found.group(0), *(i - found.start() for i in found.span(1)))


def blank_second(found: re.Match[bytes]) -> bytes:
    """A match of two groups with its first kept and its second blanked but for its
    whitespace (its line breaks, so its lines): ``re.sub``'s replacement."""
    return found.group(1) + _NOT_SPACE.sub(b" ", found.group(2))


def blank_lines(text: bytes) -> bytes:
    """``text`` blanked but for its line breaks: its lines kept, every byte's offset too."""
    return _LINE_BYTES.sub(b" ", text)
