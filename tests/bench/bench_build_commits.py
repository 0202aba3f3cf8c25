"""Benchmark: one-file commits made while the daemon builds its vector index. Not part
of the test run.

Generates a repository of N symbols (``bench_index``), indexes it, starts `recalld serve`
with the repository's hooks installed, and waits for the daemon's idle index build (it
follows any first index of 20k memories or more). While it runs, commits one file after
another (each adding a function) and times each from `git commit` to the new function
found by a search through the API; then as many once the build has ended. Prints the
build's seconds, and the p50 / p95 / longest of both sets.

    python tests/bench/bench_build_commits.py [--symbols 30000] [--commits 10]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

from bench_all import index_small
from bench_index import make_repo
from bench_latency import RunningDaemon
from bench_store import p95


def figures(seconds: list[float]) -> str:
    if not seconds:
        return "none"
    return (f"{len(seconds)}: p50 {statistics.median(seconds):.2f} s, p95 {p95(seconds):.2f} s,"
            f" longest {max(seconds):.2f} s")  # fmt: skip


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--symbols", type=int, default=30_000)
    parser.add_argument("--commits", type=int, default=10, help="commits timed once the build has ended")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        repo, home = make_repo(root, args.symbols), root / "home"
        home.mkdir()
        started = time.perf_counter()
        index_small(home, repo)
        print(f"{args.symbols} symbols indexed in {time.perf_counter() - started:.1f} s", flush=True)
        with RunningDaemon(home, repo) as daemon:
            deadline = time.monotonic() + 120
            while not (busy := daemon.busy()) and time.monotonic() < deadline:
                time.sleep(0.05)
            if not busy:
                print("the daemon did not build its index within 120 s of its start")
                return 1
            build_started, during = time.monotonic(), []
            print(f"the daemon: {busy}", flush=True)
            i = 0
            while daemon.busy():
                during.append(daemon.commit_to_searchable(i, timeout=900))
                i += 1
            build = daemon.wait_unbusy() + time.monotonic() - build_started
            after = [daemon.commit_to_searchable(i + n) for n in range(args.commits)]
        print(f"index build ~{build:.1f} s (seen through status)")
        print(f"commit -> searchable during the build: {figures(during)}")
        print(f"commit -> searchable after it:         {figures(after)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
