"""What a parser yields: plain data, no tree-sitter types leak out of parsers/."""

from __future__ import annotations

from dataclasses import dataclass, field

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


@dataclass(frozen=True, slots=True)
class Symbol:
    """One definition found in a file.

    ``qualname`` never contains the file path: for the module symbol it is
    ``"<module>"``, for everything else the dotted chain of enclosing
    classes/types (``Outer.Inner.method``, Go ``Type.Method``, Rust impl
    ``Type.method``). Lines are 1-based and inclusive. ``content_hash`` is the
    sha256 hex of the symbol's source bytes. ``source`` is the symbol's source
    text (decoded with replacement), used to build the embedded text.
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


@dataclass(frozen=True, slots=True)
class ParseResult:
    language: str
    symbols: tuple[Symbol, ...]
    syntax_errors: int = 0
    notes: tuple[str, ...] = field(default=())
