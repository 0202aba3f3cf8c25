"""Talking to a running daemon from the CLI: stdlib only, so the client path stays light."""

from __future__ import annotations

import http.client
import json
import os
import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlencode, urlsplit

from recalld.ingest.errors import RecalldError

PROBE_TIMEOUT = 1.0


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

    @classmethod
    def discover(cls, runtime_file: Path, token_file: Path) -> DaemonClient | None:
        """The running daemon that owns this state dir, or None."""
        try:
            runtime = json.loads(runtime_file.read_text())
            token = token_file.read_text().strip()
            os.kill(int(runtime["pid"]), 0)
        except (OSError, ValueError, KeyError, TypeError):
            return None
        client = cls(str(runtime["address"]), token)
        try:
            client.request("GET", "/healthz", timeout=PROBE_TIMEOUT)
        except (OSError, RecalldError, http.client.HTTPException):
            return None
        return client

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
        finally:
            conn.close()
        if response.status >= 400:
            raise RecalldError(f"daemon: {_detail(answer)}")
        return answer

    def lines(self, path: str, params: dict[str, Any]) -> Iterator[str]:
        yield from self.raw("GET", path, params, timeout=600).decode("utf-8").splitlines()


def _detail(body: bytes) -> str:
    """The error message of an API answer (FastAPI's validation errors in one line)."""
    try:
        detail = json.loads(body).get("detail")
    except (ValueError, AttributeError):
        return body.decode("utf-8", "replace")
    if isinstance(detail, list):
        return "; ".join(f"{'.'.join(str(x) for x in d.get('loc', ())[1:])}: {d.get('msg')}" for d in detail)
    return str(detail)
