"""Turning journal events into syncs: per repo one at a time, several repos in parallel.

The dispatcher loop runs on the service's main thread: it picks repos whose events have
settled, hands each to a worker, and pings the systemd watchdog, so a stuck loop stops
the pings. A repo with a sync in flight is never picked again until it finishes; the
oldest waiting repo goes first, so one busy repo cannot starve the others.
"""

from __future__ import annotations

import threading
import time
import traceback
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from recalld.daemon.journal import Claim, Journal
from recalld.daemon.logs import get_logger
from recalld.ingest.errors import RecalldError
from recalld.ingest.result import SyncResult

log = get_logger("recalld.dispatch")
LOCK_PATIENCE = 10.0  # seconds to wait for git's index.lock before syncing anyway


@dataclass(slots=True)
class RepoState:
    last_result: dict[str, Any] | None = None
    last_error: str | None = None
    last_sync_at: float | None = None
    retry_at: float = 0.0
    failures: int = 0
    failed_events: frozenset[int] = frozenset()  # those of the last sync that failed
    fetch_error: str | None = None  # a webhook's fetch that failed at the last sync that fetched


@dataclass(slots=True)
class Dispatcher:
    journal: Journal
    sync_repo: Callable[[str, Claim], SyncResult]
    git_dir_of: Callable[[str], Path | None]
    registered: Callable[[str], bool] = lambda _repo: True
    workers: int = 2
    settle: float = 0.15
    states: dict[str, RepoState] = field(default_factory=dict)
    _inflight: dict[str, Future[None]] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _pool: ThreadPoolExecutor | None = None
    _locked_since: dict[str, float] = field(default_factory=dict)
    completed: int = 0

    def start(self) -> None:
        if self._pool is not None:
            return
        self._pool = ThreadPoolExecutor(max_workers=self.workers, thread_name_prefix="recalld-sync")

    def state(self, repo: str) -> RepoState:
        return self.states.setdefault(repo, RepoState())

    def busy(self) -> bool:
        with self._lock:
            return bool(self._inflight)

    def syncing(self, repo: str) -> bool:
        """Whether a sync of ``repo`` is running now."""
        with self._lock:
            return repo in self._inflight

    def idle(self) -> bool:
        """No sync running and none about to start: events of a repo whose syncs fail
        (backing off, up to five minutes between tries) wait without keeping the daemon
        from its idle upkeep. A repo that failed for good (its tracked branch deleted) had kept
        it from ever flushing the store, building the vector index or giving memory back."""
        if self.busy():
            return False
        now = time.time()
        return all(self._backing_off(repo, now) for repo in self.journal.pending())

    def tick(self) -> int:
        """Start syncs for every repo that is ready; returns how many were started."""
        assert self._pool is not None
        now = time.time()
        started = 0
        with self._lock:
            free = self.workers - len(self._inflight)
        if free <= 0:
            return 0
        for repo, oldest in sorted(self.journal.pending().items(), key=lambda item: item[1]):
            if started >= free:
                break
            with self._lock:
                if repo in self._inflight:
                    continue
            if not self.registered(repo):
                self._drop(repo)
                continue
            if self._backing_off(repo, now) or now - oldest < self.settle or self._git_busy(repo, now):
                continue
            claim = self.journal.claim(repo)
            if claim is None:
                continue
            with self._lock:
                self._inflight[repo] = self._pool.submit(self._run, claim)
            started += 1
        return started

    def _drop(self, repo: str) -> None:
        """Mark done the events of a repository no longer registered (``repo remove`` runs
        with the daemon stopped and leaves them): there is nothing to sync them into."""
        claim = self.journal.claim(repo)
        if claim is not None:
            self.journal.complete(claim)
            log.info("events of a repository no longer registered dropped", repo=repo, events=len(claim.ids))
        self.states.pop(repo, None)

    def _backing_off(self, repo: str, now: float) -> bool:
        """Whether ``repo``'s syncs failed lately and it waits out its backoff. An event that
        came after those of the failed sync ends the wait: a hook's or the watcher's news
        may be what mends it (the tracked branch made again, ``git branch main <commit>``,
        waited up to five minutes)."""
        state = self.state(repo)
        if state.retry_at <= now:
            return False
        if state.failed_events and self.journal.newer_than(repo, max(state.failed_events)):
            state.retry_at = 0.0
            return False
        return True

    def _git_busy(self, repo: str, now: float) -> bool:
        """Wait while git holds index.lock (a commit or checkout half done), within reason."""
        git_dir = self.git_dir_of(repo)
        if git_dir is None or not (git_dir / "index.lock").exists():
            self._locked_since.pop(repo, None)
            return False
        since = self._locked_since.setdefault(repo, now)
        return now - since < LOCK_PATIENCE

    def _run(self, claim: Claim) -> None:
        state = self.state(claim.repo)
        try:
            result = self.sync_repo(claim.repo, claim)
        except RecalldError as exc:
            self._failed(claim, state, exc.message)
            log.warning("sync failed", repo=claim.repo, error=exc.message, events=len(claim.ids))
        except Exception as exc:  # noqa: BLE001 - one bad event must not stop the daemon
            self._failed(claim, state, f"{type(exc).__name__}: {exc}")
            log.error("sync crashed", repo=claim.repo, events=list(claim.ids), traceback=traceback.format_exc())
        else:
            self.journal.complete(claim)
            state.last_result = result.as_dict()
            state.last_error = None
            state.last_sync_at = time.time()
            state.failures = 0
            self.completed += 1
            (log.debug if result.mode == "noop" else log.info)(result.summary(), **result.as_dict())
        finally:
            with self._lock:
                self._inflight.pop(claim.repo, None)

    def _failed(self, claim: Claim, state: RepoState, message: str) -> None:
        """Keep the events; try again later, backing off up to five minutes."""
        state.last_error = message
        state.failed_events = frozenset(claim.ids)
        state.failures += 1
        state.retry_at = time.time() + min(300.0, 2.0**state.failures)

    def retry_now(self, repo: str) -> None:
        """Asked for (``POST /v1/repos/{name}/sync``): a repo whose syncs failed is tried at
        the next tick, not after its backoff (the answer had been its last failure, untried)."""
        self.state(repo).retry_at = 0.0

    def drain(self, timeout: float) -> bool:
        """Wait for in-flight syncs to finish; False if some are still running."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            with self._lock:
                futures = list(self._inflight.values())
            if not futures:
                return True
            time.sleep(0.05)
        return False

    def stop(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)
