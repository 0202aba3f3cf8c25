"""A progress bar on stderr for long work, only when stderr is a terminal."""

from __future__ import annotations

import sys
from typing import Any


class TerminalProgress:
    """ProgressSink drawing a tqdm bar; silent when not on a tty or for small jobs."""

    def __init__(self, *, min_total: int = 200) -> None:
        self._bar: Any = None
        self._min_total = min_total

    def begin(self, label: str, total: int) -> None:
        if not sys.stderr.isatty() or total < self._min_total:
            return
        from tqdm import tqdm

        self._bar = tqdm(total=total, desc=label, unit="text", file=sys.stderr, leave=False)

    def advance(self, n: int) -> None:
        if self._bar is not None:
            self._bar.update(n)

    def end(self) -> None:
        if self._bar is not None:
            self._bar.close()
            self._bar = None
