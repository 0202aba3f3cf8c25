"""Which files of a tree become memories, and why the others don't."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache

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


@dataclass(frozen=True, slots=True)
class IndexOptions:
    max_file_bytes: int = 1 << 20
    exclude: tuple[str, ...] = DEFAULT_EXCLUDE
    honour_gitattributes: bool = True
    max_embed_chars: int = 1500
    extra: dict[str, object] = field(default_factory=dict)


@lru_cache(maxsize=256)
def _glob_regex(pattern: str) -> re.Pattern[str]:
    """gitignore-flavoured globs: ``**`` spans directories, ``*`` and ``?`` stay in
    one path segment, a pattern without ``/`` matches the file name anywhere."""
    if "/" not in pattern:
        pattern = "**/" + pattern
    out: list[str] = []
    i = 0
    while i < len(pattern):
        if pattern.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
        elif pattern.startswith("/**", i) and i + 3 == len(pattern):
            out.append("(?:/.*)?")
            i += 3
        elif pattern.startswith("**", i):
            out.append(".*")
            i += 2
        elif pattern[i] == "*":
            out.append("[^/]*")
            i += 1
        elif pattern[i] == "?":
            out.append("[^/]")
            i += 1
        else:
            out.append(re.escape(pattern[i]))
            i += 1
    return re.compile("".join(out) + r"\Z")


def glob_match(path: str, pattern: str) -> bool:
    return _glob_regex(pattern).match(path) is not None


def excluded_by(path: str, patterns: tuple[str, ...]) -> str | None:
    return next((p for p in patterns if glob_match(path, p)), None)


def looks_binary(data: bytes) -> bool:
    return b"\x00" in data[:BINARY_SNIFF_BYTES]
