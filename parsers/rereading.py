"""Second readings of a file its grammar reads with syntax errors, or holding what it
misreads without one (``MISREADS``: Kotlin's ``annotation class`` under annotations, C's
old-style definition of a pointer): C#'s with its pointer
indirections of a bracket given to the grammar as it reads them (``pointers.py``), then
with its directive lines blanked and the ``#if`` groups its errors fall in reduced to
one branch (``conditionals.py``); Kotlin's with the annotations its grammar cannot place
blanked and ``dynamic`` read as a name (``kotlin_gaps.py``); Swift's with the standard
library's ownership modifiers and prefix keywords before a name blanked and an empty tuple
given as a value read as a number (``swift_gaps.py``), then with its ``#if`` groups
reduced as C#'s are; Objective-C's with Objective-C++'s scopes, ``using namespace``
and references as its grammar reads them (``objcpp_gaps.py``); a shell script's with its
read-write redirections, numbers in a base, brackets in an expansion's pattern, a
``case`` pattern's quotes, extended globs, variable offsets and operators a variable holds
as Bash's grammar reads them (``shell_gaps.py``); a Perl file's with its ``$``-delimited
patterns, blank attribute arguments, ``@#`` in a pattern and shifts its grammar takes for a
here-document as its grammar reads them (``perl_gaps.py``); TypeScript's and TSX's with a
generic call signature or a member named ``in`` after a member with no semicolon parted from
it, and variances, escaped backticks and a tagged template's type arguments blanked
(``typescript_gaps.py``); C's with the ``*`` of an old-style definition that returns a
pointer blanked (``old_style.py``).
The best of them is kept where it has fewer errors than the file as written; the symbols
read their text from the source as written.

Mono 6.12's ``mcs/class`` (26,197 C# files): 1,486 read with syntax errors as written,
116 now; 466,265 symbols where there were 457,558.
"""

from __future__ import annotations

from collections.abc import Callable

from recalld.parsers import (
    kotlin_gaps, objcpp_gaps, old_style, perl_gaps, pointers, shell_gaps, swift_gaps, typescript_gaps,
)
from recalld.parsers.conditionals import Conditionals
from recalld.parsers.registry import LanguageSpec
from recalld.parsers.treesitter import Tree, count_errors, error_spans, parse_tree

_ROUNDS = 4  # readings with more of its groups reduced, each to the errors the last left
# A source as a language's grammar reads it, the same length and lines (``LanguageSpec.rewrite``).
REWRITES: dict[str, Callable[[bytes], bytes]] = {
    "pointers": pointers.readable, "kotlin": kotlin_gaps.readable, "swift": swift_gaps.readable,
    "objcpp": objcpp_gaps.readable, "shell": shell_gaps.readable, "perl": perl_gaps.readable,
    "typescript": typescript_gaps.readable, "tsx": typescript_gaps.readable_tsx, "old_style": old_style.readable,
}  # fmt: skip


# What a language's grammar reads without an error but wrongly, by the key of its rewrite:
# a file holding one is read again, and the rewritten reading kept where it has no more errors.
MISREADS: dict[str, Callable[[bytes], bool]] = {"kotlin": kotlin_gaps.misreads, "old_style": old_style.misreads}


def misread(spec: LanguageSpec, source: bytes) -> bool:
    """Whether ``source`` holds what ``spec``'s grammar reads wrongly without an error."""
    misreads = MISREADS.get(spec.rewrite)
    return misreads is not None and misreads(source)


def reread(
    spec: LanguageSpec, source: bytes, tree: Tree, errors: int, *, misread: bool = False
) -> tuple[bytes, Tree, int]:
    """The source, tree and error count of the best reading of ``source``: its builds are
    made of its rewritten reading (C#'s pointer indirections'), whether or not that alone
    read better. Of a source ``misread`` holds, the rewritten reading is kept with as many
    errors as the first."""
    readable = REWRITES[spec.rewrite](source) if spec.rewrite else source
    readable_tree, readable_errors = tree, errors
    if readable != source:
        readable_tree = parse_tree(spec, readable)
        readable_errors = count_errors(readable_tree.root_node)
    if readable_errors and spec.conditionals:
        readable_tree, readable_errors = _best_build(spec, readable, readable_tree, readable_errors)
    if readable_errors < errors or (misread and readable != source and readable_errors <= errors):
        return readable, readable_tree, readable_errors
    return source, tree, errors


def _best_build(spec: LanguageSpec, source: bytes, tree: Tree, errors: int) -> tuple[Tree, int]:
    """``tree`` or, where it reads with fewer syntax errors, a reading of ``source`` with its
    directive lines blanked and the ``#if`` groups its errors fall in reduced to one
    branch; of those, the one that leaves the least code unread, blanked or in an ERROR
    node. The groups are reduced from the innermost out, round by round, and all of them
    where errors are left (an error a group made far from it)."""
    builds = _Builds(spec, source)
    if not builds.conditionals.directives:
        return tree, errors
    written = error_spans(tree.root_node)
    for undefined_is in (True, False):
        reduced: frozenset[int] | None = None
        left = written  # the errors the last reading left
        for _ in range(_ROUNDS):
            more = builds.conditionals.to_reduce(left, reduced or frozenset())
            if more == reduced:
                break
            reduced = more
            reading = builds.read(reduced, undefined_is=undefined_is)
            if reading is None:
                break
            left = reading
            if not left:
                break
        if left and reduced != builds.conditionals.groups:
            builds.read(builds.conditionals.groups, undefined_is=undefined_is)
    best = builds.best
    return (best[2], best[1]) if best is not None and best[1] < errors else (tree, errors)


class _Builds:
    """The builds of one source read so far, and the best of them: (code unread, errors, tree)."""

    def __init__(self, spec: LanguageSpec, source: bytes) -> None:
        self.spec = spec
        self.conditionals = Conditionals(source, language=spec.conditionals)
        self.spaces = source.count(b" ")
        self.tried: set[bytes] = set()
        self.best: tuple[int, int, Tree] | None = None

    def read(self, reduced: frozenset[int], *, undefined_is: bool) -> list[tuple[int, int]] | None:
        """The error spans of a build not read before (none: it reads without an error)."""
        build = self.conditionals.build(reduced, undefined_is=undefined_is)
        if build in self.tried:
            return None
        self.tried.add(build)
        tree = parse_tree(self.spec, build)
        spans = error_spans(tree.root_node)
        # code unread: an ERROR node's bytes, one for each MISSING node, and what the build blanked
        unread = sum(max(end - start, 1) for start, end in spans) + build.count(b" ") - self.spaces
        if self.best is None or unread < self.best[0]:
            self.best = (unread, count_errors(tree.root_node), tree)
        return spans
