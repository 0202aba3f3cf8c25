"""Memory-poisoning guard: memories of branches the config does not trust.

A registered repo whose tracked branch matches ``[trust] untrusted_branches`` (globs such
as ``"pr/*"`` or ``"dependabot/*"``; ``*`` also spans ``/``; a remote-tracking branch is
matched without its remote too) is indexed like any other,
with full provenance, but every memory carries ``untrusted = 1`` so that default search
can leave it out. The checkpoint records the trust it was written with: when the config
changes, the next sync re-marks the branch's memories, old versions included.
"""

from __future__ import annotations

from collections.abc import Sequence
from fnmatch import fnmatchcase
from typing import Any

from recalld.ingest.plan import Scope
from recalld.ingest.records import checkpoint_point
from recalld.ingest.store import MemoryFilter, Store

HEADS = "refs/heads/"
CHUNK = 1000


def branch_untrusted(branch: str, patterns: Sequence[str], *, remote_tracking: bool = False) -> bool:
    """Whether ``branch`` (short or ``refs/heads/`` name) matches one of ``patterns``;
    a remote-tracking ``origin/pr/7`` matches as ``origin/pr/7`` and as ``pr/7``."""
    name = branch.removeprefix(HEADS)
    names = [name, name.split("/", 1)[-1]] if remote_tracking else [name]
    return any(fnmatchcase(n, pattern.removeprefix(HEADS)) for n in names for pattern in patterns)


def apply_trust(store: Store, scope: Scope, checkpoint: dict[str, Any]) -> int:
    """Re-mark a branch's memories whose trust differs from the scope's; how many."""
    if not checkpoint or int(checkpoint.get("untrusted") or 0) == int(scope.untrusted):
        return 0
    flt = MemoryFilter(repo=scope.repo, branch=scope.branch, deprecated=None)
    ids = [point.id for point in store.scroll(flt, fields=())]
    for start in range(0, len(ids), CHUNK):
        store.set_payload(ids[start : start + CHUNK], {"untrusted": int(scope.untrusted)})
    commit, pending, extraction = checkpoint.get("commit"), checkpoint.get("pending"), checkpoint.get("extraction")
    owed, stamp = bool(checkpoint.get("history_owed")), checkpoint.get("sync_stamp")
    store.upsert([checkpoint_point(scope, commit=commit, pending=pending, extraction=extraction, history_owed=owed,
                                   sync_stamp=stamp, shallow=checkpoint.get("shallow"),
                                   attributes=checkpoint.get("attributes"),
                                   pending_after=checkpoint.get("pending_after"),
                                   provenance=checkpoint.get("provenance"),
                                   history_asks=int(checkpoint.get("history_asks") or 0))])  # fmt: skip
    return len(ids)
