"""``ingest/held.py`` tells which of a point's intervals held at an as-of condition by the
rules the stores' filters apply: on random intervals (fields absent, null or set; reopened
points with earlier intervals) and random conditions, on both adapters, the points each
store selects are those ``holds`` says held, by their current interval or an earlier one."""

from __future__ import annotations

import random
from typing import Any

import pytest

from recalld.ingest.held import holds, interval_then
from recalld.ingest.plan import Scope
from recalld.ingest.records import INTERVAL_FIELDS, REOPENED_OVER, closed_interval, task_memory_id
from recalld.ingest.store import MemoryFilter, ValidAt
from tests.store.test_store_contract import ids, mem, store  # noqa: F401 - the fixture, on both adapters

COMMITS = ("c1", "c2", "c3", "c4")
ABSENT = object()


def _field(rng: random.Random, choices: tuple[Any, ...]) -> Any:
    """A value, or null, or nothing (a state update with a null removes the field)."""
    return rng.choice((*choices, None, ABSENT))


def _interval(rng: random.Random) -> dict[str, Any]:
    drawn = {
        "valid_from_commit": _field(rng, COMMITS),
        "valid_from_time": _field(rng, (100, 200, 300)),
        "valid_from_sync": _field(rng, (10, 20, 30)),
        "valid_to_commit": _field(rng, COMMITS),
        "valid_to_time": _field(rng, (0, 0, 200, 300, 400)),
        "valid_to_sync": _field(rng, (20, 30, 40)),
        "valid_through_commit": _field(rng, COMMITS),
        "valid_through_time": _field(rng, (100, 300, 400)),
    }
    return {key: value for key, value in drawn.items() if value is not ABSENT}


def _condition(rng: random.Random) -> ValidAt:
    time = rng.choice((50, 100, 150, 250, 300, 350, 450))
    if rng.random() < 0.3:
        return ValidAt(time=time)
    commits = tuple(rng.sample(COMMITS, rng.randint(0, 3)))
    later = tuple(rng.sample(COMMITS, rng.randint(0, 3)))
    return ValidAt(time=time, commits=commits, later=later, visit=rng.choice((None, 15, 20, 25, 35)))


def test_holds_agrees_with_the_stores_filters(store):  # noqa: F811 - the fixture
    rng = random.Random(7)
    points = []
    for i in range(240):
        history = [_interval(rng) for _ in range(rng.choice((0, 0, 1, 2)))]
        past = {"history": history} if history else {}
        points.append(mem(i, deprecated=rng.choice((0, 1)), **_interval(rng), **past))
    store.upsert(points)
    checked = 0
    for _ in range(60):
        at = _condition(rng)
        expected = {p.id for p in points if holds(p.payload, at)
                    or any(holds(entry, at, earlier=True) for entry in p.payload.get("history", []))}  # fmt: skip
        assert ids(store.scroll(MemoryFilter(deprecated=None, valid_at=at))) == expected, at
        checked += len(expected)
    assert checked > 500  # the conditions select something


def test_interval_then_shows_the_earlier_interval_that_held():
    earlier = {"valid_from_commit": "c1", "valid_from_sync": 10, "valid_to_commit": "c2", "valid_to_sync": 20,
               "deprecated_reason": "deleted", "author": "Ann", "lineage": "L1", "start_line": 3}  # fmt: skip
    payload = {"repo": "r", "branch": "main", "valid_from_commit": "c3", "valid_from_sync": 30, "author": "Cid",
               "lineage": "L2", "task_id": "t3", "start_line": 9, "history": [earlier]}  # fmt: skip
    at_c1 = ValidAt(time=0, commits=("c1",), later=("c1", "c2", "c3"), visit=10)
    then = interval_then(payload, at_c1)
    assert then is not None
    assert {key: then[key] for key in INTERVAL_FIELDS} == {key: earlier.get(key) for key in INTERVAL_FIELDS}
    assert (then["deprecated"], then["author"], then["lineage"], then["start_line"]) == (1, "Ann", "L1", 3)
    assert "task_id" not in then or then["task_id"] != "t3"
    assert interval_then(payload, ValidAt(time=0, commits=COMMITS, later=("c3",), visit=30)) is None
    # an entry written before entries kept the reopen's fields: the opening commit's author and task
    bare = {key: value for key, value in earlier.items() if key not in ("author", "lineage", "start_line")}
    old = interval_then({**payload, "history": [bare]}, at_c1, lambda commit: f"author of {commit}")
    assert old is not None and old["author"] == "author of c1" and old["task_id"] != "t3"
    assert old["written_in"] == "c1" and then["written_in"] == "c1"  # not the current interval's
    assert "lineage" not in old and "start_line" not in old  # kept as the point has them
    task = interval_then({**payload, "task_id": None, "history": [bare]}, at_c1)  # a task memory's own
    assert task is not None and "task_id" not in task and task["author"] is None and task["written_in"] is None


