"""One process owns an embedded store's directory: an exclusive ``flock`` on a lock file
that names the owner's pid, held for the store's lifetime (and through an index build,
while a child process has the engine's files). A second opener gets
``StoreLockedError`` naming the owner.

A daemon that restarts in place (``exec``, same pid) keeps its stores locked through the
restart: ``keep_across_exec`` duplicates every lock it holds into a descriptor the new
program inherits (a ``flock`` belongs to the open file, which the duplicate keeps open
after the store closes its own), and names them in ``HELD_ENV``; ``take_lock`` in the
new program adopts the inherited lock of its path instead of opening the file again.
No other process can take the store in between.
"""

from __future__ import annotations

import fcntl
import json
import os
from pathlib import Path
from typing import TextIO

from recalld.ingest.store import StoreLockedError

HELD_ENV = "RECALLD_HELD_LOCKS"  # {lock file path: inherited descriptor}, set for an exec
_held: dict[str, TextIO] = {}  # the lock files this process took, by resolved path


def take_lock(path: Path) -> TextIO:
    """The open lock file at ``path``, locked; close it to let go."""
    key = str(path.resolve())
    handle = _inherited(key) or open(path, "a+")  # noqa: SIM115 - held for the store's lifetime
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
    for stale in [k for k, h in _held.items() if h.closed]:
        del _held[stale]
    _held[key] = handle
    return handle


def drop_inherited() -> None:
    """Let go of inherited locks no store adopted (the store moved in the configuration
    between the two programs): each would hold its old directory locked for good."""
    try:
        held = json.loads(os.environ.pop(HELD_ENV, "") or "{}")
    except ValueError:
        return
    for fd in held.values() if isinstance(held, dict) else ():
        try:
            os.close(int(fd))
        except (OSError, ValueError, TypeError):
            pass


def keep_across_exec() -> dict[str, str]:
    """The environment that hands every lock still held to the program this process is
    about to ``exec``: each duplicated into an inheritable descriptor, so closing the
    stores afterwards does not let the locks go."""
    kept = {}
    for key, handle in _held.items():
        if not handle.closed:
            fd = os.dup(handle.fileno())
            os.set_inheritable(fd, True)
            kept[key] = fd
    _held.clear()
    return {HELD_ENV: json.dumps(kept)} if kept else {}


def _inherited(key: str) -> TextIO | None:
    """The lock file of ``key`` that the program before an ``exec`` kept locked, if any
    (each adopted once, and made not inheritable again)."""
    try:
        held = json.loads(os.environ.get(HELD_ENV) or "{}")
        fd = int(held.pop(key))
    except (ValueError, KeyError, TypeError, AttributeError):
        return None
    os.environ[HELD_ENV] = json.dumps(held)
    try:
        os.set_inheritable(fd, False)
        return open(fd, "a+", closefd=True)  # noqa: SIM115 - held for the store's lifetime
    except OSError:
        return None
