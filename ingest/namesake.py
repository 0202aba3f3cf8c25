"""Pairing a symbol that left one file with one of the same name that arrived in another,
with other code (``pair_namesakes``: the same qualified name; ``pair_moved_namesakes``:
the same name in another scope, code alike): for the planner (``ingest/plan.py``),
after code that moved unchanged and members that followed their scopes.

A name alone is weak evidence across files. Within a release-sized step, a top-level
``execute`` leaves with a removed module (``distutils.util``) while an unrelated new one
(``sqlite3.__main__``) brings its own, and each is the other's only candidate; the
same holds for ``main``, ``open``, ``error``, ``Command``, ``__getattr__``. So a pair of
namesakes in two files is taken when something beside the name says so:

- the name is made of two or more words (``MultiDomainBasicAuth``, ``open_binary``,
  ``getEntryInfo``): such a name is rarely chosen twice for unrelated code;
- the code is alike (``MOVED_WITH_EDITS``), as a move with edits to another scope needs,
  or, shorter than ``MIN_TOKENS`` (a Go function declared for assembly), nearly the same;
- the two files are related: git renamed one to the other, they are the only file of
  their name that left and the only one that arrived (``lib/JsonParser.js`` →
  ``lib/json/JsonParser.js``, too edited for git to pair), they are in one directory
  of a language whose directories are namespaces (a Go package's ``os_unix.go`` →
  ``os_uname.go``), or another symbol of the old file already continues in the new
  one (pip's ``Command`` class, much rewritten, followed by its ``__init__``;
  webpack's ``Entry`` type beside the 19 other types of ``WebpackOptions.d.ts`` that
  went to ``types.d.ts``).

Pairs that relate two files this way let their remaining namesakes pair in a second
round. Derived entries (a tool's setting moved from ``setup.cfg`` to ``pyproject.toml``)
pair by their name, which their kind makes specific."""

from __future__ import annotations

import posixpath
from collections import Counter
from collections.abc import Mapping
from typing import TYPE_CHECKING

from recalld.ingest.follow import Pairing
from recalld.ingest.likeness import (
    MIN_TOKENS,
    MOVED_WITH_EDITS,
    OldSource,
    is_distinctive,
    likeness,
    pair_alike,
    parent_scope,
    share_a_word,
    short_name,
)
from recalld.ingest.sparse import identifier_words
from recalld.parsers.base import DEFAULT_EXPORT, STRUCTURAL, memory_type
from recalld.parsers.registry import LANGUAGES

if TYPE_CHECKING:
    from recalld.ingest.plan import LiveMemory, NewVersion

# Nearly the same code: what code shorter than MIN_TOKENS, mostly its name and signature,
# must be to count as alike (``func block(dig *digest, p []byte)`` → ``func block(dig
# *Digest, p []byte)``), and what alike code of a one-word name must be to move alone.
NEARLY_THE_SAME = 0.9
# The most (left × arrived) pairs of one name whose code is compared: a name left and
# arrived in this many places (each Go package's ``init``) is paired by its files alone.
COMPARED_NAMESAKES = 256


class Kinship:
    """Whether the files of a symbol that left and one that arrived are related (see the
    module); ``relink`` after pairs are found."""

    def __init__(self, pairing: Pairing, renames: Mapping[str, str]) -> None:
        self.pairing, self.renames = pairing, renames
        self.leavers = {mem.id: mem for mem, _reason in pairing.closing}
        self.linked: set[tuple[str, str]] = set()  # (old path, new path) of the pairs found: relink
        self.left_names = Counter(posixpath.basename(p) for p in {m.path for m in self.leavers.values()})
        self.new_names = Counter(posixpath.basename(p) for p in {v.file.path for v in pairing.arriving})

    def relink(self) -> None:
        leavers = self.leavers
        self.linked = {(leavers[old_id].path, version.file.path)
                       for old_id, version in self.pairing.matched.items() if old_id in leavers}  # fmt: skip

    def __call__(self, mem: LiveMemory, version: NewVersion) -> bool:
        old_path, new_path = self.renames.get(mem.path, mem.path), version.file.path
        if old_path == new_path or (mem.path, new_path) in self.linked:
            return True
        name = posixpath.basename(new_path)  # one file of its name left, one arrived
        if name == posixpath.basename(mem.path) and self.left_names[name] == self.new_names[name] == 1:
            return True
        return _same_directory(mem.path, new_path) and _shares_directory(version)


