"""Carrying out a plan against the store: embed what is new, upsert new versions,
close stale ones, move line numbers. Every write waits for the store's ack."""

from __future__ import annotations

from collections import defaultdict
from typing import TYPE_CHECKING, Any

from recalld.ingest.embed import CachedEmbeddings
from recalld.ingest.gitrepo import CommitInfo
from recalld.ingest.plan import Plan, Scope
from recalld.ingest.records import closed_interval, memory_payload, memory_text
from recalld.ingest.store import Store, StoredPoint

if TYPE_CHECKING:
    from recalld.ingest.sync import ProgressSink

UPSERT_BATCH = 256


def write_plan(
    store: Store,
    embeddings: CachedEmbeddings,
    scope: Scope,
    plan: Plan,
    commit: CommitInfo,
    *,
    max_chars: int,
    progress: ProgressSink,
) -> int:
    """Apply ``plan``; returns how many texts had to be embedded."""
    versions = sorted(plan.new_versions, key=lambda v: v.symbol.kind == "module")
    texts = [memory_text(v, max_chars=max_chars) for v in versions]
    progress.begin("embedding", len(texts))
    try:
        vectors, embedded = embeddings.vectors(texts, progress=progress.advance)
    finally:
        progress.end()
    previous = {p.id: p.payload for p in _retrieve(store, [v.id for v in versions])}
    points: list[StoredPoint] = []
    for version, text, vector in zip(versions, texts, vectors):
        old = previous.get(version.id)
        history = list(old.get("history") or []) + [closed_interval(old)] if old and old.get("deprecated") else []
        payload = memory_payload(scope, version, text, commit, history)
        points.append(StoredPoint(version.id, payload, [float(x) for x in vector]))
    for start in range(0, len(points), UPSERT_BATCH):
        store.upsert(points[start : start + UPSERT_BATCH])
    _close(store, plan, commit)
    for move in plan.relocations:
        store.set_payload([move.id], {"start_line": move.start_line, "end_line": move.end_line})
    return embedded


def _close(store: Store, plan: Plan, commit: CommitInfo) -> None:
    ending: dict[str, Any] = {"deprecated": 1, "valid_to_commit": commit.id, "valid_to_time": commit.time}
    without_successor: dict[str, list[str]] = defaultdict(list)
    for closure in plan.closures:
        if closure.superseded_by is None:
            without_successor[closure.reason].append(closure.id)
            continue
        store.set_payload(
            [closure.id],
            {**ending, "deprecated_reason": closure.reason, "superseded_by": closure.superseded_by},
        )
    for reason, ids in without_successor.items():
        for start in range(0, len(ids), 1000):
            store.set_payload(
                ids[start : start + 1000], {**ending, "deprecated_reason": reason, "superseded_by": None}
            )


def _retrieve(store: Store, ids: list[str]) -> list[StoredPoint]:
    found: list[StoredPoint] = []
    for start in range(0, len(ids), 1000):
        found.extend(store.retrieve(ids[start : start + 1000]))
    return found
