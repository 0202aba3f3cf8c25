"""Items a Rust macro's call wraps: what ``cfg_rt! { pub struct Runtime {…} impl Runtime
{…} }`` (tokio), ``pin_project! { pub struct Sleep {…} }`` or syn's ``ast_struct! {…}``
define, which the grammar leaves as a token tree it never parses.

A macro called where an item stands (a file's or a module's top level, an ``impl`` or a
trait's body), with braces, whose body reads as items without a syntax error and
defines one at least, has its call blanked: its name, ``!`` and braces become spaces, the
same length, so that every item keeps its offsets and the symbols read their text from
the source as written. A body that is no items (``lazy_static! { static ref X: … }``,
``bitflags!``'s ``struct Flags: u32``, a DSL) is left as it is. Macros inside such a body
are unwrapped in turn (``cfg_rt! { cfg_net! {…} }``).
"""

from __future__ import annotations

from recalld.parsers.registry import LanguageSpec
from recalld.parsers.treesitter import Node, Tree, count_errors, parse_tree

# Where an item stands: a file's top level, a module's, an impl's or a trait's body.
_ITEM_PLACES = frozenset({"source_file", "declaration_list"})
# What a body must define to be taken for items (a use or a const alone is no symbol).
_DEFINING = frozenset({
    "function_item", "function_signature_item", "struct_item", "enum_item", "union_item", "impl_item",
    "trait_item", "mod_item", "type_item", "associated_type", "macro_invocation",
})  # fmt: skip
MAX_DEPTH = 4  # macros unwrapped inside macros unwrapped


def unwrapped(spec: LanguageSpec, data: bytes) -> tuple[bytes, Tree | None]:
    """``data`` with every item-level macro call that wraps items blanked around them, and
    its tree where this parsed it (the caller need not parse it again)."""
    if b"!" not in data:
        return data, None
    left: set[int] = set()  # calls whose body is no items, by offset: asked once, not again a round
    for _ in range(MAX_DEPTH):
        tree = parse_tree(spec, data)
        spans = []
        for call in _item_calls(tree.root_node):
            if call.start_byte not in left:
                if (span := _wrapper(spec, data, call)) is None:
                    left.add(call.start_byte)
                else:
                    spans.append(span)
        if not spans:
            return data, tree
        data = _blanked(data, spans)
    return data, None


def _item_calls(root: Node) -> list[Node]:
    """Macro calls with braces where an item stands, outermost only."""
    found: list[Node] = []
    stack = [root]
    while stack:
        node = stack.pop()
        for child in node.named_children:
            if child.type == "macro_invocation" and node.type in _ITEM_PLACES:
                found.append(child)
            elif child.type in ("mod_item", "impl_item", "trait_item", "declaration_list"):
                stack.append(child)
    return found


def _wrapper(spec: LanguageSpec, data: bytes, call: Node) -> list[tuple[int, int]] | None:
    """The spans to blank around a call's body (from its name to its ``{``, its ``}``),
    or None where its body is no items that define something."""
    body = call.children[-1] if call.children else None
    if body is None or body.type != "token_tree" or body.has_error:
        return None
    if data[body.start_byte : body.start_byte + 1] != b"{" or data[body.end_byte - 1 : body.end_byte] != b"}":
        return None  # parentheses or brackets (arguments, not items), or a brace left open
    inner = data[body.start_byte + 1 : body.end_byte - 1]
    fragment = parse_tree(spec, inner).root_node
    if count_errors(fragment) or not any(c.type in _DEFINING for c in fragment.named_children):
        return None
    return [(call.start_byte, body.start_byte + 1), (body.end_byte - 1, body.end_byte)]


def _blanked(data: bytes, spans: list[list[tuple[int, int]]]) -> bytes:
    """``data`` with the bytes of ``spans`` spaces, but their line breaks (lines kept)."""
    out = bytearray(data)
    for pair in spans:
        for start, end in pair:
            out[start:end] = bytes(b if b in b"\r\n" else 32 for b in data[start:end])
    return bytes(out)
