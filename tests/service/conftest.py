"""A real `recalld serve` process on loopback, with its own state dir."""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from jsonschema import Draft202012Validator

from tests.conftest import GitRepo


class DocumentedClient(TestClient):
    """A test client of the API app that fails the test when an answer's status is not
    among those the API's OpenAPI document gives for that route, or a JSON answer does
    not have the shape it gives for that status: a client made from ``/openapi.json``
    meets no status and no answer it was not told of."""

    def request(self, method, url, *args, **kwargs):  # type: ignore[no-untyped-def,override]
        response = super().request(method, url, *args, **kwargs)
        path = response.request.url.path
        document = self.app.openapi()  # type: ignore[attr-defined]
        for template, operations in document["paths"].items():
            if re.fullmatch(re.sub(r"\\{[^/]+?\\}", "[^/]+", re.escape(template)), path):
                documented = operations[method.lower()]["responses"]
                assert str(response.status_code) in documented, (method, template, response.status_code, response.text)
                _shaped(document, documented[str(response.status_code)], response)
        return response


def _shaped(document: dict, documented: dict, response) -> None:  # type: ignore[no-untyped-def,type-arg]
    """The answer's JSON is valid against the schema documented for its status."""
    schema = documented.get("content", {}).get("application/json", {}).get("schema")
    if not schema or not response.headers.get("content-type", "").startswith("application/json"):
        return
    root = {**schema, "components": document.get("components", {})}  # "#/components/…" read from the document
    faults = [f"{list(e.absolute_path)}: {e.message}" for e in Draft202012Validator(root).iter_errors(response.json())]
    assert not faults, (response.request.method, response.request.url.path, response.status_code, faults[:5])


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def recalld(
    *args: str, check: bool = True, env: dict[str, str] | None = None, cwd: Path | None = None
) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(
        [sys.executable, "-m", "recalld.daemon.cli", *args], capture_output=True, text=True,
        env={**os.environ, **(env or {})}, cwd=cwd,
    )  # fmt: skip
    if check and done.returncode != 0:
        raise AssertionError(f"recalld {' '.join(args)} exited {done.returncode}: {done.stderr}")
    return done


class Daemon:
    def __init__(self, home: Path, port: int, extra_config: str = "") -> None:
        self.home = home
        self.port = port
        home.mkdir(parents=True, exist_ok=True)
        (home / "config.toml").write_text(f"[daemon]\nport = {port}\nsettle_ms = 50\n{extra_config}")
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self, *, env: dict[str, str] | None = None, wait: bool = True) -> None:
        self.log = open(self.home / "serve.log", "ab")  # noqa: SIM115
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "recalld.daemon.cli", "serve"],
            stdout=self.log, stderr=subprocess.STDOUT, env={**os.environ, **(env or {})},
        )  # fmt: skip
        if wait:
            self.wait_ready()

    def wait_ready(self, timeout: float = 120) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            assert self.proc is not None and self.proc.poll() is None, self.logs()
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/healthz", timeout=1) as r:
                    if json.load(r)["state"] == "ready":
                        return
            except OSError:
                pass
            time.sleep(0.1)
        raise AssertionError("daemon not ready:\n" + self.logs())

    @property
    def token(self) -> str:
        return (self.home / "api-token").read_text().strip()

    def call(self, method: str, path: str, body: bytes | None = None, headers: dict[str, str] | None = None):
        request = urllib.request.Request(f"http://127.0.0.1:{self.port}{path}", data=body, method=method,
                                         headers=headers or {})  # fmt: skip
        try:
            with urllib.request.urlopen(request, timeout=10) as r:
                return r.status, r.read()
        except urllib.error.HTTPError as e:
            return e.code, e.read()

    def authed(self, method: str, path: str, body: bytes | None = None):
        return self.call(method, path, body, {"Authorization": f"Bearer {self.token}"})

    def stop(self, sig: int = signal.SIGTERM, timeout: float = 15) -> int:
        assert self.proc is not None
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
        code = self.proc.wait(timeout=timeout)
        self.log.close()
        return code

    def logs(self) -> str:
        path = self.home / "serve.log"
        return path.read_text(errors="replace")[-4000:] if path.exists() else ""


@pytest.fixture
def daemon(tmp_path, monkeypatch):
    home = Path(os.environ["RECALLD_HOME"])
    d = Daemon(home, free_port())
    yield d
    if d.proc is not None and d.proc.poll() is None:
        d.stop(signal.SIGKILL)


@pytest.fixture
def repo(tmp_path) -> GitRepo:
    r = GitRepo(tmp_path / "repo")
    r.write("app/core.py", 'def alpha():\n    """First."""\n    return 1\n')
    r.commit("one")
    return r
