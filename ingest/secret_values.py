"""Whether a value a secret rule matched is a secret: the judgements on the value alone.

``high_entropy``: a random-looking base64 string, not base64-encoded text, not a slug of
words and hex numbers, switching character classes as random text does. ``not_wordlike``:
a token that is no name made of words. ``placeholder``:
documentation standing in for a secret (``${DB_PASSWORD}``, ``AKIAXXXXXXXXXXXXXXXX``,
``user:pass@``). Used by the rules in ``secrets``.
"""

from __future__ import annotations

import base64
import binascii
import re
from collections import Counter
from functools import cache
from typing import Any

ENTROPY_LIMIT = 4.5  # detect-secrets' default for base64 strings; hex tops out at 4.0
MIN_CLASS_SWITCHES = 0.35
PRINTABLE_SHARE = 0.9  # base64 that decodes to this much printable text is a fixture
SEPARATORS = re.compile(r"[/_\-.+=]")
HEX = re.compile(r"[0-9a-fA-F]+")
# An identifier's pieces: words in capitals, capitalised or lower case, and numbers.
_PIECES = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+")
MIN_WORD, SHORT_PIECES = 3, 4  # at most a quarter of a name's pieces shorter than a word
REPEATED_SHARE = 0.5  # "ACxxxxxxxx…", "AKIAXXXXXXXX…": documentation, not a secret
PLACEHOLDER = re.compile(r"(?i)^(?:pass(?:word|wd)?|pwd|pw|secret|token|key|x+|\*+|changeme)$|[{}<>]|%\(|%s|^\$\w+$")


@cache
def _base64() -> Any:
    """detect-secrets' base64 detector (its charset), imported on first use: see ``secret_rules._plugin``."""
    from detect_secrets.plugins.high_entropy_strings import Base64HighEntropyString

    return Base64HighEntropyString()


def high_entropy(value: str) -> bool:
    """A random-looking base64 string: not base64-encoded text, not words and paths."""
    if _base64().calculate_shannon_entropy(value) <= ENTROPY_LIMIT:
        return False
    if _class_switches(value) < MIN_CLASS_SWITCHES or _words_and_hex(value):
        return False
    return not _decodes_to_text(value)


def not_wordlike(value: str) -> bool:
    """Not an identifier or slug of words (``APCUPSdData``, ``panel_fault_point_bus_
    fail_since_rps_hang_up``): a segment that is neither letters nor a hex number, or,
    separators left out, the frequent switches of character class of a random token."""
    return _class_switches(SEPARATORS.sub("", value)) >= MIN_CLASS_SWITCHES or not _words_and_hex(value)


def _words_and_hex(value: str) -> bool:
    """Segments that are each a word or a hex/decimal number, or that make a name of
    words with a numeronym's digits: a slug like "TheBloke/recent-models-64f9a55bb3115b4f513ec026",
    "RCTI18nUtil_makeRTLFlipLeftAndRightStyles", not a random token."""
    parts = [part for part in SEPARATORS.split(value) if part]
    return all(part.isalpha() or HEX.fullmatch(part) for part in parts) or _camel_words(parts)


def _camel_words(parts: list[str]) -> bool:
    """A name made of words, a number among them (``RCTI18nUtil_makeRTL…``: ``RCTI``, ``18``,
    ``n``, ``Util``, ``make``, ``RTL``, …): its pieces are mostly of three characters or
    more, where a random token's mixed case and digits cut it into pieces of one or two."""
    pieces = [_PIECES.findall(part) for part in parts]
    if any("".join(found) != part for found, part in zip(pieces, parts, strict=True)):
        return False
    flat = [piece for found in pieces for piece in found]
    return sum(len(piece) < MIN_WORD for piece in flat) * SHORT_PIECES <= len(flat)


def _class_switches(value: str) -> float:
    """Share of neighbouring characters of different classes (lower, upper, digit, other):
    about 0.64 for random base64, about 0.25 for "naver-hyperclovax/HyperCLOVAX-SEED-14B"."""
    classes = ["l" if c.islower() else "u" if c.isupper() else "d" if c.isdigit() else "o" for c in value]
    return sum(a != b for a, b in zip(classes, classes[1:])) / max(1, len(value) - 1)


def _decodes_to_text(value: str) -> bool:
    try:
        urlsafe = b"-_" if "-" in value or "_" in value else None
        raw = base64.b64decode(value + "=" * (-len(value) % 4), altchars=urlsafe)
    except (binascii.Error, ValueError):
        return False
    if not raw:
        return False
    printable = sum(1 for b in raw if 32 <= b < 127 or b in (9, 10, 13))
    return printable / len(raw) >= PRINTABLE_SHARE


def placeholder(value: str) -> bool:
    if PLACEHOLDER.search(value):
        return True
    return Counter(value).most_common(1)[0][1] >= REPEATED_SHARE * len(value) and len(value) > 2
