"""Rebuild the changes between two commits as a history of commit-sized steps.

Not part of the test run. A copy of a project made from its released packages (when its
real history cannot be fetched) has one commit per release, and 50 of those commits are
years of work: a reset across them changes a thousand files, where 50 real commits
change a hundred or two. This writes a new repository at ``--out``: ``--base`` as its
first commit, then the changes from ``--base`` to ``--target`` in steps of ``--files``
changed files each (the files shuffled with ``--seed``, so a step touches unrelated parts
of the tree as a real commit may), ending on exactly ``--target``'s tree. A rename git
finds between the two is one change, its deletion and addition in one step, as ``git mv``
makes it (``--no-renames``: apart, in different steps, as every history before stop 98). Give the result
to ``bench_reset.py`` or ``bench_all.py --repo``.

    python tests/bench/split_history.py --repo ~/src/django --base 5.1 --target 5.2 --out /tmp/django-steps
"""

from __future__ import annotations

import argparse
import os
import random
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from tests.bench.check_exact import git  # noqa: E402

# A fixed identity and clock: the same input makes the same commits.
IDENTITY = {
    "GIT_AUTHOR_NAME": "recalld bench", "GIT_AUTHOR_EMAIL": "bench@example.invalid",
    "GIT_COMMITTER_NAME": "recalld bench", "GIT_COMMITTER_EMAIL": "bench@example.invalid",
}  # fmt: skip
START_TIME = 1_700_000_000


@dataclass(frozen=True, slots=True)
class Change:
    """One file's change from the base to the target: ``gone`` its path there, when it is
    not in the target; ``came`` its path in the target (a rename or a copy: both)."""

    gone: str | None
    came: str | None

    @property
    def paths(self) -> list[str]:
        return [p for p in (self.gone, self.came) if p is not None]


def changes(repo: Path, base: str, target: str, *, renames: bool = True) -> list[Change]:
    """Every file that differs, a rename git finds one change (a deletion and an addition
    in one step, as ``git mv`` makes one), else a deletion and an addition apart."""
    detect = ["-M"] if renames else ["--no-renames"]
    listed = git(repo, "diff", "--name-status", *detect, "-z", base, target).split("\0")[:-1]
    found: list[Change] = []
    at = 0
    while at < len(listed):
        status = listed[at]
        if status[0] in "RC":  # R087 old new; a copy keeps its source
            old, new = listed[at + 1], listed[at + 2]
            found.append(Change(old if status[0] == "R" else None, new))
            at += 3
            continue
        path = listed[at + 1]
        found.append(Change(path, None) if status == "D" else Change(None, path))
        at += 2
    return found


def split(repo: Path, base: str, target: str, out: Path, *, files: int, seed: int, renames: bool = True) -> int:
    """Write the stepped history; returns how many step commits it has."""
    git(Path.cwd(), "clone", "-q", "--no-checkout", str(repo.resolve()), str(out))
    # Their commits, read before the new history's branch takes the name ``main``: a
    # ``--target main`` read after it named the base, and the history had no step.
    base, target = (git(out, "rev-parse", "--verify", f"{name}^{{commit}}") for name in (base, target))
    git(out, "checkout", "-q", "-B", "main", base)
    steps = changes(out, base, target, renames=renames)
    random.Random(seed).shuffle(steps)
    for number, start in enumerate(range(0, len(steps), files), start=1):
        group = steps[start : start + files]
        deleted = [c.gone for c in group if c.gone is not None]
        written = [c.came for c in group if c.came is not None]
        if deleted:
            git(out, "rm", "-q", "--", *deleted)
        if written:
            git(out, "checkout", target, "--", *written)
        stamp = f"@{START_TIME + 60 * number} +0000"
        env = {**os.environ, **IDENTITY, "GIT_AUTHOR_DATE": stamp, "GIT_COMMITTER_DATE": stamp}
        git(out, "commit", "-q", "--no-verify", "-m", f"step {number}: {', '.join(' → '.join(c.paths) for c in group)}",
            env=env)
        if number % 50 == 0:
            print(f"  {number} commits, {start + len(group)} of {len(steps)} files", flush=True)
    if git(out, "rev-parse", "HEAD^{tree}") != git(out, "rev-parse", f"{target}^{{tree}}"):
        raise SystemExit("the last step's tree is not the target's")
    git(out, "gc", "-q")  # packed, as a clone is: loose objects read slower
    return (len(steps) + files - 1) // files


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repo", type=Path, required=True, help="a local git repository (read only)")
    parser.add_argument("--base", required=True, help="the commit the new history starts from")
    parser.add_argument("--target", required=True, help="the commit whose tree the last step has")
    parser.add_argument("--out", type=Path, required=True, help="where to write the new repository (must not exist)")
    parser.add_argument("--files", type=int, default=3, metavar="N", help="changed files per commit (default 3)")
    parser.add_argument("--seed", type=int, default=5, help="the shuffle's seed (default 5)")
    parser.add_argument("--no-renames", dest="renames", action="store_false",
                        help="write a rename as a deletion and an addition, apart (as before stop 98)")  # fmt: skip
    args = parser.parse_args()
    if args.out.exists():
        parser.error(f"{args.out} exists")
    if args.files < 1:
        parser.error("--files must be at least 1")
    count = split(args.repo, args.base, args.target, args.out, files=args.files, seed=args.seed, renames=args.renames)
    print(f"{args.out}: {args.base} then {count} commits of up to {args.files} files, ending on {args.target}'s tree")
    return 0


if __name__ == "__main__":
    sys.exit(main())
