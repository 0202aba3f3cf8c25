"""Benchmark: what the first as-of question of a branch reads, with and without the
daemon's reading ahead when idle (``asof.warm_states``).

Not part of the test run. Generates a repository of ``--symbols`` symbols, indexes it
(fake embedder: the model plays no part here) and syncs ``--commits`` commits of ten
files each, then times, on the same store, the branch's indexed states for an as-of
commit (``states_at_commit``, what a question reads before its query):

- cold, as the first question after the daemon's start found them until now;
- after ``warm_states``, as the daemon now leaves them when idle (and the read ahead's
  own time, spent on the idle daemon's thread);
- after one more sync, read on from what was kept (as a warm-up after it does).

    python tests/bench/bench_asof.py [--symbols 40000] [--commits 5]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from recalld.daemon import asof  # noqa: E402
from recalld.ingest.embed_cache import CachedEmbeddings, EmbeddingCache  # noqa: E402
from recalld.ingest.files import IndexOptions  # noqa: E402
from recalld.ingest.gitrepo import GitRepository  # noqa: E402
from recalld.ingest.store import MemoryFilter, StoreConfig, open_store  # noqa: E402
from recalld.ingest.sync import Indexer  # noqa: E402
from tests.bench.bench_index import git, make_repo  # noqa: E402
from tests.conftest import FakeEmbedder  # noqa: E402

REPO, BRANCH = "bench", "main"


def edit(repo: Path, n: int) -> None:
    """Ten files' first function changed, and a commit."""
    for i in range(10):
        path = sorted(repo.glob(f"pkg{(n * 10 + i) % 50}/mod_*.py"))[0]
        text = path.read_text()
        path.write_text(text.replace("return sorted(items", f"return sorted(list(items) * {n + 2}", 1))
    git(repo, "commit", "-q", "-am", f"edit {n}")


def timed(call, rounds: int = 5) -> float:  # type: ignore[no-untyped-def]
    """The median seconds of ``call`` over ``rounds``."""
    seconds = []
    for _ in range(rounds):
        started = time.perf_counter()
        call()
        seconds.append(time.perf_counter() - started)
    return statistics.median(seconds)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--symbols", type=int, default=40_000)
    parser.add_argument("--commits", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        repo = make_repo(root, args.symbols)
        embedder = FakeEmbedder()
        store = open_store(StoreConfig(dim=embedder.dim, path=str(root / "qdrant")))
        cache = EmbeddingCache(root / "embeddings.db")
        embeddings = CachedEmbeddings(cache, embedder.model_id, lambda: embedder)  # type: ignore[arg-type,return-value]
        indexer = Indexer(store=store, embeddings=embeddings, options=IndexOptions(backfill_commits=0))
        started = time.perf_counter()
        indexer.sync(repo=REPO, path=str(repo), branch=BRANCH)
        for n in range(args.commits):
            edit(repo, n)
            indexer.sync(repo=REPO, path=str(repo), branch=BRANCH)
        points = store.count(MemoryFilter(repo=REPO, branch=BRANCH, deprecated=None))
        print(f"indexed {points} points and {args.commits} commits in {time.perf_counter() - started:.1f} s")
        git_repo = GitRepository(str(repo))
        asked = git_repo.walk_commits(git_repo.branch_tip(BRANCH), hide=None, limit=args.commits + 1,
                                      first_parent=True)[-2]  # fmt: skip

        def question() -> None:
            asof.states_at_commit(store, git_repo, repo=REPO, branch=BRANCH, rev=asked)

        def cold() -> None:
            asof._KNOWN.pop(store, None)
            question()

        def warm() -> None:
            asof._KNOWN.pop(store, None)
            asof.warm_states(store, [(REPO, BRANCH)], lambda: False)

        first = timed(cold)
        ahead = timed(warm)
        warm()
        answered = timed(question)
        print(f"first as-of question, states not read ahead   {first * 1000:8.1f} ms")
        print(f"reading them ahead (the idle daemon's thread)  {ahead * 1000:8.1f} ms")
        print(f"first as-of question, states read ahead       {answered * 1000:8.1f} ms"
              f"  ({first / max(answered, 1e-9):.0f}x faster)")  # fmt: skip
        edit(repo, args.commits)
        indexer.sync(repo=REPO, path=str(repo), branch=BRANCH)
        started = time.perf_counter()
        asof.warm_states(store, [(REPO, BRANCH)], lambda: False)
        print(f"read ahead again after one more sync           {(time.perf_counter() - started) * 1000:8.1f} ms")
        store.close()
        cache.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
