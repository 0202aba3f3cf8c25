"""The repo commands: register a repository, list, re-point and remove registrations.

A registration names one repository's branch. Its path is the repository's top level (a
work tree's root, a linked worktree's own, a bare repository's git dir), however it was
reached (a subdirectory, a symlink), and one repository's branch is registered once:
each registration keeps memories of its own, so a second would show every memory twice.
"""

from __future__ import annotations

import argparse
import shlex
import sys
from collections.abc import Iterable
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from recalld.daemon.commands import emit_json
from recalld.daemon.logs import get_logger
from recalld.daemon.registry import check_name
from recalld.daemon.terminal import one_line
from recalld.ingest.errors import RecalldError

if TYPE_CHECKING:
    from recalld.daemon.registry import RepoEntry, RepoRegistry
    from recalld.ingest.gitrepo import GitRepository
    from recalld.ingest.rebranch import Carried
    from recalld.ingest.result import ProgressSink

EXIT_OK = 0
log = get_logger("recalld.repos")


def repo_add(ctx: Any, args: argparse.Namespace) -> int:
    git, path = opened(args.path)
    branch = args.branch or git.current_branch()
    if args.branch and not _there(git, branch):
        raise no_branch(git, branch, path, hint="a local branch, or remote/branch")
    # an empty --name is refused as a name, not taken for none given
    name = args.name if args.name is not None else path.name.removesuffix(".git")
    check_name(name)
    refuse_twin(ctx.registry, git, branch, name=name)
    before = ctx.registry.find(name)
    entry = ctx.registry.add(name, str(path), branch)
    if before is not None:
        print(f"already registered {entry.name}: {one_line(entry.path)} @ {entry.branch}")
        return EXIT_OK
    where = f"{one_line(entry.path)} @ {entry.branch}"
    sync = f"run `recalld sync {shlex.quote(entry.name)}`"
    then = "the running daemon syncs it within seconds" if ctx.daemon() else sync
    print(f"registered {entry.name}: {where} ({then})")
    return EXIT_OK


def repo_list(ctx: Any, args: argparse.Namespace) -> int:
    entries = ctx.registry.all()
    if not entries and not args.json:
        print("no repositories registered (recalld repo add PATH)", file=sys.stderr)
    for entry in entries:
        if args.json:
            emit_json({"name": entry.name, "path": entry.path, "branch": entry.branch})
        else:
            print(f"{entry.name}\t{entry.branch}\t{one_line(entry.path)}")
    return EXIT_OK


def repo_remove(ctx: Any, args: argparse.Namespace) -> int:
    """Unregister a repository and delete its memories, manual ones too. A shared store (a
    server's collection) keeps them for its other writers unless ``--purge`` is given,
    which also deletes what it holds of a name registered here no more. With ``--branch``
    only the memories of a branch it does not follow (``branch_points.remove_branch``)."""
    from recalld.ingest.store import MemoryFilter

    if args.branch is not None:
        from recalld.daemon.branch_points import remove_branch

        return remove_branch(ctx, args)

    memories = MemoryFilter(repo=args.name, deprecated=None)
    registered = ctx.app.registry.find(args.name) is not None
    if not registered and not (args.purge and ctx.app.store.count(memories)):
        ctx.app.registry.get(args.name)  # an unknown name is the first thing to hear about
    if ctx.daemon():
        raise RecalldError("stop the daemon before removing a repository (it owns the store)")
    manual = ctx.app.store.count(replace(memories, kinds=("manual",)))
    if ctx.app.store.shared and not args.purge:  # other writers' memories of it as well
        count = ctx.app.store.count(memories)
        ctx.app.registry.remove(args.name)
        print(f"removed {args.name}; its {count} memories ({manual} manual) stay in the shared collection for its"
              f" other writers (`recalld repo remove {shlex.quote(args.name)} --purge` deletes them for every"
              " writer)")  # fmt: skip
        return EXIT_OK
    removed = ctx.app.indexer.remove_repo(args.name)
    if registered:
        ctx.app.registry.remove(args.name)
    print(f"removed {args.name} and its {removed} memories ({manual} manual)")
    return EXIT_OK


