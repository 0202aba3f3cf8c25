"""Why the index holds nothing of a path an outline or a symbol was asked of: the sync
skipped the file the repository has there (generated, vendored, excluded, oversized, of
no language read, binary, minified, a symlink, a submodule) or every file under the
directory or matching the glob, or there is no file there at the commit the index is at
(one committed since: a sync brings it in); and then where the files it held there went,
moved or deleted (``went``)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator

from recalld.daemon.app import App
from recalld.daemon.logs import get_logger
from recalld.daemon.registry import RepoEntry
from recalld.daemon.repos import sync_hint
from recalld.daemon.paths import walked_dir
from recalld.daemon.retrieve import at_path, path_ok
from recalld.daemon.went import where_files_went
from recalld.ingest.collect import read_file
from recalld.ingest.gitrecords import TreeFile, TreeSkip
from recalld.ingest.gitrepo import GitRepository
from recalld.ingest.plan import Scope
from recalld.ingest.records import STRUCTURAL, stored_checkpoint
from recalld.ingest.store import MemoryFilter

log = get_logger(__name__)
EXPLAINED = 100  # the files under a directory, or matching a glob, whose skip an answer reads at most
ENDING_SO = 5  # files of a path that ends with the one asked for, that an answer names
GLOB_CHARS = "*?["
MODULE = "module"


def unsynced(entry: RepoEntry) -> str:
    """Why a registration holds no memories of its code yet: its branch has no commit (a
    repository registered before its first), or no sync has read it."""
    try:
        empty = GitRepository(entry.path).is_unborn(entry.branch)
    except Exception:  # noqa: BLE001 - the path gone: status and sync say so
        empty = False
    if empty:
        return f"branch '{entry.branch}' has no commit yet (its first is indexed when it is made)"
    return "the repository was never synced (recalld sync)"


def why_unheld(app: App, entry: RepoEntry, path: str) -> str:
    """Why ``entry``'s memories hold nothing of ``path``, as a clause for an error message."""
    commit = stored_checkpoint(app.store, Scope(entry.name, entry.branch)).get("commit")
    if not commit:
        return unsynced(entry)
    at = f"at the indexed commit {str(commit)[:8]}"
    try:
        git = GitRepository(entry.path)
        reason = _skipped(app, git, str(commit), path)
        skipped = _skipped_under(app, git, str(commit), path) if reason is None else []
    except Exception as exc:  # noqa: BLE001 - an explanation only: the answer is "not found" either way
        log.warning("could not tell why a path is not indexed", repo=entry.name, path=path, error=str(exc))
        return f"no file the index holds is there or matches it {at}"
    if reason is not None:
        return f"the sync skipped the file there {at}: {reason.replace('_', ' ')}"
    if not skipped:
        if (since := _committed_since(git, entry, str(commit), path)) is not None:
            return f"no file is there or matches it {at}; {since}"
        went = where_files_went(app, entry, path) or _ending_so(app, entry, path)
        return f"no file is there or matches it {at}" + (f": {went}" if went else "")
    if len(skipped) == 1:
        return f"the sync skipped the one file there, {skipped[0][0]}, {at}: {skipped[0][1].replace('_', ' ')}"
    reasons = Counter(why for _, why in skipped)
    said = ", ".join(f"{n} {why.replace('_', ' ')}" for why, n in reasons.most_common())
    if len(skipped) == EXPLAINED:
        return f"the sync skipped the files there {at} (the first {EXPLAINED}: {said})"
    return f"the sync skipped the {len(skipped)} files there {at}: {said}"


def held_nothing(app: App, entry: RepoEntry, pattern: str) -> str | None:
    """Why ``entry``'s live memories hold nothing at ``pattern`` (a file, a directory or a
    glob), as ``why_unheld`` says it; None where they hold something there."""
    live = MemoryFilter(repo=entry.name, branch=entry.branch, types=(STRUCTURAL,))
    if next(at_path(app.store, live, pattern, fields=("path",)), None) is not None:
        return None
    return why_unheld(app, entry, pattern)


def _ending_so(app: App, entry: RepoEntry, path: str) -> str | None:
    """The files the index holds whose path ends with ``path`` (an agent's ``api.py`` or
    ``flask/app.py`` for ``src/requests/api.py``, ``src/flask/app.py``), as a question; None."""
    if any(c in path for c in GLOB_CHARS) or not path.strip("/"):
        return None
    tail = "/" + path.strip("/")
    modules = MemoryFilter(repo=entry.name, branch=entry.branch, types=(STRUCTURAL,), kinds=(MODULE,))
    found = sorted({str(p.payload.get("path")) for p in app.store.scroll(modules, fields=("path",))
                    if str(p.payload.get("path")).endswith(tail)})  # fmt: skip
    if not found:
        return None
    more = f" (and {len(found) - ENDING_SO} more)" if len(found) > ENDING_SO else ""
    return f"did you mean {' or '.join(found[:ENDING_SO])}{more}?"


def _committed_since(git: GitRepository, entry: RepoEntry, commit: str, pattern: str) -> str | None:
    """Where the branch has moved on from the indexed ``commit`` to one that has a file at
    ``pattern``, that it was committed since and a sync brings it in; None otherwise."""
    tip = git.branch_tip(entry.branch)
    if tip is None or tip == commit:
        return None
    if git.lookup(tip, pattern) is None and next(_files_under(git, tip, pattern), None) is None:
        return None
    return f"one is there on {entry.branch} at {tip[:8]}, committed since ({sync_hint(entry.name)})"


def _files_under(git: GitRepository, commit: str, pattern: str) -> Iterator[TreeFile | TreeSkip]:
    """The files of ``commit`` under the directory ``pattern`` or matching the glob."""
    return (found for found in git.walk_tree(commit, walked_dir(pattern)) if path_ok(found.path, pattern))


def _skipped_under(app: App, git: GitRepository, commit: str, pattern: str) -> list[tuple[str, str]]:
    """The files under the directory ``pattern`` or matching the glob, each with the
    reason a sync skips it (the first ``EXPLAINED``); none where none is there."""
    skipped: list[tuple[str, str]] = []
    for found in _files_under(git, commit, pattern):
        skipped.append((found.path, _reason(app, git, commit, found)))
        if len(skipped) == EXPLAINED:
            break
    return skipped


def _skipped(app: App, git: GitRepository, commit: str, path: str) -> str | None:
    """The reason a sync skips the file at ``path`` of ``commit`` (as its collector reads
    it: ``collect.read_file``), or None where there is no file."""
    found = git.lookup(commit, path)
    return None if found is None else _reason(app, git, commit, found)


def _reason(app: App, git: GitRepository, commit: str, found: TreeFile | TreeSkip) -> str:
    if isinstance(found, TreeSkip):
        return found.reason  # symlink, submodule: never read
    path = found.path
    options = app.config.index_options()
    read = read_file(git, commit, path, found.blob, options, check_attributes=True, globs=options.memories.globs)
    return read.unread or "read, but not synced since (recalld sync)"
