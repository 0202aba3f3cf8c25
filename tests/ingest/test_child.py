"""Work in child processes: an error is the child's last stderr line, and the daemon's
stop ends a child under way (an index build lasts minutes; it is done again later)."""

from __future__ import annotations

import threading
import time

import pytest

from recalld.ingest import child
from recalld.ingest.errors import RecalldError


def test_a_failing_child_reports_its_last_stderr_line():
    with pytest.raises(RecalldError, match=r"^importing: .*No module named recalld\.ingest\.not_a_module$"):
        child.run_module("recalld.ingest.not_a_module", [], failed="importing")


def test_stop_children_ends_a_child_under_way_and_its_caller_hears_why():
    failed: list[str] = []

    def serve() -> None:  # a child that would run for ever
        try:
            child.run_module("http.server", ["--bind", "127.0.0.1", "0"], failed="serving")
        except RecalldError as exc:
            failed.append(exc.message)

    runner = threading.Thread(target=serve)
    runner.start()
    try:
        while not child._RUNNING and runner.is_alive():
            time.sleep(0.01)
        child.stop_children()
    finally:
        runner.join(timeout=30)
    assert failed == ["serving: killed by SIGTERM"]
    assert not child._RUNNING
