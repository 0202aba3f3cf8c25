"""What a sync reads: the files whose memories may change, collected and parsed.

``read_changed`` takes the paths git says differ between the indexed commit and the
target; ``whole_tree`` compares the whole target tree with what the store holds (a first
index, an interrupted sync, an untrusted checkpoint, an earlier extractor's memories): what
may have moved read at once (``WholeTree.moving``), the rest a part at a time
(``WholeTree.parts``, ingest/parts.py), and the stored memories of each file read as it
is planned (ingest/stored_live.py).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from functools import partial

from recalld.ingest.ahead import LiveIds, NewTexts
from recalld.ingest.collect import (
    Collected,
    FileCollector,
    live_languages,
    reattributed,
    tree_has_linguist_attributes,
)
from recalld.ingest.files import IndexOptions
from recalld.ingest.gitrecords import RenameDelta, TreeFile, TreeSkip
from recalld.ingest.gitrepo import GitRepository
from recalld.ingest.plan import FileSymbols, LiveMemory, Scope
from recalld.ingest.project import PROJECT_PATH, layout_changed, project_file
from recalld.ingest.records import PLANNING_FIELDS, REREAD_FIELDS
from recalld.ingest.recovery import before_writing
from recalld.ingest.renames import renames_by_blob
from recalld.ingest.result import ProgressSink
from recalld.ingest.store import Store
from recalld.ingest.stored_live import StoredLive, live_at
from recalld.ingest.writer import reopenable_ids

READING_LABEL = "reading files"  # progress of reading and parsing the tree's files


@dataclass(slots=True)
class Touched:
    """The files a sync read and what it knows of the rest."""

    collected: Collected
    gone: set[str]
    renames: dict[str, str]
    live: list[LiveMemory]
    unchanged: set[str]  # read only because their attributes changed (``plan_changes``' ``unchanged``)


def read_changed(
    store: Store,
    options: IndexOptions,
    git: GitRepository,
    scope: Scope,
    indexed: str,
    target: str,
    texts: NewTexts,
    *,
    progress: ProgressSink,
) -> Touched:
    """Only the paths git says differ between the indexed commit and the target, and
    those a changed ``.gitattributes`` skips or keeps otherwise. ``progress`` counts the
    files read (a commit of 5,000 files took ~50 s of reading before its embedding began,
    with nothing shown)."""
    changed, rename_deltas = git.changed_paths(indexed, target)
    held = partial(live_languages, store, scope)
    unchanged = reattributed(git, target, changed, partial(git.walk_tree, target), held, options) - changed
    paths = changed | unchanged
    live = live_at(store, scope, paths)
    # The project-structure entry joins when the layout may have changed (or there is
    # none yet: an index made before, or with the memory off). Put before the files,
    # its text is queued first, as the writer needs it first (its path "." sorts first).
    project: FileSymbols | None = None
    if options.memories.project:
        current = live_at(store, scope, [PROJECT_PATH])
        if not current or layout_changed(git, indexed, target, changed):
            project = project_file(git, git.walk_tree(target), options)
            live.extend(current)
    texts.live_ids = LiveIds.of(m.id for m in live)
    texts.reopened = partial(reopenable_ids, store)
    collector = FileCollector(git, target, options, check_attributes=True, on_file=texts)
    if project is not None:
        collector.put(project)
    entries = {path: git.lookup(target, path) for path in sorted(paths)}
    collector.prefetch(e for e in entries.values() if e is not None)
    gone: set[str] = set()
    progress.begin(READING_LABEL, len(entries))
    try:
        for path, entry in entries.items():
            if entry is None:
                gone.add(path)
            else:
                collector.add(entry)
            progress.advance(1)
    finally:
        progress.end()
    collected = collector.result
    gone |= set(collected.skipped)
    for shown in git.unnamed_paths(indexed, target):  # not in ``gone``: no memory can be at such a name
        collected.skip(shown, "bad_path")
    renames = {d.old_path: d.new_path for d in rename_deltas}
    return Touched(collected, gone, renames, live, unchanged)


@dataclass(frozen=True, slots=True)
class Moving:
    """The files of a whole tree read at once (``WholeTree.moving``): those read (the
    project's entry too), the paths gone from the tree or skipped now, which of them were
    skipped, and the renames found (git's, and gone paths whose blob arrived at one new path)."""

    files: dict[str, FileSymbols]
    gone: set[str]
    skipped: set[str]
    renames: dict[str, str]


@dataclass(slots=True)
class WholeTree:
    """The whole target tree to compare with what the store holds, before its files are
    read: the live memories (as before an interrupted sync; a path's read as its part is
    planned, ``StoredLive``), the tree's entries and those to read (``entries``, in path
    order: the order the plan and so the writer go in).
    ``alone``: the paths of ``entries`` each planned with its own memories only (every
    one when nothing is stored; else a file whose bytes are those its memories were read
    from, that no rename git found touches): nothing can have moved into or out of them.
    ``changed``: the paths git says differ between the indexed commit and the target (None:
    no indexed commit); what a file of the tree outside them holds now, no commit of the
    sync wrote (``unchanged``)."""

    live: StoredLive
    in_tree: set[str]
    entries: list[TreeFile | TreeSkip]
    deltas: list[RenameDelta]
    collector: FileCollector
    attributes: bool
    alone: set[str]
    changed: set[str] | None

    def unchanged(self, paths: Iterable[str]) -> set[str]:
        """Those of ``paths`` (files read) that no commit of the sync changed."""
        changed = self.changed
        return set() if changed is None else {p for p in paths if p in self.in_tree and p not in changed}

    @property
    def reads_unchanged(self) -> bool:
        """Whether it reads a file no commit of the sync changed (``--full``, attributes)."""
        return bool(self.unchanged(e.path for e in self.entries if isinstance(e, TreeFile)))

    def moving(self, progress: ProgressSink) -> Moving:
        """The entries not ``alone``, read at once: their code may have moved between them.
        ``progress`` counts files read; the caller begins and ends it."""
        for entry in self.entries:
            if entry.path not in self.alone:
                self.collector.add(entry)
                progress.advance(1)
        collected = self.collector.result
        skipped = set(collected.skipped)
        gone = {path for path in self.live.paths if path not in self.in_tree} | skipped
        renames = {d.old_path: d.new_path for d in self.deltas}
        renames.update(renames_by_blob(self.live.stored_blob, gone, collected, renames))
        return Moving(self._take(), gone, skipped, renames)

    def parts(self, symbols: int, progress: ProgressSink) -> Iterator[tuple[dict[str, FileSymbols], set[str]]]:
        """The ``alone`` entries read a part at a time, each part once its files hold
        ``symbols`` symbols or more (and the rest at the end): the files read and the
        paths skipped. ``collector.result`` keeps the skips and counts of every part, its
        ``files`` only the part being read. ``progress`` counts files read."""
        collected, held, skipped = self.collector.result, 0, set()
        for entry in self.entries:
            if entry.path not in self.alone:
                continue
            self.collector.add(entry)
            progress.advance(1)
            if entry.path in collected.files:
                held += len(collected.files[entry.path].symbols)
            elif entry.path in collected.skipped:
                skipped.add(entry.path)
            if held >= symbols:
                yield self._take(), skipped
                held, skipped = 0, set()
        yield self._take(), skipped

    def _take(self) -> dict[str, FileSymbols]:
        files, self.collector.result.files = self.collector.result.files, {}
        return files


def whole_tree(
    store: Store,
    options: IndexOptions,
    git: GitRepository,
    scope: Scope,
    indexed: str | None,
    target: str,
    texts: NewTexts,
    *,
    full: bool,
    interrupted: str | None,
    after: int | None = None,
    reread: bool = False,
) -> WholeTree:
    """Compare the whole target tree with what the store holds (no trusted checkpoint).
    ``reread``: the memories were made by an earlier extractor (their signatures too).

    After an interrupted sync, plan from the state before it: its closures count
    as live again and its new versions as absent, so that the outcome is exactly
    that of an uninterrupted run. ``after``: the pending marker's ``pending_after``
    (``recovery.before_interrupted``).
    """
    entries = list(git.walk_tree(target))
    fields = REREAD_FIELDS if reread else PLANNING_FIELDS
    live = StoredLive(store, scope, fields=fields, reread=reread,
                      interrupted=(interrupted, indexed, after) if interrupted else None)  # fmt: skip
    if interrupted:
        before_writing(store, scope, live.reopened, after)
        # what the interrupted sync created and this one plans again is brought up to
        # date by a state update: its text is not queued for the model (a guess: the
        # writer asks for whatever it needs)
        texts.reopened = live.discard.intersection
    texts.live_ids = live.ids
    stored_blob = live.stored_blob
    changed, deltas = git.changed_paths(indexed, target) if indexed is not None else (set(), [])
    again = set() if full else reattributed(git, target, changed, lambda: entries, lambda: live.languages, options)
    again |= live.unsettled
    touched_entries = sorted(
        (e for e in entries if full or not isinstance(e, TreeFile) or stored_blob.get(e.path) != e.blob
         or e.path in again),
        key=lambda e: e.path,
    )  # fmt: skip
    attributes = tree_has_linguist_attributes(git, entries)
    renamed = {p for d in deltas for p in (d.old_path, d.new_path)}
    alone = {e.path for e in touched_entries if not live.languages or (
        isinstance(e, TreeFile) and stored_blob.get(e.path) == e.blob and e.path not in renamed)}  # fmt: skip
    collector = FileCollector(git, target, options, check_attributes=attributes, on_file=texts)
    if options.memories.project:
        collector.put(project_file(git, entries, options))
    collector.prefetch(touched_entries)
    return WholeTree(live, {e.path for e in entries}, touched_entries, list(deltas), collector,
                     attributes, alone, changed if indexed is not None else None)  # fmt: skip
