"""Benchmark: searches while the embedded store builds its vector index. Not part of the test run.

Fills a store with N memories (``bench_store``'s payloads and vectors), copies it, and
builds the index of each copy through the daemon's ``LockedStore`` while a thread searches
(repo + live, every ``--every`` seconds): once in place, as when the disk has no room for a copy (every
search refused for the build's length), once on a copy of the shard (searches answered
from the shard still open). Prints each build's seconds, the copy's seconds and size,
and how many searches were answered or refused, with their p50 / p95 / longest.

    python tests/bench/bench_build_reads.py [--points 100000] [--every 0.1]
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
from dataclasses import dataclass
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



@dataclass(slots=True)
class BuildFigures:
    seconds: float = 0.0
    copy_seconds: float = 0.0
    answered: list[float] | None = None
    refused: int = 0


def fill(path: Path, points: int) -> None:
    rng = np.random.default_rng(5)
    store = QdrantEdgeStore(StoreConfig(dim=DIM, path=str(path)))
    for start in range(0, points, 1000):
        ids = range(start, min(points, start + 1000))
        vectors = unit_rows(rng, len(ids))
        store.upsert([StoredPoint(str(uuid.UUID(int=i + 1)), payload(i), v.tolist()) for i, v in zip(ids, vectors)])
    store.close()


def build(path: Path, *, on_copy: bool, every: float) -> BuildFigures:
    figures = BuildFigures(answered=[])
    real_copy, real_spares = store_edge_builds.copy_shard, DiskRoom.spares

    def timed_copy(shard_dir: Path) -> Path:
        started = time.perf_counter()
        try:
            return real_copy(shard_dir)
        finally:
            figures.copy_seconds = time.perf_counter() - started

    store_edge_builds.copy_shard = timed_copy  # type: ignore[assignment]
    if not on_copy:
        DiskRoom.spares = lambda _room, _extra: False  # type: ignore[method-assign]  # no room for a copy
    store = LockedStore(QdrantEdgeStore(StoreConfig(dim=DIM, path=str(path))))
    query = unit_rows(np.random.default_rng(9), 1)[0].tolist()
    done = threading.Event()

    def search() -> None:
        while not done.is_set():
            started = time.perf_counter()
            try:
                store.search(query, MemoryFilter(repo="repo1", deprecated=0), 10)
                assert figures.answered is not None
                figures.answered.append(time.perf_counter() - started)
            except BusyError:
                figures.refused += 1
            time.sleep(every)

    searcher = threading.Thread(target=search)
    try:
        started = time.perf_counter()
        searcher.start()
        store.optimize()
        figures.seconds = time.perf_counter() - started
    finally:
        done.set()
        searcher.join()
        store.close()
        store_edge_builds.copy_shard, DiskRoom.spares = real_copy, real_spares  # type: ignore[method-assign]
    return figures


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--points", type=int, default=100_000)
    parser.add_argument("--every", type=float, default=0.1, help="seconds between two searches (default 0.1)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        started = time.perf_counter()
        fill(root / "in-place", args.points)
        print(f"store of {args.points} memories filled in {time.perf_counter() - started:.1f} s;"
              f" its shard {allocated_bytes(root / 'in-place' / 'shard') >> 20} MB on the disk", flush=True)
        shutil.copytree(root / "in-place", root / "on-copy", symlinks=True)
        for name, on_copy in (("in place", False), ("on a copy", True)):
            f = build(root / name.replace(" a ", "-").replace(" ", "-"), on_copy=on_copy, every=args.every)
            answered = f.answered or []
            ms = [t * 1000 for t in answered]
            reads = (f"answered {len(ms)} (p50 {statistics.median(ms):.1f} ms, p95 {p95(ms):.1f} ms,"
                     f" longest {max(ms):.0f} ms)" if ms else "answered 0")  # fmt: skip
            copy = f", the copy {f.copy_seconds:.1f} s" if on_copy else ""
            print(f"index build {name:10} {f.seconds:7.1f} s{copy}; searches meanwhile: {reads}, refused {f.refused}",
                  flush=True)  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
