"""Which symbol that left continues as which that arrived, for the planner
(``ingest/plan.py``): the pairing passes, in their order, language by language."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping
from typing import TYPE_CHECKING

from recalld.ingest.follow import Pairing, follow_files, follow_scopes
from recalld.ingest.likeness import (
    Likenesses,
    OldSource,
    affinity_of,
    is_distinctive,
)
from recalld.ingest.namesake import Kinship, pair_moved_namesakes, pair_namesakes
from recalld.ingest.qualnames import alike_names, parent_scope, short_name
from recalld.ingest.specific import SpecificNames
from recalld.parsers.base import FILE_LEVEL_QUALNAMES, STRUCTURAL, memory_type
from recalld.parsers.registry import language_for_path

if TYPE_CHECKING:
    from recalld.ingest.plan import LiveMemory, NewVersion


def paired_moves(
    leftovers: list[tuple[LiveMemory, str]],
    orphans: list[NewVersion],
    renames: Mapping[str, str],
    old_source: OldSource | None,
    specific: SpecificNames,
    files: tuple[frozenset[str], frozenset[str]],
    *,
    old_docstring: OldSource | None = None,
) -> dict[str, NewVersion]:
    """Pair symbols that left their file or scope with symbols that appeared elsewhere.

    Exact code first (same kind, name and content, the closest candidate first); then
    (with ``old_source``) members following their scopes (``follow_scopes``: a class
    goes where most of its members went, a member to its scope's successor, a symbol
    renamed where it is with code alike: ``compute_perimeter`` → ``circle_perimeter``,
    unless its name arrived elsewhere); then the same (kind, qualname) where one
    candidate is closer than the others and more than the name relates them
    (``pair_namesakes``: not ``distutils.util.execute`` → ``sqlite3.__main__.
    execute``); then the same (kind, name) with code alike (``MOVED_WITH_EDITS``):
    ``Flask.errorhandler`` edited into ``Scaffold.errorhandler`` in another file; last
    members following the scopes those passes paired, and renamed in place. File-level
    entries (a module, a whole decision document) only move with their file: a git
    rename, or a new file that half or more of a deleted file's top-level symbols went
    to, and half of whose top level they are (``follow_files``). Derived entries move
    like symbols: a TODO whose code moved to another file, a tool setting moved from
    setup.cfg to pyproject.toml. Each language is paired on its own (``_by_language``).
    With nothing that left or nothing new (a first index: its passes over 30k arrivals
    took ~5 % of its sync thread) there is nothing to pair. A leaver's id → its successor.
    """
    affinity = affinity_of(renames)

    # The same code: any pairing keeps what was known, the closest first; code too short
    # to tell apart (``return self``) only in its own scope or file, and code that a
    # namesake elsewhere keeps (boilerplate: ``SpecificNames.commonplace``) only there or
    # to a scope of a name alike (``ReadFileCompileWasmTemplatePlugin`` → ``ReadFileCompileWasmPlugin``).
    def telling(mem: LiveMemory, version: NewVersion) -> bool:
        old_scope, new_scope = parent_scope(mem.qualname), parent_scope(version.symbol.qualname)
        return (
            old_scope == new_scope
            or renames.get(mem.path, mem.path) == version.file.path
            or (is_distinctive(version.symbol.source)
                and (alike_names(old_scope, new_scope) or not specific.commonplace(mem)))
        )  # fmt: skip

    matched: dict[str, NewVersion] = {}
    for left, arrived in _by_language(leftovers, orphans):
        closing = [(m, r) for m, r in left if m.qualname not in FILE_LEVEL_QUALNAMES]
        arriving = [v for v in arrived if v.symbol.qualname not in FILE_LEVEL_QUALNAMES]
        pairing = Pairing(closing, arriving, {}, set(), affinity, *files)
        pairing.pair_by(lambda m: (_callable(m.kind), short_name(m.qualname), m.content_hash),
                        lambda v: (_callable(v.symbol.kind), short_name(v.symbol.qualname), v.symbol.content_hash),
                        guess=True, admissible=telling)  # fmt: skip
        memo: Likenesses = {}  # likeness of pairs already compared
        if old_source is not None:  # alike code in the file git says the old code went to
            follow_scopes(pairing, renames, old_source, memo, names_first=True)
        related = Kinship(pairing, renames)
        # the same name, other code
        pair_namesakes(pairing, related, specific, old_source, memo, old_docstring=old_docstring)
        if old_source is not None:
            pair_moved_namesakes(pairing, related, specific, old_source, memo)  # the same name, other scope
            follow_scopes(pairing, renames, old_source, memo)
        # Last, what is left where it was changed kind, its name kept (``def Parser()`` →
        # ``class Parser``, three.js's ``function TorusBufferGeometry`` → ``class``, ``type
        # Props = {…}`` → ``interface Props {…}``); not where two arrived under its name
        # (rxjs's error classes became an ``interface`` and a function of their name).
        pairing.pair_by(lambda m: (renames.get(m.path, m.path), m.qualname) if _structural(m.kind) else None,
                        lambda v: (v.file.path, v.symbol.qualname) if _structural(v.symbol.kind) else None,
                        guess=False)  # fmt: skip
        follow_files(left, arrived, pairing)
        matched.update(pairing.matched)
    return matched


def _callable(kind: str) -> str:
    """A class is a function to the exact-code pass: a JavaScript constructor function is
    one or the other by what its file does with its prototype (rxjs 7 moved
    ``AjaxTimeoutErrorImpl`` unchanged to ``errors.ts``, which sets its prototype; 6.6's
    file did not). The same code under the same name is the same either way; in other
    languages a class's code is never a function's."""
    return "function" if kind == "class" else kind


def _structural(kind: str) -> bool:
    return memory_type(kind) == STRUCTURAL


# Languages whose code continues in one another's (a JavaScript file rewritten in TypeScript,
# a component's functions moved out to a composable's ``.ts``, a C file made C++ or
# Objective-C, a header that gains an ``@interface``, a Java class rewritten in Kotlin, Kafka's
# Scala rewritten in Java).
LANGUAGE_FAMILIES = {"typescript": "javascript", "tsx": "javascript", "vue": "javascript", "svelte": "javascript",
                     "astro": "javascript", "cpp": "c", "objc": "c", "kotlin": "java", "scala": "java"}


def _by_language(
    leftovers: list[tuple[LiveMemory, str]], orphans: list[NewVersion]
) -> list[tuple[list[tuple[LiveMemory, str]], list[NewVersion]]]:
    """What left and what arrived, code by language (JavaScript and TypeScript as one),
    derived entries by type, where both are: code continues in code of its language, a
    tool's setting in any tooling file (``setup.cfg`` → ``pyproject.toml``). SQLAlchemy
    2.0 deleted the docs' vendored ``jquery.js``, whose ``get`` and ``remove`` would
    otherwise be candidates for its Python methods of those names (too many to compare:
    none were paired)."""

    def group(kind: str, language: str | None) -> str | None:
        kept = memory_type(kind)
        return LANGUAGE_FAMILIES.get(language or "", language) if kept == STRUCTURAL else kept

    left: dict[str | None, list[tuple[LiveMemory, str]]] = defaultdict(list)
    for mem, reason in leftovers:
        left[group(mem.kind, mem.language or language_for_path(mem.path))].append((mem, reason))
    arrived: dict[str | None, list[NewVersion]] = defaultdict(list)
    for version in orphans:
        arrived[group(version.symbol.kind, version.file.language)].append(version)
    return [(left[name], arrived[name]) for name in left if name in arrived]
