"""A definition's signature: its text up to its body, without its comments, on one line,
and no longer than ``MAX_SIGNATURE`` characters.

What a definition without a body of its own says is its signature whole (a TypeScript
type alias, an overload's declaration, an interface's method), up to the block of a type
that has one (Go's ``type Point struct {…}``, Rust's ``macro_rules! m {…}``). A signature
too long to keep whole keeps its start and the end of its parameters (a return type, a
``throws`` clause) and says where it was cut (``…``).
"""

from __future__ import annotations

import re

from recalld.parsers.definitions import declaring_statement, find_body
from recalld.parsers.docstrings import COMMENT_TYPES
from recalld.parsers.treesitter import Node, node_text, unwrapped

MAX_SIGNATURE = 300
ELIDED = "…"
_SPACES = re.compile(r"\s+")
# A line break after an opening bracket or before a closing one, and a comma left before
# that, are how a long signature is wrapped (black's and rustfmt's ``def f(\n    a,\n)``),
# not what it says: read as if it were written on one line (``def f(a)``).
_WRAPPED_OPEN = re.compile(r"([(\[<])[ \t\r\f\v]*\n\s*")
_WRAPPED_CLOSE = re.compile(r",?\s*\n[ \t\r\f\v]*([)\]>])")
# How a comment opens in every grammar recalld reads (``#``, ``//``, ``/*``, Lua's ``--``):
# code without one holds none, and its tree is not walked for them.
_COMMENT_OPENER = re.compile(rb"#|//|/\*|--")
# A union or an intersection written one member a line opens with its operator (prettier's
# ``type T =\n  | A\n  | B``): on one line, ``type T = A | B``.
_LEADING_OPERATOR = re.compile(r"([=:,] |[(<\[])[|&] ")
# A TypeScript object type whose members are written one a line, without ``;`` or ``,``
# (``{\n  <A>(f: F): R\n  <A>(self: S, f: F): R\n}``), reads with ``;`` between them:
# on one line its members would run into each other.
_MEMBER_LISTS = frozenset({"object_type"})
_SEPARATORS = frozenset({";", ","})
# The object of members a call makes a class of (``var TodoView = Backbone.View.extend({…})``):
# its signature ends before it.
MEMBER_OBJECTS = frozenset({"object"})
_OPENERS, _CLOSERS = "([{<", ")]}>"
PROPERTIES = frozenset({"property_declaration", "indexer_declaration"})
RUBY_METHODS = frozenset({"method", "singleton_method"})
RUBY_BODIED = RUBY_METHODS | {"class", "module"}
# Definitions a bare ``end`` closes where their body is empty (Ruby's, Lua's functions).
ENDED = RUBY_BODIED | {"function_declaration", "function_definition"}
LUA_ASSIGNMENTS = frozenset({"assignment_statement", "field"})  # a name's, a table's field's
RUST_MACRO = "macro_definition"  # ``macro_rules! name``
# Objective-C's types, whose members follow their heads with no body around them, and what
# their heads hold: attributes, names, type parameters, a superclass, a category, protocols.
OBJC_TYPES = frozenset({"class_interface", "class_implementation", "protocol_declaration"})
OBJC_HEAD = frozenset({
    "attribute_specifier", "identifier", "parameterized_arguments", "protocol_reference_list", ")",
})  # fmt: skip
# The tokens a body follows where no bracket opens it (Python's ``:``, an expression body's
# ``=>`` or ``=``): a syntax error right after one is the body's, which the grammar's error
# recovery set beside it (``def f(a, b):`` of ``def f(a, b):\n    return (a +``).
BODY_OPENERS = frozenset({":", "=>", "="})
_MACRO_CLOSING = re.compile(rb"[ \t]*\)(?=[ \t]*(?://[^\n]*)?(?:\r?\n|$))")
# C's and C++'s nodes whose head ends elsewhere than at a body.
MACRO, C_FUNCTION, INITIALISERS, TYPEDEF = (
    "preproc_function_def", "function_definition", "field_initializer_list", "type_definition"
)  # fmt: skip


