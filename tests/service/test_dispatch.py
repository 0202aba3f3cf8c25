"""The dispatcher: bursts coalesce into one sync, a repo never syncs concurrently with
itself, a slow repo does not starve the others, failures keep their events."""

from __future__ import annotations

import threading
import time
from pathlib import Path
from types import SimpleNamespace

from recalld.daemon.config import load_config
from recalld.daemon.dispatch import Dispatcher
from recalld.daemon.journal import Claim, Event, Journal
from recalld.ingest.errors import RecalldError
from recalld.daemon.service import Service
from recalld.ingest.result import SyncResult
from tests.conftest import GitRepo


class Recorder:
    def __init__(self, slow: set[str] | None = None, failing: set[str] | None = None) -> None:
        self.claims: list[Claim] = []
        self.running: set[str] = set()
        self.overlaps = 0
        self.release = threading.Event()
        self.slow = slow or set()
        self.failing = failing or set()
        self.lock = threading.Lock()

    def __call__(self, repo: str, claim: Claim) -> SyncResult:
        with self.lock:
            if repo in self.running:
                self.overlaps += 1
            self.running.add(repo)
            self.claims.append(claim)
        try:
            if repo in self.slow:
                self.release.wait(10)
            if repo in self.failing:
                raise RecalldError("remote unreachable")
            return SyncResult(repo, "main", None, None)
        finally:
            with self.lock:
                self.running.discard(repo)


def run_until(dispatcher: Dispatcher, done, timeout: float = 10) -> None:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout
    while not done():
        assert time.monotonic() < deadline
        dispatcher.tick()
        time.sleep(0.01)


def make(tmp_path: Path, recorder: Recorder, git_dirs: dict[str, Path] | None = None) -> tuple[Journal, Dispatcher]:
    journal = Journal(tmp_path / "journal.db")
    dispatcher = Dispatcher(journal=journal, sync_repo=recorder, git_dir_of=(git_dirs or {}).get, workers=2, settle=0.0)
    dispatcher.start()
    return journal, dispatcher


def test_burst_coalesces_and_slow_repo_does_not_block_others(tmp_path):
    recorder = Recorder(slow={"slow"})
    journal, dispatcher = make(tmp_path, recorder)
    try:
        for source in ("hook", "watcher", "webhook", "timer"):
            journal.append(Event("slow", source))
        run_until(dispatcher, lambda: "slow" in recorder.running)
        for _ in range(3):
            journal.append(Event("slow", "hook"))  # arrive while its sync runs
            journal.append(Event("fast", "hook"))
        run_until(dispatcher, lambda: not journal.depth().get("fast"))
        assert [len(c.ids) for c in recorder.claims if c.repo == "fast"][0] >= 1
        assert journal.depth() == {"slow": 7}  # slow's first burst is still in flight
        recorder.release.set()
        run_until(dispatcher, lambda: not journal.pending() and not dispatcher.busy())
        slow_claims = [c for c in recorder.claims if c.repo == "slow"]
        assert len(slow_claims[0].ids) == 4 and sum(len(c.ids) for c in slow_claims) == 7
        assert recorder.overlaps == 0
    finally:
        dispatcher.stop()
        journal.close()


def test_failed_sync_keeps_its_events_and_backs_off(tmp_path):
    recorder = Recorder(failing={"broken"})
    journal, dispatcher = make(tmp_path, recorder)
    try:
        journal.append(Event("broken", "hook"))
        run_until(dispatcher, lambda: dispatcher.state("broken").last_error is not None)
        run_until(dispatcher, lambda: not dispatcher.busy())
        assert journal.depth() == {"broken": 1}
        assert dispatcher.state("broken").retry_at > time.time()
        dispatcher.tick()
        assert len(recorder.claims) == 1  # not retried before the back-off ends
        assert dispatcher.idle()  # its waiting events keep no idle upkeep from running
        journal.append(Event("other", "hook"))
        assert not dispatcher.idle()  # another repo's event: a sync is about to start
        run_until(dispatcher, lambda: not journal.depth().get("other") and not dispatcher.busy())
        assert dispatcher.idle() and len(recorder.claims) == 2
        # news of the failing repo (its branch made again, seen by the watcher) is tried at
        # once: it waited out the backoff, up to five minutes
        journal.append(Event("broken", "watcher"))
        assert not dispatcher.idle()
        run_until(dispatcher, lambda: len(recorder.claims) == 3)
        assert recorder.claims[-1].repo == "broken" and len(recorder.claims[-1].ids) == 2
        run_until(dispatcher, lambda: not dispatcher.busy())
        assert dispatcher.state("broken").retry_at > time.time() and dispatcher.idle()  # failed again: backs off
    finally:
        dispatcher.stop()
        journal.close()


