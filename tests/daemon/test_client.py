"""The CLI's client of the daemon: a request refused because the store is busy (HTTP 503,
the daemon building its vector index) is asked again within the wait it was given."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, HTTPServer, ThreadingHTTPServer

import pytest

from recalld.daemon import client as client_module
from recalld.daemon.client import DaemonBusyError, DaemonClient

BUSY = "recalld serve is building the vector index (3 s so far)"
BUSY_STATUS = {
    "daemon": {"state": "ready", "pid": 4242, "uptime": 9.0, "busy": BUSY}, "vectors": None,
    "repos": [{"repo": "widgets", "path": "/src/widgets", "branch": "main", "queue_depth": 2, "watcher": "ok"}],
}  # fmt: skip


@pytest.fixture
def server() -> Iterator[tuple[str, list[str]]]:
    """A daemon's API whose store is busy for two requests (503), then answers 200 with a
    search hit; /healthz always answers. Yields its address and the paths asked."""
    asked: list[str] = []

    class Handler(JsonHandler):
        def do_GET(self) -> None:  # noqa: N802 - the stdlib's name
            if self.path == "/healthz":
                self.answer(200, {"state": "ready"})
            elif self.path == "/v1/status":  # answered while busy, counts left out
                self.answer(200, BUSY_STATUS)
            else:
                asked.append(self.path)
                self.answer(*((503, {"detail": BUSY}) if len(asked) <= 2 else (200, [{"qualname": "alpha"}])))

    with serving(Handler) as address:
        yield address, asked


class JsonHandler(BaseHTTPRequestHandler):
    def answer(self, status: int, body: object) -> None:
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *_args: object) -> None:
        pass


@contextmanager
def serving(handler: type[BaseHTTPRequestHandler]) -> Iterator[str]:
    """An HTTP server on loopback answering with ``handler``, for the block; its address."""
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}"
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join()


def test_a_request_refused_as_busy_is_asked_again_and_the_wait_told_once(server, monkeypatch):
    from recalld.daemon import client as client_module

    monkeypatch.setattr(client_module, "BUSY_POLL", 0.01)
    address, asked = server
    told: list[str] = []
    client = DaemonClient(address, "t", wait=30, notice=told.append)
    assert client.request("GET", "/v1/search", {"q": "x"}) == [{"qualname": "alpha"}]
    assert asked == ["/v1/search?q=x"] * 3
    assert told == [f"{BUSY}; waiting for it (up to 30 s)"]


def test_without_a_wait_a_busy_daemon_is_an_error_that_says_why_at_once(server):
    address, asked = server
    with pytest.raises(DaemonBusyError, match=r"is building the vector index \(3 s so far\); try again when it is done"):
        DaemonClient(address, "t").request("GET", "/v1/memories")
    assert len(asked) == 1


def cli_against(address: str, *args: str) -> subprocess.CompletedProcess[str]:
    """``recalld ARGS`` with the daemon's runtime file naming ``address``."""
    from recalld.daemon.config import load_config

    config = load_config()
    config.home.mkdir(parents=True, exist_ok=True)
    config.token_file.write_text("t")
    config.runtime_file.write_text(json.dumps({"pid": os.getpid(), "address": address, "started": 0}))
    return subprocess.run([sys.executable, "-m", "recalld.daemon.cli", *args],
                          capture_output=True, text=True, env=dict(os.environ), timeout=60)  # fmt: skip


