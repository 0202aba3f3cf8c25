"""The daemon as a process: hooks to search in under 2 s, systemd notify, clean stop,
and convergence after repeated SIGKILLs."""

from __future__ import annotations

import json
import os
import random
import signal
import socket
import subprocess
import sys
import time

import pytest

from tests.service.conftest import recalld

pytestmark = pytest.mark.model


def searchable(name: str, timeout: float) -> float | None:
    started = time.monotonic()
    while time.monotonic() - started < timeout:
        hits = json.loads(recalld("search", name, "--json", "--limit", "3").stdout)
        if any(h["qualname"] == name for h in hits):
            return time.monotonic() - started
        time.sleep(0.05)
    return None


def test_commit_is_searchable_within_two_seconds_and_stop_is_clean(daemon, repo):
    recalld("repo", "add", str(repo.path))
    recalld("hooks", "install", str(repo.path))
    daemon.start()
    status = json.loads(recalld("status", "--json").stdout)
    assert status["daemon"]["state"] == "ready"
    assert status["repos"][0]["indexed_commit"] == repo.head()
    assert status["repos"][0]["watcher"] == "ok"
    assert status["vectors"]["current"] is True and status["vectors"]["stored"] == status["vectors"]["configured"]

    repo.write("app/zebra.py", 'def zebra_stripes_count():\n    """Count zebra stripes."""\n    return 7\n')
    repo.commit("zebra")
    assert searchable("zebra_stripes_count", 2.0) is not None, daemon.logs()

    code, body = daemon.call("GET", "/v1/status")
    assert code == 401
    code, body = daemon.authed("POST", "/v1/repos/repo/sync?wait=true")
    assert code == 200 and json.loads(body)["to_commit"] == repo.head()
    assert daemon.authed("POST", "/v1/repos/nope/sync")[0] == 404
    code, body = daemon.call("GET", "/openapi.json")
    assert code == 200 and "/v1/search" in json.loads(body)["paths"]

    started = time.monotonic()
    assert daemon.stop(signal.SIGTERM) == 0
    assert time.monotonic() - started < 10
    assert json.loads(recalld("status", "--json").stdout)["daemon"]["state"] == "stopped"


def test_a_daemon_busy_building_its_index_is_waited_for_not_taken_for_gone(daemon, repo):
    """Through an index build the engine holds the daemon's whole process: the API does
    not answer, and the store stays locked. A command must wait for the daemon (it said
    it is busy), not fall back to opening the store and fail on its lock."""
    from recalld.daemon.client import DaemonClient
    from recalld.daemon.config import load_config
    from recalld.daemon.mcp_server import DaemonGateway, ToolError
    from recalld.ingest.errors import RecalldError

    recalld("repo", "add", str(repo.path))
    daemon.start()
    runtime_file = daemon.home / "daemon.json"
    runtime = json.loads(runtime_file.read_text())
    # what the daemon writes around an index build (daemon/upkeep.py), then a process that does not answer
    runtime_file.write_text(json.dumps({**runtime, "busy": "building the vector index", "busy_since": time.time()}))
    assert daemon.proc is not None
    daemon.proc.send_signal(signal.SIGSTOP)
    try:
        search = subprocess.Popen(
            [sys.executable, "-m", "recalld.daemon.cli", "search", "alpha", "--json"],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=dict(os.environ),
        )  # fmt: skip
        with pytest.raises(ToolError, match="is building the vector index"):  # an agent is told, not kept waiting
            DaemonGateway(load_config()).call("GET", "/v1/status")
        # a request already under way when the build began: an error of one line, not a traceback
        with pytest.raises(RecalldError, match="recalld serve did not answer GET /v1/status at .*timed out"):
            DaemonClient(f"http://127.0.0.1:{daemon.port}", daemon.token).request("GET", "/v1/status", timeout=1)
        time.sleep(3)
        assert search.poll() is None, search.communicate()  # waiting, not failed on the store's lock
    finally:
        daemon.proc.send_signal(signal.SIGCONT)
    out, err = search.communicate(timeout=60)
    assert search.returncode == 0, err
    assert "is building the vector index" in err and "waiting" in err
    assert any(hit["qualname"] == "alpha" for hit in json.loads(out))


