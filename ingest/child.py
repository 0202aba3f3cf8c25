"""Work done in a child process (``python -m MODULE ARGS``): what would leave the
daemon unresponsive (a library holding the GIL) or resident in memory for good (torch)
while it runs. The child's last line on stderr says what went wrong; ``child_main``
writes it."""

from __future__ import annotations

import ctypes
import signal
import subprocess
import sys
from collections.abc import Callable, Sequence

from recalld.ingest.errors import RecalldError

PR_SET_PDEATHSIG = 1  # linux/prctl.h


_RUNNING: set[subprocess.Popen[str]] = set()  # the children under way, for stop_children
_STOPS = [0]  # how many times stop_children was called


def stops() -> int:
    """A mark for ``run_module``'s ``unless_stopped_since``: work that prepares a child
    (a copy of the store's shard, seconds to minutes) is not followed by one if the
    daemon was told to stop meanwhile, when there was no child yet to end."""
    return _STOPS[0]


def run_module(module: str, args: Sequence[str], *, failed: str, unless_stopped_since: int | None = None) -> None:
    """Run ``python -m module args`` to its end; ``RecalldError`` ("<failed>: <its last
    stderr line>") when it fails, or without running it when ``stop_children`` was called
    after the ``stops`` mark ``unless_stopped_since``."""
    if unless_stopped_since is not None and _STOPS[0] != unless_stopped_since:
        raise RecalldError(f"{failed}: the daemon stops")
    command = [sys.executable, "-m", module, *args]
    with subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True) as child:
        _RUNNING.add(child)
        try:
            _, stderr = child.communicate()
        finally:
            _RUNNING.discard(child)
    if child.returncode != 0:
        lines = [line for line in stderr.splitlines() if line.strip()]
        raise RecalldError(f"{failed}: {lines[-1] if lines else _ended(child.returncode)}")


def stop_children() -> None:
    """SIGTERM to every child under way: the daemon stops (from its signal handler), and
    their work (an index build, a model export) is safe to lose and is done again later.
    Whoever waits for one then gets its ``RecalldError``."""
    _STOPS[0] += 1
    for child in tuple(_RUNNING):
        try:
            child.send_signal(signal.SIGTERM)
        except OSError:  # ended meanwhile
            pass


def _ended(code: int) -> str:
    if code < 0:
        try:
            return f"killed by {signal.Signals(-code).name}"
        except ValueError:
            return f"killed by signal {-code}"
    return f"exit {code}"


def child_main(work: Callable[..., None], argv: Sequence[str]) -> int:
    """A child's entry: ``work(*argv)``; an error is its last stderr line and exit 1. The
    child dies with the thread that started it (a daemon killed mid-build leaves no
    orphan holding the store), and at once on Ctrl-C: Python would only raise
    KeyboardInterrupt once the library call under way returned, minutes later."""
    _die_with_parent()
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    try:
        work(*argv)
    except Exception as exc:  # noqa: BLE001 - reported to the parent, which raises it
        print(f"{type(exc).__name__}: {exc}", file=sys.stderr)
        return 1
    return 0


def _die_with_parent() -> None:
    try:
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    except (OSError, AttributeError):  # not Linux: the child may outlive a killed parent
        pass
