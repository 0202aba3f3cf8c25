"""Watching each repository's git dir so commits, checkouts, fetches and resets are seen
even without hooks. Handlers only append to the journal.

Only HEAD, packed-refs, refs/, a shallow clone's shallow file (a fetch that deepens
it moves no ref) and info/attributes (what it says of files is no part of a commit)
matter; objects/ and the index are ignored. If the
watch cannot be set up (inotify watch limit, missing dir) the repo is marked unhealthy
in status and a reconcile is queued: never silence. The same when the kernel's inotify
queue overflows (events lost): watchdog reports that only through its logger, so we
listen there.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from pathlib import Path

from watchdog.events import FileSystemEvent, FileSystemEventHandler
from watchdog.observers import Observer
from watchdog.observers.api import ObservedWatch

from recalld.daemon.journal import Event, Journal
from recalld.daemon.logs import get_logger

log = get_logger("recalld.watch")
INTERESTING = ("HEAD", "packed-refs", "ORIG_HEAD", "FETCH_HEAD", "shallow")
WATCHDOG_LOGGER = "watchdog.observers"


def is_interesting(git_dir: Path, path: str) -> bool:
    try:
        relative = Path(path).relative_to(git_dir)
    except ValueError:
        return False
    parts = relative.parts
    if not parts or parts[-1].endswith(".lock"):
        return False
    return parts[0] == "refs" or (len(parts) == 1 and parts[0] in INTERESTING) or parts == ("info", "attributes")


class _RefHandler(FileSystemEventHandler):
    def __init__(self, repo: str, git_dirs: tuple[Path, ...], record: Callable[[Event], None]) -> None:
        self._repo = repo
        self.git_dirs = git_dirs
        self._record = record
        self.lost = False  # a git dir watched was deleted or moved away: its watch sees nothing more

    def on_any_event(self, event: FileSystemEvent) -> None:
        if event.event_type in ("opened", "closed_no_write"):
            return
        if event.event_type in ("deleted", "moved") and Path(str(event.src_path)) in self.git_dirs:
            self.lost = True
        paths = [str(event.src_path), str(getattr(event, "dest_path", "") or "")]
        if any(is_interesting(d, p) for d in self.git_dirs for p in paths if p):
            self._record(Event(self._repo, "watcher", {"path": paths[-1] or paths[0]}))


class _JournalHandler(FileSystemEventHandler):
    """Wakes the service's loop when another process writes the journal (a hook's
    ``recalld notify``): its SQLite file or write-ahead log modified."""

    def __init__(self, journal: Journal) -> None:
        self._journal = journal
        self._names = {journal.path.name, f"{journal.path.name}-wal"}

    def on_any_event(self, event: FileSystemEvent) -> None:
        if event.event_type in ("modified", "closed", "created") and Path(str(event.src_path)).name in self._names:
            self._journal.poke()


class _OverflowListener(logging.Handler):
    """Notices watchdog's "Inotify queue overflowed" warnings."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.overflowed = threading.Event()

    def emit(self, record: logging.LogRecord) -> None:
        if "overflow" in record.getMessage().lower():
            self.overflowed.set()


