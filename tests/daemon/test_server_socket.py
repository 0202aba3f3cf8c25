"""The API's listening socket handed to the next program of a daemon restarting in place:
adopted when it is still the configured one, closed (and bound anew) when not; and a
client that connected just before the stop is answered, not reset."""

from __future__ import annotations

import os
import socket
import threading
import time
from types import SimpleNamespace

import pytest

from recalld.daemon.config import load_config
from recalld.daemon.server import LISTEN_ENV, ApiServer, _inherited, _listen


@pytest.mark.parametrize("kind", ["unix", "tcp"])
def test_the_inherited_socket_is_adopted_only_where_the_configuration_still_listens(kind, tmp_path, monkeypatch):
    path = str(tmp_path / "d.sock") if kind == "unix" else ""
    sock = _listen(path, "127.0.0.1", 0, "test")
    port = 0 if path else sock.getsockname()[1]
    fd = sock.detach()
    monkeypatch.setenv(LISTEN_ENV, str(fd))
    adopted = _inherited(path, "127.0.0.1", port)
    assert adopted is not None and adopted.fileno() == fd and not adopted.get_inheritable()
    with socket.socket(socket.AF_UNIX if path else socket.AF_INET) as client:
        client.connect(path or ("127.0.0.1", port))  # still listening: nothing was closed
    fd = adopted.detach()

    monkeypatch.setenv(LISTEN_ENV, str(fd))
    moved = (str(tmp_path / "other.sock"), "127.0.0.1", 0) if path else ("", "127.0.0.1", port + 1 if port < 65535 else 1)
    assert _inherited(*moved) is None  # the configuration moved: not adopted, and closed
    with pytest.raises(OSError):
        socket.socket(fileno=fd)
    assert _inherited(path, "127.0.0.1", port) is None  # nothing inherited: the variable was taken


def test_a_stop_answers_a_client_that_connected_just_before_it():
    """uvicorn closes a connection whose request it has not read as soon as it stops
    accepting: the client, connected a moment before a restart in place, was reset."""
    config = load_config()
    config.home.mkdir(parents=True, exist_ok=True)
    (config.home / "config.toml").write_text("[daemon]\nport = 0\n")
    server = ApiServer(load_config(), SimpleNamespace(state="ready", token="t", max_body=1 << 20))  # type: ignore[arg-type]
    server.start()
    host, port = server.address.removeprefix("http://").rsplit(":", 1)
    with socket.create_connection((host, int(port)), timeout=10) as client:
        time.sleep(0.2)  # accepted, its request not sent yet
        handover: dict[str, str] = {}
        stopper = threading.Thread(target=lambda: handover.update(server.stop(hand_over=True)))
        stopper.start()
        deadline = time.monotonic() + 10
        while any(s.is_serving() for s in server._server.servers) and time.monotonic() < deadline:
            time.sleep(0.01)
        time.sleep(0.05)  # the stop is under way: it accepts no more
        answer = b""
        try:
            client.sendall(b"GET /healthz HTTP/1.1\r\nHost: recalld\r\nConnection: close\r\n\r\n")
            while chunk := client.recv(4096):
                answer += chunk
        except OSError as exc:  # reset by the server
            answer = str(exc).encode()
    stopper.join(timeout=30)
    os.close(int(handover[LISTEN_ENV]))
    assert answer.startswith(b"HTTP/1.1 200") and answer.endswith(b'{"state":"ready"}'), answer
