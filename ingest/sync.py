"""One sync: bring a repo/branch's memories exactly in line with the branch tip.

checkpoint → deltas (git tree diff, renames) → symbols (parse) → plan (pure) →
vectors (only unseen texts) → store (upsert new, close stale) → checkpoint.
The sync compares states, so missed events, crashes, resets and rebases all converge.
Which files it reads, and what it knows of the rest, is ingest/touched.py's.

The model is the slow part, so it starts early: every parsed symbol that will be a new
version has its text queued on an ``EmbedAhead`` thread while parsing goes on, and the
writer stores each batch as its vectors arrive (ingest/ahead.py, ingest/writer.py).
"""

from __future__ import annotations

import threading
import time
from functools import partial
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from recalld.daemon.logs import get_logger
from recalld.ingest.ahead import EmbedAhead, NewTexts
from recalld.ingest.collect import NameCounts, OldSources
from recalld.ingest.embed_cache import CachedEmbeddings
from recalld.ingest.errors import RecalldError
from recalld.ingest.files import IndexOptions
from recalld.ingest.gcpace import sync_pace
from recalld.ingest.gitattributes import beside_state
from recalld.ingest.gitrepo import GitRepository
from recalld.ingest.history import Owed, owes_history, read_earlier, read_history
from recalld.ingest.keyed import batches
from recalld.ingest import secrets, sparse
from recalld.ingest.parse_memo import PARSED
from recalld.ingest.parts import TreeParts, write_parts
from recalld.ingest.plan import FileSymbols, Scope, memory_id, plan_changes
from recalld.ingest.redaction import counting_redactions, redacted_text
from recalld.ingest.revector import ensure_space
from recalld.ingest.result import NoProgress, ProgressSink, SyncResult
from recalld.ingest.records import (
    SyncStep,
    PROVENANCE_VERSION,
    checkpoint_point,
    is_test_path,
    next_stamp,
    stored_checkpoint,
)
from recalld.ingest.store import MemoryFilter, Store
from recalld.ingest.trust import apply_trust, branch_untrusted
from recalld.parsers.extraction import EXTRACTION_VERSION
from recalld.ingest.tasks import TaskSync
from recalld.ingest.touched import read_changed, whole_tree
from recalld.ingest.writer import write_plan

log = get_logger("recalld.sync")



@dataclass(frozen=True, slots=True)
class _Step:
    """How a sync that writes goes: its stamp; ``reconcile``: the task step compares every
    live task memory with git (after a crash, a full sync); the indexed commit's
    ``extraction``; ``reread``: the task memories are compared with git too
    (``made_earlier``, or the attribute files changed); whether history is ``owed``; the
    attribute files beside the tree (before, now)."""

    stamp: int
    reconcile: bool
    extraction: int | None
    reread: bool
    owed: bool
    attributes: tuple[str | None, str]
    after: int | None  # the pending marker's pending_after (records.checkpoint_point)
    provenance: int | None  # the checkpoints' until the history is read (records.checkpoint_point)
    asks: int  # and their history_asks, kept


