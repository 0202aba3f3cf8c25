"""Provenance on a real history: one sync over many commits against a sync per commit.

Not part of the test run. Clones ``--repo`` into a temporary directory (the original is
never touched) and indexes the commit ``--history`` first-parent commits behind the tip
twice, in two stores: one then syncs to each first-parent commit in turn up to the tip,
as the git hooks do; the other syncs to the tip at once, as after a pull or a daemon
that was stopped. Each version the single sync opened should name, by its ``task_id``
and ``author``, the same commit as the syncs one by one did (the commit that made it):
``ingest/credit.py``'s ``credit_window``. A third store syncs to the tip, resets back
to the start and forward to the tip again: the reset forward reopens what comes back
without reading those commits (``credit_by_links``) and should credit it the same. A
fourth store indexes the tip afresh: its history read should name the same author and
commit as the syncs one by one for every live version (a sync that moves code keeps its
writer, as that read follows moves back). A fast deterministic fake embedder stands in
for the model.

    python tests/bench/check_credit.py --repo ~/src/django [--branch B] [--history 200]

Prints the counts and the first differences; exits 1 if any version differs in either.
The syncs one by one follow the first-parent history: a sync to a merge reads the
commits of the branch it merged (its window) as the single sync does. ``--merges K``
checks that on a copy whose every K commits are a side branch a merge commit brings in
(``check_exact.merged_every``), its last ``--history`` merges.

    python tests/bench/check_credit.py --repo ~/src/django [--history 40] --merges 5

``--window N`` adds two stores whose syncs read at most N of the commits they bring in
(``[tasks] backfill_commits``, a pull of more commits than that): one syncs to the tip at
once, the other to the tip, back to the start and forward again. What the commits past
the limit wrote is left to the history read each such sync owes, and every live version
should name the same author and commit as the syncs one by one.

    python tests/bench/check_credit.py --repo ~/src/django --history 120 --window 30
"""

from __future__ import annotations

import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from recalld.ingest.files import IndexOptions  # noqa: E402
from recalld.ingest.plan import Scope  # noqa: E402
from recalld.ingest.records import task_memory_id  # noqa: E402
from recalld.ingest.store import MemoryFilter  # noqa: E402
from tests.bench.check_exact import checker_parser, clone_history, git, merged_every  # noqa: E402
from tests.ingest.conftest import Harness  # noqa: E402

FIELDS = ("task_id", "author", "written_in", "path", "qualname", "valid_from_commit", "change")

WRITER = FIELDS[:3]  # compared: the commit a version is credited to (task, author, commit)
WROTE = FIELDS[1:3]  # compared with a first index: who wrote it, in which commit


def synced(
    root: Path, repo: Path, start: str, targets: list[str], options: IndexOptions | None = None
) -> dict[str, dict[str, Any]]:
    """The live structural versions after indexing ``start``, then syncing to each of
    ``targets`` in turn: id → the provenance fields."""
    h = Harness("edge", root, options)
    try:
        for commit in (start, *targets):
            git(repo, "branch", "-f", "checked", commit)
            h.indexer.sync(repo="r", path=str(repo), branch="checked")
        flt = MemoryFilter(repo="r", branch="checked", types=("structural",))
        return {p.id: {k: p.payload.get(k) for k in FIELDS} for p in h.store.scroll(flt, fields=FIELDS)}
    finally:
        h.close()


def main() -> int:
    parser = checker_parser(__doc__, history=200, history_help="first-parent commits behind the tip",
                            merges="check a copy whose every K commits are a side branch a merge brought in")
    parser.add_argument("--window", type=int, default=0, metavar="N",
                        help="also sync to the tip at once reading at most N of its commits (backfill_commits)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        repo, branch, (start, *steps) = clone_history(args.repo, args.branch, args.history, root)
        if args.merges:
            _, merged = merged_every(repo, branch, args.merges)
            start, *steps = git(repo, "rev-list", "--first-parent", "--reverse", "-n", str(args.history + 1),
                                merged).split()  # fmt: skip
        tip = steps[-1]
        one_by_one = synced(root / "steps", repo, start, steps)
        print(f"{len(steps)} commits: live versions {len(one_by_one)} one by one")
        task_commit = {task_memory_id(Scope("r", "checked"), c): c[:10] for c in (start, *steps)}
        differing = 0
        for label, targets in (("at once", [tip]), ("back and forward again", [tip, start, tip])):
            other = synced(root / label.replace(" ", "-"), repo, start, targets)
            differing += compare(label, one_by_one, other, tip, task_commit)
        differing += compare_fresh("a first index of the tip", one_by_one, synced(root / "fresh", repo, tip, []))
        cut = IndexOptions(backfill_commits=args.window)
        for label, targets in (("at once", [tip]), ("back and forward again", [tip, start, tip])) if args.window else ():
            other = synced(root / f"cut-{len(targets)}", repo, start, targets, cut)
            differing += compare_fresh(f"{label}, its window cut at {args.window} commits", one_by_one, other)
        return 1 if differing else 0


def compare_fresh(label: str, one_by_one: dict[str, dict[str, Any]], other: dict[str, dict[str, Any]]) -> int:
    """Prints how another store (a first index of the tip, or one whose history read
    found the writers) names the writer (author and commit) of every live version
    against the syncs one by one (which follow moves as its history read does: who moved
    code did not write it), and returns how many differ. The task may differ: each
    store's history read holds its own window of commits."""
    both = sorted(set(one_by_one) & set(other))
    moved = sum(one_by_one[i]["change"] == "renamed" for i in both)
    print(f"{label}: live versions {len(other)}, {len(both)} as one by one ({moved} of them renamed there)")
    return differing("same writer", label.split(",")[0], one_by_one, other, both, WROTE,
                     lambda v: f"in {(v['written_in'] or '-')[:10]}")  # fmt: skip


def compare(
    label: str, one_by_one: dict[str, dict[str, Any]], other: dict[str, dict[str, Any]], tip: str,
    task_commit: dict[str, str],
) -> int:
    """Prints how the versions ``other``'s last sync opened are credited against the syncs
    one by one, and returns how many differ."""
    opened = sorted(i for i, v in other.items() if v["valid_from_commit"] == tip and i in one_by_one)
    to_tip = sum(one_by_one[i]["valid_from_commit"] == tip for i in opened)
    print(f"{label}: live versions {len(other)}; its last sync opened {len(opened)} of them, "
          f"{to_tip} made by the tip itself")  # fmt: skip
    return differing("same commit", label, one_by_one, other, opened, WRITER,
                     lambda v: f"by {task_commit.get(v['task_id'])}")  # fmt: skip


def differing(
    same: str, label: str, one_by_one: dict[str, dict[str, Any]], other: dict[str, dict[str, Any]],
    ids: list[str], fields: tuple[str, ...], named: Callable[[dict[str, Any]], str],
) -> int:
    """Prints how many of ``ids`` name the same ``fields`` in both and the first that do
    not (each side's commit as ``named`` says, and author); returns how many differ."""
    differ = [i for i in ids if [one_by_one[i][k] for k in fields] != [other[i][k] for k in fields]]
    print(f"  {same} as one by one: {len(ids) - len(differ)}; differing: {len(differ)}")
    for i in differ[:20]:
        a, b = one_by_one[i], other[i]
        print(f"    {b['path']} {b['qualname']}: one by one {a['change']} {named(a)} ({a['author']}); "
              f"{label} {named(b)} ({b['author']})")  # fmt: skip
    return len(differ)


if __name__ == "__main__":
    sys.exit(main())
