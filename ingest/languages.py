"""A file of a tree's language: the one its path names, or for a file whose name has no
extension, the one its opening lines name (``bin/deploy`` of ``#!/usr/bin/env bash``,
``completions/tar`` of ``-*- shell-script -*-``: ``parsers/script_heads.py``).

Every reader of a tree asks here (the file collector, the history's commit reader, the
planner's old sources, the attributes' second look), so that a script is read alike
wherever it is read; a file's language may so change with its first line, as with its name.
A ``linguist-language`` attribute (``*.h linguist-language=C++``, ``*.inc
linguist-language=PHP``, ``*.pl linguist-language=Prolog``) names it over both.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Mapping

from recalld.ingest.gitrepo import GitRepository
from recalld.parsers.registry import claimed_language, extension_language, language_for_path
from recalld.parsers.script_heads import interpreter_language, may_be_script

MEMO_SIZE = 1 << 15  # blobs whose opening lines were read (a blob id and a name each)
DEFAULT_MAX_BYTES = 1 << 20  # IndexOptions.max_file_bytes' default
_SCRIPTS: OrderedDict[str, str | None] = OrderedDict()  # blob -> the language its opening lines name


def file_language(
    git: GitRepository,
    path: str,
    blob: str,
    globs: Mapping[str, tuple[str, ...]] | None = None,
    *,
    max_bytes: int = DEFAULT_MAX_BYTES,
    named: str | None = None,
) -> str | None:
    """The language of ``path`` holding ``blob``: its path's (``globs`` as in
    ``language_for_path``); else, where its name has no extension, its opening lines' (a
    blob over ``max_bytes``, which a sync skips unread, is not read for them). ``named``:
    the language the file's ``linguist-language`` attribute names (``LinguistSays``; ""
    one recalld does not read): it decides over the file's name and opening lines, not
    over a spec's globs (a decision record, the configuration's ``globs``)."""
    claimed = claimed_language(path, globs)
    if claimed is not None or named is not None:
        return claimed or named or None
    language = extension_language(path)
    if language is not None or not may_be_script(path):
        return language
    return script_language(git, blob, max_bytes)


def script_language(git: GitRepository, blob: str, max_bytes: int = DEFAULT_MAX_BYTES) -> str | None:
    """The language the opening lines of ``blob`` name, or None (none, one of no language
    read, a blob over ``max_bytes``). Memoised by blob: a tree's scripts are asked by the
    collector, then by the history's reader."""
    if blob in _SCRIPTS:
        _SCRIPTS.move_to_end(blob)
        return _SCRIPTS[blob]
    if git.blobs.size(blob) > max_bytes:
        return None
    language = _SCRIPTS[blob] = interpreter_language(git.blobs.read(blob))
    if len(_SCRIPTS) > MEMO_SIZE:
        _SCRIPTS.popitem(last=False)
    return language


def may_have_language(path: str, globs: Mapping[str, tuple[str, ...]] | None = None) -> bool:
    """Whether a file of ``path`` may be of a language, whatever it holds: one its path
    names, or one its opening lines may name (read without its blob)."""
    return language_for_path(path, globs) is not None or may_be_script(path)