def signature(node: Node, data: bytes, wrapped: Node | None = None) -> str:
    """``node``'s text up to its body (``wrapped``'s, a function a call makes it of), as
    it would be written if it were short, prefixed with its statement's keyword (``var``,
    ``const``, Go's ``type``)."""
    head = unwrapped(node)
    if wrapped is not None and wrapped.type in MEMBER_OBJECTS:
        text = _one_line(head, data, wrapped.start_byte).removesuffix("(").rstrip()
    elif head.type == MACRO and (parameters := head.child_by_field_name("parameters")) is not None:
        # ``#define MAX(a, b)``: up to its parameters' end, not to its value's start, before
        # which a comment the reading blanked still stands in ``data`` (``macros.py``)
        text = _one_line(head, data, parameters.end_byte)
    elif (cut := _head_end(head)) is not None:
        text = _one_line(head, data, cut.start_byte)
    elif head.type in OBJC_TYPES and head.child_by_field_name("body") is None:  # not Swift's protocol
        # ``@interface Shape : NSObject <NSCopying>``, then its members
        last = next((c for c in reversed(head.children) if c.type in OBJC_HEAD), None)
        end = last.end_byte if last is not None else head.end_byte
        # with the ``)`` of the macro that wrote it (``@interface RCT_EXTERN_MODULE(Calendar, NSObject)``)
        closing = _MACRO_CLOSING.match(data, end)
        text = _one_line(head, data, closing.end() if closing is not None else end)
    elif head.type == TYPEDEF and (body := find_body(head)) is not None:  # ``typedef struct {…} point``
        after = data[body.end_byte : head.end_byte].decode("utf-8", "replace")
        text = _SPACES.sub(" ", f"{_one_line(head, data, body.start_byte)} {{{ELIDED}}} {after}").strip()
    elif (body := find_body(wrapped or head)) is not None and body.start_byte > head.start_byte:
        holder = body.parent or head
        text = _one_line(head, data, _before_broken_body(holder, body.start_byte))
    else:
        text = _before_block(_one_line(head, data, _before_broken_body(head, head.end_byte)))
    if (statement := declaring_statement(head)) is not None and not (keyword := statement.children[0]).is_named:
        text = f"{node_text(data, keyword)} {text}"
    arrow = text.endswith("=>")
    for ending in (":", ";", "=>", "=", ","):  # "," of a where clause written one bound a line
        text = text.removesuffix(ending).rstrip()
    if wrapped is not None:  # a test a call defines: ``test('adds', async () => {…})``, not ``test('adds', async ()``
        text = _call_closed(text, arrow)
    return shortened(text)


def _call_closed(text: str, arrow: bool) -> str:
    """A head cut at the body of a function a call or a bracket holds (a test's callback,
    ``(function () {…})()``), closed as it is written: the body elided, then each bracket
    still open."""
    opened: list[str] = []  # the closers; a brace's spaced as it opens (``model: { get() {…} }``)
    for i, char in enumerate(text):
        step = _bracket(text, i)
        if step > 0:
            spaced = char == "{" and text[i + 1 : i + 2] == " "
            opened.append(" " * spaced + _CLOSERS[_OPENERS.index(char)])
        elif step < 0 and opened:
            opened.pop()
    if not opened:
        return text
    closers = "".join(reversed(opened))
    return f"{text}{' =>' if arrow else ''} {{{ELIDED}}}{closers}"


def _head_end(head: Node) -> Node | None:
    """Where a definition's head ends before its body, where that is no ``body``: at a C
    macro's replacement (``#define MAX(a, b)``), at a C++ constructor's member initialisers
    (``Widget::Widget(int x)`` of ``Widget::Widget(int x) : x_(x) {…}``), at a C#
    property's accessors or value."""
    if head.type == MACRO:
        return head.child_by_field_name("value")
    if head.type in PROPERTIES:  # C#'s ``public int Count { get; }``, ``public int Count => n``
        found = head.child_by_field_name("accessors") or head.child_by_field_name("value")
        if found is not None:
            return found
    if head.type in LUA_ASSIGNMENTS:  # ``M.noop = function() end``, ``{ noop = function() end }``
        values = next((c for c in head.named_children if c.type == "expression_list"), None)
        value = head.child_by_field_name("value") if values is None else values.named_child(0)
        head = value if value is not None and value.type in ENDED else head
    if head.type in ENDED and head.child_by_field_name("body") is None and head.child_count:
        # ``def secret?; end``, ``class Error < StandardError; end``, Lua's ``function M.noop() end``:
        # the head ends at ``end``
        last = head.children[-1]
        if last.type == "end":
            return last
    if head.type == RUST_MACRO and (name := head.child_by_field_name("name")) is not None:
        return name.next_sibling  # its rules, in braces, brackets or parentheses
    function = head if head.type == C_FUNCTION else next((c for c in head.named_children if c.type == C_FUNCTION), None)
    if function is None:
        return None
    return next((c for c in function.named_children if c.type == INITIALISERS), None)


