"""Which commit of a sync's window rewrote a task memory's commit that left the branch
(an amend, a rebase, a cherry-pick): its ``superseded_by`` (ingest/tasks.py)."""

from __future__ import annotations

from recalld.ingest.gitnames import subject_of
from recalld.ingest.gitrepo import GitRepository
from recalld.ingest.keyed import unique_by
from recalld.ingest.plan import Scope
from recalld.ingest.records import task_memory_id
from recalld.ingest.store import StoredPoint


def rewritten_by(git: GitRepository, scope: Scope, removed: list[StoredPoint], window: list[str]) -> dict[str, str]:
    """removed memory id → task memory id of the commit that rewrote it, where one is clear.

    Patch ids are computed only for commits whose changed paths some commit on the
    other side shares (``patch_paths``): a reset back past large commits would
    otherwise diff every blob of each, to match against a window of one commit."""
    gone = {p.payload["commit"] for p in removed}
    paths = {c: git.patch_paths(c) for c in sorted(gone) if git.has_commit(c)}
    window_paths = {c: git.patch_paths(c) for c in window}
    shared = {p for p in window_paths.values() if p} & {p for p in paths.values() if p}
    patches = {c: git.patch_id(c) if window_paths[c] in shared else None for c in window}
    by_patch = unique_by([c for c in window if patches[c]], patches.__getitem__)
    by_who = unique_by([git.commit_details(c) for c in window], lambda d: (subject_of(d.message), d.author))
    found: dict[str, str] = {}
    for point in removed:
        commit = point.payload["commit"]
        patch = git.patch_id(commit) if paths.get(commit) in shared else None
        match = by_patch.get(patch) if patch else None
        if match is None:
            same = by_who.get((point.payload.get("subject") or "", point.payload.get("author") or ""))
            match = same.id if same else None
        if match is not None:
            found[point.id] = task_memory_id(scope, match)
    return found
