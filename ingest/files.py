"""Which files of a tree become memories, and why the others don't."""

from __future__ import annotations

from dataclasses import dataclass, field

from recalld.parsers.globs import first_match, glob_match

__all__ = ["DEFAULT_EXCLUDE", "IndexOptions", "excluded_by", "glob_match", "looks_binary"]

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


def excluded_by(path: str, patterns: tuple[str, ...]) -> str | None:
    return first_match(path, patterns)


def looks_binary(data: bytes) -> bool:
    return b"\x00" in data[:BINARY_SNIFF_BYTES]
