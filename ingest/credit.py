"""Crediting a sync over several commits: which commit of its window made each version it opened.

A sync that knows its indexed commit opens what it writes at its target, by the
target's author and task. Where its window holds other commits (a pull, a daemon that
was stopped, a merge and the commits it brought in), ``credit_window`` gives each
version the newest of them that produced it; a reset forward, which reopens what comes
back without reading those commits, does so by their task memories' links
(``credit_by_links``). Who wrote what a first index found is ``authorship``'s search.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator, Sequence
from collections.abc import Set as AbstractSet
from typing import Any

from recalld.ingest.authorship import (
    NO_WRITER, UNKNOWN_WRITER, WINDOW, WriterSearch, live_at, produced_ids, renamed_to, writer, written_ids,
)  # fmt: skip
from recalld.ingest.commits import CommitRecord
from recalld.ingest.gitrepo import GitRepository
from recalld.ingest.keyed import batches
from recalld.ingest.plan import ADDED, Scope, memory_id
from recalld.ingest.records import INDEXED, SyncStep, task_memory_id
from recalld.ingest.store import MemoryFilter, Store, StoredPoint, retrieve_many
from recalld.parsers.base import STRUCTURAL


def credit_window(store: Store, scope: Scope, records: Sequence[CommitRecord], *, whole: bool, stamp: int) -> bool:
    """A sync over several commits (``records``: its target's first, then the others
    newest first) opens what it writes at its target, by the target's author and task
    (what it moved unchanged keeps its writer: ``writer.kept_writers``): each version the
    target did not write goes to the newest commit that did, the moves of the target and
    the others followed back (who moves code does not write it), a merge last (the
    commits of the branch it merged produced what it brought in). A target that is a
    merge produced what it brought in too: that goes to the others all the same
    (``_merge_keeps``: ``whole``, the window holds every commit the sync brought in).
    What none of them wrote keeps what it was opened with, but where the window stopped
    at its limit: a commit past it may have written that (also code the sync found
    moved: a copy of the old file that a window's commit deleted), and the history read
    the sync owes finds who did (``history.owes_history``). ``stamp``: the sync's.
    Whether that read is owed besides: for code the window's commits moved from where
    neither the store nor their reading holds it (a commit of more files than its reading
    parses, ``commits.MAX_PARSED_FILES``, that a sync killed on its way did not store)."""
    target, *rest = records
    others = sorted(rest, key=lambda r: len(r.details.parents) > 1)  # stable: newest first otherwise
    merge = len(target.details.parents) > 1
    mine = written_ids(scope, [target])
    candidates = produced_ids(scope, others) | set(live_at(store, scope, renamed_to(records)))
    opened = opened_at(store, scope, target.details.id, candidates | mine if merge else candidates - mine)
    claimable, moved = set(opened), {}
    if claimable:  # a merge's own moves are its branches' commits' (read after it): not followed from it
        search = WriterSearch(store, scope, moves=WINDOW)
        search.claim(others if merge else [target, *others], claimable)
        moved = search.moved_back()
    return _unclaimed(store, scope, stamp, claimable, moved, merge=merge, whole=whole, made=written_ids(scope, records))


def _unclaimed(
    store: Store, scope: Scope, stamp: int, left: set[str], moved: dict[str, set[str]], *, merge: bool, whole: bool,
    made: AbstractSet[str],
) -> bool:
    """What a crediting of the sync ``stamp`` left unclaimed (``left``) of what it opened:
    what the window's commits moved there keeps the writer of the same code where they
    moved it from (``moved``: ``_written_before``), but after a merge whose window stopped
    at its limit; a merge's own, ``_merge_keeps``. Where the window stopped at its limit,
    what else the sync opened, but what the window's commits wrote (``made``), may be a
    commit's past it (code the sync found moved too: a copy of the old file that one of
    them deleted): it is left to the history read (``_clear_writers``)."""
    before = _written_before(store, moved) if whole or not merge else set()
    if whole:  # what was moved from code no commit read and the store lacks: the history read's
        lost = set().union(*moved.values()) - before
        if lost:
            _clear_writers(store, scope, stamp, lambda point: point.id in lost)
        return bool(lost)
    if merge:
        _merge_keeps(store, left - before)
    kept = made | before
    _clear_writers(store, scope, stamp, lambda point: point.id not in kept)
    return False


def _written_before(store: Store, moved: dict[str, set[str]]) -> set[str]:
    """What a window's commits moved and none of them wrote (``moved``: the stored id of
    the same code where they moved it from → the versions) was there before them: each
    keeps the writer of the version the store holds there. Those given one."""
    held = {p.id: p.payload for p in retrieve_many(store, sorted(moved), fields=UNKNOWN_WRITER)}
    given = {i: held[old] for old, ids in moved.items() if old in held for i in ids}
    give_writers(store, given)
    return set(given)


def give_writers(store: Store, given: dict[str, dict[str, Any]]) -> None:
    """Sets each version of ``given`` (id → payload) the writer it names (``UNKNOWN_WRITER``),
    one write a writer."""
    by_writer: defaultdict[tuple[Any, ...], list[str]] = defaultdict(list)
    for i, payload in given.items():
        by_writer[tuple(payload.get(k) for k in UNKNOWN_WRITER)].append(i)
    for fields, ids in by_writer.items():
        for batch in batches(sorted(ids), 1000):
            store.set_payload(batch, dict(zip(UNKNOWN_WRITER, fields)))


def clear_writers(store: Store, ids: Iterable[str], extra: dict[str, Any] | None = None) -> None:
    """Clears the writer and task of the versions ``ids`` (and sets ``extra``), for the
    history read to find, a thousand a write."""
    for batch in batches(sorted(ids), 1000):
        store.set_payload(batch, {**NO_WRITER, "task_id": None, **(extra or {})})


def _opened_by(store: Store, scope: Scope, stamp: int, fields: tuple[str, ...]) -> Iterator[StoredPoint]:
    """The structural versions the sync stamped ``stamp`` opened (read with ``fields``)."""
    flt = MemoryFilter(repo=scope.repo, branch=scope.branch, types=(STRUCTURAL,), opened_after=stamp - 1)
    points = store.scroll(flt, fields=("valid_from_sync", *fields))
    return (p for p in points if p.payload.get("valid_from_sync") == stamp)


def clear_unwritten(store: Store, scope: Scope, step: SyncStep, records: Sequence[CommitRecord]) -> None:
    """A sync (``step``) that reads unchanged code again (a new extractor's: ``sync.made_earlier``)
    opens at its target what it reads otherwise, by the target's author and task. Those
    it opened that are still the target's after crediting (``credit_window``) and that no
    commit it brought in (``records``) wrote (moving code is not writing it) were written
    by none of them: their writer is cleared for the history read to find (``added`` read
    as ``indexed``, as what a sync with no indexed commit found)."""
    made = written_ids(scope, records)
    task = task_memory_id(scope, step.commit.id)
    _clear_writers(store, scope, step.stamp, lambda p: p.payload.get("task_id") == task and p.id not in made,
                   indexed=True)  # fmt: skip


def _clear_writers(
    store: Store, scope: Scope, stamp: int, cleared: Callable[[StoredPoint], bool], *, indexed: bool = False
) -> None:
    """Clears the writer (and task) of the versions the sync ``stamp`` opened that are
    ``cleared``, for the history read to find; ``indexed``: an ``added`` one is read as
    ``indexed`` too (what a sync with no indexed commit found)."""
    opened: defaultdict[bool, list[str]] = defaultdict(list)
    for point in _opened_by(store, scope, stamp, ("task_id", "change")):
        if cleared(point):
            opened[indexed and point.payload.get("change") == ADDED].append(point.id)
    for added, ids in opened.items():
        clear_writers(store, ids, {"change": INDEXED} if added else None)


def holds_all(git: GitRepository, known: str, target: str, window: Sequence[str], limit: int) -> bool:
    """Whether ``window`` (at most ``limit`` commits) holds every commit a sync from
    ``known`` to ``target`` brought in: ``whole``, for ``credit_window`` and ``credit_by_links``."""
    return len(window) < limit or not window_cut(git, known, target, limit)


def window_cut(git: GitRepository, known: str | None, target: str, limit: int) -> bool:
    """Whether a sync from ``known`` to ``target`` brings in more than ``limit`` commits, the
    most its window reads (``tasks.commit_window``)."""
    if known is None or known == target or limit <= 0:
        return False
    return len(git.walk_commits(target, hide=known, limit=limit + 1, first_parent=False)) > limit


def _merge_keeps(store: Store, kept: AbstractSet[str]) -> None:
    """A sync to a merge opened what it brought in as its own, by its author: what the
    commits of the branches it merged (in the window) produced is theirs. What no other
    commit claimed (``kept``) is the merge's own (a conflict's resolution, as git blame
    has it) where the window holds every commit the sync brought in, and keeps its
    author then; else it may be a commit's past the window's limit, and keeps the
    merge's task alone, for the history read to find its writer."""
    if kept:
        store.set_payload(sorted(kept), NO_WRITER)


