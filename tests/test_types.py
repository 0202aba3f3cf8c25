"""The packages' type hints hold (STYLE: small, typed, obvious)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.conftest import PACKAGES

ROOT = Path(__file__).resolve().parents[1]


def test_mypy_passes_on_the_packages():
    done = subprocess.run(
        [sys.executable, "-m", "mypy", *PACKAGES],
        cwd=ROOT, capture_output=True, text=True,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
