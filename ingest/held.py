"""Which of a memory's validity intervals held at an as-of condition (``store.ValidAt``).

The stores select the memories valid at a state by their current interval or any
interval of their ``history`` (a reopened point's earlier ones: the engines' ``_valid_at``
filters). An answer then shows the point as stored, its current interval's commits,
author and lineage, though the interval that held may be an earlier one: a function
deleted and later restored as it was answers for a commit before the deletion with the
restore's commit as its "since". ``interval_then`` tells which interval held, by the same
rules as the filters, written again here for one payload, so that the answer shows that
one (``daemon.query.AsOf``)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

from recalld.ingest.plan import Scope
from recalld.ingest.records import INTERVAL_FIELDS, reopened_over, task_memory_id
from recalld.ingest.store import StoredPoint, ValidAt


def interval_then(
    payload: dict[str, Any], at: ValidAt, author_of: Callable[[str], str | None] | None = None
) -> dict[str, Any] | None:
    """The fields that make ``payload`` show the earlier interval of its history that
    held at ``at`` (its interval fields, closed since, and what the reopen wrote over
    where the entry keeps it: ``records.REOPENED_OVER``); None where its current interval
    held, or it has no history. An entry written before entries kept those fields is given
    the author of the commit that opened it (``author_of``: a commit's author, None when
    unknown) and that commit as the one it was written in, and, for a memory of code, that
    commit's task memory."""
    past = payload.get("history")
    if not isinstance(past, list) or not past or holds(payload, at):
        return None
    for entry in reversed(past):
        if isinstance(entry, dict) and holds(entry, at, earlier=True):
            return as_interval(payload, entry, author_of)
    return None


def as_interval(
    payload: dict[str, Any], entry: dict[str, Any], author_of: Callable[[str], str | None] | None = None
) -> dict[str, Any]:
    """The fields that make ``payload`` show ``entry``, an earlier interval of its
    history (``interval_then``). An entry of a release before ``written_in`` names the
    commit it was written in only where its writer was the commit that opened it."""
    then = {key: entry.get(key) for key in INTERVAL_FIELDS}
    then.update(reopened_over(entry))
    then["deprecated"] = 1
    opened = entry.get("valid_from_commit")
    if not (isinstance(opened, str) and opened):
        return then
    scoped = payload.get("repo") and payload.get("branch")
    mine = task_memory_id(Scope(payload["repo"], payload["branch"]), opened) if scoped else None  # its task
    if "change" not in entry:  # an entry that kept none of them
        if "task_id" not in entry and payload.get("task_id") and mine:
            then["task_id"] = mine
        if "author" not in entry:
            then["author"] = author_of(opened) if author_of else None
        if "written_in" not in entry:  # those releases named the opening commit's author
            then["written_in"] = opened if then.get("author") else None
    elif "written_in" not in entry and then.get("author") and mine:
        # kept by a release before ``written_in``: where its task is the opening commit's, so is its writer
        then["written_in"] = opened if then.get("task_id") == mine else None
    return then


def shown_as(point: StoredPoint, fields: dict[str, Any] | None) -> StoredPoint:
    """``point`` with ``fields`` over its payload (an earlier interval's: ``interval_then``,
    ``as_interval``); None: as it is."""
    return point if fields is None else replace(point, payload={**point.payload, **fields})


def holds(interval: dict[str, Any], at: ValidAt, *, earlier: bool = False) -> bool:
    """Whether ``interval`` (a payload's current one, or an ``earlier`` one of its
    history) held at ``at``: the stores' ``_valid_at`` for one interval, where a field
    absent and one null are alike, and an earlier interval is judged by its span alone."""
    if at.commits is None:
        return _by_time(interval, at.time, earlier=earlier)
    if _span(interval, at):
        return True
    return not earlier and _empty(interval.get("valid_from_commit")) and _by_time(interval, at.time, earlier=False)


def _span(interval: dict[str, Any], at: ValidAt) -> bool:
    states, later = set(at.commits or ()) or {""}, set(at.later) or {""}
    through = interval.get("valid_through_commit")
    span = interval.get("valid_from_commit") in states and (
        through in later or (_empty(through) and interval.get("valid_to_commit") not in states)
    )
    if at.visit is None:
        return span
    opened, closed = _number(interval.get("valid_from_sync")), interval.get("valid_to_sync")
    if opened is not None and opened <= at.visit:
        ends = _number(closed)
        if _empty(closed) or (ends is not None and ends > at.visit):
            return True
    return _empty(interval.get("valid_from_sync")) and span


def _by_time(interval: dict[str, Any], time: int, *, earlier: bool) -> bool:
    opened = _number(interval.get("valid_from_time"))
    if opened is None or opened > time:
        return False
    ends, through = _number(interval.get("valid_to_time")), _number(interval.get("valid_through_time"))
    return (ends is not None and (ends <= 0 or ends > time)) or (earlier and through is not None and through >= time)


def _empty(value: Any) -> bool:
    """A filter's "is empty": absent, null or an empty list."""
    return value is None or value == []


def _number(value: Any) -> float | None:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None