class RepoWatcher:
    def __init__(self, journal: Journal) -> None:
        self._journal = journal
        self._observer = Observer()
        self._observer.daemon = True
        self.health: dict[str, str] = {}
        self._lock = threading.Lock()
        self._overflow = _OverflowListener()
        self._journal_watch = False
        self._gate = threading.Lock()  # held while an event is recorded; stop() closes it for good
        self._recording = True
        self._watched: dict[str, tuple[_RefHandler, list[ObservedWatch]]] = {}  # each repo's handler and watches
        logging.getLogger(WATCHDOG_LOGGER).addHandler(self._overflow)

    def add(self, repo: str, git_dirs: tuple[Path, ...]) -> None:
        """Watch a repo's git dirs; a watch that cannot be set up is reported, not raised.

        The observer runs before the first watch is scheduled: only a running observer
        sets a watch up at once (and so fails at once on a missing dir or the limit)."""
        self.start()
        handler = _RefHandler(repo, git_dirs, self._record)
        watches: list[ObservedWatch] = []
        self._watched[repo] = (handler, watches)
        try:
            for git_dir in dict.fromkeys(git_dirs):
                watches.append(self._observer.schedule(handler, str(git_dir), recursive=False))
                if (git_dir / "refs").is_dir():
                    watches.append(self._observer.schedule(handler, str(git_dir / "refs"), recursive=True))
                if (git_dir / "info").is_dir():
                    watches.append(self._observer.schedule(handler, str(git_dir / "info"), recursive=False))
        except OSError as exc:
            self.health[repo] = f"not watched: {exc.strerror or exc}; relying on hooks and the periodic reconcile"
            log.warning("watch failed", repo=repo, error=str(exc))
            self._journal.append(Event(repo, "watcher", {"reconcile": True, "reason": "watch failed"}))
            return
        self.health[repo] = "ok"

    def replaced(self) -> list[str]:
        """The repos one of whose git dirs was deleted or moved away, or is not there (the
        repository deleted, or cloned again where it was): their watches see nothing of it
        any more. Each is no longer watched, and says so in status, until ``add`` watches
        it again."""
        gone = [repo for repo, (handler, _w) in self._watched.items()
                if handler.lost or not all(d.is_dir() for d in handler.git_dirs)]  # fmt: skip
        for repo in gone:
            handler, watches = self._watched.pop(repo)
            for watch in watches:  # the emitter too: a new watch of its path would join a stopped one
                try:
                    self._observer.unschedule(watch)
                except KeyError:
                    pass  # another repository's of the same path went with it
            self.health[repo] = "not watched: its git dir was deleted or replaced; watching it again once it is back"
            log.warning("git dir gone or replaced", repo=repo)
        return gone

    def watch_journal(self) -> bool:
        """Wake the service's loop on the journal's writes by other processes, so that an
        idle loop may sleep long (``journal_watched``); False if the watch cannot be set up."""
        self.start()
        try:
            self._observer.schedule(_JournalHandler(self._journal), str(self._journal.path.parent), recursive=False)
        except OSError as exc:
            log.warning("cannot watch the journal: the idle loop looks at it every tick", error=str(exc))
            return False
        self._journal_watch = True
        return True

    @property
    def journal_watched(self) -> bool:
        """Whether another process's append wakes the loop (the watch up, its thread alive)."""
        return self._journal_watch and self._observer.is_alive()

    def start(self) -> None:
        with self._lock:
            if not self._observer.is_alive():
                self._observer.start()

    def check(self, on_failure: Callable[[str], None]) -> None:
        """Events lost (inotify queue overflow) or the observer thread died: say so in
        status and reconcile every watched repo."""
        if self._overflow.overflowed.is_set():
            self._overflow.overflowed.clear()
            when = time.strftime("%Y-%m-%d %H:%M:%S")
            log.warning("inotify queue overflowed; reconciling every repo")
            self._mark_watched(f"ok (inotify queue overflowed at {when}; reconciled)", on_failure)
        if not self._observer.is_alive():
            self._mark_watched("watcher stopped; relying on hooks and the periodic reconcile", on_failure)

    def _mark_watched(self, health: str, on_failure: Callable[[str], None]) -> None:
        """Every repo watched until now gets ``health`` and a reconcile."""
        for repo in list(self.health):
            if self.health[repo].startswith("ok"):
                self.health[repo] = health
                on_failure(repo)

    def _record(self, event: Event) -> None:
        """``event`` appended to the journal, unless the watcher was stopped: the journal may
        be closed by then (its observer's thread can outlast the join of ``stop``), and the
        next start reconciles every repository anyway."""
        with self._gate:
            if self._recording:
                self._journal.append(event)

    def stop(self) -> None:
        with self._gate:
            self._recording = False
        logging.getLogger(WATCHDOG_LOGGER).removeHandler(self._overflow)
        if self._observer.is_alive():
            self._observer.stop()
            self._observer.join(timeout=2)
