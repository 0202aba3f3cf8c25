"""What a parser yields: plain data, no tree-sitter types leak out of parsers/."""

from __future__ import annotations

import hashlib
import json
from bisect import bisect_left, bisect_right
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

# Kinds a structural memory can have. Module is one per file.
SYMBOL_KINDS = (
    "module",
    "class",
    "object",  # Scala's: a singleton, a class's companion
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
# A JavaScript or TypeScript module's own export with no name of its own (``export
# default class {…}``, ``module.exports = function (…)``), named as the language names it.
DEFAULT_EXPORT = "default"
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
    ``Type.method``). Lines are 1-based and inclusive. ``content_hash`` is
    ``content_hash()`` of the symbol's source bytes (and of its doc comment, in languages
    whose docstring is the comment above the definition). ``source`` is the symbol's source
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


class Nested:
    """The code symbols of one file in the order they start, to find what lies inside one."""

    def __init__(self, symbols: Sequence[Symbol]) -> None:
        code = [s for s in symbols if s.kind != "module" and memory_type(s.kind) == STRUCTURAL]
        self._symbols = sorted(code, key=lambda s: (s.start_line, -s.end_line))
        self._starts = [s.start_line for s in self._symbols]

    def within(self, sym: Symbol) -> list[Symbol]:
        """The outermost symbols inside ``sym`` (not those inside them), in file order."""
        if sym.kind == "module":
            lo, hi = 0, len(self._symbols)
        else:
            lo, hi = bisect_left(self._starts, sym.start_line), bisect_right(self._starts, sym.end_line)
        out: list[Symbol] = []
        covered = 0
        for other in self._symbols[lo:hi]:
            if other is sym or other.end_line > sym.end_line or other.end_line <= covered:
                continue
            if (other.start_line, other.end_line) == (sym.start_line, sym.end_line):
                continue  # the same lines (two captures of one definition): not inside it
            out.append(other)
            covered = other.end_line
        return out


def containers(symbols: Sequence[Symbol]) -> list[Symbol]:
    """The code symbols of a file that hold another (its module when it defines anything,
    a class with its methods), in the order given."""
    nested = Nested(symbols)
    return [s for s in symbols if memory_type(s.kind) == STRUCTURAL and nested.within(s)]


def module_symbol(data: bytes, docstring: str = "") -> Symbol:
    """A file's own symbol: all of its text, from its first line to its last."""
    return Symbol(
        kind="module",
        name="<module>",
        qualname="<module>",
        signature="",
        docstring=docstring,
        start_line=1,
        end_line=max(1, data.count(b"\n") + (0 if data.endswith(b"\n") or not data else 1)),
        content_hash=content_hash(data),
        source=data.decode("utf-8", "replace"),
    )


def read_in_part(symbols: tuple[Symbol, ...], why: str) -> tuple[Symbol, ...]:
    """``symbols`` of a file read in part (syntax errors, undecodable bytes, a part left
    out), its module saying ``why`` (``read_partly``: an outline of it then says its symbols
    may be fewer than the file's). The module's content hash covers it, as a derived
    entry's covers its fields: the file read whole again is a new version of its module."""
    out = []
    for sym in symbols:
        if sym.kind == "module":
            extra = (*sym.extra, ("read_partly", why))
            sym = replace(sym, extra=extra, content_hash=content_hash(sym.content_hash.encode(), extra=extra))
        out.append(sym)
    return tuple(out)


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
    """A derived entry: ``text`` is what gets embedded; the content hash covers it and
    every field of its own (``extra``, a docstring the text leaves out)."""
    return Symbol(
        kind=kind,
        name=name or qualname,
        qualname=qualname,
        signature="",
        docstring=docstring,
        start_line=lines[0],
        end_line=lines[1],
        content_hash=content_hash(
            text.encode("utf-8", "surrogatepass"), docstring="" if docstring in text else docstring, extra=extra
        ),
        source=text,
        extra=extra,
    )


def content_hash(source: bytes, *, docstring: str = "", extra: tuple[tuple[str, Any], ...] = ()) -> str:
    """sha256 hex of what a memory holds that its place (path, kind, qualname) does not
    fix: the source, and the docstring and fields of its own where they are not part of
    it. A memory whose hash is the same is not rewritten, so anything left out here
    would go stale: a doc comment reworded above unchanged code, a test command changed
    under the same runner."""
    digest = hashlib.sha256(source)
    if docstring:
        digest.update(b"\x00docstring\x00" + docstring.encode("utf-8", "surrogatepass"))
    if extra:
        fields = json.dumps(extra, sort_keys=True, ensure_ascii=False, default=str)
        digest.update(b"\x00extra\x00" + fields.encode("utf-8", "surrogatepass"))
    return digest.hexdigest()


class ParseTimeout(Exception):
    """A file's parse ran past its deadline (``treesitter.parse_deadline``) and was given up."""


@dataclass(frozen=True, slots=True)
class ParseResult:
    language: str
    symbols: tuple[Symbol, ...]  # structural: module, classes, functions ...
    syntax_errors: int = 0
    notes: tuple[str, ...] = field(default=())
    derived: tuple[Symbol, ...] = ()  # debt comments, decision sections, tool preferences
    undecodable: bool = False  # bytes not text in the file's encoding were read as U+FFFD

    def read_partly(self) -> list[str]:
        """Why the file was read only in part (none: it was read whole)."""
        why = ["invalid UTF-8: undecodable bytes read as U+FFFD"] if self.undecodable else []
        if self.symbols and self.syntax_errors:
            why.append(f"{self.syntax_errors} syntax error(s): symbols read around them")
        if self.symbols and self.notes:  # a part left out: a <script> in a language not read, too deep a nesting
            why.append("; ".join(self.notes))
        return why
