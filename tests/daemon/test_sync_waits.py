"""How long a sync asked of the daemon is waited for, and what a wait that ends says."""

from __future__ import annotations

import argparse
import threading
from types import SimpleNamespace
from typing import Any

import pytest

from recalld.ingest.errors import RecalldError


def test_recalld_sync_through_the_daemon_waits_as_long_as_the_api_lets_it(capsys):
    """A first index longer than the API's default wait (600 s) was reported as failed."""
    from recalld.daemon import commands
    from recalld.daemon.api import create_api

    asked: list[tuple[dict[str, Any], float]] = []

    class Daemon:
        def request(self, method: str, path: str, params: dict[str, Any], *, timeout: float) -> Any:
            asked.append((params, timeout))
            raise RecalldError("stop here")

    registry = SimpleNamespace(all=lambda: [SimpleNamespace(name="r")])
    ctx = SimpleNamespace(app=SimpleNamespace(registry=registry), daemon=Daemon)
    args = argparse.Namespace(names=[], full=False, verbose=False, json=False)
    assert commands.sync(ctx, args) == commands.EXIT_FAILED
    ((params, timeout),) = asked
    service = SimpleNamespace(app=None, token="t", state="ready", max_body=1)
    route = next(r for r in create_api(service).routes if getattr(r, "path", "") == "/v1/repos/{name:path}/sync")
    (limit,) = [p.field_info.metadata for p in route.dependant.query_params if p.name == "timeout"]  # type: ignore[attr-defined]
    most = next(m.le for m in limit if hasattr(m, "le"))
    assert params["timeout"] == most and timeout > most
    assert capsys.readouterr().err == "recalld: r: stop here\n"


def waiting_service(*, stopping: bool, running: bool) -> Any:
    from recalld.daemon.service import Service

    service = Service.__new__(Service)
    service._stop = threading.Event()
    if stopping:
        service._stop.set()
    state = SimpleNamespace(last_result=None, failed_events=frozenset(), last_error=None)
    service.journal = SimpleNamespace(is_done=lambda _event: False)
    service.dispatcher = SimpleNamespace(state=lambda _repo: state, syncing=lambda _repo: running)
    return service


@pytest.mark.parametrize(("stopping", "running", "said"), [
    (False, False, r"sync of r did not finish within 0.05 s \(still queued; it goes on\)"),
    (False, True, r"sync of r did not finish within 0.05 s \(still running; it goes on\)"),
    (True, True, r"recalld serve is stopping: the sync of r asked for is left to its next start"),
])  # fmt: skip
def test_a_wait_for_a_sync_that_ends_says_where_the_sync_is(stopping: bool, running: bool, said: str):
    with pytest.raises(RecalldError, match=said):
        waiting_service(stopping=stopping, running=running).wait_for("r", 1, timeout=0.05)
