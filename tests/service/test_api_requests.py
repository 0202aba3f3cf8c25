"""What the API does to a request before a route reads it: every body read to the daemon's
limit at most (413 past it, before the rest is read), a body that is not JSON refused with
the reason, and HEAD answered on every GET route as GET is, without the body."""

from __future__ import annotations

import re
from types import SimpleNamespace
from typing import Any

import anyio
from fastapi import FastAPI
from fastapi.responses import StreamingResponse
from fastapi.testclient import TestClient

from recalld.daemon.api import create_api
from recalld.daemon.api_requests import HeadAsGet
from tests.service.conftest import DocumentedClient

LIMIT = 4096
TOO_LONG = f"body over {LIMIT} bytes (webhooks.max_body_bytes)"
BEARER = {"Authorization": "Bearer t0ken", "Content-Type": "application/json"}


def small_api() -> FastAPI:
    """The API app of a daemon that is ready and takes bodies of ``LIMIT`` bytes at most.
    The routes refuse what these tests send before they reach the service."""
    return create_api(SimpleNamespace(app=None, token="t0ken", state="ready", max_body=LIMIT))  # type: ignore[arg-type]


def test_every_route_that_takes_a_body_refuses_one_over_the_limit():
    """Only the webhooks had a limit: ``POST /v1/memories`` with a user of 1 MB was
    kept (and sent back by every search that found it), and a body of 300 MB read whole."""
    api = small_api()
    client = DocumentedClient(api)
    taking = [(path, method) for path, operations in api.openapi()["paths"].items()
              for method, operation in operations.items() if "requestBody" in operation]  # fmt: skip
    assert ("/v1/memories", "post") in taking and ("/v1/webhooks/generic", "post") in taking
    body = b'{"text": "a note", "user": "' + b"u" * LIMIT + b'"}'
    for path, method in taking:
        url = re.sub(r"\{[^}]+\}", "x", path)
        answer = client.request(method.upper(), url, content=body, headers=BEARER)
        assert (answer.status_code, answer.json()) == (413, {"detail": TOO_LONG}), (path, answer.text)


def post_in_chunks(app: FastAPI, path: str, chunks: list[bytes], *, declared: int | None = None) -> tuple[int, int]:
    """(status, chunks read) of a POST whose body the client sends a chunk at a time."""
    headers = [(b"authorization", b"Bearer t0ken"), (b"content-type", b"application/json")]
    if declared is not None:
        headers.append((b"content-length", str(declared).encode()))
    scope = {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": "POST", "scheme": "http",
             "path": path, "raw_path": path.encode(), "root_path": "", "query_string": b"", "headers": headers,
             "client": ("127.0.0.1", 5000), "server": ("127.0.0.1", 8765)}  # fmt: skip
    read = 0
    answered: list[dict[str, Any]] = []

    async def receive() -> dict[str, Any]:
        nonlocal read
        if read == len(chunks):
            await anyio.sleep_forever()
        read += 1
        return {"type": "http.request", "body": chunks[read - 1], "more_body": read < len(chunks)}

    async def send(message: dict[str, Any]) -> None:
        answered.append(message)

    anyio.run(app, scope, receive, send)
    return answered[0]["status"], read


def test_a_body_over_the_limit_is_refused_before_the_rest_of_it_is_read():
    api = small_api()
    chunks = [b'{"text": "' + b"x" * 990] + [b"x" * 1000] * 98 + [b'", "org": "acme"}']  # 100 kB sent chunked
    assert post_in_chunks(api, "/v1/memories", chunks) == (413, 5)  # the limit passed in the fifth
    assert post_in_chunks(api, "/v1/memories", chunks, declared=100_000) == (413, 0)  # said by its Content-Length
    assert post_in_chunks(api, "/v1/webhooks/generic", chunks) == (413, 5)


def test_a_body_that_is_not_json_is_refused_saying_why():
    """A body not UTF-8 or nested too deep was FastAPI's 400 "There was an error parsing
    the body", which said neither; one not JSON a 422 "JSON decode error"."""
    client = DocumentedClient(small_api())
    for body, detail in (
        (b'{"text": "caf\xe9", "org": "acme"}', "body is not JSON: it is not UTF-8 (byte 0xe9 at offset 13:"
                                                " invalid continuation byte)"),
        (b"[" * 4000, "body is not JSON a server reads: nested too deep"),  # within LIMIT
        (b'{"text": "a note", "org": }', "body is not JSON: Expecting value: line 1 column 27 (char 26)"),
    ):  # fmt: skip
        for path in ("/v1/memories", "/v1/webhooks/generic"):
            answer = client.post(path, content=body, headers=BEARER)
            assert (answer.status_code, answer.json()) == (400, {"detail": detail}), (path, body[:20])


