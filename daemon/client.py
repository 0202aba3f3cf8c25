"""Talking to a running daemon from the CLI: stdlib only, so the client path stays light."""

from __future__ import annotations

import http.client
import json
import os
import socket
import time
from collections.abc import Callable, Iterator
from http import HTTPStatus
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlencode, urlsplit

from recalld.ingest.errors import NotFoundError, RecalldError

PROBE_TIMEOUT = 1.0
BUSY_PROBE_TIMEOUT = 10.0  # asked once more of a live daemon the first probe got no answer from
RESTART_WAIT = 60.0  # seconds to wait for a daemon restarting in place (daemon/restart.py) to answer
BUSY_POLL = 0.5  # seconds between requests to a busy daemon
MAX_HEAD = 1 << 20  # bytes of a request's line and headers the API reads (``server.py``)
MAX_TARGET = MAX_HEAD - (16 << 10)  # bytes of a request's path and query a client sends, its headers' room left
STARTING_SUFFIX = ".starting"  # beside the runtime file: {"pid"} of a daemon not yet serving
NOTES_HEADER = "X-Recalld-Notes"  # a JSON list (ASCII): where a search's answers may be stale


class DaemonBusyError(RecalldError):
    """The daemon answered that work which lasts (building its vector index) holds the store."""


class _UnixConnection(http.client.HTTPConnection):
    def __init__(self, path: str, timeout: float) -> None:
        super().__init__("localhost", timeout=timeout)
        self._path = path

    def connect(self) -> None:
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.settimeout(self.timeout)
        sock.connect(self._path)
        self.sock = sock


def repo_path(name: str, tail: str) -> str:
    """The API path of a repository's ``tail`` (``sync``, ``symbols``): its name quoted, as a
    directory's may hold spaces (``My Project``: http.client refused the request line)."""
    return f"/v1/repos/{quote(name, safe='')}/{tail}"


def flag(value: bool) -> str | None:
    """A yes/no query parameter as the API reads it ("true"), or left out (None)."""
    return "true" if value else None


def memory_path(memory_id: str) -> str:
    """The API path of one memory, its id quoted (an agent's "x?y" was sent as a query)."""
    return f"/v1/memories/{quote(memory_id, safe='')}"


