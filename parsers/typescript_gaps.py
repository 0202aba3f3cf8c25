"""What TypeScript's grammar (tree-sitter-typescript 0.23) cannot read, given to it the
same length for a second reading of a file it read with syntax errors (``rereading.py``):

- A generic call signature on a line of its own after a member with no semicolon, as
  code formatted without semicolons writes an overloaded function's type (mobx's
  ``IActionFactory``: ``name: string`` then ``<T extends Function>(fn: T): T``). The
  grammar read the rest of the file as one error: mobx's ``action.ts`` lost every
  definition below it, redux-toolkit's ``listenerMiddleware/types.ts`` 15. The last
  character of its indentation is read as a ``;``, which ends the member above (before a
  statement, an empty one). Not where the code above goes on into it: a generic arrow
  function given as an argument (effect's ``dual(2, <A>(self: A) => …)``), assigned,
  returned by an arrow or in a union is no signature. Its type parameters may stand on
  lines of their own after a ``<`` alone (effect's ``catchTag``: ``Effect.ts`` lost the
  27,000 lines below it).
- A type parameter's variance (TypeScript 4.7's ``interface Effect<out A, in out R>``),
  which the grammar does not know: read as blanks. 112 of effect's 680 files were read with
  errors where one stood, 4 of zod's and 2 of redux-toolkit's (after a comment, on a line of its own).
- A backtick escaped in a template literal type (effect's ``MissingSelfGeneric``, a type
  of text that reads "Missing \\`Self\\` generic"), where the grammar knows no escape:
  ``Schema.ts`` lost the 2,200 lines below it. An escaped backtick reads as two blanks in
  any string, template or regular expression alike, which it stays.

Definitions read their text from the source as written: only the tree sees this.
"""

from __future__ import annotations

import re

# an indented line opening with type parameters and then parameters: ``  <T>(fn: T): T``, or
# with ``<`` alone, its type parameters on lines of their own (as prettier breaks a long list)
_GENERIC_SIGNATURE = re.compile(rb"(?m)^([ \t]*)[ \t](?=<[A-Za-z_$][^\n]*?>\s*\(|<[ \t]*\n)")
# a type parameter's variance (TypeScript 4.7), which the grammar does not know: ``interface
# Effect<out A, in out R>``, on a line of its own too, after a comment (zod's ``/** @ts-ignore */``)
_VARIANCE = re.compile(
    rb"(?<=[<,])((?:\s|/\*(?:[^*]|\*(?!/))*\*/|//[^\n]*\n)*)"  # the blanks and comments before it
    rb"(in\s+out|in|out)(?=\s+[A-Za-z_$][\w$]*\s*(?:[,>=]|extends\b))"  # and a parameter's name after
)
# a backtick escaped by an odd number of backslashes (after two, it closes its template)
_ESCAPED_BACKTICK = re.compile(rb"(?<!\\)((?:\\\\)*)\\`")
# how code ends that an expression or a type on the next line goes on from
_CONTINUED = (b",", b"(", b"=", b"?", b":", b"|", b"&", b"<", b"=>")


def readable(data: bytes) -> bytes:
    """``data`` as TypeScript's grammar reads it, the same length and lines."""
    if b"\\`" in data:
        data = _ESCAPED_BACKTICK.sub(rb"\1  ", data)
    if b"<" not in data:
        return data
    data = _VARIANCE.sub(_blanked, data)
    return _GENERIC_SIGNATURE.sub(lambda match: _parted(data, match), data)


def _blanked(variance: re.Match[bytes]) -> bytes:
    """A type parameter's variance as blanks, its line breaks kept."""
    return variance[1] + re.sub(rb"\S", b" ", variance[2])


def _parted(data: bytes, signature: re.Match[bytes]) -> bytes:
    """The indentation of a generic call signature with a ``;`` for its last character, or
    as written where the code above goes on into it."""
    end = _code_end(data, signature.start())
    return signature[0] if data[max(0, end - 2) : end].endswith(_CONTINUED) else signature[1] + b";"


def _code_end(data: bytes, end: int) -> int:
    """Where the code before ``end`` ends, past the blanks and comments between (a member's doc)."""
    while True:
        while end and data[end - 1] in b" \t\r\n":
            end -= 1
        if data.endswith(b"*/", 0, end) and (opening := data.rfind(b"/*", 0, end - 2)) >= 0:
            end = opening
            continue
        line_start = data.rfind(b"\n", 0, end) + 1
        if not data[line_start:end].lstrip().startswith(b"//"):
            return end
        end = line_start
