"""An idle daemon sleeps. Its loop pauses up to ``IDLE_TICK`` between looks, and is woken
at once by an append in its own process, by another process's append to the watched
journal (a hook's ``recalld notify``) and by a stop; the API server's loop looks once a
``LOOP_TICK`` and is woken at once to stop. (It had woken ~25 times a second.)"""

from __future__ import annotations

import socket
import subprocess
import sys
import threading
import time
import urllib.request
from types import SimpleNamespace

import uvicorn

from recalld.daemon import server as server_module
from recalld.daemon.config import load_config
from recalld.daemon.journal import Journal
from recalld.daemon.service import IDLE_TICK, TICK, Service
from recalld.daemon.watch import RepoWatcher

APPEND = ("import sys; from pathlib import Path; from recalld.daemon.journal import Event, Journal; "
          "Journal(Path(sys.argv[1])).append(Event('w', 'hook'))")


def test_another_process_s_append_to_the_watched_journal_wakes_a_wait(tmp_path):
    journal = Journal(tmp_path / "journal.db")
    watcher = RepoWatcher(journal)
    try:
        assert watcher.watch_journal() and watcher.journal_watched
        started = time.monotonic()
        journal.wait(0.5)  # nothing written: the pause is whole
        assert time.monotonic() - started >= 0.45
        hook = threading.Thread(target=lambda: (time.sleep(0.3), subprocess.run(
            [sys.executable, "-c", APPEND, str(journal.path)], check=True)))  # fmt: skip
        hook.start()
        started = time.monotonic()
        while not journal.depth() and time.monotonic() - started < 120:
            journal.wait(60)
        hook.join()
        assert journal.depth() == {"w": 1}
        assert time.monotonic() - started < 30  # woken by the other process's write, not by a pause's end
    finally:
        watcher.stop()
        journal.close()


def test_the_loop_pauses_long_only_when_idle_with_the_journal_watched():
    def pause(*, idle: bool = True, watched: bool | None = True, until: float = 1e12) -> float:
        watcher = None if watched is None else SimpleNamespace(journal_watched=watched)
        service = SimpleNamespace(dispatcher=SimpleNamespace(idle=lambda: idle), watcher=watcher)
        return Service._pause(service, until)  # type: ignore[arg-type]

    assert pause() == IDLE_TICK > TICK
    assert 0.2 < pause(until=time.monotonic() + 0.3) <= 0.3  # no later than the next timed step
    assert pause(until=time.monotonic() - 5) == TICK
    assert pause(idle=False) == TICK  # a sync runs, or events wait their turn
    assert pause(watched=False) == pause(watched=None) == TICK  # only a look finds a hook's events


def test_a_stop_wakes_the_loop_from_its_pause(tmp_path):
    service = Service(load_config())
    try:
        waiting = threading.Thread(target=service.journal.wait, args=(60,))
        waiting.start()
        time.sleep(0.2)
        service.stop()
        waiting.join(10)
        assert not waiting.is_alive()
    finally:
        service.close()


async def _hello(scope, receive, send):  # type: ignore[no-untyped-def]
    assert scope["type"] == "http"
    await send({"type": "http.response.start", "status": 200, "headers": [(b"content-type", b"text/plain")]})
    await send({"type": "http.response.body", "body": b"hello"})


def test_the_api_server_s_loop_is_woken_to_stop(monkeypatch):
    monkeypatch.setattr(server_module, "LOOP_TICK", 60.0)
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(16)
    port = listener.getsockname()[1]
    server = server_module._Server(uvicorn.Config(_hello, log_config=None, lifespan="off"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [listener]}, daemon=True)
    thread.start()
    try:
        deadline = time.monotonic() + 10
        while not server.started:
            assert time.monotonic() < deadline
            time.sleep(0.02)
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=5) as answer:
            assert answer.read() == b"hello" and answer.headers["date"]  # the first tick set the Date header
        server.request_exit()
        thread.join(10)
        assert not thread.is_alive()  # woken: a 60 s tick would still be sleeping
    finally:
        server.request_exit()
        listener.close()
