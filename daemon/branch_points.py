"""The points a store holds of a repository at branches its registration follows no more:
listed by branch, deleted by ``recalld repo remove NAME --branch BRANCH`` (on a shared
store with ``--purge``: other writers may follow that branch), and on a store of the
daemon's own deleted before a sync, where nothing else can have written them (what a
``repo set --branch`` or a followed rename stopped midway left: ``repos.left_behind``)."""

from __future__ import annotations

import argparse
import shlex
import weakref
from collections import Counter
from dataclasses import replace
from typing import Any

from recalld.daemon.logs import get_logger
from recalld.ingest.errors import RecalldError
from recalld.ingest.store import MemoryFilter

log = get_logger("recalld.repos")
# The registrations (repository, branch) ``drop_strays`` found clean, by store: strays are what
# a command or a sync stopped midway left, so a process checks each once (two counts of its
# points: 15-30 ms for 33k of a 100k-memory store), not at every sync.
_CLEAN: weakref.WeakKeyDictionary[Any, set[tuple[str, str]]] = weakref.WeakKeyDictionary()


def held_branches(store: Any, repo: str) -> Counter[str]:
    """The branches ``store`` holds points of ``repo`` at, each with how many of its live
    memories, as status counts them (its checkpoint and closed versions not counted; a
    branch with none is listed with 0)."""
    held: Counter[str] = Counter()
    every = MemoryFilter(record=None, repo=repo, deprecated=None)
    for point in store.scroll(every, fields=("branch", "record", "deprecated")):
        branch = point.payload.get("branch")
        if branch:
            held[str(branch)] += point.payload.get("record") == "memory" and not point.payload.get("deprecated")
    return held


def drop_strays(app: Any, entry: Any) -> int:
    """On a store of the daemon's own (not shared), the points of ``entry``'s repository at
    a branch it does not follow deleted, and how many memories went. Only where the
    repository holds points beyond its followed branch's and its manual memories (two
    counts; the common case reads no point), once a process (``_CLEAN``)."""
    clean = _CLEAN.setdefault(app.store, set())
    if app.store.shared or (entry.name, entry.branch) in clean:
        return 0
    every = MemoryFilter(record=None, repo=entry.name, deprecated=None)
    if app.store.count(every) == app.store.count(replace(every, followed=((entry.name, entry.branch),))):
        clean.add((entry.name, entry.branch))
        return 0
    dropped = 0
    for branch in sorted(held_branches(app.store, entry.name)):
        if branch != entry.branch:
            count = app.indexer.remove_repo(entry.name, branch=branch)
            dropped += count
            log.warning("deleted the memories of a branch the registration follows no more (a repo set or a rename"
                        " stopped midway left them)", repo=entry.name, branch=branch, memories=count)  # fmt: skip
    clean.add((entry.name, entry.branch))
    return dropped


def remove_branch(ctx: Any, args: argparse.Namespace) -> int:
    """``recalld repo remove NAME --branch BRANCH``: the memories of ``NAME`` at a branch
    it does not follow deleted, its registration and manual memories kept; on a shared
    store only with ``--purge`` (for every writer)."""
    name, branch, quoted = args.name, args.branch, shlex.quote(args.name)
    entry = ctx.app.registry.find(name)
    if entry is not None and entry.branch == branch:
        raise RecalldError(f"{name} follows {branch!r}: `recalld repo set {quoted} --branch OTHER` tracks another"
                           f" branch, `recalld repo remove {quoted}` removes the repository", exit_code=2)  # fmt: skip
    if ctx.daemon():  # before the store is opened: the daemon holds it
        raise RecalldError("stop the daemon before removing a branch's memories (it owns the store)")
    held = held_branches(ctx.app.store, name)
    if entry is None and not held:
        ctx.app.registry.get(name)  # an unknown name is the first thing to hear about
    if branch not in held:
        there = ", ".join(f"{b} ({n} memories)" for b, n in sorted(held.items())) or "none"
        raise RecalldError(f"the store holds nothing of {name} at {branch!r} (its branches there: {there})")
    if ctx.app.store.shared and not args.purge:
        raise RecalldError(f"the {held[branch]} memories of {name} at {branch} are in a shared collection, whose other"
                           f" writers may follow {branch}: add --purge to delete them for every writer")  # fmt: skip
    closed = ctx.app.indexer.remove_repo(name, branch=branch) - held[branch]
    history = f" and {closed} closed versions" if closed else ""
    kept = "its registration and manual memories kept" if entry is not None else "its manual memories kept"
    print(f"removed the {held[branch]} memories of {name} at {branch}{history} ({kept})")
    return 0


def followed(app: Any, entry: Any, *, progress: Any) -> Any:
    """``entry`` made ready for its sync: its branch followed to the name git renamed it to
    (``repos.follow_renamed``), then what a store of its own holds of its other branches
    deleted (``drop_strays``). The registration as the sync follows it."""
    from recalld.daemon.repos import follow_renamed

    entry = follow_renamed(app, entry, progress=progress)
    drop_strays(app, entry)
    return entry


def other_branches(store: Any, entry: Any) -> dict[str, int]:
    """The branches but ``entry``'s own that ``store`` holds ``entry``'s repository at (by
    their checkpoints: a few points), each with its live memories: on a shared store other
    writers' (a CI runner's feature branch) and what a rename or ``repo set --branch`` left
    for them; on the daemon's own, what one stopped midway left until the next sync."""
    found: dict[str, int] = {}
    for point in store.scroll(MemoryFilter(record="checkpoint", repo=entry.name, deprecated=None), fields=("branch",)):
        branch = str(point.payload.get("branch") or "")
        if branch and branch != entry.branch:
            found[branch] = store.count(MemoryFilter(repo=entry.name, branch=branch))
    return dict(sorted(found.items()))
