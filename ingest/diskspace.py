"""Room on the disk before the embedded engine writes.

The embedded engine writes through memory-mapped files: on a full disk the kernel
answers a write to a new page with SIGBUS, which ends the process wherever it is (seen
on a full filesystem: the daemon, and a test run, gone at the engine's first update).
No error reaches Python to catch. So each write first asks the filesystem how much room
is left, and below ``min_free_mb`` refuses with ``DiskFullError``: a sync fails as on
any other store error (its events are kept and tried again with backoff, what it wrote
before stays, and the next sync completes it), searches go on, and ``recalld status``
says why. While the last answer left at least twice the minimum free, the filesystem is
asked again only after ``RECHECK_SECONDS``: a full index makes ~2.7k writes, and asking
before each took ~30 µs of the sync's thread (stat and ``statvfs``), ~0.5 % of it.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

from recalld.ingest.errors import RecalldError

MB = 1 << 20
DEFAULT_MIN_FREE_MB = 256
# How long an answer with room to spare stands: the engine writes at most tens of MB a
# second, far less than the minimum it would have to eat through meanwhile.
RECHECK_SECONDS = 0.2


class DiskFullError(RecalldError):
    """The disk holding the store has less room than recalld keeps free."""


def free_bytes(path: Path) -> int:
    """Bytes an unprivileged writer may still use on the filesystem holding ``path``
    (the nearest existing ancestor, when ``path`` is not made yet)."""
    probe = path
    while not probe.exists() and probe != probe.parent:
        probe = probe.parent
    stat = os.statvfs(probe)
    return stat.f_bavail * stat.f_frsize


class DiskRoom:
    """Refuses writes under ``path`` while fewer than ``min_free_mb`` MB are free (0: never)."""

    def __init__(self, path: Path, min_free_mb: int) -> None:
        self.path = path
        self.min_free = max(0, min_free_mb) * MB
        self._roomy_until = 0.0  # monotonic time until which the last answer stands

    def ensure(self, doing: str) -> None:
        if not self.min_free or time.monotonic() < self._roomy_until:
            return
        free = free_bytes(self.path)
        if free >= 2 * self.min_free:
            self._roomy_until = time.monotonic() + RECHECK_SECONDS
        if free < self.min_free:
            raise DiskFullError(
                f"cannot {doing}: only {free // MB} MB free on the disk holding {self.path}, "
                f"under the {self.min_free // MB} MB recalld keeps free (store.min_free_mb): free some space"
            )

    def spares(self, extra: int) -> bool:
        """Whether ``extra`` more bytes written under ``path`` would still leave the
        minimum free (a copy of the store's shard, and what a build writes into it)."""
        return free_bytes(self.path) - extra >= self.min_free
