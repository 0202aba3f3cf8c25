"""The nodes a doc is read from: comments, the attributes that stand between a doc and its
definition, and, in a language whose ``//!`` documents what it is in (Rust's), which
comments and doc attributes (``parsers/doc_attributes.py``) among a file's inner attributes
are its doc and which among an item's attributes are the item's."""

from __future__ import annotations

import codecs
import re

from recalld.parsers.doc_attributes import doc_value
from recalld.parsers.treesitter import Node, node_text

# (the fourth Swift's; Perl's POD, ``=head2 run`` … ``=cut``, documents what follows it)
COMMENT_TYPES = frozenset({"comment", "line_comment", "block_comment", "multiline_comment", "pod"})
# Nodes that may stand between a doc comment and the definition it documents.
BETWEEN_DOC_AND_DEF = frozenset({"attribute_item", "decorator", "annotation", "marker_annotation"})
INNER_DOC_MARKERS = ("//!", "/*!")
# What a file's inner doc may stand among (``#![cfg_attr(not(feature = "std"), no_std)]``).
INNER_ATTRIBUTES = frozenset({"inner_attribute_item"})
# An outer doc comment: ``///`` or ``/** … */``, not ``////`` nor ``/***``, which are plain.
_OUTER_DOC = re.compile(r"///(?!/)|/\*\*(?![*/])")
# Nodes that wrap a definition without being one; its doc comment precedes them.
WRAPPERS = frozenset({
    "export_statement", "type_declaration", "decorated_definition", "ambient_declaration",
    "lexical_declaration", "variable_declaration",
    "var_declaration",  # Go's ``var rowsCloseHook = func() func(driver.Rows) {…}``, out of a ``var (…)`` group
    "field_declaration", "declaration",  # C's and C++'s ``struct node {…} *head;``, a class's member struct
    "body_statement",  # Ruby's: a class's first member's doc is the comment its class holds before its body
    "implementation_definition",  # Objective-C's member of an ``@implementation``
    # Ruby's: ``def reset … end unless method_defined?(:reset)``; a method first in ``if … end``
    # (``then``: the comments between the condition and it are its doc)
    "if_modifier", "unless_modifier", "then",
})  # fmt: skip
# Ruby's calls that take a method as their argument, its doc above them (``private def
# initialize_clone``, ``ruby2_keywords def method_missing``, ``memoize def total``): the
# argument list's node and the call's.
DEFINING_CALLS = {"argument_list": "call"}
# What may stand before a definition inside the declaration that holds it (TypeScript's
# decorators of ``@Component(…) export class``: the doc above the export is the class's).
SPECIFIERS = BETWEEN_DOC_AND_DEF | frozenset(
    {"storage_class_specifier", "type_qualifier", "attribute_specifier", "attribute_declaration"}
)


def doc_target(node: Node) -> Node:
    """The node whose leading comments document definition ``node``: itself, or what wraps
    it (``export``, a decorated definition, a C declaration's specifiers, Ruby's ``private
    def``)."""
    target = node
    while (parent := target.parent) is not None and _first_but_specifiers(target):
        if parent.type in WRAPPERS and not _grouped(target):  # not Go's ``type ( … )``: the
            target = parent  # comment above it documents the group, none of its members
        elif (call := parent.parent) is not None and DEFINING_CALLS.get(parent.type) == call.type:
            target = call
        else:
            break
    return target


def _grouped(node: Node) -> bool:
    """Whether ``node`` is one of several in a parenthesised group (Go's ``type ( A uint16;
    B uint32 )``, ``var ( … )``); JavaScript's ``const C = class {}, D = …`` is no group:
    its doc is the first's."""
    parent = node.parent
    if parent is None or not any(not c.is_named and c.type == "(" for c in parent.children):
        return False
    return any(other.type == node.type and other != node for other in parent.named_children)


def _first_but_specifiers(node: Node) -> bool:
    """Whether only specifiers stand before ``node`` in what holds it (C's ``static struct
    used_atom {…} *used_atom;``, ``extern struct notes_tree {…}``: the comment above the
    declaration is the struct's)."""
    sibling = node.prev_named_sibling
    while sibling is not None and sibling.type in SPECIFIERS:
        sibling = sibling.prev_named_sibling
    return sibling is None