def credit_by_links(store: Store, scope: Scope, window: Sequence[str], *, whole: bool, stamp: int) -> None:
    """``credit_window`` for a sync that does not read its window's commits again (a reset
    forward reopens their task memories): each version it opened that had an interval
    before, written by a commit of the window, is that commit's again (the newest such: the
    way forward read it); each other goes to the newest commit whose task memory links it,
    back through the renames their task memories keep (what a commit renamed and does not
    link, or links and the store holds the same at the old path, it moved), as the sync
    that first read them credited it (a merge last; a target that is a merge: also what
    it links, as ``credit_window``). A task memory keeps its first ``MAX_PAYLOAD_FILES``
    renames: the files a larger move took past them are not followed."""
    ids = {task_memory_id(scope, c): c for c in window}
    fields = ("symbol_ids", "author", "parents", "renames")
    tasks = {ids[p.id]: p.payload for p in retrieve_many(store, list(ids), fields=fields)}
    links = {c: set(t.get("symbol_ids") or ()) for c, t in tasks.items()}
    target, *rest = window
    others = sorted((c for c in rest if c in tasks), key=lambda c: len(tasks[c].get("parents") or ()) > 1)
    merge = len((tasks.get(target) or {}).get("parents") or ()) > 1
    read = others if merge or target not in tasks else [target, *others]
    moves = {c: {r["to"]: r["from"] for r in tasks[c].get("renames") or () if r.get("to") and r.get("from")}
             for c in read}  # fmt: skip
    renamed = sorted({path for moved in moves.values() for path in moved})
    candidates = set(live_at(store, scope, renamed)).union(links.get(target, ()), *(links[c] for c in others))
    opened = opened_at(store, scope, target, candidates)
    stored = retrieve_many(store, sorted(opened), fields=("path", "kind", "qualname", "content_hash", "history"))
    keys = {p.id: (p.payload["kind"], p.payload["qualname"], p.payload["content_hash"]) for p in stored}
    paths = {p.id: p.payload["path"] for p in stored}
    earlier = _written_earlier(store, stored, read, target, opened)
    at = {i: path for i, path in paths.items() if i not in earlier}  # where each is before the commits read so far
    for commit in read:
        moving = {i: moves[commit][path] for i, path in at.items() if path in moves[commit]}
        there = {memory_id(scope, old, *keys[i]) for i, old in moving.items()}
        there = {p.id for p in retrieve_many(store, sorted(there), fields=())} if there else set()
        claimed = []
        for i, path in list(at.items()):
            linked = memory_id(scope, path, *keys[i]) in links[commit]
            if i in moving and (not linked or memory_id(scope, moving[i], *keys[i]) in there):
                at[i] = moving[i]  # moved, not written here
            elif linked:
                claimed.append(i)
                del at[i]
        given = sorted(i for i in claimed if not (commit == target and opened[i]))  # the target's own as opened
        if given:
            store.set_payload(given, writer(scope, commit, tasks[commit].get("author"), tasks[commit].get("parents")))
    moved: defaultdict[str, set[str]] = defaultdict(set)
    for i in (i for i in at if at[i] != paths[i]):
        moved[memory_id(scope, at[i], *keys[i])].add(i)
    _unclaimed(store, scope, stamp, set(at), moved, merge=merge, whole=whole, made=set(opened).difference(at))


