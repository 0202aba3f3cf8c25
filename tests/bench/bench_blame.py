"""Benchmark: git blame by git's command against libgit2's, and a file's versions blamed at once.

Not part of the test run. Makes a history (``git fast-import``) of ``--commits`` commits
over ``--files`` files of ``--lines`` lines, each commit editing a line of one to three
files (or takes ``--repo``), then times, best of ``--rounds``:

- a whole file blamed by libgit2 (``pygit2``) and by git's command as ``GitRepository.
  blame_hunks`` runs it, and the same after ``git commit-graph write --changed-paths``
  (made repositories only; git uses the graph where ``git gc`` wrote it);
- ten ten-line ranges of one file (ten versions of a symbol, ``symbol --blame``): ten
  libgit2 blames, one at a time as answers asked before, against one command over the
  lines from the first range to the last, as they ask now;
- ten whole files (an ``outline --blame``), git's command on one at a time against
  ``BLAME_WORKERS`` at once, as answers run them (made repositories only).

Each figure is followed by how many lines the two ways give to different commits: none
in a made-up history; in a real one a few, where a line repeats nearby (``) -> None:``)
and the two diffs pair it with another copy.

    python tests/bench/bench_blame.py [--commits 20000] [--files 300] [--lines 400] [--repo PATH --path FILE]
"""

from __future__ import annotations

import argparse
import random
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path

import pygit2

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from recalld.daemon import blame  # noqa: E402
from recalld.ingest.gitrepo import GitRepository  # noqa: E402


def make_history(repo: Path, commits: int, files: int, lines: int, seed: int = 0) -> None:
    """A history written by ``git fast-import``: the first commit adds every file, each
    later one edits a random line of one to three random files."""
    rnd = random.Random(seed)
    contents = {f"pkg{i % 20}/mod{i}.py": [f"value_{j} = {j}  # of {i}" for j in range(lines)] for i in range(files)}
    paths = sorted(contents)
    subprocess.run(["git", "init", "-q", "-b", "main", str(repo)], check=True)
    stream: list[bytes] = []
    for n in range(commits):
        touched = paths if n == 0 else rnd.sample(paths, rnd.choice((1, 1, 2, 3)))
        message = f"commit {n}".encode()
        stream.append(b"commit refs/heads/main\nmark :%d\ncommitter Bench <bench@example.invalid> %d +0000\n"
                      b"data %d\n%s\n" % (n + 1, 1_600_000_000 + 60 * n, len(message), message))  # fmt: skip
        if n:
            stream.append(b"from :%d\n" % n)
        for path in touched:
            if n:
                at = rnd.randrange(lines)
                contents[path][at] = f"value_{at} = {n}  # edited"
            data = ("\n".join(contents[path]) + "\n").encode()
            stream.append(b"M 100644 inline %s\ndata %d\n%s\n" % (path.encode(), len(data), data))
    subprocess.run(["git", "-C", str(repo), "fast-import", "--quiet"], input=b"".join(stream), check=True)
    subprocess.run(["git", "-C", str(repo), "repack", "-adq"], check=True)


def best(rounds: int, work: Callable[[], object]) -> tuple[float, object]:
    times, result = [], None
    for _ in range(rounds):
        started = time.perf_counter()
        result = work()
        times.append(time.perf_counter() - started)
    return min(times), result


def libgit2(
    repo: pygit2.Repository, commit: str, path: str, start: int | None = None, end: int | None = None
) -> dict[int, str]:
    """Each line's commit, as libgit2 blames it."""
    bounds = {} if start is None else {"min_line": start, "max_line": end}
    return {h.final_start_line_number + i: str(h.final_commit_id)
            for h in repo.blame(path, newest_commit=commit, **bounds) for i in range(h.lines_in_hunk)}  # fmt: skip


def by_line(hunks: list[tuple[int, int, str]] | None) -> dict[int, str]:
    return {line: commit for first, last, commit in hunks or [] for line in range(first, last + 1)}


