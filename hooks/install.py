"""Installing recalld's git hooks beside whatever hooks a repository already has.

Hooks go where git looks for them (`git rev-parse --git-path hooks`: honours
core.hooksPath and linked worktrees). A foreign hook is kept as ``<name>.legacy`` and
run first by ours; uninstall puts it back.
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

from recalld.ingest.errors import RecalldError

# post-receive: a push into the repository (a bare mirror that developers push to), run in its git dir
HOOK_NAMES = ("post-commit", "post-merge", "post-checkout", "post-rewrite", "post-receive")
MARKER = "recalld-managed-hook"


@dataclass(frozen=True, slots=True)
class HookChange:
    hook: Path
    action: str  # installed | updated | kept-legacy | removed | restored


def hooks_dir(repo_path: str | Path) -> Path:
    done = subprocess.run(
        ["git", "-C", str(repo_path), "rev-parse", "--path-format=absolute", "--git-path", "hooks"],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    if done.returncode != 0:
        raise RecalldError(f"not a git repository: {repo_path}")
    return Path(done.stdout.strip())


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
    home = os.environ.get("RECALLD_HOME")
    env_line = f"export RECALLD_HOME={shlex.quote(str(Path(home).resolve()))}" if home else ":"
    return template.replace("@RECALLD_BIN@", shlex.quote(recalld_executable())).replace("@RECALLD_ENV@", env_line)


def is_ours(path: Path) -> bool:
    try:
        return MARKER in path.read_text("utf-8", "replace")
    except OSError:
        return False


def install(repo_path: str | Path) -> list[HookChange]:
    directory = hooks_dir(repo_path)
    directory.mkdir(parents=True, exist_ok=True)
    script = render_hook()
    changes: list[HookChange] = []
    for name in HOOK_NAMES:
        hook = directory / name
        legacy = directory / f"{name}.legacy"
        action = "installed"
        if hook.exists() or hook.is_symlink():
            if is_ours(hook):
                action = "updated"
            elif legacy.exists():
                raise RecalldError(f"{hook} exists and so does {legacy}: move one of them away first")
            else:
                hook.rename(legacy)
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
        if legacy.exists():
            legacy.rename(hook)
            changes.append(HookChange(hook, "restored"))
        else:
            changes.append(HookChange(hook, "removed"))
    return changes
