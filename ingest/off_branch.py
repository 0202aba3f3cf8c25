"""Writers after a move of the branch that is no fast-forward: a reset back, an amend, a
rebase, a force-push.

A sync that knows its indexed commit opens what it writes by its target's author and
task, and what stays keeps its writer. After a move back, the code that comes back was
written by an earlier commit, not by the target: a reset from c3 to c2 showed what Eve
wrote in c1 "since c2 by Frank", Frank having written c2. After an amend or a rebase,
code the move left alone names as its writer a commit that is no longer on the branch.
Each such version gets the writer of its latest earlier interval whose commit is on the
branch at the target; one with none is left to the history read (its writer cleared, as
a first index leaves what it found), which the sync then owes (``sync.Indexer._write``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from recalld.ingest.authorship import UNKNOWN_WRITER, writer, written_ids
from recalld.ingest.commits import CommitRecord
from recalld.ingest.credit import clear_writers, give_writers
from recalld.ingest.gitrepo import GitRepository
from recalld.ingest.plan import Scope
from recalld.ingest.records import SyncStep, reopened_over, task_memory_id
from recalld.ingest.store import MemoryFilter, Store, retrieve_many
from recalld.parsers.base import STRUCTURAL

FIELDS = ("deprecated", "history", *UNKNOWN_WRITER)


def credit_off_branch(
    store: Store, scope: Scope, git: GitRepository, known: str, step: SyncStep,
    record: Callable[[str], CommitRecord], limit: int,
) -> bool:  # fmt: skip
    """The writers of what a sync (``step``) that moved the branch from ``known`` other
    than forward opened by its target's task, but what the target wrote (its ``record``),
    and of the live versions that the commits it took off the branch (at most ``limit``)
    wrote and that it left in place. Whether the history read is owed: for code whose
    writer left the branch (a rebase's other commits wrote it again), and code no sync
    held before (a move back below the first sync); not for code whose writer an earlier
    history read did not find (older than it reads): it would search for it again at each
    move back (a move back of 50 commits of this repository took twice as long)."""
    target = step.commit.id
    own = record(target)
    made, details = written_ids(scope, [own]), own.details
    on_branch = _Ancestry(git, target, 4 * limit)
    task = task_memory_id(scope, target)
    since = step.stamp - 1 if step.after is None else step.after  # a killed sync's resume: what both opened
    flt = MemoryFilter(repo=scope.repo, branch=scope.branch, types=(STRUCTURAL,), opened_after=since)
    opened = {p.id for p in store.scroll(flt, fields=("task_id", "valid_from_commit"))
              if p.payload.get("task_id") == task and p.payload.get("valid_from_commit") == target}  # fmt: skip
    left = git.walk_commits(known, hide=target, limit=limit, first_parent=False)
    linked = retrieve_many(store, [task_memory_id(scope, c) for c in left], fields=("symbol_ids",))
    # and what names one of them its writer without its link: code a history read followed
    # back through a move to the commit that wrote it (``authorship``), a first index's
    named = MemoryFilter(repo=scope.repo, branch=scope.branch, types=(STRUCTURAL,), written_in=tuple(left))
    stayed = {i for p in linked for i in p.payload.get("symbol_ids") or ()}.union(
        p.id for p in store.scroll(named, fields=("written_in",))).difference(opened)
    given: dict[str, dict[str, Any]] = {}
    cleared: list[str] = []
    owed = False
    for point in retrieve_many(store, sorted(opened.difference(made) | stayed), fields=FIELDS):
        payload = point.payload
        if point.id in stayed and (payload.get("deprecated") or on_branch(payload.get("written_in"))):
            continue  # closed, or its writer is still on the branch
        entries = payload.get("history") or ()
        earlier = [e for e in entries if on_branch(e.get("written_in"))]
        if point.id in made:  # left in place by a move to a commit that wrote it: an amend's, a rebase's
            given[point.id] = writer(scope, target, details.author, details.parents)
        elif earlier:
            given[point.id] = {k: reopened_over(earlier[-1]).get(k) for k in UNKNOWN_WRITER}
        else:  # the history read seeks it, but where an earlier one found none (code older than it reads)
            cleared.append(point.id)
            owed = owed or not entries or point.id in stayed or any(e.get("written_in") for e in entries)
    give_writers(store, given)
    clear_writers(store, cleared)
    return owed


class _Ancestry:
    """Whether a commit is on the branch at ``target`` (it, or an ancestor): among the
    ``walked`` newest, read in one walk, else asked of git, once a commit (a reset of
    this repository back 50 commits asked 180 commits, 0.3 s of its 0.6 s)."""

    def __init__(self, git: GitRepository, target: str, walked: int) -> None:
        self._git, self._target = git, target
        self._walked = set(git.walk_commits(target, hide=None, limit=walked, first_parent=False))
        self._whole = len(self._walked) < walked  # the walk reached the root: no other commit is on the branch
        self._known: dict[str, bool] = {}

    def __call__(self, commit: str | None) -> bool:
        if not commit:
            return False
        if commit in self._walked or self._whole:
            return commit in self._walked
        if commit not in self._known:
            self._known[commit] = self._git.is_ancestor(commit, self._target)
        return self._known[commit]
