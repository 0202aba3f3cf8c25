"""MCP over stdio with every line answered: a line that is no JSON-RPC message gets a
JSON-RPC error, as JSON-RPC 2.0 asks, where the SDK's stdio transport dropped it unanswered
(a client whose request held a lone surrogate escape, ``"\\ud800"``, which JSON may spell
and no text can hold, waited for an answer for ever). And the end of the input waits for
the answers to the requests read before it (the SDK cancelled them: requests piped in
whole, ``recalld mcp < requests``, lost every answer that took longer than reading the
rest), but for those the client cancelled.
"""

from __future__ import annotations

import json
from types import TracebackType
from typing import TYPE_CHECKING, Any, Self

import anyio
import mcp_types as types
from mcp.server.stdio import stdio_server
from mcp.shared.message import SessionMessage
from pydantic import ValidationError

if TYPE_CHECKING:
    from mcp.server.mcpserver import MCPServer
    from mcp.shared._stream_protocols import ReadStream, WriteStream


def malformed_reply(exc: Exception) -> types.JSONRPCError:
    """The error answering a line the transport could not read as a JSON-RPC message: to
    the request's id where the line has one (Python's JSON reader takes a lone surrogate
    escape that pydantic's refuses), else to null."""
    found: Any = None
    errors = exc.errors() if isinstance(exc, ValidationError) else []
    for error in errors:
        given = error.get("input")
        if error["type"] == "json_invalid" and isinstance(given, str | bytes):
            try:
                found = json.loads(given)
            except ValueError:
                return _error(None, types.PARSE_ERROR, "Parse error: the line is not JSON")
            break
        if isinstance(given, dict):
            found = given
            break
    request_id = found.get("id") if isinstance(found, dict) else None
    if isinstance(request_id, bool) or not isinstance(request_id, int | str):
        request_id = None
    if errors and errors[0]["type"] == "json_invalid":
        why = "a string holds a lone surrogate escape (such as \\ud800), which no text can hold"
    else:
        why = "not a JSON-RPC 2.0 request, notification or response"
    return _error(request_id, types.INVALID_REQUEST, f"Invalid Request: {why}")


def _error(request_id: int | str | None, code: int, message: str) -> types.JSONRPCError:
    return types.JSONRPCError(jsonrpc="2.0", id=request_id, error=types.ErrorData(code=code, message=message))


RequestId = int | str


class Unanswered:
    """The ids of the requests read and not answered yet (nor cancelled by the client)."""

    def __init__(self) -> None:
        self._ids: set[RequestId] = set()
        self._none = anyio.Event()
        self._none.set()

    def read(self, message: Any) -> None:
        if isinstance(message, types.JSONRPCRequest):
            self._ids.add(message.id)
            self._none = anyio.Event() if self._none.is_set() else self._none
        elif isinstance(message, types.JSONRPCNotification) and message.method == "notifications/cancelled":
            self._done((message.params or {}).get("requestId"))

    def written(self, message: Any) -> None:
        if isinstance(message, types.JSONRPCResponse | types.JSONRPCError):
            self._done(message.id)

    def _done(self, request_id: Any) -> None:
        self._ids.discard(request_id)
        if not self._ids:
            self._none.set()

    async def all_answered(self) -> None:
        await self._none.wait()


class ClosedOnExit:
    """A stream that ``async with`` closes at its end."""

    async def aclose(self) -> None:
        raise NotImplementedError

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc_val: BaseException | None, exc_tb: TracebackType | None
    ) -> bool | None:
        await self.aclose()
        return None


class CountingWriteStream(ClosedOnExit):
    """The transport's write stream, telling ``Unanswered`` of each answer it sends."""

    def __init__(self, inner: WriteStream[SessionMessage], unanswered: Unanswered) -> None:
        self._inner = inner
        self._unanswered = unanswered

    async def send(self, item: SessionMessage) -> None:
        await self._inner.send(item)
        self._unanswered.written(item.message)

    async def aclose(self) -> None:
        await self._inner.aclose()


class AnsweringReadStream(ClosedOnExit):
    """The transport's read stream, less the lines it could not read: each is answered
    on the write stream here and never reaches the server. Its end comes once every
    request read before it is answered."""

    def __init__(
        self, inner: ReadStream[SessionMessage | Exception], write: WriteStream[SessionMessage],
        unanswered: Unanswered,
    ) -> None:
        self._inner = inner
        self._write = write
        self._unanswered = unanswered  # told of the answers by the write stream's CountingWriteStream

    @property
    def last_context(self) -> Any:
        return getattr(self._inner, "last_context", None)

    async def receive(self) -> SessionMessage | Exception:
        while True:
            try:
                item = await self._inner.receive()
            except anyio.EndOfStream:
                await self._unanswered.all_answered()
                raise
            if not isinstance(item, Exception):
                self._unanswered.read(item.message)
                return item
            await self._write.send(SessionMessage(malformed_reply(item)))

    async def aclose(self) -> None:
        await self._inner.aclose()

    def __aiter__(self) -> AnsweringReadStream:
        return self

    async def __anext__(self) -> SessionMessage | Exception:
        try:
            return await self.receive()
        except anyio.EndOfStream:
            raise StopAsyncIteration from None


def serve(server: MCPServer) -> None:
    """``server.run("stdio")``, each malformed line answered."""

    async def run() -> None:
        lowlevel = server._lowlevel_server  # the SDK's own stdio run, with the read stream wrapped
        async with stdio_server() as (read_stream, write_stream):
            unanswered = Unanswered()
            counting = CountingWriteStream(write_stream, unanswered)
            answering = AnsweringReadStream(read_stream, write_stream, unanswered)
            await lowlevel.run(answering, counting, lowlevel.create_initialization_options())

    anyio.run(run)
