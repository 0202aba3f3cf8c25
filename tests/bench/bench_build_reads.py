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
write on, then with the store alone), and whether the store reopened
after the build holds every write answered.

    python tests/bench/bench_build_reads.py [--points 100000] [--every 0.1] [--write-every 1] [--seal]
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
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from bench_store import DIM, p95, payload, unit_rows

from recalld.ingest import store_edge_builds
from recalld.ingest.diskspace import DiskRoom
from recalld.ingest.errors import BusyError
from recalld.ingest.locked import LockedStore
from recalld.ingest.store import MemoryFilter, StoreConfig, StoredPoint
from recalld.ingest.store_edge import QdrantEdgeStore
from recalld.ingest.store_edge_copy import allocated_bytes



WRITE_POINTS = 10  # memories a write adds, and older ones it deprecates


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
    searches: Calls = field(default_factory=Calls)
    writes: Calls = field(default_factory=Calls)
    added: list[str] = field(default_factory=list)  # ids written by writes answered
    deprecated: list[str] = field(default_factory=list)
    kept: str = ""  # what the reopened store holds of them


def fill(path: Path, points: int) -> None:
    rng = np.random.default_rng(5)
    store = QdrantEdgeStore(StoreConfig(dim=DIM, path=str(path)))
    for start in range(0, points, 1000):
        ids = range(start, min(points, start + 1000))
        vectors = unit_rows(rng, len(ids))
        store.upsert([StoredPoint(str(uuid.UUID(int=i + 1)), payload(i), v.tolist()) for i, v in zip(ids, vectors)])
    store.close()


def build(path: Path, *, points: int, on_copy: bool, every: float, write_every: float, seal: bool) -> BuildFigures:
    figures = BuildFigures()
    real_copy, real_spares = store_edge_builds.copy_shard, DiskRoom.spares
    real_round = store_edge_builds.CatchUp.round

    def timed_round(self: store_edge_builds.CatchUp) -> None:
        started = time.perf_counter()
        try:
            real_round(self)
        finally:
            figures.catch_up.append(time.perf_counter() - started)

    def timed_copy(shard_dir: Path) -> Path:
        started = time.perf_counter()
        try:
            return real_copy(shard_dir)
        finally:
            figures.copy_seconds = time.perf_counter() - started

    store_edge_builds.copy_shard = timed_copy  # type: ignore[assignment]
    store_edge_builds.CatchUp.round = timed_round  # type: ignore[method-assign]
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

    threads = [threading.Thread(target=search), threading.Thread(target=write)]
    try:
        started = time.perf_counter()
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
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        started = time.perf_counter()
        fill(root / "in-place", args.points)
        print(f"store of {args.points} memories filled in {time.perf_counter() - started:.1f} s;"
              f" its shard {allocated_bytes(root / 'in-place' / 'shard') >> 20} MB on the disk", flush=True)
        shutil.copytree(root / "in-place", root / "on-copy", symlinks=True)
        for name, on_copy in (("in place", False), ("on a copy", True)):
            f = build(root / name.replace(" a ", "-").replace(" ", "-"), points=args.points, on_copy=on_copy,
                      every=args.every, write_every=args.write_every, seal=args.seal)  # fmt: skip
            rounds = " + ".join(f"{t:.2f}" for t in f.catch_up)
            copy = f", the copy {f.copy_seconds:.1f} s, writes caught up {rounds} s" if on_copy else ""
            print(f"{'seal' if args.seal else 'index build'} {name}: {f.seconds:.1f} s{copy}", flush=True)
            print(f"  searches meanwhile: {f.searches.line()}")
            print(f"  writes meanwhile ({WRITE_POINTS} added, {WRITE_POINTS} deprecated): {f.writes.line()}")
            print(f"  reopened after it: {f.kept}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
