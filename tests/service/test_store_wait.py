"""A starting daemon waits for a Qdrant server that does not answer, where it exited
and systemd started it again every few seconds; a refusal still ends its start."""

from __future__ import annotations

import json
import os
import signal
import threading
import time
from pathlib import Path

import pytest

from recalld.daemon.store_wait import wait_for_server
from recalld.ingest.errors import StoreServerError, StoreUnansweredError
from tests.service.conftest import Daemon, free_port, recalld


def test_the_server_is_tried_again_until_it_answers_and_a_refusal_is_no_wait():
    tries: list[float] = []

    def opens() -> None:
        tries.append(time.monotonic())
        if len(tries) < 4:
            raise StoreUnansweredError("Qdrant at http://q:6333 did not answer (collection_exists): refused")

    assert wait_for_server(opens, threading.Event(), first=0.05, longest=0.1) is True
    gaps = [round(b - a, 2) for a, b in zip(tries, tries[1:])]
    assert len(tries) == 4 and gaps[0] >= 0.05 and all(0.1 <= g < 0.5 for g in gaps[1:]), gaps  # doubled, capped

    def refuses() -> None:
        raise StoreServerError("Qdrant at http://q:6333 refused collection_exists: 403 (Forbidden)")

    with pytest.raises(StoreServerError, match="refused"):
        wait_for_server(refuses, threading.Event(), first=0.05)


def test_a_stop_ends_the_wait():
    stop = threading.Event()
    threading.Timer(0.2, stop.set).start()
    started = time.monotonic()

    def never() -> None:
        raise StoreUnansweredError("Qdrant at http://q:6333 did not answer")

    assert wait_for_server(never, stop, first=30) is False and time.monotonic() - started < 5


def test_a_daemon_whose_server_does_not_answer_waits_says_so_and_stops_when_told():
    url = f"http://127.0.0.1:{free_port()}"  # nothing listens there
    home = Path(os.environ["RECALLD_HOME"])
    daemon = Daemon(home, free_port(), extra_config=f'[store]\nurl = "{url}"\n')
    daemon.start(wait=False)
    deadline = time.monotonic() + 30
    while "trying again" not in daemon.logs():
        assert daemon.proc is not None and daemon.proc.poll() is None, daemon.logs()  # it waits, not exits
        assert time.monotonic() < deadline, daemon.logs()
        time.sleep(0.1)
    waited = [json.loads(line) for line in daemon.logs().splitlines() if "trying again" in line]
    assert f"Qdrant at {url} did not answer" in waited[0]["error"] and waited[0]["level"] == "warning"
    assert not (home / "daemon.json").exists()  # not yet said to be starting: a command asks the server itself
    status = recalld("status", check=False)
    assert status.returncode == 1 and f"Qdrant at {url} did not answer" in status.stderr
    assert daemon.stop(signal.SIGTERM) == 0
