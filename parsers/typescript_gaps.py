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
- A member named ``in`` or ``instanceof`` after a member with no semicolon (effect's
  ``OpenAPIApiKeySecurityScheme``: ``name: string`` then ``in: "query" | "header"``), which
  the grammar reads as the operator going on from the member above: parted from it as a
  generic call signature is.
- Type arguments given to a tagged template (effect's SQL: ``sql<{ count: number }>`SELECT
  …```), which the grammar reads only where they are a name or a union of names: read as
  blanks. effect's ``KeyValueStore.ts``, ``PersistedQueue.ts`` and ``Migrator.ts`` wrote them.
- A variable named ``as`` declared by ``let`` (effect's ``PubSub.ts``, Tiptap's ``let as =
  'span'``), which the grammar reads as ``let`` asserted to a type, and a function type's
  parameter named as a predefined type (mobx's ``injectMobx: (any) => void``): the name's
  last letter read as a ``$``.
- TypeScript 5.0's ``export type * from "./serializer"`` (TanStack Router's ``index.tsx``),
  which the grammar knows only without ``type``: read as blanks.

Definitions read their text from the source as written: only the tree sees this.
"""

from __future__ import annotations

import re

from recalld.parsers.c_tokens import blank_second

# an indented line opening with type parameters and then parameters: ``  <T>(fn: T): T``, or
# with ``<`` alone, its type parameters on lines of their own (as prettier breaks a long list)
_GENERIC_SIGNATURE = re.compile(rb"(?m)^([ \t]*)[ \t](?=<[A-Za-z_$][^\n]*?>\s*\(|<[ \t]*\n)")
# in TSX, where ``<div ref={…}>(`` and ``<Foo>(text)`` open JSX, only one whose ``<…>`` reads as
# type parameters (a name alone or with ``extends``, ``,`` or ``=`` after it, and no attribute's
# value) and its ``(…`` as parameters (a name and its type, a pattern, none, or on the next line)
_GENERIC_SIGNATURE_TSX = re.compile(
    rb"(?m)^([ \t]*)[ \t](?=<[A-Za-z_$][\w$]*(?:(?:\s+extends\b|\s*[,=])(?:(?!=[{\"']|/>)[^\n])*?)?>\s*"
    rb"\((?=[ \t]*(?:[\w$]+\??[ \t]*:|\.\.\.|[){\[\n]))|<[ \t]*\n)"
)
# a type parameter's variance (TypeScript 4.7), which the grammar does not know: ``interface
# Effect<out A, in out R>``, on a line of its own too, after a comment (zod's ``/** @ts-ignore */``)
_VARIANCE = re.compile(
    rb"(?<=[<,])((?:\s|/\*(?:[^*]|\*(?!/))*\*/|//[^\n]*\n)*)"  # the blanks and comments before it
    rb"(in\s+out|in|out)(?=\s+[A-Za-z_$][\w$]*\s*(?:[,>=]|extends\b))"  # and a parameter's name after
)
# a re-export of types alone (TypeScript 5.0): ``export type * from``, ``export type * as ns from``
_TYPES_EXPORTED = re.compile(rb"(?m)^([ \t]*export[ \t]+)type(?=[ \t]+\*)")
# a name the grammar reads as a keyword: ``let as =``, a parameter ``(any) => void``
_KEYWORD_NAMES = re.compile(
    rb"\blet[ \t]as(?=[ \t]*[=:,;\n])|\((?:any|string|number|boolean|object|symbol|unknown)(?=\)[ \t]*=>)"
)
# a backtick escaped by an odd number of backslashes (after two, it closes its template)
_ESCAPED_BACKTICK = re.compile(rb"(?<!\\)((?:\\\\)*)\\`")
# an indented line opening with a member named ``in`` or ``instanceof``: ``  in: "query"``, ``  in(x)``
_OPERATOR_MEMBER = re.compile(rb"(?m)^([ \t]*)[ \t](?=(?:in|instanceof)(?:[?!]?[ \t]*[:=]|\??[(<]))")
# how code ends that an expression or a type on the next line goes on from
_CONTINUED = (b",", b"(", b"=", b"?", b":", b"|", b"&", b"<", b"=>")
# and how a member ends that needs no ``;`` more (``;;`` is an error), nor does the first of an
# object literal, where a ``;`` is one (``{ in: 1 }``; an object type's first signature takes it)
_ENDED = (*_CONTINUED, b";")
_OPENED = (*_ENDED, b"{")
# the end of a tagged template's type arguments: ``sql<Row>`…```; and how far back they may open
_TAG_ARGUMENTS_END = re.compile(rb">(?=`)")
_TAG_ARGUMENTS_SPAN = 2000


def readable(data: bytes) -> bytes:
    """``data`` as TypeScript's grammar reads it, the same length and lines."""
    return _read(data, _GENERIC_SIGNATURE)


def readable_tsx(data: bytes) -> bytes:
    """``data`` as TSX's grammar reads it: as TypeScript's, but for what reads as JSX."""
    return _read(data, _GENERIC_SIGNATURE_TSX)


def _read(data: bytes, signature: re.Pattern[bytes]) -> bytes:
    """``data`` with each gap read as its grammar reads it, a generic call signature as ``signature`` finds."""
    if b"\\`" in data:
        data = _ESCAPED_BACKTICK.sub(rb"\1  ", data)
    if b"type *" in data:
        data = _TYPES_EXPORTED.sub(rb"\1    ", data)
    data = _KEYWORD_NAMES.sub(_dollared, data)
    if b"in" in data:
        data = _OPERATOR_MEMBER.sub(lambda match: _parted(data, match, _OPENED), data)
    if b"<" not in data:
        return data
    if b">`" in data:
        data = _untyped_tags(data)
    data = _VARIANCE.sub(blank_second, data)  # a type parameter's variance as blanks, its line breaks kept
    return signature.sub(lambda match: _parted(data, match, _ENDED), data)


def _dollared(name: re.Match[bytes]) -> bytes:
    """A name (after ``let `` or ``(``) with its last letter read as a ``$``."""
    return name[0][:-1] + b"$"




def _parted(data: bytes, signature: re.Match[bytes], continued: tuple[bytes, ...]) -> bytes:
    """The indentation of a generic call signature (or a member named ``in``) with a ``;``
    for its last character, or as written where the code above goes on into it (or ends
    as ``continued`` says)."""
    end = _code_end(data, signature.start())
    return signature[0] if data[max(0, end - 2) : end].endswith(continued) else signature[1] + b";"


def _untyped_tags(data: bytes) -> bytes:
    """``data`` with the type arguments of each tagged template read as blanks: from a
    ``>`` before a backtick back to its ``<`` (past the ``>`` of ``=>``), right after the tag."""
    read = bytearray(data)
    for end in _TAG_ARGUMENTS_END.finditer(data):
        opening = _opening(data, end.start())
        if opening is not None and re.match(rb"[\w$]", data[opening - 1 : opening]):
            read[opening : end.end()] = re.sub(rb"[^\n]", b" ", data[opening : end.end()])
    return bytes(read)


def _opening(data: bytes, closing: int) -> int | None:
    """Where the ``<`` is that the ``>`` at ``closing`` closes (none: an arrow's, or too far)."""
    depth = 0
    for at in range(closing, max(0, closing - _TAG_ARGUMENTS_SPAN) - 1, -1):
        if data[at] == ord(">"):
            if data[at - 1 : at] == b"=":  # ``=>``
                if at == closing:
                    return None
                continue
            depth += 1
        elif data[at] == ord("<"):
            depth -= 1
            if depth <= 0:
                return at if depth == 0 else None
    return None


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