class Indexer:
    def __init__(self, *, store: Store, embeddings: CachedEmbeddings, options: IndexOptions) -> None:
        self.store = store
        self.embeddings = embeddings
        self.options = options
        self._space_lock = threading.Lock()
        self._space_checked = False  # the store's vectors are known to be of embeddings.space
        self._reembedded_unsaid = 0  # re-embedded by a sync that failed after it: the next one says so

    def sync(
        self,
        *,
        repo: str,
        path: str,
        branch: str,
        full: bool = False,
        progress: ProgressSink | None = None,
        stop_history: Callable[[], bool] | None = None,
        yield_history: Callable[[], bool] | None = None,
    ) -> SyncResult:
        """``stop_history``: asked between chunks of a commit-history backfill whether to
        leave the rest to the next sync (the daemon's: it is stopping). ``yield_history``:
        asked as well, whether to give way to newer work (the daemon's: a newer event for
        the repo waits); it is heeded only once the read has gone past where the last one
        that gave way stopped, so a busy repository's history is still read to its end."""
        progress = progress or NoProgress()
        with sync_pace():
            reembedded = self.ensure_space(progress)
            if reembedded:
                with self._space_lock:
                    self._reembedded_unsaid += reembedded
            with counting_redactions() as redactions:
                result, owed = self._sync(repo=repo, path=path, branch=branch, full=full, progress=progress)
                if owed is not None:
                    read_history(self.store, self.embeddings, self.options, owed, result, progress=progress,
                                 stop=stop_history or (lambda: False), give_way=yield_history or (lambda: False))
        result.secrets_redacted = redactions.count
        with self._space_lock:  # a first sync that failed (its path gone) had said nothing of it
            result.reembedded, self._reembedded_unsaid = self._reembedded_unsaid, 0
        return result

    def ensure_space(self, progress: ProgressSink) -> int:
        """Once a process (the model is configured for its lifetime): every stored vector
        in the configured model's space before a sync writes one (ingest/revector.py);
        how many memories that embedded again. The daemon calls it at its start."""
        with self._space_lock:
            if self._space_checked:
                return 0
            test_chars = self.options.test_embed_chars
            count = ensure_space(self.store, self.embeddings, test_chars=test_chars, progress=progress)
            self._space_checked = True
            return count

    def _sync(
        self, *, repo: str, path: str, branch: str, full: bool, progress: ProgressSink
    ) -> tuple[SyncResult, Owed | None]:
        """The sync proper, and the commit whose history it leaves owed (with a clean
        checkpoint at that commit), if any."""
        started = time.monotonic()
        git = GitRepository(path)
        untrusted = branch_untrusted(
            branch, self.options.untrusted_branches, remote_tracking=git.is_remote_tracking(branch)
        )
        scope = Scope(repo, branch, untrusted=untrusted)
        target = git.branch_tip(branch)
        if target is None and not git.is_unborn(branch):
            raise RecalldError(git.missing_branch(branch, path=path, repo=repo))
        checkpoint = stored_checkpoint(self.store, scope)
        apply_trust(self.store, scope, checkpoint)
        indexed = checkpoint.get("commit")
        result = SyncResult(repo, branch, indexed, target)
        if target is None:
            result.seconds = round(time.monotonic() - started, 3)
            return result, None
        pending = checkpoint.get("pending")
        clean = not pending and git.has_commit(indexed)
        # the history was read by an earlier release's rules: read again, after the sync
        provenance = PROVENANCE_VERSION if indexed is None else checkpoint.get("provenance")
        asks = int(checkpoint.get("history_asks") or 0)
        earlier = read_earlier(indexed, provenance)
        owed = bool(checkpoint.get("history_owed")) or (earlier and owes_history(git, indexed, self.options,
                                                                                 earlier=True))  # fmt: skip
        # a fetch deepened a shallow clone (or cut it shorter), or the checkpoint is an earlier
        # release's: the task memories are compared with git, and its history read on
        reshaped = checkpoint.get("shallow") != git.shallow_state
        extraction = checkpoint.get("extraction", 1)  # a checkpoint without it: version 1
        # info/attributes or the user's global attributes file changed since the memories
        # were read, or [index] honour_gitattributes did: what attributes say of unchanged
        # files is compared as after a new extractor
        beside = beside_state(git.attribute_files) if self.options.honour_gitattributes else "not honoured"
        reattributed = checkpoint.get("attributes") not in (None, beside)
        outdated = made_earlier(indexed, extraction) or reattributed
        if outdated and not full:
            if reattributed:
                log.info("info/attributes, the global attributes file or [index] honour_gitattributes changed: "
                         "comparing every file", repo=repo, branch=branch,
                         files=[str(f) for f in git.attribute_files])  # fmt: skip
            else:
                log.info("memories made by an earlier extractor: comparing every file",
                         repo=repo, branch=branch, was=extraction, now=EXTRACTION_VERSION)  # fmt: skip
            full = True
        if clean and not full and indexed == target and not reshaped:
            result.seconds = round(time.monotonic() - started, 3)
            kept = Owed(git, scope, target, checkpoint.get("sync_stamp"), checkpoint.get("attributes"),
                         provenance=provenance, asks=asks)  # fmt: skip
            return result, kept if owed else None

        after = pending_after(checkpoint)  # what the marker keeps, and a resume goes by

        def writing(unwritten: bool = False) -> _Step:
            """How the sync writes, once it is known to; ``unwritten``: it opens versions no
            commit it brings in wrote (``plan.NewVersion.reread``), whose writers the history finds."""
            return _Step(stamp=next_stamp(checkpoint), reconcile=bool(pending) or full or reshaped,
                         extraction=extraction, reread=outdated,
                         owed=owed or owes_history(git, indexed, self.options, reshaped=reshaped,
                                                   reread=outdated or unwritten, target=target),
                         attributes=(checkpoint.get("attributes"), beside),
                         after=after, provenance=provenance, asks=asks)  # fmt: skip

        stamp = checkpoint.get("sync_stamp")
        read_under = checkpoint.get("attributes")  # what the checkpoint says until it is written again
        reused: list[FileSymbols] = []  # the files parsed, handed to the history after the sync
        with EmbedAhead(self.embeddings) as ahead:
            texts = NewTexts(
                ahead, scope, max_chars=self.options.max_embed_chars, test_chars=self.options.test_embed_chars
            )
            sources = OldSources(git, self.options)
            planner = partial(plan_changes, scope=scope, old_source=sources, old_docstring=sources.docstring,
                              name_counts=NameCounts(self.store, scope))  # fmt: skip
            # written whatever the plan: the checkpoint moves, or an interrupted or earlier
            # release's sync is finished (the task step reconciles its redactions)
            anyway = bool(indexed != target or pending or outdated or reshaped)
            if clean and not full:
                touched = read_changed(self.store, self.options, git, scope, indexed, target, texts, progress=progress)
                texts.finish()
                result.mode = "incremental"
                files = touched.collected.files
                plan = planner(live=touched.live, targets=files, gone=touched.gone, renames=touched.renames,
                               skipped=touched.collected.skipped, unchanged=touched.unchanged)  # fmt: skip
                reused.extend(files.values())
                result.count_plan(plan, files, gone=touched.gone, had={m.path for m in touched.live})
                result.count_reads(touched.collected)
                touched.collected.log_notes(repo)
                if not plan.is_empty or anyway:
                    how = writing(unwritten=any(v.reread for v in plan.new_versions))
                    owed, stamp, read_under = how.owed, how.stamp, beside

                    def incremental(tasks: TaskSync, step: SyncStep) -> None:
                        _read_commits_ahead(tasks, ahead, reused, indexed, target)
                        write_plan(
                            self.store, ahead, scope, plan, step, max_chars=self.options.max_embed_chars,
                            test_chars=self.options.test_embed_chars, progress=progress,
                        )  # fmt: skip

                    if self._write(git, scope, incremental, True, how, result=result, vectors=ahead, progress=progress):
                        owed = True  # writers left unknown (``TaskOutcome.unwritten``)
            else:
                known = indexed if git.has_commit(indexed) else None
                tree = whole_tree(self.store, self.options, git, scope, known, target, texts,
                                  full=full, interrupted=pending, after=after,
                                  reread=outdated)  # fmt: skip
                result.mode = "full"
                parts = TreeParts(tree, texts, ahead, planner, result, progress)
                reused = parts.reused
                first = next(iter(parts), None)  # the first part with something to write, if any
                if first is not None or anyway or tree.live.restore or tree.live.discard:
                    how = writing(unwritten=tree.reads_unchanged)
                    owed, stamp, read_under = how.owed, how.stamp, beside

                    def in_parts(tasks: TaskSync, step: SyncStep) -> None:
                        write_parts(
                            self.store, ahead, scope, parts, step, first=first, max_chars=self.options.max_embed_chars,
                            test_chars=self.options.test_embed_chars, progress=progress,
                            after_reading=lambda: _read_commits_ahead(tasks, ahead, reused, indexed, target),
                        )  # fmt: skip

                    if self._write(git, scope, in_parts, tree.attributes, how, result=result, vectors=ahead,
                                   progress=progress):  # fmt: skip
                        owed = True
                tree.collector.result.log_notes(repo)
            result.embedded += ahead.embedded
        result.seconds = round(time.monotonic() - started, 3)
        return result, Owed(git, scope, target, stamp, read_under, reused, provenance, asks) if owed else None

    def _write(
        self,
        git: GitRepository,
        scope: Scope,
        apply: Callable[[TaskSync, SyncStep], None],
        check_attributes: bool,
        how: _Step,
        *,
        result: SyncResult,
        vectors: EmbedAhead,
        progress: ProgressSink,
    ) -> bool:
        """Pending marker, ``apply`` (the plan and the leftovers of an interrupted sync;
        it queues the task step's texts too), task memories, then the checkpoint. The
        pending marker keeps the indexed commit's extraction (``how.extraction``) until
        the checkpoint says the target's memories are all of this version, and likewise
        the attribute files beside the tree. ``check_attributes``: whether a linguist-
        attribute may apply. Whether the task step left writers for the history read to
        find, which it then owes."""
        target = result.to_commit
        assert target is not None
        self.store.upsert([
            checkpoint_point(scope, commit=result.from_commit, pending=target, extraction=how.extraction,
                             history_owed=how.owed, sync_stamp=how.stamp, shallow=None, attributes=how.attributes[0],
                             pending_after=how.after, provenance=how.provenance, history_asks=how.asks)
        ])  # fmt: skip
        info = git.commit_info(target)
        indexed = result.from_commit
        last = git.commit_info(indexed) if indexed and git.has_commit(indexed) else None
        step = SyncStep(info, last, how.stamp, how.after)
        tasks = TaskSync(self.store, vectors, git, scope, options=self.options, check_attributes=check_attributes)
        apply(tasks, step)
        owes = self._sync_tasks(result, tasks, step, reconcile=how.reconcile, reread=how.reread, progress=progress)
        done = checkpoint_point(scope, commit=target, pending=None, history_owed=how.owed or owes, sync_stamp=how.stamp,
                                shallow=git.shallow_state, attributes=how.attributes[1], provenance=how.provenance,
                                history_asks=how.asks)
        self.store.upsert([done])
        return owes

    def _sync_tasks(
        self,
        result: SyncResult,
        tasks: TaskSync,
        step: SyncStep,
        *,
        reconcile: bool,
        reread: bool,
        progress: ProgressSink,
    ) -> bool:
        """The task-memory step (ingest/tasks.py), inside the pending checkpoint. Its texts
        go through the sync's ``EmbedAhead``, which counts what it embeds. Whether it left
        writers unknown."""
        outcome = tasks.run(indexed=result.from_commit, reconcile=reconcile, progress=progress, step=step,
                            reread=reread)  # fmt: skip
        result.tasks_added, result.tasks_deprecated = outcome.added, outcome.deprecated
        return outcome.unwritten

    def remove_repo(self, repo: str, *, branch: str | None = None) -> int:
        """Delete a repository's points, or only those of its ``branch`` (its checkpoint and
        the memories its syncs wrote: a manual memory is of no branch). Returns how many
        memories went: the checkpoint is none, as status and export count them."""
        flt = MemoryFilter(record=None, repo=repo, branch=branch, deprecated=None)
        points = list(self.store.scroll(flt, fields=("record",)))
        for batch in batches([p.id for p in points], 1000):
            self.store.delete(batch)
        return sum(p.payload.get("record") == "memory" for p in points)


