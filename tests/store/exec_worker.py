"""A process that owns an embedded store, keeps its lock across an ``exec`` of itself and
opens the store again in the new program (as `recalld serve` restarting in place does).

    python exec_worker.py STORE_DIR      prints one line per step; waits for a line on
                                         stdin before it closes the store and exits
"""

from __future__ import annotations

import os
import subprocess
import sys

from recalld.ingest.store import StoreConfig, StoreLockedError
from recalld.ingest.store_edge import QdrantEdgeStore
from recalld.ingest.store_lock import HELD_ENV, keep_across_exec

DIM = 8
PROBE = (
    "import sys\nfrom recalld.ingest.store import StoreConfig, StoreLockedError\n"
    "from recalld.ingest.store_edge import QdrantEdgeStore\n"
    "try:\n    QdrantEdgeStore(StoreConfig(dim=8, path=sys.argv[1])).close()\n"
    "except StoreLockedError:\n    print('locked')\nelse:\n    print('free')\n"
)


def main(path: str) -> None:
    config = StoreConfig(dim=DIM, path=path)
    if HELD_ENV not in os.environ:
        store = QdrantEdgeStore(config)
        env = keep_across_exec() if os.environ.get("KEEP", "1") == "1" else {}
        store.close()
        probe = subprocess.run([sys.executable, "-c", PROBE, path], capture_output=True, text=True, check=True)
        print(f"between: {probe.stdout.strip()}", flush=True)
        os.environ.update(env or {HELD_ENV: "{}"})
        os.execv(sys.executable, [sys.executable, *sys.orig_argv[1:]])
    try:
        store = QdrantEdgeStore(config)
    except StoreLockedError as exc:
        print(f"after: {exc}", flush=True)
        return
    print(f"after: owner {os.getpid()}", flush=True)
    sys.stdin.readline()
    store.close()


if __name__ == "__main__":
    main(sys.argv[1])
