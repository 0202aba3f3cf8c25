"""Which grammar reads a file: its language's, with the macros and the gaps its grammar
cannot read given to it as it reads them, or a kin language's where that reads the file
with fewer syntax errors (Flow-typed JavaScript as TSX, a C header as C++ or Objective-C).
"""

from __future__ import annotations

import dataclasses
import re
from functools import lru_cache

from recalld.parsers.item_macros import unwrapped
from recalld.parsers.macros import readable
from recalld.parsers.registry import LanguageSpec, get_language
from recalld.parsers.rereading import misread, reread
from recalld.parsers.treesitter import Tree, count_errors, holds_any, parse_tree


def best_reading(spec: LanguageSpec, data: bytes, path: str = "") -> tuple[LanguageSpec, Tree, int]:
    """The best reading of ``data`` by ``spec``'s grammar and its fallback's (``_reading``),
    or, of a file of ``spec``'s shared extensions read with errors, by a language that
    writes them too with a grammar of its own (``_claimed``: an Objective-C header)."""
    reading = _reading(spec, data, path)
    if reading[2] and spec.shared_with and path.lower().endswith(spec.shared_extensions):
        return _claimed(spec, data, reading[2]) or reading
    return reading


def _reading(
    spec: LanguageSpec, data: bytes, path: str = "", *, fallback: bool = True
) -> tuple[LanguageSpec, Tree, int]:
    """The tree of ``data`` under ``spec``'s grammar, or under its fallback's when that
    reads it with fewer syntax errors (Flow-typed JavaScript reads as TSX), with the
    spec that made it and its error count. Only the better tree is extracted: 383 of
    react-native 0.76's 494 JavaScript files read better as TSX. A file of an extension
    both languages write (a ``.h``) is read by both, and is the fallback's language where
    that reads it as well and finds what only that language writes (a C++ header's class,
    which C's grammar may read without an error: ``namespace util {…}``); not where
    ``fallback`` is off. A file read with errors, or holding what the grammar misreads, is
    read again as ``rereading.py`` tells (C#'s, Kotlin's, Swift's, Objective-C's)."""
    source = readable(data) if spec.macros else data  # offsets kept: symbols read ``data``
    tree: Tree | None = None
    if spec.item_macros:
        source, tree = unwrapped(spec, source)
    if tree is None:
        tree = parse_tree(spec, source)
    errors = count_errors(tree.root_node)
    prepared = source  # what a fallback's grammar reads: no rewrite for this one's
    if spec.rewrite or spec.conditionals:
        wrong = misread(spec, source)
        if errors or wrong:
            source, tree, errors = reread(spec, source, tree, errors, misread=wrong)
    shared = bool(spec.shared_extensions) and path.lower().endswith(spec.shared_extensions)
    if (errors or shared) and spec.fallback and fallback:
        other = _read_as(spec)
        other_tree = parse_tree(other, prepared)
        other_errors = count_errors(other_tree.root_node)
        kin = get_language(spec.fallback)
        if shared and other_errors <= errors and holds_any(other_tree.root_node, kin.marks):
            return kin, other_tree, other_errors
        if other_errors < errors:
            return other, other_tree, other_errors
    return spec, tree, errors


def _claimed(spec: LanguageSpec, data: bytes, errors: int) -> tuple[LanguageSpec, Tree, int] | None:
    """The reading of a file of ``spec``'s shared extensions by a language that writes them
    too with a grammar of its own (``shared_with``: an Objective-C header), where the file
    holds what that language alone writes (``sniff``), reads with no more errors than the
    best reading of the file's own language and finds its marks."""
    for name in spec.shared_with:
        kin = get_language(name)
        if kin.sniff and re.search(kin.sniff, data, re.MULTILINE):
            reading = _reading(kin, data, fallback=False)  # a kin's fallback's tree holds none of its marks
            # a class may stand deep in a header: an include guard's, an ``extern "C"``'s and
            # an availability ``#if``'s blocks around it (GNUstep's ``NSString.h``)
            if reading[2] <= errors and holds_any(reading[1].root_node, kin.marks, depth=8):
                return reading
    return None


@lru_cache(maxsize=None)
def _read_as(spec: LanguageSpec) -> LanguageSpec:
    """``spec``'s fallback grammar and queries under ``spec``'s name: its symbols, debt
    entries and result are the file's language's."""
    fallback = get_language(spec.fallback)
    return dataclasses.replace(fallback, name=spec.name, query_file=fallback.query_names[-1], fallback="")
