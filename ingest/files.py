"""Which files of a tree become memories, and why the others don't."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from recalld.parsers.base import DERIVED_TYPES, STRUCTURAL
from recalld.parsers.globs import first_match, glob_match
from recalld.parsers.registry import (
    DEFAULT_ARCHITECTURE_GLOBS,
    DEFAULT_DECISION_GLOBS,
    TOOLING_GLOBS,
    get_language,
)

__all__ = ["DEFAULT_EXCLUDE", "DerivedOptions", "IndexOptions", "excluded_by", "glob_match", "unreadable"]

DEFAULT_EXCLUDE = (
    "**/node_modules/**",
    "**/bower_components/**",
    "**/vendor/**",
    "**/third_party/**",
    "**/*.min.js",
    "**/*.bundle.js",
    "**/*_pb2.py",
    "**/*_pb2_grpc.py",
    "**/*.pb.go",
)
BINARY_SNIFF_BYTES = 8000
# Code whose lines average this many bytes, in a file this large, is minified or
# generated in one line (a bundle, a schema validator: hand-written code averages ~30–40);
# its names are a minifier's and change with every build. Counted without what its
# string literals hold: the JDK's resource bundles (``launcher.java``: 34 lines, 12.8 KB
# of messages) are long lines of strings around short code.
MINIFIED_MEAN_LINE = 300
MINIFIED_MIN_BYTES = 4096
STRING_LITERAL = re.compile(rb""""(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*'""")


@dataclass(frozen=True, slots=True)
class DerivedOptions:
    """Which derived memories a sync makes (config ``[memories]``)."""

    debt: bool = True
    decisions: bool = True
    preferences: bool = True
    project: bool = True
    decision_globs: tuple[str, ...] = DEFAULT_DECISION_GLOBS
    architecture_globs: tuple[str, ...] = DEFAULT_ARCHITECTURE_GLOBS

    @property
    def types(self) -> frozenset[str]:
        """Memory types kept from what the extractors yield."""
        flags = {"debt": self.debt, "decision": self.decisions, "preference": self.preferences}
        return frozenset({STRUCTURAL, *(t for t in set(DERIVED_TYPES.values()) if flags.get(t, False))})

    @property
    def globs(self) -> dict[str, tuple[str, ...]]:
        """Path globs of the document specs (by spec name); () turns a spec off."""
        return {
            "adr": self.decision_globs if self.decisions else (),
            "architecture": self.architecture_globs if self.decisions else (),
            "tooling": TOOLING_GLOBS if self.preferences else (),
        }


@dataclass(frozen=True, slots=True)
class IndexOptions:
    max_file_bytes: int = 1 << 20
    exclude: tuple[str, ...] = DEFAULT_EXCLUDE
    honour_gitattributes: bool = True
    max_embed_chars: int = 1500
    test_embed_chars: int = 150  # of a test file's code, what the model reads (records.model_chars); 0: all
    untrusted_branches: tuple[str, ...] = ()  # globs: memories of such branches get untrusted = 1
    backfill_commits: int = 500  # task memories: commits backfilled on a first sync, cap per sync; 0 = off
    extra: dict[str, object] = field(default_factory=dict)
    memories: DerivedOptions = DerivedOptions()


def excluded_by(path: str, patterns: tuple[str, ...]) -> str | None:
    return first_match(path, patterns)


def unreadable(data: bytes, language: str) -> str | None:
    """Why a file's content is no source to read as ``language`` ("binary", "minified"),
    or None. Prose and configuration may run long lines; only code is held to that."""
    if b"\x00" in data[:BINARY_SNIFF_BYTES]:
        return "binary"
    lines = data.count(b"\n") + 1
    if len(data) >= MINIFIED_MIN_BYTES and len(data) > MINIFIED_MEAN_LINE * lines:
        if get_language(language).extractor == "treesitter":
            if len(STRING_LITERAL.sub(b"''", data)) > MINIFIED_MEAN_LINE * lines:
                return "minified"
    return None
