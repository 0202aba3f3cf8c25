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
  24,000 lines below it).

Definitions read their text from the source as written: only the tree sees this.
"""

from __future__ import annotations

import re

# an indented line opening with type parameters and then parameters: ``  <T>(fn: T): T``, or
# with ``<`` alone, its type parameters on lines of their own (as prettier breaks a long list)
_GENERIC_SIGNATURE = re.compile(rb"(?m)^([ \t]*)[ \t](?=<[A-Za-z_$][^\n]*?>\s*\(|<[ \t]*\n)")
# how code ends that an expression or a type on the next line goes on from
_CONTINUED = (b",", b"(", b"=", b"?", b":", b"|", b"&", b"<", b"=>")


def readable(data: bytes) -> bytes:
    """``data`` as TypeScript's grammar reads it, the same length and lines."""
    if b"<" not in data:
        return data
    return _GENERIC_SIGNATURE.sub(lambda match: _parted(data, match), data)


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
