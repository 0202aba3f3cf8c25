"""MCP over stdio with every line answered: a line that is no JSON-RPC message gets a
JSON-RPC error, as JSON-RPC 2.0 asks, where the SDK's stdio transport dropped it unanswered
(a client whose request held a lone surrogate escape, ``"\\ud800"``, which JSON may spell
and no text can hold, waited for an answer for ever).
"""

from __future__ import annotations

import json
from types import TracebackType
from typing import TYPE_CHECKING, Any

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


class AnsweringReadStream:
    """The transport's read stream, less the lines it could not read: each is answered
    on the write stream here and never reaches the server."""

    def __init__(self, inner: ReadStream[SessionMessage | Exception], write: WriteStream[SessionMessage]) -> None:
        self._inner = inner
        self._write = write

    @property
    def last_context(self) -> Any:
        return getattr(self._inner, "last_context", None)

    async def receive(self) -> SessionMessage | Exception:
        while True:
            item = await self._inner.receive()
            if not isinstance(item, Exception):
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

    async def __aenter__(self) -> AnsweringReadStream:
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc_val: BaseException | None, exc_tb: TracebackType | None
    ) -> bool | None:
        await self.aclose()
        return None


def serve(server: MCPServer) -> None:
    """``server.run("stdio")``, each malformed line answered."""

    async def run() -> None:
        lowlevel = server._lowlevel_server  # the SDK's own stdio run, with the read stream wrapped
        async with stdio_server() as (read_stream, write_stream):
            answering = AnsweringReadStream(read_stream, write_stream)
            await lowlevel.run(answering, write_stream, lowlevel.create_initialization_options())

    anyio.run(run)
