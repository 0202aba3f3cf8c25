"""Installing recalld's git hooks beside whatever hooks a repository already has.

Hooks go where git looks for them (`git rev-parse --git-path hooks`: honours
core.hooksPath and linked worktrees). A foreign hook is kept as ``<name>.legacy`` and
run first by ours; uninstall puts it back. A hook calls `recalld notify` with the
location variables of the shell that installed it (daemon.config.locations), so it tells
the store that shell's commands use.
"""

from __future__ import annotations

import os
import shlex
import shutil
import stat
import subprocess
import sys
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from recalld.daemon.config import locations
from recalld.ingest.errors import RecalldError

# post-receive: a push into the repository (a bare mirror that developers push to), run in its git dir
HOOK_NAMES = ("post-commit", "post-merge", "post-checkout", "post-rewrite", "post-receive")
MARKER = "recalld-managed-hook"
# What git's environment says of the repository a git command runs in (`git rev-parse
# --local-env-vars`), set in hooks, `git rebase -x` and with --git-dir: cleared, as git
# clears them to enter a submodule, so that the repository asked about is the one at the
# path given.
LOCAL_GIT_VARIABLES = (
    "GIT_ALTERNATE_OBJECT_DIRECTORIES", "GIT_CONFIG", "GIT_CONFIG_PARAMETERS", "GIT_CONFIG_COUNT",
    "GIT_OBJECT_DIRECTORY", "GIT_DIR", "GIT_WORK_TREE", "GIT_IMPLICIT_WORK_TREE", "GIT_GRAFT_FILE", "GIT_INDEX_FILE",
    "GIT_NO_REPLACE_OBJECTS", "GIT_REPLACE_REF_BASE", "GIT_PREFIX", "GIT_INTERNAL_SUPER_PREFIX", "GIT_SHALLOW_FILE",
    "GIT_COMMON_DIR",
)  # fmt: skip


@dataclass(frozen=True, slots=True)
class HookChange:
    hook: Path
    action: str  # installed | updated | kept-legacy | removed | restored


def hooks_dir(repo_path: str | Path) -> Path:
    """The hooks directory of the repository at ``repo_path``, whatever repository the
    environment names (a command run from a hook or `git rebase -x` has GIT_DIR set)."""
    done = _rev_parse(repo_path, "--git-path", "hooks")
    if done.returncode != 0:
        raise RecalldError(f"not a git repository: {repo_path}")
    return Path(done.stdout.strip())


def tracked_dir(repo_path: str | Path, directory: Path) -> Path | None:
    """``directory``, the repository's hooks directory, when it lies in the work tree
    (``core.hooksPath = .husky``): the hooks written there are the repository's files,
    which name this machine's paths, and a dispatcher that runs a hook by its own file name
    (Husky's ``.husky/_/h``) finds the kept ``<name>.legacy`` no more. None for one in the
    git dir or elsewhere, and in a bare repository."""
    done = _rev_parse(repo_path, "--git-common-dir", "--show-toplevel")
    found = done.stdout.split("\n")
    if done.returncode != 0 or len(found) < 2 or not found[1]:
        return None
    git_dir, top, place = Path(found[0]).resolve(), Path(found[1]).resolve(), directory.resolve()
    return place if place.is_relative_to(top) and not place.is_relative_to(git_dir) else None


def _rev_parse(repo_path: str | Path, *asked: str) -> subprocess.CompletedProcess[str]:
    """``git rev-parse`` of the repository at ``repo_path``, paths absolute, whatever
    repository the environment names (a command run from a hook or `git rebase -x` has
    GIT_DIR set)."""
    environ = {name: value for name, value in os.environ.items() if name not in LOCAL_GIT_VARIABLES}
    return subprocess.run(["git", "-C", str(repo_path), "rev-parse", "--path-format=absolute", *asked],
                          capture_output=True, text=True, check=False, env=environ)  # fmt: skip


def recalld_executable() -> str:
    beside = Path(sys.executable).with_name("recalld")
    if beside.exists():
        return str(beside)
    found = shutil.which("recalld")
    if not found:
        raise RecalldError("cannot find the recalld executable to call from hooks")
    return found


def render_hook() -> str:
    template = resources.files("recalld.hooks").joinpath("scripts", "recalld-hook").read_text("utf-8")
    pinned = locations(os.environ)  # the state dir as this shell's commands find it, ~ expanded
    env_line = "export " + " ".join(f"{name}={shlex.quote(value)}" for name, value in pinned.items()) if pinned else ":"
    return template.replace("@RECALLD_BIN@", shlex.quote(recalld_executable())).replace("@RECALLD_ENV@", env_line)


def _present(path: Path) -> bool:
    """Whether ``path`` is there: a file, or a symbolic link, a dangling one too."""
    return path.exists() or path.is_symlink()


def is_ours(path: Path) -> bool:
    try:
        return MARKER in path.read_text("utf-8", "replace")
    except OSError:
        return False


def install(repo_path: str | Path) -> list[HookChange]:
    directory = hooks_dir(repo_path)
    script = render_hook()
    foreign = [name for name in HOOK_NAMES if _present(directory / name) and not is_ours(directory / name)]
    for name in foreign:  # refused before any hook is changed: not half the hooks installed
        hook, legacy = directory / name, directory / f"{name}.legacy"
        if _present(legacy):
            raise RecalldError(f"{hook} exists and so does {legacy}: move one of them away first")
    directory.mkdir(parents=True, exist_ok=True)
    changes: list[HookChange] = []
    for name in HOOK_NAMES:
        hook = directory / name
        action = "updated" if _present(hook) else "installed"
        if name in foreign:
            hook.rename(directory / f"{name}.legacy")
            action = "kept-legacy"
        tmp = hook.with_name(f".{name}.recalld-tmp")
        tmp.write_text(script, encoding="utf-8")
        tmp.chmod(tmp.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH | stat.S_IRUSR)
        tmp.replace(hook)
        changes.append(HookChange(hook, action))
    return changes


def uninstall(repo_path: str | Path) -> list[HookChange]:
    directory = hooks_dir(repo_path)
    changes: list[HookChange] = []
    for name in HOOK_NAMES:
        hook = directory / name
        legacy = directory / f"{name}.legacy"
        if not is_ours(hook):
            continue
        hook.unlink()
        if _present(legacy):
            legacy.rename(hook)
            changes.append(HookChange(hook, "restored"))
        else:
            changes.append(HookChange(hook, "removed"))
    return changes