def test_the_cli_waits_for_a_daemon_whose_store_is_busy_and_says_so_on_stderr(server):
    address, asked = server
    done = cli_against(address, "search", "alpha", "--json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == [{"qualname": "alpha"}] and len(asked) == 3
    assert done.stderr.count(f"recalld: {BUSY}; waiting for it (up to 600 s)") == 1


def test_status_of_a_daemon_whose_store_is_busy_says_so_and_what_it_can(server):
    address, _ = server
    done = cli_against(address, "status")
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[:2] == [
        f"daemon: ready (pid 4242); {BUSY}",
        "widgets\tmain\tqueue_depth 2\t(memories: once the store is free)",
    ]


@pytest.mark.parametrize("restarting, serves, found", [(True, True, True), (False, True, True), (False, False, False)])
def test_a_daemon_restarting_in_place_or_slow_to_answer_is_waited_for_not_taken_as_gone(
    tmp_path, monkeypatch, restarting, serves, found
):
    """Its runtime file says it is restarting and its socket stays open: the connection
    waits in the backlog for the next program (here: one that serves 2 s later, past the
    1 s probe). A live daemon that is not restarting is asked once more, for longer
    (``BUSY_PROBE_TIMEOUT``, 3 s here): one that has just started loads its model with the
    interpreter held, and on a loaded host answered past the first probe, and the command
    then opened the store the daemon held ("run the command again"). One that does not
    answer then is gone."""
    monkeypatch.setattr(client_module, "BUSY_PROBE_TIMEOUT", 3.0)
    listener = socket.create_server(("127.0.0.1", 0))
    port = listener.getsockname()[1]
    token = tmp_path / "token"
    token.write_text("t\n")

    class Health(BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 - the stdlib's name
            data = b'{"state": "starting"}'
            self.send_response(200)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *_args: object) -> None:
            pass

    runtime = tmp_path / "daemon.json"
    alive = os.getppid()  # a live process other than this one
    try:
        runtime.write_text(json.dumps({"pid": alive, "address": f"http://127.0.0.1:{port}", "restarting": restarting}))
        httpd = HTTPServer(("127.0.0.1", port), Health, bind_and_activate=False)
        httpd.socket.close()
        httpd.socket = listener
        httpd.timeout = 5.0  # each handle_request: the first probe's connection, given up, is served first
        later = threading.Timer(2.0, lambda: [httpd.handle_request() for _ in range(2)])
        started = time.monotonic()  # before the timer starts: it serves 2 s after its start at the earliest
        if serves:
            later.start()
        client = DaemonClient.discover(runtime, token)
        waited = time.monotonic() - started
        if serves:
            later.join()
        assert (client is not None) is found
        assert 2.0 <= waited < 10 if serves else 3.9 <= waited < 10  # the two probes: 1 s and 3 s
    finally:
        listener.close()


def test_a_repository_name_is_quoted_in_the_path_and_one_that_cannot_be_is_refused(server, tmp_path):
    """A directory named ``My Project`` is a repository named so: its API paths are quoted
    (http.client refused the request line, a space being no URL character); a name the
    API cannot route (with '/'), blank or unprintable, is refused when it is registered."""
    from recalld.daemon.client import repo_path
    from recalld.daemon.registry import RepoRegistry
    from recalld.ingest.errors import RecalldError
    from recalld.ingest.manual import MAX_NAME

    address, asked = server
    client = DaemonClient(address, "token", wait=5.0)
    assert client.request("GET", repo_path("My Project", "symbols"), {"qualname": "<Arg as Display>.fmt"}) is not None
    assert asked[-1] == "/v1/repos/My%20Project/symbols?qualname=%3CArg+as+Display%3E.fmt"
    registry = RepoRegistry(tmp_path / "state.db")
    try:
        assert registry.add("My Project", "/src/My Project", "main").name == "My Project"
        for name in ("a/b", "  ", "tab\there", ".", ".."):
            with pytest.raises(RecalldError, match="cannot name a repository"):
                registry.add(name, "/src/x", "main")
        # as long as a manual memory's repo may be (one longer could hold none), told by its length
        assert registry.add("n" * MAX_NAME, "/src/n", "main").name == "n" * MAX_NAME
        with pytest.raises(RecalldError, match=f"^a repository's name is at most {MAX_NAME} characters .this one has"
                                               f" {MAX_NAME + 1}.: choose one with --name$"):
            registry.add("n" * (MAX_NAME + 1), "/src/x", "main")
    finally:
        registry.close()


def test_an_export_is_read_line_by_line_as_it_comes_and_one_cut_off_is_an_error_after_its_lines(tmp_path):
    """``lines`` yields each line as it arrives (the daemon streams an export of every
    memory; the client held the whole answer before its first line), splits on newlines
    only (U+2028 is a character of a JSON string, which ``splitlines`` split on), and an
    answer that stops short of its length raises after the lines that came."""
    from recalld.ingest.errors import RecalldError

    second = threading.Event()
    lines = [json.dumps({"text": "one\u2028line"}, ensure_ascii=False), json.dumps({"n": 2})]

    class Export(BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 - the stdlib's name
            first, rest = (line.encode() + b"\n" for line in lines)
            cut = self.path.startswith("/cut")
            self.send_response(200)
            self.send_header("Content-Length", str(len(first) + len(rest) + (100 if cut else 0)))
            self.end_headers()
            self.wfile.write(first)
            self.wfile.flush()
            second.wait(10)  # the client has the first line before the second is sent
            self.wfile.write(rest)
            self.wfile.flush()

        def log_message(self, *_args: object) -> None:
            pass

    with serving(Export) as address:
        client = DaemonClient(address, "t")
        got = []
        for line in client.lines("/v1/export", {}):
            got.append(line)
            second.set()
        assert got == lines and json.loads(got[0])["text"] == "one\u2028line"
        second.clear()
        got = []
        with pytest.raises(RecalldError, match=r"answer to GET /cut was cut off"):
            for line in client.lines("/cut", {}):
                got.append(line)
                second.set()
        assert got == lines


def test_status_of_a_daemon_whose_qdrant_server_does_not_answer_says_so():
    error = "Qdrant at http://qdrant:6333 did not answer (count): [Errno 111] Connection refused"
    report = {"daemon": {"state": "ready", "pid": 4242, "store_error": error}, "vectors": None,
              "repos": [{"repo": "widgets", "path": "/src/widgets", "branch": "main", "queue_depth": 1}]}  # fmt: skip

    class Status(JsonHandler):
        def do_GET(self) -> None:  # noqa: N802 - the stdlib's name
            self.answer(200, report if self.path == "/v1/status" else {"state": "ready"})

    with serving(Status) as address:
        done = cli_against(address, "status")
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[:2] == [
        f"daemon: ready (pid 4242); {error}",
        "widgets\tmain\tqueue_depth 1\t(memories: once the store answers)",
    ]
