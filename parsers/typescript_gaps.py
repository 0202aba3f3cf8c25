"""What TypeScript's grammar (tree-sitter-typescript 0.23) cannot read, given to it the
same length for a second reading of a file it read with syntax errors (``rereading.py``):

- A generic call signature on a line of its own after a member with no semicolon, as
  code formatted without semicolons writes an overloaded function's type (mobx's
  ``IActionFactory``: ``name: string`` then ``<T extends Function>(fn: T): T``). The
  grammar read the rest of the file as one error: mobx's ``action.ts`` lost every
  definition below it, redux-toolkit's ``listenerMiddleware/types.ts`` 15. The last
  character of its indentation is read as a ``;``, which ends the member above (before a
  statement, an empty one).

Definitions read their text from the source as written: only the tree sees this.
"""

from __future__ import annotations

import re

# an indented line opening with type parameters and then parameters: ``  <T>(fn: T): T``
_GENERIC_SIGNATURE = re.compile(rb"(?m)^([ \t]*)[ \t](?=<[A-Za-z_$][^\n]*?>\s*\()")


def readable(data: bytes) -> bytes:
    """``data`` as TypeScript's grammar reads it, the same length and lines."""
    return _GENERIC_SIGNATURE.sub(rb"\1;", data) if b"<" in data else data
