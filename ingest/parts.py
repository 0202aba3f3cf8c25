"""A whole tree compared with the store a part at a time.

A sync with no trusted checkpoint compares the whole target tree with what the store
holds (a first index, an interrupted one, a new extractor's or ``--full`` compare). Most
of its files can be planned on their own (``WholeTree.alone``): every file when nothing
is stored, and otherwise each file whose bytes are those the store's memories were read
from, as nothing can have moved into or out of it. Those are read, planned and written a
part at a time, so that a sync holds the parses of a few parts rather than of the whole
tree: a full index of the Linux kernel (78k files, ~1M memories) held every file's
symbols and source until it wrote them (see README, How a sync works). A part's stored
memories are read as it is planned (``StoredLive.take``): a compare held every one of
them from its start until its part came. The rest, whose
code may have moved between files, is read and planned whole first, as an incremental
sync's files are.

A part is written once the model has computed its texts, or at once (waiting for them)
when the parts read and not written hold ``HELD_SYMBOLS`` symbols: the model keeps that
many texts ahead of the writer, and memory stays bounded by them whatever the tree's
size. A tree of fewer symbols is read whole before the writer waits, as before; the
store ends the same either way.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from itertools import chain

from recalld.ingest.ahead import EmbedAhead, NewTexts
from recalld.ingest.plan import FileSymbols, LiveMemory, Plan, Scope
from recalld.ingest.records import SyncStep
from recalld.ingest.recovery import Interrupted
from recalld.ingest.result import NoProgress, ProgressSink, SyncResult
from recalld.ingest.store import Store
from recalld.ingest.touched import READING_LABEL, WholeTree
from recalld.ingest.writer import EMBEDDING_LABEL, Advancing, write_plan

PART_SYMBOLS = 2048  # a part ends at the file that brings it to this many symbols
HELD_SYMBOLS = 16384  # read and not written: past this, the oldest part is written first

# plan_changes with the sync's scope and sources bound: live, targets, gone, renames, skipped
Planner = Callable[..., Plan]


@dataclass(frozen=True, slots=True)
class _Part:
    plan: Plan
    mark: int  # the model's queue when the part was read: done once it is computed
    symbols: int  # the parsed symbols its plan holds
    writes: int  # the memories it writes with their vectors (the last bar counts them)


class TreeParts:
    """The parts of ``tree`` with something to write, read and planned on iteration (once):
    first the files that may have moved (planned whole, with the paths gone from the
    tree), then those planned alone, ``PART_SYMBOLS`` at a time. Counts into ``result``;
    ``reused`` keeps the parts' files, in the order read, until they hold ``HELD_SYMBOLS``
    symbols (all of the moving files): the task step and the history after the sync read
    the commits that made them without parsing them again."""

    def __init__(
        self, tree: WholeTree, texts: NewTexts, ahead: EmbedAhead, plan: Planner, result: SyncResult,
        progress: ProgressSink,
    ) -> None:  # fmt: skip
        self.tree, self._texts, self._ahead, self._plan = tree, texts, ahead, plan
        self._result, self._progress = result, progress
        self.reused: list[FileSymbols] = []
        self._kept = 0  # the symbols of the files in reused
        self.interrupted = Interrupted(tree.live.restore, tree.live.discard)
        self._parts = self._read()

    def __iter__(self) -> Iterator[_Part]:
        return self._parts

    def _read(self) -> Iterator[_Part]:
        tree = self.tree
        self._progress.begin(READING_LABEL, len(tree.entries))
        try:
            moving = tree.moving(self._progress)
            here = tree.live.take(moving.files.keys() | moving.gone)  # each file's memories read once it is planned
            live = list(chain.from_iterable(here.values()))
            plan = self._plan(live=live, targets=moving.files, gone=moving.gone, renames=moving.renames,
                              skipped=moving.skipped, unchanged=tree.unchanged(moving.files))  # fmt: skip
            self._keep(moving.files.values(), whole=True)
            yield from self._planned(plan, moving.files, moving.gone, had=set(here))
            for files, skipped in tree.parts(PART_SYMBOLS, self._progress):
                paths = sorted(files.keys() | skipped)
                here = tree.live.take(paths)
                plans = [self._alone(path, files.get(path), here.get(path, [])) for path in paths]
                self._keep(files.values())
                yield from self._planned(_merged(plans), files, skipped, had=set(here))
        finally:
            self._progress.end()
        self._result.count_reads(tree.collector.result)

    def _alone(self, path: str, file: FileSymbols | None, here: list[LiveMemory]) -> Plan:
        """One file's plan, with its own memories only (none: a first index's)."""
        if file is None:  # skipped now
            return self._plan(live=here, targets={}, gone={path}, renames={}, skipped={path}) if here else Plan()
        return self._plan(live=here, targets={path: file}, gone=(), renames={}, unchanged=self.tree.unchanged([path]))

    def _planned(
        self, plan: Plan, files: dict[str, FileSymbols], gone: Iterable[str], *, had: set[str]
    ) -> Iterator[_Part]:
        self._texts.finish()  # the part's modules, which the writer writes after its other symbols
        self._result.count_plan(plan, files, gone=set(gone), had=had)
        self.interrupted.planned(plan)
        if not plan.is_empty:
            symbols = sum(len(f.symbols) for f in files.values())
            yield _Part(plan, self._ahead.mark(), symbols, len(plan.new_versions) + len(plan.rewrites))

    def _keep(self, files: Iterable[FileSymbols], *, whole: bool = False) -> None:
        for file in files:
            if not whole and self._kept >= HELD_SYMBOLS:
                return
            self.reused.append(file)
            self._kept += len(file.symbols)


def write_parts(
    store: Store,
    ahead: EmbedAhead,
    scope: Scope,
    parts: TreeParts,
    step: SyncStep,
    *,
    first: _Part | None,
    max_chars: int,
    test_chars: int,
    progress: ProgressSink,
    after_reading: Callable[[], None],
) -> None:
    """Write ``first`` and the rest of ``parts`` as they are read, each once the model has
    computed its texts (``HELD_SYMBOLS`` at most read ahead of the writer);
    ``after_reading`` once every file is read (the task step's texts are queued then).
    Undoes what an interrupted sync left that no part wrote again."""
    waiting: deque[_Part] = deque([first] if first else [])
    held = sum(p.symbols for p in waiting)

    def write_oldest(sink: ProgressSink) -> None:
        nonlocal held
        part = waiting.popleft()
        write_plan(store, ahead, scope, part.plan, step, max_chars=max_chars, test_chars=test_chars,
                   progress=sink)  # fmt: skip
        held -= part.symbols

    for part in parts:
        waiting.append(part)
        held += part.symbols
        # the part just read waits for the next, or for the end: the model works on its
        # texts meanwhile, and the last bar always has what is left to write
        while waiting and (held > HELD_SYMBOLS or (len(waiting) > 1 and ahead.done(waiting[0].mark))):
            write_oldest(NoProgress())  # the files read count meanwhile
    after_reading()
    # what is left: the model's last texts and their writes
    progress.begin(EMBEDDING_LABEL, sum(p.writes for p in waiting))
    try:
        while waiting:
            write_oldest(Advancing(progress))
    finally:
        progress.end()
    parts.interrupted.undo(store)


def _merged(plans: list[Plan]) -> Plan:
    if len(plans) == 1:
        return plans[0]
    return Plan(
        new_versions=tuple(chain.from_iterable(p.new_versions for p in plans)),
        closures=tuple(chain.from_iterable(p.closures for p in plans)),
        relocations=tuple(chain.from_iterable(p.relocations for p in plans)),
        rewrites=tuple(chain.from_iterable(p.rewrites for p in plans)),
    )
