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

A daemon that starts while a command holds the store (a ``recalld search`` run in the
same second as ``recalld serve``) waits for it: ``wait_for_lock`` takes the lock ahead
of the store's opening, and ``take_lock`` adopts it.
"""

from __future__ import annotations

import fcntl
import json
import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import TextIO

from recalld.ingest.store import StoreLockedError

HELD_ENV = "RECALLD_HELD_LOCKS"  # {lock file path: inherited descriptor}, set for an exec
_held: dict[str, TextIO] = {}  # the lock files this process took, by resolved path
_ahead: dict[str, TextIO] = {}  # taken by ``wait_for_lock``, not yet adopted by a store
LOCK_NAME = "recalld.lock"  # in the store's directory
LOCK_POLL = 0.1  # seconds between tries of a lock another process holds


def take_lock(path: Path) -> TextIO:
    """The open lock file at ``path``, locked; close it to let go."""
    key = str(path.resolve())
    handle = _ahead.pop(key, None) or _inherited(key) or open(path, "a+")  # noqa: SIM115 - held for the store's lifetime
    owner = _try_lock(handle)
    if owner is not None:
        handle.close()
        raise StoreLockedError(f"store {path.parent} is in use by another process (pid {owner})")
    handle.seek(0)
    handle.truncate()
    handle.write(str(os.getpid()))
    handle.flush()
    for stale in [k for k, h in _held.items() if h.closed]:
        del _held[stale]
    _held[key] = handle
    return handle


def wait_for_lock(
    path: Path, *, timeout: float, stopping: Callable[[], bool], waiting: Callable[[str], None]
) -> bool:
    """Take the lock at ``path`` for the store about to open there, waiting up to
    ``timeout`` seconds while another process holds it (``waiting`` is told its pid,
    once). False when ``stopping`` turned true first; ``StoreLockedError`` when the time
    ran out. The store's ``take_lock`` adopts the lock taken here."""
    key = str(path.resolve())
    if key in _ahead or _inherits(key):
        return True
    path.parent.mkdir(parents=True, exist_ok=True)
    handle = open(path, "a+")  # noqa: SIM115 - handed to the store
    deadline = time.monotonic() + timeout
    told = False
    while (owner := _try_lock(handle)) is not None:
        if stopping() or time.monotonic() >= deadline:
            handle.close()
            if stopping():
                return False
            raise StoreLockedError(
                f"store {path.parent} is in use by another process (pid {owner}); waited {timeout:.0f} s for it"
            )
        if not told:
            waiting(owner)
            told = True
        time.sleep(LOCK_POLL)
    _ahead[key] = handle
    return True


def _try_lock(handle: TextIO) -> str | None:
    """None once ``handle``'s file is locked by this process, else the pid its owner wrote."""
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        handle.seek(0)
        return handle.read().strip() or "?"
    return None


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


def _inherits(key: str) -> bool:
    """Whether the program before an ``exec`` handed this process the lock of ``key``."""
    try:
        return key in json.loads(os.environ.get(HELD_ENV) or "{}")
    except (ValueError, TypeError):
        return False


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
