"""Java's Unicode escapes (``\\u00e4``) in a doc, read as the characters they write, as javac
reads them anywhere in a source file before it reads anything else (JLS 3.3): the JDK's
``CollationElementIterator`` writes ``"\\u00e4b"`` where javac's doc has ``"äb"``, and
``Character`` a backslash so (``'\\u005Cu0000'``), which javac's doc reads ``'\\u0000'``:
what an escape writes is no part of another."""

from __future__ import annotations

import re

# A backslash that begins an escape: after an even number of them (``\\u2014`` is text,
# as ``Pattern``'s doc writes it), then one ``u`` or more and four hex digits; a UTF-16
# pair of surrogates (``\ud83d\ude00``) is one character.
_ESCAPE = re.compile(
    r"(?<!\\)((?:\\\\)*)\\u+(?:([dD][89abAB][0-9a-fA-F]{2})\\u+([dD][c-fC-F][0-9a-fA-F]{2})|([0-9a-fA-F]{4}))"
)
_KEPT_CONTROLS = "\t\n"  # the other controls, and a surrogate without its pair, stay as written


def decode_unicode_escapes(text: str) -> str:
    """``text`` with its Unicode escapes read as their characters, but those of a control
    (``\\u0000``) or half a surrogate pair, which stay as written."""
    return _ESCAPE.sub(_character, text) if "\\u" in text else text


def _character(escape: re.Match[str]) -> str:
    backslashes, high, low, single = escape.groups()
    if high is not None:
        code = 0x10000 + ((int(high, 16) - 0xD800) << 10) + (int(low, 16) - 0xDC00)
    else:
        code = int(single, 16)
        if 0xD800 <= code < 0xE000 or (code < 0x20 and chr(code) not in _KEPT_CONTROLS) or code == 0x7F:
            return escape.group()
    return backslashes + chr(code)
