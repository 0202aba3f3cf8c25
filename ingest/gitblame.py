"""git blame as git's own command runs it, for ``GitHistory.blame_hunks``.

libgit2's blame walks the history commit by commit, diffing each one's tree for the file;
git's command reads the commit-graph and its changed-path filters where the repository has
them (``git gc`` writes the graph; ``git commit-graph write --changed-paths`` the filters),
and is faster without them too. Measured on a made-up history of 20,000 commits over 300
files (``tests/bench/bench_blame.py``): a 400-line file 1.04 s with libgit2, 0.23 s with
git's command, 0.15 s with the filters. A command can also be stopped when an answer's
time for blame is spent, where a libgit2 call runs to its end.

The command reads the repository as libgit2 reads it for a sync: textconv filters off (the
lines are the blob's, as the memories' lines are), no replacement objects, and in the
environment of ``gitenv`` (none of the variables a hook's git passes on). Where it cannot
answer (no git on the PATH, a git that refuses the repository, an output it does not
recognise), ``blame_hunks`` asks libgit2.
"""

from __future__ import annotations

import re
import subprocess
import time

from recalld.daemon.logs import get_logger
from recalld.ingest.gitenv import git_env

log = get_logger("recalld.git")

GIT = "git"  # the command run (tests point it elsewhere)
# A line group of ``--incremental``'s output: the commit, its line in that commit, the
# group's first line in the file blamed and how many lines it holds (SHA-1 or SHA-256 ids).
_GROUP = re.compile(rb"^([0-9a-f]{40}|[0-9a-f]{64}) [0-9]+ ([0-9]+) ([0-9]+)$", re.MULTILINE)

Hunks = list[tuple[int, int, str]]  # (first line, last line, the commit that wrote them), in line order


class BlameStopped(Exception):
    """git blame ran out of the time it was given, and was stopped."""


class BlameUnanswered(Exception):
    """git's command gave no answer: why (another way may still answer)."""


def seconds_before(deadline: float, path: str) -> float:
    """The time left before ``deadline`` (``time.monotonic``'s) to blame ``path`` in:
    ``BlameStopped`` when none is."""
    left = deadline - time.monotonic()
    if left <= 0:
        raise BlameStopped(f"no time left to blame {path}")
    return left


def command_blame(git_dir: str, commit: str, path: str, start: int, end: int, *, timeout: float | None) -> Hunks:
    """Lines ``start`` to ``end`` of ``path`` at ``commit``, as ``git blame`` reads them:
    each run of lines one commit wrote. Raises ``BlameStopped`` after ``timeout``
    seconds, ``BlameUnanswered`` where the command cannot answer."""
    command = [GIT, "--git-dir", git_dir, "blame", "--incremental", "--no-textconv", "-L", f"{start},{end}",
               commit, "--", path]  # fmt: skip
    try:
        done = subprocess.run(command, capture_output=True, env=git_env(GIT_NO_REPLACE_OBJECTS="1"), timeout=timeout,
                              check=False, stdin=subprocess.DEVNULL)  # fmt: skip
    except subprocess.TimeoutExpired:
        raise BlameStopped(f"git blame of {path} stopped after {timeout:.1f} s") from None
    except OSError as exc:  # no git
        raise BlameUnanswered(str(exc)) from None
    if done.returncode != 0:
        said = done.stderr.decode("utf-8", "replace").strip().splitlines()
        raise BlameUnanswered(said[0] if said else f"git blame exited with {done.returncode}")
    hunks = runs(done.stdout)
    if not hunks or hunks[0][0] != start or hunks[-1][1] != end:
        raise BlameUnanswered(f"git blame's output covers {hunks[0][0] if hunks else '-'}-"
                              f"{hunks[-1][1] if hunks else '-'}, not lines {start}-{end}")  # fmt: skip
    return hunks


def runs(output: bytes) -> Hunks:
    """``git blame --incremental``'s line groups (in the order git found them) as runs of
    lines in line order, neighbouring groups of one commit joined."""
    groups = sorted((int(first), int(count), commit.decode()) for commit, first, count in _GROUP.findall(output))
    hunks: Hunks = []
    for first, count, commit in groups:
        last = first + count - 1
        if hunks and hunks[-1][2] == commit and hunks[-1][1] == first - 1:
            hunks[-1] = (hunks[-1][0], last, commit)
        else:
            hunks.append((first, last, commit))
    return hunks
