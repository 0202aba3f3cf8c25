"""Languages as plain data: a spec per language, looked up by name or file extension.

Built-ins are registered exactly the way an extension would register its own.
"""

from __future__ import annotations

import posixpath
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class LanguageSpec:
    name: str
    extensions: tuple[str, ...]
    grammar_module: str  # the grammar wheel's module
    grammar_function: str = "language"  # its function returning the language pointer
    query_file: str = ""  # in parsers/queries/, default "<name>.scm"
    docstrings: str = "comments"  # "comments": leading comments; "strings": first string in the body

    @property
    def query_name(self) -> str:
        return self.query_file or f"{self.name}.scm"


class UnknownLanguageError(ValueError):
    """No language of that name is registered."""


LANGUAGES: dict[str, LanguageSpec] = {}
_BY_EXTENSION: dict[str, str] = {}


def register_language(spec: LanguageSpec) -> None:
    LANGUAGES[spec.name] = spec
    for extension in spec.extensions:
        _BY_EXTENSION[extension.lower()] = spec.name


def language_for_path(path: str) -> str | None:
    _root, extension = posixpath.splitext(path)
    return _BY_EXTENSION.get(extension.lower()) if extension else None


def get_language(name: str) -> LanguageSpec:
    try:
        return LANGUAGES[name]
    except KeyError:
        raise UnknownLanguageError(f"unknown language {name!r} (known: {', '.join(sorted(LANGUAGES))})") from None


BUILTIN_LANGUAGES = (
    LanguageSpec("python", (".py", ".pyi"), "tree_sitter_python", docstrings="strings"),
    LanguageSpec("javascript", (".js", ".mjs", ".cjs", ".jsx"), "tree_sitter_javascript"),
    LanguageSpec("typescript", (".ts", ".mts", ".cts"), "tree_sitter_typescript", "language_typescript"),
    LanguageSpec("tsx", (".tsx",), "tree_sitter_typescript", "language_tsx", query_file="typescript.scm"),
    LanguageSpec("go", (".go",), "tree_sitter_go"),
    LanguageSpec("rust", (".rs",), "tree_sitter_rust"),
    LanguageSpec("java", (".java",), "tree_sitter_java"),
)
for _spec in BUILTIN_LANGUAGES:
    register_language(_spec)
