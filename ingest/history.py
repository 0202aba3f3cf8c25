"""The history a sync leaves owed: the task memories of its checkpoint's commit's
history, and the writers of what it found, read after the repo is searchable
(``TaskSync.backfill``), stoppable, and gone on with by the next sync."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from recalld.daemon.logs import get_logger
from recalld.ingest.ahead import EmbedAhead
from recalld.ingest.blamed import blame_leftovers
from recalld.ingest.credit import window_cut
from recalld.ingest.embed_cache import CachedEmbeddings
from recalld.ingest.files import IndexOptions
from recalld.ingest.gitrepo import GitRepository
from recalld.ingest.plan import FileSymbols, Scope
from recalld.ingest.records import PROVENANCE_VERSION, checkpoint_point
from recalld.ingest.redaction import redacted_text
from recalld.ingest.result import ProgressSink, SyncResult
from recalld.ingest.store import Store
from recalld.ingest.tasks import TaskSync

log = get_logger("recalld.sync")


def owes_history(
    git: GitRepository, indexed: str | None, options: IndexOptions, *, reshaped: bool = False, earlier: bool = False,
    reread: bool = False, target: str | None = None,
) -> bool:
    """Whether a sync from ``indexed`` leaves the target's history to a backfill (also
    where the clone's shallow boundaries moved: ``reshaped``; or an earlier release read
    it: ``earlier``; or the sync reads unchanged files again, whose code it may read
    otherwise: ``reread``, ``plan.NewVersion.reread``; or it brings in more commits than
    its window reads, up to ``target``: what those past it wrote, ``credit.credit_window``),
    or the search past it."""
    reads = options.backfill_commits > 1 or (options.backfill_commits == 1 and options.writer_commits > 0)
    if not reads:
        return False
    if reshaped or earlier or reread or not git.has_commit(indexed):
        return True
    if target is None or options.backfill_commits == 1:  # a window of one commit credits nothing (``tasks.run``)
        return False
    return window_cut(git, indexed, target, options.backfill_commits)


@dataclass(frozen=True, slots=True)
class Owed:
    """A clean checkpoint at ``commit`` whose history is still to be backfilled, and the
    files the sync parsed there (their commits are compared without parsing them again)."""

    git: GitRepository
    scope: Scope
    commit: str
    sync_stamp: int | None
    attributes: str | None  # the attribute files beside the tree its memories were read under
    parsed: Iterable[FileSymbols] = ()
    provenance: int | None = PROVENANCE_VERSION  # what read the history before (records.checkpoint_point)
    asks: int = 0  # the checkpoint's history_asks (records.checkpoint_point)


def read_history(
    store: Store, embeddings: CachedEmbeddings, options: IndexOptions, owed: Owed, result: SyncResult, *,
    progress: ProgressSink, stop: Callable[[], bool], give_way: Callable[[], bool],
) -> None:
    """The task memories of the checkpoint's history, after the sync made the repo
    searchable (ingest/tasks.py); the checkpoint's mark is cleared once all are written.
    A read that stops where it gave way records how often it was asked: the next one
    gives way only after more asks (the search past the history starts again from its
    top, and would never reach its end where events come faster than that)."""
    started = time.monotonic()
    asked, gave_way = [0], [False]

    def ask() -> bool:
        if stop():
            return True
        asked[0] += 1
        gave_way[0] = asked[0] > owed.asks and give_way()
        return gave_way[0]

    def mark(*, complete: bool) -> None:
        store.upsert([checkpoint_point(
            owed.scope, commit=owed.commit, pending=None, sync_stamp=owed.sync_stamp,
            shallow=owed.git.shallow_state, attributes=owed.attributes, history_owed=not complete,
            provenance=PROVENANCE_VERSION if complete else owed.provenance,
            history_asks=0 if complete else asked[0] if gave_way[0] else owed.asks,
        )])  # fmt: skip

    with EmbedAhead(embeddings) as ahead:
        tasks = TaskSync(store, ahead, owed.git, owed.scope, options=options)
        tasks.reader.know(owed.parsed)
        again = read_earlier(owed.commit, owed.provenance)
        if again:  # what is written carries this release's version
            log.info("commit history read by an earlier release: reading it again", repo=owed.scope.repo,
                     branch=owed.scope.branch, was=owed.provenance, now=PROVENANCE_VERSION)  # fmt: skip
            mark(complete=False)  # owed by the mark too, meanwhile (``recalld status``)
        outcome = tasks.backfill(
            owed.commit, queue=lambda texts: ahead.submit(map(redacted_text, texts)), progress=progress, stop=ask,
            again=again,
        )
        if outcome.complete and outcome.rooted:  # what no commit produced as it is read now
            blamed, outcome.complete = blame_leftovers(store, owed.git, owed.scope, owed.commit, stop=ask,
                                                       progress=progress)  # fmt: skip
            outcome.writers += blamed
        if outcome.complete or gave_way[0]:
            mark(complete=outcome.complete)
        result.history_added, result.history_embedded = outcome.added, ahead.embedded
        result.history_writers = outcome.writers
    result.history_owed = not outcome.complete
    result.history_seconds = round(time.monotonic() - started, 3)


def read_earlier(indexed: str | None, provenance: int | None) -> bool:
    """Whether the history of the indexed commit was read by an earlier release's rules
    (``provenance``, its checkpoint's version; None: before there was one): the sync owes
    it, read again (``read_history``)."""
    return indexed is not None and provenance != PROVENANCE_VERSION
