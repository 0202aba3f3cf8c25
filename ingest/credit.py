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
from collections.abc import Sequence
from collections.abc import Set as AbstractSet

from recalld.ingest.authorship import (
    CLAIM, NO_WRITER, WriterSearch, live_at, produced_ids, renamed_to, scrolls_at, writer,
)  # fmt: skip
from recalld.ingest.commits import CommitRecord
from recalld.ingest.gitrepo import GitRepository
from recalld.ingest.keyed import batches
from recalld.ingest.plan import ADDED, Scope
from recalld.ingest.records import INDEXED, SyncStep, task_memory_id
from recalld.ingest.store import MemoryFilter, Store, retrieve_many
from recalld.parsers.base import STRUCTURAL


def credit_window(store: Store, scope: Scope, records: Sequence[CommitRecord], *, whole: bool) -> None:
    """A sync over several commits (``records``: its target's first, then the others
    newest first) opens what it writes at its target, by the target's author and task:
    each version the target did not produce goes to the newest other commit that did
    (moving it counts), a merge last (the commits of the branch it merged produced what
    it brought in). A target that is a merge produced what it brought in too: that goes
    to the others all the same (``_merge_keeps``: ``whole``, the window holds every
    commit the sync brought in)."""
    target, *rest = records
    others = sorted(rest, key=lambda r: len(r.details.parents) > 1)  # stable: newest first otherwise
    mine = produced_ids(scope, [target]) | set(live_at(store, scope, renamed_to([target])))
    candidates = produced_ids(scope, others) | set(live_at(store, scope, renamed_to(others)))
    merge = len(target.details.parents) > 1
    claimable = opened_as_target(store, scope, target.details.id, candidates | mine if merge else candidates - mine)
    if claimable:
        WriterSearch(store, scope, moves=CLAIM).claim(others, claimable)
    _merge_keeps(store, claimable if merge else set(), whole=whole)


def clear_unwritten(store: Store, scope: Scope, step: SyncStep, records: Sequence[CommitRecord]) -> None:
    """A sync (``step``) that reads unchanged code again (a new extractor's: ``sync.made_earlier``)
    opens at its target what it reads otherwise, by the target's author and task. Those
    it opened that are still the target's after crediting (``credit_window``) and that no
    commit it brought in (``records``) produced or moved were written by none of them:
    their writer is cleared for the history read to find (``added`` read as ``indexed``,
    as what a sync with no indexed commit found)."""
    made = produced_ids(scope, records) | set(live_at(store, scope, renamed_to(records)))
    task = task_memory_id(scope, step.commit.id)
    flt = MemoryFilter(repo=scope.repo, branch=scope.branch, types=(STRUCTURAL,), opened_after=step.stamp - 1)
    opened: defaultdict[bool, list[str]] = defaultdict(list)
    for point in store.scroll(flt, fields=("valid_from_sync", "task_id", "change")):
        p = point.payload
        if p.get("valid_from_sync") == step.stamp and p.get("task_id") == task and point.id not in made:
            opened[p.get("change") == ADDED].append(point.id)
    for added, ids in opened.items():
        cleared = {**NO_WRITER, "task_id": None, **({"change": INDEXED} if added else {})}
        for batch in batches(sorted(ids), 1000):
            store.set_payload(batch, cleared)


def holds_all(git: GitRepository, known: str, target: str, window: Sequence[str], limit: int) -> bool:
    """Whether ``window`` (at most ``limit`` commits) holds every commit a sync from
    ``known`` to ``target`` brought in: ``whole``, for ``credit_window`` and ``credit_by_links``."""
    if len(window) < limit:
        return True
    return len(git.walk_commits(target, hide=known, limit=limit + 1, first_parent=False)) <= limit


def _merge_keeps(store: Store, kept: AbstractSet[str], *, whole: bool) -> None:
    """A sync to a merge opened what it brought in as its own, by its author: what the
    commits of the branches it merged (in the window) produced is theirs. What no other
    commit claimed (``kept``) is the merge's own (a conflict's resolution, as git blame
    has it) where the window is ``whole``; else it may be a commit's past the window's
    limit, and keeps the merge's task alone."""
    if kept and not whole:
        store.set_payload(sorted(kept), NO_WRITER)


def credit_by_links(store: Store, scope: Scope, window: Sequence[str], *, whole: bool) -> None:
    """``credit_window`` for a sync that does not read its window's commits again (a reset
    forward reopens their task memories): each version it opened that its target's task
    memory does not link goes to the newest other commit whose task memory links it, or
    that renamed the file it is live in (a merge last), as the sync that first read them
    credited it (a target that is a merge: also what it links, as ``credit_window``). A
    task memory keeps its first ``MAX_PAYLOAD_FILES`` renames: the files a larger move
    took past them stay the target's."""
    ids = {task_memory_id(scope, c): c for c in window}
    fields = ("symbol_ids", "author", "parents", "renames")
    tasks = {ids[p.id]: p.payload for p in retrieve_many(store, list(ids), fields=fields)}
    links = {c: set(t.get("symbol_ids") or ()) for c, t in tasks.items()}
    target, *rest = window
    others = sorted((c for c in rest if c in tasks), key=lambda c: len(tasks[c].get("parents") or ()) > 1)
    merge = len((tasks.get(target) or {}).get("parents") or ()) > 1
    moved = {c: {r["to"] for r in tasks[c].get("renames") or () if r.get("to")} for c in others}
    at_path: defaultdict[str, set[str]] = defaultdict(set)
    batches = scrolls_at(store, scope, sorted(set().union(*moved.values())), fields=("path",))
    for point in (p for batch in batches for p in batch):
        at_path[point.payload["path"]].add(point.id)
    for commit in others:
        links[commit] |= {i for path in moved[commit] for i in at_path[path]}
    mine = links.get(target, set())
    candidates = set().union(*(links[c] for c in others))
    claimable = opened_as_target(store, scope, target, candidates | mine if merge else candidates - mine)
    for commit in others:
        claimed = sorted(links[commit] & claimable)
        if claimed:
            claimable.difference_update(claimed)
            store.set_payload(claimed, writer(scope, commit, tasks[commit].get("author"), tasks[commit].get("parents")))
    _merge_keeps(store, claimable if merge else set(), whole=whole)


def opened_as_target(store: Store, scope: Scope, target: str, candidates: AbstractSet[str]) -> set[str]:
    """Those of ``candidates`` the sync to ``target`` opened as the target's own (its
    ``valid_from_commit`` and ``task_id``): what a crediting may give another commit."""
    opened = {"valid_from_commit": target, "task_id": task_memory_id(scope, target)}
    stored = retrieve_many(store, sorted(candidates), fields=tuple(opened))
    return {p.id for p in stored if all(p.payload.get(k) == v for k, v in opened.items())}