def repo_set(ctx: Any, args: argparse.Namespace) -> int:
    """Re-point a registration (a repository moved or cloned again, its branch renamed or
    deleted) and keep its manual memories. Another path keeps every memory: the next sync
    compares them with the branch there, as after a reset. Another branch that continues
    the old one (``continues``) has the old one's memories carried to it, history and all
    (``ingest/rebranch``); one that does not has them dropped: the next sync indexes its
    tip (its texts' vectors come from the embedding cache)."""
    entry = ctx.registry.get(args.name)
    if args.path is None and args.branch is None:
        raise RecalldError(f"say what to change of {entry.name}: --path PATH, --branch BRANCH or both", exit_code=2)
    git, path = opened(args.path if args.path is not None else entry.path)
    branch = args.branch or entry.branch
    if not _there(git, branch):
        hint = "a local branch, or remote/branch" if args.branch else "name the one to track with --branch"
        raise no_branch(git, branch, path, hint=hint)
    refuse_twin(ctx.registry, git, branch, name=entry.name)
    if (str(path), branch) == (entry.path, entry.branch):
        print(f"{entry.name} is {one_line(entry.path)} @ {entry.branch} already")
        return EXIT_OK
    if ctx.daemon():
        raise RecalldError("stop the daemon before changing a repository (it owns the store and watches the path)")
    done = ""
    if branch != entry.branch and continues(ctx.app.store, git, entry, branch):
        from recalld.daemon.progress import TerminalProgress

        carried, _ = _carried_to(ctx.app, git, entry, branch, path=str(path), progress=TerminalProgress())
        left = f", {carried.unmapped} left out" if carried.unmapped else ""
        done = (f"; carried the {carried.memories} memories ({carried.live} live) of {entry.branch} to {branch},"
                f" history kept{left}")  # fmt: skip
        if carried.indexed:
            done = (f"; {branch} is indexed in the store already (another writer's, or an earlier carry's): its"
                    " memories are kept as they are")  # fmt: skip
        if ctx.app.store.shared:
            done += f"; those of {entry.branch} stay in the shared collection ({_purged_by(entry)})"
    else:
        if branch != entry.branch:  # dropped first: a crash before the registry changes leaves a re-sync, not strays
            done = f"; {left_behind(ctx.app, entry)}"
        ctx.registry.update(entry.name, path=str(path), branch=branch)
    print(f"{entry.name}: {one_line(str(path))} @ {branch} (was {one_line(entry.path)} @ {entry.branch}){done};"
          f" run `recalld sync {shlex.quote(entry.name)}`")  # fmt: skip
    return EXIT_OK


def continues(store: Any, git: GitRepository, entry: Any, branch: str) -> bool:
    """Whether ``branch`` goes on from what ``entry``'s branch was indexed at: it holds the
    indexed commit (a rename, a branch made from it, or one it was merged into), or git
    renamed the old branch to it (``git branch -m``, its history rewritten since). Its
    memories and their history are then the new branch's as well."""
    from recalld.ingest.plan import Scope
    from recalld.ingest.records import stored_checkpoint

    indexed = stored_checkpoint(store, Scope(entry.name, entry.branch)).get("commit")
    if not indexed:
        return False
    tip = git.branch_tip(branch)
    return (tip is not None and git.is_ancestor(indexed, tip)) or git.renamed_to(entry.branch) == branch


def _carried_to(
    app: Any, git: GitRepository, entry: Any, branch: str, *, path: str, progress: ProgressSink
) -> tuple[Carried, RepoEntry]:
    """``entry``'s memories carried to ``branch`` (``ingest/rebranch``) and the registration
    re-pointed there (at ``path``); the carry's counts and the registration. The old
    branch's points go before it is re-pointed where git has that branch no more: killed in
    between, the registration still names it, and what was carried stays (a rename is
    followed again, a ``repo set`` run again finds nothing left to carry or drop). Where git
    still has it, they go last: a registration is never left without its memories."""
    from recalld.ingest.rebranch import carry_branch

    carried = carry_branch(app.store, entry.name, entry.branch, branch, progress=progress)
    kept = git.branch_tip(entry.branch) is not None
    if not kept:
        left_behind(app, entry)
    moved = app.registry.update(entry.name, path=path, branch=branch)
    if kept:
        left_behind(app, entry)
    return carried, moved


