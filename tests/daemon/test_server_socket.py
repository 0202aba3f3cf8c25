"""The API's listening socket handed to the next program of a daemon restarting in place:
adopted when it is still the configured one, closed (and bound anew) when not."""

from __future__ import annotations

import socket

import pytest

from recalld.daemon.server import LISTEN_ENV, _inherited, _listen


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
