"""Benchmark: task-memory backfill of a generated history.

Not part of the test run. Builds a repository of ``--modules`` Python modules and
``--commits`` commits (edits of 1-3 modules, a file rename every 50 commits, one mass
move of a quarter of the files, all by one author), then times a first sync without task memory and one
with a backfill of every commit, on fresh stores; the difference is the backfill.
A third sync looks for the first index's versions' writers in the history read alone
(``tasks.writer_commits`` 0), a fourth without following the commits that moved them, a
fifth does not look for them (``WriterSearch``), and the stores of the second, third and
fourth say how many have one: an author, a merge's task alone, none. ``--repo`` runs the syncs on a clone of an
existing repository's ``--branch`` instead (its last ``--commits`` commits backfilled).
``--again`` times the sync that reads the history again in a store an earlier release
left (its checkpoint without ``provenance``, every version without a writer) and checks
that it finds each version the writer a first index finds.
Last, ``--window`` times a sync over that many commits to the tip with and without
giving each version the commit of the window that made it (``credit_window``).
The fake embedder isolates the pipeline (git, parsing, store); ``--model`` uses the
packaged model instead.

    python tests/bench/bench_tasks.py [--commits 500] [--modules 200] [--model]
    python tests/bench/bench_tasks.py --repo PATH [--branch main] [--commits 500] [--window 50] [--again]
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from recalld.ingest.authorship import SKIP, WriterSearch  # noqa: E402
from recalld.ingest.embed import SentenceTransformerEmbedder  # noqa: E402
from recalld.ingest.embed_cache import CachedEmbeddings, EmbeddingCache  # noqa: E402
from recalld.ingest.files import IndexOptions  # noqa: E402
from recalld.ingest.store import MemoryFilter, Store, StoreConfig, StoredPoint, open_store  # noqa: E402
from recalld.ingest import tasks as tasks_module  # noqa: E402
from recalld.ingest.plan import Scope  # noqa: E402
from recalld.ingest.records import checkpoint_id, task_memory_id  # noqa: E402
from recalld.ingest.sync import Indexer, SyncResult  # noqa: E402
from tests.conftest import FakeEmbedder  # noqa: E402


def module(i: int, version: int) -> str:
    body = [f'"""Module {i}."""', ""]
    for j in range(10):
        bump = version if j == version % 10 else 0
        body += ["", f"def handle_{i}_{j}(value):", f'    """Handle case {j} of module {i}."""']
        body += [f"    return value + {j + bump}", ""]
    body += ["", f"class Worker{i}:", f"    def run(self):\n        return {i}", ""]
    return "\n".join(body) + "\n"


def fast_import_stream(modules: int, commits: int) -> bytes:
    """A git fast-import stream: the initial tree, then ``commits - 1`` changes."""
    out: list[bytes] = []
    paths = {i: f"pkg/mod{i}.py" for i in range(modules)}
    versions = dict.fromkeys(range(modules), 0)

    def commit(n: int, message: str, ops: list[bytes]) -> None:
        msg = message.encode()
        head = f"commit refs/heads/main\nmark :{n}\ncommitter bench <b@e.invalid> {1_600_000_000 + n * 60} +0000\n"
        out.append(head.encode() + b"data %d\n" % len(msg) + msg + b"\n")
        if n > 1:
            out.append(b"from :%d\n" % (n - 1))
        out.extend(ops)
        out.append(b"\n")

    def put(path: str, text: str) -> bytes:
        data = text.encode()
        return f"M 100644 inline {path}\n".encode() + b"data %d\n" % len(data) + data + b"\n"

    commit(1, "Initial import", [put(paths[i], module(i, 0)) for i in range(modules)])
    for n in range(2, commits + 1):
        if n == commits // 2:
            moved = range(0, modules, 4)
            ops = [f"R {paths[i]} src/{paths[i]}\n".encode() for i in moved]
            for i in moved:
                paths[i] = f"src/{paths[i]}"
            commit(n, "Move a quarter of pkg to src", ops)
            continue
        if n % 50 == 0:
            i = n % modules
            new = paths[i].replace(".py", "_renamed.py")
            commit(n, f"Rename module {i}", [f"R {paths[i]} {new}\n".encode()])
            paths[i] = new
            continue
        touched = [(n * 7 + k * 13) % modules for k in range(1 + n % 3)]
        ops = []
        for i in touched:
            versions[i] += 1
            ops.append(put(paths[i], module(i, versions[i])))
        commit(n, f"Tune handlers of modules {touched}\n\nAdjusts the constants of the handlers.", ops)
    return b"".join(out)


def make_repo(root: Path, modules: int, commits: int) -> Path:
    repo = root / "repo"
    subprocess.run(["git", "init", "-q", "-b", "main", str(repo)], check=True)
    subprocess.run(["git", "fast-import", "--quiet"], cwd=repo, input=fast_import_stream(modules, commits), check=True)
    return repo


def open_indexer(root: Path, embedder: object, options: IndexOptions) -> tuple[Indexer, Store, EmbeddingCache]:
    """An indexer over a new store and embedding cache under ``root``."""
    cache = EmbeddingCache(root / "cache.db")
    store = open_store(StoreConfig(dim=embedder.dim, path=str(root / "store")))  # type: ignore[attr-defined]
    model_id = embedder.model_id  # type: ignore[attr-defined]
    embeddings = CachedEmbeddings(cache, model_id, lambda: embedder)  # type: ignore[arg-type,return-value]
    return Indexer(store=store, embeddings=embeddings, options=options), store, cache


def writers_of(store: Store) -> dict[str, str]:
    """Structural memory id → its author, or "task" (a merge's task alone), or ""."""
    found = store.scroll(MemoryFilter(repo="bench", types=("structural",)), fields=("author", "task_id"))
    return {p.id: p.payload.get("author") or ("task" if p.payload.get("task_id") else "") for p in found}


def earlier_store(root: Path, repo: Path, branch: str, backfill: int, embedder: object) -> tuple[float, int, int]:
    """A first sync, the store then made as an earlier release left it (no version with a
    writer, a checkpoint without ``provenance``), and the next sync, which reads the
    history again: its seconds, and of the versions, how many got the writer the first
    sync found and how many another."""
    indexer, store, cache = open_indexer(root, embedder, IndexOptions(backfill_commits=backfill))
    indexer.sync(repo="bench", path=str(repo), branch=branch)
    first = writers_of(store)
    ids = sorted(first)
    for start in range(0, len(ids), 1000):
        store.set_payload(ids[start : start + 1000], {"author": None, "task_id": None, "written_in": None})
    point = store.retrieve([checkpoint_id(Scope("bench", branch))])[0]
    payload = {k: v for k, v in point.payload.items() if k != "provenance"}
    store.upsert([StoredPoint(id=point.id, payload=payload, vector=None)])
    started = time.monotonic()
    result = indexer.sync(repo="bench", path=str(repo), branch=branch)
    seconds = time.monotonic() - started
    assert result.mode == "noop" and not result.history_owed, result
    now = writers_of(store)
    store.close()
    cache.close()
    same = sum(now[i] == who for i, who in first.items())
    return seconds, same, len(first) - same


def timed_sync(
    root: Path, repo: Path, branch: str, backfill: int, embedder: object, *, past: bool = True
) -> tuple[float, SyncResult, dict[str, int]]:
    """The first sync's seconds and result, and its structural memories by writer (not
    ``past``: no search for writers past the history read)."""
    options = IndexOptions(backfill_commits=backfill, **({} if past else {"writer_commits": 0}))
    indexer, store, cache = open_indexer(root, embedder, options)
    started = time.monotonic()
    result = indexer.sync(repo="bench", path=str(repo), branch=branch)
    seconds = time.monotonic() - started
    again = indexer.sync(repo="bench", path=str(repo), branch=branch)
    assert again.mode == "noop" and again.embedded == 0
    writers = {"author": 0, "merge's task": 0, "none": 0}
    for point in store.scroll(MemoryFilter(repo="bench", types=("structural",)), fields=("author", "task_id")):
        known = "author" if point.payload.get("author") else "merge's task" if point.payload.get("task_id") else "none"
        writers[known] += 1
    store.close()
    cache.close()
    return seconds, result, writers


def window_sync(
    root: Path, repo: Path, branch: str, back: int, embedder: object, *, credit: bool
) -> tuple[float, int, int]:
    """Indexes ``branch`` ``back`` commits behind its tip, then times one sync to the tip
    (``credit``: with ``credit_window``); and of the versions that sync opened, how
    many went to the tip and how many to another commit of its window."""
    indexer, store, cache = open_indexer(root, embedder, IndexOptions())
    git = ["git", "-C", str(repo)]
    tip = subprocess.run([*git, "rev-parse", branch], check=True, capture_output=True, text=True).stdout.strip()
    subprocess.run([*git, "branch", "-f", "window", f"{tip}~{back}"], check=True)
    indexer.sync(repo="bench", path=str(repo), branch="window")
    subprocess.run([*git, "branch", "-f", "window", tip], check=True)
    original = tasks_module.credit_window
    tasks_module.credit_window = original if credit else (lambda *_args: None)  # type: ignore[assignment]
    try:
        started = time.monotonic()
        indexer.sync(repo="bench", path=str(repo), branch="window")
        seconds = time.monotonic() - started
    finally:
        tasks_module.credit_window = original  # type: ignore[assignment]
    flt = MemoryFilter(repo="bench", branch="window", types=("structural",))
    stored = store.scroll(flt, fields=("valid_from_commit", "task_id"))
    opened = [p for p in stored if p.payload["valid_from_commit"] == tip]
    to_tip = sum(p.payload["task_id"] == task_memory_id(Scope("bench", "window"), tip) for p in opened)
    store.close()
    cache.close()
    return seconds, to_tip, len(opened) - to_tip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--commits", type=int, default=500)
    parser.add_argument("--modules", type=int, default=200)
    parser.add_argument("--model", action="store_true", help="the packaged model instead of the fake embedder")
    parser.add_argument("--repo", type=Path, help="a repository to clone and sync instead of a generated one")
    parser.add_argument("--branch", default="main", help="with --repo: the branch synced (default main)")
    parser.add_argument("--window", type=int, default=50,
                        help="then a sync over this many commits, to the tip, with and without crediting each "
                             "version to the commit that made it, three times in turn (0: not)")  # fmt: skip
    parser.add_argument("--again", action="store_true",
                        help="then time the history read again in a store an earlier release left")  # fmt: skip
    args = parser.parse_args()
    embedder = SentenceTransformerEmbedder(words_only=True) if args.model else FakeEmbedder()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        started = time.monotonic()
        if args.repo:
            repo, branch = root / "repo", args.branch
            subprocess.run(["git", "clone", "-q", "--no-local", "--branch", branch, str(args.repo), str(repo)],
                           check=True)  # fmt: skip
            print(f"cloned {args.repo} in {time.monotonic() - started:.1f} s")
        else:
            repo, branch = make_repo(root, args.modules, args.commits), "main"
            print(f"generated {args.commits} commits, {args.modules} modules in {time.monotonic() - started:.1f} s")
        without, plain, _ = timed_sync(root / "without", repo, branch, 0, embedder)
        with_tasks, full, writers = timed_sync(root / "with", repo, branch, args.commits, embedder)
        unsought, _, not_past = timed_sync(root / "not-past", repo, branch, args.commits, embedder, past=False)
        claim, follow = WriterSearch.claim, WriterSearch.__init__
        try:
            def unfollowing(self: WriterSearch, *args: object, **kw: object) -> None:
                follow(self, *args, **{**kw, "moves": SKIP})  # type: ignore[arg-type]

            WriterSearch.__init__ = unfollowing  # type: ignore[method-assign]
            unmoved, _, moves_not_followed = timed_sync(root / "unmoved", repo, branch, args.commits, embedder)
            WriterSearch.claim = lambda *_: None  # type: ignore[method-assign]
            unattributed, _, _ = timed_sync(root / "unattributed", repo, branch, args.commits, embedder, past=False)
        finally:
            WriterSearch.claim, WriterSearch.__init__ = claim, follow  # type: ignore[method-assign]
        print(f"first sync, task memory off   {without:7.2f} s  ({plain.added} symbols, {plain.embedded} embedded)")
        commits = full.tasks_added + full.history_added
        counts = f"{commits} commits, {full.embedded + full.history_embedded} embedded"
        print(f"first sync, backfill          {with_tasks:7.2f} s  ({counts})")
        print(f"  of which until searchable   {full.seconds:7.2f} s  (then the history: {full.history_seconds:.2f} s)")
        backfill = with_tasks - without
        per = 1000 * backfill / max(commits, 1)
        print(f"backfill of {commits} commits      {backfill:7.2f} s  ({per:.1f} ms per commit)")
        print(f"first sync, backfill, writers of the first index's versions not looked for  {unattributed:7.2f} s"
              f"  (looking for them: {with_tasks - unattributed:+.2f} s; of which following moves: "
              f"{with_tasks - unmoved:+.2f} s; past the history read: {with_tasks - unsought:+.2f} s)")
        for label, found in (("", writers), (", not past the history read", not_past),
                             (", moves not followed", moves_not_followed)):  # fmt: skip
            total = sum(found.values())
            print(f"structural memories by writer found{label}: {total} in all; "
                  + ", ".join(f"{name} {n} ({100 * n / max(total, 1):.1f} %)" for name, n in found.items()))
        if args.again:
            seconds, same, other = earlier_store(root / "again", repo, branch, args.commits, embedder)
            print(f"history read again in an earlier release's store (no version with a writer): {seconds:.2f} s; "
                  f"{same} versions with the writer a first index finds, {other} with another")
        if args.window:
            runs: dict[bool, list[tuple[float, int, int]]] = {False: [], True: []}
            for n in range(3):
                for credit in (False, True):
                    runs[credit].append(window_sync(root / f"window-{n}-{credit}", repo, branch, args.window,
                                                    embedder, credit=credit))  # fmt: skip
            for credit in (False, True):
                seconds = sorted(r[0] for r in runs[credit])
                _, to_tip, to_others = runs[credit][0]
                print(f"sync over {args.window} commits, {'' if credit else 'not '}crediting each version's commit: "
                      f"median {seconds[1]:.3f} s ({', '.join(f'{x:.3f}' for x in seconds)}); of the versions it "
                      f"opened, {to_tip} the tip's and {to_others} another commit's")

if __name__ == "__main__":
    main()
