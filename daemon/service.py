"""`recalld serve`: one process owning the store, keeping every registered repo exact.

startup (config, store, API, model, reconcile every repo) → READY → main loop
(dispatch journal events, watchdog pings) → graceful shutdown on SIGTERM/SIGINT/SIGHUP.
"""

from __future__ import annotations

import os
import signal
import threading
import time
from contextlib import nullcontext
from pathlib import Path
from typing import Any

from recalld.daemon import restart, sdnotify, webhooks
from recalld.daemon.app import App
from recalld.daemon.asof import warm_states
from recalld.daemon.branch_points import followed
from recalld.daemon.client import STARTING_SUFFIX
from recalld.daemon.config import Config
from recalld.daemon.dispatch import Dispatcher
from recalld.daemon.journal import Claim, Event, Journal
from recalld.daemon.logs import get_logger
from recalld.daemon.progress import StartupProgress, ping_period, starting
from recalld.daemon.runtime_files import ensure_token, remove_if_ours, write_whole
from recalld.daemon.store_wait import wait_for_server
from recalld.daemon.query import repo_status, vectors_status
from recalld.daemon.server import ApiServer
from recalld.daemon.tasks import start_scheduler
from recalld.daemon.upkeep import StoreUpkeep, limit_malloc_arenas
from recalld.daemon.watch import RepoWatcher
from recalld.ingest.child import stop_children
from recalld.ingest.errors import BusyError, RecalldError, StoreServerError
from recalld.ingest.gitrepo import GitRepository
from recalld.ingest.locked import LockedStore
from recalld.ingest.store import StoreLockedError
from recalld.ingest.store_lock import LOCK_NAME, drop_inherited, keep_across_exec, wait_for_lock
from recalld.ingest.result import NoProgress, SyncResult

log = get_logger("recalld.service")
SHUTDOWN_GRACE = 8.0
STORE_WAIT = 60.0  # seconds a starting daemon waits for a command that has the store open
TICK = 0.1  # the loop's pause while syncs run or events wait their turn
IDLE_TICK = 1.0  # its longest pause when idle, where another process's append wakes it (the journal watched)


