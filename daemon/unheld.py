"""Why the index holds nothing of a path an outline or a symbol was asked of: the sync
skipped the file the repository has there (generated, vendored, excluded, oversized, of
no language read, binary, minified, a symlink, a submodule), or there is no file there at
the commit the index is at (one committed since: a sync brings it in)."""

from __future__ import annotations

from recalld.daemon.app import App
from recalld.daemon.logs import get_logger
from recalld.daemon.registry import RepoEntry
from recalld.ingest.collect import read_file
from recalld.ingest.gitrepo import GitRepository, TreeSkip
from recalld.ingest.plan import Scope
from recalld.ingest.records import stored_checkpoint

log = get_logger(__name__)


def why_unheld(app: App, entry: RepoEntry, path: str) -> str:
    """Why ``entry``'s memories hold nothing of ``path``, as a clause for an error message."""
    commit = stored_checkpoint(app.store, Scope(entry.name, entry.branch)).get("commit")
    if not commit:
        return "the repository was never synced (recalld sync)"
    at = f"at the indexed commit {str(commit)[:8]}"
    try:
        reason = _skipped(app, GitRepository(entry.path), str(commit), path)
    except Exception as exc:  # noqa: BLE001 - an explanation only: the answer is "not found" either way
        log.warning("could not tell why a path is not indexed", repo=entry.name, path=path, error=str(exc))
        return f"no file the index holds is there or matches it {at}"
    if reason is None:
        return f"no file is there or matches it {at}"
    return f"the sync skipped the file there {at}: {reason.replace('_', ' ')}"


def _skipped(app: App, git: GitRepository, commit: str, path: str) -> str | None:
    """The reason a sync skips the file at ``path`` of ``commit`` (as its collector reads
    it: ``collect.read_file``), or None where there is no file."""
    found = git.lookup(commit, path)
    if found is None:
        return None
    if isinstance(found, TreeSkip):
        return found.reason  # symlink, submodule: never read
    options = app.config.index_options()
    read = read_file(git, commit, path, found.blob, options, check_attributes=True, globs=options.memories.globs)
    return read.unread or "read, but not synced since (recalld sync)"
