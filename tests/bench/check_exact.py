"""Exactness on a real history: incremental syncs against a fresh index of the same commit.

Not part of the test run. Clones ``--repo`` into a temporary directory (the original is
never touched), indexes the commit ``--history`` first-parent commits behind the tip,
then syncs forward one commit at a time to the tip, then resets the branch back to the
start, to the middle and to the tip again. At every ``--every``-th step and after each
reset, the live memories are compared with a fresh index of the same commit in a new
store: the same point ids (ids hash the path, kind, qualified name and content) and the
same payload, but for the fields that record how a memory got there (its interval,
history, lineage, change, the commit's author and task) and, outside module memories,
``blob`` (an unchanged symbol keeps the blob of the commit that opened it). Vectors are
not compared: a fast deterministic fake embedder stands in for the model, since what is
checked is parsing, planning and writing. Last, at the tip again, the memories as of
each commit checked before (``--as-of``'s query) are compared with that commit's fresh
index: the same ids and what each version held when it opened, with the lines and file
blob the answer reads from git at that commit, but for its interval; and what
``recalld changes --since`` each such commit pairs (the versions valid at one of it and
the tip only) with the two fresh indexes' difference; and the branch's indexed states,
read on after each sync as a daemon does, with those read afresh.

    python tests/bench/check_exact.py --repo ~/src/django [--branch main] [--history 50] [--every 10] [--full]

``--full``: every step is synced as ``recalld sync --full`` does, the whole tree compared
with the stored memories (each file's read as its part is planned) rather than git's diff.

Prints one line per check and the first differences (a step's or a reset's check with the
time its fresh index took, beside the sync's on the line before); exits 1 if any check differs.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import pygit2

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from recalld.daemon.asof import _KNOWN, LinesAt, indexed_states, states_at_commit  # noqa: E402
from recalld.daemon.changes import versions_between  # noqa: E402
from recalld.daemon.config import Config, validate  # noqa: E402
from recalld.daemon.registry import RepoRegistry  # noqa: E402
from recalld.daemon.logs import configure_logging  # noqa: E402
from recalld.daemon.query import AsOf  # noqa: E402
from recalld.ingest.gitrepo import GitRepository  # noqa: E402
from recalld.ingest.held import holds  # noqa: E402
from recalld.ingest.embed_cache import CachedEmbeddings, EmbeddingCache  # noqa: E402
from recalld.ingest.files import IndexOptions  # noqa: E402
from recalld.ingest.records import PLANNED_TYPES, STRUCTURAL  # noqa: E402
from recalld.ingest.store import MemoryFilter, Store, StoreConfig, StoredPoint, ValidAt, open_store  # noqa: E402
from recalld.ingest.sync import Indexer  # noqa: E402
from tests.conftest import FakeEmbedder  # noqa: E402

# How a memory got where it is: differs between an incremental store and a fresh one.
HOW = frozenset({
    "valid_from_commit", "valid_from_time", "valid_from_sync", "task_id", "author", "written_in", "indexed_at",
    "history", "lineage", "change", "payload_version",
})  # fmt: skip
# The version's interval and state now, which an as-of query does not compare.
STATE = frozenset({
    "valid_to_commit", "valid_to_time", "valid_to_sync", "valid_through_commit", "valid_through_time", "deprecated",
    "deprecated_reason", "superseded_by",
})  # fmt: skip
SHOWN = 5  # differences printed per check


def git(repo: Path, *args: str, env: Mapping[str, str] | None = None) -> str:
    done = subprocess.run(["git", *args], cwd=repo, capture_output=True, text=True, env=env)
    if done.returncode != 0:
        raise SystemExit(f"git {' '.join(args)}: {done.stderr.strip()}")
    return done.stdout.strip()


def checker_parser(doc: str, *, history: int, history_help: str, merges: str = "") -> argparse.ArgumentParser:
    """A checker's arguments: the repository copied, the branch followed, ``--history``
    (and ``--merges``, where ``merges`` says what it does: ``merged_every``)."""
    parser = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repo", type=Path, required=True, help="a local git repository (a copy of it is used)")
    parser.add_argument("--branch", help="the branch followed (default: its checked-out branch)")
    parser.add_argument("--history", type=int, default=history, metavar="N", help=f"{history_help} (default {history})")
    if merges:
        parser.add_argument("--merges", type=int, default=0, metavar="K", help=merges)
    return parser


def merged_every(repo: Path, branch: str, k: int) -> tuple[str, str]:
    """Two branches of ``repo`` made of ``branch``'s first-parent history, its merges made
    plain commits (the branches they merged are not the check's): ``linear``, those
    commits one after the other, and ``merged``: the first, then each run of ``k`` on a
    side branch from the last merge, brought in by a merge commit whose tree is the run's
    last."""
    git_repo = pygit2.Repository(str(repo))
    chain = [git_repo[c] for c in git(repo, "rev-list", "--first-parent", "--reverse", branch).split()]

    def copy(commit: pygit2.Commit, parent: str | None) -> str:
        parents = [pygit2.Oid(hex=parent)] if parent else []
        return str(git_repo.create_commit(None, commit.author, commit.committer, commit.message, commit.tree_id,
                                          parents))

    linear = main = copy(chain[0], None)
    for commit in chain[1:]:
        linear = copy(commit, linear)
    for start in range(1, len(chain), k):
        tip = main
        for commit in chain[start : start + k]:
            tip = copy(commit, tip)
        side = git_repo[tip]
        merger = pygit2.Signature("merger", "merger@example.invalid", side.commit_time, 0)
        parents = [pygit2.Oid(hex=main), side.id]
        main = str(git_repo.create_commit(None, merger, merger, "merge a side branch\n", side.tree_id, parents))
    for name, tip in (("linear", linear), ("merged", main)):
        git_repo.references.create(f"refs/heads/{name}", pygit2.Oid(hex=tip), force=True)
    return "linear", "merged"


def clone_history(repo: Path, branch: str | None, history: int, root: Path) -> tuple[Path, str, list[str]]:
    """A copy of ``repo`` under ``root``, the branch followed, and its last ``history``
    first-parent commits with the one before them, oldest first."""
    clone = root / "repo"
    branch = branch or git(repo, "symbolic-ref", "--short", "HEAD")
    git(root, "clone", "-q", "--no-checkout", "--branch", branch, str(repo.resolve()), str(clone))
    chain = git(clone, "rev-list", "--first-parent", "--reverse", "-n", str(history + 1), "HEAD").split()
    return clone, branch, chain


Asked = tuple[GitRepository, str, ValidAt]  # the repository, its branch, the condition


def live(store: Store, repo: str) -> dict[str, dict[str, Any]]:
    """Point id → what a fresh index must agree on."""
    return agreed(store.scroll(MemoryFilter(repo=repo, types=PLANNED_TYPES)), HOW)


def answered(store: Store, repo: str, at: Asked) -> list[StoredPoint]:
    """The memories as of ``at`` (the repository, its branch, the condition) as an answer
    shows them (``query.AsOf``): the interval that held then, the lines its code had."""
    repository, branch, valid_at = at
    points = list(store.scroll(MemoryFilter(repo=repo, types=PLANNED_TYPES, deprecated=None, valid_at=valid_at)))
    lines = None
    if valid_at.state:
        lines = LinesAt(repository, valid_at.state, repo=repo, branch=branch, asked=valid_at.commit)
    return AsOf(valid_at, lines, repository).placed(points)


def agreed(points: Iterable[StoredPoint], left_out: frozenset[str]) -> dict[str, dict[str, Any]]:
    """Point id → its fields but ``left_out`` (and a symbol's blob, its file's)."""
    out = {}
    for point in points:
        fields = {k: v for k, v in point.payload.items() if k not in left_out and v is not None}
        if fields.get("kind") != "module":
            fields.pop("blob", None)
        out[point.id] = fields
    return out


def as_of_view(fields: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in fields.items() if k not in STATE}


class Checker:
    def __init__(self, clone: Path, branch: str, state: Path, *, full: bool = False) -> None:
        self.clone, self.branch, self.state, self.full = clone, branch, state, full
        self.cache = EmbeddingCache(state / "embeddings.db")
        self.embeddings = CachedEmbeddings(self.cache, "fake", FakeEmbedder)
        self.store = self._store("incremental")
        self.indexer = Indexer(store=self.store, embeddings=self.embeddings, options=IndexOptions())
        self.fresh_stores = 0
        self.failed = 0
        self.fresh: dict[str, dict[str, dict[str, Any]]] = {}  # commit → a fresh index's live memories

    def _store(self, name: str) -> Store:
        return open_store(StoreConfig(dim=FakeEmbedder.dim, path=str(self.state / name)))

    def move(self, commit: str) -> str:
        git(self.clone, "update-ref", f"refs/heads/{self.branch}", commit)
        started = time.monotonic()
        r = self.indexer.sync(repo="r", path=str(self.clone), branch=self.branch, full=self.full)
        indexed_states(self.store, "r", self.branch)  # read on after each sync, as a daemon asked of as-of does
        return (f"{time.monotonic() - started:6.1f} s  {r.files_changed:5d} files  +{r.added} ~{r.modified}"
                f" -{r.deprecated} renamed {r.renamed}")  # fmt: skip

    def check(self, label: str, commit: str) -> None:
        self.fresh_stores += 1
        fresh_store = self._store(f"fresh-{self.fresh_stores}")
        started = time.monotonic()
        try:
            Indexer(store=fresh_store, embeddings=self.embeddings, options=IndexOptions()).sync(
                repo="r", path=str(self.clone), branch=self.branch
            )
            took = time.monotonic() - started
            want = live(fresh_store, "r")
        finally:
            fresh_store.close()
        self.fresh[commit] = want
        self.compare(label, live(self.store, "r"), want, took=took)

    def check_as_of(self, label: str, commit: str) -> None:
        """The memories as of ``commit``, which a check indexed afresh, after the branch
        moved on (and back and forth); and that each answer shows an interval that held
        there (a reopened version's earlier one, where that held: ``ingest/held.py``)."""
        repository = GitRepository(self.clone)
        at = states_at_commit(self.store, repository, repo="r", branch=self.branch, rev=commit)
        want = {key: as_of_view(fields) for key, fields in self.fresh[commit].items()}
        points = answered(self.store, "r", (repository, self.branch, at))
        self.compare(label, agreed(points, HOW | STATE), want)
        unheld = [p for p in points if not holds(p.payload, at)]
        self.failed += bool(unheld)
        print(f"CHECK {label:<14} {'exact' if not unheld else 'DIFFERS'}: intervals shown: {len(points)} answers,"
              f" {len(unheld)} with an interval that did not hold then", flush=True)  # fmt: skip
        for point in unheld[:SHOWN]:
            print(f"  unheld   {_name(point.payload)}: since {str(point.payload.get('valid_from_commit'))[:10]}")

    def check_states(self) -> None:
        """The branch's states read on after each sync (``asof.indexed_states``), which the
        as-of and changes checks used, against those read afresh from every point."""
        got = indexed_states(self.store, "r", self.branch)
        _KNOWN[self.store].clear()
        want = indexed_states(self.store, "r", self.branch)
        ok = (got.states, got.targets, got.visits, got.left) == (want.states, want.targets, want.visits, want.left)
        self.failed += not ok
        print(f"CHECK {'known states':<14} {'exact' if ok else 'DIFFERS'}: read on after each sync"
              f" {len(got.states)} states, {len(got.targets)} synced; afresh {len(want.states)},"
              f" {len(want.targets)}", flush=True)  # fmt: skip

    def check_changes(self, label: str, commit: str, tip: str) -> None:
        """The versions ``recalld changes --since COMMIT`` pairs (valid at one of the two
        states only), read from the sync stamps and from the two states side by side (as
        ``--until`` reads them), against the two fresh indexes' structural memories."""
        fresh = {c: {k for k, f in self.fresh[c].items() if f.get("type") == STRUCTURAL} for c in (commit, tip)}
        want = (fresh[commit] - fresh[tip], fresh[tip] - fresh[commit])
        app = _ChangesApp(self)
        try:
            for how, until in (("by stamps", None), ("side by side", tip)):
                got = versions_between(app, "r", commit, until)  # type: ignore[arg-type]
                ok = got == want
                self.failed += not ok
                print(f"CHECK {label:<14} {'exact' if ok else 'DIFFERS'}: changes {how}: {len(got[0])} left,"
                      f" {len(got[1])} came; fresh indexes {len(want[0])}, {len(want[1])}", flush=True)  # fmt: skip
        finally:
            app.registry.close()

    def compare(self, label: str, got: dict[str, dict[str, Any]], want: dict[str, dict[str, Any]], *,
                took: float | None = None) -> None:
        """Print how ``got`` (the store's) and ``want`` (a fresh index's, made in ``took``
        seconds where it was made for this check) differ."""
        extra, missing = sorted(set(got) - set(want)), sorted(set(want) - set(got))
        differ = sorted(k for k in set(got) & set(want) if got[k] != want[k])
        fields = Counter(f for k in differ for f in set(got[k]) | set(want[k]) if got[k].get(f) != want[k].get(f))
        ok = not (extra or missing or differ)
        self.failed += not ok
        made = f" ({took:.1f} s)" if took is not None else ""
        print(f"CHECK {label:<14} {'exact' if ok else 'DIFFERS'}: {len(got)} live, fresh index {len(want)}{made};"
              f" extra {len(extra)}, missing {len(missing)}, differing {len(differ)}"
              + (f" (fields {dict(fields)})" if fields else ""), flush=True)  # fmt: skip
        for key in extra[:SHOWN]:
            print(f"  extra    {_name(got[key])}")
        for key in missing[:SHOWN]:
            print(f"  missing  {_name(want[key])}")
        for key in differ[:SHOWN]:
            shown = [f"{f}: {str(got[key].get(f))[:60]!r} vs {str(want[key].get(f))[:60]!r}" for f in fields
                     if got[key].get(f) != want[key].get(f)]  # fmt: skip
            print(f"  differs  {_name(got[key])}: {'; '.join(shown)}")

    def close(self) -> None:
        self.store.close()
        self.cache.close()


class _ChangesApp:
    """What ``changes.versions_between`` needs of the App: the store, a registry naming
    the clone "r", the config."""

    def __init__(self, checker: Checker) -> None:
        self.store = checker.store
        self.registry = RepoRegistry(checker.state / "registry.db")
        if self.registry.find("r") is None:
            self.registry.add("r", str(checker.clone), checker.branch)
        self.config = Config(home=checker.state, config_path=checker.state / "config.toml", values=validate({}))


def _name(fields: dict[str, Any]) -> str:
    return f"{fields.get('path')} {fields.get('kind')} {fields.get('qualname')}"


def main() -> int:
    parser = checker_parser(__doc__, history=50, history_help="first-parent commits to walk")
    parser.add_argument("--every", type=int, default=10, metavar="K", help="compare every K steps (default 10)")
    parser.add_argument("--full", action="store_true", help="sync each step as `recalld sync --full` does: the whole "
                        "tree compared with the stored memories, not git's diff")  # fmt: skip
    args = parser.parse_args()
    if not (args.repo / ".git").exists() and not (args.repo / "HEAD").exists():
        parser.error(f"--repo {args.repo}: not a git repository")
    if args.history < 1 or args.every < 1:
        parser.error("--history and --every must be at least 1")
    configure_logging()  # to stderr: stdout is the report alone
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        clone, branch, chain = clone_history(args.repo, args.branch, args.history, root)
        checker = Checker(clone, branch, root / "state", full=args.full)
        try:
            print(f"index {chain[0][:10]}: {checker.move(chain[0])}", flush=True)
            for step, commit in enumerate(chain[1:], 1):
                print(f"step {step:3d} {commit[:10]}: {checker.move(commit)}", flush=True)
                if step % args.every == 0 or step == len(chain) - 1:
                    checker.check(f"step {step}", commit)
            for label, commit in (("reset to start", chain[0]), ("reset to middle", chain[len(chain) // 2]),
                                  ("reset to tip", chain[-1])):  # fmt: skip
                print(f"{label}: {checker.move(commit)}", flush=True)
                checker.check(label, commit)
            for step, commit in enumerate(chain):
                if commit in checker.fresh:
                    checker.check_as_of(f"as of step {step}", commit)
            for step, commit in enumerate(chain[:-1]):
                if commit in checker.fresh:
                    checker.check_changes(f"since step {step}", commit, chain[-1])
            checker.check_states()
        finally:
            checker.close()
    print("every check exact" if not checker.failed else f"{checker.failed} check(s) differ")
    return 1 if checker.failed else 0


if __name__ == "__main__":
    sys.exit(main())
