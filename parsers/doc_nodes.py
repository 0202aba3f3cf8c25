"""The nodes a doc is read from: comments, the attributes that stand between a doc and its
definition, and, in a language whose ``//!`` documents what it is in (Rust's), which
comments among a file's inner attributes are its doc."""

from __future__ import annotations

from recalld.parsers.treesitter import Node, node_text

# (the fourth Swift's; Perl's POD, ``=head2 run`` … ``=cut``, documents what follows it)
COMMENT_TYPES = frozenset({"comment", "line_comment", "block_comment", "multiline_comment", "pod"})
# Nodes that may stand between a doc comment and the definition it documents.
BETWEEN_DOC_AND_DEF = frozenset({"attribute_item", "decorator", "annotation", "marker_annotation"})
INNER_DOC_MARKERS = ("//!", "/*!")
# What a file's inner doc may stand among (``#![cfg_attr(not(feature = "std"), no_std)]``).
INNER_ATTRIBUTES = frozenset({"inner_attribute_item"})


def is_inner_doc(text: str) -> bool:
    return text.lstrip().startswith(INNER_DOC_MARKERS)


def inner_doc(first: Node, data: bytes) -> list[Node]:
    """The inner doc comments among the comments and inner attributes a file opens with:
    all of them, as rustdoc joins them, wherever they stand among those: after the file's
    attributes (scopeguard's ``#![doc(html_root_url = …)]`` above ``//! A scope guard will
    run…``), below a plain comment on an attribute (tokio's ``// Currently, rust warns…``
    above ``#![allow(unused_unsafe)]`` above ``//! Time driver.``), on either side of a
    ``#![doc = …]``."""
    found: list[Node] = []
    current: Node | None = first
    while current is not None and (current.type in COMMENT_TYPES or current.type in INNER_ATTRIBUTES):
        if current.type in COMMENT_TYPES and is_inner_doc(node_text(data, current)):
            found.append(current)
        current = current.next_named_sibling
    return found


def past_outer_attributes(node: Node) -> Node:
    """What the attributes and comments that start at ``node`` stand above: the item whose
    doc a file's first comment block is, above them (a ``///`` doc parted by an attribute,
    or by a comment among its item's attributes, is no file's doc)."""
    current, below = node, node.next_named_sibling
    while below is not None and (
        current.type in BETWEEN_DOC_AND_DEF
        or (current.type in COMMENT_TYPES and below.start_point[0] <= current.end_point[0] + 1)
    ):
        current, below = below, below.next_named_sibling
    return current

