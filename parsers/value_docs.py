"""A doc comment a file opens with that documents the value declared below it, not the
file: ``/** Maximum retries. */`` above ``export const MAX_RETRIES = 5``, ``/// The
answer.`` above ``pub const ANSWER: u32 = 42``. A value is no symbol, so its doc belongs to
nobody, not the file (whose memory read "Maximum retries.").

Only a doc comment (``/**``, ``///``) on the line above says whom it documents: a plain
comment right above a declaration still opens the file (a header), and so does a doc block
parted from it by a blank line, or one above an import written as a declaration (``const
fs = require('fs')``) or any other statement: Rust's ``///`` above the file's ``use``
lines, which documents nothing there, reads as the file's description, as its writer meant.
"""

from __future__ import annotations

import re

from recalld.parsers.treesitter import Node, node_text

# Declarations of values: JavaScript's and TypeScript's, Rust's, PHP's, Kotlin's and Swift's.
VALUE_DECLARATIONS = frozenset({
    "lexical_declaration", "variable_declaration", "const_item", "static_item", "const_declaration",
    "property_declaration",
})  # fmt: skip
# JSDoc's tags of a block that describes its file (or is its licence), wherever it stands.
FILE_TAGS = re.compile(r"@(?:file|fileoverview|overview|module|packageDocumentation|license|preserve)\b")
_OUTER_DOC = re.compile(r"\s*(?:/\*\*(?![*/])|///(?!/))")
_IMPORTS = frozenset({"require", "import"})


def documents_a_value(comment: Node, below: Node, data: bytes) -> bool:
    """Whether ``comment``, above ``below`` at a file's top, is a doc comment of the value
    ``below`` declares."""
    text = node_text(data, comment)
    if not _OUTER_DOC.match(text) or FILE_TAGS.search(text):
        return False
    if below.start_point[0] > comment.end_point[0] + 1:  # parted by a blank line: a header, as it reads
        return False
    declared = below.child_by_field_name("declaration") if below.type == "export_statement" else below
    return declared is not None and declared.type in VALUE_DECLARATIONS and not _imports(declared, data)


def _imports(declaration: Node, data: bytes) -> bool:
    """Whether each value ``declaration`` gives is a module's (``require('x')``,
    ``await import('x')``)."""
    values = [d.child_by_field_name("value") for d in declaration.named_children if d.type == "variable_declarator"]
    return bool(values) and all(_imported(value, data) for value in values)


def _imported(value: Node | None, data: bytes) -> bool:
    while value is not None and value.type in ("await_expression", "parenthesized_expression", "member_expression"):
        value = value.child_by_field_name("object") if value.type == "member_expression" else value.named_child(0)
    if value is None:
        return False
    called = value.child_by_field_name("function") if value.type == "call_expression" else None
    return called is not None and node_text(data, called) in _IMPORTS
