"""The files a daemon keeps beside its state for its clients: the API's bearer token, and
the runtime file (pid, address) with its starting marker, each written whole and removed
only by the daemon it names."""

from __future__ import annotations

import json
import os
import secrets
from pathlib import Path
from typing import Any


def ensure_token(path: Path) -> str:
    """The API bearer token, created mode 0600 on first start."""
    try:
        return path.read_text().strip()
    except FileNotFoundError:
        pass
    path.parent.mkdir(parents=True, exist_ok=True)
    token = secrets.token_urlsafe(32)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        return path.read_text().strip()
    with os.fdopen(fd, "w") as handle:
        handle.write(token + "\n")
    return token


def write_whole(path: Path, content: dict[str, Any]) -> None:
    """Write ``content`` as JSON to ``path`` whole: a reader finds the old file or the new."""
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(content))
    tmp.replace(path)


def remove_if_ours(path: Path) -> None:
    """Remove ``path``, a file naming a daemon's pid, if it names this process."""
    try:
        if json.loads(path.read_text()).get("pid") == os.getpid():
            path.unlink()
    except (OSError, ValueError, AttributeError):
        pass