def disagree(one: dict[int, str], other: dict[int, str]) -> int:
    """Lines the two give to different commits (or one gives none)."""
    return sum(one.get(n) != other.get(n) for n in one.keys() | other.keys())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--commits", type=int, default=20_000)
    parser.add_argument("--files", type=int, default=300)
    parser.add_argument("--lines", type=int, default=400)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--repo", type=Path, help="an existing repository (its HEAD) instead of a made one")
    parser.add_argument("--path", help="the file of --repo to blame")
    args = parser.parse_args()
    if args.repo is not None and not args.path:
        parser.error("--repo needs --path: the file to blame")
    with tempfile.TemporaryDirectory(prefix="recalld-blame-") as tmp:
        repo_path = args.repo
        path = args.path
        if repo_path is None:
            repo_path = Path(tmp) / "repo"
            started = time.perf_counter()
            make_history(repo_path, args.commits, args.files, args.lines)
            print(f"history: {args.commits} commits over {args.files} files of {args.lines} lines, made in "
                  f"{time.perf_counter() - started:.1f} s")  # fmt: skip
            path = "pkg3/mod3.py"
        raw = pygit2.Repository(str(repo_path))
        git = GitRepository(repo_path)
        commit = str(raw.revparse_single("HEAD").peel(pygit2.Commit).id)
        size = len(raw.revparse_single(f"HEAD:{path}").data.splitlines())
        rows: list[tuple[str, str]] = []

        def whole(label: str) -> None:
            lib, by_lib = best(args.rounds, lambda: libgit2(raw, commit, path))
            cmd, hunks = best(args.rounds, lambda: git.blame_hunks(commit, path))
            differ = disagree(by_lib, by_line(hunks))  # type: ignore[arg-type]
            rows.append((f"whole file ({size} lines), {label}: libgit2 / git's command",
                         f"{lib:.3f} / {cmd:.3f} s ({lib / cmd:.1f}x), {differ} lines otherwise"))  # fmt: skip

        whole("no commit-graph" if args.repo is None else "as the repository is")
        if args.repo is None:
            subprocess.run(["git", "-C", str(repo_path), "commit-graph", "write", "--reachable", "--changed-paths"],
                           check=True, capture_output=True)  # fmt: skip
            whole("commit-graph with changed paths")
        step = max(1, size // 10)
        ranges = [(s, min(size, s + 9)) for s in range(1, size + 1, step)][:10]
        separate, lines = best(args.rounds, lambda: [libgit2(raw, commit, path, s, e) for s, e in ranges])
        at_once, hunks = best(args.rounds, lambda: git.blame_hunks(commit, path, ranges[0][0], ranges[-1][1]))
        joined = by_line(hunks)  # type: ignore[arg-type]
        found_apart: list[dict[int, str]] = lines  # type: ignore[assignment]
        differ = sum(disagree(found, {n: joined.get(n, "") for n in found}) for found in found_apart)
        rows.append((f"{len(ranges)} ranges of one file: one libgit2 blame each / one command over them",
                     f"{separate:.3f} / {at_once:.3f} s ({separate / at_once:.1f}x), {differ} lines otherwise"))
        if args.repo is None:
            files = [f"pkg{i % 20}/mod{i}.py" for i in range(10)]
            jobs = [partial(git.blame_hunks, commit, p) for p in files]
            workers = blame.BLAME_WORKERS
            one, _ = best(args.rounds, lambda: [job() for job in jobs])
            many, _ = best(args.rounds, lambda: blame._run_blames(jobs))  # type: ignore[arg-type]
            rows.append((f"{len(files)} whole files: one at a time / {workers} at once (BLAME_WORKERS)",
                         f"{one:.3f} / {many:.3f} s ({one / many:.1f}x)"))  # fmt: skip
        width = max(len(label) for label, _ in rows)
        for label, figure in rows:
            print(f"{label:<{width}}  {figure}")


if __name__ == "__main__":
    main()
