"""Tree-sitter extraction of structural symbols, one registry entry per language.

    language_for_path("src/app.py")  -> "python"
    parse("python", source_bytes)    -> ParseResult(symbols=(module, classes, functions, ...))
"""

from __future__ import annotations

from recalld.parsers.base import ParseResult, Symbol
from recalld.parsers.registry import (
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
    "Symbol",
    "UnknownLanguageError",
    "language_for_path",
    "parse",
    "register_language",
]


def parse(language: str, data: bytes) -> ParseResult:
    """Symbols of one file. Never raises on bad input (syntax errors, invalid UTF-8,
    NUL bytes, empty files); raises UnknownLanguageError for an unregistered language."""
    from recalld.parsers.extract import extract

    return extract(get_language(language), data)
