"""What a parser yields: plain data, no tree-sitter types leak out of parsers/."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import Any

# Kinds a structural memory can have. Module is one per file.
SYMBOL_KINDS = (
    "module",
    "class",
    "interface",
    "struct",
    "enum",
    "trait",
    "type",
    "function",
    "method",
)
# Memory type ("type" in the payload) of every kind; a kind not listed is structural.
DERIVED_TYPES: dict[str, str] = {
    "todo": "debt",
    "fixme": "debt",
    "hack": "debt",
    "xxx": "debt",
    "adr": "decision",
    "architecture": "decision",
    "test_runner": "preference",
    "linter": "preference",
    "formatter": "preference",
    "framework": "preference",
    "build_system": "preference",
    "language_version": "preference",
    "structure": "project",
}
STRUCTURAL = "structural"
# Qualnames of entries that describe a whole file: they only move with their file.
FILE_LEVEL_QUALNAMES = frozenset({"<module>", "<document>", "<project>"})


def memory_type(kind: str) -> str:
    return DERIVED_TYPES.get(kind, STRUCTURAL)


@dataclass(frozen=True, slots=True)
class Symbol:
    """One definition found in a file.

    ``qualname`` never contains the file path: for the module symbol it is
    ``"<module>"``, for everything else the dotted chain of enclosing
    classes/types (``Outer.Inner.method``, Go ``Type.Method``, Rust impl
    ``Type.method``). Lines are 1-based and inclusive. ``content_hash`` is the
    sha256 hex of the symbol's source bytes. ``source`` is the symbol's source
    text (decoded with replacement), used to build the embedded text.

    Derived entries (debt comments, decisions, preferences) use the same shape: their
    ``source`` is the readable text to embed, ``extra`` holds payload fields of their
    own (``enclosing``, ``status``, ``evidence`` ...).
    """

    kind: str
    name: str
    qualname: str
    signature: str
    docstring: str
    start_line: int
    end_line: int
    content_hash: str
    source: str
    extra: tuple[tuple[str, Any], ...] = ()


def derived_entry(
    kind: str,
    qualname: str,
    text: str,
    *,
    lines: tuple[int, int] = (1, 1),
    extra: tuple[tuple[str, Any], ...] = (),
    name: str = "",
    docstring: str = "",
) -> Symbol:
    """A derived entry: ``text`` is what gets embedded, and its hash the content hash."""
    return Symbol(
        kind=kind,
        name=name or qualname,
        qualname=qualname,
        signature="",
        docstring=docstring,
        start_line=lines[0],
        end_line=lines[1],
        content_hash=hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest(),
        source=text,
        extra=extra,
    )


@dataclass(frozen=True, slots=True)
class ParseResult:
    language: str
    symbols: tuple[Symbol, ...]  # structural: module, classes, functions ...
    syntax_errors: int = 0
    notes: tuple[str, ...] = field(default=())
    derived: tuple[Symbol, ...] = ()  # debt comments, decision sections, tool preferences
