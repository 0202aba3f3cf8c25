"""Runs one sync and announces every store write on stdout ("write N NAME", and the
fields a set_payload sets), then waits for a line on
stdin before going on, so a test can kill -9 it at an exact point (writes are fast:
without the wait the sync would run on past the announced write before the kill).
Usage: python crash_worker.py REPO STATE_DIR [PART_SYMBOLS HELD_SYMBOLS [full]] (a whole
tree compared in parts that small: ingest/parts.py; ``full``: a sync that compares every file)"""

from __future__ import annotations

import sys
from pathlib import Path

from tests.ingest.conftest import Harness, StoreWrapper



class Announcing(StoreWrapper):
    """Announces each write once it is done, then waits for a line on stdin."""

    def __init__(self, inner) -> None:  # type: ignore[no-untyped-def]
        super().__init__(inner)
        self._n = 0

    def after_write(self, name: str, args: tuple) -> None:  # type: ignore[type-arg]
        self._n += 1
        said = f" {','.join(sorted(args[1]))}" if name == "set_payload" else ""  # the fields it sets
        print(f"write {self._n} {name}{said}", flush=True)
        sys.stdin.readline()


class _Repo:
    def __init__(self, path: str) -> None:
        self.path = Path(path)


def main() -> None:
    if len(sys.argv) > 3:
        from recalld.ingest import parts

        parts.PART_SYMBOLS, parts.HELD_SYMBOLS = int(sys.argv[3]), int(sys.argv[4])
    h = Harness("edge", Path(sys.argv[2]))
    h.indexer.store = Announcing(h.store)  # type: ignore[assignment]
    h.sync(_Repo(sys.argv[1]), full=sys.argv[5:] == ["full"])
    print("done", flush=True)
    h.close()


if __name__ == "__main__":
    main()
