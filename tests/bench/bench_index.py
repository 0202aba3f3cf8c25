"""Benchmark: full index of a generated repository, then a one-file commit.

Not part of the test run. Prints full-index seconds and texts/s, the raw encode rate of
the same model on a sample of the same texts, and the sync time of a one-file commit.
(tests/bench/bench_all.py runs this and every other figure of the Performance table.)

    python tests/bench/bench_index.py [--symbols 20000] [--store edge|server]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from recalld.ingest.embed import SentenceTransformerEmbedder
from recalld.ingest.embed_cache import CachedEmbeddings, EmbeddingCache
from recalld.ingest.files import IndexOptions
from recalld.ingest.store import MemoryFilter, StoreConfig, open_store
from recalld.ingest.sync import Indexer

VERBS = ["load", "parse", "render", "fetch", "merge", "split", "scan", "build", "check", "store"]
NOUNS = ["config", "token", "record", "frame", "packet", "index", "layout", "schema", "route", "cache"]


def module_source(i: int, functions: int) -> str:
    """One module: a class with methods and some functions, ``functions + 2`` symbols."""
    lines = [f'"""Module {i}: helpers for {NOUNS[i % 10]} handling."""', "", ""]
    lines += [f"class {NOUNS[i % 10].title()}Handler{i}:", f'    """Handles {NOUNS[i % 10]} number {i}."""', ""]
    for j in range(functions // 2):
        verb, noun = VERBS[(i + j) % 10], NOUNS[(i * 3 + j) % 10]
        lines += [
            f"    def {verb}_{noun}_{j}(self, value, limit={j}):",
            f'        """{verb.title()} a {noun} and return it bounded by limit."""',
            f"        result = [value] * {j + 1}",
            "        return result[:limit] if limit else result",
            "",
        ]
    for j in range(functions - functions // 2):
        verb, noun = VERBS[(i * 7 + j) % 10], NOUNS[(i + 2 * j) % 10]
        lines += [
            "",
            f"def {verb}_{noun}_{i}_{j}(items):",
            f'    """{verb.title()} every {noun} in items ({i}/{j})."""',
            f"    return sorted(items, key=lambda item: (item, {j}))",
            "",
        ]
    return "\n".join(lines) + "\n"


def git(repo: Path, *args: str) -> None:
    env = {**os.environ, "GIT_AUTHOR_NAME": "bench", "GIT_AUTHOR_EMAIL": "bench@example.invalid",
           "GIT_COMMITTER_NAME": "bench", "GIT_COMMITTER_EMAIL": "bench@example.invalid"}  # fmt: skip
    subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True, env=env)


def make_repo(root: Path, symbols: int, per_file: int = 20) -> Path:
    repo = root / "repo"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    files = max(1, symbols // (per_file + 2))
    for i in range(files):
        path = repo / f"pkg{i % 50}" / f"mod_{i}.py"
        path.parent.mkdir(exist_ok=True)
        path.write_text(module_source(i, per_file))
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "generated")
    return repo


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--symbols", type=int, default=20_000)
    parser.add_argument("--store", choices=["edge", "server"], default="edge")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        repo = make_repo(root, args.symbols)
        embedder = SentenceTransformerEmbedder(words_only=True)  # as the daemon's
        if args.store == "edge":
            store = open_store(StoreConfig(dim=embedder.dim, path=str(root / "qdrant")))
        else:
            from qdrant_client import QdrantClient

            from recalld.ingest.store_server import QdrantServerStore

            store = QdrantServerStore(StoreConfig(dim=embedder.dim, url="local"), client=QdrantClient(path=str(root / "q")))
        cache = EmbeddingCache(root / "embeddings.db")
        embeddings = CachedEmbeddings(cache, embedder.model_id, lambda: embedder)
        indexer = Indexer(store=store, embeddings=embeddings, options=IndexOptions())

        started = time.perf_counter()
        full = indexer.sync(repo="bench", path=str(repo), branch="main")
        full_seconds = time.perf_counter() - started
        symbols = full.added

        texts = [p.payload["text"] for p in store.scroll(MemoryFilter(repo="bench"), fields=("text",))]
        sample = texts[:: max(1, len(texts) // 512)][:512]
        started = time.perf_counter()
        embedder.encode(sample)
        raw_rate = len(sample) / (time.perf_counter() - started)

        target = repo / "pkg0" / "mod_0.py"
        target.write_text(target.read_text().replace("return sorted(items", "return sorted(list(items)", 1))
        git(repo, "commit", "-q", "-am", "one-file change")
        started = time.perf_counter()
        one = indexer.sync(repo="bench", path=str(repo), branch="main")
        one_seconds = time.perf_counter() - started

        print(f"repository           {symbols} symbols in {full.files_changed} files ({args.store} store)")
        print(f"full index           {full_seconds:8.1f} s   {full.embedded / full_seconds:7.1f} texts/s (embedded {full.embedded})")
        print(f"raw encode           {raw_rate:7.1f} texts/s on {len(sample)} sample texts")
        print(f"pipeline ratio       {full.embedded / full_seconds / raw_rate:8.2f}  (full-index texts/s / raw)")
        print(f"one-file commit      {one_seconds:8.3f} s   (+{one.added} ~{one.modified} -{one.deprecated}, embedded {one.embedded})")
        store.close()
        cache.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
