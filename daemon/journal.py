"""The one durable queue every event source appends to (SQLite in WAL mode).

Sources only append and return. The worker claims all pending events of a repo at
once (so a burst of hook, watcher and webhook events becomes one sync) and completes
them only after the sync succeeded, so nothing is lost across crashes and restarts.
An event can be deferred (a webhook's fetch that failed, to try again later): it stays
pending, out of every claim until it is due.
"""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from recalld.ingest.diskspace import DiskFullError

SCHEMA = """
CREATE TABLE IF NOT EXISTS events (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    repo TEXT NOT NULL,
    source TEXT NOT NULL,
    detail TEXT NOT NULL,
    created REAL NOT NULL,
    done REAL,
    due REAL
);
CREATE INDEX IF NOT EXISTS events_pending ON events (repo, id) WHERE done IS NULL;
CREATE TABLE IF NOT EXISTS deliveries (
    source TEXT NOT NULL,
    delivery TEXT NOT NULL,
    received REAL NOT NULL,
    PRIMARY KEY (source, delivery)
);
"""


@dataclass(frozen=True, slots=True)
class Event:
    """Something happened that may change a repo: hook, watcher, webhook, timer, CLI."""

    repo: str
    source: str  # hook | watcher | webhook | timer | cli | startup
    detail: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Claim:
    repo: str
    ids: tuple[int, ...]
    events: tuple[Event, ...]
    oldest: float
    claimed: float = 0.0  # when: an event deferred after it (``Journal.defer``) stays pending


@contextmanager
def _writing(path: Path, doing: str) -> Iterator[None]:
    """SQLite's "database or disk is full" as recalld's own error, saying where and what
    to do: a hook's event refused then reads as one, and the API answers 507."""
    try:
        yield
    except sqlite3.OperationalError as exc:
        if getattr(exc, "sqlite_errorcode", None) != sqlite3.SQLITE_FULL:
            raise
        raise DiskFullError(f"cannot {doing}: the disk holding {path} is full ({exc}): free some space") from exc


_DUE = "done IS NULL AND (due IS NULL OR due <= ?)"  # pending and not deferred past now


