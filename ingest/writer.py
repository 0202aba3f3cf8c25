"""Carrying out a plan against the store: embed what is new, upsert new versions,
close stale ones, move line numbers. Every write waits for the store's ack.

New versions are written in batches as their vectors arrive, so with an ``EmbedAhead``
(ingest/ahead.py) the store writes of one batch overlap the model computing the next."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any, Protocol

import numpy as np

from recalld.ingest.authorship import UNKNOWN_WRITER
from recalld.ingest.embed import Progress
from recalld.ingest.keyed import batches
from recalld.ingest.plan import NewVersion, Plan, Scope
from recalld.ingest.records import (
    HISTORY_FIELDS,
    PAYLOAD_VERSION,
    REOPENED_OVER,
    SyncStep,
    closing_fields,
    memory_keywords,
    memory_payload,
    memory_text,
    model_chars,
    past_intervals,
    reopen_payload,
)
from recalld.ingest.redaction import redact_drafts, redact_payload, redacted_text
from recalld.ingest.result import ProgressSink
from recalld.ingest.sparse import document_vector, keyword_text
from recalld.ingest.store import Store, StoredPoint, retrieve_many
from recalld.parsers.base import Nested


EMBEDDING_LABEL = "embedding"  # progress of the new versions written (their texts embedded first)
UPSERT_BATCH = 256
# What a new version needs of the stored point of its id: whether it is closed, its
# history, and whether a state update can reopen it.
REOPEN_CHECK = (*HISTORY_FIELDS, *REOPENED_OVER, "payload_version", "docstring", "language", "untrusted")
# What a live point written again by a state update keeps of its own where nothing else
# of it changes: when it was written, and by which sync.
RESTAMPED = ("valid_from_sync", "indexed_at")
# What of it is compared with what the update would write: the fields read, but those.
# (The others are its content's, which its id fixes: a derived entry's own fields too.)
COMPARED = frozenset(REOPEN_CHECK).difference(RESTAMPED)
# What a memory written again whole keeps of its stored self (``Plan.rewrites``): how it
# got there (lineage, change, the commit that opened it) and its past.
KEPT_ON_REWRITE = (
    "lineage", "change", "valid_from_commit", "valid_from_time", "valid_from_sync", "task_id", "author", "written_in",
    "history",
)  # fmt: skip
# Those of them a stored point lacks where they are null: the stores drop a field set to
# null (a writer cleared, ``authorship.NO_WRITER``), and earlier releases wrote neither a
# sync's stamp nor ``written_in``: kept as null, not as the rewriting sync would have them.
NULL = ("valid_from_sync", *UNKNOWN_WRITER)


class TextVectors(Protocol):
    """Where vectors come from: ``CachedEmbeddings``, or an ``EmbedAhead`` in front of it."""

    def vectors(self, texts: Sequence[str], *, progress: Progress | None = None) -> tuple[list[np.ndarray], int]:
        """Vectors for ``texts`` and how many of them the model had to compute."""


@dataclass(frozen=True, slots=True)
class MemoryDraft:
    """A memory about to be stored: its id, its text, its payload, what its keyword vector
    is made of when that is more than the text (never truncated), and how much of the
    text the model reads (``records.model_chars``; None: all of it)."""

    id: str
    text: str
    payload: dict[str, Any]
    keywords: str | None = None
    model_chars: int | None = None


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
    progress.begin(EMBEDDING_LABEL, len(drafts))
    try:
        vectors, embedded = embeddings.vectors([d.text[: d.model_chars] for d in drafts], progress=progress.advance)
    finally:
        progress.end()
    points = [
        StoredPoint(d.id, d.payload, v.tolist(), document_vector(keyword_text(d.keywords or d.text, d.payload)))
        for d, v in zip(drafts, vectors)
    ]
    return points, embedded


def upsert_points(store: Store, points: Sequence[StoredPoint]) -> None:
    """Every write of points in bulk goes through here, and so a sync writing many seals
    them as it goes (``Store.seal``)."""
    for start in range(0, len(points), UPSERT_BATCH):
        store.upsert(points[start : start + UPSERT_BATCH])
        if store.seal_due():
            store.seal()


def write_plan(
    store: Store,
    embeddings: TextVectors,
    scope: Scope,
    plan: Plan,
    step: SyncStep,
    *,
    max_chars: int,
    test_chars: int,
    progress: ProgressSink,
) -> int:
    """Apply ``plan``, the sync's ``step``; returns how many texts had to be embedded.
    ``test_chars``: see ``records.model_chars``.

    New versions go first, modules last (a file's module memory, which carries its blob,
    exists only once its symbols do), then closures, then line moves, then what is
    written again whole."""
    versions = sorted(plan.new_versions, key=lambda v: v.symbol.kind == "module")
    embedded = 0
    progress.begin(EMBEDDING_LABEL, len(versions))
    try:
        for start in range(0, len(versions), UPSERT_BATCH):
            batch = versions[start : start + UPSERT_BATCH]
            embedded += _write_versions(
                store, embeddings, scope, batch, step, max_chars=max_chars, test_chars=test_chars, progress=progress
            )
    finally:
        progress.end()
    _close(store, plan, step)
    for move in plan.relocations:
        fields: dict[str, Any] = {"start_line": move.start_line, "end_line": move.end_line}
        if move.blob is not None:
            fields["blob"] = move.blob
        if move.signature is not None:
            context = {"repo": scope.repo, "branch": scope.branch}
            text = lazy_text(move.reread, max_chars) if move.reread is not None else None
            fields |= redact_payload(move.id, {"signature": move.signature}, context=context, text=text)
        store.set_payload([move.id], fields)
    if plan.rewrites:
        embedded += _rewrite(store, embeddings, scope, plan.rewrites, step,
                             max_chars=max_chars, test_chars=test_chars, progress=progress)  # fmt: skip
    return embedded


def _rewrite(
    store: Store,
    embeddings: TextVectors,
    scope: Scope,
    versions: Sequence[NewVersion],
    step: SyncStep,
    *,
    max_chars: int,
    test_chars: int,
    progress: ProgressSink,
) -> int:
    """Memories whose code is unchanged but which an earlier extractor read otherwise (a
    module's docstring: zod's section banners): their text, payload and vectors as this
    extractor makes them, under the same id, with what ``KEPT_ON_REWRITE`` names as stored."""
    kept = {p.id: p.payload for p in retrieve_many(store, [v.id for v in versions], fields=KEPT_ON_REWRITE)}
    drafts = _drafts(scope, versions, {}, step, max_chars=max_chars, test_chars=test_chars)
    for draft in drafts:
        if draft.id in kept:
            stored = kept[draft.id]
            draft.payload.update({name: stored.get(name) for name in KEPT_ON_REWRITE if name in stored or name in NULL})
    points, computed = vectorise(embeddings, drafts, progress=progress)
    upsert_points(store, points)
    return computed


def _write_versions(
    store: Store,
    embeddings: TextVectors,
    scope: Scope,
    versions: Sequence[NewVersion],
    step: SyncStep,
    *,
    max_chars: int,
    test_chars: int,
    progress: ProgressSink,
) -> int:
    """One batch of new versions; returns how many texts had to be embedded.

    A version whose point is stored and closed (code that comes back: a reset, a revert,
    a branch switched back) is reopened by a state update: its text, vectors and the other
    fields its id fixes are what they would be written as (``CONTENT_FIELDS``). A reset
    across a thousand files reopens thousands of points, and redacting, making keyword
    vectors and converting whole points was most of its time. So is one stored live: an
    interrupted sync wrote it, and its resume plans it anew (ingest/recovery.py; a killed
    first index's resume wrote every point again). The batch keeps the plan's order:
    symbols before modules."""
    previous = {p.id: p.payload for p in retrieve_many(store, [v.id for v in versions], fields=REOPEN_CHECK)}
    versions = [_lineage_kept(v, previous.get(v.id)) for v in versions]
    kept = kept_writers(store, versions, step)
    reopened = [v for v in versions if _reopenable(previous.get(v.id), v)]
    ids = {v.id for v in reopened}
    _reopen(store, scope, [v for v in reopened if v.symbol.kind != "module"], previous, step, max_chars, kept)
    fresh = [v for v in versions if v.id not in ids]
    drafts = _drafts(scope, fresh, previous, step, max_chars=max_chars, test_chars=test_chars)
    for draft in drafts:
        draft.payload.update(kept.get(draft.id, {}))
    points, computed = vectorise(embeddings, drafts, progress=Advancing(progress))
    upsert_points(store, points)
    _reopen(store, scope, [v for v in reopened if v.symbol.kind == "module"], previous, step, max_chars, kept)
    progress.advance(len(reopened))
    return computed


def _lineage_kept(version: NewVersion, old: dict[str, Any] | None) -> NewVersion:
    """A version that comes back (its point stored, closed) where the plan found nothing
    it continues (a deletion reverted) continues the lineage it had, not one of its own:
    ``changes`` over the move that brought it there pairs by it."""
    if old and old.get("deprecated") and version.lineage == version.id and old.get("lineage"):
        return replace(version, lineage=old["lineage"])
    return version


def kept_writers(store: Store, versions: Sequence[NewVersion], step: SyncStep) -> dict[str, dict[str, Any]]:
    """new version id → the writer (``UNKNOWN_WRITER``: task, author, commit) of the memory
    it was moved from unchanged (``NewVersion.moved``), which it keeps in place of the
    sync's target's: the commit that wrote the code, as a first index finds it by following
    the move back (none where that memory has none: the history read seeks it). Only
    where the sync knows who made what it opens (``records.memory_payload``)."""
    if step.last is None:
        return {}
    moved = {v.id: v.moved for v in versions if v.moved is not None and not v.reread}
    held = {p.id: p.payload for p in retrieve_many(store, sorted(set(moved.values())), fields=UNKNOWN_WRITER)}
    return {mid: {k: held[old].get(k) for k in UNKNOWN_WRITER} for mid, old in moved.items() if old in held}


def _reopenable(old: dict[str, Any] | None, version: NewVersion | None = None) -> bool:
    """A stored point (closed, or live where a resume plans it anew) that this version of
    recalld wrote (an older one may lack fields, or have redacted otherwise), and whose
    docstring and language ``version`` reads as stored: its id does not tell an earlier
    extractor's reading of a module's docstring, or of a Python one, from this one's, nor
    a C header's code from the same code in the header once a class made it C++ (its text
    names its language). The docstring is compared as stored, redacted: one holding a
    secret is reopened like any other."""
    return (
        old is not None
        and old.get("payload_version") == PAYLOAD_VERSION
        and (
            version is None
            or (old.get("docstring") == redacted_text(version.symbol.docstring)
                and old.get("language", version.file.language) == version.file.language)
        )
    )  # fmt: skip


def reopenable_ids(store: Store, ids: Sequence[str]) -> set[str]:
    """Of ``ids``, those whose stored point a new version of that id would reopen by a
    state update: nothing of theirs is embedded."""
    return {p.id for p in retrieve_many(store, ids, fields=REOPEN_CHECK) if _reopenable(p.payload)}


def _reopen(
    store: Store,
    scope: Scope,
    versions: Sequence[NewVersion],
    previous: dict[str, Any],
    step: SyncStep,
    max_chars: int,
    kept: dict[str, dict[str, Any]],
) -> None:
    for version in versions:
        old = previous[version.id]
        payload = reopen_payload(scope, version, step, past_intervals(old, REOPENED_OVER)) | kept.get(version.id, {})
        context = {"repo": scope.repo, "branch": scope.branch, "path": version.file.path}
        payload = redact_payload(version.id, payload, context=context, text=lazy_text(version, max_chars))
        if old.get("deprecated"):
            store.set_payload([version.id], payload)
            continue
        # live: an interrupted sync wrote it. What differs is set, stamped anew; nothing,
        # where it wrote it so (a killed first index, resumed at the same commit): its
        # stamp stands for this one's, no sync having ended between the two
        changed = {k: v for k, v in payload.items() if k in COMPARED and old.get(k) != v}
        if changed:
            store.set_payload([version.id], {**changed, **{k: payload[k] for k in RESTAMPED}})


def lazy_text(version: NewVersion, max_chars: int) -> Callable[[], str]:
    """The text a new version of ``version`` would be embedded by, made when asked
    (``redaction.redact_payload``: fields written again are judged as a new version's are)."""
    return lambda: draft_text(version, max_chars=max_chars)


def _drafts(
    scope: Scope,
    versions: Sequence[NewVersion],
    previous: dict[str, Any],
    step: SyncStep,
    *,
    max_chars: int,
    test_chars: int,
) -> list[MemoryDraft]:
    """Drafts of new versions; a point reopened after being closed keeps its past intervals."""
    drafts: list[MemoryDraft] = []
    nested: dict[int, Nested] = {}  # by file: a batch holds many symbols of one file
    for version in versions:
        text = draft_text(version, max_chars=max_chars)
        payload = memory_payload(scope, version, text, step, past_intervals(previous.get(version.id), REOPENED_OVER))
        inside = nested.get(id(version.file))
        if inside is None:
            inside = nested[id(version.file)] = Nested(version.file.symbols)
        chars = model_chars(version.file.path, payload["type"], test_chars)
        drafts.append(MemoryDraft(version.id, text, payload, memory_keywords(version, inside), chars))
    return drafts


class Advancing:
    """A progress sink for one batch of a larger job: only advances the job's bar."""

    def __init__(self, job: ProgressSink) -> None:
        self._job = job

    def begin(self, label: str, total: int) -> None:
        pass

    def advance(self, n: int) -> None:
        self._job.advance(n)

    def end(self) -> None:
        pass


def _close(store: Store, plan: Plan, step: SyncStep) -> None:
    ending = closing_fields(step)
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
        for batch in batches(ids, 1000):
            store.set_payload(batch, {**ending, "deprecated_reason": reason, "superseded_by": None})