def test_notify_socket_gets_ready_then_watchdog(daemon, repo, tmp_path):
    recalld("repo", "add", str(repo.path))
    path = tmp_path / "notify.sock"
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(str(path))
    sock.settimeout(120)
    try:
        daemon.start(env={"NOTIFY_SOCKET": str(path), "WATCHDOG_USEC": "1000000"}, wait=False)
        messages: list[str] = []
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            messages.append(sock.recv(4096).decode())
            ready = [i for i, m in enumerate(messages) if "READY=1" in m]
            if ready and any("WATCHDOG=1" in m for m in messages[ready[0] + 1 :]):
                break
        ready_at = next(i for i, m in enumerate(messages) if "READY=1" in m)
        assert any("WATCHDOG=1" in m for m in messages[ready_at + 1 :])
        # the startup sync told systemd the start goes on (a first index can outlast TimeoutStartSec)
        assert any("EXTEND_TIMEOUT_USEC=" in m and "WATCHDOG=1" in m for m in messages[:ready_at])
        assert any(m.startswith("STATUS=") or "\nSTATUS=" in m for m in messages)
        daemon.stop()
        sock.settimeout(5)
        tail = []
        try:
            while True:
                tail.append(sock.recv(4096).decode())
        except TimeoutError:
            pass
        assert any("STOPPING=1" in m for m in tail)
    finally:
        sock.close()


def test_sigkill_twenty_times_during_syncs_converges(daemon, repo, tmp_path):
    recalld("repo", "add", str(repo.path))
    recalld("hooks", "install", str(repo.path))
    rng = random.Random(7)
    daemon.start()
    for round_ in range(20):
        for i in range(rng.randint(1, 4)):
            n = rng.randint(0, 30)
            body = "".join(f"def f{n}_{j}_{round_}():\n    return {j}\n\n" for j in range(rng.randint(1, 6)))
            repo.write(f"pkg/m{n}.py", body)
            if rng.random() < 0.2 and (repo.path / f"pkg/m{(n + 1) % 31}.py").exists():
                repo.remove(f"pkg/m{(n + 1) % 31}.py")
            repo.commit(f"round {round_}.{i}")
        time.sleep(rng.uniform(0.0, 0.6))
        daemon.stop(signal.SIGKILL)
        daemon.start()
    # converged: daemon's state equals a clean index of the same tip
    deadline = time.monotonic() + 60
    while json.loads(recalld("status", "--json").stdout)["repos"][0]["indexed_commit"] != repo.head():
        assert time.monotonic() < deadline, daemon.logs()
        time.sleep(0.2)
    live = [json.loads(line) for line in recalld("export").stdout.splitlines()]
    every = [json.loads(line) for line in recalld("export", "--include-deprecated").stdout.splitlines()]
    daemon.stop()
    assert len({m["id"] for m in every}) == len(every)
    commits = {m["commit"] for m in live if m["type"] == "task"}
    live = [m for m in live if m["type"] == "structural"]
    keys = [(m["path"], m["kind"], m["qualname"]) for m in live]
    assert len(keys) == len(set(keys))
    clean_home = tmp_path / "clean-home"
    env = {"RECALLD_HOME": str(clean_home)}
    recalld("repo", "add", str(repo.path), env=env)
    recalld("sync", env=env)
    clean = [json.loads(line) for line in recalld("export", env=env).stdout.splitlines()]
    assert commits == {m["commit"] for m in clean if m["type"] == "task"}  # every commit, once
    clean = [m for m in clean if m["type"] == "structural"]
    assert sorted(keys) == sorted((m["path"], m["kind"], m["qualname"]) for m in clean)
    assert sorted(m["content_hash"] for m in live) == sorted(m["content_hash"] for m in clean)
