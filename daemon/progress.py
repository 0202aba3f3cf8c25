"""Progress of long work: a bar on stderr when it is a terminal; for the daemon's
startup, pings and a status line for systemd and a log line now and then."""

from __future__ import annotations

import sys
import time
from typing import Any

from recalld.daemon import sdnotify
from recalld.daemon.logs import get_logger
from recalld.ingest.revector import LABEL as REEMBED_LABEL
from recalld.ingest.touched import READING_LABEL
from recalld.ingest.tasks import HISTORY_LABEL

log = get_logger("recalld.progress")
PING_EVERY = 2.0  # seconds between notifications to systemd
LOG_EVERY = 30.0
# How long systemd is to wait for the next sign of life before its start timeout ends.
START_EXTENSION = 120.0
# What a bar counts, by the label of the work (the sync's embedding counts texts).
UNITS = {READING_LABEL: "file", HISTORY_LABEL: "commit", REEMBED_LABEL: "memory"}


class TerminalProgress:
    """ProgressSink drawing a tqdm bar; silent when not on a tty or for small jobs."""

    def __init__(self, *, min_total: int = 200) -> None:
        self._bar: Any = None
        self._min_total = min_total

    def begin(self, label: str, total: int) -> None:
        if not sys.stderr.isatty() or total < self._min_total:
            return
        from tqdm import tqdm

        self._bar = tqdm(total=total, desc=label, unit=UNITS.get(label, "text"), file=sys.stderr, leave=False)

    def advance(self, n: int) -> None:
        if self._bar is not None:
            self._bar.update(n)

    def end(self) -> None:
        if self._bar is not None:
            self._bar.close()
            self._bar = None


class StartupProgress:
    """ProgressSink for work the daemon does before READY: as it advances, it tells
    systemd that the start goes on (WATCHDOG=1, EXTEND_TIMEOUT_USEC, STATUS with the
    count), so long work does not run into TimeoutStartSec; and it logs every LOG_EVERY s.
    Driven by the work itself: work that stops advancing stops the pings."""

    def __init__(self) -> None:
        self._label, self._total, self._done = "", 0, 0
        self._pinged = self._logged = 0.0

    def begin(self, label: str, total: int) -> None:
        self._label, self._total, self._done = label, total, 0
        self._pinged = self._logged = time.monotonic()
        log.info(label, done=0, total=total)
        starting(f"{label}: 0/{total}")

    def advance(self, n: int) -> None:
        self._done += n
        now = time.monotonic()
        if now - self._pinged >= ping_period():
            self._pinged = now
            starting(f"{self._label}: {self._done}/{self._total}")
        if now - self._logged >= LOG_EVERY:
            self._logged = now
            log.info(self._label, done=self._done, total=self._total)

    def end(self) -> None:
        log.info(self._label, done=self._done, total=self._total)


def ping_period() -> float:
    """Seconds between signs of life while starting: PING_EVERY, or less when the
    watchdog asks for pings more often."""
    interval = sdnotify.watchdog_interval()
    return min(PING_EVERY, interval) if interval is not None else PING_EVERY


def starting(status: str) -> None:
    """Tell systemd the start is under way (no-op without NOTIFY_SOCKET)."""
    watchdog = "WATCHDOG=1\n" if sdnotify.watchdog_interval() is not None else ""
    sdnotify.notify(f"{watchdog}EXTEND_TIMEOUT_USEC={int(START_EXTENSION * 1_000_000)}\nSTATUS={status}")