def is_inner_doc(text: str) -> bool:
    return text.lstrip().startswith(INNER_DOC_MARKERS)


def inner_doc(first: Node, data: bytes) -> list[Node]:
    """The inner doc comments among the comments and inner attributes a file opens with:
    all of them, as rustdoc joins them, wherever they stand among those: after the file's
    attributes (scopeguard's ``#![doc(html_root_url = …)]`` above ``//! A scope guard will
    run…``), below a plain comment on an attribute (tokio's ``// Currently, rust warns…``
    above ``#![allow(unused_unsafe)]`` above ``//! Time driver.``), on either side of a
    ``#![doc = …]``, and those attributes (clap's ``#![doc = include_str!(…)]`` between
    ``//!`` lines)."""
    found: list[Node] = []
    current: Node | None = first
    while current is not None and (current.type in COMMENT_TYPES or current.type in INNER_ATTRIBUTES):
        if (current.type in COMMENT_TYPES and is_inner_doc(node_text(data, current))) or (
            doc_value(current, data) is not None
        ):
            found.append(current)
        current = current.next_named_sibling
    return found


def outer_doc(node: Node, data: bytes) -> list[Node]:
    """The outer doc comments (``///``, ``/** … */``) and doc attributes (``#[doc = "…"]``)
    among the attributes and comments above ``node``, in their order, as rustdoc joins them
    whatever attributes, plain comments or blank lines stand between: clap's and mio's
    ``#[cfg_attr(feature = "net", doc = "```")]`` lines inside a doc, rustix's ``//
    libstd/os/raw/mod.rs assures me…`` among ``BorrowedFd``'s attributes, a ``// TODO:
    multiples of 4 should inherit this`` above ``/// A vector composed of four words…`` (a
    debt note of its own, no part of the doc), a blank line under a doc. The plain comments
    right above are the doc where there are none."""
    docs: list[Node] = []
    sibling = node.prev_named_sibling
    while sibling is not None and (
        sibling.type in BETWEEN_DOC_AND_DEF or (sibling.type in COMMENT_TYPES and _own_line(sibling))
    ):
        text = node_text(data, sibling)
        if sibling.type in COMMENT_TYPES and is_inner_doc(text):
            break  # what the doc is in documents itself
        if is_outer_doc(sibling, data):
            docs.insert(0, sibling)
        sibling = sibling.prev_named_sibling
    return docs


def is_outer_doc(node: Node, data: bytes) -> bool:
    """Whether ``node`` is an outer doc comment (``///``, ``/** … */``) or a doc attribute."""
    if node.type in COMMENT_TYPES:
        return bool(_OUTER_DOC.match(node_text(data, node)))
    return doc_value(node, data) is not None


def past_outer_attributes(node: Node) -> Node:
    """What the attributes and comments that start at ``node`` stand above, as ``outer_doc``
    reads them up from it: the item whose doc a file's first comment block is, above them (a
    ``///`` doc parted by an attribute, or by a comment among its item's attributes, is no
    file's doc)."""
    current, below = node, node.next_named_sibling
    while below is not None and (
        current.type in BETWEEN_DOC_AND_DEF
        or (current.type in COMMENT_TYPES and below.start_point[0] <= current.end_point[0] + 1)
    ):
        current, below = below, below.next_named_sibling
    return current


def _own_line(comment: Node) -> bool:
    """Whether ``comment`` starts its line, or follows an attribute on it (``#[inline] //
    fast path``): a comment after an item's code (``struct A; // note``) is that item's."""
    before = comment.prev_named_sibling
    return before is None or before.type in BETWEEN_DOC_AND_DEF or _last_row(before) < comment.start_point[0]


def _last_row(node: Node) -> int:
    """The row of the last character of ``node``: a ``///`` line's node holds its newline."""
    return node.end_point[0] - (node.end_point[1] == 0)


def is_trailing(comment: Node, data: bytes) -> bool:
    """A comment after code on the same line documents that line, not what follows. A
    UTF-8 byte order mark before a file's first line is no code."""
    line_start = data.rfind(b"\n", 0, comment.start_byte) + 1
    before = data[line_start : comment.start_byte]
    return bool((before.removeprefix(codecs.BOM_UTF8) if line_start == 0 else before).strip())
