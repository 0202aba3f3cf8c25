"""The environment recalld runs git's command in (a fetch, a blame, a listing of remotes).

The daemon's own, less what ``git rev-parse --local-env-vars`` lists: the variables that
point git at another repository, object store or configuration than the one named on its
command line (a git that runs a hook passes ``GIT_DIR``, ``GIT_OBJECT_DIRECTORY`` or
``GIT_CONFIG_PARAMETERS`` on to it, and a CLI run from a hook would pass them to git);
and never a terminal prompt for credentials.
"""

from __future__ import annotations

import os

LOCAL_ENV = frozenset({
    "GIT_ALTERNATE_OBJECT_DIRECTORIES", "GIT_CONFIG", "GIT_CONFIG_PARAMETERS", "GIT_CONFIG_COUNT",
    "GIT_OBJECT_DIRECTORY", "GIT_DIR", "GIT_WORK_TREE", "GIT_IMPLICIT_WORK_TREE", "GIT_GRAFT_FILE",
    "GIT_INDEX_FILE", "GIT_NO_REPLACE_OBJECTS", "GIT_REPLACE_REF_BASE", "GIT_PREFIX", "GIT_INTERNAL_SUPER_PREFIX",
    "GIT_SHALLOW_FILE", "GIT_COMMON_DIR",
})  # fmt: skip


def git_env(**extra: str) -> dict[str, str]:
    """The environment for git's command, with ``extra`` set."""
    env = {key: value for key, value in os.environ.items() if key not in LOCAL_ENV}
    env["GIT_TERMINAL_PROMPT"] = "0"
    env.update(extra)
    return env