def _before_broken_body(holder: Node, end: int) -> int:
    """``end``, or where the syntax errors that stand right before it in ``holder`` start
    (but comments and a ``;``), where they follow a token that opens a body or open with
    one (C#'s ``int F(int a) => (a + ;``): a broken body's text is no part of its head."""
    if not holder.has_error:
        return end
    before = [c for c in holder.children if c.start_byte < end and c.type not in COMMENT_TYPES and c.type != ";"]
    first = len(before)
    while first and before[first - 1].is_error:
        first -= 1
    if first == len(before):
        return end
    errors, previous = before[first], before[first - 1] if first else None
    after_opener = previous is not None and not previous.is_named and previous.type in BODY_OPENERS
    opens = errors.child_count > 0 and errors.children[0].type in BODY_OPENERS
    return errors.start_byte if after_opener or opens else end


def shortened(text: str, limit: int = MAX_SIGNATURE) -> str:
    """``text`` if it fits in ``limit`` characters. Otherwise its start, as many whole
    parameters of its longest parenthesised list as fit, ``…`` and what follows that list
    (``def get(self, path: str, …) -> Callable[[F], F]``, Java's ``…) throws IOException``);
    without such a list, or with more after it than a third of ``limit``, its start up to
    a space and ``…``."""
    if len(text) <= limit:
        return text
    opened, closed, commas = _longest_list(text)
    if opened is not None and closed is not None:  # a generic's type parameters, a long return type's
        # arguments: elided before any parameter is (react-query's hooks kept ``<TQueryFnData, TError
        # = DefaultError, …>`` and no parameter: ``(…)``)
        elided = _angles_elided(text[:opened]) + text[opened:closed] + _angles_elided(text[closed:])
        if len(elided) < len(text):
            return elided if len(elided) <= limit else shortened(elided, limit)
    tail = text[closed:] if closed is not None else ""
    if opened is not None and tail and len(tail) <= limit // 3:
        budget = limit - len(tail) - len(ELIDED) - 2
        kept = [c for c in commas if c <= budget]
        if kept:
            return f"{text[: kept[-1]]}, {ELIDED}{tail}"
        if opened + 1 <= budget:
            return f"{text[: opened + 1]}{ELIDED}{tail}"
    head = text[: limit - len(ELIDED) - 1]
    space = head.rfind(" ")
    return f"{(head[:space] if space > 0 else head).rstrip(' ,')} {ELIDED}"


def _angles_elided(text: str) -> str:
    """``text`` with what each ``<…>`` at its top level holds elided, where that is longer
    than the elision (``useQuery<TData, TError = DefaultError>`` → ``useQuery<…>``)."""
    parts: list[str] = []
    depth, opened, last = 0, 0, 0
    for i in range(len(text)):
        step = _bracket(text, i)
        if step > 0:
            if depth == 0:
                opened = i
            depth += 1
        elif step < 0 and depth > 0:
            depth -= 1
            if depth == 0 and text[opened] == "<" and text[i] == ">" and i - opened - 1 > len(ELIDED):
                parts.append(f"{text[last : opened + 1]}{ELIDED}")
                last = i
    return "".join(parts) + text[last:]


