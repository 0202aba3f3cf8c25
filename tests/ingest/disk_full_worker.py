"""A sync into a store on a nearly full filesystem (for test_disk_full): run as a child,
since without room the engine's writes end the process with SIGBUS.

argv: REPO STATE FILLER MIN_FREE_MB FRESH_STATE. Prints what each step did (stdout), and
logs as the CLI does (stderr)."""

from __future__ import annotations

import sys
from pathlib import Path

from recalld.daemon.logs import configure_logging
from recalld.ingest.diskspace import DiskFullError
from tests.conftest import GitRepo
from tests.ingest.conftest import Harness
from tests.ingest.test_crash import snapshot


def main(repo_dir: str, state: str, filler: str, min_free_mb: str, fresh_state: str) -> None:
    configure_logging()
    repo = GitRepo(Path(repo_dir))
    h = Harness("edge", Path(state), min_free_mb=int(min_free_mb))
    try:
        h.sync(repo)
    except DiskFullError as exc:
        print("refused:", exc.message, flush=True)
    print("written before:", len(h.memories()), flush=True)
    Path(filler).unlink()
    print("then:", h.sync(repo).summary(), flush=True)
    fresh = Harness("edge", Path(fresh_state))
    fresh.sync(repo)
    print("as a fresh index:", snapshot(h) == snapshot(fresh), len(fresh.memories()), flush=True)
    h.close()
    fresh.close()


if __name__ == "__main__":
    main(*sys.argv[1:])
