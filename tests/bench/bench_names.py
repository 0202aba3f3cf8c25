"""Benchmark: a symbol searched by its own name.

Not part of the test run. Indexes a repository at the tip of its branch with the
packaged model (as bench_retrieval.py does), draws ``--sample`` of its functions,
methods and classes at random, and searches each by its name (``bulk_create``) and by
its qualified name (``QuerySet.bulk_create``; for a top-level symbol the same), with the
memories the query names put first (the default) and without (``Retrieval.exact``). A
query is a hit at k when a memory of that name (of that qualified name) is among the
first k; structural memories only. One run, both ways on the same index and queries.

    python tests/bench/bench_names.py [--repo PATH] [--branch B] [--sample 500] [--backend onnx]
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from bench_retrieval import index

from recalld.daemon.logs import configure_logging
from recalld.daemon.retrieve import Retrieval, retrieve
from recalld.ingest.gitrepo import GitRepository
from recalld.ingest.store import MemoryFilter, Store

ROOT = Path(__file__).resolve().parents[2]
KS = (1, 3, 10)
KINDS = ("function", "method", "class")


def ranks(
    store: Store, encode: Callable[[str], list[float]], queries: list[tuple[str, str]], *, exact: bool,
    verbose: bool = False,
) -> tuple[list[int | None], float]:
    """For each (query, field): the rank of the first memory whose ``field`` is the query
    (None: not in the first 10), and the mean seconds a query."""
    found: list[int | None] = []
    started = time.perf_counter()
    for query, field in queries:
        flt = MemoryFilter(repo="bench", types=("structural",))
        hits = retrieve(store, encode, Retrieval(query, flt, limit=max(KS), exact=exact))
        found.append(next((i for i, h in enumerate(hits) if h.point.payload.get(field) == query), None))
        if verbose and found[-1] != 0:
            first = [str(h.point.payload.get("qualname")) for h in hits[:3]]
            print(f"  {found[-1]!s:>4}  {query!r}  top: {', '.join(first)}", file=sys.stderr)
    return found, (time.perf_counter() - started) / max(1, len(queries))


def row(label: str, found: list[int | None], seconds: float) -> str:
    n = len(found)
    hits = "  ".join(f"{sum(1 for r in found if r is not None and r < k) / n:6.3f}" for k in KS)
    mrr = sum(1 / (r + 1) for r in found if r is not None) / n
    return f"{label:<34} {hits}  {mrr:6.3f}  {1000 * seconds:8.1f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repo", type=Path, default=ROOT, help="a git repository (default: this one)")
    parser.add_argument("--branch", help="branch to index (default: the checked-out one)")
    parser.add_argument("--sample", type=int, default=500, help="symbols drawn at random (seed 0)")
    parser.add_argument("--backend", choices=("torch", "onnx"), default="onnx", help="embedding backend")
    parser.add_argument("--max-tokens", type=int, default=128, help="embedding.max_tokens (the default config's)")
    parser.add_argument("--verbose", action="store_true", help="print each query not first with its rank and top 3")
    args = parser.parse_args()
    if args.sample < 1:
        parser.error("--sample must be at least 1")
    configure_logging()  # to stderr: stdout is the report alone
    branch = args.branch or GitRepository(args.repo).current_branch()
    with tempfile.TemporaryDirectory(prefix="recalld-bench-names-") as tmp:
        store, embedder, seconds = index(
            args.repo, branch, Path(tmp), Path(tmp) / "embeddings.db", backend=args.backend, max_tokens=args.max_tokens
        )
        try:
            flt = MemoryFilter(repo="bench", types=("structural",), kinds=KINDS)
            symbols = sorted(
                (str(p.payload["name"]), str(p.payload["qualname"]))
                for p in store.scroll(flt, fields=("name", "qualname"))
                if p.payload.get("name") and p.payload.get("qualname")
            )
            if not symbols:
                sys.exit(f"no functions, methods or classes indexed in {args.repo}")
            sample = random.Random(0).sample(symbols, min(args.sample, len(symbols)))

            def encode(text: str) -> list[float]:
                return [float(x) for x in embedder.encode([text])[0]]

            encode("warm")
            results = {}
            for label, field, queries in (("name", "name", [(n, "name") for n, _ in sample]),
                                          ("qualified name", "qualname", [(q, "qualname") for _, q in sample])):  # fmt: skip
                for exact in (False, True):
                    results[f"by {label}, {'named first' if exact else 'fused only'}"] = ranks(
                        store, encode, queries, exact=exact, verbose=args.verbose and exact
                    )
        finally:
            store.close()
    print(f"repo {args.repo} @ {branch}: {len(symbols)} functions, methods and classes; index {seconds:.1f} s, "
          f"{args.backend}, max_tokens {getattr(embedder, 'max_tokens', '?')}; {len(sample)} drawn")  # fmt: skip
    print(f"{'query, ranking':<34} {'hit@1':>6}  {'hit@3':>6}  {'hit@10':>6}  {'MRR':>6}  {'ms/query':>8}")
    for label, (found, per_query) in results.items():
        print(row(label, found, per_query))


if __name__ == "__main__":
    main()