def _longest_list(text: str) -> tuple[int | None, int | None, list[int]]:
    """Where the longest bracketed list at the top level of ``text`` opens with ``(`` and
    closes, and where the commas between its items are (none inside brackets of their
    own: ``Annotated[str, Doc(…)]`` and ``Map<K, V>`` are one item each)."""
    best: tuple[int | None, int | None, list[int]] = (None, None, [])
    longest, depth, opened = -1, 0, 0
    commas: list[int] = []
    for i, char in enumerate(text):
        step = _bracket(text, i)
        if step > 0:
            if depth == 0:
                opened, commas = i, []
            depth += 1
        elif step < 0 and depth > 0:
            depth -= 1
            if depth == 0 and text[opened] == "(" and i - opened > longest:
                best, longest = (opened, i, commas), i - opened
        elif char == "," and depth == 1:
            commas.append(i)
    return best


def _before_block(text: str) -> str:
    """A definition without a body, up to the block its type opens (``type Point struct``
    of ``type Point struct {…}``, ``macro_rules! m`` of its rules): a ``{`` at the top level
    after a word, with no ``=`` before it. A ``{`` after an ``=``, a ``:`` or inside brackets
    is what the definition says (``type P = { x: number }``, ``f(o: { x: number }): void``)."""
    depth = 0
    for i, char in enumerate(text):
        if depth == 0 and char == "=":
            return text
        if depth == 0 and char == "{":
            before = text[:i].rstrip()
            return before if before and (before[-1].isalnum() or before[-1] in "_!") else text
        depth = max(0, depth + _bracket(text, i))
    return text


def _bracket(text: str, i: int) -> int:
    """1 where a bracket opens at ``text[i]``, -1 where one closes, else 0. The ``>`` of an
    arrow (``=>``, ``->``) closes none."""
    char = text[i]
    if char in _OPENERS and not (char == "<" and text[i + 1 : i + 2] in ("-", "=")):  # Go's ``<-chan``, ``<=``
        return 1
    if char in _CLOSERS and not (char == ">" and text[i - 1 : i] in ("=", "-")):
        return -1
    return 0


def _one_line(node: Node, data: bytes, end: int) -> str:
    text = _code_text(node, data, end)
    if "\n" in text:
        text = text.replace("\\\n", " ")  # a line continued (``#define PACK(a, b) \``)
        text = _WRAPPED_CLOSE.sub(r"\1", _WRAPPED_OPEN.sub(r"\1", text))
    text = _SPACES.sub(" ", text).strip()
    return _LEADING_OPERATOR.sub(r"\1", text)


def _code_text(node: Node, data: bytes, end: int) -> str:
    """``node``'s source up to ``end``, each comment in it a line break (a comment in a
    parameter list, ``g(a, // the first``, would otherwise run on over the code after it),
    and a ``;`` after each member of an object type written one a line."""
    walk_comments = _COMMENT_OPENER.search(data, node.start_byte, end) is not None
    walk_members = data.find(b"{", node.start_byte, end) >= 0 and data.find(b"\n", node.start_byte, end) >= 0
    if not (walk_comments or walk_members):
        return data[node.start_byte : end].decode("utf-8", "replace")  # the tree is walked only where it tells
    cuts: list[tuple[int, int, bytes]] = []  # (start, end, what stands there instead)
    stack = [node]
    while stack:
        current = stack.pop()
        if current.start_byte >= end:
            continue
        if current.type in COMMENT_TYPES:
            cuts.append((current.start_byte, current.end_byte, b"\n"))
            continue
        if walk_members and current.type in _MEMBER_LISTS:
            cuts += _unseparated(current)
        stack.extend(current.children)
    pieces, start = [], node.start_byte
    for cut_start, cut_end, instead in sorted(cuts):
        if cut_start < start:
            continue
        pieces += [data[start:cut_start], instead]
        start = cut_end
    pieces.append(data[start:end])
    return b"".join(pieces).decode("utf-8", "replace")


def _unseparated(members: Node) -> list[tuple[int, int, bytes]]:
    """A ``;`` after each member of ``members`` followed by another with nothing between."""
    out = []
    previous: Node | None = None
    for child in members.children:
        if child.type in COMMENT_TYPES:
            continue
        if child.is_named and previous is not None and previous.is_named:
            out.append((previous.end_byte, previous.end_byte, b";"))
        previous = child if child.is_named or child.type in _SEPARATORS else None
    return out
