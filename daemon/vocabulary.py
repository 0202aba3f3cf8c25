"""The languages and kinds a memory can have: what ``--lang`` and ``--kind`` take (search's,
symbol's; the API's and MCP's ``lang`` and ``kind``).

A value outside them (``klingon``, a kind no language has) is a usage error naming the
valid ones; a value inside them that no memory has is a note (``query._search_notes``)."""

from __future__ import annotations

from collections.abc import Iterable

from recalld.ingest.errors import RecalldError
from recalld.ingest.manual import MANUAL_KIND
from recalld.parsers.base import DERIVED_TYPES, SYMBOL_KINDS
from recalld.parsers.documents import DOCUMENT_FORMATS
from recalld.parsers.registry import BUILTIN_LANGUAGES
from recalld.parsers.tooling_rules import TOOLING_FILES

EXIT_USAGE = 2
COMMIT_KIND = "commit"  # a task memory's (ingest/task_memory.py)
# Short names of the languages, as people write them (``--lang py``).
LANGUAGE_ALIASES = {"py": "python", "js": "javascript", "jsx": "javascript", "ts": "typescript", "golang": "go",
                    "rs": "rust", "c++": "cpp", "cxx": "cpp", "cc": "cpp", "c#": "csharp", "cs": "csharp",
                    "rb": "ruby", "kt": "kotlin", "objective-c": "objc", "m": "objc", "mm": "objc",
                    "sh": "bash", "shell": "bash", "pl": "perl", "pm": "perl"}  # fmt: skip
# The languages a search's ``--lang`` takes, with their short names, as the CLI's help, its
# hints and the MCP tool's schema name them.
LANGUAGE_NAMES = (
    "python (py), javascript (js), typescript (ts), tsx, vue, svelte, astro, go, rust, java, kotlin (kt), scala,"
    " swift, objc (m, objective-c), c, cpp (c++), csharp (c#), ruby (rb), php, perl (pl), lua, bash (sh, shell)"
)
SYMBOL_KIND_NAMES = ", ".join(SYMBOL_KINDS)
LANGUAGES_HELP = f"{LANGUAGE_NAMES}; a tool setting has its file's format: toml, ..."
KINDS_HELP = f"{SYMBOL_KIND_NAMES}; commit; todo, fixme; adr; ..."
CODE_LANGUAGES = tuple(spec.name for spec in BUILTIN_LANGUAGES)
# A tool setting's memory has its file's format as its language (parsers/tooling.py).
SETTING_FORMATS = tuple(dict.fromkeys(tooling.format for tooling in TOOLING_FILES))
LANGUAGES = frozenset((*CODE_LANGUAGES, *LANGUAGE_ALIASES, *DOCUMENT_FORMATS, *SETTING_FORMATS))
KINDS = frozenset((*SYMBOL_KINDS, COMMIT_KIND, MANUAL_KIND, *DERIVED_TYPES))


def language_named(given: str) -> str:
    """The language ``given`` names, in any case and by its short name (``Py``: python)."""
    lowered = given.lower()
    return LANGUAGE_ALIASES.get(lowered, lowered)


def check_language(given: str) -> str:
    """``given``, where recalld reads such a language; else a usage error naming those it reads."""
    if given.lower() not in LANGUAGES:
        documents = ", ".join(DOCUMENT_FORMATS)
        raise RecalldError(f"unknown language {given!r}: {LANGUAGE_NAMES}; documents: {documents}; tool settings:"
                           f" {', '.join(SETTING_FORMATS)}", exit_code=EXIT_USAGE)  # fmt: skip
    return given


def check_kinds(given: Iterable[str], *, symbols: bool = False) -> None:
    """A usage error naming every kind, where one of ``given`` is no memory's kind in any
    language (with ``symbols``, no symbol's: ``recalld symbol``'s)."""
    known = frozenset(SYMBOL_KINDS) if symbols else KINDS
    for kind in given:
        if kind.lower() not in known:
            listed = SYMBOL_KIND_NAMES if symbols else kinds_listed()
            raise RecalldError(f"unknown kind {kind!r}{' of a symbol' * symbols}: {listed}", exit_code=EXIT_USAGE)


def kinds_listed() -> str:
    """Every kind, by the memory type it is of: ``module, class, …; commit; manual; debt: todo, …``."""
    derived: dict[str, list[str]] = {}
    for kind, type_ in DERIVED_TYPES.items():
        derived.setdefault(type_, []).append(kind)
    by_type = "; ".join(f"{type_}: {', '.join(kinds)}" for type_, kinds in derived.items())
    return f"{', '.join(SYMBOL_KINDS)}; {COMMIT_KIND}; {MANUAL_KIND}; {by_type}"
