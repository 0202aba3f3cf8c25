"""Periodic work (apscheduler): reconcile every repo, prune old deprecated memories,
compact the journal. Jobs only enqueue or do small store work; a prune that finds the
store busy (its vector index being built) is tried again a few minutes later."""

from __future__ import annotations

import time
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from apscheduler.schedulers.background import BackgroundScheduler

from recalld.daemon.logs import get_logger
from recalld.ingest.errors import BusyError
from recalld.ingest.store import MemoryFilter, Store

if TYPE_CHECKING:
    from recalld.daemon.service import Service

log = get_logger("recalld.tasks")
DAY = 86_400
BUSY_RETRY = 300.0  # seconds before a job that found the store busy runs again


def prune_deprecated(store: Store, *, older_than_days: int, now: float | None = None) -> int:
    """Delete memories closed more than ``older_than_days`` ago (0 keeps everything)."""
    if older_than_days <= 0:
        return 0
    cutoff = int((now or time.time()) - older_than_days * DAY)
    ids = [p.id for p in store.scroll(MemoryFilter(deprecated=1, closed_before=cutoff), fields=())]
    for start in range(0, len(ids), 1000):
        store.delete(ids[start : start + 1000])
    return len(ids)


def prune_job(service: Service, scheduler: BackgroundScheduler) -> None:
    try:
        removed = prune_deprecated(service.app.store, older_than_days=service.config.get("daemon", "retention_days"))
    except BusyError as exc:
        log.info("prune postponed", reason=exc.message, retry_in=BUSY_RETRY)
        scheduler.modify_job("prune", next_run_time=_soon(BUSY_RETRY))
        return
    log.info("pruned deprecated memories", removed=removed)


def start_scheduler(service: Service) -> BackgroundScheduler:
    config = service.config
    scheduler = BackgroundScheduler(daemon=True)

    def reconcile() -> None:
        for entry in service.app.registry.all():
            service.enqueue(entry.name, "timer")

    def compact() -> None:
        removed = service.journal.compact(keep_seconds=config.get("daemon", "journal_keep_days") * DAY)
        log.info("compacted journal", removed=removed)

    scheduler.add_job(reconcile, "interval", minutes=config.get("daemon", "reconcile_minutes"), id="reconcile")
    scheduler.add_job(prune_job, "interval", hours=24, id="prune", args=(service, scheduler), next_run_time=_soon(60))
    scheduler.add_job(compact, "interval", hours=1, id="compact", next_run_time=_soon(120))
    scheduler.start()
    return scheduler


def _soon(seconds: float) -> datetime:
    return datetime.now() + timedelta(seconds=seconds)
