"""The project-structure memory: one per repo/branch, from the tree listing and the
root tooling files only (nothing else is read or parsed).

It lives at the pseudo path ``.`` as a single entry (kind ``structure``, qualname
``<project>``) and goes through the same planner as every file: a changed layout is a
new version, the old one closed as ``modified`` with ``superseded_by``.
"""

from __future__ import annotations

import posixpath
from collections import Counter, defaultdict
from collections.abc import Iterable
from typing import Any

from recalld.ingest.collect import parse_file
from recalld.ingest.files import IndexOptions, excluded_by
from recalld.ingest.gitrecords import TreeFile, TreeSkip
from recalld.ingest.gitrepo import GitRepository
from recalld.ingest.plan import FileSymbols
from recalld.parsers.base import derived_entry
from recalld.parsers.registry import extension_language
from recalld.parsers.tooling import load, lookup, tooling_file
from recalld.parsers.tooling_rules import BUILD_FILES

PROJECT_PATH = "."
PROJECT_QUALNAME = "<project>"
# Root file -> keys that declare entry points.
ENTRY_POINTS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("pyproject.toml", ("project", "scripts")),
    ("pyproject.toml", ("project", "gui-scripts")),
    ("pyproject.toml", ("tool", "poetry", "scripts")),
    ("setup.cfg", ("options.entry_points", "console_scripts")),
    ("package.json", ("bin",)),
    ("Cargo.toml", ("bin",)),
)
# File names that mark an entry point by themselves (no file is read to find one).
MAIN_FILES = {"main.go": "go main package", "main.rs": "rust binary", "Main.java": "java main class"}
MAX_LISTED = 40


def layout_changed(git: GitRepository, before: str, after: str, paths: Iterable[str]) -> bool:
    """Whether a commit range can change the project memory: a root-level file changed
    or a path appeared or disappeared (module counts, main packages, bin/ scripts), or
    changed type: a symlink or a submodule made a file, or a file one (only files count)."""
    for path in paths:
        if "/" not in path or type(git.lookup(before, path)) is not type(git.lookup(after, path)):
            return True
    return False


def project_file(git: GitRepository, entries: Iterable[TreeFile | TreeSkip], options: IndexOptions) -> FileSymbols:
    files = [e for e in entries if isinstance(e, TreeFile) and not excluded_by(e.path, options.exclude)]
    root = {f.path: f for f in files if "/" not in f.path and f.path.rsplit("/", 1)[-1]}
    documents = {path: load(path, _read(git, f, options)) for path, f in root.items() if tooling_file(path)}
    builds = _build_systems(git, root, options)
    lines = ["Project structure"]
    lines.append(f"Build system: {', '.join(builds) if builds else 'none declared'}")
    entry_points = _entry_points(documents) + _main_files(files)
    if entry_points:
        lines.append("Entry points:")
        lines.extend(f"  {e}" for e in entry_points[:MAX_LISTED])
    lines.append("Top level:")
    lines.extend(f"  {line}" for line in _top_level(files)[:MAX_LISTED])
    extra = (("build_systems", builds), ("entry_points", entry_points[:MAX_LISTED]))
    symbol = derived_entry("structure", PROJECT_QUALNAME, "\n".join(lines), extra=extra)
    return FileSymbols(PROJECT_PATH, symbol.content_hash, "", (symbol,))


def _read(git: GitRepository, entry: TreeFile, options: IndexOptions) -> bytes:
    return git.blobs.read(entry.blob) if git.blobs.size(entry.blob) <= options.max_file_bytes else b""


def _build_systems(git: GitRepository, root: dict[str, TreeFile], options: IndexOptions) -> list[str]:
    found: list[str] = []
    for path in sorted(root):
        if path in BUILD_FILES:
            found.append(f"{BUILD_FILES[path]} ({path})")
        if tooling_file(path) is None:
            continue
        read = parse_file("tooling", _read(git, root[path], options), path).parsed
        for entry in read.derived if read is not None else ():
            label = f"{entry.name} ({path})"
            if entry.kind == "build_system" and label not in found:
                found.append(label)
    return found


def _entry_points(documents: dict[str, dict[str, Any] | None]) -> list[str]:
    found: list[str] = []
    for path, key in ENTRY_POINTS:
        value = lookup(documents.get(path) or {}, key)
        found.extend(f"{item} ({path} [{'.'.join(key)}])" for item in _entries(value, documents.get(path)))
    return found


def _entries(value: Any, document: dict[str, Any] | None) -> list[str]:
    if isinstance(value, dict):
        return [f"{k} = {v}" for k, v in value.items()]
    if isinstance(value, list):
        return [f"{b.get('name', '?')} = {b.get('path', '')}".rstrip(" =") for b in value if isinstance(b, dict)]
    if isinstance(value, str):
        if "\n" in value or "=" in value:
            return [" ".join(line.split()) for line in value.splitlines() if line.strip()]
        name = (document or {}).get("name", "")
        return [f"{name} = {value}" if name else value]
    return []


def _main_files(files: list[TreeFile]) -> list[str]:
    found = []
    for f in files:
        directory, name = posixpath.split(f.path)
        if name in MAIN_FILES:
            found.append(f"{MAIN_FILES[name]}: {directory or '.'}")
        elif directory == "bin" or (directory.endswith("src/bin") and f.path.endswith(".rs")):
            found.append(f"script: {f.path}")
    return sorted(found)


def _top_level(files: list[TreeFile]) -> list[str]:
    modules: dict[str, Counter[str]] = defaultdict(Counter)
    root_files: list[str] = []
    for f in files:
        top, _sep, rest = f.path.partition("/")
        if not rest:
            root_files.append(top)
            continue
        language = extension_language(f.path)
        modules[top][language or ""] += 1
    lines = []
    for top in sorted(modules):
        counts = modules[top]
        total = sum(n for lang, n in counts.items() if lang)
        languages = ", ".join(f"{lang} {n}" for lang, n in sorted(counts.items()) if lang)
        noun = "module" if total == 1 else "modules"
        lines.append(f"{top}/ — {total} {noun}" + (f" ({languages})" if languages else ""))
    if root_files:
        lines.append("files: " + ", ".join(sorted(root_files)[:MAX_LISTED]))
    return lines
