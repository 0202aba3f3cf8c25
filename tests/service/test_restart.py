"""The daemon restarting in place to give back memory (daemon/restart.py): the same pid,
no request refused while the next program starts (the API socket is kept open), the
store and the repositories served as before, and no restart without new work."""

from __future__ import annotations

import json
import signal
import threading
import time
import urllib.request

import pytest

from tests.service.conftest import recalld
from tests.service.test_daemon import searchable

pytestmark = pytest.mark.model


def status() -> dict:
    return json.loads(recalld("status", "--json").stdout)


def restarts_and_state() -> tuple[int | None, str]:
    daemon = status()["daemon"]
    return daemon.get("restarts"), daemon["state"]


def wait_for(predicate, timeout: float, what: str, logs) -> None:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(0.1)
    raise AssertionError(f"{what}:\n{logs()}")


def test_a_daemon_over_its_memory_limit_restarts_in_place_refusing_nothing(daemon, repo):
    # The first index of ~1,000 symbols grows the heap by more than 1 MB (6 MB measured):
    # the daemon restarts once idle.
    with (daemon.home / "config.toml").open("a") as config:
        config.write("restart_over_mb = 1\n")
    for module in range(50):
        functions = (f"def handle_{module}_{n}(value):\n    return value + {n}\n\n" for n in range(20))
        repo.write(f"app/generated_{module}.py", "".join(functions))
    repo.commit("generated")
    recalld("repo", "add", str(repo.path))
    daemon.start()
    assert daemon.proc is not None

    asked: list[str] = []  # every /healthz answer (its state) or the error in its place
    done = threading.Event()

    def ask_health() -> None:
        while not done.is_set():
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{daemon.port}/healthz", timeout=30) as answer:
                    asked.append(json.load(answer)["state"])
            except OSError as exc:
                asked.append(f"error: {exc}")
            time.sleep(0.01)

    asker = threading.Thread(target=ask_health, daemon=True)
    asker.start()
    try:
        wait_for(lambda: "restarting in place" in daemon.logs(), 30, "no restart", daemon.logs)
        wait_for(lambda: restarts_and_state() == (1, "ready"), 60, "not ready after the restart", daemon.logs)
    finally:
        done.set()
        asker.join(timeout=40)
    assert not [a for a in asked if a.startswith("error")], asked
    assert "starting" in asked or len(asked) > 10  # it was asking while the next program started

    first = status()
    assert first["daemon"]["pid"] == daemon.proc.pid and daemon.proc.poll() is None
    assert first["repos"][0]["indexed_commit"] == repo.head()
    time.sleep(6)  # an idle look or more at the memory: the restarted program has synced nothing new
    assert status()["daemon"]["restarts"] == 1, daemon.logs()

    repo.write("app/zebra.py", 'def zebra_stripes_count():\n    """Count zebra stripes."""\n    return 7\n')
    repo.commit("zebra")  # seen by the new program's watcher
    assert searchable("zebra_stripes_count", 5.0) is not None, daemon.logs()
    time.sleep(6)  # this sync was work: another restart may follow; let it finish before the stop
    wait_for(lambda: status()["daemon"]["state"] == "ready", 60, "not ready", daemon.logs)
    assert daemon.stop(signal.SIGTERM) == 0
    assert status()["daemon"]["state"] == "stopped"
