"""The recalld program's way out: its exit code, without the interpreter's teardown.

Once a command has closed what it opened (its store flushed and closed, its state
databases closed, its output flushed), Python's own exit still tears the process down:
a last garbage collection over every object, then each module and extension freed one
by one (the store's engine, the model's runtime). That cost every command ~0.3 s
(``recalld status`` on a small store: 1.22 s, of which 0.35 s after its answer) and the
daemon ~0.6 s of its stop, and nothing is kept by it: what must outlive the process was
written before. So the program leaves with ``os._exit``, after what a normal exit runs
first: threads not yet done are waited for (then Python exits as ever), the ``atexit``
handlers run (logging's flush, temporary directories' finalizers), and stdout and stderr
are flushed.
"""

from __future__ import annotations

import atexit
import os
import sys
import threading
from typing import NoReturn


def run() -> NoReturn:
    """The ``recalld`` console script."""
    from recalld.daemon.cli import main

    exit_now(main())


def exit_now(code: int) -> NoReturn:
    """Leave with ``code`` at once, unless a thread (not a daemon thread) still runs."""
    main = threading.main_thread()
    if any(t is not main and t.is_alive() and not t.daemon for t in threading.enumerate()):
        sys.exit(code)  # Python waits for it, then exits as ever
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # closed, or a pipe gone: the command said what it could
            pass
    os._exit(code)
