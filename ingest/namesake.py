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
  ``getEntryInfo``) and few symbols of its kind in the tree bear it (``specific.RARE_NAME``):
  such a name is rarely chosen twice for unrelated code, unless it is a method that
  many classes implement (``toString``, SQLAlchemy's ``bind_processor``, the
  ``AtHistogram`` of each of Prometheus' iterators);
- the code is alike (``MOVED_WITH_EDITS``), as a move with edits to another scope needs,
  or, shorter than ``MIN_TOKENS`` (a Go function declared for assembly), nearly the same;
- the two files are related: git renamed one to the other, the old module became a
  package of its name (``test_unittest.py`` → ``test_unittest/__init__.py``,
  ``pathlib.py`` → ``pathlib/_local.py``), they are the only file of their name that
  left and the only one that arrived (``lib/JsonParser.js`` → ``lib/json/JsonParser.js``,
  too edited for git to pair; for a name many directories hold, with their directory's
  name: ``testmock/__init__.py``), they are in one directory of a language whose
  directories are namespaces (a Go package's ``os_unix.go`` → ``os_uname.go``; for one
  qualified name, not a member gone to another type), or another symbol of the old
  file already continues in the new one (pip's ``Command`` class, much rewritten,
  followed by its ``__init__``; webpack's ``Entry`` type beside the 19 other types of
  ``WebpackOptions.d.ts`` that went to ``types.d.ts``).

Pairs that relate two files this way let their remaining namesakes pair in a second
round. Derived entries (a tool's setting moved from ``setup.cfg`` to ``pyproject.toml``)
pair by their name, which their kind makes specific."""

from __future__ import annotations

import posixpath
from collections import Counter
from collections.abc import Mapping
from typing import TYPE_CHECKING

from recalld.ingest.follow import MEMBERS_VOTE, Pairing
from recalld.ingest.likeness import (
    IN_PLACE_CANDIDATES,
    MIN_TOKENS,
    MOVED_WITH_EDITS,
    RENAMED_WITH_EDITS,
    Likenesses,
    OldSource,
    affinity_of,
    is_distinctive,
    measured_likeness,
    memoised_likeness,
    overlap,
    pair_alike,
    tokens,
)
from recalld.ingest.qualnames import alike_names, declared_words, parent_scope, short_name
from recalld.ingest.specific import SpecificNames
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
# The most scopes that symbols left or arrived in, in one commit, whose names may bear a
# word that two scopes share for it to relate them.
RARE_WORD = 3


class Kinship:
    """Whether the files of a symbol that left and one that arrived are related (see the
    module); ``relink`` after pairs are found."""

    def __init__(self, pairing: Pairing, renames: Mapping[str, str]) -> None:
        self.pairing, self.renames = pairing, renames
        self.leavers = {mem.id: mem for mem, _reason in pairing.closing}
        self.linked: set[tuple[str, str]] = set()  # (old path, new path) of the pairs found: relink
        left, arrived = {m.path for m in self.leavers.values()}, {v.file.path for v in pairing.arriving}
        self.left_names = Counter(name for path in left for name in _names(path))
        self.new_names = Counter(name for path in arrived for name in _names(path))

    def relink(self) -> None:
        leavers = self.leavers
        self.linked = {(leavers[old_id].path, version.file.path)
                       for old_id, version in self.pairing.matched.items() if old_id in leavers}  # fmt: skip

    def __call__(self, mem: LiveMemory, version: NewVersion, *, namespace: bool = True) -> bool:
        """``namespace``: whether one directory of a language whose directories are
        namespaces relates two files (it does for one qualified name, not for a member
        that went to another type: Prometheus' ``MemoizedSeriesIterator.AtHistogram`` is
        not ``errIterator.AtHistogram`` in a test file of the same package)."""
        old_path, new_path = self.renames.get(mem.path, mem.path), version.file.path
        if old_path == new_path or (mem.path, new_path) in self.linked:
            return True
        if new_path.startswith(posixpath.splitext(old_path)[0] + "/"):  # a module became a package
            return True
        for name in set(_names(mem.path)) & set(_names(new_path)):  # one file of its name left, one arrived
            if self.left_names[name] == self.new_names[name] == 1:
                return True
        return namespace and _same_directory(mem.path, new_path) and _shares_directory(version)


def _names(path: str) -> tuple[str, ...]:
    """What a file is named by: its base name, and with its directory's name too, for a
    base name many directories hold (``unittest/test/testmock/__init__.py`` →
    ``test/test_unittest/testmock/__init__.py`` is the only ``testmock/__init__.py`` that
    left and arrived)."""
    parts = path.rsplit("/", 2)
    return (parts[-1], "/".join(parts[-2:])) if len(parts) > 1 else (parts[-1],)


def pair_namesakes(
    pairing: Pairing,
    related: Kinship,
    specific: SpecificNames,
    old_source: OldSource | None,
    memo: Likenesses,
    *,
    old_docstring: OldSource | None = None,
) -> None:
    """The same (kind, qualname) with other code, where one candidate is the closest on
    both sides and the pair is more than its name (see the module); never by a name that
    tells nothing (each eslint formatter's export is ``default``). ``memo`` holds
    likeness already measured, keyed as ``pair_alike`` keys it; ``old_docstring`` tells
    a leaver's docstring, which with its code tells several namesakes apart."""

    def old_key(mem: LiveMemory) -> tuple[str, str] | None:
        return None if mem.qualname == DEFAULT_EXPORT else (mem.kind, mem.qualname)

    def new_key(version: NewVersion) -> tuple[str, str]:
        return (version.symbol.kind, version.symbol.qualname)

    def telling(mem: LiveMemory, version: NewVersion) -> bool:
        if memory_type(mem.kind) != STRUCTURAL:  # a tool's setting, one per repository
            return True
        return related(mem, version) or specific(mem) or alike(mem, version)

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
        short = not (is_distinctive(before) and is_distinctive(version.symbol.source))
        threshold = NEARLY_THE_SAME if short else MOVED_WITH_EDITS
        return memoised_likeness(memo, mem, version, before, threshold, min_tokens=0 if short else MIN_TOKENS) > 0

    left: dict[str, tuple[Counter[str] | None, Counter[str] | None]] = {}  # a leaver's tokens: code, docstring
    arrived: dict[str, tuple[Counter[str], Counter[str]]] = {}

    def texts_alike(mem: LiveMemory, version: NewVersion) -> float:
        """Between several namesakes, how alike their code is, and their docstrings,
        each counting half (their tokens' ``overlap``): a long comment above short code
        does not outweigh it (Go 1.24's ``pause`` of ``lock_js.go`` continues, the same
        code, in ``stubs_wasm.go``, its comment rewritten), nor long code the docstring.
        svelte 5's client ``getContext`` kept 4's JSDoc; its server one is the more alike
        in code. A leaver without a docstring is weighed by its code (rxjs 5.5's ``zip``
        overloads had none, nor have 6.0's in ``observable/``, but they continue in
        ``operators/``). None where there is no choice."""
        key = new_key(version)
        if old_source is None or not 1 < leaving[key] * arriving[key] <= COMPARED_NAMESAKES:
            return 0.0
        if mem.id not in left:
            code, docstring = old_source(mem), old_docstring(mem) if old_docstring is not None else None
            left[mem.id] = (tokens(code) if code is not None else None, tokens(docstring) if docstring else None)
        if version.id not in arrived:
            arrived[version.id] = (tokens(version.symbol.source), tokens(version.symbol.docstring))
        (old_code, old_doc), (new_code, new_doc) = left[mem.id], arrived[version.id]
        code_alike = overlap(old_code, new_code) if old_code is not None else 0.0
        return code_alike if old_doc is None else (code_alike + overlap(old_doc, new_doc)) / 2

    def between(mem: LiveMemory, version: NewVersion) -> tuple[float, ...]:
        """Related files before alike texts: rxjs 5.5's ``operators/delay.ts`` (the only
        file of that name to leave and to arrive) continues in 7's
        ``internal/operators/delay.ts``, not ``operator/delay.ts``, the prototype patch
        whose ``delay`` kept as much of the documentation."""
        return float(related(mem, version)), texts_alike(mem, version)

    closest = affinity_of(related.renames, between)
    related.relink()
    if pairing.pair_by(old_key, new_key, guess=False, admissible=telling, affinity=closest):
        related.relink()
    pairing.pair_by(old_key, new_key, guess=False, admissible=related, affinity=closest)


def pair_moved_namesakes(
    pairing: Pairing,
    related: Kinship,
    specific: SpecificNames,
    old_source: OldSource,
    memo: Likenesses,
) -> None:
    """The same (kind, name) in another scope, code alike (``MOVED_WITH_EDITS``):
    ``Flask.errorhandler`` edited into ``Scaffold.errorhandler`` in another file. Code
    merely alike in unrelated scopes and files is no move: within one release
    ``pipes.Template.copy`` is not ``_pyrepl``'s new ``TermState.copy`` (0.68 alike), nor
    ``importlib.metadata``'s ``Deprecated.keys`` ``dbm.sqlite3``'s (0.78). Such a pair is
    kept where its code is nearly the same (``NEARLY_THE_SAME``), its name is specific
    (``SpecificNames``), the two scopes share a rare word (``_RareWords``), members of one
    scope went to the other together (``_MovedTogether``: ``InstallationCandidate``'s
    comparisons to ``KeyBasedCompareMixin``), or the files are related, kept pairs
    relating them too;
    not a member whose own scope continues where its name arrived too
    (``_following_scopes_first``)."""
    related.relink()
    found = pair_alike(
        pairing.closing, pairing.arriving, pairing.matched, pairing.taken, old_source, threshold=MOVED_WITH_EDITS,
        old_key=lambda m: (m.kind, short_name(m.qualname)),
        new_key=lambda v: (v.symbol.kind, short_name(v.symbol.qualname)), affinity=pairing.affinity, memo=memo,
    )  # fmt: skip
    pairs = _following_scopes_first(pairing, related.leavers, found, old_source, memo)
    moved_together = _MovedTogether(pairing, related.leavers, pairs)
    share_a_rare_word = _RareWords(pairing)

    def telling(mem: LiveMemory, version: NewVersion) -> bool:
        scopes = _scopes(mem, version)
        nearly_the_same = measured_likeness(memo, mem, version, MOVED_WITH_EDITS) >= NEARLY_THE_SAME
        nearly_the_same = nearly_the_same and not specific.commonplace(mem)
        return (nearly_the_same or related(mem, version, namespace=False) or specific(mem)
                or moved_together(scopes) or share_a_rare_word(scopes[1], scopes[3]))  # fmt: skip

    undecided = []
    for mem, version in pairs:
        if telling(mem, version):
            pairing.matched[mem.id] = version
        else:
            undecided.append((mem, version))
    related.relink()
    for mem, version in undecided:
        if related(mem, version, namespace=False):
            pairing.matched[mem.id] = version
        else:
            pairing.taken.discard(version.id)  # arrived new


def _following_scopes_first(
    pairing: Pairing,
    leavers: Mapping[str, LiveMemory],
    found: Mapping[str, NewVersion],
    old_source: OldSource,
    memo: Likenesses,
) -> list[tuple[LiveMemory, NewVersion]]:
    """``found``'s pairs but those of a member whose scope continues in another scope
    where a member of its kind and name arrived, its code alike too: it follows its scope
    (``follow_scopes``, after this pass), not code more alike elsewhere. A scope
    continues where it was paired, before or in this pass, or where two or more, and
    most, of the other members paired went. junit 5.10 moved ``DefaultRepetitionInfo``
    out of ``RepetitionInfoParameterResolver`` into a file of its own; its ``toString``,
    with two fields more (0.74 alike), is less like itself than like a new
    ``TempDirectory.FieldContext``'s (0.85). A member whose code there is not alike
    keeps its pair (hugo 0.123's ``sliceDir.Readdirnames`` → ``componentFsDir``'s, 0.92,
    not a stub's). Nor a pair whose new member arrived in a scope that continues another,
    from which a member of its kind left unpaired, code alike enough to be renamed in
    place (``RENAMED_WITH_EDITS``): it is that member renamed (``follow_scopes``), as it
    is when the pass before pairs the scope. rxjs 6 moved ``CombineLatestSubscriber``
    and renamed its ``_tryProject`` ``_tryResultSelector`` (0.97 alike); the
    ``_tryResultSelector`` of the removed ``FirstSubscriber`` (0.79) is not it."""
    if not found:  # nothing to weigh: the scopes below are not worth working out
        return []
    pairs = [(leavers[old_id], v) for old_id, v in (*pairing.matched.items(), *found.items()) if old_id in leavers]
    paired = {(mem.path, mem.qualname): (v.file.path, v.symbol.qualname) for mem, v in pairs}
    went: dict[tuple[str, str], Counter[tuple[str, str]]] = {}  # an old scope -> where its members went
    for mem, v in pairs:
        old_path, old_scope, new_path, new_scope = _scopes(mem, v)
        went.setdefault((old_path, old_scope), Counter())[(new_path, new_scope)] += 1
    waiting = {(v.symbol.kind, v.file.path, parent_scope(v.symbol.qualname), short_name(v.symbol.qualname)): v
               for v in pairing.arriving if v.id not in pairing.taken}  # fmt: skip

    def successor(scope: tuple[str, str], place: tuple[str, str] | None = None) -> tuple[str, str] | None:
        if scope in paired:
            return paired[scope]
        others = went.get(scope, Counter()) - Counter([place] if place else [])  # where the other members went
        top = others.most_common(1)
        return top[0][0] if top and top[0][1] >= 2 and 2 * top[0][1] > others.total() else None

    unpaired: dict[tuple[str, str, str], list[LiveMemory]] = {}  # by (kind, old path, old scope)
    for mem in leavers.values():
        if mem.id not in pairing.matched and mem.id not in found and parent_scope(mem.qualname):
            unpaired.setdefault((mem.kind, mem.path, parent_scope(mem.qualname)), []).append(mem)
    came_from: dict[tuple[str, str], list[tuple[str, str]]] = {}  # a new scope -> the old ones it continues
    for old in {(path, parent) for _kind, path, parent in unpaired}:
        if (new := successor(old)) is not None:
            came_from.setdefault(new, []).append(old)

    def alike(mem: LiveMemory, version: NewVersion, threshold: float = MOVED_WITH_EDITS) -> bool:
        before = old_source(mem)
        return before is not None and memoised_likeness(memo, mem, version, before, threshold) > 0

    def renamed_in_place(mem: LiveMemory, version: NewVersion, place: tuple[str, str]) -> bool:
        """Whether another scope continues at ``place`` (not ``mem``'s own, which goes there
        with it) and one of its members that left is ``version``, renamed (one of the same
        name is a namesake, which this pass weighed: webpack 5's ``Compilation.
        getRenderManifest`` continues ``ChunkTemplate``'s or ``MainTemplate``'s)."""
        olds = [old for old in came_from.get(place, ()) if old != (mem.path, parent_scope(mem.qualname))]
        name = short_name(version.symbol.qualname)
        rivals = [m for old in olds for m in unpaired.get((version.symbol.kind, *old), ())
                  if short_name(m.qualname) != name]  # fmt: skip
        return len(rivals) <= IN_PLACE_CANDIDATES and any(alike(m, version, RENAMED_WITH_EDITS) for m in rivals)

    kept = []
    for old_id, version in found.items():
        mem, place = leavers[old_id], (version.file.path, parent_scope(version.symbol.qualname))
        scope = successor((mem.path, parent_scope(mem.qualname)), place) if parent_scope(mem.qualname) else None
        there = waiting.get((mem.kind, *scope, short_name(mem.qualname))) if scope not in (None, place) else None
        if (there is not None and alike(mem, there)) or (scope != place and renamed_in_place(mem, version, place)):
            pairing.taken.discard(version.id)
            continue
        kept.append((mem, version))
    return kept


class _MovedTogether:
    """Whether members of one scope went to another together: ``MEMBERS_VOTE`` or more of
    them, in this pass or before it, and half or more of the members that left the one or
    of those that arrived in the other (pip 19's ``InstallationCandidate`` gave seven
    comparisons to a new ``KeyBasedCompareMixin`` of nine members). Two methods alike in
    classes with many more are no move: SQLAlchemy 2.0's removed ``MySQLDialect_oursql``
    did not become ``PGDialect_psycopg`` for their ``do_commit_twophase`` and
    ``do_rollback_twophase`` (2 of 23 methods each), nor hugo's ``FilterFs`` (18 methods)
    a new ``OpenFilesFs`` (6) for ``Open`` and ``UnwrapFilesystem``, nor webpack 5's
    ``TrackingSet`` (6) its ``LazySet`` (14) for ``has`` and ``delete``."""

    def __init__(
        self, pairing: Pairing, leavers: Mapping[str, LiveMemory], pairs: list[tuple[LiveMemory, NewVersion]]
    ) -> None:
        earlier = [(leavers[old_id], v) for old_id, v in pairing.matched.items() if old_id in leavers]
        self._went = Counter(_scopes(mem, version) for mem, version in (*earlier, *pairs))
        self._left = Counter((m.path, parent_scope(m.qualname)) for m, _reason in pairing.closing)
        self._arrived = Counter((v.file.path, parent_scope(v.symbol.qualname)) for v in pairing.arriving)

    def __call__(self, scopes: tuple[str, str, str, str]) -> bool:
        count = self._went[scopes] if scopes[1] else 0
        return count >= MEMBERS_VOTE and 2 * count >= min(self._left[scopes[:2]], self._arrived[scopes[2:]])


def _scopes(mem: LiveMemory, version: NewVersion) -> tuple[str, str, str, str]:
    """The old file and scope of a pair, and the new."""
    return (mem.path, parent_scope(mem.qualname), version.file.path, parent_scope(version.symbol.qualname))


class _RareWords:
    """Whether two scopes' names are half the same words (``DelegatedExportsDependency``,
    ``StaticExportsDependency``), or share a word that few of the scopes a commit's
    symbols left or arrived in bear (``RARE_WORD``): SQLAlchemy 2.0's
    ``MySQLDialect_oursql`` and ``PGDialect_psycopg`` share only "dialect", one of dozens
    of dialects in play, as Prometheus' iterators share "iterator", webpack 5's
    ``MultiModule`` and ``FallbackModule`` "module"."""

    def __init__(self, pairing: Pairing) -> None:
        scopes = {parent_scope(m.qualname) for m, _reason in pairing.closing}
        scopes.update(parent_scope(v.symbol.qualname) for v in pairing.arriving)
        self._bearers = Counter(word for scope in scopes for word in declared_words(scope))

    def __call__(self, old: str, new: str) -> bool:
        shared = declared_words(old) & declared_words(new)
        return alike_names(old, new) or any(self._bearers[word] <= RARE_WORD for word in shared)


def _same_directory(old_path: str, new_path: str) -> bool:
    same_type = posixpath.splitext(old_path)[1] == posixpath.splitext(new_path)[1]
    return same_type and posixpath.dirname(old_path) == posixpath.dirname(new_path)


def _shares_directory(version: NewVersion) -> bool:
    spec = LANGUAGES.get(version.file.language)
    return spec is not None and spec.directory_namespace
