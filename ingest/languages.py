"""A file of a tree's language: the one its path names, or for a script whose name has no
extension, the one its ``#!`` line names (``bin/deploy`` of ``#!/usr/bin/env bash``).

Every reader of a tree asks here (the file collector, the history's commit reader, the
planner's old sources, the attributes' second look), so that a script is read alike
wherever it is read; a file's language may so change with its first line, as with its name.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Mapping

from recalld.ingest.gitrepo import GitRepository
from recalld.parsers.registry import language_for_path
from recalld.parsers.script_heads import HEAD_BYTES, interpreter_language, may_be_script

MEMO_SIZE = 1 << 15  # blobs whose ``#!`` line was read (a blob id and a name each)
DEFAULT_MAX_BYTES = 1 << 20  # IndexOptions.max_file_bytes' default
_SCRIPTS: OrderedDict[str, str | None] = OrderedDict()  # blob -> the language its ``#!`` line names


def file_language(
    git: GitRepository,
    path: str,
    blob: str,
    globs: Mapping[str, tuple[str, ...]] | None = None,
    *,
    max_bytes: int = DEFAULT_MAX_BYTES,
) -> str | None:
    """The language of ``path`` holding ``blob``: its path's (``globs`` as in
    ``language_for_path``); else, where its name has no extension, its ``#!`` line's (a
    blob over ``max_bytes``, which a sync skips unread, is not read for one)."""
    language = language_for_path(path, globs)
    if language is not None or not may_be_script(path):
        return language
    return script_language(git, blob, max_bytes)


def script_language(git: GitRepository, blob: str, max_bytes: int = DEFAULT_MAX_BYTES) -> str | None:
    """The language the ``#!`` line of ``blob`` names, or None (none, one of no language
    read, a blob over ``max_bytes``). Memoised by blob: a tree's scripts are asked by the
    collector, then by the history's reader."""
    if blob in _SCRIPTS:
        _SCRIPTS.move_to_end(blob)
        return _SCRIPTS[blob]
    if git.blobs.size(blob) > max_bytes:
        return None
    language = _SCRIPTS[blob] = interpreter_language(git.blobs.read(blob)[:HEAD_BYTES])
    if len(_SCRIPTS) > MEMO_SIZE:
        _SCRIPTS.popitem(last=False)
    return language


def may_have_language(path: str, globs: Mapping[str, tuple[str, ...]] | None = None) -> bool:
    """Whether a file of ``path`` may be of a language, whatever it holds: one its path
    names, or a script's its ``#!`` line may name (read without its blob)."""
    return language_for_path(path, globs) is not None or may_be_script(path)