def test_an_entry_that_kept_the_reopens_fields_lacks_one_only_where_it_was_null():
    """A first index's version has no author or task; closed, then reopened by a later
    sync (with its own), the entry of the first interval keeps neither, as a store that
    drops null fields holds it, and shows neither: not the reopen's, nor the opening
    commit's. ``closed_interval`` leaves the nulls out whether the store kept them or not."""
    first = {"valid_from_commit": "c1", "valid_from_sync": 10, "valid_to_commit": "c2", "valid_to_sync": 20,
             "deprecated": 1, "deprecated_reason": "deleted", "change": "indexed", "lineage": "L1", "start_line": 3}
    entry = closed_interval({**first, "author": None, "task_id": None}, REOPENED_OVER)
    assert entry == closed_interval(first, REOPENED_OVER) and "author" not in entry and entry["change"] == "indexed"
    payload = {"repo": "r", "branch": "main", "valid_from_commit": "c3", "valid_from_sync": 30, "author": "Cid",
               "change": "added", "task_id": "t3", "start_line": 9, "history": [entry]}  # fmt: skip
    then = interval_then(payload, ValidAt(time=0, commits=("c1",), later=("c1", "c2", "c3"), visit=10),
                         lambda commit: f"author of {commit}")  # fmt: skip
    assert then is not None
    assert (then["author"], then["task_id"], then["change"], then["start_line"]) == (None, None, "indexed", 3)
    assert then["written_in"] is None


def test_an_entry_kept_before_written_in_names_the_opening_commit_only_where_it_was_the_writer():
    """Entries kept by stops 90–108 have an author and a task but no ``written_in``: the
    opening commit's task names that commit; another commit's task (a crediting, a first
    index's history read) does not say which commit, and shows none."""
    scope = Scope("r", "main")
    kept = {"valid_from_commit": "c1", "valid_from_sync": 10, "valid_to_commit": "c2", "valid_to_sync": 20,
            "change": "modified", "author": "Ann", "task_id": task_memory_id(scope, "c1")}  # fmt: skip
    payload = {"repo": "r", "branch": "main", "valid_from_commit": "c3", "valid_from_sync": 30, "author": "Cid",
               "written_in": "c3", "change": "added", "task_id": task_memory_id(scope, "c3")}  # fmt: skip
    at_c1 = ValidAt(time=0, commits=("c1",), later=("c1", "c2", "c3"), visit=10)
    then = interval_then({**payload, "history": [kept]}, at_c1)
    assert then is not None and (then["author"], then["written_in"]) == ("Ann", "c1")
    other = {**kept, "task_id": task_memory_id(scope, "c0")}
    then = interval_then({**payload, "history": [other]}, at_c1)
    assert then is not None and (then["author"], then["written_in"]) == ("Ann", None)  # not c3's


@pytest.mark.parametrize("history", [None, [], "not a list"])
def test_interval_then_leaves_a_point_without_a_history(history):
    payload = {"valid_from_commit": "c3", "valid_from_sync": 30, "history": history}
    assert interval_then(payload, ValidAt(time=0, commits=("c1",), later=("c1",), visit=10)) is None
