"""Running the API with uvicorn on a thread of the service (TCP on loopback or a Unix socket).

The server binds its listening socket itself and gives uvicorn a duplicate of it, so that
a daemon restarting in place (``daemon/restart.py``) can keep the socket open through its
``exec``: clients that connect meanwhile wait in the socket's backlog and are answered by
the new program, instead of being refused. ``LISTEN_ENV`` names the inherited descriptor.
A client that connected just before a stop is answered by this program (``_Server``).
"""

from __future__ import annotations

import asyncio
import os
import socket
import stat
import threading
import time
from typing import TYPE_CHECKING

import uvicorn

from recalld.daemon.api import create_api
from recalld.daemon.client import MAX_HEAD
from recalld.daemon.config import Config
from recalld.ingest.errors import RecalldError

if TYPE_CHECKING:
    from recalld.daemon.service import Service

START_TIMEOUT = 10.0
HANDOVER_GRACE = 60.0  # seconds a restarting daemon lets requests under way finish
FIRST_REQUEST_WAIT = 1.0  # seconds a stop waits for the request of a connection just accepted
BACKLOG = 2048  # uvicorn's default
LISTEN_ENV = "RECALLD_LISTEN_FD"
SOCKET_MODE = 0o666  # as uvicorn made it: every request needs the API token anyway
LOOP_TICK = 1.0  # seconds between the server loop's looks (uvicorn's: 0.1), woken at once to stop


class ApiServer:
    def __init__(self, config: Config, service: Service) -> None:
        socket_path = config.get("daemon", "socket")
        host, port = config.get("daemon", "host"), config.get("daemon", "port")
        self.address = f"unix:{socket_path}" if socket_path else f"http://{host}:{port}"
        self._listener = _inherited(socket_path, host, port) or _listen(socket_path, host, port, self.address)
        if not socket_path:  # the port bound, when the configuration leaves it to the system (0)
            self.address = f"http://{host}:{self._listener.getsockname()[1]}"
        self._config = uvicorn.Config(
            create_api(service), log_config=None, log_level="warning", access_log=False, lifespan="off",
            backlog=BACKLOG, h11_max_incomplete_event_size=MAX_HEAD,  # a search for pasted code (reset past ~128 KiB)
        )  # fmt: skip
        self._server = _Server(self._config)
        self._thread = threading.Thread(
            target=self._server.run, kwargs={"sockets": [self._listener.dup()]}, name="recalld-api", daemon=True
        )

    def start(self) -> None:
        self._thread.start()
        deadline = time.monotonic() + START_TIMEOUT
        while not self._server.started:
            if not self._thread.is_alive() or time.monotonic() > deadline:
                raise RecalldError(f"cannot serve the API on {self.address} (in use, or not allowed)")
            time.sleep(0.02)

    def stop(self, *, hand_over: bool = False) -> dict[str, str]:
        """Stop answering. ``hand_over``: the listening socket stays open, inheritable,
        for the program this process is about to ``exec``; returns the environment that
        names it to that program. Requests under way are finished first (new connections
        wait in the backlog meanwhile): for up to 3 s, or HANDOVER_GRACE for a hand-over,
        which would otherwise cut a long answer (an export) off."""
        self._server.request_exit()
        self._thread.join(timeout=HANDOVER_GRACE if hand_over else 3)
        if hand_over:  # detached: no longer closed when this object goes
            self._listener.set_inheritable(True)
            return {LISTEN_ENV: str(self._listener.detach())}
        self._listener.close()
        return {}


class _Server(uvicorn.Server):
    """uvicorn's server, except that a stop lets a connection it accepted just before
    deliver its request and answers it. uvicorn closes every connection without a request
    under way as soon as it stops accepting, and a client that had connected a moment
    earlier, its request still unread, was reset: a daemon restarting in place refused a
    request after all (seen once in the restart test's ~200 health checks).

    And its loop wakes once a second, where uvicorn's looks ten times a second whether
    to stop (an idle daemon woke 13 times a second for it): ``request_exit`` wakes it."""

    _loop: asyncio.AbstractEventLoop | None = None
    _exit: asyncio.Event | None = None

    async def main_loop(self) -> None:
        """uvicorn's, a tick a ``LOOP_TICK`` (each refreshes the Date header, as uvicorn's tenth did)."""
        self._exit, self._loop = asyncio.Event(), asyncio.get_running_loop()
        counter = 0
        while not await self.on_tick(counter):
            counter = (counter + 10) % 864000
            try:
                await asyncio.wait_for(self._exit.wait(), timeout=LOOP_TICK)
            except TimeoutError:
                pass

    def request_exit(self) -> None:
        """Stop serving (from another thread)."""
        self.should_exit = True
        loop, event = self._loop, self._exit
        if loop is not None and event is not None:
            try:
                loop.call_soon_threadsafe(event.set)
            except RuntimeError:  # its loop closed: it stopped already
                pass

    async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
        for server in self.servers:  # accept no more: new clients wait in the listening socket's backlog
            server.close()
        deadline = time.monotonic() + FIRST_REQUEST_WAIT
        await asyncio.sleep(0.05)  # connections accepted before that are registered by now
        while time.monotonic() < deadline and any(_unread(c) for c in self.server_state.connections):
            await asyncio.sleep(0.01)
        await super().shutdown(sockets)


def _unread(connection: object) -> bool:
    """A connection whose first request has not been read (uvicorn's protocols start a
    request-response cycle for each request)."""
    return getattr(connection, "cycle", None) is None


def _listen(socket_path: str, host: str, port: int, address: str) -> socket.socket:
    try:
        if socket_path:
            _remove_stale_socket(socket_path)
            sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            sock.bind(socket_path)
            os.chmod(socket_path, SOCKET_MODE)
        else:
            sock = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET, socket.SOCK_STREAM)
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            sock.bind((host, port))
        sock.listen(BACKLOG)
    except OSError as exc:
        raise RecalldError(f"cannot serve the API on {address} (in use, or not allowed): {exc.strerror}") from exc
    return sock


def _remove_stale_socket(path: str) -> None:
    """A socket file left by a daemon that did not stop cleanly (a second daemon never gets
    this far: the store's lock stops it first)."""
    try:
        if stat.S_ISSOCK(os.stat(path).st_mode):
            os.unlink(path)
    except FileNotFoundError:
        pass


def _inherited(socket_path: str, host: str, port: int) -> socket.socket | None:
    """The listening socket a restarting daemon kept open for this program, if it is
    still the configured one (the configuration is read again after the restart)."""
    value = os.environ.pop(LISTEN_ENV, None)
    if value is None:
        return None
    try:
        sock = socket.socket(fileno=int(value))
    except (OSError, ValueError):
        return None
    sock.set_inheritable(False)
    try:
        bound = sock.getsockname()
        if socket_path:
            same = bound == socket_path and os.path.exists(socket_path)
        else:
            wanted = {info[4][:2] for info in socket.getaddrinfo(host, port or bound[1], type=socket.SOCK_STREAM)}
            same = tuple(bound[:2]) in wanted
    except OSError:
        same = False
    if not same:
        sock.close()
        return None
    return sock
