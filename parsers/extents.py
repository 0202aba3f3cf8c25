"""Where a definition's text begins and ends: at its first decorator or attribute written
beside it, and at its last code token or the comments after that on its line. Its lines,
source and content hash are this text (``extract._symbol``)."""

from __future__ import annotations

import dataclasses

from recalld.parsers.docstrings import BETWEEN_DOC_AND_DEF, COMMENT_TYPES
from recalld.parsers.treesitter import Node


@dataclasses.dataclass(frozen=True, slots=True)
class Extent:
    """The text of a definition (lines from 1): from its first decorator or attribute to its
    last code token, or to the comments after that on its line."""

    start_byte: int
    start_line: int
    end_byte: int
    end_line: int


def definition_extent(node: Node, data: bytes) -> Extent:
    """A definition's text holds the decorators and attributes written before it as its
    siblings (TypeScript's ``@Component(…) export class``, a class member's
    ``@HostListener(…)``, Rust's ``#[derive(…)]``), as Python's decorated definition
    holds its own, and the comments that end its last line (``return x  # note``): a
    change of either is the definition's."""
    first = _first_attribute(node)
    last = _last_code_node(node)
    end_byte, end_row = last.end_byte, last.end_point[0]
    line_end = data.find(b"\n", end_byte)
    if data[end_byte : len(data) if line_end < 0 else line_end].strip():  # most lines end with their code
        end_byte = _end_of_line_comments(last, data)
    return Extent(first.start_byte, first.start_point[0] + 1, end_byte, end_row + 1)


def _end_of_line_comments(last: Node, data: bytes) -> int:
    """Where the comments after ``last`` on its line end (its own end where none does)."""
    end_byte, end_row = last.end_byte, last.end_point[0]
    following = _next_token(last)
    while following is not None and following.type in COMMENT_TYPES and following.start_point[0] == end_row:
        text = data[following.start_byte : following.end_byte].rstrip(b"\n")
        if b"\n" in text:
            break  # a block comment on to the lines below may be the doc of what follows
        end_byte = following.start_byte + len(text)  # Rust's ``/// …`` holds its line's end
        following = _next_token(following)
    return end_byte


def _first_attribute(node: Node) -> Node:
    """The first of the decorators and attributes right before ``node`` among its siblings
    (comments may stand between them: Rust's ``#[cfg(test)]`` above a ``///`` doc), else
    ``node``. An attribute belongs to the item after it, whatever stands between."""
    first, sibling = node, node.prev_named_sibling
    while sibling is not None and (sibling.type in BETWEEN_DOC_AND_DEF or sibling.type in COMMENT_TYPES):
        if sibling.type in BETWEEN_DOC_AND_DEF:
            first = sibling
        sibling = sibling.prev_named_sibling
    return first


def _next_token(node: Node) -> Node | None:
    """The first token after ``node`` that holds text (a comment whole), or None at the
    end of the file. A comment after a definition's last token may lie in its body (Python
    puts ``return x  # note``'s in the block) or after it."""
    current = node
    while True:
        while current.next_sibling is None:
            if current.parent is None:
                return None
            current = current.parent
        current = current.next_sibling
        while current.type not in COMMENT_TYPES and current.child_count and (first := current.child(0)) is not None:
            current = first
        if current.end_byte > current.start_byte:
            return current


def _last_code_node(node: Node) -> Node:
    """The last token that is not a comment: a definition ends with its code, not with
    comments that trail its body on lines of their own (which belong to what follows).
    Children are looked at from the last one back: ``children`` made a node object of
    every child on the way down (each statement of a class's or a function's body) to use
    the last."""
    current = node
    while True:
        index = current.child_count - 1
        while index >= 0:
            child = current.child(index)
            if child is not None and child.type not in COMMENT_TYPES:
                break
            index -= 1
        else:
            return current
        current = child
