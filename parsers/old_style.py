"""C's old-style (K&R) definitions that return a pointer, given to a grammar that misreads
them the same length, byte for byte: C's ``rewrite``, a second reading of a file that holds
one, kept where it has no more syntax errors (``rereading.py``; the symbols read the source
as written). C++'s grammar, which reads a C file where it has fewer errors still (a file of
``#if`` groups that each open a block), is given the file as written.

C's grammar reads a definition whose parameters are named in its brackets and declared
after them (``int add(a, b) int a; int b; {…}``), but not one whose declarator is a
pointer's (``char *dup(s) const char *s; {…}``): that one it reads as a declaration that
ends at the first parameter's ``;`` and a stray block, so the function lost its body and
a second one, ``dup#2``, stood where its prototype did. The pointer's ``*`` is blanked
there, where the declarator is a name, an identifier list and the declarations of those
identifiers before a ``{``, which no other C or C++ code writes.

less 590, unzip 6.0, bash 5.2, gawk 5.2 and zlib 1.2.13 hold 179 such definitions; the
grammar read 6 of them whole, and reads 163 now (13 of the rest are in less's ``filename.c``,
which C++'s grammar reads best). Of 21,074 function bodies that open a line in those and in
git 2.39 and curl 7.88, 1,469 were not found, 596 are not (bash's ``variables.c``: 142 of
241, now 8).
"""

from __future__ import annotations

import re

from recalld.parsers.c_tokens import BLOCK_COMMENT, blank_group

_NAME = rb"[A-Za-z_]\w*"
# Between the tokens: spaces, line breaks and comments.
_GAP = rb"(?:\s++|" + BLOCK_COMMENT + rb"|//[^\n]*+)*+"
# A parameter's declaration: a type's words and declarators, with brackets for a function
# pointer's (``void (*init)(void);``) or an array's size written with a macro's call.
_DECLARATION = rb"[A-Za-z_][^;{}()/]*+(?:\([^;{}()]*+\)[^;{}()/]*+)*+;"
# The stars of a pointer's declarator (not a comment's), then the name, its identifier list
# and their declarations, up to the body's ``{``. The pattern opens with its ``*``, and looks
# behind it after: 7 times quicker than before it (the search skips to each ``*`` at once).
_POINTER_DEFINITION = re.compile(
    rb"(\*(?<![/*]\*)(?:[ \t]*\*)*+)[ \t]*+\n?[ \t]*+" + _NAME + rb"[ \t]*+\(\s*+" + _NAME
    + rb"(?:\s*+,\s*+" + _NAME + rb")*+\s*+\)" + _GAP + rb"(?:" + _DECLARATION + _GAP + rb")++\{"
)  # fmt: skip


def misreads(data: bytes) -> bool:
    """Whether ``data`` holds such a definition: C's grammar may read one without an error
    (``char *strerror(n) int n;``, a declaration with two attributes, then a block)."""
    return b"*" in data and _POINTER_DEFINITION.search(data) is not None


def readable(data: bytes) -> bytes:
    """``data`` with the ``*`` of each old-style definition that returns a pointer blanked."""
    if b"*" not in data:
        return data
    return _POINTER_DEFINITION.sub(blank_group, data)
