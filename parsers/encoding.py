"""Source files in an encoding other than UTF-8, read as the language reads them.

Tree-sitter parses UTF-8 bytes and every text recalld keeps is UTF-8, so a file that is
not valid UTF-8 is parsed with its undecodable bytes as U+FFFD. A language may say how its
files name another encoding: Python's coding declaration (PEP 263), a comment on the
first line, or on the second after a comment line (``# -*- coding: latin-1 -*-``). Such
a file is decoded with the codec it names and parsed as the same text in UTF-8, so its
names, docstrings and code read as its authors wrote them. The declaration is followed
only when the bytes are not UTF-8 already: a file that decodes as UTF-8 is read as UTF-8
whatever it declares (a declaration left behind after a file was converted is common,
a file whose every byte also makes valid UTF-8 in another encoding is not), and a
declaration of an unknown codec, of a codec that does not decode the file, or of one
that would move its line breaks (``utf-16``) leaves the file read as UTF-8 with
replacements, as before. A file that starts with a UTF-16 byte order mark is read as
UTF-16 (``from_utf16``) before anything else looks at it.
"""

from __future__ import annotations

import codecs
import re

# PEP 263's pattern, on one of the file's first two lines
_DECLARATION = re.compile(rb"^[ \t\f]*#.*?coding[:=][ \t]*([-\w.]+)")
_COMMENT_OR_BLANK = re.compile(rb"^[ \t\f]*(?:#.*)?$")


def declared_encoding(data: bytes) -> str | None:
    """The codec a Python file's coding declaration names, or None (no declaration, or
    one naming no codec Python knows)."""
    lines = data.split(b"\n", 2)[:2]
    for number, line in enumerate(lines):
        line = line.rstrip(b"\r")
        found = _DECLARATION.match(line)
        if found is not None:
            return _codec(found.group(1).decode("ascii"))
        if number == 0 and not _COMMENT_OR_BLANK.match(line.removeprefix(codecs.BOM_UTF8)):
            return None  # a declaration on line 2 counts only below a comment or a blank line
    return None


def _codec(name: str) -> str | None:
    try:
        return codecs.lookup(name).name
    except LookupError:
        return None


def from_utf16(data: bytes) -> bytes:
    """A file that starts with a UTF-16 byte order mark (Windows tools write C, C++ and C#
    so; git holds the bytes as they are), as the same text in UTF-8; any other ``data`` as
    it is. Its NUL bytes made it read as binary, its text unread."""
    if not data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        return data
    try:
        return data.decode("utf-16").encode("utf-8")
    except UnicodeError:  # an odd length, a lone surrogate: not UTF-16 after all
        return data


def as_utf8(data: bytes, *, declares: bool) -> tuple[bytes, bool]:
    """``data`` as UTF-8, and whether it was read without replacing a byte: as it is when
    it is UTF-8; else, for a language whose files may declare their encoding
    (``declares``), decoded as declared; else with each byte that does not decode as
    U+FFFD. Tree-sitter was given such bytes as they were: its queries' predicates read
    the text of a node strictly as UTF-8, and one that held them raised (a sync crashed on
    the file, and again at each retry); its lexer also cut a name at them."""
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        pass
    else:
        return data, True
    codec = declared_encoding(data) if declares else None
    if codec is not None:
        try:
            text = data.decode(codec)
        except (UnicodeDecodeError, LookupError):  # LookupError: no text codec (``hex``, ``rot13``)
            pass
        else:
            if text.count("\n") == data.count(b"\n"):  # lines must stay where they were
                return text.encode("utf-8", "surrogatepass"), True
    return replaced(data), False


def replaced(data: bytes) -> bytes:
    """``data`` as UTF-8 with each undecodable byte as U+FFFD (lines stay where they were:
    a newline is never part of what does not decode)."""
    return data.decode("utf-8", "replace").encode("utf-8")
