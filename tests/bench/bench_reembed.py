"""Benchmark: a store re-embedded for a changed max_tokens, then for the old one again.

Not part of the test run. Indexes a repository (a generated one, or a copy of ``--repo``)
with ``max_tokens`` A through the daemon's own App, then opens the same state dir
configured with B and times the re-embedding of every stored memory
(``Indexer.ensure_space``), beside the raw encode rate of the same model on a sample of
the same texts; then configures A again, whose vectors the embedding cache holds, and
times that too.

    python tests/bench/bench_reembed.py [--symbols 30000] [--from-tokens 128 --to-tokens 64]
    python tests/bench/bench_reembed.py --repo ~/src/django [--branch main]
"""

from __future__ import annotations

import argparse
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench_all import encode_rate, open_app
from bench_index import make_repo

from recalld.daemon.logs import configure_logging
from recalld.ingest.result import NoProgress
from recalld.ingest.revector import ALL_MEMORIES

SAMPLE = 2048


def configure(home: Path, max_tokens: int):  # type: ignore[no-untyped-def]
    home.mkdir(parents=True, exist_ok=True)
    (home / "config.toml").write_text(f"[embedding]\nmax_tokens = {max_tokens}\n")
    return open_app(home)


def reembed(home: Path, max_tokens: int) -> tuple[int, float, float, int]:
    """Re-embedding with ``max_tokens``: memories, seconds, raw texts/s, texts computed."""
    app = configure(home, max_tokens)
    try:
        texts = [p.payload["text"] for p in app.store.scroll(ALL_MEMORIES, fields=("text",))]
        sample = random.Random(0).sample(texts, min(SAMPLE, len(texts)))
        embedder = app.embedder()
        embedder.encode(sample[:256])  # warm
        raw = encode_rate(embedder, sample)
        before = app.embeddings.embedded
        started = time.perf_counter()
        memories = app.indexer.ensure_space(NoProgress())
        seconds = time.perf_counter() - started
        return memories, seconds, raw, app.embeddings.embedded - before
    finally:
        app.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--symbols", type=int, default=30_000, help="size of the generated repository")
    parser.add_argument("--repo", type=Path, help="a local git repository to index (a copy of it) instead")
    parser.add_argument("--branch", default=None, help="with --repo: the branch (default: its checked-out one)")
    parser.add_argument("--from-tokens", type=int, default=128)
    parser.add_argument("--to-tokens", type=int, default=64)
    args = parser.parse_args()
    configure_logging()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        os.environ.setdefault("RECALLD_MODEL_CACHE", str(root / "models"))
        if args.repo:
            repo = root / "repo"
            clone = ["git", "clone", "-q", str(args.repo.resolve()), str(repo)]
            subprocess.run(clone + (["--branch", args.branch] if args.branch else []), check=True)
        else:
            (root / "gen").mkdir()
            repo = make_repo(root / "gen", args.symbols)
        branch = subprocess.run(["git", "symbolic-ref", "--short", "HEAD"], cwd=repo, capture_output=True,
                                text=True, check=True).stdout.strip()  # fmt: skip
        home = root / "home"
        app = configure(home, args.from_tokens)
        try:
            app.registry.add("bench", str(repo), branch)
            started = time.perf_counter()
            full = app.indexer.sync(repo="bench", path=str(repo), branch=branch)
            index_seconds = time.perf_counter() - started
            memories = app.store.count(ALL_MEMORIES)
        finally:
            app.close()
        there = reembed(home, args.to_tokens)
        back = reembed(home, args.from_tokens)
    print(f"index at {args.from_tokens} tokens: {full.added} symbols, {full.history_added} commits, "
          f"{memories} memories in {index_seconds:.1f} s")
    for tokens, (count, seconds, raw, computed) in ((args.to_tokens, there), (args.from_tokens, back)):
        rate = count / seconds
        print(f"re-embed at {tokens} tokens: {count} memories ({computed} computed) in {seconds:.1f} s, "
              f"{rate:.0f} memories/s; raw encode {raw:.0f} texts/s; ratio {rate / raw:.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
