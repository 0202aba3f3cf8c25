"""Benchmark: searches and writes while the embedded store builds its vector index, or
seals what a sync wrote (``--seal``: the same build by a child, of the segment written
to, as a long sync asks for it every ``seal_over`` memories). Not part of the test run.

Fills a store with N memories (``bench_store``'s payloads and vectors), copies it, and
builds the index of each copy through the daemon's ``LockedStore`` while one thread
searches (repo + live, every ``--every`` seconds) and another writes as a commit's sync
does (every ``--write-every`` seconds: ``WRITE_POINTS`` new memories, as many older ones
deprecated): once in place, as when the disk has no room for a copy (every call refused
for the build's length), once on a copy of the shard (answered from the shard still
open; what was written meanwhile written to the copy before it takes over). Prints each
build's seconds, the copy's and the catch-up's seconds, how many searches and writes were
answered or refused, with their p50 / p95 / longest (the catch-up's rounds: while others
write on, then with the store alone), how long its end held every call (from the last
write let in meanwhile to the first let in after; stop 86: the caught-up copy serves
without a second load), and whether the store reopened after the build holds every
write answered, and the GIL's longest stall during the build (what any thread of the
daemon waited out: the engine holds the GIL through a load or a flush, which a thread
that wakes meanwhile does not count in its own timing).

``--sync N`` adds a long sync to each build: from the build's start a thread writes N
new memories as a sync worker does (patient: it waits where it is not let in,
256 a call, and as many older ones deprecated); printed: its seconds, and whether it
ended before the build. ``--old-bound`` adds a build on a copy with writes during it
bounded at 10,000 points, as until stop 84 (the engine's operations were kept in
memory), so that both bounds are measured in one run.

    python tests/bench/bench_build_reads.py [--points 100000] [--every 0.1] [--write-every 1] [--seal]
        [--sync 30000] [--old-bound]
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import sys
import tempfile
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal, TypeVar

import numpy as np
from bench_store import DIM, p95, payload, unit_rows

from recalld.ingest import locked, store_edge_builds
from recalld.ingest.diskspace import DiskRoom
from recalld.ingest.errors import BusyError
from recalld.ingest.locked import LockedStore
from recalld.ingest.store import MemoryFilter, StoreConfig, StoredPoint
from recalld.ingest.store_edge import QdrantEdgeStore
from recalld.ingest.store_edge_copy import allocated_bytes, copy_file



WRITE_POINTS = 10  # memories a write adds, and older ones it deprecates
SYNC_CALL = 256  # memories a long sync writes a call, as the writer's batches
OLD_BOUND = 10_000  # writes during a build until stop 84
T = TypeVar("T")
TICK = 0.005  # seconds the thread that measures the GIL's stalls sleeps between two looks


@dataclass(slots=True)
class Calls:
    answered: list[float] = field(default_factory=list)
    refused: int = 0

    def timed(self, call: Callable[[], object]) -> bool:
        started = time.perf_counter()
        try:
            call()
        except BusyError:
            self.refused += 1
            return False
        self.answered.append(time.perf_counter() - started)
        return True

    def line(self) -> str:
        ms = [t * 1000 for t in self.answered]
        if not ms:
            return f"answered 0, refused {self.refused}"
        return (f"answered {len(ms)} (p50 {statistics.median(ms):.1f} ms, p95 {p95(ms):.1f} ms,"
                f" longest {max(ms):.0f} ms), refused {self.refused}")  # fmt: skip


@dataclass(slots=True)
class BuildFigures:
    seconds: float = 0.0
    copy_seconds: float = 0.0
    catch_up: list[float] = field(default_factory=list)  # seconds of each round (others writing on, then alone)
    shared_until: float = 0.0  # when others' writes stopped being let in (the build's end began)
    held: float = 0.0  # seconds from then until others were let in again: the pause every call waits out
    stall: float = 0.0  # the longest wait for the GIL of a thread asleep TICK seconds at a time
    searches: Calls = field(default_factory=Calls)
    writes: Calls = field(default_factory=Calls)
    added: list[str] = field(default_factory=list)  # ids written by writes answered
    deprecated: list[str] = field(default_factory=list)
    kept: str = ""  # what the reopened store holds of them
    sync_seconds: float = 0.0  # the long sync's (``--sync``), from its first write to its last
    sync_ended: float = 0.0  # seconds after the build began


def fill(path: Path, points: int) -> None:
    rng = np.random.default_rng(5)
    store = QdrantEdgeStore(StoreConfig(dim=DIM, path=str(path)))
    for start in range(0, points, 1000):
        ids = range(start, min(points, start + 1000))
        vectors = unit_rows(rng, len(ids))
        store.upsert([StoredPoint(str(uuid.UUID(int=i + 1)), payload(i), v.tolist()) for i, v in zip(ids, vectors)])
    store.close()


def build(
    path: Path, *, points: int, on_copy: bool, every: float, write_every: float, seal: bool, sync: int = 0
) -> BuildFigures:
    figures = BuildFigures()
    real_copy, real_spares = store_edge_builds.copy_shard, DiskRoom.spares
    real_round = store_edge_builds.CatchUp.round

    def timed_round(self: store_edge_builds.CatchUp) -> int:
        started = time.perf_counter()
        try:
            return real_round(self)
        finally:
            figures.catch_up.append(time.perf_counter() - started)

    def timed_copy(shard_dir: Path) -> Path:
        started = time.perf_counter()
        try:
            return real_copy(shard_dir)
        finally:
            figures.copy_seconds = time.perf_counter() - started

    real_share, real_long = LockedStore._share, LockedStore._long

    @contextmanager
    def timed_share(self: LockedStore, does: Literal["read", "write"]) -> Iterator[None]:
        with real_share(self, does):
            yield
        if does == "write":
            figures.shared_until = time.perf_counter()

    def timed_long(self: LockedStore, doing: str, work: Callable[[], T]) -> T:
        try:
            return real_long(self, doing, work)
        finally:
            if figures.shared_until:
                figures.held = time.perf_counter() - figures.shared_until

    store_edge_builds.copy_shard = timed_copy  # type: ignore[assignment]
    store_edge_builds.CatchUp.round = timed_round  # type: ignore[method-assign]
    LockedStore._share, LockedStore._long = timed_share, timed_long  # type: ignore[method-assign, assignment]
    if not on_copy:
        DiskRoom.spares = lambda _room, _extra: False  # type: ignore[method-assign]  # no room for a copy
    store = LockedStore(QdrantEdgeStore(StoreConfig(dim=DIM, path=str(path))))
    query = unit_rows(np.random.default_rng(9), 1)[0].tolist()
    done = threading.Event()

    def search() -> None:
        while not done.is_set():
            figures.searches.timed(lambda: store.search(query, MemoryFilter(repo="repo1", deprecated=0), 10))
            time.sleep(every)

    def write() -> None:  # a commit's sync: new memories, and as many older ones deprecated
        rng, n = np.random.default_rng(11), points
        while not done.wait(write_every):
            added = [StoredPoint(str(uuid.UUID(int=n + i + 1)), payload(n + i), v.tolist())
                     for i, v in enumerate(unit_rows(rng, WRITE_POINTS))]  # fmt: skip
            old = [str(uuid.UUID(int=int(i) + 1)) for i in rng.choice(points, WRITE_POINTS, replace=False)]

            def commit() -> None:
                store.upsert(added)
                store.set_payload(old, {"deprecated": 1})

            if figures.writes.timed(commit):
                figures.added += [p.id for p in added]
                figures.deprecated += old
                n += WRITE_POINTS

    def long_sync() -> None:  # a sync worker's writes: patient, as the daemon's are
        rng, first = np.random.default_rng(13), 10 * points
        while store.busy is None and not done.is_set():  # from the build's start
            time.sleep(0.01)
        begun = time.perf_counter()
        with store.patient():
            for start in range(0, sync, SYNC_CALL):
                n = min(SYNC_CALL, sync - start)
                store.upsert([StoredPoint(str(uuid.UUID(int=first + start + i + 1)), payload(first + start + i),
                                          v.tolist()) for i, v in enumerate(unit_rows(rng, n))])  # fmt: skip
                store.set_payload([str(uuid.UUID(int=int(i) + 1)) for i in rng.choice(points, n, replace=False)],
                                  {"deprecated": 1})  # fmt: skip
                figures.added += [str(uuid.UUID(int=first + start + i + 1)) for i in range(n)]
        figures.sync_seconds = time.perf_counter() - begun
        figures.sync_ended = time.perf_counter() - started

    def tick() -> None:  # the engine holds the GIL through a load or a flush: every thread waits it out
        last = time.perf_counter()
        while not done.is_set():
            time.sleep(TICK)
            now = time.perf_counter()
            figures.stall, last = max(figures.stall, now - last - TICK), now

    threads = [threading.Thread(target=search), threading.Thread(target=write), threading.Thread(target=tick)]
    if sync:
        threads.append(threading.Thread(target=long_sync))
    started = time.perf_counter()
    try:
        for thread in threads:
            thread.start()
        if seal:
            assert store.seal(), "the seal failed: see the log"
        else:
            store.optimize()
        figures.seconds = time.perf_counter() - started
    finally:
        done.set()
        for thread in threads:
            thread.join()
        store.close()
        store_edge_builds.copy_shard, DiskRoom.spares = real_copy, real_spares  # type: ignore[method-assign]
        store_edge_builds.CatchUp.round = real_round  # type: ignore[method-assign]
        LockedStore._share, LockedStore._long = real_share, real_long  # type: ignore[method-assign]
    reopened = QdrantEdgeStore(StoreConfig(dim=DIM, path=str(path)))
    found = {p.id: p.payload.get("deprecated") for p in reopened.retrieve(figures.added + figures.deprecated)}
    unindexed = reopened.unindexed()
    reopened.close()
    added = sum(1 for i in figures.added if i in found)
    gone = sum(1 for i in figures.deprecated if found.get(i) == 1)
    figures.kept = (f"{added} of {len(figures.added)} added and {gone} of {len(figures.deprecated)} deprecated"
                    f" as written; {unindexed} points unindexed")  # fmt: skip
    return figures


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--points", type=int, default=100_000)
    parser.add_argument("--every", type=float, default=0.1, help="seconds between two searches (default 0.1)")
    parser.add_argument("--write-every", type=float, default=1.0, help="seconds between two writes (default 1)")
    parser.add_argument("--seal", action="store_true", help="a sync's seal of the memories written, not an idle build")
    parser.add_argument("--sync", type=int, default=0, help="memories a long sync writes during each build")
    parser.add_argument("--old-bound", action="store_true",
                        help=f"also a build on a copy with writes bounded at {OLD_BOUND:,}")  # fmt: skip
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        started = time.perf_counter()
        fill(root / "in-place", args.points)
        print(f"store of {args.points} memories filled in {time.perf_counter() - started:.1f} s;"
              f" its shard {allocated_bytes(root / 'in-place' / 'shard') >> 20} MB on the disk", flush=True)
        modes = [("in place", False, locked.WRITES_DURING_BUILD), ("on a copy", True, locked.WRITES_DURING_BUILD)]
        if args.old_bound:
            modes.append((f"on a copy, writes bounded at {OLD_BOUND:,}", True, OLD_BOUND))
        for n, _ in enumerate(modes[1:], 1):
            # holes kept, as the daemon's copies keep them: a shard copied byte for byte (its
            # preallocated files made whole) loaded 0.6-0.8 s slower at 5k memories, in the
            # catch-up and again in the swap, every other call waiting (until stop 85)
            shutil.copytree(root / "in-place", root / f"mode-{n}", symlinks=True, copy_function=copy_file)
        shutil.move(root / "in-place", root / "mode-0")
        bound = locked.WRITES_DURING_BUILD
        for n, (name, on_copy, writes_bound) in enumerate(modes):
            locked.WRITES_DURING_BUILD = writes_bound
            try:
                f = build(root / f"mode-{n}", points=args.points, on_copy=on_copy, every=args.every,
                          write_every=args.write_every, seal=args.seal, sync=args.sync)  # fmt: skip
            finally:
                locked.WRITES_DURING_BUILD = bound
            rounds = " + ".join(f"{t:.2f}" for t in f.catch_up)
            copy = (f", the copy {f.copy_seconds:.1f} s, writes caught up {rounds} s; its end held every call"
                    f" {f.held:.2f} s" if on_copy else "")  # fmt: skip
            print(f"{'seal' if args.seal else 'index build'} {name}: {f.seconds:.1f} s{copy}", flush=True)
            print(f"  the GIL's longest stall (a thread waking every {TICK * 1000:.0f} ms): {f.stall * 1000:.0f} ms")
            print(f"  searches meanwhile: {f.searches.line()}")
            print(f"  writes meanwhile ({WRITE_POINTS} added, {WRITE_POINTS} deprecated): {f.writes.line()}")
            if args.sync:
                when = "before" if f.sync_ended <= f.seconds else "after"
                print(f"  a sync of {args.sync:,} memories meanwhile: written in {f.sync_seconds:.1f} s, ended"
                      f" {abs(f.seconds - f.sync_ended):.1f} s {when} the {'seal' if args.seal else 'build'}")
            print(f"  reopened after it: {f.kept}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
