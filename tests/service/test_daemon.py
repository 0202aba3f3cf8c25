"""The daemon as a process: hooks to search in under 2 s, systemd notify, clean stop,
and convergence after repeated SIGKILLs."""

from __future__ import annotations

import json
import random
import shutil
import signal
import socket
import subprocess
import sys
import time

import pytest

from tests.service.conftest import recalld

pytestmark = pytest.mark.model


def recalld_python(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, *args], capture_output=True, text=True, check=True)


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
    none = recalld("search", "zebra", "--lang", "js", "--kind", "function")  # through the daemon
    assert none.stdout == "" and "no memory has language 'js'" in none.stderr and "kind" not in none.stderr
    assert "behind" not in none.stderr  # the daemon keeps the store in line: no lag to note

    code, body = daemon.call("GET", "/v1/status")
    assert code == 401
    code, body = daemon.authed("POST", "/v1/repos/repo/sync?wait=true")
    assert code == 200 and json.loads(body)["to_commit"] == repo.head()
    assert daemon.authed("POST", "/v1/repos/nope/sync")[0] == 404
    code, body = daemon.call("GET", "/openapi.json")
    assert code == 200 and "/v1/search" in json.loads(body)["paths"]

    # a branch git renames is followed to its new name, its memories carried
    memories = json.loads(recalld("status", "--json").stdout)["repos"][0]["memories"]
    repo.git("branch", "-m", "main", "renamed")
    deadline = time.monotonic() + 30
    while (now := json.loads(recalld("status", "--json").stdout)["repos"][0])["branch"] != "renamed":
        assert time.monotonic() < deadline, daemon.logs()
        time.sleep(0.1)
    assert (now["memories"], now["indexed_commit"], now["last_error"]) == (memories, repo.head(), None), now
    assert "its branch was renamed: following it" in daemon.logs()
    assert "note:" not in recalld("search", "zebra").stderr

    # the client path stays light (the daemon has the heavy libraries loaded): its notes
    # on a registration no sync can follow come from the daemon, in a header
    repo.git("checkout", "-q", "-b", "other")
    repo.git("branch", "-D", "-q", "renamed")
    light = recalld_python("-X", "importtime", "-m", "recalld.daemon.cli", "search", "zebra", "--limit", "1")
    assert "zebra" in light.stdout
    imported = {line.split("|")[-1].strip().split(".")[0] for line in light.stderr.splitlines() if "|" in line}
    heavy = {"pygit2", "numpy", "torch", "qdrant_edge", "qdrant_client", "tree_sitter", "fastapi", "structlog", "rich"}
    assert not imported & heavy, imported & heavy
    gone = f"note: repo: branch 'renamed' not found in {repo.path}: its memories may be stale"
    assert gone in light.stderr, light.stderr
    deadline = time.monotonic() + 30
    while not json.loads(recalld("status", "--json").stdout)["repos"][0]["last_error"]:  # its sync failed
        assert time.monotonic() < deadline, daemon.logs()
        time.sleep(0.1)
    code, body = daemon.authed("POST", "/v1/repos/repo/sync?wait=true")
    assert code == 400 and "sync of repo failed: branch 'renamed' not found" in json.loads(body)["detail"]
    repo.git("branch", "renamed")
    # asked again at once, within the failure's backoff: tried now (the answer was the old failure)
    code, body = daemon.authed("POST", "/v1/repos/repo/sync?wait=true")
    assert code == 200 and json.loads(body)["to_commit"] == repo.head(), body
    assert "note:" not in recalld("search", "zebra").stderr

    started = time.monotonic()
    assert daemon.stop(signal.SIGTERM) == 0
    assert time.monotonic() - started < 10
    assert json.loads(recalld("status", "--json").stdout)["daemon"]["state"] == "stopped"


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


def test_the_servers_own_warnings_are_json_lines_like_the_daemons(daemon):
    """uvicorn logs a malformed request through the standard library: it was printed as a
    bare line ("Invalid HTTP request received.") amid the daemon's JSON lines, which a
    reader of the journal parsing each line as JSON failed on. Now it is one of them, with
    its logger's name."""
    daemon.start()
    with socket.create_connection(("127.0.0.1", daemon.port), timeout=5) as conn:
        conn.sendall(b"NOT HTTP AT ALL\x00\r\n\r\n")
        conn.recv(1024)  # uvicorn answers 400 and closes
    assert daemon.call("GET", "/healthz")[0] == 200
    assert daemon.stop() == 0
    lines = [line for line in daemon.logs().splitlines() if line.strip()]
    records = [json.loads(line) for line in lines]  # every line is JSON
    bad = [r for r in records if r.get("logger") == "uvicorn.error"]
    assert [(r["event"], r["level"]) for r in bad] == [("Invalid HTTP request received.", "warning")], lines


def test_sighup_stops_the_daemon_as_sigterm_does(daemon):
    """The terminal of a foreground `recalld serve` closed (SIGHUP): it died at once, its
    store not flushed, daemon.json left behind."""
    daemon.start()
    assert daemon.stop(signal.SIGHUP) == 0
    assert "stopped" in daemon.logs()
    assert json.loads(recalld("status", "--json").stdout)["daemon"]["state"] == "stopped"


def test_a_repository_cloned_again_in_place_is_watched_again(daemon, repo, tmp_path):
    """The clone deleted and made again where it was, with no hooks: the daemon watches
    the new one and syncs its commits within seconds, not at the next reconcile."""
    upstream = tmp_path / "upstream.git"
    repo.git("clone", "-q", "--bare", str(repo.path), str(upstream))
    work = tmp_path / "work"
    subprocess.run(["git", "clone", "-q", str(upstream), str(work)], check=True)
    recalld("repo", "add", str(work), "--name", "work")
    daemon.start()
    shutil.rmtree(work)
    subprocess.run(["git", "clone", "-q", str(upstream), str(work)], check=True)
    time.sleep(3)  # the events of the deletion synced, the old watch has nothing more to see
    (work / "app" / "beta.py").write_text("def beta_recloned():\n    return 2\n")
    subprocess.run(["git", "-C", str(work), "add", "-A"], check=True)
    subprocess.run(["git", "-C", str(work), "-c", "user.name=a", "-c", "user.email=a@example.com", "commit", "-q",
                    "-m", "beta"], check=True)  # fmt: skip
    head = subprocess.run(["git", "-C", str(work), "rev-parse", "HEAD"], capture_output=True, text=True).stdout.strip()
    deadline = time.monotonic() + 30  # the reconcile would come after 10 minutes
    while (status := json.loads(recalld("status", "--json").stdout)["repos"][0])["indexed_commit"] != head:
        assert time.monotonic() < deadline, daemon.logs()
        time.sleep(0.2)
    assert status["watcher"] == "ok"
    daemon.stop()
