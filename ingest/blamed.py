"""Writers by git blame, for the code a search of the whole history leaves without one.

The history read and the search past it (``authorship``) give a version the newest
commit that produced it, each commit read as that commit reads (its own attributes).
Code that no commit produced as it is read now is left: a file only a ``.gitattributes``
made readable (``*.inc linguist-language=Python``), a header it made C++ (overloads then
named by their types). Where that search read the first-parent history down to its root
(in a shallow clone, its boundary: what blame gives the boundary commit, older code that
commit did not write, stays without), each such live version gets the author of the
latest commit that wrote one of its lines at the indexed commit, as git blame says, and
that commit as its ``written_in``; no task (the commit's task memory does not list it).
A sync that opens versions in files none of its commits changed owes the history read
(``sync``), so a first index and a sync give the same.

Each file is blamed once, the lines of all its versions, for at most
``BLAME_FILE_SECONDS`` (git's command, stopped after that: the file's versions stay
without a writer, and a later history read tries again); ``stop`` is asked between files.
"""

from __future__ import annotations

import time
from collections import defaultdict
from collections.abc import Callable
from functools import partial

from recalld.daemon.logs import get_logger
from recalld.ingest.gitblame import BlameStopped, seconds_before
from recalld.ingest.gitrepo import GitRepository
from recalld.ingest.plan import Scope
from recalld.ingest.result import ProgressSink
from recalld.ingest.store import MemoryFilter, Store
from recalld.parsers.base import STRUCTURAL

log = get_logger("recalld.sync")

BLAME_FILE_SECONDS = 10.0
BLAME_LABEL = "writers by git blame"  # its progress bar

Span = tuple[str, int, int]  # a version's id, first and last line


def blame_leftovers(
    store: Store, git: GitRepository, scope: Scope, commit: str, *, stop: Callable[[], bool], progress: ProgressSink,
) -> tuple[int, bool]:
    """Gives each live structural version with neither an author nor a task (a merge's
    task alone names the merge, and stays) the writer git blame names at ``commit``, the
    indexed one, whose lines the live versions hold. Returns how many got one, and False
    if ``stop`` stopped it."""
    flt = MemoryFilter(repo=scope.repo, branch=scope.branch, types=(STRUCTURAL,))
    by_path: defaultdict[str, list[Span]] = defaultdict(list)
    for point in store.scroll(flt, fields=("path", "start_line", "end_line", "author", "task_id")):
        payload = point.payload
        if not payload.get("author") and not payload.get("task_id") and payload.get("start_line"):
            by_path[payload["path"]].append((point.id, int(payload["start_line"]), int(payload["end_line"])))
    if not by_path:
        return 0, True
    given: defaultdict[tuple[str, str], list[str]] = defaultdict(list)  # (commit, author) → ids
    unanswered, complete = 0, True
    progress.begin(BLAME_LABEL, len(by_path))
    try:
        for n, (path, spans) in enumerate(sorted(by_path.items())):
            if n and stop():
                complete = False
                break
            found = _blame(git, commit, path, spans)
            unanswered += len(spans) - sum(map(len, found.values()))
            for key, ids in found.items():
                given[key].extend(ids)
            progress.advance(1)
    finally:
        progress.end()
    for (written_in, author), ids in sorted(given.items()):
        store.set_payload(sorted(ids), {"author": author, "written_in": written_in})
    count = sum(map(len, given.values()))
    log.info("writers found by git blame", repo=scope.repo, branch=scope.branch, files=len(by_path),
             versions=count, unanswered=unanswered, complete=complete)  # fmt: skip
    return count, complete


def _blame(git: GitRepository, commit: str, path: str, spans: list[Span]) -> dict[tuple[str, str], list[str]]:
    """(commit, author) → the ids of ``spans`` (all of ``path``) whose latest line is that
    commit's (``GitHistory.last_changes``), within ``BLAME_FILE_SECONDS`` for the file."""
    left = partial(seconds_before, time.monotonic() + BLAME_FILE_SECONDS, path)
    try:
        changes = git.last_changes(commit, path, [(s, e) for _, s, e in spans], left)
    except BlameStopped as exc:
        log.info("git blame stopped: those versions keep no writer", path=path, versions=len(spans), reason=str(exc))
        return {}
    found: defaultdict[tuple[str, str], list[str]] = defaultdict(list)
    boundaries = git.shallow_boundaries  # blame gives them what came before them, which they did not write
    for (version, _, _), info in zip(spans, changes, strict=True):
        if info is not None and info.author and info.id not in boundaries:
            found[(info.id, info.author)].append(version)
    return found