def test_waits_while_git_holds_index_lock(tmp_path):
    git_dir = tmp_path / "git"
    git_dir.mkdir()
    (git_dir / "index.lock").write_text("")
    recorder = Recorder()
    journal, dispatcher = make(tmp_path, recorder, {"r": git_dir})
    try:
        journal.append(Event("r", "hook"))
        for _ in range(5):
            dispatcher.tick()
            time.sleep(0.02)
        assert recorder.claims == []
        (git_dir / "index.lock").unlink()
        run_until(dispatcher, lambda: not journal.pending() and not dispatcher.busy())
        assert len(recorder.claims) == 1
    finally:
        dispatcher.stop()
        journal.close()


def test_has_newer_sees_only_later_events_of_the_claims_repo(tmp_path):
    journal = Journal(tmp_path / "journal.db")
    try:
        journal.append(Event("a", "hook"))
        journal.append(Event("a", "watcher"))
        claim = journal.claim("a")
        assert claim is not None and not journal.has_newer(claim)
        journal.append(Event("b", "hook"))
        assert not journal.has_newer(claim)
        journal.append(Event("a", "hook"))
        assert journal.has_newer(claim)
        journal.complete(claim)
        assert journal.has_newer(claim)  # the later event is still waiting
    finally:
        journal.close()


def test_the_daemon_stops_a_history_backfill_for_a_newer_event_or_a_stop(tmp_path):
    """The service hands each sync a ``stop_history`` that is true once the daemon is
    stopping, and a ``yield_history`` that is true once an event for the repo came after
    the claim (a commit made during a first sync's history backfill is synced next, not
    after the rest of the history)."""
    repo = GitRepo(tmp_path / "widgets")
    repo.write("a.py", "def a():\n    return 1\n")
    repo.commit("one")
    service = Service(load_config())
    asked: list[tuple[bool, bool]] = []

    def sync(*, stop_history, yield_history, **_kw):  # type: ignore[no-untyped-def]
        asked.append((stop_history(), yield_history()))
        if len(asked) == 1:
            service.stop()
        else:
            service.journal.append(Event("widgets", "hook"))
        asked.append((stop_history(), yield_history()))
        return SyncResult("widgets", "main", None, None)

    try:
        service.app.registry.add("widgets", str(repo.path), "main")
        service.app.__dict__["indexer"] = SimpleNamespace(sync=sync)
        service.journal.append(Event("widgets", "hook"))
        claim = service.journal.claim("widgets")
        assert claim is not None
        service._sync_repo("widgets", claim)
        assert asked == [(False, False), (True, False)]  # stopping
        service._stop.clear()
        service._sync_repo("widgets", claim)
        assert asked[2:] == [(False, False), (False, True)]  # a newer event
    finally:
        service.close()


def test_startup_is_ready_while_a_repo_that_fails_backs_off(tmp_path):
    """A registered repo whose sync fails at start (its tracked branch deleted) backs off
    and keeps its event; the daemon's start goes on to ready rather than waiting for it,
    and the daemon counts as idle meanwhile (its upkeep runs)."""
    repo = GitRepo(tmp_path / "widgets")
    repo.write("a.py", "def a():\n    return 1\n")
    repo.commit("one")
    service = Service(load_config())
    try:
        service.app.registry.add("widgets", str(repo.path), "gone")
        service.dispatcher.start()
        service._register_repos()
        done = threading.Event()
        threading.Thread(target=lambda: (service._reconcile_all("startup"), done.set()), daemon=True).start()
        assert done.wait(60), "startup waited for a repo that keeps failing"  # its sync exports the model first
        assert service.dispatcher.state("widgets").last_error and service.journal.depth() == {"widgets": 1}
        assert service.dispatcher.idle()
    finally:
        service.stop()
        service.close()


