"""Recovering from an interrupted sync: the state before it, and its leftovers.

A sync writes a pending marker (the target) before its first write and clears it with
its checkpoint. A sync that finds the marker plans from the state before the
interrupted one, whose closures count as live again and whose new versions as absent,
so that its outcome is exactly that of an uninterrupted run; after writing its plan it
reopens the closures and deletes the new versions the plan did not write again.
"""

from __future__ import annotations

from dataclasses import dataclass

from recalld.ingest.plan import Plan, Scope
from recalld.ingest.records import OPEN_INTERVAL, PLANNED_TYPES, PLANNING_FIELDS
from recalld.ingest.store import MemoryFilter, Store, StoredPoint

RECOVERY_FIELDS = ("deprecated", "valid_from_commit", "valid_to_commit", "history")


@dataclass(frozen=True, slots=True)
class StateBefore:
    live: list[StoredPoint]  # the live points before the interrupted sync (planning fields)
    restore: set[str]  # closed by the interrupted sync
    discard: set[str]  # created by the interrupted sync


def state_before(
    store: Store, scope: Scope, interrupted: str, indexed: str | None, *, fields: tuple[str, ...] = PLANNING_FIELDS
) -> StateBefore:
    """The planned memories of ``scope`` as they were before the interrupted sync to
    ``interrupted`` (from the indexed commit ``indexed``), with their ``fields``."""
    flt = MemoryFilter(repo=scope.repo, branch=scope.branch, types=PLANNED_TYPES, deprecated=None)
    before = StateBefore([], set(), set())
    for point in store.scroll(flt, fields=fields + RECOVERY_FIELDS):
        p = point.payload
        if p.get("deprecated"):
            if p.get("valid_to_commit") == interrupted and interrupted != indexed:
                before.restore.add(point.id)
                before.live.append(point)
        elif p.get("valid_from_commit") == interrupted and interrupted != indexed and not p.get("history"):
            before.discard.add(point.id)
        else:
            before.live.append(point)
    return before


class Interrupted:
    """What an interrupted sync left (``StateBefore``'s restore and discard) that no plan
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
