"""The registered repositories, kept in the state directory's SQLite database."""

from __future__ import annotations

import sqlite3
import time
from dataclasses import dataclass
from pathlib import Path

from recalld.daemon.terminal import is_name
from recalld.ingest.errors import NotFoundError, RecalldError
from recalld.ingest.manual import MAX_NAME


@dataclass(frozen=True, slots=True)
class RepoEntry:
    name: str
    path: str
    branch: str
    added_at: int


def check_name(name: str) -> None:
    # as long as a manual memory's repo may be: a repository registered under a longer name
    # could hold none (``remember --repo`` refused it), and it was carried by every memory
    if len(name) > MAX_NAME:  # told by its length: the name is not echoed
        raise RecalldError(f"a repository's name is at most {MAX_NAME} characters (this one has {len(name)}):"
                           " choose one with --name")  # fmt: skip
    # "." and "..": an HTTP client reads them in a URL's path as the path's own steps (RFC 3986),
    # and curl asked for /v1/symbols where /v1/repos/../symbols was meant
    if not is_name(name) or "/" in name or name in (".", ".."):
        raise RecalldError(f"{name!r} cannot name a repository: a name is printable, not blank, without '/',"
                           " not '.' or '..' (choose one with --name)")  # fmt: skip


class RepoRegistry:
    def __init__(self, db_path: Path) -> None:
        db_path.parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(str(db_path), timeout=30, check_same_thread=False, isolation_level=None)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute(
            "CREATE TABLE IF NOT EXISTS repos (name TEXT PRIMARY KEY, path TEXT NOT NULL,"
            " branch TEXT NOT NULL, added_at INTEGER NOT NULL)"
        )
        self._db.commit()

    def add(self, name: str, path: str, branch: str) -> RepoEntry:
        check_name(name)
        existing = self.find(name)
        if existing is not None:
            if (existing.path, existing.branch) == (path, branch):
                return existing
            raise RecalldError(
                f"a repo named {name!r} is already registered ({existing.path} @ {existing.branch});"
                " choose another --name or remove it first"
            )
        entry = RepoEntry(name, path, branch, int(time.time()))
        row = (entry.name, entry.path, entry.branch, entry.added_at)
        self._db.execute("INSERT INTO repos VALUES (?, ?, ?, ?)", row)
        self._db.commit()
        return entry

    def update(self, name: str, *, path: str, branch: str) -> RepoEntry:
        """Re-point a registration: its name, and so its memories, stay."""
        entry = self.get(name)
        self._db.execute("UPDATE repos SET path = ?, branch = ? WHERE name = ?", (path, branch, name))
        self._db.commit()
        return RepoEntry(entry.name, path, branch, entry.added_at)

    def remove(self, name: str) -> None:
        self.get(name)
        self._db.execute("DELETE FROM repos WHERE name = ?", (name,))
        self._db.commit()

    def find(self, name: str) -> RepoEntry | None:
        row = self._db.execute("SELECT name, path, branch, added_at FROM repos WHERE name = ?", (name,)).fetchone()
        return RepoEntry(*row) if row else None

    def get(self, name: str) -> RepoEntry:
        return self.get_each([name])[0]

    def get_each(self, names: list[str]) -> list[RepoEntry]:
        """The registrations of ``names``, in order; else one error naming every unknown name."""
        found = [self.find(name) for name in names]
        unknown = [repr(name) for name, entry in zip(names, found, strict=True) if entry is None]
        if unknown:
            known = ", ".join(e.name for e in self.all())
            said = f"known: {known}" if known else "none is registered: add one with `recalld repo add PATH`"
            raise NotFoundError(f"unknown repo{'s' * (len(unknown) > 1)} {', '.join(unknown)} ({said})")
        return [entry for entry in found if entry is not None]

    def all(self) -> list[RepoEntry]:
        rows = self._db.execute("SELECT name, path, branch, added_at FROM repos ORDER BY name").fetchall()
        return [RepoEntry(*row) for row in rows]

    def followed(self, name: str | None = None) -> tuple[tuple[str, str], ...]:
        """Each registration's (or ``name``'s) repository and the branch it follows, as
        ``MemoryFilter.followed`` takes them: what a search reads of a store that holds
        other branches too (a server's collection other writers share, a renamed branch's
        points a ``repo set`` stopped early left)."""
        entries = self.all() if name is None else [self.get(name)]
        return tuple((entry.name, entry.branch) for entry in entries)

    def sole(self) -> RepoEntry | None:
        """The repository when exactly one is registered (what a command may take for
        granted without being told which), else None."""
        entries = self.all()
        return entries[0] if len(entries) == 1 else None

    def close(self) -> None:
        self._db.close()