def _read_commits_ahead(
    tasks: TaskSync, vectors: EmbedAhead, parsed: Iterable[FileSymbols], indexed: str | None, target: str
) -> None:
    """Once every file of the sync is read, and before the plan's last writes: the task
    step is handed the files the sync ``parsed`` (the commits that made them are compared
    without parsing them again), and the commits it writes are read and their texts
    queued after the files', so the model computes them while the writer stores symbols
    (``TaskSync.read_ahead``)."""
    tasks.reader.know(parsed)
    vectors.submit(redacted_text(t) for t in tasks.read_ahead(indexed=indexed, target=target))


def pending_after(checkpoint: dict[str, Any]) -> int | None:
    """What a sync's pending marker keeps of the last sync that ended: the stamp it had
    (0: none), or what a marker left by a killed sync says (None: an earlier release's)."""
    if checkpoint.get("pending"):
        return checkpoint.get("pending_after")
    return checkpoint.get("sync_stamp") or 0


def made_earlier(indexed: str | None, extraction: int | None) -> bool:
    """Whether the memories of the indexed commit were made by an earlier release's
    extractor (``extraction``, its checkpoint's version): the sync compares every file
    and writes again what that release read otherwise."""
    return indexed is not None and extraction != EXTRACTION_VERSION


def forget_memos(*, parses: bool = False) -> None:
    """Drop what syncs memoise (identifier terms and their indices, strings found clean
    of secrets, point ids, test paths): it pays off within a sync, and held ~50 MB after
    a full index of 37k symbols, which a daemon kept while idle. The parse memo is packed
    rather than dropped: a reset's way back reads its files again. ``parses``: drop it
    too, leaving the process's syncs as a new process's (a benchmark's full index)."""
    if parses:
        PARSED.trim(0)
    else:
        PARSED.pack()
    sparse.forget_terms()
    secrets.forget_clean()
    memory_id.cache_clear()
    is_test_path.cache_clear()
