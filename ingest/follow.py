"""Members follow their scope, for the planner (``ingest/plan.py``): where git paired no
file (a class moved to a new file and renamed in one commit, a file changed too much for
git to see it as renamed), what left and what arrived are paired through the scopes
they belong to. A class is where most of its members went; a member continues the
member of the same name in its class's successor; a deleted file is the new file that
most of its top level went to, and its module memory continues there."""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Callable, Hashable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, TypeVar

from recalld.ingest.likeness import (
    IN_PLACE_CANDIDATES,
    RENAMED_WITH_EDITS,
    Affinity,
    Likenesses,
    OldSource,
    closest_pairs,
    names_share_a_word,
    pair_alike,
)
from recalld.ingest.qualnames import decoration, parent_scope, short_name
from recalld.parsers.base import STRUCTURAL, memory_type

if TYPE_CHECKING:
    from recalld.ingest.plan import LiveMemory, NewVersion

RENAME_ROUNDS = 4  # scopes nested this deep are followed through renames of their own
MODULE = "<module>"  # a file's own memory
# Paired members that must have gone to one new scope for their old scope to be taken
# for it: one method with the same code may be a helper moved alone.
MEMBERS_VOTE = 2
K = TypeVar("K", bound=Hashable)


@dataclass(slots=True)
class Pairing:
    """What left and what arrived in one plan, and the pairs found so far."""

    closing: list[tuple[LiveMemory, str]]
    arriving: list[NewVersion]
    matched: dict[str, NewVersion]  # id that left -> its successor
    taken: set[str]  # ids of successors
    affinity: Affinity
    left_whole: frozenset[str] = frozenset()  # paths deleted, git paired them with no file
    new_files: frozenset[str] = frozenset()  # paths that are new, git paired no file with them
    files: dict[str, str] = field(default_factory=dict)  # a file that left whole -> the new one it became

    def pair_by(
        self,
        old_key: Callable[[LiveMemory], Hashable | None],
        new_key: Callable[[NewVersion], Hashable | None],
        *,
        guess: bool,
        admissible: Callable[[LiveMemory, NewVersion], bool] | None = None,
        affinity: Affinity | None = None,
    ) -> int:
        """Unpaired candidates of one key paired by ``closest_pairs`` (a None key: none),
        by ``affinity`` or the pairing's; how many pairs."""
        olds: dict[Hashable, list[LiveMemory]] = defaultdict(list)
        for mem, _reason in self.closing:
            if mem.id not in self.matched and (key := old_key(mem)) is not None:
                olds[key].append(mem)
        news: dict[Hashable, list[NewVersion]] = defaultdict(list)
        for version in self.arriving:
            if version.id not in self.taken and (key := new_key(version)) is not None:
                news[key].append(version)
        found = 0
        for key, left in olds.items():
            paired = closest_pairs(left, news.get(key, []), affinity or self.affinity, guess=guess,
                                   admissible=admissible)  # fmt: skip
            for mem, version in paired:
                self.matched[mem.id] = version
                self.taken.add(version.id)
                found += 1
        return found