def pair_namesakes(
    pairing: Pairing,
    related: Kinship,
    old_source: OldSource | None,
    memo: dict[tuple[str, str, float], float],
) -> None:
    """The same (kind, qualname) with other code, where one candidate is the closest on
    both sides and the pair is more than its name (see the module); never by a name that
    tells nothing (each eslint formatter's export is ``default``). ``memo`` holds
    likeness already measured, keyed as ``pair_alike`` keys it."""

    def old_key(mem: LiveMemory) -> tuple[str, str] | None:
        return None if mem.qualname == DEFAULT_EXPORT else (mem.kind, mem.qualname)

    def new_key(version: NewVersion) -> tuple[str, str]:
        return (version.symbol.kind, version.symbol.qualname)

    def telling(mem: LiveMemory, version: NewVersion) -> bool:
        if memory_type(mem.kind) != STRUCTURAL:  # a tool's setting, one per repository
            return True
        return related(mem, version) or compound(mem.qualname) or alike(mem, version)

    # Code is not compared under a key that many symbols left or arrived at (Go's ``init``).
    leaving = Counter(old_key(mem) for mem, _reason in pairing.closing if mem.id not in pairing.matched)
    arriving = Counter(new_key(version) for version in pairing.arriving if version.id not in pairing.taken)

    def alike(mem: LiveMemory, version: NewVersion) -> bool:
        key = new_key(version)  # the pair's key: its old one too
        if old_source is None or leaving[key] * arriving[key] > COMPARED_NAMESAKES:
            return False
        before = old_source(mem)
        if before is None:
            return False
        after = version.symbol.source
        short = not (is_distinctive(before) and is_distinctive(after))
        threshold = NEARLY_THE_SAME if short else MOVED_WITH_EDITS
        measured = (mem.id, version.id, threshold)  # as pair_alike keys what it measured
        score = memo.get(measured)
        if score is None:
            score = memo[measured] = likeness(before, after, threshold, min_tokens=0 if short else MIN_TOKENS)
        return score > 0

    related.relink()
    if pairing.pair_by(old_key, new_key, guess=False, admissible=telling):
        related.relink()
    pairing.pair_by(old_key, new_key, guess=False, admissible=related)


def pair_moved_namesakes(
    pairing: Pairing,
    related: Kinship,
    old_source: OldSource,
    memo: dict[tuple[str, str, float], float],
) -> None:
    """The same (kind, name) in another scope, code alike (``MOVED_WITH_EDITS``):
    ``Flask.errorhandler`` edited into ``Scaffold.errorhandler`` in another file. Code of
    a one-word name merely alike in unrelated scopes and files is no move: within one
    release ``pipes.Template.copy`` is not ``_pyrepl``'s new ``TermState.copy`` (0.68
    alike), nor ``importlib.metadata``'s ``Deprecated.keys`` ``dbm.sqlite3``'s (0.78).
    Such a pair is kept where its code is nearly the same (``NEARLY_THE_SAME``), the two
    scopes share a word, two or more members of one scope went to one scope
    (``InstallationCandidate``'s comparisons to ``KeyBasedCompareMixin``), or the files
    are related, kept pairs relating them too."""
    related.relink()
    found = pair_alike(
        pairing.closing, pairing.arriving, pairing.matched, pairing.taken, old_source, threshold=MOVED_WITH_EDITS,
        old_key=lambda m: (m.kind, short_name(m.qualname)),
        new_key=lambda v: (v.symbol.kind, short_name(v.symbol.qualname)), affinity=pairing.affinity, memo=memo,
    )  # fmt: skip
    pairs = [(related.leavers[old_id], version) for old_id, version in found.items()]
    moved_together = Counter((m.path, parent_scope(m.qualname), v.file.path, parent_scope(v.symbol.qualname))
                             for m, v in pairs if parent_scope(m.qualname))  # fmt: skip

    def telling(mem: LiveMemory, version: NewVersion) -> bool:
        scopes = (mem.path, parent_scope(mem.qualname), version.file.path, parent_scope(version.symbol.qualname))
        nearly_the_same = memo.get((mem.id, version.id, MOVED_WITH_EDITS), 0.0) >= NEARLY_THE_SAME
        return (nearly_the_same or compound(mem.qualname) or related(mem, version) or moved_together[scopes] > 1
                or share_a_word(scopes[1], scopes[3]))  # fmt: skip

    undecided = []
    for mem, version in pairs:
        if telling(mem, version):
            pairing.matched[mem.id] = version
        else:
            undecided.append((mem, version))
    related.relink()
    for mem, version in undecided:
        if related(mem, version):
            pairing.matched[mem.id] = version
        else:
            pairing.taken.discard(version.id)  # arrived new


def compound(qualname: str) -> bool:
    """Whether a symbol's own name is two or more words (``open_text``, ``HTMLPage``)."""
    return len(identifier_words(short_name(qualname))) > 1


def _same_directory(old_path: str, new_path: str) -> bool:
    same_type = posixpath.splitext(old_path)[1] == posixpath.splitext(new_path)[1]
    return same_type and posixpath.dirname(old_path) == posixpath.dirname(new_path)


def _shares_directory(version: NewVersion) -> bool:
    spec = LANGUAGES.get(version.file.language)
    return spec is not None and spec.directory_namespace
