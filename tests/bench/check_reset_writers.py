"""Writers after resets on a real history: a synced store against a fresh index.

Not part of the test run. Clones ``--repo`` into a temporary directory (the original is
never touched), indexes the commit ``--history`` first-parent commits behind the tip,
syncs to the tip, then resets the branch back to the middle, forward to the tip, back to
the start and forward again, a sync each. After each, every live structural version's
writer (its author and ``written_in``) is compared with a fresh index of the same commit
in a new store, whose history read finds the writers. A fast deterministic fake
embedder stands in for the model.

    python tests/bench/check_reset_writers.py --repo ~/src/django [--branch main] [--history 40]

Prints, for each move, how many versions name another writer than the fresh index and
the first of them; exits 1 if any does.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from recalld.ingest.files import IndexOptions  # noqa: E402
from tests.ingest.conftest import Harness  # noqa: E402
from tests.ingest.test_moved_writer import writers  # noqa: E402

OPTIONS = IndexOptions(backfill_commits=200)


class _Copy:
    def __init__(self, path: Path) -> None:
        self.path = path

    def git(self, *args: str) -> str:
        return subprocess.run(["git", *args], cwd=self.path, check=True, capture_output=True, text=True).stdout.strip()


def _sync(harness: Harness, repo: _Copy, branch: str) -> None:
    harness.indexer.sync(repo="r", path=str(repo.path), branch=branch)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repo", required=True, help="a local git repository (a copy of it is used)")
    parser.add_argument("--branch", default="main")
    parser.add_argument("--history", type=int, default=40, help="first-parent commits behind the tip to start at")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="reset-writers-"))
    subprocess.run(["git", "clone", "-q", "--branch", args.branch, args.repo, str(work / "repo")], check=True)
    repo = _Copy(work / "repo")
    commits = repo.git("rev-list", "--first-parent", f"-{args.history + 1}", "HEAD").split()
    tip, start, middle = commits[0], commits[-1], commits[len(commits) // 2]
    synced = Harness("edge", work / "synced", OPTIONS)
    for commit in (start, tip):
        repo.git("reset", "-q", "--hard", commit)
        _sync(synced, repo, args.branch)
    differing = 0
    for n, (move, commit) in enumerate((("back to the middle", middle), ("forward to the tip", tip),
                                        ("back to the start", start), ("forward again", tip))):  # fmt: skip
        repo.git("reset", "-q", "--hard", commit)
        _sync(synced, repo, args.branch)
        fresh = Harness("edge", work / f"fresh{n}", OPTIONS)
        _sync(fresh, repo, args.branch)
        found, expected = writers(synced), writers(fresh)
        fresh.close()
        wrong = sorted(k for k in found.keys() | expected.keys() if found.get(k) != expected.get(k))
        differing += len(wrong)
        first = f"; first: {wrong[0]} {found.get(wrong[0])}, fresh: {expected.get(wrong[0])}" if wrong else ""
        print(f"{move} ({commit[:10]}): {len(found)} live versions, {len(wrong)} another writer{first}", flush=True)
    synced.close()
    print("every writer as a fresh index finds it" if not differing else f"{differing} writers differ")
    return 1 if differing else 0


if __name__ == "__main__":
    sys.exit(main())
