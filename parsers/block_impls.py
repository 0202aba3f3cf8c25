"""A Rust impl written in a block is its type's wherever the block stands: ``const _: () = {
impl Serialize for Point {…} };`` (serde's derives, pin-project's and rkyv's expansions) and
``fn f() { impl Clone for Point {…} }`` (a hand-written expansion, a test, a build helper)
implement ``Clone`` for ``Point`` as an impl at the file's top level does, and rustdoc
documents their methods as ``Point``'s; they are named as that one's would be (``<Point as
Clone>.clone``), in the module the block's item stands in (not in a trait or an impl whose
method holds the block). An impl of a type or a trait that a block around it declares
(pin-project's ``struct Projection`` and its ``impl``, a test's ``struct NeedsDrop``), also by
a macro's call there (hyper's ``pin_project! { struct FromStream … }``), is local, as the
block's other items are: rustdoc documents no impl of a type or trait it does not document."""

from __future__ import annotations

from recalld.parsers.treesitter import Node, node_text

BLOCK = "block"
MODULE_BODY = "declaration_list"  # a module's body, as an impl's or a trait's is
MODULE = "mod_item"
# What a block may declare that an impl in it is of: a type or a trait of its own.
LOCAL_DECLARATIONS = frozenset({"struct_item", "enum_item", "union_item", "type_item", "trait_item"})
# The words that declare one in the tokens of a macro's call (``pin_project! { struct S … }``).
DECLARING_WORDS = frozenset({"struct", "enum", "union", "type", "trait"})
MACRO_CALL, TOKENS = "macro_invocation", "token_tree"
NAMED_BY = ("type", "trait")  # an impl's fields that name what it is of
ARGUMENTS = "type_arguments"  # a trait's (``From<Local>``)
TYPE_NAME = "type_identifier"


def lifted_place(impl: Node, data: bytes) -> Node | None:
    """Where an impl that a block holds is read as if it were written: the place (a file's
    top level, a module's body) of the module the outermost block's item stands in, or None
    where no block holds it or a block around it declares its type or trait."""
    blocks: list[Node] = []
    node = impl.parent
    while node is not None:
        if node.type == BLOCK:
            blocks.append(node)
        node = node.parent
    if not blocks:
        return None
    declared = {name for block in blocks for item in block.named_children for name in _declared(item, data)}
    if any(name in declared for name in _impl_names(impl, data)):
        return None
    place = blocks[-1].parent
    while place is not None and place.parent is not None and not _module_body(place):
        place = place.parent
    return place


def _module_body(node: Node) -> bool:
    return node.type == MODULE_BODY and node.parent is not None and node.parent.type == MODULE


def _declared(item: Node, data: bytes) -> list[str]:
    """The names of the types and traits a block's ``item`` declares: its own, or those a
    macro's call declares in its tokens (``struct`` and the name after it)."""
    if item.type in LOCAL_DECLARATIONS:
        name = item.child_by_field_name("name")
        return [node_text(data, name)] if name is not None else []
    if item.type == "expression_statement" and item.named_child_count == 1:
        item = item.named_children[0]
    if item.type != MACRO_CALL:
        return []
    names: list[str] = []
    stack = [child for child in item.children if child.type == TOKENS]
    while stack:
        tokens = stack.pop().children
        stack.extend(token for token in tokens if token.type == TOKENS)
        names.extend(
            node_text(data, name) for word, name in zip(tokens, tokens[1:])
            if word.type in DECLARING_WORDS and name.type == "identifier"
        )  # fmt: skip
    return names


def _impl_names(impl: Node, data: bytes) -> list[str | None]:
    """The types and traits an impl is of, as rustdoc reads them to keep it: its type's and its
    trait's names and each of the trait's type arguments' (``Local`` of ``impl From<&Local> for
    u64``, ``Vec`` of ``From<Vec<Local>>``)."""
    trait = impl.child_by_field_name("trait")
    arguments = trait.child_by_field_name(ARGUMENTS) if trait is not None else None
    written = [impl.child_by_field_name(field) for field in NAMED_BY]
    return [_type_name(node, data) for node in written + (arguments.named_children if arguments else [])]


def _type_name(written: Node | None, data: bytes) -> str | None:
    """The name of the type or trait ``written`` names: ``Point`` of ``&'a mut Point<T>``,
    of ``crate::geo::Point``."""
    stack = [written] if written is not None else []
    while stack:
        node = stack.pop()
        if node.type == TYPE_NAME:
            return node_text(data, node)
        stack.extend(reversed(node.named_children))
    return None