class DaemonClient:
    """``wait``: seconds a request the daemon refuses as busy (HTTP 503) is asked again for
    before ``DaemonBusyError``, ``notice`` told once. A busy daemon answers everything but
    what needs its store: while it builds its vector index, for up to a few minutes."""

    def __init__(
        self, address: str, token: str, *, wait: float = 0.0, notice: Callable[[str], None] | None = None
    ) -> None:
        self.address = address
        self._token = token
        self._wait = wait
        self._notice = notice

    @staticmethod
    def discover(
        runtime_file: Path, token_file: Path, *, wait: float = 0.0, notice: Callable[[str], None] | None = None
    ) -> DaemonClient | None:
        """A client of the running daemon that owns this state dir, or None. A daemon
        restarting in place keeps its socket open and says so in its runtime file (before
        it stops answering): it is waited for, also when it began while it was asked. So is
        a daemon starting (``STARTING_SUFFIX``): it is about to take the store, which this
        command would otherwise open itself and keep from it."""
        try:
            token = token_file.read_text().strip()
        except OSError:
            return None
        deadline = time.monotonic() + RESTART_WAIT
        noticed = False
        while True:
            runtime = live_runtime(runtime_file)
            if runtime is not None and runtime["pid"] != os.getpid():  # not this process, restarted in place
                restarting = bool(runtime.get("restarting"))
                client = DaemonClient(str(runtime["address"]), token, wait=wait, notice=notice)
                if client.answers(max(deadline - time.monotonic(), PROBE_TIMEOUT) if restarting else PROBE_TIMEOUT):
                    return client
                runtime = live_runtime(runtime_file)
                if runtime is None:
                    return None
                if not (restarting or runtime.get("restarting")):
                    # alive and serving, but slow to answer: a daemon that has just started loads its
                    # model with the interpreter held (a loaded host: seconds), and holds the store
                    return client if client.answers(BUSY_PROBE_TIMEOUT) else None
            else:
                starting = live_runtime(runtime_file.with_suffix(STARTING_SUFFIX))
                if starting is None or starting["pid"] == os.getpid():
                    return None
                if not noticed and notice is not None:
                    notice(f"waiting for the daemon starting as pid {starting['pid']}")
                noticed = True
            if time.monotonic() >= deadline:
                return None
            time.sleep(BUSY_POLL / 10)

    def answers(self, timeout: float = PROBE_TIMEOUT) -> bool:
        try:
            self.request("GET", "/healthz", timeout=timeout)
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
        return self._whole(method, path, params, body=body, timeout=timeout)[0]

    def noted(self, method: str, path: str, params: dict[str, Any] | None = None) -> tuple[Any, list[str]]:
        """An answer and the daemon's notes on it (``NOTES_HEADER``: where it may be stale)."""
        raw, headers = self._whole(method, path, params, body=None, timeout=30.0)
        return (json.loads(raw) if raw else None), _header_notes(headers.get(NOTES_HEADER))

    def _whole(
        self, method: str, path: str, params: dict[str, Any] | None, *, body: Any, timeout: float
    ) -> tuple[bytes, http.client.HTTPMessage]:
        conn, response = self._answered(method, path, params, body=body, timeout=timeout)
        try:
            return response.read(), response.headers
        except (OSError, http.client.HTTPException) as exc:
            raise RecalldError(f"recalld serve's answer to {method} {path} was cut off: {exc}") from exc
        finally:
            conn.close()

    def lines(self, path: str, params: dict[str, Any], notes: list[str] | None = None) -> Iterator[str]:
        """A JSON Lines answer line by line, as the daemon sends it (an export of every
        memory is held whole on neither side), its notes (``NOTES_HEADER``) into ``notes``
        before the first. An answer cut off raises ``RecalldError`` after the lines that came."""
        conn, response = self._answered("GET", path, params, body=None, timeout=600)
        if notes is not None:
            notes += _header_notes(response.headers.get(NOTES_HEADER))
        try:
            for line in response:
                yield line.decode("utf-8").rstrip("\n")
            if response.length:  # a declared length not reached (a chunked answer cut off raises)
                raise http.client.IncompleteRead(b"", response.length)
        except (OSError, http.client.HTTPException) as exc:  # IncompleteRead: the daemon stopped mid-answer
            raise RecalldError(f"recalld serve's answer to GET {path} was cut off: {exc}") from exc
        finally:
            conn.close()

    def _answered(
        self, method: str, path: str, params: dict[str, Any] | None, *, body: Any, timeout: float
    ) -> tuple[http.client.HTTPConnection, http.client.HTTPResponse]:
        """An open connection and its successful answer, its body still to read; a busy
        daemon asked again for up to ``wait`` seconds."""
        deadline = time.monotonic() + self._wait
        told = False
        while True:
            try:
                return self._ask(method, path, params, body=body, timeout=timeout)
            except DaemonBusyError as exc:
                if time.monotonic() >= deadline:
                    raise DaemonBusyError(f"{exc.message}; try again when it is done") from None
                if self._notice is not None and not told:
                    self._notice(f"{exc.message}; waiting for it (up to {self._wait:.0f} s)")
                    told = True
            time.sleep(BUSY_POLL)

    def _ask(
        self, method: str, path: str, params: dict[str, Any] | None, *, body: Any, timeout: float
    ) -> tuple[http.client.HTTPConnection, http.client.HTTPResponse]:
        query = urlencode({k: v for k, v in (params or {}).items() if v is not None}, doseq=True)
        if len(path) + len(query) > MAX_TARGET:  # the server would reset the connection without a word
            raise RecalldError(f"the request is too long for recalld serve ({len(path) + len(query):,} bytes of URL,"
                               f" at most {MAX_TARGET:,}): shorten the query or the path")  # fmt: skip
        headers = {"Authorization": f"Bearer {self._token}"}
        data = None if body is None else json.dumps(body).encode("utf-8")
        if data is not None:
            headers["Content-Type"] = "application/json"
        conn = self._connection(timeout)
        try:
            conn.request(method, f"{path}?{query}" if query else path, body=data, headers=headers)
            response = conn.getresponse()
            if response.status < 400:
                return conn, response
            answer = response.read()
        except (OSError, http.client.HTTPException) as exc:  # refused, reset, timed out: one line, no traceback
            conn.close()
            raise RecalldError(f"recalld serve did not answer {method} {path} at {self.address}: {exc}") from exc
        conn.close()
        if response.status == HTTPStatus.SERVICE_UNAVAILABLE:
            raise DaemonBusyError(_detail(answer))
        if response.status == HTTPStatus.NOT_FOUND:  # as the store's answer without the daemon
            raise NotFoundError(f"daemon: {_detail(answer)}")
        raise RecalldError(f"daemon: {_detail(answer)}")

def live_runtime(path: Path) -> dict[str, Any] | None:
    """The runtime file (or starting marker) of a daemon whose process is alive, or None."""
    try:
        runtime = json.loads(path.read_text())
        runtime["pid"] = int(runtime["pid"])
        os.kill(runtime["pid"], 0)
    except (OSError, ValueError, KeyError, TypeError):
        return None
    return runtime if isinstance(runtime, dict) else None


def _detail(body: bytes) -> str:
    """The error message of an API answer (FastAPI's validation errors in one line)."""
    try:
        detail = json.loads(body).get("detail")
    except (ValueError, AttributeError):
        return body.decode("utf-8", "replace")
    if isinstance(detail, list):
        return "; ".join(f"{'.'.join(str(x) for x in d.get('loc', ())[1:])}: {d.get('msg')}" for d in detail)
    return str(detail)


def _header_notes(header: str | None) -> list[str]:
    """The notes a ``NOTES_HEADER`` holds (a JSON list of strings); none where it is not one."""
    try:
        notes = json.loads(header or "[]")
    except ValueError:
        return []
    return [str(n) for n in notes] if isinstance(notes, list) else []
