"""One process owns an embedded store's directory: an exclusive ``flock`` on a lock file
that names the owner's pid, held for the store's lifetime (and through an index build,
while a child process has the engine's files). A second opener gets
``StoreLockedError`` naming the owner."""

from __future__ import annotations

import fcntl
import os
from pathlib import Path
from typing import TextIO

from recalld.ingest.store import StoreLockedError


def take_lock(path: Path) -> TextIO:
    """The open lock file at ``path``, locked; close it to let go."""
    handle = open(path, "a+")  # noqa: SIM115 - held for the store's lifetime
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        handle.seek(0)
        owner = handle.read().strip() or "?"
        handle.close()
        raise StoreLockedError(f"store {path.parent} is in use by another process (pid {owner})") from None
    handle.seek(0)
    handle.truncate()
    handle.write(str(os.getpid()))
    handle.flush()
    return handle
