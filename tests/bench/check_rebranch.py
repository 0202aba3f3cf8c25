"""A real history's memories carried to a new branch name, against the same history
indexed under that name, and the carry timed.

Not part of the test run. Clones ``--repo`` into a temporary directory (the original is
never touched) and walks its last ``--history`` first-parent commits one sync a commit,
twice: once on a branch named ``old`` and once on one named ``new``, each in a store of
its own. Then carries the first store's memories from ``old`` to ``new``
(``ingest/rebranch``, as ``recalld repo set --branch`` does after ``git branch -m``) and
compares every point of the two: the same ids and the same payloads, but for what a
write's clock sets. Last, one more commit's sync on each, compared again. A fast
deterministic fake embedder stands in for the model: the carry embeds nothing.

    python tests/bench/check_rebranch.py --repo ~/src/django [--branch main] [--history 30]

Prints the walk, the carry's points, seconds and points a second, and the comparisons;
exits 1 if the stores differ.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from recalld.daemon.logs import configure_logging  # noqa: E402
from recalld.ingest.rebranch import carry_branch  # noqa: E402
from recalld.ingest.result import NoProgress  # noqa: E402
from recalld.ingest.store import MemoryFilter, Store  # noqa: E402
from tests.bench.check_exact import Checker, clone_history  # noqa: E402
from tests.ingest.test_rebranch import unclocked  # noqa: E402

OLD, NEW = "old-name", "new-name"


def points(store: Store, branch: str) -> dict[str, dict[str, Any]]:
    found = store.scroll(MemoryFilter(record=None, repo="r", branch=branch, deprecated=None))
    return {p.id: unclocked(p.payload) for p in found}


def compare(label: str, got: dict[str, dict[str, Any]], want: dict[str, dict[str, Any]]) -> bool:
    missing, extra = set(want) - set(got), set(got) - set(want)
    differing = sorted(i for i in set(got) & set(want) if got[i] != want[i])
    same = not (missing or extra or differing)
    print(f"{label}: {len(got)} points carried, {len(want)} indexed under the new name:"
          f" {'the same' if same else f'{len(missing)} missing, {len(extra)} extra, {len(differing)} differ'}")
    for i in differing[:5]:
        fields = sorted(k for k in set(got[i]) | set(want[i]) if got[i].get(k) != want[i].get(k))
        print(f"  {i} {want[i].get('path')} {want[i].get('qualname')}: {', '.join(fields)}")
    return same


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repo", type=Path, required=True, help="a local git repository (a copy of it is used)")
    parser.add_argument("--branch", help="the branch whose history is walked (default: its checked-out branch)")
    parser.add_argument("--history", type=int, default=30, metavar="N", help="commits walked (default 30)")
    args = parser.parse_args()
    if args.history < 2:
        parser.error("--history must be at least 2")
    configure_logging()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        clone, _, chain = clone_history(args.repo, args.branch, args.history, root)
        carried, named = Checker(clone, OLD, root / "carried"), Checker(clone, NEW, root / "named")
        try:
            started = time.monotonic()
            for commit in chain[:-1]:
                carried.move(commit)
                named.move(commit)
            print(f"walked {len(chain) - 1} commits on each name in {time.monotonic() - started:.0f} s")
            started = time.monotonic()
            done = carry_branch(carried.store, "r", OLD, NEW, progress=NoProgress())
            seconds = time.monotonic() - started
            total = done.memories + 1
            print(f"carried {done.memories} memories and the checkpoint in {seconds:.2f} s"
                  f" ({total / seconds:,.0f} points/s), {done.unmapped} left out")
            same = compare("after the carry", points(carried.store, NEW), points(named.store, NEW))
            carried.indexer.remove_repo("r", branch=OLD)
            carried.branch = NEW
            carried.move(chain[-1])
            named.move(chain[-1])
            same = compare("after one more sync", points(carried.store, NEW), points(named.store, NEW)) and same
        finally:
            carried.close()
            named.close()
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
