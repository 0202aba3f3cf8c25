"""Restarting `recalld serve` in place, to give back the memory a large sync left behind.

Why: after the first index of a large repository an idle daemon kept ~170–210 MB more
than the same daemon restarted on the same store (Django 565 against 399 MB, the Go
standard library's src/ 719 against 513), although the sync's objects were freed and
the heap trimmed. Python's small-object allocator returns a 1 MiB arena to the system only when
every block in it is free, and the few long-lived blocks made during a sync (cache
entries, interned names, grown dictionaries) lie scattered over hundreds of arenas.
Nothing short of a new process gives those back.

When (``Recycler``): the daemon is idle, a sync has changed something since this program
started, and the process's anonymous memory (``RssAnon``: its heap, not the store's
mapped files) is more than ``daemon.restart_over_mb`` above what it was once the store
and the model were loaded. A restarted program with nothing to sync does no work, so a
restart never leads to another by itself.

How: the daemon stops as on SIGTERM (every sync drained, the store flushed and closed),
except that the API's listening socket and the store's lock stay open, inheritable, and
the same command line is ``exec``-ed in the same process (the same pid: systemd sees one
service go on). Clients that connect meanwhile wait in the socket's backlog and are
answered by the new program; no other process can open the store in between; the CLI
waits for a daemon whose runtime file says it is restarting instead of falling back to
the store. Events that arrive meanwhile wait in the journal, and the new program
reconciles every repository when it starts, as any start does.
"""

from __future__ import annotations

import json
import os
import sys
from dataclasses import dataclass
from typing import Any, NoReturn

from recalld.daemon.logs import get_logger
from recalld.ingest.diskspace import MB
from recalld.ingest.errors import RecalldError

log = get_logger("recalld.restart")
LINEAGE_ENV = "RECALLD_RESTARTED"  # {"started": the first program's start, "restarts": n}


def anonymous_bytes() -> int | None:
    """This process's resident anonymous memory (Linux), or None where it cannot be read."""
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("RssAnon:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return None


@dataclass(slots=True)
class Recycler:
    """Whether the daemon should restart in place now (see the module's doc).
    ``over_mb`` 0: never."""

    over_mb: int
    baseline: int | None = None  # anonymous bytes once the store and the model were loaded
    worked: bool = False  # a sync changed something since

    def mark_baseline(self) -> None:
        self.baseline = anonymous_bytes()

    def grown_mb(self) -> int | None:
        """The anonymous memory gained since the baseline, in MB (None: not measured)."""
        now = anonymous_bytes()
        if now is None or self.baseline is None:
            return None
        return (now - self.baseline) // MB

    def due(self) -> int | None:
        """``grown_mb`` when it calls for a restart, else None."""
        if not self.over_mb or not self.worked:
            return None
        grown = self.grown_mb()
        log.debug("memory after the last syncs", grown_mb=grown, over_mb=self.over_mb)
        return grown if grown is not None and grown > self.over_mb else None


def lineage() -> dict[str, Any]:
    """What the programs before this one (in this process) handed over: when the first
    started, how many restarts since. Empty for a daemon started afresh."""
    try:
        value = json.loads(os.environ.pop(LINEAGE_ENV, "") or "{}")
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def exec_self(env: dict[str, str], *, started: float, restarts: int) -> NoReturn:
    """Replace this program with the same command line, ``env`` added (the inherited
    socket and locks), and the lineage counted one further."""
    os.environ.update(env)
    os.environ[LINEAGE_ENV] = json.dumps({"started": started, "restarts": restarts + 1})
    for stream in (sys.stdout, sys.stderr):
        stream.flush()
    try:
        os.execv(sys.executable, [sys.executable, *sys.orig_argv[1:]])
    except OSError as exc:  # the interpreter gone (an upgrade meanwhile): a supervisor starts it afresh
        raise RecalldError(f"cannot restart in place ({sys.executable}): {exc.strerror}") from exc
