"""Where the CLI stands: the repository a command is about when ``--repo`` is not given,
and a path written from a subdirectory of its work tree read as git reads it.

Only the registry and the file system: no store, no git library (the CLI's client path
stays light, see ``cli``).
"""

from __future__ import annotations

import os
import posixpath
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from recalld.daemon.paths import walked_dir, within
from recalld.ingest.errors import NotFoundError, RecalldError

if TYPE_CHECKING:
    from recalld.daemon.registry import RepoEntry


def only_repo(ctx: Any) -> str:
    """The repository a command is about when ``--repo`` is not given: the one registered,
    else the one whose work tree holds the current directory (the innermost; not when two
    registrations of it track two branches)."""
    entry = ctx.registry.sole()
    if entry is not None:
        return str(entry.name)
    entries = ctx.registry.all()
    here = holding(entries, os.getcwd())
    if here is not None:
        return here.name
    if not entries:
        raise RecalldError("no repository is registered: add one with `recalld repo add PATH`")
    raise RecalldError(f"say which repository with --repo: {', '.join(e.name for e in entries)}")


def holding(entries: list[RepoEntry], where: str) -> RepoEntry | None:
    """The entry whose path holds ``where`` (as written or with links resolved), the
    innermost; None when none does or two hold it equally."""
    depth: dict[int, list[RepoEntry]] = {}
    for entry in entries:
        found = within(entry.path, where)
        if found is not None:
            depth.setdefault(len(found[1]), []).append(entry)
    innermost = depth[max(depth)] if depth else []
    return innermost[0] if len(innermost) == 1 else None


def path_from_here(ctx: Any, repo: str | None, path: str | None) -> str | None:
    """``path`` as the repository's paths are written (from its top) when the command runs
    in a subdirectory of ``repo``'s work tree (or of the one holding the current directory
    when ``repo`` is None): ``.``, ``./…`` and ``../…`` are read from the current
    directory, as git reads them, and so is a plain relative path that is there and not at
    the top (``outline models.py`` in ``app/``: ``app/models.py``; ``app/models.py`` stays
    as it is). Elsewhere, and for absolute paths (the daemon reads those) and globs with
    no directory before their first wildcard, ``path`` as written."""
    if not path or path.startswith("/"):
        return path
    entries = ctx.registry.all()
    entry = next((e for e in entries if e.name == repo), None) if repo else holding(entries, os.getcwd())
    if entry is None:
        return path
    return from_directory(entry.path, os.getcwd(), path)


def from_directory(root: str, cwd: str, path: str) -> str:
    """``path`` written in ``cwd``, read from ``root`` (see ``path_from_here``)."""
    below = within(root, cwd)
    if below is None or not below[0]:  # not in a subdirectory of the work tree
        return path
    sub, top = below
    explicit = path in (".", "..") or path.startswith(("./", "../"))
    if not explicit:
        probe = walked_dir(path)
        if not probe or not os.path.lexists(os.path.join(cwd, probe)) or os.path.lexists(os.path.join(top, probe)):
            return path
    joined = posixpath.normpath(posixpath.join(sub, path))
    if joined == ".." or joined.startswith("../"):  # out of the repository: the daemon says nothing is there
        return path
    if joined == ".":  # the top: the whole repository
        return joined
    return joined + "/" if path.endswith("/") else joined


@contextmanager
def noting_branch_here(ctx: Any, repo: str | None, notes: list[str]) -> Iterator[None]:
    """Within, a command about ``repo`` run in its work tree while another branch than the
    one it follows is checked out: its answer's notes, or its "not found", say so (an agent
    on ``feature`` asking for a function it renamed there got "no symbol" and no reason)."""
    note = _other_branch(ctx, repo)
    try:
        yield
    except NotFoundError as exc:
        if note is None:
            raise
        raise NotFoundError(f"{exc.message} ({note})", exit_code=exc.exit_code) from None
    if note is not None:
        notes.append(note)


def _other_branch(ctx: Any, repo: str | None) -> str | None:
    entries = ctx.registry.all()
    entry = next((e for e in entries if e.name == repo), None) if repo else holding(entries, os.getcwd())
    if entry is None or holding([entry], os.getcwd()) is None:
        return None
    branch = checked_out(Path(entry.path))
    if branch is None or branch == entry.branch:
        return None
    return (f"the work tree here is on branch {branch!r}, and {entry.name}'s memories follow {entry.branch!r}:"
            f" what {branch!r} changed is not in them")  # fmt: skip


def checked_out(work_tree: Path) -> str | None:
    """The branch checked out in ``work_tree``, read from its HEAD file (a linked worktree's
    ``.git`` file names its git dir); None when detached or unreadable."""
    try:
        dot_git = work_tree / ".git"
        git_dir = dot_git
        if dot_git.is_file():
            named = dot_git.read_text(encoding="utf-8").strip().removeprefix("gitdir:").strip()
            git_dir = (work_tree / named).resolve()
        head = (git_dir / "HEAD").read_text(encoding="utf-8").strip()
    except (OSError, UnicodeDecodeError):
        return None
    return head.removeprefix("ref: refs/heads/") if head.startswith("ref: refs/heads/") else None