class Service:
    def __init__(self, config: Config) -> None:
        limit_malloc_arenas()
        self.config = config
        self.state = "starting"
        lineage = restart.lineage()  # set when this program replaced a daemon restarting in place
        self.started_at = float(lineage.get("started") or time.time())
        self.restarts = int(lineage.get("restarts") or 0)
        self.recycler = restart.Recycler(int(config.get("daemon", "restart_over_mb")))
        self.restart_env: dict[str, str] | None = None  # set when run() returns for a restart
        self._restarting = False
        self._terminated = False
        self.app = App(config)
        self.journal = Journal(config.journal_db)
        self.token = ensure_token(config.token_file)
        self.max_body = int(config.get("webhooks", "max_body_bytes"))
        self._stop = threading.Event()
        self._git_dirs: dict[str, Path] = {}
        self._unavailable: set[str] = set()  # registered repos whose path is not a git repo (warned once)
        self.dispatcher = Dispatcher(
            journal=self.journal,
            sync_repo=self._sync_repo,
            git_dir_of=self._git_dirs.get,
            registered=lambda repo: self.app.registry.find(repo) is not None,
            workers=int(config.get("daemon", "workers")),
            settle=config.get("daemon", "settle_ms") / 1000,
        )
        self.watcher = RepoWatcher(self.journal) if config.get("daemon", "watch") else None
        self.upkeep: StoreUpkeep | None = None  # made by the main loop, around the locked store

    # -- used by the API and the scheduler -------------------------------------------------
    def enqueue(self, repo: str, source: str, detail: dict[str, Any] | None = None) -> int:
        return self.journal.append(Event(repo, source, detail or {}))

    def wait_for(self, repo: str, event_id: int, *, timeout: float) -> dict[str, Any]:
        """The result of the sync that takes the event, or its error (not an earlier one's)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline and not self._stop.is_set():
            if self.journal.is_done(event_id):
                return self.dispatcher.state(repo).last_result or {}
            state = self.dispatcher.state(repo)
            if event_id in state.failed_events:
                raise RecalldError(f"sync of {repo} failed: {state.last_error}")
            time.sleep(0.02)
        if self._stop.is_set():
            raise RecalldError(f"recalld serve is stopping: the sync of {repo} asked for is left to its next start"
                               " (the event stays in its journal)")  # fmt: skip
        where = "still running" if self.dispatcher.syncing(repo) else "still queued"
        within = f"{timeout:.0f}" if timeout >= 1 else f"{timeout:.2g}"  # timeout=0.0001 said "within 0 s"
        raise RecalldError(f"sync of {repo} did not finish within {within} s ({where}; it goes on)")

    def status(self) -> dict[str, Any]:
        """What the daemon and each repo are doing. While the store is busy (its vector
        index being built, or memories sealed, in place), what only the store knows
        (memories, indexed commit) is left out and ``busy`` says why: a status is asked for
        to see what the daemon is doing. While it builds or seals on a copy, it is all
        there and ``busy`` says so too."""
        entries = self.app.registry.all()
        uptime = round(time.time() - self.started_at, 1)
        daemon: dict[str, Any] = {"state": self.state, "pid": os.getpid(), "uptime": uptime, "restarts": self.restarts}
        try:
            vectors: dict[str, Any] | None = vectors_status(self.app)
            repos = [repo_status(self.app, entry.name) for entry in entries]
        except (BusyError, StoreServerError) as exc:  # a Qdrant server that does not answer: said the same way
            daemon["busy" if isinstance(exc, BusyError) else "store_error"], vectors = exc.message, None
            repos = [{"repo": entry.name, "path": entry.path, "branch": entry.branch} for entry in entries]
        store = self.app.store
        shared = store.sharing if isinstance(store, LockedStore) else None
        if "busy" not in daemon and shared and (held := store.held()):
            daemon["busy"] = f"{held}; {store.meanwhile()}"
        depth = self.journal.depth()
        for item in repos:
            state = self.dispatcher.state(item["repo"])
            item.update(
                queue_depth=depth.get(item["repo"], 0),
                last_result=state.last_result,
                last_error=state.last_error,
                fetch_error=state.fetch_error,
                last_sync_at=state.last_sync_at,
                watcher=self.watcher.health.get(item["repo"], "not watched") if self.watcher else "disabled",
                lag_seconds=self._lag_seconds(item),
            )
        return {"daemon": daemon, "vectors": vectors, "repos": repos}

    # -- lifecycle ------------------------------------------------------------------------------
    def run(self) -> int:
        self._install_signal_handlers()
        if self.config.store_url and not wait_for_server(lambda: self.app.store, self._stop):
            self.journal.close()
            return 0  # told to stop while its Qdrant server did not answer
        self._write_starting()
        try:
            if not self._take_store():
                return 0
            self.app.store = LockedStore(self.app.store)
            server = ApiServer(self.config, self)
            server.start()
            self._write_runtime(server.address)
        finally:
            self._remove_starting()
        try:
            self.app.embeddings.embedder  # noqa: B018 - load the model before READY
            self.app.indexer.ensure_space(StartupProgress())  # a model changed in config: every vector again
            drop_inherited()
            self.recycler.mark_baseline()
            self.dispatcher.start()
            self._register_repos()
            self._reconcile_all("startup")
            if not self._stop.is_set():
                self.state = "ready"
                sdnotify.notify(f"READY=1\nSTATUS={self._summary()}")
                log.info("ready", repos=len(self._git_dirs), address=server.address)
            scheduler = start_scheduler(self)
            try:
                self._main_loop()
            finally:
                scheduler.shutdown(wait=False)
        finally:
            self._shutdown(server)
        return 0

    def _main_loop(self) -> None:
        interval = sdnotify.watchdog_interval()
        next_ping = 0.0
        next_status = 0.0
        self.upkeep = upkeep = StoreUpkeep(
            self.app.store,
            idle=self.dispatcher.idle,
            activity=lambda: self.dispatcher.completed,
            stopping=self._stop.is_set,
            release_model=self.app.embeddings.release,
            released=self._restart_if_due,
            warm=self._warm_queries,
        )
        if self.watcher is not None:
            self.watcher.watch_journal()
        while not self._stop.is_set():
            self.dispatcher.tick()
            upkeep.tick()
            if self.watcher is not None:
                self.watcher.check(lambda repo: self.enqueue(repo, "watcher", {"reconcile": True}))
            now = time.monotonic()
            if interval is not None and now >= next_ping:
                sdnotify.notify("WATCHDOG=1")
                next_ping = now + interval
            if now >= next_status:
                for name in self.watcher.replaced() if self.watcher is not None else ():
                    self._git_dirs.pop(name, None)  # registered again below, when it is back
                for name in self._register_repos():
                    self.enqueue(name, "registered")
                sdnotify.notify(f"STATUS={self._summary()}")
                next_status = now + 5
            self.journal.wait(self._pause(next_status if interval is None else min(next_status, next_ping)))

    def _pause(self, until: float) -> float:
        """How long the loop sleeps: ``TICK`` while a sync runs or events wait their turn,
        and where only its look would find a hook's events (no journal watch); else up to
        ``IDLE_TICK``, and no later than ``until`` (its next timed step). An append in this
        process, another's in the watched journal, and a stop wake it at once: a missed
        wake costs at most an idle pause, never an event."""
        if not self.dispatcher.idle() or self.watcher is None or not self.watcher.journal_watched:
            return TICK
        return max(TICK, min(IDLE_TICK, until - time.monotonic()))

    def _warm_queries(self) -> None:
        """What the first as-of question of each repository would read (upkeep, when idle)."""
        branches = [(entry.name, entry.branch) for entry in self.app.registry.all()]
        warm_states(self.app.store, branches, self._stop.is_set)

    def _restart_if_due(self) -> None:
        """Called when idle, after the last syncs' memory was released (see daemon/restart.py)."""
        grown = self.recycler.due()
        if grown is None or self._stop.is_set():
            return
        log.info("restarting in place to give back memory", grown_mb=grown, over_mb=self.recycler.over_mb)
        self._restarting = True
        self._stop.set()

    def _reconcile_all(self, source: str) -> None:
        for name in self._git_dirs:
            self.enqueue(name, source)
        next_ping = 0.0
        # until every repo is synced or backing off after a failure (it is tried again later)
        while not self._stop.is_set() and not self.dispatcher.idle():
            self.dispatcher.tick()
            now = time.monotonic()
            if now >= next_ping:  # the first index of a large repository can outlast TimeoutStartSec
                starting(f"startup: syncing, {sum(self.journal.depth().values())} events queued")
                next_ping = now + ping_period()
            time.sleep(TICK)

    def _register_repos(self) -> list[str]:
        """Watch every registered repo not watched yet; returns the names added
        (at start: all; later: those `recalld repo add` registered meanwhile)."""
        added = []
        for entry in self.app.registry.all():
            if entry.name in self._git_dirs:
                continue
            try:
                git = GitRepository(entry.path)
            except RecalldError as exc:
                if entry.name not in self._unavailable:
                    log.warning("repo unavailable", repo=entry.name, error=exc.message)
                    self._unavailable.add(entry.name)
                continue
            self._unavailable.discard(entry.name)
            self._git_dirs[entry.name] = Path(git.git_dir)
            added.append(entry.name)
            if self.watcher is not None:
                dirs = tuple(dict.fromkeys([Path(git.git_dir), Path(git.common_dir)]))
                self.watcher.add(entry.name, dirs)
        return added

    def _sync_repo(self, repo: str, claim: Claim) -> SyncResult:
        store = self.app.store  # another worker's sync may seal what it wrote meanwhile: wait for it
        with store.patient() if isinstance(store, LockedStore) else nullcontext():
            # its rename followed, its strays counted: the store's calls wait for a seal too
            entry = followed(self.app, self.app.registry.get(repo), progress=NoProgress())
            if any(e.detail.get("fetch") for e in claim.events):
                state = self.dispatcher.state(repo)
                state.fetch_error = webhooks.fetch_claimed(self.journal, claim, entry.path)
                if state.fetch_error:
                    log.warning("fetch failed: syncing what the repository has", repo=repo, error=state.fetch_error)
            full = any(e.detail.get("full") for e in claim.events)
            result = self.app.indexer.sync(
                repo=entry.name, path=entry.path, branch=entry.branch, full=full,
                # a new commit goes before old history, and a stopping daemon leaves it to its next start
                stop_history=self._stop.is_set, yield_history=lambda: self.journal.has_newer(claim),
            )  # fmt: skip
        if result.mode != "noop":
            self.recycler.worked = True
        return result

    def _shutdown(self, server: ApiServer) -> None:
        """Stop everything. For a restart in place (and no SIGTERM meanwhile) the API's
        socket and the store's lock are kept for the next program: ``restart_env``."""
        restarting = self._restarting and not self._terminated
        self.state = "restarting" if restarting else "stopping"
        sdnotify.notify("STATUS=restarting in place to give back memory" if restarting else "STOPPING=1")
        if restarting:  # before the API stops answering: a client that gets no answer then reads it
            self._write_runtime(server.address, restarting=True)
        handover = server.stop(hand_over=restarting)
        if self.watcher is not None:
            self.watcher.stop()
        if self.upkeep is not None:  # an index build under way: ended, its child stopped, before syncs drain
            self.upkeep.end()
        drained = self.dispatcher.drain(SHUTDOWN_GRACE)
        if restarting:
            handover.update(keep_across_exec())
        else:
            self._remove_runtime()
        if not drained:
            log.warning("stopping with a sync in flight; its events stay in the journal for the next start")
            if restarting:  # the next program replays it, as after a kill
                self.restart_env = handover
                return
            os._exit(0)
        self.close()
        self.state = "stopped"
        if restarting:
            self.restart_env = handover
        else:
            log.info("stopped")

    def close(self) -> None:
        """Everything this service holds let go: its watches (before the journal they write
        to), sync threads, store and journal. The end of a stop, and of a service made but
        never run."""
        if self.watcher is not None:
            self.watcher.stop()
        self.dispatcher.stop()
        self.app.close()
        self.journal.close()

    def _install_signal_handlers(self) -> None:
        def stop(_signum: int, _frame: Any) -> None:  # no logging in a signal handler
            self.stop()

        signal.signal(signal.SIGTERM, stop)
        signal.signal(signal.SIGINT, stop)
        # the terminal of a foreground `recalld serve` closed: it died at once, its store not
        # flushed and daemon.json left behind; it stops as for SIGTERM
        signal.signal(signal.SIGHUP, stop)

    @property
    def terminated(self) -> bool:
        """Told to stop (SIGTERM, SIGINT, SIGHUP), as against stopping to restart in place."""
        return self._terminated

    def stop(self) -> None:
        """Stop soon: an index build under way in a child process (minutes) is ended."""
        self._terminated = True
        self._stop.set()
        stop_children()
        # wake the loop from its pause; from a thread, as a signal handler may run while the loop holds the journal
        threading.Thread(target=self.journal.poke, name="recalld-stop", daemon=True).start()

    # -- helpers ----------------------------------------------------------------------------------
    def _write_runtime(self, address: str, *, restarting: bool = False) -> None:
        """``restarting``: the CLI waits for this pid's next program instead of opening the store."""
        runtime = {"pid": os.getpid(), "address": address, "started": self.started_at, "restarting": restarting}
        write_whole(self.config.runtime_file, runtime)

    def _take_store(self) -> bool:
        """Lock the embedded store's directory, waiting up to STORE_WAIT seconds for a
        command that has it open (one run as this daemon started, before it could find
        the daemon). False when told to stop meanwhile."""
        if self.config.store_url:
            return True

        def waiting(owner: str) -> None:
            log.warning("the store is in use by another process; waiting for it", pid=owner, up_to_s=STORE_WAIT)
            sdnotify.notify(f"STATUS=waiting for the store, in use by pid {owner}")

        try:
            return wait_for_lock(
                self.config.store_path / LOCK_NAME, timeout=STORE_WAIT, stopping=self._stop.is_set, waiting=waiting
            )
        except StoreLockedError as exc:
            raise RecalldError(str(exc)) from exc

    def _write_starting(self) -> None:
        """Say that this daemon is starting (``STARTING_SUFFIX``) before it takes the store:
        a command run meanwhile waits for it instead of opening the store itself. Beside
        the runtime file, never over it: that may be another daemon's, still serving."""
        write_whole(self.config.runtime_file.with_suffix(STARTING_SUFFIX), {"pid": os.getpid()})

    def _remove_starting(self) -> None:
        remove_if_ours(self.config.runtime_file.with_suffix(STARTING_SUFFIX))

    def _remove_runtime(self) -> None:
        remove_if_ours(self.config.runtime_file)

    def _summary(self) -> str:
        depth = sum(self.journal.depth().values())
        done = self.dispatcher.completed
        return f"{self.state}: {len(self._git_dirs)} repos, {depth} events queued, {done} syncs done"

    @staticmethod
    def _lag_seconds(item: dict[str, Any]) -> float | None:
        if not item.get("commits_behind") or not item.get("tip"):
            return 0.0 if item.get("commits_behind") == 0 else None
        try:
            tip_time = GitRepository(item["path"]).commit_info(item["tip"]).time
        except RecalldError:
            return None
        return max(0.0, time.time() - tip_time)