def test_a_json_body_labelled_otherwise_is_read_as_json():
    """``curl -d`` labels what it posts a form: FastAPI handed a route's model the body's
    bytes, a 422 "Input should be a valid dictionary" that showed the very object sent."""
    client = DocumentedClient(small_api())
    for label in ("application/x-www-form-urlencoded", "text/plain", "application/octet-stream; charset=x", None):
        headers = {"Authorization": "Bearer t0ken", **({"Content-Type": label} if label else {})}
        answer = client.post("/v1/memories", content=b'{"text": "a note"}', headers=headers)  # read: no scope given
        assert (answer.status_code, answer.json()["detail"][:13]) == (400, "give a scope:"), (label, answer.text)
        answer = client.post("/v1/memories", content=b'{"text": 1, "org": "acme"}', headers=headers)
        assert answer.status_code == 422 and answer.json()["detail"][0]["loc"] == ["body", "text"], answer.text
        answer = client.post("/v1/memories", content=b"text=a+note&org=acme", headers=headers)  # a form is no JSON
        assert (answer.status_code, answer.json()) == (400, {"detail": "body is not JSON: Expecting value: line 1"
                                                                       " column 1 (char 0)"}), answer.text
        answer = client.post("/v1/memories", content=b'{"text": "caf\xe9", "org": "acme"}', headers=headers)
        assert answer.status_code == 400 and "not UTF-8" in answer.json()["detail"], answer.text  # was a 500
        answer = client.post("/v1/memories", content=b"x" * 3000, headers=headers)  # not echoed whole
        assert answer.status_code == 400 and len(answer.text) < 1000, answer.text


def test_a_url_that_is_not_utf8_is_refused_saying_where():
    """A query parameter or a path of bytes that are not UTF-8 (Latin-1's é, ``%E9``) was
    read with U+FFFD for each: ``q=caf%E9`` searched for "caf\ufffd" without a word."""
    client = DocumentedClient(small_api())
    bearer = {"Authorization": "Bearer t0ken"}
    for url, loc, msg in (
        ("/v1/search?q=caf%E9", ["query", "q"], "the query parameter is not UTF-8 (byte 0xe9 at offset 5:"),
        ("/v1/search?q=a&path=src/%ED%A0%80.py", ["query", "path"], "the query parameter is not UTF-8 (byte 0xed"),
        ("/v1/repos/caf%E9/outline?path=a.py", ["path"], "the URL's path is not UTF-8 (byte 0xe9 at offset 13:"),
        ("/v1/memories/%FF", ["path"], "the URL's path is not UTF-8 (byte 0xff at offset 13:"),
    ):  # fmt: skip
        answer = client.get(url, headers=bearer)
        assert answer.status_code == 422, (url, answer.text)
        (fault,) = answer.json()["detail"]
        assert fault["loc"] == loc and fault["msg"].startswith(msg), (url, fault)
    # UTF-8 passes (to the next check here); a webhook's URL may carry a sender's own bytes
    said = client.get("/v1/search?q=caf%C3%A9+%F0%9F%98%80&limit=0", headers=bearer).json()["detail"]
    assert [fault["loc"] for fault in said] == [["query", "limit"]]
    answer = client.post("/v1/webhooks/generic?from=caf%E9", content=b"{", headers=bearer)
    assert (answer.status_code, answer.json()["detail"][:16]) == (400, "body is not JSON")


def test_head_is_answered_on_every_get_route_as_get_is_without_the_body():
    """Monitors probe with HEAD: every route was a 405, ``/healthz`` too."""
    api = small_api()
    client = TestClient(api)  # the OpenAPI document names GET alone: HEAD is HTTP's, for every GET
    got, head = client.get("/healthz"), client.head("/healthz")
    assert (head.status_code, head.content) == (200, b"") and got.json() == {"state": "ready"}
    assert {key: head.headers[key] for key in ("content-type", "content-length")} == {
        key: got.headers[key] for key in ("content-type", "content-length")}  # fmt: skip
    assert client.head("/healthz?probe=1").status_code == 200
    for path, operations in api.openapi()["paths"].items():
        if "get" in operations and path != "/healthz":
            head = client.head(re.sub(r"\{[^}]+\}", "x", path))
            assert (head.status_code, head.content) == (401, b""), path  # as GET without the token
    assert client.head("/v1/webhooks/generic").status_code == 405  # a POST route's


def test_a_head_of_a_streamed_answer_reads_no_more_of_it_than_its_start():
    """``HEAD /v1/export`` is answered without the export being read to its end."""
    pieces: list[int] = []

    def lines() -> Any:
        for number in range(1000):
            pieces.append(number)
            yield f"{number}\n"

    app = FastAPI()
    app.add_middleware(HeadAsGet)
    app.get("/lines")(lambda: StreamingResponse(lines(), media_type="application/x-ndjson"))
    answer = TestClient(app).head("/lines")
    assert (answer.status_code, answer.content, answer.headers["content-type"]) == (200, b"", "application/x-ndjson")
    assert len(pieces) < 5
