"""The cyclic garbage collector's pace while syncs run.

A sync allocates millions of short-lived containers (parse nodes, drafts, payloads,
keyword counts), almost all freed by reference counting. At Python's default
thresholds (700, 10, 10) the collector still ran ~1,250 young and 5-6 full collections
over a full index of Django (39.5k memories): 0.9-1.8 s of the sync's thread, and each
full collection holds the GIL for ~0.1-0.2 s, during which the model's workers cannot
start their next batch. At ``SYNC_THRESHOLDS`` the same index ran 36 young collections
and no full one (0.2-0.3 s in all). Cycles are still collected, a little later.

The thresholds are the process's: raised when the first of any concurrent syncs starts,
put back as they were when the last one ends. A collector switched off (a first
threshold of 0) is left off.
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from contextlib import contextmanager

SYNC_THRESHOLDS = (10_000, 10, 10)

_lock = threading.Lock()
_syncs = 0
_saved: tuple[int, int, int] | None = None  # the thresholds to put back, while raised


@contextmanager
def sync_pace() -> Iterator[None]:
    """The collector at ``SYNC_THRESHOLDS`` for as long as a sync holds this."""
    global _syncs, _saved
    with _lock:
        if _syncs == 0:
            current = gc.get_threshold()
            if current[0] != 0 and current[0] < SYNC_THRESHOLDS[0]:
                _saved = current
                gc.set_threshold(*SYNC_THRESHOLDS)
        _syncs += 1
    try:
        yield
    finally:
        with _lock:
            _syncs -= 1
            if _syncs == 0 and _saved is not None:
                gc.set_threshold(*_saved)
                _saved = None
