"""A Rust impl written in a const's block is its type's wherever the block stands: ``const _:
() = { impl Serialize for Point {…} };`` (serde's derives, pin-project's and rkyv's
expansions) implements ``Serialize`` for ``Point`` as an impl at the file's top level does,
and rustdoc documents it so; its methods are named as that one's would be (``<Point as
Serialize>.serialize``). An impl of a type or a trait that the block declares (pin-project's
``struct Projection`` and its ``impl``) is local, as the block's other items are, and so is
one in a function's body: rustc warns of a non-local one there (``non_local_definitions``),
and the types those impls are of are the function's own, often declared by a macro's call
that is not read there (hyper's ``pin_project! { struct FromStream … }``)."""

from __future__ import annotations

from recalld.parsers.treesitter import Node, node_text

BLOCK = "block"
HOLDERS = frozenset({"const_item", "static_item"})  # whose value a block that lifts its impls is
# Where an item stands: a file's top level, a module's body (and an impl's or a trait's).
ITEM_PLACES = frozenset({"source_file", "declaration_list"})
# What a block may declare that an impl in it is of: a type or a trait of its own.
LOCAL_DECLARATIONS = frozenset({"struct_item", "enum_item", "union_item", "type_item", "trait_item"})
NAMED_BY = ("type", "trait")  # an impl's fields that name what it is of
TYPE_NAME = "type_identifier"


def lifted_place(impl: Node, data: bytes) -> Node | None:
    """Where an impl that a const's block holds is read as if it were written: the place (a
    file's top level, a module's body) of the const, or None where no such block holds it,
    another block stands around it (a function's body) or a block declares its type or trait."""
    blocks: list[Node] = []
    node = impl.parent
    while node is not None:
        if node.type == BLOCK:
            blocks.append(node)
        node = node.parent
    if not blocks or any(block.parent is None or block.parent.type not in HOLDERS for block in blocks):
        return None
    declared = {
        node_text(data, name)
        for block in blocks for item in block.named_children
        if item.type in LOCAL_DECLARATIONS and (name := item.child_by_field_name("name")) is not None
    }  # fmt: skip
    if any(_type_name(impl.child_by_field_name(field), data) in declared for field in NAMED_BY):
        return None
    item = blocks[-1]
    while item.parent is not None and item.parent.type not in ITEM_PLACES:
        item = item.parent
    return item.parent


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
