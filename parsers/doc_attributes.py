"""Rust's doc attributes read as a doc's lines, as rustdoc reads them beside ``///`` and
``//!``: ``#[doc = "…"]``, ``#![doc = r"…"]`` (a string's value, its escapes read), and
one whose value is no string, ``#![doc = include_str!("../README.md")]``, as written: a
note of where the doc is. The file it names is not read: a file's symbols are what its
own text says (their content hashes cover nothing else), and the file it names is read
as its own (a README is a document)."""

from __future__ import annotations

import re

from recalld.parsers.treesitter import Node, node_text

# An outer attribute (``#[…]``) and an inner one (``#![…]``), whose ``doc = …`` is a doc.
ATTRIBUTE_ITEMS = frozenset({"attribute_item", "inner_attribute_item"})
DOC = "doc"
STRINGS = frozenset({"string_literal", "raw_string_literal"})
# A string's escapes: ``\n``, ``\x41``, ``\u{e9}``, and a line's end after ``\`` with the
# spaces that start the next line (its continuation).
_ESCAPE = re.compile(r"\\(?:x([0-9a-fA-F]{2})|u\{([0-9a-fA-F_]{1,8})\}|\n[ \t\r\n]*|(.))", re.DOTALL)
# A string literal, raw (``r"…"``, ``r#"…"#``) or not, and what its quotes hold.
_QUOTED = re.compile(r'r?(?P<hashes>#*)"(?P<content>.*)"(?P=hashes)', re.DOTALL)
_SIMPLE_ESCAPES = {"n": "\n", "r": "\r", "t": "\t", "0": "\0", "\\": "\\", "'": "'", '"': '"'}


def doc_value(node: Node, data: bytes) -> Node | None:
    """The value of a doc attribute (``#[doc = "…"]``, ``#![doc = include_str!(…)]``),
    else None: another attribute (``#[derive(…)]``, ``#[doc(hidden)]``,
    ``#![doc(html_root_url = …)]``, ``#[cfg_attr(…, doc = …)]``, which holds only where
    its condition does) or a comment."""
    if node.type not in ATTRIBUTE_ITEMS or not node.named_child_count:
        return None
    attribute = node.named_children[0]
    path = attribute.named_children[0] if attribute.type == "attribute" and attribute.named_child_count else None
    if path is None or node_text(data, path) != DOC:
        return None
    return attribute.child_by_field_name("value")


def doc_attribute_lines(node: Node, data: bytes) -> list[str] | None:
    """The doc lines of a doc attribute as ``///`` lines of its text would read (each
    without the one space that follows ``///``), or None where ``node`` is none."""
    value = doc_value(node, data)
    if value is None:
        return None
    text = string_value(value, data) if value.type in STRINGS else node_text(data, value)
    return [line[1:].rstrip() if line.startswith(" ") else line.rstrip() for line in text.split("\n")]


def string_value(literal: Node, data: bytes) -> str:
    """A string literal's value: a raw string's text as written, a string's with its
    escapes read. Read from the literal's text: the grammar's ``string_content`` of a raw
    string starts past the spaces that open it (``r#"\n        Determines if…``)."""
    written = _QUOTED.fullmatch(node_text(data, literal))
    if written is None:
        return ""
    content = written.group("content")
    return content if literal.type == "raw_string_literal" else _ESCAPE.sub(_escaped, content)


def _escaped(escape: re.Match[str]) -> str:
    hexadecimal, unicode, simple = escape.groups()
    if hexadecimal is not None:
        return chr(int(hexadecimal, 16))
    if unicode is not None:
        code = int(unicode.replace("_", ""), 16)
        return chr(code) if code <= 0x10FFFF else escape.group()
    if simple is not None:
        return _SIMPLE_ESCAPES.get(simple, escape.group())
    return ""  # a line's end after ``\``: the string goes on after the next line's spaces
