"""Who last changed a memory's code, by git blame: ``last_changed`` (commit, time, author,
summary) on ``symbol --blame``'s versions and on ``outline --blame``'s files and symbols
(the API's and MCP's ``blame``), read at the commit whose lines the answer gives. The
versions of one file are blamed at once, files up to ``BLAME_WORKERS`` at a time, and an
answer spends at most ``BLAME_SECONDS`` in blame (``ingest/gitblame.py``)."""

from __future__ import annotations

import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from functools import partial
from typing import TYPE_CHECKING, Any

from recalld.ingest.cores import available_cores
from recalld.ingest.gitblame import BlameStopped, Hunks, seconds_before
from recalld.ingest.gitrecords import CommitInfo
from recalld.ingest.plan import Scope
from recalld.ingest.records import stored_checkpoint

if TYPE_CHECKING:
    from recalld.daemon.app import App
    from recalld.daemon.query import AsOf
    from recalld.ingest.gitrepo import GitRepository

BLAMED_MAX = 10  # versions of a symbol an answer blames at most (one git blame a file of them)
# git blame's time an answer spends at most: git's command is stopped when it is spent (where
# libgit2 blames instead, its call runs to its end). A file's blame walks its history back to
# its oldest line (ingest/gitblame.py).
BLAME_SECONDS = 10.0
BLAME_WORKERS = min(4, available_cores())  # files an answer blames at once (a git process each)


def with_last_change(
    app: App, entry: Any, records: list[dict[str, Any]], at: AsOf | None, notes: list[str]
) -> None:
    """Set ``last_changed`` (commit, time, author, summary) on the live versions among
    ``records`` (with ``at``, on those valid then), the first ``BLAMED_MAX``: the latest
    commit that wrote one of its lines at the indexed commit (``at``'s state, where the
    lines it gives were read), as git blame reads them. A version's ``author`` is that
    of the commit that produced it, as the syncs know it (for what a branch's first sync
    found, from the commit history read, or none); blame names who last wrote its lines
    (None where git cannot say)."""
    live = records if at is not None else [r for r in records if not r["deprecated"]]
    commit = _blamed_state(app, entry, at)
    git = _git_for_blame(entry, at, notes)
    if git is None:
        return
    deadline = time.monotonic() + BLAME_SECONDS
    blamed = live[:BLAMED_MAX]
    by_path: dict[str, list[dict[str, Any]]] = {}
    for record in blamed:
        by_path.setdefault(record["path"], []).append(record)
    groups = list(by_path.items())
    stopped = _run_blames([partial(_blame_versions, git, commit, path, versions, deadline)
                           for path, versions in groups])  # fmt: skip
    left = sum(len(versions) for (_, versions), stop in zip(groups, stopped, strict=True) if stop)
    if left:
        notes.append(_blame_stopped(left, len(blamed), "versions"))
    if len(live) > BLAMED_MAX:
        notes.append(f"last_changed is given for the first {BLAMED_MAX} of {len(live)} versions: ask with a path"
                     " for others")


def _blame_versions(
    git: GitRepository, commit: str | None, path: str, versions: list[dict[str, Any]], deadline: float
) -> None:
    """``last_changed`` of ``versions``, all of ``path`` (``GitHistory.last_changes``: a
    file's history walked once). ``BlameStopped`` at ``deadline``."""
    if commit is None:
        seconds_before(deadline, path)
        changes: list[CommitInfo | None] = [None] * len(versions)
    else:
        spans = [(v["start_line"], v["end_line"]) for v in versions]
        changes = git.last_changes(commit, path, spans, partial(seconds_before, deadline, path))
    for version, info in zip(versions, changes, strict=True):
        version["last_changed"] = commit_record(info) if info else None


def _hunks(git: GitRepository, commit: str | None, path: str, start: int | None, end: int | None,
           deadline: float) -> Hunks | None:  # fmt: skip
    """``blame_hunks`` in the time left before ``deadline`` (``BlameStopped`` when none is)."""
    left = seconds_before(deadline, path)
    if commit is None:
        return None
    return git.blame_hunks(commit, path, start, end, timeout=left)


def _blamed_state(app: App, entry: Any, at: AsOf | None) -> str | None:
    """The commit whose lines an answer gives, and blame reads: ``at``'s indexed state, else
    the branch's indexed commit (None: never synced)."""
    if at is not None:
        commit = at.valid_at.state
    else:
        commit = stored_checkpoint(app.store, Scope(entry.name, entry.branch)).get("commit")
    return str(commit) if commit else None


def _git_for_blame(entry: Any, at: AsOf | None, notes: list[str]) -> GitRepository | None:
    """The repository to blame in: the one an as-of answer opened, else opened now."""
    if at is not None and at.git is not None:
        return at.git
    from recalld.ingest.gitrepo import GitRepository  # pygit2: loaded when blame is asked for

    try:
        return GitRepository(entry.path)
    except Exception as exc:  # noqa: BLE001 - the memories are the answer; blame is what git can add
        notes.append(f"git blame could not open {entry.path}: {exc}")
        return None


def _blame_stopped(left: int, total: int, what: str) -> str:
    return (f"git blame stopped after {BLAME_SECONDS:g} s: {left} of {total} {what} are without last_changed"
            " (ask for fewer)")


def with_file_blame(app: App, entry: Any, files: list[dict[str, Any]], at: AsOf | None, notes: list[str]) -> None:
    """``outline``'s blame: each file blamed once, whole, at the indexed commit (``at``'s
    state); the file and each of its symbols get ``last_changed``, the latest commit that
    wrote one of its lines (None where git cannot say), as ``with_last_change`` gives it."""
    commit = _blamed_state(app, entry, at)
    git = _git_for_blame(entry, at, notes)
    if git is None:
        return
    deadline = time.monotonic() + BLAME_SECONDS
    stopped = _run_blames([partial(_blame_file, git, commit, file, deadline) for file in files])
    if any(stopped):
        notes.append(_blame_stopped(sum(stopped), len(files), "files"))


def _blame_file(git: GitRepository, commit: str | None, file: dict[str, Any], deadline: float) -> None:
    """``last_changed`` of ``file`` (an outline's) and its symbols, of one blame of it whole."""
    hunks = _hunks(git, commit, file["path"], None, None, deadline) or []
    for holder in [file, *file["symbols"]]:
        start, end = holder.get("start_line") or 1, holder.get("end_line") or float("inf")
        info = git.last_change_in(hunks, start, end)
        holder["last_changed"] = commit_record(info) if info else None


def _run_blames(jobs: list[Callable[[], None]]) -> list[bool]:
    """Each job (a file's blame, and what it sets) run, ``BLAME_WORKERS`` at a time: git's
    blame commands are processes of their own, each walking one file's history; whether
    each was stopped (``BlameStopped``: the answer's time for blame was spent)."""

    def run(job: Callable[[], None]) -> bool:
        try:
            job()
        except BlameStopped:
            return True
        return False

    if len(jobs) <= 1 or BLAME_WORKERS <= 1:
        return [run(job) for job in jobs]
    with ThreadPoolExecutor(max_workers=min(BLAME_WORKERS, len(jobs)), thread_name_prefix="recalld-blame") as pool:
        return list(pool.map(run, jobs))


def commit_record(info: CommitInfo) -> dict[str, Any]:
    """A commit as answers give one (``changes``' newest commits, ``last_changed``)."""
    return {"commit": info.id, "summary": info.summary, "author": info.author, "time": info.time}
