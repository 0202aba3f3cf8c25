"""What the HTTP API does to a request before a route reads it: a query parameter left
empty dropped, HEAD answered as GET, a body read to the daemon's limit at most, and a
JSON body read with the reason it cannot be."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Coroutine
from typing import Any
from urllib.parse import parse_qsl, unquote_to_bytes, urlencode

from fastapi import HTTPException, Request, Response
from fastapi.routing import APIRoute
from starlette.datastructures import Headers
from starlette.types import ASGIApp, Message, Receive, Scope, Send

JSON_LABEL = re.compile(rb"application/(?:[^/]*\+)?json", re.IGNORECASE)  # as FastAPI reads a JSON body


def read_json(body: bytes) -> Any:
    """``body``'s JSON, or a 400 that says why there is none: not UTF-8 (which byte,
    where), nested too deep to read (a RecursionError, a 500 once), not JSON (where)."""
    try:
        return json.loads(body)
    except UnicodeDecodeError as exc:
        bad = exc.object[exc.start : exc.start + 1].hex()
        raise HTTPException(400, f"body is not JSON: it is not UTF-8 (byte 0x{bad} at offset {exc.start}:"
                                 f" {exc.reason})") from None  # fmt: skip
    except json.JSONDecodeError as exc:
        raise HTTPException(400, f"body is not JSON: {exc}") from None
    except RecursionError:
        raise HTTPException(400, "body is not JSON a server reads: nested too deep") from None


def not_utf8(scope: Scope) -> list[dict[str, Any]]:
    """The faults of a URL whose path or query parameters, percent-decoded, are not UTF-8
    (which byte, where), as a body's are told: the server read each such byte as U+FFFD,
    and ``q=caf%E9`` (Latin-1's é) searched for "caf\ufffd" without a word, ``path=caf%E9.py``
    for a file no repository can hold."""
    parts: list[tuple[tuple[str, ...], bytes]] = [(("path",), unquote_to_bytes(scope.get("raw_path") or b""))]
    for pair in (scope.get("query_string") or b"").split(b"&"):
        name, _, value = (unquote_to_bytes(piece.replace(b"+", b" ")) for piece in pair.partition(b"="))
        parts.append((("query", name.decode("utf-8", "replace")), name + b"=" + value))
    faults = []
    for loc, raw in parts:
        try:
            raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            what = "the URL's path" if loc == ("path",) else "the query parameter"
            faults.append({"type": "unicode_decode", "loc": loc, "input": raw.decode("utf-8", "backslashreplace"),
                           "msg": f"{what} is not UTF-8 (byte 0x{raw[exc.start]:02x} at offset {exc.start}:"
                                  f" {exc.reason})"})  # fmt: skip
    return faults


class ReasonedRequest(Request):
    """A request whose JSON body FastAPI reads with ``read_json``: a body not UTF-8 or
    nested too deep was FastAPI's 400 "There was an error parsing the body", which said
    neither, and one not JSON a 422 "JSON decode error"."""

    async def json(self) -> Any:
        if not hasattr(self, "_json"):
            self._json = read_json(await self.body())
        return self._json


class ReasonedRoute(APIRoute):
    """A route whose handler is given a ``ReasonedRequest``: FastAPI's documented way to
    read a body otherwise (a custom ``APIRoute`` class). A route that takes a model reads its
    body as JSON whatever its ``Content-Type`` says, or without one, as the webhooks read
    theirs: FastAPI gave the model the body's bytes, and ``curl -d``'s JSON (labelled a form)
    was a 422 "Input should be a valid dictionary" that showed the very object sent. A body
    that is no JSON is a 400 that says so."""

    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        handler = super().get_route_handler()
        takes_json = self.body_field is not None

        async def reasoned(request: Request) -> Response:
            scope = _labelled_json(request.scope) if takes_json else request.scope
            return await handler(ReasonedRequest(scope, request.receive))

        return reasoned


def _labelled_json(scope: Scope) -> Scope:
    """``scope`` with its body labelled ``application/json`` where no label says so (FastAPI's
    ``strict_content_type`` refuses one without a label as it refuses a form; the bearer token
    a route asks for is what a browser's page cannot send across origins unasked)."""
    headers = scope.get("headers", [])
    label = next((value for key, value in headers if key.lower() == b"content-type"), None)
    if label is not None and JSON_LABEL.fullmatch(label.partition(b";")[0].strip()):
        return scope
    kept = [(key, value) for key, value in headers if key.lower() != b"content-type"]
    return {**scope, "headers": [*kept, (b"content-type", b"application/json")]}


class BodyLimited:
    """A request's body read to ``limit`` bytes at most (``webhooks.max_body_bytes``): one
    declared longer is refused (413) before any of it is read, one sent longer (chunked)
    once past the limit. Only the webhooks had a limit, and a route that takes a model read
    its body whole (300 MB took the daemon from 0.58 to 1.23 GB). FastAPI's own
    ``max_body_size`` answers such a request with plain text, not the API's ``{"detail"}``.
    A body read after the answer started (a stream waiting for the client to go) is let be."""

    def __init__(self, app: ASGIApp, limit: int) -> None:
        self.app = app
        self.limit = limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = Headers(scope=scope).get("content-length", "")
        read, answering = 0, False

        async def limited() -> Message:
            nonlocal read
            if not answering and declared.isdigit() and int(declared) > self.limit:
                raise self._too_long()
            message = await receive()
            read += len(message.get("body", b""))
            if not answering and read > self.limit:
                raise self._too_long()
            return message

        async def answer(message: Message) -> None:
            nonlocal answering
            answering = True
            await send(message)

        await self.app(scope, limited, answer)

    def _too_long(self) -> HTTPException:
        return HTTPException(413, f"body over {self.limit} bytes (webhooks.max_body_bytes)")


class HeadAsGet:
    """``HEAD`` answered as ``GET`` is, status and headers (``Content-Length`` too), without
    the body: FastAPI's routes take the methods they name, and a monitor's ``HEAD /healthz``
    was a 405. A streamed answer (an export) ends with its headers: the server then tells it
    that the client is gone, as after any answer, and it stops."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] != "HEAD":
            await self.app(scope, receive, send)
            return
        ended = False

        async def headers_only(message: Message) -> None:
            nonlocal ended
            if message["type"] == "http.response.start":
                await send(message)
            elif message["type"] == "http.response.body" and not ended:
                ended = True
                await send({"type": "http.response.body", "body": b""})

        await self.app({**scope, "method": "GET"}, receive, headers_only)


class EmptyParametersDropped:
    """A query parameter given with no value is as if not given: ``?q=x&repo=&limit=``,
    as a form or a template fills it, searched with ``repo=''`` (404) and failed to
    read ``limit`` (422)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        query = scope.get("query_string", b"") if scope["type"] == "http" else b""
        if query:
            pairs = parse_qsl(query.decode("latin-1"), keep_blank_values=True, encoding="latin-1")
            if any(value == "" for _key, value in pairs):
                kept = [(key, value) for key, value in pairs if value != ""]
                scope = {**scope, "query_string": urlencode(kept, encoding="latin-1").encode("latin-1")}
        await self.app(scope, receive, send)
