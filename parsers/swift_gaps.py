"""What Swift's grammar (tree-sitter-swift 0.7) cannot read, given to it the same length for
a second reading of a file it read with syntax errors (``rereading.py``):

- The standard library's underscored ownership modifiers (``_ other: __owned Self``,
  ``__consuming func union(…)``, ``__shared``), which swift-collections writes throughout
  (110 files of Swift 6.2's own packages): blanked, as if the parameter or function had none.
- An empty tuple given as a value (``queue.setSpecific(key: k, value: ())``, ``f(())``,
  ``(item, ())``): read as ``0 ``.
- A prefix keyword's operand that ends in a name a ``{`` follows, in a statement's
  condition: the grammar takes ``switch consume result {`` or ``if let runtime = try?
  appContext?.runtime {`` for a call of the name with a closure (expo-modules-core's
  ``AsyncFunctionDefinition.swift`` and ``SharedObjectRegistry.swift`` read as one ERROR
  node from there on): ``try``, ``try?``, ``try!``, ``await``, ``consume`` and ``copy``
  before a name (not a label's, ``copy other:``) blanked.
- ``~`` first in an array literal (expo's ``[~OwnerType.self]``, its dynamic types; one
  after a comma is read): read as ``-``.
- A parameter's attributes but its last where it has more than one (``(@ClassDefinitionBuilder<T>
  @_implicitSelfCapture _ elements: …``): blanked.

Definitions read their text from the source as written: only the tree sees this.
"""

from __future__ import annotations

import re

from recalld.parsers.c_tokens import blank_match, blank_second

_OWNERSHIP = re.compile(rb"\b__(?:owned|shared|consuming)\b")
# ``()`` after an opening bracket, a comma or a label's colon, before a comma or a closing
# bracket: a value, not a function type's parameters (``() -> Void``) nor a call's (``f()``)
_EMPTY_TUPLE = re.compile(rb"(?<=[(,:])([ \t]?)\(\)(?=[ \t]*[,)\]])")
# ``try? x``, ``consume x``: the keyword alone, not a member's nor a label's (``copy other:``)
_PREFIX_KEYWORD = re.compile(rb"(?<![\w.$])(?:try[?!]?|await|consume|copy)(?=[ \t]+[A-Za-z_][\w$]*+(?![ \t]*:))")
_ARRAY_TILDE = re.compile(rb"(?<=\[)(\s*)~")
_ATTRIBUTE = rb"@\w+(?:<[^<>\n]*>)?(?:\([^()\n]*\))?\s+"
# after a parameter list's ``(`` or ``,``: the attributes before the last one of a parameter's
_PARAMETER_ATTRIBUTES = re.compile(
    rb"(?<=[(,])(\s*)((?:" + _ATTRIBUTE + rb")+)(?=" + _ATTRIBUTE + rb"\w+(?:[ \t]+\w+)?[ \t]*:)"
)


def readable(data: bytes) -> bytes:
    """``data`` as Swift's grammar reads it, the same length and lines."""
    if b"__" in data:
        data = _OWNERSHIP.sub(blank_match, data)
    data = _PREFIX_KEYWORD.sub(blank_match, data)
    if b"~" in data:
        data = _ARRAY_TILDE.sub(lambda m: m.group(1) + b"-", data)
    if b"@" in data:
        data = _PARAMETER_ATTRIBUTES.sub(blank_second, data)
    return _EMPTY_TUPLE.sub(lambda m: m.group(1) + b"0 ", data) if b"()" in data else data
