"""Carrying out a plan against the store: embed what is new, upsert new versions,
close stale ones, move line numbers. Every write waits for the store's ack.

New versions are written in batches as their vectors arrive, so with an ``EmbedAhead``
(ingest/ahead.py) the store writes of one batch overlap the model computing the next."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np

from recalld.ingest.embed import Progress
from recalld.ingest.gitrepo import CommitInfo
from recalld.ingest.plan import NewVersion, Plan, Scope
from recalld.ingest.records import HISTORY_FIELDS, closed_interval, memory_keywords, memory_payload, memory_text
from recalld.ingest.redaction import redact_drafts
from recalld.ingest.result import ProgressSink
from recalld.ingest.sparse import document_vector, keyword_text
from recalld.ingest.store import Store, StoredPoint, retrieve_many


UPSERT_BATCH = 256


class TextVectors(Protocol):
    """Where vectors come from: ``CachedEmbeddings``, or an ``EmbedAhead`` in front of it."""

    def vectors(self, texts: Sequence[str], *, progress: Progress | None = None) -> tuple[list[np.ndarray], int]:
        """Vectors for ``texts`` and how many of them the model had to compute."""


@dataclass(frozen=True, slots=True)
class MemoryDraft:
    """A memory about to be stored: its id, the text to embed, its payload, and what its
    keyword vector is made of when that is more than the embedded text (never truncated)."""

    id: str
    text: str
    payload: dict[str, Any]
    keywords: str | None = None


def draft_text(version: NewVersion, *, max_chars: int) -> str:
    """The text a new version is embedded by (also what a sync embeds ahead)."""
    return memory_text(version, max_chars=max_chars)


def vectorise(
    embeddings: TextVectors, drafts: Sequence[MemoryDraft], *, progress: ProgressSink
) -> tuple[list[StoredPoint], int]:
    """Points with vectors for ``drafts`` (the one place where texts become vectors):
    the dense embedding and the keyword (sparse) vector; and how many texts had to be
    embedded (the rest came from the cache). Secrets are redacted first, from the text
    and every string of the payload, so neither vector nor the cache ever sees one."""
    drafts = redact_drafts(drafts)
    progress.begin("embedding", len(drafts))
    try:
        vectors, embedded = embeddings.vectors([d.text for d in drafts], progress=progress.advance)
    finally:
        progress.end()
    points = [
        StoredPoint(d.id, d.payload, v.tolist(), document_vector(keyword_text(d.keywords or d.text, d.payload)))
        for d, v in zip(drafts, vectors)
    ]
    return points, embedded


def upsert_points(store: Store, points: Sequence[StoredPoint]) -> None:
    for start in range(0, len(points), UPSERT_BATCH):
        store.upsert(points[start : start + UPSERT_BATCH])


def write_plan(
    store: Store,
    embeddings: TextVectors,
    scope: Scope,
    plan: Plan,
    commit: CommitInfo,
    *,
    max_chars: int,
    progress: ProgressSink,
) -> int:
    """Apply ``plan``; returns how many texts had to be embedded.

    New versions go first, modules last (a file's module memory, which carries its blob,
    exists only once its symbols do), then closures, then line moves."""
    versions = sorted(plan.new_versions, key=lambda v: v.symbol.kind == "module")
    embedded = 0
    progress.begin("embedding", len(versions))
    try:
        for start in range(0, len(versions), UPSERT_BATCH):
            drafts = _drafts(store, scope, versions[start : start + UPSERT_BATCH], commit, max_chars=max_chars)
            points, computed = vectorise(embeddings, drafts, progress=_Advancing(progress))
            upsert_points(store, points)
            embedded += computed
    finally:
        progress.end()
    _close(store, plan, commit)
    for move in plan.relocations:
        store.set_payload([move.id], {"start_line": move.start_line, "end_line": move.end_line})
    return embedded


def _drafts(
    store: Store, scope: Scope, versions: Sequence[NewVersion], commit: CommitInfo, *, max_chars: int
) -> list[MemoryDraft]:
    """Drafts of new versions; a point reopened after being closed keeps its past intervals."""
    previous = {p.id: p.payload for p in retrieve_many(store, [v.id for v in versions], fields=HISTORY_FIELDS)}
    drafts: list[MemoryDraft] = []
    for version in versions:
        text = draft_text(version, max_chars=max_chars)
        old = previous.get(version.id)
        history = list(old.get("history") or []) + [closed_interval(old)] if old and old.get("deprecated") else []
        payload = memory_payload(scope, version, text, commit, history)
        drafts.append(MemoryDraft(version.id, text, payload, memory_keywords(version)))
    return drafts


class _Advancing:
    """A progress sink for one batch of a larger job: only advances the job's bar."""

    def __init__(self, job: ProgressSink) -> None:
        self._job = job

    def begin(self, label: str, total: int) -> None:
        pass

    def advance(self, n: int) -> None:
        self._job.advance(n)

    def end(self) -> None:
        pass


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
