"""What Swift's grammar (tree-sitter-swift 0.7) cannot read, given to it the same length for
a second reading of a file it read with syntax errors (``rereading.py``):

- The standard library's underscored ownership modifiers (``_ other: __owned Self``,
  ``__consuming func union(…)``, ``__shared``), which swift-collections writes throughout
  (110 files of Swift 6.2's own packages): blanked, as if the parameter or function had none.
- An empty tuple given as a value (``queue.setSpecific(key: k, value: ())``, ``f(())``,
  ``(item, ())``): read as ``0 ``.

Definitions read their text from the source as written: only the tree sees this.
"""

from __future__ import annotations

import re

_OWNERSHIP = re.compile(rb"\b__(?:owned|shared|consuming)\b")
# ``()`` after an opening bracket, a comma or a label's colon, before a comma or a closing
# bracket: a value, not a function type's parameters (``() -> Void``) nor a call's (``f()``)
_EMPTY_TUPLE = re.compile(rb"(?<=[(,:])([ \t]?)\(\)(?=[ \t]*[,)\]])")


def readable(data: bytes) -> bytes:
    """``data`` as Swift's grammar reads it, the same length and lines."""
    if b"__" in data:
        data = _OWNERSHIP.sub(lambda m: b" " * len(m.group(0)), data)
    return _EMPTY_TUPLE.sub(lambda m: m.group(1) + b"0 ", data) if b"()" in data else data
