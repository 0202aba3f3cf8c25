"""Writers of older code on a real history: the search past a short history read against
a history read of every commit.

Not part of the test run. Clones ``--repo`` into a temporary directory (the original is
never touched) and gives each commit of the copy an author of its own (``git
filter-branch``: the author's name is the original commit's id), so that an author names
the commit that wrote a version. Then indexes the copy's tip twice, in two stores: one
reads the last ``--history`` first-parent commits for task memory and searches on past
them for the writers of older code (``authorship.seek_writers``, ``tasks.writer_commits``);
the other reads every commit of the first-parent history (``tasks.backfill_commits``
past its length) and searches no further. Every structural version must have the same
author in both. A fast deterministic fake embedder stands in for the model.

``--merges K`` turns the copy into a history of pull requests merged with merge commits
first: after its first commit, each run of K commits is a side branch (the same trees,
authors and messages) that a merge commit of an author of its own brings in (the
history's own merges made plain commits, in both). The first store indexes that branch:
what a merge brought in must get the author of the side branch's commit that wrote it,
as the second store, reading the plain history, finds.

    python tests/bench/check_writers.py --repo ~/src/django [--branch B] [--history 100] [--merges 5]

Prints the counts, the seconds each first sync took (its history included) and the first
differences; exits 1 if any version differs.
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from recalld.ingest.files import IndexOptions  # noqa: E402
from recalld.ingest.store import MemoryFilter  # noqa: E402
from tests.bench.check_exact import checker_parser, git, merged_every  # noqa: E402
from tests.ingest.conftest import Harness  # noqa: E402

Version = tuple[str, str, str | None, str | None]  # path, qualname, author, the commit it names (written_in)


def one_author_a_commit(repo: Path, branch: str | None, root: Path) -> tuple[Path, str]:
    """A copy of ``repo``'s ``branch`` under ``root`` whose every commit has an author of
    its own, and the branch."""
    clone = root / "repo.git"
    branch = branch or git(repo, "symbolic-ref", "--short", "HEAD")
    git(root, "clone", "-q", "--bare", "--branch", branch, str(repo.resolve()), str(clone))
    env = {**os.environ, "FILTER_BRANCH_SQUELCH_WARNING": "1"}
    git(clone, "filter-branch", "-f", "--env-filter", 'export GIT_AUTHOR_NAME="$GIT_COMMIT"', branch, env=env)
    return clone, branch


def writers(root: Path, repo: Path, branch: str, options: IndexOptions) -> tuple[dict[str, Version], float]:
    """A version (its path, kind, qualified name and content hash: its id on any branch) →
    where it is and its author, after a first sync of ``branch`` (its history read, and
    searched past, included); and that sync's seconds."""
    h = Harness("edge", root, options)
    try:
        started = time.monotonic()
        h.indexer.sync(repo="r", path=str(repo), branch=branch)
        seconds = time.monotonic() - started
        flt = MemoryFilter(repo="r", branch=branch, types=("structural",))
        fields = ("path", "kind", "qualname", "content_hash", "author", "written_in")
        found = [p.payload for p in h.store.scroll(flt, fields=fields)]
        keys = [tuple(map(p.get, fields[:4])) for p in found]
        return {str(k): (p["path"], p["qualname"], p.get("author"), p.get("written_in"))
                for k, p in zip(keys, found, strict=True)}, seconds  # fmt: skip
    finally:
        h.close()


def main() -> int:
    parser = checker_parser(__doc__, history=100, history_help="first-parent commits read for task memory in the "
                            "store that searches past them", merges="search a copy whose every K commits are a side "
                            "branch a merge brought in")  # fmt: skip
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        repo, branch = one_author_a_commit(args.repo, args.branch, root)
        length = len(git(repo, "rev-list", "--first-parent", branch).split())
        read_branch, searched = merged_every(repo, branch, args.merges) if args.merges else (branch, branch)
        past, past_seconds = writers(root / "past", repo, searched, IndexOptions(backfill_commits=args.history))
        everything = IndexOptions(backfill_commits=length, writer_commits=0)
        read, read_seconds = writers(root / "read", repo, read_branch, everything)
        differ = sorted(i for i in read if read[i][:3] != (past.get(i) or ())[:3])
        print(f"{length} first-parent commits; {len(read)} structural versions")
        if args.merges:
            merges = len(git(repo, "rev-list", "--first-parent", "--merges", searched).split())
            print(f"  searched: {merges} merges of up to {args.merges} commits each, the first commit before them")
        for label, found, seconds in ((f"the last {args.history} read, the search past them", past, past_seconds),
                                      (f"all {length} read", read, read_seconds)):  # fmt: skip
            known = sum(bool(v[2]) for v in found.values())
            print(f"  {label}: {known} with an author ({100 * known / max(len(found), 1):.1f} %); first sync "
                  f"with its history {seconds:.2f} s")  # fmt: skip
        print(f"same author: {len(read) - len(differ)}; differing: {len(differ)}")
        for i in differ[:20]:
            path, qualname, author, _ = read[i]
            print(f"  {path} {qualname}: all read {author}; searched past {past.get(i, (None, None, '-', None))[2]}")
        by = dict(line.split(" ", 1) for line in git(repo, "log", "--all", "--format=%H %an").splitlines())
        wrong = {}
        for label, found in (("searched past", past), ("all read", read)):
            wrong[label] = ids = sorted(i for i, v in found.items()
                                        if (by.get(v[3]) if v[3] else "") != (v[2] or "").split(" <")[0])  # fmt: skip
            print(f"  {label}: written_in the author's commit {len(found) - len(ids)}; not: {len(ids)}")
            for i in ids[:5]:
                print(f"    {found[i][0]} {found[i][1]}: author {found[i][2]}, written in {found[i][3]}")
        return 1 if differ or any(wrong.values()) else 0


if __name__ == "__main__":
    sys.exit(main())
