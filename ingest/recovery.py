"""Recovering from an interrupted sync: the state before it, and its leftovers.

A sync writes a pending marker (the target) before its first write and clears it with
its checkpoint. A sync that finds the marker plans from the state before the
interrupted one, whose closures count as live again and whose new versions as absent,
so that its outcome is exactly that of an uninterrupted run. Before it writes, what the
interrupted sync reopened is closed again and the task memories it closed opened again
(``before_writing``); a new version it wrote that the plan writes again is brought up
to date in place (``writer._reopen``); after writing its plan it reopens the closures
and deletes the new versions the plan did not write again.
"""

from __future__ import annotations

from typing import Any

from recalld.ingest.plan import Plan, Scope
from recalld.ingest.records import OPEN_INTERVAL, TASK, reopened_over
from recalld.ingest.store import MemoryFilter, Store, retrieve_many

RECOVERY_FIELDS = (
    "deprecated", "valid_from_commit", "valid_to_commit", "valid_from_sync", "valid_to_sync", "history",
)  # fmt: skip
# before_interrupted's answers
RESTORE, DISCARD, REOPENED, LIVE, CLOSED = "restore", "discard", "reopened", "live", "closed"


def before_interrupted(payload: dict[str, Any], interrupted: str, indexed: str | None, after: int | None) -> str:
    """What a planned memory (its ``RECOVERY_FIELDS``) was before the interrupted sync to
    ``interrupted`` (from the indexed commit ``indexed``): ``RESTORE`` (closed by that
    sync: live before it), ``DISCARD`` (created by it: absent before), ``REOPENED``
    (closed before it, as its history's last entry tells: ``before_writing``), ``LIVE`` or
    ``CLOSED`` (as it is now). ``after``: the stamp of the last sync that ended before it
    (the pending marker's ``pending_after``): what a sync killed since closed, created or
    reopened carries a later stamp, however many were killed and wherever they went.
    None (an earlier release's marker): told by the interrupted sync's target commit
    instead, which also takes for its closure one an earlier sync made at that commit (a
    branch reset back to where a memory was closed), and a reopened memory for live."""
    if after is not None:
        if payload.get("deprecated"):
            return RESTORE if (payload.get("valid_to_sync") or 0) > after else CLOSED
        if (payload.get("valid_from_sync") or 0) > after:
            return REOPENED if payload.get("history") else DISCARD
        return LIVE
    moved = interrupted != indexed
    if payload.get("deprecated"):
        return RESTORE if moved and payload.get("valid_to_commit") == interrupted else CLOSED
    if moved and payload.get("valid_from_commit") == interrupted and not payload.get("history"):
        return DISCARD
    return LIVE


class Interrupted:
    """What an interrupted sync left (the memories it closed and created) that no plan
    of this sync wrote again: told each plan (a sync in parts writes several), it reopens
    the closures and deletes the new versions left at the end."""

    def __init__(self, restore: set[str], discard: set[str]) -> None:
        self.restore, self.discard = set(restore), set(discard)

    def planned(self, plan: Plan) -> None:
        if self.restore:
            self.restore.difference_update(c.id for c in plan.closures)
        if self.discard:
            self.discard.difference_update(v.id for v in plan.new_versions)

    def undo(self, store: Store) -> None:
        if self.restore:
            store.set_payload(sorted(self.restore), OPEN_INTERVAL)
        if self.discard:
            store.delete(sorted(self.discard))


def before_writing(store: Store, scope: Scope, reopened: set[str], after: int | None) -> None:
    """Undone in place before a sync after an interrupted one writes (a sync interrupted
    after it finds the state before, as the pending marker tells it): the memories the
    interrupted sync ``reopened`` are closed again, as they were before it. Each is set
    the last entry of its history (its interval and the fields the reopen wrote again:
    ``records.REOPENED_OVER``), which the reopen added, and the entries before it: one of
    them planned again is then reopened as any closed memory. And the task memories it
    closed (a closing stamp later than ``after``) are open again: the task step compares
    every live one with git and closes those off the branch as an uninterrupted sync
    does. A task memory carries no opening stamp (its interval starts at its commit), so
    what an interrupted sync created or reopened of those is left to that comparison."""
    for point in retrieve_many(store, sorted(reopened), fields=("history",)):
        *earlier, last = point.payload["history"]
        store.set_payload([point.id], {**last, **reopened_over(last), "deprecated": 1, "history": earlier})
    if after is not None:
        closed = MemoryFilter(repo=scope.repo, branch=scope.branch, types=(TASK,), deprecated=1,
                              stamped_since=after + 1)  # fmt: skip
        store.set_payload(sorted(point.id for point in store.scroll(closed, fields=())), OPEN_INTERVAL)