def follow_scopes(
    pairing: Pairing,
    renames: Mapping[str, str],
    old_source: OldSource,
    memo: Likenesses,
    *,
    names_first: bool = False,
) -> None:
    """Members follow their scope, in rounds, outer scopes first (each round may let the
    next pair what they hold):

    - a scope that left (a class) half or more of whose members went to one scope that
      arrived is that scope, renamed (``Loader`` in ``loaders.py`` → ``Reader`` in ``readers.py``,
      its unchanged methods paired by their code);
    - a member of a scope paired with another continues the member of the same name in
      it, however edited, as it would have in place (``Loader.__init__`` →
      ``Reader.__init__``, a name too common to pair by likeness across a commit);
    - a member renamed where it is (the same file, or the one git renamed it to, and
      the same scope or the scope's successor: ``Shape.area`` → ``Figure.surface``)
      when its code is alike, overloads of one name among themselves first. With
      ``names_first``, not one whose own name arrived in another scope: the same name
      elsewhere is asked first (SQLAlchemy's tests moved to ``test_deprecations.py``
      under their names while a variant took their place)."""
    closing, arriving, matched, taken = pairing.closing, pairing.arriving, pairing.matched, pairing.taken
    for _round in range(RENAME_ROUNDS):
        found = scopes_by_members(pairing, renames)
        scopes = {(renames.get(m.path, m.path), m.qualname): (matched[m.id].file.path, matched[m.id].symbol.qualname)
                  for m, _ in closing if m.id in matched}  # fmt: skip
        scopes.update({(old, ""): (new, "") for old, new in pairing.files.items()})  # a file's top level

        def successor_scope(mem: LiveMemory) -> tuple[str, str]:
            path, parent = renames.get(mem.path, mem.path), parent_scope(mem.qualname)
            return scopes.get((path, parent), (path, parent))

        def moved_scope(mem: LiveMemory) -> Hashable | None:
            path, parent = renames.get(mem.path, mem.path), parent_scope(mem.qualname)
            successor = scopes.get((path, parent))
            return None if successor is None else (mem.kind, *successor, short_name(mem.qualname))

        found += pairing.pair_by(
            moved_scope,
            lambda v: (v.symbol.kind, v.file.path, parent_scope(v.symbol.qualname), short_name(v.symbol.qualname)),
            guess=False,
        )
        leavers = _not_named_elsewhere(closing, arriving, taken, successor_scope) if names_first else closing
        # Overloads of one name first (``addAll(int[], int[])`` → ``addAll(int[], int...)``):
        # a scope that gained hundreds of members has too many pairs to compare whole.
        renamed = pair_alike(
            leavers, arriving, matched, taken, old_source, threshold=RENAMED_WITH_EDITS,
            old_key=lambda m: (m.kind, *successor_scope(m), short_name(m.qualname)),
            new_key=lambda v: (v.symbol.kind, v.file.path, parent_scope(v.symbol.qualname),
                               short_name(v.symbol.qualname)),
            affinity=pairing.affinity, short_ok=names_share_a_word, memo=memo, candidates=IN_PLACE_CANDIDATES,
        )  # fmt: skip
        matched.update(renamed)
        renamed.update(pair_alike(
            leavers, arriving, matched, taken, old_source, threshold=RENAMED_WITH_EDITS,
            old_key=lambda m: (m.kind, *successor_scope(m)),
            new_key=lambda v: (v.symbol.kind, v.file.path, parent_scope(v.symbol.qualname)), affinity=pairing.affinity,
            short_ok=names_share_a_word, memo=memo, candidates=IN_PLACE_CANDIDATES,
        ))  # fmt: skip
        matched.update(renamed)
        found += _follow_siblings(pairing, renames)
        if not found and not renamed:
            return


def _follow_siblings(pairing: Pairing, renames: Mapping[str, str]) -> int:
    """Symbols that share a name in one scope (overloads, ``#2`` repeats) follow each
    other: where two or more of them, a strict majority of those paired, went to symbols
    of one other name, the rest continue the one of that name with the same parameter
    types or repeat mark, however edited (rxjs 7's ``combineAll`` → ``combineLatestAll``:
    four overloads alike, the implementation rewritten). How many pairs."""

    def family(path: str, qualname: str) -> tuple[str, str, str]:
        return path, parent_scope(qualname), short_name(qualname)

    votes: dict[tuple[str, ...], Counter[tuple[str, ...]]] = defaultdict(Counter)
    for mem, _reason in pairing.closing:
        successor = pairing.matched.get(mem.id)
        if successor is not None and memory_type(mem.kind) == STRUCTURAL:
            left: tuple[str, ...] = (mem.kind, *family(renames.get(mem.path, mem.path), mem.qualname))
            votes[left][(successor.symbol.kind, *family(successor.file.path, successor.symbol.qualname))] += 1
    moved: dict[tuple[str, ...], tuple[str, ...]] = {}
    for left, went in votes.items():
        new = _voted(went)
        if new is not None and new[3] != left[3]:
            moved[left] = new
    if not moved:
        return 0

    def old_key(mem: LiveMemory) -> Hashable | None:
        new = moved.get((mem.kind, *family(renames.get(mem.path, mem.path), mem.qualname)))
        return None if new is None else (*new, decoration(mem.qualname))

    return pairing.pair_by(
        old_key,
        lambda v: (v.symbol.kind, *family(v.file.path, v.symbol.qualname), decoration(v.symbol.qualname)),
        guess=False,
    )


def _voted(votes: Counter[K], least: int = MEMBERS_VOTE) -> K | None:
    """Where paired symbols went, if ``least`` (``MEMBERS_VOTE``) or more of them and a
    strict majority went to one place."""
    (place, count), *_ = votes.most_common(1)
    return place if count >= least and 2 * count > votes.total() else None


def _not_named_elsewhere(
    closing: list[tuple[LiveMemory, str]],
    arriving: list[NewVersion],
    taken: set[str],
    successor_scope: Callable[[LiveMemory], tuple[str, str]],
) -> list[tuple[LiveMemory, str]]:
    """The leavers whose (kind, name) arrived, unpaired, nowhere or in their own scope
    (an overload whose parameter type was renamed, beside one of that name elsewhere)."""
    where: dict[tuple[str, str], set[tuple[str, str]]] = defaultdict(set)
    for v in arriving:
        if v.id not in taken:
            where[(v.symbol.kind, short_name(v.symbol.qualname))].add((v.file.path, parent_scope(v.symbol.qualname)))

    def in_place(mem: LiveMemory) -> bool:
        places = where.get((mem.kind, short_name(mem.qualname)))
        return not places or successor_scope(mem) in places

    return [(m, r) for m, r in closing if in_place(m)]


