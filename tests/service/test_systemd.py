"""The systemd units: hardened (systemd-analyze's exposure score) and installed with the
right ExecStart by `recalld service install`."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.service.conftest import recalld

ROOT = Path(__file__).resolve().parents[2]
MAX_EXPOSURE = 2.5


def exposure(unit: Path) -> float:
    done = subprocess.run(
        ["systemd-analyze", "security", "--offline=yes", str(unit)], capture_output=True, text=True, check=False
    )
    found = re.search(r"Overall exposure level for \S+: ([0-9.]+)", done.stdout + done.stderr)
    assert found, done.stdout + done.stderr
    return float(found.group(1))


needs_analyze = pytest.mark.skipif(shutil.which("systemd-analyze") is None, reason="systemd-analyze not installed")


@needs_analyze
def test_system_unit_is_hardened():
    assert exposure(ROOT / "systemd" / "recalld.service") <= MAX_EXPOSURE


@needs_analyze
def test_installed_system_unit_keeps_the_hardening(tmp_path):
    done = recalld("service", "install", "--system", "--unit-dir", str(tmp_path))
    unit = tmp_path / "recalld.service"
    assert f"wrote {unit}" in done.stdout and "systemctl daemon-reload" in done.stdout
    text = unit.read_text()
    exec_start = next(line for line in text.splitlines() if line.startswith("ExecStart="))
    assert exec_start.endswith("/recalld serve") and Path(exec_start[10:].split()[0]).exists()
    assert "Type=notify" in text and "WatchdogSec=" in text and "Restart=on-failure" in text
    assert "ProtectHome=read-only" in text and "StateDirectory=recalld" in text
    assert exposure(unit) <= MAX_EXPOSURE


def test_user_unit_install(tmp_path):
    done = recalld("service", "install", "--user", "--unit-dir", str(tmp_path))
    assert "systemctl --user enable --now recalld.service" in done.stdout
    text = (tmp_path / "recalld.service").read_text()
    assert "Type=notify" in text and "serve" in text
    assert "RECALLD_HOME=" in text  # the state dir the unit was installed for


def test_long_work_before_ready_extends_the_start_timeout(tmp_path, monkeypatch):
    import socket

    from recalld.daemon import progress

    path = tmp_path / "notify.sock"
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(str(path))
    sock.settimeout(5)
    monkeypatch.setenv("NOTIFY_SOCKET", str(path))
    monkeypatch.setattr(progress, "PING_EVERY", 0.0)
    try:
        sink = progress.StartupProgress()
        sink.begin("re-embedding", 3000)
        sink.advance(1024)
        sink.end()
        messages = [sock.recv(4096).decode() for _ in range(2)]
    finally:
        sock.close()
    assert all("EXTEND_TIMEOUT_USEC=120000000" in m for m in messages)
    assert "STATUS=re-embedding: 0/3000" in messages[0] and "STATUS=re-embedding: 1024/3000" in messages[1]
    assert "WATCHDOG=1" not in messages[0]  # no watchdog asked for
