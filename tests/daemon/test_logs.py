"""Logging configured for a command that may log nothing: structlog (which imports rich,
0.12-0.15 s of start-up) is imported at the first log, and that log is configured as asked."""

from __future__ import annotations

import json
import subprocess
import sys

SCRIPT = """
import sys
from recalld.daemon.logs import configure_logging, get_logger
log = get_logger("recalld.test")
configure_logging(level="warning", fmt="json", deferred=True)
print("structlog" in sys.modules)
log.info("below the level")
log.warning("a warning", path="a.py")
print("structlog" in sys.modules)
"""


def test_a_deferred_configuration_imports_structlog_at_the_first_log_and_applies_there():
    done = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True, timeout=60, check=True)
    assert done.stdout.split() == ["False", "True"]
    [line] = done.stderr.splitlines()
    record = json.loads(line)
    assert (record["event"], record["level"], record["path"]) == ("a warning", "warning", "a.py")


def test_an_eager_configuration_applies_at_once():
    script = SCRIPT.replace("deferred=True", "deferred=False")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60, check=True)
    assert done.stdout.split() == ["True", "True"]
    assert [json.loads(line)["event"] for line in done.stderr.splitlines()] == ["a warning"]