def test_a_failed_fetch_defers_its_webhook_events_and_holds_up_no_other(tmp_path, monkeypatch):
    """A webhook's fetch that fails: its events wait out a backoff apart, the claim's other
    events are done, and it is fetched again when due, up to the tries allowed."""
    from recalld.daemon import webhooks

    monkeypatch.setattr(webhooks, "FETCH_BACKOFF", 0.2)
    monkeypatch.setattr(webhooks, "FETCH_TRIES", 3)
    upstream = GitRepo(tmp_path / "upstream")
    upstream.write("a.py", "x = 1\n")
    upstream.commit("one")
    remote, moved = tmp_path / "remote.git", tmp_path / "away.git"
    upstream.git("clone", "-q", "--bare", str(upstream.path), str(remote))
    clone = tmp_path / "clone"
    upstream.git("clone", "-q", str(remote), str(clone))
    remote.rename(moved)
    journal = Journal(tmp_path / "journal.db")
    journal.append(Event("w", "webhook", {"fetch": "origin"}))
    journal.append(Event("w", "hook", {}))

    claim = journal.claim("w")
    assert claim is not None and len(claim.ids) == 2
    failed = webhooks.fetch_claimed(journal, claim, str(clone))
    assert failed is not None and "git fetch origin failed" in failed and "(try 1 of 3; again in 0 s)" in failed
    time.sleep(0.25)  # the sync outlasts the wait: its claim still leaves the deferred event pending
    journal.complete(claim)
    assert journal.depth() == {"w": 1}  # the hook's event done, the fetch's waits
    due = journal.claim("w")
    assert due is not None and [e.detail for e in due.events] == [{"fetch": "origin", "tries": 1}]
    moved.rename(remote)
    assert webhooks.fetch_claimed(journal, due, str(clone)) is None
    journal.complete(due)
    assert journal.depth() == {}

    monkeypatch.setattr(webhooks, "FETCH_BACKOFF", 60.0)  # until it is due, out of every claim
    remote.rename(moved)
    journal.append(Event("v", "webhook", {"fetch": "origin"}))
    first = journal.claim("v")
    assert first is not None and webhooks.fetch_claimed(journal, first, str(clone)) is not None
    journal.complete(first)
    assert journal.pending() == {} and journal.depth() == {"v": 1}
    journal.append(Event("v", "hook", {}))
    later = journal.claim("v")
    assert later is not None and [e.source for e in later.events] == ["hook"] and not journal.has_newer(later)
    journal.complete(later)
    assert journal.depth() == {"v": 1}

    monkeypatch.setattr(webhooks, "FETCH_BACKOFF", 0.2)  # gone for good: tried FETCH_TRIES times, then given up
    journal.append(Event("w", "webhook", {"fetch": "origin"}))
    for tries in (1, 2, 3):
        time.sleep(0.45)
        claim = journal.claim("w")
        assert claim is not None, tries
        said = webhooks.fetch_claimed(journal, claim, str(clone))
        journal.complete(claim)
        assert said is not None and (f"try {tries} of 3" in said if tries < 3 else "given up after 3 tries" in said)
    assert journal.depth() == {"v": 1}


def test_a_journal_of_an_earlier_version_is_read_and_deferrable(tmp_path):
    import sqlite3

    path = tmp_path / "journal.db"
    db = sqlite3.connect(path)
    db.executescript("CREATE TABLE events (id INTEGER PRIMARY KEY AUTOINCREMENT, repo TEXT NOT NULL,"
                     " source TEXT NOT NULL, detail TEXT NOT NULL, created REAL NOT NULL, done REAL);"
                     "INSERT INTO events (repo, source, detail, created) VALUES ('r', 'hook', '{}', 1.0);")  # fmt: skip
    db.commit()
    db.close()
    journal = Journal(path)
    claim = journal.claim("r")
    assert claim is not None and claim.events == (Event("r", "hook", {}),)
    journal.defer(claim.ids, [{"tries": 1}], time.time() + 60)
    journal.complete(claim)
    assert journal.claim("r") is None and journal.depth() == {"r": 1}


def test_events_of_a_repository_no_longer_registered_are_dropped(tmp_path):
    """``repo remove`` (run with the daemon stopped) leaves the events the journal holds of
    that repository: the daemon tried to sync it at every start and after every backoff, up
    to five minutes apart for as long as it ran, each a warning "unknown repo". They are done,
    logged once, and no sync is tried."""
    service = Service(load_config())
    try:
        service.journal.append(Event("removed", "watcher"))
        service.journal.append(Event("removed", "hook"))
        service.dispatcher.start()
        run_until(service.dispatcher, lambda: not service.journal.depth())
        assert service.dispatcher.state("removed").last_error is None and service.dispatcher.idle()
    finally:
        service.stop()
        service.close()
