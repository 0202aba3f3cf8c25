"""How many cores this process may run on: its CPU affinity (a container's, or a unit's
``CPUAffinity``), else the machine's count."""

from __future__ import annotations

import os


def available_cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1