def left_behind(app: Any, entry: RepoEntry) -> str:
    """The points of ``entry``'s branch, which it follows no more, deleted, but where the
    store is shared (a server's collection: other writers may follow that branch); what
    was done, as ``repo set`` says it."""
    from recalld.ingest.store import MemoryFilter

    count = app.store.count(MemoryFilter(repo=entry.name, branch=entry.branch, deprecated=None))
    if app.store.shared:
        return f"the {count} memories of {entry.branch} stay in the shared collection ({_purged_by(entry)})"
    app.indexer.remove_repo(entry.name, branch=entry.branch)
    return f"dropped the {count} memories of {entry.branch} (manual memories kept)"


def _purged_by(entry: RepoEntry) -> str:
    """Why a shared store keeps the memories of ``entry``'s branch, and what deletes them."""
    name, branch = shlex.quote(entry.name), shlex.quote(entry.branch)
    return f"other writers may follow it: `recalld repo remove {name} --branch {branch} --purge` deletes them"


def follow_renamed(app: Any, entry: RepoEntry, *, progress: ProgressSink) -> RepoEntry:
    """``entry``, re-pointed to its branch's new name when git renamed the branch (``git
    branch -m``, read from the reflog: ``GitRepository.renamed_to``) and no other
    registration has that name: its memories carried there, history and all, as ``repo set
    --branch`` does. A sync of it follows the rename so, the daemon's and ``recalld sync``'s
    alike; without a reflog it stays, and the sync says the branch is gone; where another
    registration has the new name, the error says which."""
    from recalld.ingest.gitrepo import GitRepository

    try:
        git = GitRepository(entry.path)
        if git.branch_tip(entry.branch) is not None or git.is_unborn(entry.branch):
            return entry
        branch = git.renamed_to(entry.branch)
        if branch is None:
            return entry
    except RecalldError:  # the sync that follows says it
        return entry
    twin = renamed_to_twin(app.registry, git, entry, branch)
    if twin is not None:  # the sync's own error would name `repo set --branch`, which refuses it too
        raise RecalldError(twin)
    carried, moved = _carried_to(app, git, entry, branch, path=entry.path, progress=progress)
    log.warning("its branch was renamed: following it, its memories carried to the new name", repo=entry.name,
                branch=entry.branch, to=branch, memories=carried.memories, live=carried.live,
                left_out=carried.unmapped, indexed_already=carried.indexed,
                old_kept=app.store.shared)  # fmt: skip
    return moved


def _there(git: GitRepository, branch: str) -> bool:
    """Whether ``branch`` can be tracked: it exists, or it is the checked-out branch of a
    repository with no commit yet (its first commit is synced when it comes), which
    ``repo add`` took without ``--branch`` and refused with it, as ``repo set`` did."""
    return git.branch_exists(branch) or git.is_unborn(branch)


def no_branch(git: GitRepository, branch: str, path: Path, *, hint: str) -> RecalldError:
    """The error of a branch to register that is not there: its new name when it was
    renamed (``GitRepository.renamed_to``), else ``hint``."""
    now = git.renamed_to(branch)
    if now is not None:
        hint = f"it was renamed to {now!r}: --branch {now}"
    return RecalldError(f"no branch {branch!r} in {path} ({hint})")


def opened(where: str) -> tuple[GitRepository, Path]:
    """The repository at ``where`` and its top level, links resolved: the root of its work
    tree (a linked worktree's own), or a bare repository's git dir."""
    from recalld.ingest.gitrepo import GitRepository

    path = Path(where).expanduser()
    if not path.exists():
        raise RecalldError(f"{path.absolute()} does not exist")
    git = GitRepository(path.resolve())
    return git, Path(git.workdir or git.git_dir).resolve()


