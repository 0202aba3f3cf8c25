"""Finding the daemon from the CLI: a busy marker left by a killed daemon is not waited for."""

from __future__ import annotations

import json
import socket
import subprocess
import time

from recalld.daemon.client import DaemonClient


def test_a_busy_marker_whose_pid_is_another_program_now_is_not_waited_for(tmp_path):
    silent = socket.socket()  # accepts connections into its backlog and never answers
    silent.bind(("127.0.0.1", 0))
    silent.listen()
    other = subprocess.Popen(["sleep", "60"])  # the killed daemon's pid, reused
    try:
        runtime, token = tmp_path / "daemon.json", tmp_path / "api-token"
        token.write_text("t")
        runtime.write_text(json.dumps({
            "pid": other.pid, "address": f"http://127.0.0.1:{silent.getsockname()[1]}",
            "busy": "building the vector index", "busy_since": time.time(),
        }))  # fmt: skip
        told: list[str] = []
        started = time.monotonic()
        assert DaemonClient.discover(runtime, token, wait=10, notice=told.append) is None
        assert time.monotonic() - started < 5 and told == []
    finally:
        other.kill()
        other.wait()
        silent.close()
