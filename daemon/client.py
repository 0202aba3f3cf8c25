"""Talking to a running daemon from the CLI: stdlib only, so the client path stays light."""

from __future__ import annotations

import http.client
import json
import os
import socket
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlencode, urlsplit

from recalld.ingest.errors import RecalldError

PROBE_TIMEOUT = 1.0
BUSY_POLL = 0.5  # seconds between probes of a busy daemon


class DaemonBusyError(RecalldError):
    """The daemon runs and holds the store, but cannot answer until its current work ends."""


class _UnixConnection(http.client.HTTPConnection):
    def __init__(self, path: str, timeout: float) -> None:
        super().__init__("localhost", timeout=timeout)
        self._path = path

    def connect(self) -> None:
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.settimeout(self.timeout)
        sock.connect(self._path)
        self.sock = sock


class DaemonClient:
    def __init__(self, address: str, token: str) -> None:
        self.address = address
        self._token = token

    @staticmethod
    def discover(
        runtime_file: Path, token_file: Path, *, wait: float = 0.0, notice: Callable[[str], None] | None = None
    ) -> DaemonClient | None:
        """The running daemon that owns this state dir, or None.

        A daemon that does not answer but says it is busy (``busy`` in its runtime file:
        an index build, through which the embedded engine holds the whole process) is
        waited for up to ``wait`` seconds, ``notice`` told once; then ``DaemonBusyError``.
        It holds the store meanwhile, so going on without it would only fail."""
        deadline = time.monotonic() + wait
        told = False
        while True:
            found = _running(runtime_file, token_file)
            if found is None:
                return None
            client, runtime = found
            if client.answers():
                return client
            if not isinstance(runtime.get("busy"), str) or not _is_recalld(int(runtime["pid"])):
                return None  # not busy, or a marker left by a killed daemon whose pid is someone else's now
            message = _busy_message(runtime)
            if time.monotonic() >= deadline:
                raise DaemonBusyError(f"{message}; try again when it is done")
            if notice is not None and not told:
                notice(f"{message}; waiting for it (up to {wait:.0f} s)")
                told = True
            time.sleep(BUSY_POLL)

    def answers(self) -> bool:
        try:
            self.request("GET", "/healthz", timeout=PROBE_TIMEOUT)
        except RecalldError:
            return False
        return True

    def _connection(self, timeout: float) -> http.client.HTTPConnection:
        if self.address.startswith("unix:"):
            return _UnixConnection(self.address[5:], timeout)
        parts = urlsplit(self.address)
        return http.client.HTTPConnection(parts.hostname or "127.0.0.1", parts.port or 80, timeout=timeout)

    def request(
        self, method: str, path: str, params: dict[str, Any] | None = None, *, body: Any = None, timeout: float = 30.0
    ) -> Any:
        raw = self.raw(method, path, params, body=body, timeout=timeout)
        return json.loads(raw) if raw else None

    def raw(
        self, method: str, path: str, params: dict[str, Any] | None = None, *, body: Any = None, timeout: float = 30.0
    ) -> bytes:
        query = urlencode({k: v for k, v in (params or {}).items() if v is not None}, doseq=True)
        headers = {"Authorization": f"Bearer {self._token}"}
        data = None if body is None else json.dumps(body).encode("utf-8")
        if data is not None:
            headers["Content-Type"] = "application/json"
        conn = self._connection(timeout)
        try:
            conn.request(method, f"{path}?{query}" if query else path, body=data, headers=headers)
            response = conn.getresponse()
            answer = response.read()
        except (OSError, http.client.HTTPException) as exc:  # refused, reset, timed out: one line, no traceback
            raise RecalldError(f"recalld serve did not answer {method} {path} at {self.address}: {exc}") from exc
        finally:
            conn.close()
        if response.status >= 400:
            raise RecalldError(f"daemon: {_detail(answer)}")
        return answer

    def lines(self, path: str, params: dict[str, Any]) -> Iterator[str]:
        yield from self.raw("GET", path, params, timeout=600).decode("utf-8").splitlines()


def _running(runtime_file: Path, token_file: Path) -> tuple[DaemonClient, dict[str, Any]] | None:
    """A client of the daemon the runtime file names, if its process is alive, and the file."""
    try:
        runtime = json.loads(runtime_file.read_text())
        token = token_file.read_text().strip()
        os.kill(int(runtime["pid"]), 0)
        return DaemonClient(str(runtime["address"]), token), runtime
    except (OSError, ValueError, KeyError, TypeError):
        return None


def _is_recalld(pid: int) -> bool:
    """Whether process ``pid`` runs recalld, where /proc tells (else taken to)."""
    try:
        return b"recalld" in Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return not Path("/proc/self").exists()


def _busy_message(runtime: dict[str, Any]) -> str:
    since = runtime.get("busy_since")
    elapsed = f" ({time.time() - since:.0f} s so far)" if isinstance(since, (int, float)) else ""
    return f"recalld serve (pid {runtime.get('pid')}) is {runtime.get('busy')}{elapsed}"


def _detail(body: bytes) -> str:
    """The error message of an API answer (FastAPI's validation errors in one line)."""
    try:
        detail = json.loads(body).get("detail")
    except (ValueError, AttributeError):
        return body.decode("utf-8", "replace")
    if isinstance(detail, list):
        return "; ".join(f"{'.'.join(str(x) for x in d.get('loc', ())[1:])}: {d.get('msg')}" for d in detail)
    return str(detail)