def refuse_twin(registry: RepoRegistry, git: GitRepository, branch: str, *, name: str) -> None:
    """Refuse to register ``git``'s ``branch`` as ``name`` when another registration has
    it already: the same repository (its common git dir: a linked worktree shares its
    refs) and branch would be indexed twice and every search would show it twice."""
    twin = _twin(registry.all(), Path(git.common_dir).resolve(), branch, name=name)
    if twin is not None:
        raise RecalldError(f"this repository's {branch!r} is registered already, as {twin.name} ({twin.path} @"
                           f" {twin.branch}): use {twin.name}, or track another --branch")  # fmt: skip


def _twin(entries: list[RepoEntry], common: Path, branch: str, *, name: str) -> RepoEntry | None:
    from recalld.ingest.gitrepo import GitRepository

    for entry in entries:
        if entry.name == name or entry.branch != branch:
            continue
        try:
            theirs = Path(GitRepository(entry.path).common_dir).resolve()
        except RecalldError:  # moved or deleted: `repo set` re-points it
            continue
        if theirs == common:
            return entry
    return None


def renamed_to_twin(registry: RepoRegistry, git: GitRepository, entry: Any, branch: str) -> str | None:
    """Why ``entry``'s branch, renamed to ``branch``, is not followed: another registration
    has ``branch`` (``refuse_twin``); None when none has."""
    try:
        refuse_twin(registry, git, branch, name=entry.name)
    except RecalldError as exc:
        return (f"branch {entry.branch!r} not found in {entry.path}: it was renamed to {branch!r}, which is not"
                f" followed: {exc.message}")  # fmt: skip
    return None


def unfollowed(entry: Any, registry: RepoRegistry | None = None) -> str | None:
    """Why a registration's memories cannot follow its repository (its path moved or
    deleted, its branch deleted or renamed), None when they can: what its memories say
    may be stale until `recalld repo set` re-points it (``branch_missing``)."""
    from recalld.ingest.gitrepo import GitRepository

    try:
        git = GitRepository(entry.path)
    except RecalldError as exc:
        return exc.message
    return branch_missing(git, entry, registry) if git.branch_tip(entry.branch) is None else None


def branch_missing(git: GitRepository, entry: Any, registry: RepoRegistry | None = None) -> str | None:
    """Of a branch without a tip: why (``GitRepository.missing_branch``: its new name if it
    was renamed, which the next sync follows unless another registration of ``registry``
    has it: ``renamed_to_twin``), unless it is the checked-out branch of a repository with
    no commit yet."""
    from recalld.ingest.gitrepo_branches import missing_note

    if git.is_unborn(entry.branch):
        return None
    now = git.renamed_to(entry.branch)
    twin = renamed_to_twin(registry, git, entry, now) if registry is not None and now is not None else None
    return twin or missing_note(entry.branch, now, path=entry.path, repo=entry.name)


def unfollowed_at(registry: RepoRegistry, repo: str | None, as_of: str | None) -> list[str]:
    """Where an answer the daemon gives may be stale (not ``as_of`` a commit or date): the
    ``unfollowed_notes`` of ``repo``, or of every registration."""
    if as_of:
        return []
    return unfollowed_notes([registry.get(repo)] if repo else registry.all(), registry)


def unfollowed_notes(entries: Iterable[Any], registry: RepoRegistry | None = None) -> list[str]:
    """``unfollowed_note`` of each registration that cannot be followed."""
    return [unfollowed_note(e, reason) for e in entries if (reason := unfollowed(e, registry)) is not None]


def sync_hint(name: str) -> str:
    """How the memories of registration ``name`` are brought to its branch's tip, as a note says it."""
    return f"recalld sync {shlex.quote(name)}, or keep recalld serve running"


def unfollowed_note(entry: Any, reason: str) -> str:
    from recalld.ingest.gitrepo_branches import FOLLOWED

    if FOLLOWED in reason:  # a rename: no command to give but the one the reason gives
        return f"{entry.name}: {reason}: its memories may be stale until then"
    return (f"{entry.name}: {reason}: its memories may be stale (`recalld repo set {shlex.quote(entry.name)}"
            " --path PATH` or `--branch BRANCH` re-points it)")  # fmt: skip
