"""A registration's memories carried to its branch's new name, history and all
(``recalld repo set --branch main`` after ``git branch -m master main``).

A memory's id hashes its branch (``plan.memory_id``, ``records.task_memory_id``,
``records.checkpoint_id``), and so does every field that points at a memory: ``lineage``,
``superseded_by``, ``task_id``, a task's ``symbol_ids`` (a set: the order a sync lists
them in, partly by id, is kept, not redone), and the ids an interval kept in ``history``
holds. Each point of the old name is written again under the id the new name gives it:
its payload's ids mapped the same way, ``branch`` and ``symbol_key`` renamed, its two
vectors copied (nothing is embedded). The store then holds what indexing the same
history under the new name would have made, and the next sync goes on from the indexed
commit. A point whose id its payload does not give again (recalld writes none) cannot be
mapped: it is left out and counted, and a sync writes again what it held if it is live.

A new name the store has indexed already (its checkpoint there: another writer of a
shared collection follows it) keeps its own memories: nothing is carried over them.

The caller deletes the old name's points (``Indexer.remove_repo``; not from a shared
collection, where other writers may follow the old name) and re-points the registration
(``daemon.repos._carried_to``, in the order that leaves no registration without its
memories); carrying again writes the same points.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from recalld.daemon.logs import get_logger
from recalld.ingest.keyed import batches
from recalld.ingest.plan import Scope, memory_id
from recalld.ingest.records import checkpoint_id, task_memory_id
from recalld.ingest.result import ProgressSink
from recalld.ingest.store import MemoryFilter, Store, StoredPoint
from recalld.ingest.writer import upsert_points

log = get_logger("recalld.rebranch")

CARRY_BATCH = 500  # points read whole (payload and vectors) and written again at a time
CARRYING_LABEL = "carrying memories"
# What a point's id is made of, by its kind of record.
ID_FIELDS = ("record", "kind", "path", "qualname", "content_hash", "commit")


@dataclass(frozen=True, slots=True)
class Carried:
    memories: int  # memories written under the new name (the checkpoint is none), closed versions too
    live: int  # of them those still valid (what ``status`` counts as memories)
    unmapped: int  # points left out: their ids are none their payloads give
    indexed: bool = False  # the new name was indexed already (another writer's): nothing carried


def carry_branch(store: Store, repo: str, old: str, new: str, *, progress: ProgressSink) -> Carried:
    """Write every point of ``repo``'s branch ``old`` again as ``new``'s (the old ones stay),
    unless the store has ``new`` indexed already. The checkpoint goes last, on its own: a
    carry stopped before it is done leaves none, and is done again whole."""
    was, now = Scope(repo, old), Scope(repo, new)
    if store.retrieve([checkpoint_id(now)], fields=("record",)):
        return Carried(memories=0, live=0, unmapped=0, indexed=True)
    ids: dict[str, str] = {}
    unmapped = 0
    for point in store.scroll(MemoryFilter(record=None, repo=repo, branch=old, deprecated=None), fields=ID_FIELDS):
        if _point_id(point.payload, was) == point.id:
            ids[point.id] = _point_id(point.payload, now) or point.id
        else:
            unmapped += 1
    if unmapped:
        log.warning("points whose ids their payloads do not give are not carried to the new branch",
                    repo=repo, branch=old, to=new, points=unmapped)  # fmt: skip
    memories = live = 0
    progress.begin(CARRYING_LABEL, len(ids))
    try:
        last = checkpoint_id(was)
        for batch in [*batches([i for i in ids if i != last], CARRY_BATCH), *([[last]] if last in ids else [])]:
            points = [_renamed(p, ids, was, now) for p in store.whole(batch)]
            upsert_points(store, points)
            written = [p for p in points if p.payload.get("record") == "memory"]
            memories, live = memories + len(written), live + sum(not p.payload.get("deprecated") for p in written)
            progress.advance(len(batch))
    finally:
        progress.end()
    return Carried(memories=memories, live=live, unmapped=unmapped)


def _point_id(payload: dict[str, Any], scope: Scope) -> str | None:
    """The id ``payload``'s point has on ``scope``'s branch (None: not one a sync writes)."""
    if payload.get("record") == "checkpoint":
        return checkpoint_id(scope)
    if payload.get("record") != "memory":
        return None
    if payload.get("kind") == "commit" and isinstance(payload.get("commit"), str):
        return task_memory_id(scope, payload["commit"])
    key = [payload.get(f) for f in ("path", "kind", "qualname", "content_hash")]
    if not all(isinstance(part, str) for part in key):
        return None
    return memory_id(scope, *key)


def _renamed(point: StoredPoint, ids: dict[str, str], was: Scope, now: Scope) -> StoredPoint:
    payload = _mapped(point.payload, ids, was, now)
    return StoredPoint(ids[point.id], payload, point.vector, point.sparse)


def _mapped(value: Any, ids: dict[str, str], was: Scope, now: Scope) -> Any:
    """``value`` with each id of ``ids`` replaced by its new one, at any depth, and a
    dict's ``branch`` and ``symbol_key`` renamed."""
    if isinstance(value, str):
        return ids.get(value, value)
    if isinstance(value, list):
        return [_mapped(v, ids, was, now) for v in value]
    if not isinstance(value, dict):
        return value
    out = {k: _mapped(v, ids, was, now) for k, v in value.items()}
    if out.get("branch") == was.branch:
        out["branch"] = now.branch
    key, prefix = out.get("symbol_key"), f"{was.repo}:{was.branch}:"
    if isinstance(key, str) and key.startswith(prefix):
        out["symbol_key"] = f"{now.repo}:{now.branch}:{key[len(prefix):]}"
    return out
