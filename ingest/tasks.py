"""Task memory: one memory per commit of the tracked branch, kept in line with the branch by comparing
states, like the structural memories.

**Which commits are live** after a sync to ``target`` (``tasks.backfill_commits`` = N; 0: none):

- every commit that had a live task memory and is still ``target`` or an ancestor of it;
- the *window*: the commits reachable from ``target`` and not from the indexed commit
  (``git log indexed..target``, so the commits of a merged side branch count too),
  newest first, at most N; and always ``target`` itself;
- the *history*: on a repo's first sync, or when the indexed commit is gone from git,
  the last N commits of the branch's **first-parent** history (backfill).

**The history comes after the code.** Reading a commit parses its changed files on both sides:
inside a first index, a backfill took CPU the model needed (a Django clone's 500 commits: ~9 s of
the sync thread's). So the sync that owes it writes only its window (its commit read in the files
within the parse limit alone), its checkpoint says so (``history_owed`` = 1), and the repo is
searchable at once; ``backfill`` then writes the history of the checkpoint's commit (every one an
ancestor, so live), in chunks, and clears the mark. It stops between chunks when asked (the daemon
asks when a newer event for the repo waits, or it is stopping), and any later sync with the mark set
goes on where it stopped: what is written is skipped. A history an earlier release read
(``history.read_earlier``) is read again: every task memory of an earlier ``PROVENANCE_VERSION`` is
written again whole; so is one an earlier extractor read (its ``extraction``), after an extractor
upgrade's sync (which owes the read: ``owes_history``).

A live task memory whose commit is no longer ``target`` or an ancestor of it (reset, rebase, amend,
force-push) is closed: ``deprecated_reason`` "removed", ``valid_to_commit``/``valid_to_time`` the sync's
target, and ``superseded_by`` the task memory of the window commit with the same patch id, else with the
same subject and author, when exactly one matches; else None. A commit that comes back (reset forward)
is reopened: the id is uuid5(repo, branch, commit), so it is the same point, and its earlier interval
goes to ``history``. Unless it is the sync's target, only its state changes (a payload update): a commit
never changes, so its text, vector, files and symbols stay as written, and its links are those it was
written with. Reading every commit of the way forward again would parse both sides of each file it
changed: a reset 50 commits back and forward again spent most of its time there. The target is read and
written whole, so its links are a target's (below). A task memory's own interval starts at its commit
(``valid_from_commit`` = the commit, ``valid_from_time`` = its committer time).

**Shallow clones.** A boundary commit (held without its parents) is read as such, not as the root
libgit2 takes it for: its memory has ``shallow`` = 1 and no files or symbols. A sync that finds the
clone's boundaries moved since its checkpoint (a fetch deepened it) compares every live task memory
with git: a boundary memory whose commit now has its parents is written again whole (one closed is,
when it comes back), and the history is read on. Where the target's history reaches a boundary, a
commit it does not reach may lie beyond it: such task memories are not closed.

**Links both ways.** A structural memory's ``task_id`` is the task memory id of the commit that wrote
it: its ``valid_from_commit``, the sync's target, as written (code it moved unchanged keeps its own); a
sync over several new commits then gives what the target did not write to the newest other commit of the
window that did, moves followed back (``credit.credit_window``; a reset forward, reading none of them
again, by their task memories' links and renames; what a window cut at its limit did not write, to the
history read the sync owes). Both resolve whenever task memory is on. A branch's first index does not
know which commit wrote what it found (``change`` ``indexed``), nor does a sync whose indexed commit has
gone from git: such a version gets its ``task_id`` and ``author`` from the newest commit of the window
or the history that produced it, when the task step reads that commit (a merge gives its task, not its
author), back through the commits that only moved it (``ingest/authorship.py``), and has neither where
none did. A task memory's ``symbol_ids`` are the structural versions its commit produced (each symbol it
added or modified, at its path with its content at that commit; every symbol of a file renamed with
edits) that the store holds, live or closed, when the task memory is written — after the sync's
structural step. For the target commit that is every version it produced, plus the live versions at the
paths it renamed without edits. For older commits (a multi-commit sync, a backfill) a version is linked
only where the store has it (the code was still like that at some sync target); versions in files an
older commit moved without edits are not linked (those in files past the parse limit are, where the
store holds code at their path: ``filling``).

**Crashes.** The step runs inside the sync's pending checkpoint, after the structural writes: first
it writes the window's missing (or closed) memories, then the closures. Both are recomputed from git
by the next sync, and a sync that finds a pending marker compares every live task memory with git,
so a crash anywhere converges, without duplicates. A fast-forward sync from a clean checkpoint skips
that comparison: every live task memory is then an ancestor of the indexed commit, hence of the
target. The history is written after the checkpoint, and only ancestors of its commit: a crash there
leaves live memories that are right, and the mark, so the next sync finishes it.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from itertools import groupby
from typing import Any

from recalld.daemon.logs import get_logger
from recalld.ingest.authorship import FOLLOW, SKIP, UNKNOWN_WRITER, WriterSearch, given_by_task, live_at
from recalld.ingest.authorship import seek_writers, to_claim, unclaim_misgiven, version_ids
from recalld.ingest.credit import clear_unwritten, credit_by_links, credit_window, holds_all
from recalld.ingest.commits import CommitReader, CommitRecord
from recalld.ingest.files import IndexOptions
from recalld.ingest.filling import Filling
from recalld.ingest.keyed import batches, cut_after
from recalld.ingest.gitrepo import GitRepository
from recalld.ingest.plan import Scope
from recalld.ingest.off_branch import credit_off_branch
from recalld.ingest.records import (HISTORY_FIELDS, PROVENANCE_VERSION, TASK, SyncStep, closing_fields, open_state,
                                    past_intervals, task_memory_id)  # fmt: skip
from recalld.ingest.redaction import holds_redaction
from recalld.ingest.result import NoProgress, ProgressSink
from recalld.ingest.store import MemoryFilter, Store, StoredPoint, retrieve_many
from recalld.ingest.successors import rewritten_by
from recalld.ingest.task_memory import task_payload, task_text
from recalld.ingest.writer import MemoryDraft, TextVectors, upsert_points, vectorise
from recalld.parsers.extraction import EXTRACTION_VERSION

log = get_logger("recalld.sync")

CHUNK = 1000  # commits read, embedded and written together
HISTORY_CHUNK = 50  # commits a backfill reads, embeds and writes together (~1 s on Django)
HISTORY_LABEL = "commit history"  # the backfill's progress bar
REMOVED = "removed"
SCAN_FIELDS = ("commit", "subject", "author", "parents", "shallow")


@dataclass(slots=True)
class TaskOutcome:
    added: int = 0  # task memories written (new or reopened)
    deprecated: int = 0
    complete: bool = True  # False: a backfill that stopped when asked to
    writers: int = 0  # versions a first index found that the history read (and the search past it) gave a writer
    rooted: bool = False  # the first-parent history was read, or searched, down to its root (``blamed``)
    unwritten: bool = False  # writers left for the history read to find (``off_branch``, ``credit_window``)


def commit_window(git: GitRepository, indexed: str | None, target: str, limit: int) -> list[str]:
    """The commits whose task memory a sync to ``target`` makes sure of, newest first
    (with no indexed commit, only ``target``: its history is a ``backfill`` of its own)."""
    commits = git.walk_commits(target, hide=indexed, limit=limit, first_parent=False) if indexed else []
    return [target, *(c for c in commits if c != target)][:limit]


class TaskSync:
    """The task step of one sync of one repo/branch."""

    def __init__(
        self,
        store: Store,
        embeddings: TextVectors,
        git: GitRepository,
        scope: Scope,
        *,
        options: IndexOptions,
        check_attributes: bool | None = None,
    ) -> None:
        self.store = store
        self.embeddings = embeddings
        self.git = git
        self.scope = scope
        self.options = options
        # the history reads only the blobs a partial clone holds (one fetch a blob of every
        # old commit is not worth its symbols); the files of the tip are the sync's, fetched
        self.reader = CommitReader(git.local_only(), options, check_attributes=check_attributes)
        self._filled = Filling(self.reader, store, scope)  # a record, for claims and credit
        self._sides = None if git.blobs.partial else (git, self.reader)  # where merges' side branches are read
        self._read: dict[str, CommitRecord] = {}  # read ahead, for _write; filled by ``_record`` if ``_fills``
        self._fills = True  # set by ``run`` and ``backfill``
        self._given: dict[str, list[str]] = {}  # task id → versions it names (backfill)

    def read_ahead(self, *, indexed: str | None, target: str) -> list[str]:
        """Reads the window's commits that have no task memory yet and returns their
        texts, for a sync to call before it writes its plan: reading them (up to
        ``backfill_commits``, each commit's changed files parsed on both sides) and
        embedding their texts then overlap the model's work on the symbols, where after
        the plan the model sat idle through them. ``run`` takes what was read
        and reads whatever else it needs (a record depends on git alone)."""
        if self.options.backfill_commits <= 0:
            return []
        _, window = self._window(indexed, target)
        ids = {c: task_memory_id(self.scope, c) for c in window}
        stored = {p.id for p in retrieve_many(self.store, list(ids.values()), fields=())}
        return self._read_all([commit for commit, mid in ids.items() if mid not in stored])

    def run(
        self, *, indexed: str | None, reconcile: bool, progress: ProgressSink, step: SyncStep, reread: bool = False
    ) -> TaskOutcome:
        """``reconcile``: compare every live task memory with git (after a crash, --full);
        ``reread``: and write again those an earlier release's secret rules redacted (the
        sync after an upgrade). ``step``: the sync's move, to its target, which closes what
        left the branch."""
        target = step.commit.id
        outcome = TaskOutcome()
        if self.options.backfill_commits <= 0:
            return outcome
        known, window = self._window(indexed, target)
        # a first index leaves what its commit wrote past the parse limit to the history read, after it is searchable
        self._fills = known is not None or (self.options.backfill_commits == 1 and not self.options.writer_commits)
        # a sync that knows its indexed commit knows who wrote what it wrote: no moves to follow
        writers = WriterSearch(self.store, self.scope, moves=FOLLOW if known is None else SKIP, reads=self._sides)
        forward = known is not None and self.git.is_ancestor(known, target)  # else a reset back, an amend, a rebase
        trusted = not reconcile and forward
        removed, again = ([], set()) if trusted else self._removed(target, reread=reread)
        todo = window + sorted(again.difference(window))
        for start in range(0, len(todo), CHUNK):
            outcome.added += self._write(todo[start : start + CHUNK], target, progress, writers, again=again)
        if known is not None and len(window) > 1:
            whole = holds_all(self.git, known, target, window, self.options.backfill_commits)
            if reconcile or all(c in self._read for c in window):
                # new commits, all read (after a crash, those the killed sync wrote: credited as it would have)
                records = [self._record(c) for c in window]
                outcome.unwritten = credit_window(self.store, self.scope, records, whole=whole, stamp=step.stamp)
            else:  # a reset forward reopens the task memories of those it brings back, unread
                credit_by_links(self.store, self.scope, window, whole=whole, stamp=step.stamp)
        if known is not None and not forward:
            limit = self.options.backfill_commits
            unwritten = credit_off_branch(self.store, self.scope, self.git, known, step, self._record, limit)
            outcome.unwritten = unwritten or outcome.unwritten
        if reread and known is not None:  # what it reads otherwise, and none of its commits wrote
            clear_unwritten(self.store, self.scope, step, [self._record(c) for c in window if known != target])
        self._read.clear()
        outcome.deprecated = self._close(removed, window, step)
        return outcome

    def backfill(
        self, commit: str, *, queue: Callable[[list[str]], None], progress: ProgressSink, stop: Callable[[], bool],
        again: bool = False,
    ) -> TaskOutcome:
        """Writes the missing (or closed) task memories of the last ``backfill_commits``
        first-parent commits of ``commit``, the checkpoint's, in chunks (``cut_after``), and
        claims again for those written before, in their turn (newest first), where a
        version is still without a writer. Each chunk is read, and its
        texts ``queue``d to the model, while the one before is written; before each chunk
        ``stop`` is asked whether to leave the rest for later. One an earlier release wrote
        (its ``provenance``), or an earlier extractor read (its ``extraction``: the symbols
        it lists and links), is written again whole; with ``again`` (such a release read
        the history) what each names its commit's and it did not write is sought again."""
        commits = self.git.walk_commits(commit, hide=None, limit=self.options.backfill_commits, first_parent=True)
        ids = {c: task_memory_id(self.scope, c) for c in commits}
        stored = retrieve_many(self.store, list(ids.values()), fields=("deprecated", "provenance", "extraction"))
        # live task memory id → whether this release's rules wrote it, and whether from this extractor's reading
        live = {p.id: (p.payload.get("provenance") == PROVENANCE_VERSION,
                       p.payload.get("extraction") == EXTRACTION_VERSION)
                for p in stored if p.payload.get("deprecated") == 0}  # fmt: skip
        todo = {c for c in commits if not all(live.get(ids[c], (False,)))}
        stale = {c for c in commits if ids[c] in live and (again or not live[ids[c]][0])}
        self._given = given_by_task(self.store, self.scope) if stale else {}
        writers = WriterSearch(self.store, self.scope, moves=FOLLOW, reads=self._sides, stop=stop)
        outcome, self._fills, self._filled.stop = TaskOutcome(), True, stop
        if not todo and not stale and not writers.sought():  # all written, every writer found
            return outcome
        older, outcome.rooted = self._older(commit, len(commits))
        chunks = cut_after(commits, todo, HISTORY_CHUNK)  # a read stopped after its first chunk still goes on
        progress.begin(HISTORY_LABEL, len(commits))
        try:
            if chunks:
                queue(self._read_all([c for c in chunks[0] if c in todo]))
            for n, chunk in enumerate(chunks):
                if n and (self._filled.cut or stop()):  # a fill that stopped leaves the rest too
                    outcome.complete = False
                    break
                if n + 1 < len(chunks):  # read on while the model embeds this chunk
                    queue(self._read_all([c for c in chunks[n + 1] if c in todo]))
                for writes, run in groupby(chunk, key=todo.__contains__):
                    if writes:
                        written = list(run)
                        self._unclaim([self._record(c) for c in written if c in stale])
                        outcome.added += self._write(written, commit, NoProgress(), writers, retrace=True,
                                                     again={c for c in written if ids[c] in live})  # fmt: skip
                    else:  # what was read before is claimed again, for its moves (and a merge's branches a stop left)
                        self._retrace(written := list(run), commit, writers, stale)
                    progress.advance(len(written))
                for done in chunk:
                    self._read.pop(done, None)
        finally:
            progress.end()
        outcome.complete &= not self._filled.cut
        if outcome.complete and older:
            outcome.complete = seek_writers(self.git, self.reader, writers, older, stop=stop, progress=progress)
        outcome.complete, outcome.writers = outcome.complete and not writers.stopped, writers.claimed
        return outcome

    def _older(self, commit: str, read: int) -> tuple[list[str], bool]:
        """The first-parent commits past the ``read`` newest, for older code's writers (not in
        a partial clone), and whether those end at the root (a shallow clone's boundary)."""
        if read < self.options.backfill_commits or self.git.blobs.partial:
            return [], not self.git.blobs.partial
        limit = read + self.options.writer_commits  # one more walked: whether the root is among them
        walked = self.git.walk_commits(commit, hide=None, limit=limit + 1, first_parent=True)
        return walked[read:limit], len(walked) <= limit

    def _unclaim(self, records: list[CommitRecord]) -> None:  # ``unclaim_misgiven`` each
        for record in records:
            unclaim_misgiven(self.store, self.scope, record, self._given)

    def _retrace(self, commits: list[str], target: str, writers: WriterSearch, stale: AbstractSet[str]) -> None:
        """Claims again for ``commits``, newest first, whose task memories a history read
        wrote before (the target's, by the sync that owed it; those of a read that stopped):
        what they claimed stays theirs, and the moves they made are found again for the
        older commits' claims. One cut at the parse limit links what it wrote past it (a first
        index's commit, written before its files past the limit were read: ``_fills``)."""
        for batch in batches(commits, HISTORY_CHUNK):
            self.git.fetch_trees(batch)
            records = [self._filled(self.reader.read(c)) for c in batch]
            self._unclaim([r for r in records if r.details.id in stale])
            links, unknown = self._links(records, target)
            writers.claim(records, unknown)
            for commit in (r.details.id for r in records if r.symbols_truncated):
                self.store.set_payload([task_memory_id(self.scope, commit)], {"symbol_ids": links[commit]})

    def _record(self, commit: str) -> CommitRecord:
        """``commit``'s record (read ahead, or now), filled once the sync wrote its plan."""
        record = self._read.get(commit) or self.reader.read(commit)
        self._read[commit] = self._filled(record) if self._fills else record
        return self._read[commit]

    def _read_all(self, commits: list[str]) -> list[str]:
        """Reads ``commits`` for ``_write`` and returns their texts (a treeless clone's trees
        they lack fetched first, in one go)."""
        self.git.fetch_trees(commits)
        for commit in commits:
            self._read[commit] = self.reader.read(commit)
        return [task_text(self._read[c], max_chars=self.options.max_embed_chars) for c in commits]

    def _window(self, indexed: str | None, target: str) -> tuple[str | None, list[str]]:
        """The indexed commit if git still has it, and the window of commits to make sure of."""
        known = indexed if self.git.has_commit(indexed) else None
        return known, commit_window(self.git, known, target, self.options.backfill_commits)

    def _write(
        self, commits: list[str], target: str, progress: ProgressSink, writers: WriterSearch,
        *, again: AbstractSet[str] = frozenset(), retrace: bool = False,
    ) -> int:
        """Writes the commits' missing task memories (and the target's, if closed, and those ``again``
        names whole) and reopens the other closed ones; returns how many it wrote or reopened. ``writers``
        claims what those it writes produced, with ``retrace`` (a history read) what those it reopens
        did too, their moves followed. (What the model computed, the sync counts on its ``EmbedAhead``.)"""
        ids = {c: task_memory_id(self.scope, c) for c in commits}
        fields = (*HISTORY_FIELDS, *SCAN_FIELDS)
        existing = {p.id: p.payload for p in retrieve_many(self.store, list(ids.values()), fields=fields)}
        closed = {c for c in commits if ids[c] in existing and existing[ids[c]].get("deprecated") != 0}
        again = {*again, *(c for c in closed if self._cut_short(existing[ids[c]]))}
        reopened = [ids[c] for c in commits if c in closed and c != target and c not in again]
        for mid in reopened:
            self.store.set_payload([mid], open_state(self.scope, past_intervals(existing[mid])))
        todo = {c for c in commits if ids[c] not in existing or (c in closed and c == target) or c in again}
        read = [self._record(c) for c in commits if c in todo or (retrace and c in closed)]  # closed: reopened
        if not read:
            return len(reopened)
        links, unknown = self._links(read, target)
        writers.claim(read, unknown)
        drafts: list[MemoryDraft] = []
        for record in (r for r in read if r.details.id in todo):
            text = task_text(record, max_chars=self.options.max_embed_chars)
            mid = ids[record.details.id]
            history = past_intervals(existing.get(mid))
            payload = task_payload(self.scope, record, text, symbol_ids=links[record.details.id], history=history)
            drafts.append(MemoryDraft(mid, text, payload))
        points, _embedded = vectorise(self.embeddings, drafts, progress=progress)
        upsert_points(self.store, points)
        return len(reopened) + len(points)

    def _links(self, records: list[CommitRecord], target: str) -> tuple[dict[str, list[str]], set[str]]:
        """commit → ids of the structural versions it produced that the store holds; and
        those of them whose writer is still to find (``to_claim``, ``WriterSearch.claim``)."""
        wanted = {r.details.id: version_ids(self.scope, r) for r in records}
        every = sorted({i for ids in wanted.values() for i in ids})
        stored = retrieve_many(self.store, every, fields=UNKNOWN_WRITER)
        present = {p.id for p in stored}
        unknown = to_claim(stored)
        links = {commit: [i for i in ids if i in present] for commit, ids in wanted.items()}
        for record in records:
            if record.details.id == target and record.pure_renames:
                moved = [c.new_path for c in record.pure_renames if c.new_path]
                links[target] = list(dict.fromkeys(links[target] + live_at(self.store, self.scope, moved)))
        return links, unknown

    def _removed(self, target: str, *, reread: bool) -> tuple[list[StoredPoint], set[str]]:
        """Live task memories whose commit is no longer the target or an ancestor of it,
        and, with ``reread``, the commits of the others that hold a redaction: written
        again whole, by this release's secret rules (earlier ones read Home Assistant's
        class ``APCUPSdData`` in a commit's list of symbols as a password). Only then: a
        redaction this release makes stays, and was written again at every --full."""
        flt = MemoryFilter(repo=self.scope.repo, branch=self.scope.branch, types=(TASK,), deprecated=0)
        live = list(self.store.scroll(flt, fields=(*SCAN_FIELDS, "text", "symbols") if reread else SCAN_FIELDS))
        gone = self.git.not_reachable(sorted({p.payload["commit"] for p in live}), target)
        if gone and any(self.git.is_ancestor(cut, target) for cut in self.git.shallow_boundaries):
            # beyond a shallow clone's boundary git cannot say whether a commit is an ancestor
            log.info("shallow clone: commits it cannot place on the branch keep their task memories",
                     repo=self.scope.repo, branch=self.scope.branch, commits=len(gone))  # fmt: skip
            gone = set()
        again = {p.payload["commit"] for p in live if p.payload["commit"] not in gone
                 and (reread and holds_redaction(p.payload) or self._cut_short(p.payload))}  # fmt: skip
        return [p for p in live if p.payload["commit"] in gone], again

    def _cut_short(self, payload: dict[str, Any]) -> bool:
        """Whether a task memory was written at a shallow clone's boundary (or, by an
        earlier release, as a root commit there: no parents) and the clone now holds its
        parents: what its commit changed can be read, and it is written again whole."""
        suspect = payload.get("shallow") or payload.get("parents") == []
        return bool(suspect) and self.git.reads_parents(payload["commit"])

    def _close(self, removed: list[StoredPoint], window: list[str], step: SyncStep) -> int:
        if not removed:
            return 0
        successors = rewritten_by(self.git, self.scope, removed, window)
        ending = {**closing_fields(step), "deprecated_reason": REMOVED}
        by_successor: dict[str | None, list[str]] = defaultdict(list)
        for point in removed:
            by_successor[successors.get(point.id)].append(point.id)
        for successor, ids in sorted(by_successor.items(), key=lambda item: item[0] or ""):
            for batch in batches(sorted(ids), 1000):
                self.store.set_payload(batch, {**ending, "superseded_by": successor})
        return len(removed)