def follow_files(leftovers: list[tuple[LiveMemory, str]], orphans: list[NewVersion], pairing: Pairing) -> None:
    """A file that left whole and the new file half or more of its top-level symbols
    went to (``scopes_by_members``) are one file that git did not pair, its content
    changed too much: the module memory continues there."""
    if not pairing.files:
        return
    before = {m.path: m for m, _ in leftovers if m.qualname == MODULE and m.path in pairing.files}
    after = {v.file.path: v for v in orphans if v.symbol.qualname == MODULE}
    for old, new in pairing.files.items():
        mem, version = before.get(old), after.get(new)
        if mem is not None and version is not None and version.id not in pairing.taken:
            pairing.matched[mem.id] = version
            pairing.taken.add(version.id)


def scopes_by_members(pairing: Pairing, renames: Mapping[str, str]) -> int:
    """Scopes that left paired with the scope that arrived where most of their members
    went (at least half of the members that left with them, a strict majority of those
    paired, and ``MEMBERS_VOTE``), when most of the members that arrived there with a
    predecessor came from them; of the same kind, and not where a scope of its own name
    arrived (``ENUM`` moved to a new file beside a new base class that took its methods
    stays ``ENUM``: the same-name pass pairs it), unless the members went to a scope in
    its own file, or the one git renamed it to (eslint 9 renamed ``ESLint``
    ``LegacyESLint`` in ``eslint.js`` → ``legacy-eslint.js`` and declared a new
    ``ESLint`` in ``types/index.d.ts``; one of its name in that file would already be its
    successor: ``plan._plan_file``). The top level of a file that
    left whole is a scope too, paired with a new file's when those members are half or
    more of it (``pairing.files``), by one vote where it held one symbol: commons-lang 3
    rewrote ``lang/BooleanUtils.java`` into ``lang3/`` and rxjs 6 ``util/isFunction.ts``
    into ``internal/util/``, beyond what git pairs; the file's class or function
    continues there, and so does its module. How many pairs."""
    left = {(renames.get(m.path, m.path), m.qualname): m for m, _ in pairing.closing if m.id not in pairing.matched}
    free = [v for v in pairing.arriving if v.id not in pairing.taken]
    arrived = {(v.file.path, v.symbol.qualname): v for v in free}
    named = {(v.symbol.kind, v.symbol.qualname) for v in free}
    top_level = Counter(  # the top-level symbols of each new file
        v.file.path for v in pairing.arriving
        if v.file.path in pairing.new_files and not parent_scope(v.symbol.qualname)
        and memory_type(v.symbol.kind) == STRUCTURAL
    )  # fmt: skip
    members: Counter[tuple[str, str]] = Counter()  # members that left, by their scope
    went: dict[tuple[str, str], Counter[tuple[str, str]]] = defaultdict(Counter)
    came: dict[tuple[str, str], Counter[tuple[str, str]]] = defaultdict(Counter)
    for mem, _reason in pairing.closing:
        parent = parent_scope(mem.qualname)
        if memory_type(mem.kind) != STRUCTURAL or (not parent and mem.path not in pairing.left_whole):
            continue
        old = (renames.get(mem.path, mem.path), parent)
        members[old] += 1
        successor = pairing.matched.get(mem.id)
        if successor is not None:
            new = (successor.file.path, parent_scope(successor.symbol.qualname))
            went[old][new] += 1
            came[new][old] += 1
    found = 0
    for old, votes in sorted(went.items()):
        place = _voted(votes, least=min(MEMBERS_VOTE, members[old]) if not old[1] else MEMBERS_VOTE)
        if place is None or 2 * votes[place] < members[old] or 2 * came[place][old] <= came[place].total():
            continue
        if not old[1]:  # a file's top level: another file's, if half of that came from it
            if (
                not place[1] and place[0] in pairing.new_files and place[0] not in pairing.files.values()
                and 2 * came[place][old] >= top_level[place[0]]
            ):  # fmt: skip
                pairing.files.setdefault(old[0], place[0])
                found += 1
            continue
        scope, successor = left.get(old), arrived.get(place)
        if scope is None or successor is None or successor.id in pairing.taken or scope.kind != successor.symbol.kind:
            continue
        if (scope.kind, scope.qualname) in named and place[0] != old[0]:  # its name arrived in another file
            continue
        pairing.matched[scope.id] = successor
        pairing.taken.add(successor.id)
        found += 1
    return found
