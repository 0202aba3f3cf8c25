"""Tree-sitter extraction of structural symbols, one registry entry per language.

    language_for_path("src/app.py")  -> "python"
    parse("python", source_bytes)    -> ParseResult(symbols=(module, classes, functions, ...))
"""

from __future__ import annotations

import dataclasses
import importlib

from recalld.parsers.base import ParseResult, ParseTimeout, Symbol, read_in_part
from recalld.parsers.encoding import as_utf8
from recalld.parsers.registry import (
    EXTRACTORS,
    LANGUAGES,
    LanguageSpec,
    UnknownLanguageError,
    get_language,
    language_for_path,
    register_language,
)

__all__ = [
    "LANGUAGES",
    "LanguageSpec",
    "ParseResult",
    "PARSE_SECONDS",
    "ParseTimeout",
    "Symbol",
    "UnknownLanguageError",
    "language_for_path",
    "parse",
    "register_language",
]


# A file's parse (all of its readings) is given up after this long: ParseTimeout.
PARSE_SECONDS = 10.0


def parse(language: str, data: bytes, *, path: str = "", seconds: float | None = None) -> ParseResult:
    """Symbols and derived entries of one file (``path`` lets document and tooling
    extractors tell files apart). Never raises on bad input (syntax errors, invalid
    UTF-8, NUL bytes, empty files, malformed TOML/JSON); raises UnknownLanguageError
    for an unregistered language, and ParseTimeout for a file whose parse runs past
    ``seconds`` (default ``PARSE_SECONDS``: tree-sitter's error recovery on input its
    grammar cannot read)."""
    spec = get_language(language)
    data, whole = as_utf8(data, declares=spec.declares_encoding)
    if b"\r\n" in data:  # CRLF reads as LF: a commit that only flips line endings changes no symbol
        data = data.replace(b"\r\n", b"\n")
    extractor = importlib.import_module(EXTRACTORS[spec.extractor])
    from recalld.parsers.treesitter import parse_deadline  # tree_sitter, once a file is parsed

    with parse_deadline(PARSE_SECONDS if seconds is None else seconds):
        result: ParseResult = extractor.extract(spec, data, path)
    # a file that is neither UTF-8 nor in the encoding it declares (parsers/encoding.py)
    result = result if whole else dataclasses.replace(result, undecodable=True)
    partly = result.read_partly()  # its module says so, for an outline of it
    return dataclasses.replace(result, symbols=read_in_part(result.symbols, "; ".join(partly))) if partly else result
