"""What Objective-C's grammar (tree-sitter-objc 3.0) cannot read of Objective-C++'s C++,
given to it the same length for a second reading of a file it read with syntax errors
(``rereading.py``):

- a scope's ``::`` (``facebook::react::Props::Shared``, ``std::shared_ptr<T>``): ``__``,
  so that a qualified name is one name (``facebook__react__Props__Shared``);
- ``using namespace facebook::react;``: blanked;
- a reference's ``&`` after a type's name (``(const Props::Shared &)props``, ``auto &view``):
  ``*``, a pointer's, which the grammar reads where it stands;
- ``auto``, a type C++ deduces (C's grammar reads a storage class): ``id``.

React Native 0.81's 255 ``.mm`` files: 174 read with syntax errors by the grammar alone
(7,420 errors), 120 with this (2,999); of the 2,420 lines that open a method there, 1,961
were found, 2,065 are. Definitions read their text from the source as written: only the
tree sees this.
"""

from __future__ import annotations

import re

from recalld.parsers.c_tokens import STRING

# Strings and comments are passed over whole; what is rewritten is matched outside them.
_CODE = re.compile(
    rb"(?:" + STRING + rb")|//[^\n]*|/\*.*?\*/"
    rb"|(::)|^([ \t]*using[ \t]+namespace\b[^;\n]*;)|(?<=[\w>])([ \t]*&)(?=[ \t]*[\w)>])|\b(auto)\b",
    re.DOTALL | re.MULTILINE,
)


def readable(data: bytes) -> bytes:
    """``data`` as Objective-C's grammar reads Objective-C++, the same length and lines."""
    if b"::" not in data and b"&" not in data:
        return data
    return _CODE.sub(_rewritten, data)


def _rewritten(found: re.Match[bytes]) -> bytes:
    if found.group(1) is not None:
        return b"__"
    if found.group(2) is not None:
        return b" " * len(found.group(2))
    if found.group(3) is not None:
        return found.group(3)[:-1] + b"*"
    if found.group(4) is not None:
        return b"id  "
    return found.group(0)