class Journal:
    def __init__(self, path: Path) -> None:
        self.path = path
        path.parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(str(path), timeout=30, check_same_thread=False, isolation_level=None)
        self._lock = threading.Lock()
        self._wake = threading.Condition(self._lock)
        with self._lock:
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=NORMAL")
            self._db.executescript(SCHEMA)
            columns = {row[1] for row in self._db.execute("PRAGMA table_info(events)")}
            if "due" not in columns:  # a journal of an earlier version
                self._db.execute("ALTER TABLE events ADD COLUMN due REAL")

    def append(self, event: Event) -> int:
        with self._lock, _writing(self.path, f"record the {event.source} event for {event.repo}"):
            event_id = self._insert(event)
            self._wake.notify_all()
            return event_id

    def append_delivered(self, source: str, delivery: str | None, events: Sequence[Event]) -> list[int] | None:
        """A webhook's ``events`` and its delivery id, recorded in one transaction: None,
        and nothing recorded, when the id was seen before; on an error neither is, so that
        a redelivery of a refused one is taken, not dropped as a duplicate."""
        with self._lock, _writing(self.path, f"record the {source} webhook's events"):
            self._db.execute("BEGIN IMMEDIATE")
            try:
                if delivery and self._db.execute(
                    "INSERT OR IGNORE INTO deliveries VALUES (?, ?, ?)", (source, delivery, time.time())
                ).rowcount != 1:
                    self._db.execute("ROLLBACK")
                    return None
                ids = [self._insert(event) for event in events]
                self._db.execute("COMMIT")
            except BaseException:
                if self._db.in_transaction:  # SQLite may have rolled a failed commit back itself
                    self._db.execute("ROLLBACK")
                raise
            self._wake.notify_all()
            return ids

    def _insert(self, event: Event) -> int:
        cursor = self._db.execute(
            "INSERT INTO events (repo, source, detail, created) VALUES (?, ?, ?, ?)",
            (event.repo, event.source, json.dumps(event.detail), time.time()),
        )
        return int(cursor.lastrowid or 0)

    def pending(self) -> dict[str, float]:
        """repo → time of its oldest pending event that is due."""
        with self._lock:
            rows = self._db.execute(
                f"SELECT repo, MIN(created) FROM events WHERE {_DUE} GROUP BY repo", (time.time(),)
            )  # fmt: skip
            return {repo: float(oldest) for repo, oldest in rows}

    def has_newer(self, claim: Claim) -> bool:
        """Whether an event for the claim's repo came after the claim."""
        return self.newer_than(claim.repo, max(claim.ids))

    def newer_than(self, repo: str, event_id: int) -> bool:
        """Whether a due event for ``repo`` came after the event ``event_id``."""
        with self._lock:
            row = self._db.execute(
                f"SELECT 1 FROM events WHERE {_DUE} AND repo = ? AND id > ? LIMIT 1", (time.time(), repo, event_id)
            ).fetchone()
        return row is not None

    def depth(self) -> dict[str, int]:
        """repo → its pending events, deferred ones included."""
        with self._lock:
            rows = self._db.execute("SELECT repo, COUNT(*) FROM events WHERE done IS NULL GROUP BY repo")
            return {repo: int(n) for repo, n in rows}

    def claim(self, repo: str) -> Claim | None:
        now = time.time()
        with self._lock:
            rows = self._db.execute(
                f"SELECT id, source, detail, created FROM events WHERE {_DUE} AND repo = ? ORDER BY id", (now, repo)
            ).fetchall()
        if not rows:
            return None
        events = tuple(Event(repo, source, json.loads(detail)) for _id, source, detail, _c in rows)
        return Claim(repo, tuple(r[0] for r in rows), events, min(r[3] for r in rows), now)

    def complete(self, claim: Claim) -> None:
        """Mark the claim's events done, but those deferred since it was made (``defer``:
        due later than the claim, also when the sync outlasted their wait)."""
        now = time.time()
        with self._lock, _writing(self.path, f"mark the synced events of {claim.repo} done"):
            self._db.executemany(
                "UPDATE events SET done = ? WHERE id = ? AND (due IS NULL OR due <= ?)",
                [(now, i, claim.claimed) for i in claim.ids],
            )

    def defer(self, event_ids: Sequence[int], details: Sequence[dict[str, Any]], due: float) -> None:
        """Keep these events pending but out of every claim until ``due`` (a time), each
        with its new detail: the claim they came in leaves them pending when completed."""
        with self._lock, _writing(self.path, "defer events"):
            self._db.executemany(
                "UPDATE events SET due = ?, detail = ? WHERE id = ? AND done IS NULL",
                [(due, json.dumps(detail), i) for i, detail in zip(event_ids, details, strict=True)],
            )  # fmt: skip

    def is_done(self, event_id: int) -> bool:
        with self._lock:
            row = self._db.execute("SELECT done FROM events WHERE id = ?", (event_id,)).fetchone()
        return row is None or row[0] is not None

    def wait(self, timeout: float) -> None:
        """Sleep until something is appended (or ``poke`` is called) or ``timeout`` passes."""
        with self._lock:
            self._wake.wait(timeout)

    def poke(self) -> None:
        """Wake a ``wait``: another process appended (a hook's ``recalld notify``), or the
        waiter is to stop."""
        with self._lock:
            self._wake.notify_all()

    def compact(self, *, keep_seconds: float) -> int:
        """Drop completed events and remembered deliveries older than ``keep_seconds``."""
        cutoff = time.time() - keep_seconds
        with self._lock:
            removed = self._db.execute("DELETE FROM events WHERE done IS NOT NULL AND done < ?", (cutoff,)).rowcount
            self._db.execute("DELETE FROM deliveries WHERE received < ?", (cutoff,))
            return int(removed)

    def close(self) -> None:
        with self._lock:
            self._db.close()