def _written_earlier(
    store: Store, stored: list[StoredPoint], read: Sequence[str], target: str, opened: dict[str, bool]
) -> set[str]:
    """Of the versions a reset forward to ``target`` opened (``stored``, with their
    ``history``), those an earlier interval of which a commit of the window (``read``,
    newest first) wrote: each is the newest such commit's again, as the way forward read
    it (the target's own as opened: left so)."""
    order = {c: n for n, c in enumerate(read)}
    given: dict[str, dict[str, Any]] = {}
    settled: set[str] = set()
    for point in stored:
        before = [e for e in point.payload.get("history") or () if e.get("written_in", "") in order]
        if before:
            wrote = min(before, key=lambda e: order[e["written_in"]])
            settled.add(point.id)
            if not (wrote["written_in"] == target and opened[point.id]):
                given[point.id] = wrote
    give_writers(store, given)
    return settled


def opened_at(store: Store, scope: Scope, target: str, candidates: AbstractSet[str]) -> dict[str, bool]:
    """Those of ``candidates`` the sync to ``target`` opened (its ``valid_from_commit``),
    each with whether as the target's own (its task: else moved unchanged, with the
    writer of what it was moved from): what a crediting may give another commit."""
    stored = retrieve_many(store, sorted(candidates), fields=("valid_from_commit", "task_id"))
    task = task_memory_id(scope, target)
    return {p.id: p.payload.get("task_id") == task for p in stored if p.payload.get("valid_from_commit") == target}

