"""A first index written a part at a time.

Where the store holds no memory of a branch (a first index, or one interrupted before it
wrote its checkpoint), each file's plan is its own: nothing stored can have moved into
it. The tree is then read, planned and written in parts, so that a sync holds the parses
of a few parts rather than of the whole tree: a full index of the Linux kernel (78k
files, ~1M memories) held every file's symbols and source until it wrote them (see
README, How a sync works). A part is written once the model has computed its texts, or
at once (waiting for them) when the parts read and not written hold ``HELD_SYMBOLS``
symbols: the model keeps that many texts ahead of the writer, and memory stays bounded
by them whatever the tree's size. A tree of fewer symbols is read whole before the
writer waits, as before; the store ends the same either way.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from recalld.ingest.ahead import EmbedAhead, NewTexts
from recalld.ingest.plan import FileSymbols, Plan, Scope, plan_changes
from recalld.ingest.records import SyncStep
from recalld.ingest.result import NoProgress, ProgressSink, SyncResult
from recalld.ingest.store import Store
from recalld.ingest.touched import WholeTree
from recalld.ingest.project import PROJECT_PATH
from recalld.ingest.writer import EMBEDDING_LABEL, Advancing, write_plan

PART_SYMBOLS = 2048  # a part ends at the file that brings it to this many symbols
HELD_SYMBOLS = 16384  # read and not written: past this, the oldest part is written first


@dataclass(frozen=True, slots=True)
class _Part:
    plan: Plan
    mark: int  # the model's queue when the part was read: done once it is computed
    symbols: int


def write_in_parts(
    store: Store,
    ahead: EmbedAhead,
    texts: NewTexts,
    scope: Scope,
    tree: WholeTree,
    step: SyncStep,
    *,
    result: SyncResult,
    max_chars: int,
    test_chars: int,
    progress: ProgressSink,
    after_reading: Callable[[], None],
    keep: Callable[[Iterable[FileSymbols]], None],
) -> None:
    """Read, plan and write ``tree`` (none of whose memories are stored) part by part;
    ``after_reading`` once every file is read (the task step's texts are queued then).
    ``keep`` is handed the parts' files, in path order, until they hold ``HELD_SYMBOLS``
    symbols: the task step and the history after the sync read the commits that made
    them without parsing them again (all of a smaller tree's, as when it was read whole).
    Counts into ``result``; deletes what an interrupted sync created (``tree.discard``)
    and no part wrote again."""
    assert not tree.live, "a tree with stored memories is planned whole: its files may have moved"
    waiting: deque[_Part] = deque()
    held = kept = 0
    stale = set(tree.discard)

    def write_oldest(sink: ProgressSink) -> None:
        nonlocal held
        part = waiting.popleft()
        write_plan(store, ahead, scope, part.plan, step, max_chars=max_chars, test_chars=test_chars, progress=sink)
        stale.difference_update(v.id for v in part.plan.new_versions)
        held -= part.symbols

    try:
        for files in tree.parts(PART_SYMBOLS, progress):
            texts.finish()  # the part's modules, which the writer writes after its other symbols
            # live is empty, so every symbol is new and nothing is matched across files:
            # neither moves nor the live names they are matched by apply
            plan = plan_changes(scope=scope, live=(), targets=files, gone=(), renames={})
            symbols = len(plan.new_versions)
            waiting.append(_Part(plan, ahead.mark(), symbols))
            held += symbols
            if kept < HELD_SYMBOLS:
                keep(files.values())
                kept += symbols
            result.count_versions(plan.new_versions)
            result.files_changed += len(files.keys() - {PROJECT_PATH})
            # the part just read waits for the next, or for the end: the model works on
            # its texts meanwhile, and the last bar always has what is left to write
            while waiting and (held > HELD_SYMBOLS or (len(waiting) > 1 and ahead.done(waiting[0].mark))):
                write_oldest(NoProgress())  # the files read count meanwhile
    finally:
        progress.end()
    after_reading()
    progress.begin(EMBEDDING_LABEL, held)  # what is left: the model's last texts and their writes
    try:
        while waiting:
            write_oldest(Advancing(progress))
    finally:
        progress.end()
    if stale:
        store.delete(sorted(stale))
    result.count_reads(tree.collector.result)

