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
