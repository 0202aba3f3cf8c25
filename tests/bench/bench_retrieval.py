"""Benchmark: retrieval quality on a repository's own history.

Not part of the test run. For each non-merge commit with a meaningful subject, the
query is the subject and the relevant files are the files it touched that the index
holds at the tip. The repository is indexed at the tip of its branch with the real
packaged model; each query then runs dense-only, keyword-only, hybrid (RRF in Qdrant)
and through a plain BM25 over whole files. A query is a hit at k when any of the top k
results lies in a relevant file; file recall@10 is the share of its relevant files
among the top 10 results' files.

With ``--queries FILE`` the queries are read from JSON lines ``{"text", "relevant":
[paths], "commit"}`` instead (tests/bench/release_queries.py makes them from a project's
release notes); relevant files the index does not hold are dropped.

    python tests/bench/bench_retrieval.py [--repo PATH] [--branch B] [--max-commits N]
        [--queries FILE] [--backend torch|onnx] [--max-tokens N] [--no-words-only] [--test-max-chars N]
        [--code-only] [--test-weight W]

Rows: each mode as search runs it (tests ranked below code by ``--test-weight``),
``hybrid-fused`` without the named memories first, ``hybrid-even`` with tests ranked as
code (weight 1), ``hybrid-code`` with tests left out, and the BM25 baseline.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import re
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from recalld.daemon.logs import configure_logging
from recalld.daemon.config import TEST_WEIGHT
from recalld.daemon.retrieve import MODES, Retrieval, retrieve
from recalld.ingest.embed import Embedder
from recalld.ingest.embed_cache import CachedEmbeddings, EmbeddingCache
from recalld.ingest.embed_select import EmbeddingSettings, build_embedder, choose_backend
from recalld.ingest.files import IndexOptions
from recalld.ingest.gitrecords import TreeFile
from recalld.ingest.gitrepo import GitRepository
from recalld.ingest.store import MemoryFilter, Store, StoreConfig, open_store
from recalld.ingest.records import is_test_path
from recalld.ingest.sync import Indexer

ROOT = Path(__file__).resolve().parents[2]
KS = (1, 5, 10)
MIN_WORDS = 3
_TRIVIAL = re.compile(r"^(wip|fixup!|squash!|merge|revert \"|bump|typo|format|lint)\b", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class Query:
    commit: str
    text: str
    relevant: frozenset[str]


def git_log(repo: Path, revs: list[str], limit: int) -> list[tuple[str, str, list[str]]]:
    """(commit, subject, touched paths) for the non-merge commits of ``revs``, newest first."""
    out = subprocess.run(
        ["git", "log", "--no-merges", "--no-renames", f"-n{limit}", "--format=%x01%H%x00%s", "--name-only", *revs],
        cwd=repo, capture_output=True, text=True, check=True,
    ).stdout  # fmt: skip
    commits = []
    for block in out.split("\x01")[1:]:
        head, _, names = block.partition("\n")
        commit, _, subject = head.partition("\x00")
        commits.append((commit, subject.strip(), [n for n in names.splitlines() if n.strip()]))
    return commits


def build_queries(repo: Path, revs: list[str], limit: int, indexed: set[str]) -> list[Query]:
    queries = []
    for commit, subject, touched in git_log(repo, revs, limit):
        if len(subject.split()) < MIN_WORDS or _TRIVIAL.match(subject):
            continue
        relevant = frozenset(p for p in touched if p in indexed)
        if relevant:
            queries.append(Query(commit, subject, relevant))
    return queries


def read_queries(path: Path, indexed: set[str]) -> list[Query]:
    queries = []
    for line in path.read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        relevant = frozenset(p for p in record["relevant"] if p in indexed)
        if relevant:
            queries.append(Query(record.get("commit", ""), record["text"], relevant))
    return queries


# --- the baseline: BM25 over whole files, with a standard code tokenizer -------------

_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*|[0-9]+")
_SUBWORD = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|[0-9]+")


def code_tokens(text: str) -> list[str]:
    """Identifiers and their snake/camel sub-words, lowercased."""
    out: list[str] = []
    for ident in _IDENT.findall(text):
        words = [w.lower() for part in ident.split("_") for w in _SUBWORD.findall(part)]
        out.append(ident.lower())
        out.extend(w for w in words if w != ident.lower())
    return out


class BM25:
    def __init__(self, docs: dict[str, str], k1: float = 1.2, b: float = 0.75) -> None:
        self.k1, self.b = k1, b
        self.tf = {name: Counter(code_tokens(text)) for name, text in docs.items()}
        self.length = {name: sum(c.values()) for name, c in self.tf.items()}
        self.avg = sum(self.length.values()) / max(1, len(self.length))
        df: Counter[str] = Counter()
        for counts in self.tf.values():
            df.update(counts.keys())
        n = len(self.tf)
        self.idf = {t: math.log(1 + (n - d + 0.5) / (d + 0.5)) for t, d in df.items()}

    def top(self, query: str, k: int) -> list[str]:
        terms = set(code_tokens(query))
        scores: dict[str, float] = {}
        for name, counts in self.tf.items():
            norm = self.k1 * (1 - self.b + self.b * self.length[name] / self.avg)
            s = sum(self.idf[t] * counts[t] * (self.k1 + 1) / (counts[t] + norm) for t in terms if t in counts)
            if s > 0:
                scores[name] = s
        return sorted(scores, key=lambda name: -scores[name])[:k]


# --- running and scoring -------------------------------------------------------------


@dataclass(slots=True)
class Tally:
    hits: Counter[int]
    file_recall: float = 0.0
    reciprocal_rank: float = 0.0
    seconds: float = 0.0

    def add(self, ranked_paths: Sequence[str], relevant: frozenset[str], seconds: float) -> None:
        for k in KS:
            self.hits[k] += any(p in relevant for p in ranked_paths[:k])
        self.file_recall += len(relevant & set(ranked_paths[:10])) / len(relevant)
        first = next((i for i, p in enumerate(ranked_paths[:10]) if p in relevant), None)
        self.reciprocal_rank += 0.0 if first is None else 1.0 / (first + 1)
        self.seconds += seconds


def evaluate(queries: list[Query], rank: Callable[[str], list[str]], *, verbose: bool = False) -> Tally:
    tally = Tally(Counter())
    for q in queries:
        started = time.perf_counter()
        paths = rank(q.text)
        tally.add(paths, q.relevant, time.perf_counter() - started)
        if verbose:
            first = next((i + 1 for i, p in enumerate(paths) if p in q.relevant), "-")
            print(f"  {first!s:>2}  {q.commit[:8]} {q.text[:70]}  top: {', '.join(paths[:3])}", file=sys.stderr)
    return tally


def memory_ranker(
    store: Store,
    encode: Callable[[str], list[float]],
    mode: str,
    *,
    exact: bool = True,
    tests: str = "include",
    test_weight: float = TEST_WEIGHT,
) -> Callable[[str], list[str]]:
    def rank(text: str) -> list[str]:
        # structural memories only: a task memory would hold the very commit subject asked for
        flt = MemoryFilter(repo="bench", types=("structural",))
        asked = Retrieval(text, flt, limit=10, mode=mode, exact=exact, tests=tests, test_weight=test_weight)
        hits = retrieve(store, encode, asked)
        return [h.point.payload.get("path") or "" for h in hits]

    return rank


def index(
    repo: Path,
    branch: str,
    state: Path,
    cache: Path,
    *,
    backend: str = "torch",
    max_tokens: int = 0,
    words_only: bool = True,
    test_chars: int = 150,
) -> tuple[Store, Embedder, float]:
    settings = EmbeddingSettings(
        model_cache=Path(os.environ.get("RECALLD_MODEL_CACHE") or state / "models"),
        backend=backend,
        max_tokens=max_tokens,
        words_only=words_only,
    )
    choice = choose_backend(settings)
    embedder = build_embedder(settings, choice)
    store = open_store(StoreConfig(dim=embedder.dim, path=str(state / "store")))
    embeddings = CachedEmbeddings(EmbeddingCache(cache), choice.model_id, lambda: embedder)
    started = time.perf_counter()
    # no task memories: they are left out of the ranking anyway, and would cost time
    options = IndexOptions(backfill_commits=0, test_embed_chars=test_chars)
    result = Indexer(store=store, embeddings=embeddings, options=options).sync(
        repo="bench", path=str(repo), branch=branch
    )
    print(f"indexed {repo} @ {branch}: {result.added} memories, {result.embedded} embedded", file=sys.stderr)
    return store, embedder, time.perf_counter() - started


def file_texts(repo: Path, branch: str, paths: set[str]) -> dict[str, str]:
    git = GitRepository(repo)
    tip = git.branch_tip(branch) or ""
    texts = {}
    for path in sorted(paths):
        entry = git.lookup(tip, path)
        if isinstance(entry, TreeFile):
            texts[path] = git.blobs.read(entry.blob).decode("utf-8", "replace")
    return texts


def report(name: str, tally: Tally, n: int) -> str:
    hits = "  ".join(f"{tally.hits[k] / n:6.3f}" for k in KS)
    return (f"{name:<12} {hits}  {tally.file_recall / n:8.3f}  {tally.reciprocal_rank / n:6.3f}"
            f"  {1000 * tally.seconds / n:8.1f}")  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repo", type=Path, default=ROOT, help="a git repository (default: this one)")
    parser.add_argument("--branch", help="branch to index and read history from (default: the checked-out one)")
    parser.add_argument("--max-commits", type=int, default=500, help="newest commits to turn into queries")
    parser.add_argument("--all-branches", action="store_true",
                        help="queries from every local branch's commits too (the index stays at --branch's tip)")
    parser.add_argument("--cache", type=Path, help="embedding cache to reuse across runs (default: a fresh one)")
    parser.add_argument("--verbose", action="store_true", help="print each query with each method's first hit rank")
    parser.add_argument("--max-tokens", type=int, default=0, help="embedding.max_tokens (0: the model's 256)")
    parser.add_argument("--backend", choices=("torch", "onnx"), default="torch", help="embedding backend")
    parser.add_argument("--queries", type=Path, help="JSON lines of queries (see above) instead of commit subjects")
    parser.add_argument("--words-only", action=argparse.BooleanOptionalAction, default=True,
                        help="embedding.words_only: the model reads words, not punctuation (default: on)")
    parser.add_argument("--code-only", action="store_true",
                        help="count only code as relevant: a commit's (or note's) test files are not")
    parser.add_argument("--test-weight", type=float, default=TEST_WEIGHT,
                        help=f"search.test_weight: a test's fused score multiplied by it (default {TEST_WEIGHT})")
    parser.add_argument("--test-max-chars", type=int, default=150,
                        help="embedding.test_max_chars: what the model reads of a test file's code (0: all of it)")
    args = parser.parse_args()
    configure_logging()  # to stderr: stdout is the report alone
    branch = args.branch or GitRepository(args.repo).current_branch()
    with tempfile.TemporaryDirectory(prefix="recalld-bench-retrieval-") as tmp:
        cache = args.cache or Path(tmp) / "embeddings.db"
        store, embedder, seconds = index(
            args.repo,
            branch,
            Path(tmp),
            cache,
            backend=args.backend,
            max_tokens=args.max_tokens,
            words_only=args.words_only,
            test_chars=args.test_max_chars,
        )
        try:
            modules = store.scroll(MemoryFilter(repo="bench", kinds=("module",)), fields=("path",))
            indexed = {p.payload["path"] for p in modules}
            revs = ["--branches"] if args.all_branches else [branch]
            if args.queries:
                queries = read_queries(args.queries, indexed)
            else:
                queries = build_queries(args.repo, revs, args.max_commits, indexed)
            if args.code_only:  # a query whose relevant files are all tests is dropped
                queries = [Query(q.commit, q.text, frozenset(p for p in q.relevant if not is_test_path(p)))
                           for q in queries]
                queries = [q for q in queries if q.relevant]
            if not queries:
                sys.exit("no usable queries: need queries (commit subjects) touching indexed files")
            bm25 = BM25(file_texts(args.repo, branch, indexed))

            def encode(text: str) -> list[float]:
                return [float(x) for x in embedder.encode([text])[0]]

            weight = args.test_weight
            rankers = {mode: memory_ranker(store, encode, mode, test_weight=weight) for mode in MODES}
            # the memories a query names not put first (daemon/retrieve.py: identifiers)
            rankers["hybrid-fused"] = memory_ranker(store, encode, "hybrid", exact=False, test_weight=weight)
            # test code ranked as code (search.test_weight = 1), and left out (--tests exclude)
            rankers["hybrid-even"] = memory_ranker(store, encode, "hybrid", test_weight=1.0)
            rankers["hybrid-code"] = memory_ranker(store, encode, "hybrid", tests="exclude")
            rankers["bm25-files"] = lambda text: bm25.top(text, 10)
            tallies = {name: evaluate(queries, rank, verbose=args.verbose) for name, rank in rankers.items()}
        finally:
            store.close()
    n = len(queries)
    relevant = sum(len(q.relevant) for q in queries) / n
    print(f"repo {args.repo} @ {branch}: {len(indexed)} indexed files, index {seconds:.1f} s, "
          f"{args.backend}, max_tokens {getattr(embedder, 'max_tokens', '?')}, words only {args.words_only}, "
          f"test code read to {args.test_max_chars or 'the end'}")
    source = args.queries.name if args.queries else "commit subjects"
    print(f"{n} queries ({source}), {relevant:.1f} relevant files each on average"
          f"{' (code only)' if args.code_only else ''}; a test's score weighted {args.test_weight}")
    print(f"{'method':<12} {'hit@1':>6}  {'hit@5':>6}  {'hit@10':>6}  {'file-R@10':>8}  {'MRR@10':>6}  {'ms/query':>8}")
    for name, tally in tallies.items():
        print(report(name, tally, n))


if __name__ == "__main__":
    main()
