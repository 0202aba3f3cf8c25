"""`recalld serve` execs itself only for a restart in place, never once told to stop."""

from __future__ import annotations

import argparse
from typing import Any

import pytest

from recalld.daemon import admin, restart, service


class FakeService:
    def __init__(self, _config: Any) -> None:
        self.started_at, self.restarts = 100.0, 2
        self.restart_env: dict[str, str] | None = None
        self.terminated = False

    def run(self) -> int:
        self.restart_env = {"RECALLD_LISTEN_FD": "7"}
        self.terminated = TERMINATED[0]
        return 0


class Ctx:
    config = None

    def daemon(self) -> None:
        return None


TERMINATED = [False]


@pytest.mark.parametrize("terminated", [False, True])
def test_serve_restarts_in_place_unless_told_to_stop_meanwhile(terminated, monkeypatch):
    execs: list[tuple[dict[str, str], float, int]] = []
    monkeypatch.setattr(service, "Service", FakeService)
    monkeypatch.setattr(restart, "exec_self", lambda env, *, started, restarts: execs.append((env, started, restarts)))
    TERMINATED[0] = terminated
    assert admin.run_serve(Ctx(), argparse.Namespace()) == 0
    assert execs == ([] if terminated else [({"RECALLD_LISTEN_FD": "7"}, 100.0, 2)])
