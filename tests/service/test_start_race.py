"""A daemon started while a command has the store open, and a command run while a daemon
starts: neither ends the other (a `recalld search` typed a moment after `recalld serve &`
made the daemon exit with "store … is in use" before)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from typing import Any
from pathlib import Path

import pytest

from recalld.ingest.store import StoreLockedError
from recalld.ingest.store_lock import take_lock, wait_for_lock
from tests.service.conftest import recalld

HOLD = """
import sys, time
from pathlib import Path
from recalld.ingest.store_lock import take_lock
lock = take_lock(Path(sys.argv[1]))
print("held", flush=True)
time.sleep(float(sys.argv[2]))
"""


def hold_store(home: Path, seconds: float) -> subprocess.Popen[str]:
    """Another process with the store's lock, as a command that has the store open."""
    (home / "qdrant").mkdir(parents=True, exist_ok=True)
    proc = subprocess.Popen(
        [sys.executable, "-c", HOLD, str(home / "qdrant" / "recalld.lock"), str(seconds)],
        stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    assert proc.stdout is not None and proc.stdout.readline().strip() == "held"
    return proc


def end(holder: subprocess.Popen[str], *, kill: bool = True) -> None:
    if kill:
        holder.kill()
    holder.wait()
    assert holder.stdout is not None
    holder.stdout.close()


def test_a_daemon_waits_for_the_command_that_has_the_store_and_a_command_meanwhile_waits_for_it(daemon, repo):
    holder = hold_store(daemon.home, 4.0)
    try:
        daemon.start(wait=False)
        marker = daemon.home / "daemon.starting"
        deadline = time.monotonic() + 30
        while not marker.exists() and time.monotonic() < deadline:
            assert daemon.proc is not None and daemon.proc.poll() is None, daemon.logs()
            time.sleep(0.05)
        assert json.loads(marker.read_text())["pid"] == daemon.proc.pid
        # The store is held: this command finds the daemon starting and waits to ask it,
        # where it opened the store itself (and failed, or kept the daemon from it).
        done = recalld("status", "--json", check=False)
        assert done.returncode == 0, done.stderr + daemon.logs()
        assert f"waiting for the daemon starting as pid {daemon.proc.pid}" in done.stderr
        assert json.loads(done.stdout)["daemon"]["pid"] == daemon.proc.pid
    finally:
        end(holder)
    daemon.wait_ready()
    assert "the store is in use by another process; waiting for it" in daemon.logs()
    assert not (daemon.home / "daemon.starting").exists()
    recalld("repo", "add", str(repo.path))
    deadline = time.monotonic() + 60
    while json.loads(recalld("status", "--json").stdout)["repos"][0].get("indexed_commit") != repo.head():
        assert time.monotonic() < deadline, daemon.logs()
        time.sleep(0.2)
    assert "alpha" in recalld("search", "alpha").stdout
    assert daemon.stop() == 0


def test_a_daemon_told_to_stop_while_it_waits_for_the_store_stops(daemon):
    holder = hold_store(daemon.home, 60.0)
    try:
        daemon.start(wait=False)
        deadline = time.monotonic() + 60
        while "waiting for it" not in daemon.logs() and time.monotonic() < deadline:
            time.sleep(0.05)
        assert daemon.stop(timeout=10) == 0, daemon.logs()
        assert not (daemon.home / "daemon.starting").exists()
        assert not (daemon.home / "daemon.json").exists()
    finally:
        end(holder)


def test_wait_for_lock_takes_it_once_free_and_the_store_adopts_it(tmp_path):
    lock = tmp_path / "recalld.lock"
    holder = subprocess.Popen([sys.executable, "-c", HOLD, str(lock), "0.5"], stdout=subprocess.PIPE, text=True)
    assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
    told: list[str] = []
    try:
        assert wait_for_lock(lock, timeout=30, stopping=lambda: False, waiting=told.append)
    finally:
        end(holder, kill=False)
    assert told == [str(holder.pid)]
    handle = take_lock(lock)  # adopted: not refused as a second opener in this process
    try:
        assert lock.read_text() == str(os.getpid())
        with pytest.raises(StoreLockedError):
            take_lock(lock)
    finally:
        handle.close()


def test_wait_for_lock_gives_up_naming_the_owner_or_returns_when_told_to_stop(tmp_path):
    lock = tmp_path / "recalld.lock"
    holder = subprocess.Popen([sys.executable, "-c", HOLD, str(lock), "30"], stdout=subprocess.PIPE, text=True)
    assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
    try:
        with pytest.raises(StoreLockedError, match=rf"pid {holder.pid}\); waited 0 s"):
            wait_for_lock(lock, timeout=0.3, stopping=lambda: False, waiting=lambda _owner: None)
        assert not wait_for_lock(lock, timeout=30, stopping=lambda: True, waiting=lambda _owner: None)
    finally:
        end(holder)


def test_a_command_that_finds_the_store_taken_by_a_daemon_started_meanwhile_says_to_run_it_again(tmp_path):
    from recalld.daemon.app import App
    from recalld.daemon.config import load_config
    from recalld.ingest.errors import DaemonStartedError, RecalldError

    config = load_config()
    holder = hold_store(config.home, 30.0)  # the daemon, which took the store after this command looked
    try:
        (config.home / "daemon.starting").write_text(json.dumps({"pid": holder.pid}))
        app = App(config)
        said = rf"pid {holder.pid}\); the daemon \(pid {holder.pid}\) started meanwhile"
        with pytest.raises(DaemonStartedError, match=said):
            app.store  # noqa: B018
        (config.home / "daemon.starting").unlink()
        with pytest.raises(RecalldError) as raised:
            App(config).store  # noqa: B018
        assert "meanwhile" not in raised.value.message and not isinstance(raised.value, DaemonStartedError)
    finally:
        end(holder)


def test_a_command_the_daemon_started_meanwhile_took_the_store_from_is_run_again_to_ask_it(monkeypatch):
    """`recalld serve & sleep 0.5; recalld search x` failed one time in five, saying to run
    the command again: now it is run again, once, and asks the daemon (a command that has
    printed something already still fails, so that nothing is printed twice)."""
    import io

    from recalld.daemon.config import load_config
    from recalld.daemon.context import Context, run_command
    from recalld.daemon.terminal import VisibleOutput
    from recalld.ingest.errors import DaemonStartedError

    calls: list[Context] = []

    def handler(ctx: Context, _args: Any) -> int:
        calls.append(ctx)
        if len(calls) == 1:
            raise DaemonStartedError("the daemon (pid 1) started meanwhile: run the command again to ask it")
        return 0

    screen = VisibleOutput(io.StringIO())
    monkeypatch.setattr(sys, "stdout", screen)
    assert run_command(load_config(), handler, None) == 0
    assert len(calls) == 2 and calls[0] is not calls[1]  # each run with a context of its own
    calls.clear()
    print("a line already shown")
    with pytest.raises(DaemonStartedError):
        run_command(load_config(), handler, None)
    assert len(calls) == 1
