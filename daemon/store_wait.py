"""A starting daemon waits for a Qdrant server that does not answer.

It exited instead, and systemd started it again two seconds later: while the server was
down (a restart, maintenance, a container not yet up at boot), every ~4 s a start cost
~2.4 s of CPU (imports, the store's client) and the journal a traceback's line. Now it
waits, trying again after 1, 2, 4 … s, at most ``LONGEST`` s apart, and says so in its
log and its systemd status. It has not yet said it is starting: a command run meanwhile
asks the server itself and says the same. A server that answers with a refusal (a wrong
API key) is no wait: that error ends the start as before.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

from recalld.daemon import sdnotify
from recalld.daemon.logs import get_logger
from recalld.ingest.errors import StoreUnansweredError

FIRST = 1.0  # seconds before the second try
LONGEST = 30.0  # the longest wait between two tries

log = get_logger("recalld.service")


def wait_for_server(
    open_store: Callable[[], object], stop: threading.Event, *, first: float = FIRST, longest: float = LONGEST
) -> bool:
    """Call ``open_store`` until the server answers; False when ``stop`` is set first."""
    delay = first
    while True:
        try:
            open_store()
            return True
        except StoreUnansweredError as exc:
            log.warning("the Qdrant server does not answer; trying again", error=exc.message, in_s=delay)
            sdnotify.notify(f"STATUS=waiting for the Qdrant server: {exc.message}")
        if stop.wait(delay):
            return False
        delay = min(delay * 2, longest)
