"""MCP over stdio with every line answered: a line that is no JSON-RPC message gets a
JSON-RPC error, as JSON-RPC 2.0 asks, where the SDK's stdio transport dropped it unanswered
(a client whose request held a lone surrogate escape, ``"\\ud800"``, which JSON may spell
and no text can hold, waited for an answer for ever; one whose id was ``null``, ``1.5`` or
``true`` too: the SDK took it for a notification). And the end of the input waits for
the answers to the requests read before it (the SDK cancelled them: requests piped in
whole, ``recalld mcp < requests``, lost every answer that took longer than reading the
rest), but for those the client cancelled.
"""

from __future__ import annotations

import fcntl
import io
import json
import os
from collections import deque
from collections.abc import Iterator
from contextlib import contextmanager
from types import TracebackType
from typing import TYPE_CHECKING, Any, BinaryIO, Self, TextIO

import anyio
import mcp_types as types
from mcp.server.stdio import stdio_server
from mcp.shared.message import SessionMessage
from pydantic import ValidationError

from recalld.daemon.logs import get_logger

if TYPE_CHECKING:
    from mcp.server.mcpserver import MCPServer
    from mcp.shared._stream_protocols import ReadStream, WriteStream

DEPTH = 200  # about how deep pydantic's JSON reader (jiter) reads arrays and objects; Python's, ~1000 levels
SURROGATE = "a string holds a lone surrogate escape (such as \\ud800), which no text can hold"
log = get_logger("recalld.mcp")


def malformed_reply(line: str, exc: Exception) -> types.JSONRPCError:
    """The error answering a line the transport could not read as a JSON-RPC message: to
    the request's id where the line has one (Python's JSON reader takes a lone surrogate
    escape that pydantic's refuses, and nests deeper), else to null."""
    try:
        found = _json(line)
    except ValueError:
        return _error(None, types.PARSE_ERROR, "Parse error: the line is not JSON")
    errors = exc.errors() if isinstance(exc, ValidationError) else []
    fault = str(errors[0].get("ctx", {}).get("error", "")) if errors and errors[0]["type"] == "json_invalid" else ""
    if fault.startswith("recursion limit exceeded"):
        why = f"arrays and objects nest too deeply (the JSON reader stops at about {DEPTH} levels)"
    elif "surrogate" in fault or "hex escape" in fault:
        why = SURROGATE
    elif fault:
        why = f"the JSON cannot be read: {fault}"
    else:
        why = "not a JSON-RPC 2.0 request, notification or response"
    return _error(_request_id(found), types.INVALID_REQUEST, f"Invalid Request: {why}")


def misnumbered_reply(line: str, message: types.JSONRPCMessage) -> types.JSONRPCError | None:
    """The error answering a request whose id is neither a string nor an integer (``null``,
    ``1.5``, ``true``, an object: MCP allows no other), to null, or None for any other
    message. The SDK reads such a request as a notification, its id dropped: never answered."""
    if not isinstance(message, types.JSONRPCNotification):
        return None
    found = _json(line)  # the SDK read it: JSON no deeper than DEPTH
    if not isinstance(found, dict) or "id" not in found:
        return None
    given = json.dumps(found["id"], separators=(",", ":"))
    given = given if len(given) <= 40 else given[:37] + "..."
    return _error(None, types.INVALID_REQUEST, f"Invalid Request: the id must be a string or an integer, not {given}")


def _json(line: str) -> Any:
    """The line's JSON value, or None where it nests too deep for Python's reader too.
    Raises ValueError where it is no JSON."""
    try:
        return json.loads(line)
    except RecursionError:
        return None


def _request_id(found: Any) -> int | str | None:
    given = found.get("id") if isinstance(found, dict) else None
    return given if isinstance(given, int | str) and not isinstance(given, bool) else None


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


class KeptLines(anyio.AsyncFile[str]):
    """The lines the SDK's transport reads, each kept until the read stream takes what the
    transport made of it: one item a line, the message or the exception reading it raised."""

    def __init__(self, fp: TextIO) -> None:
        super().__init__(fp)
        self.kept: deque[str] = deque()

    async def readline(self) -> str:
        line = await super().readline()
        if line:  # "": the end of the input, no line
            self.kept.append(line)
        return line


class AnsweringReadStream(ClosedOnExit):
    """The transport's read stream, less the lines the server must not be given: each is
    answered on the write stream here. Its end comes once every request read before it
    is answered."""

    def __init__(
        self, inner: ReadStream[SessionMessage | Exception], lines: KeptLines, write: WriteStream[SessionMessage],
        unanswered: Unanswered,
    ) -> None:
        self._inner = inner
        self._lines = lines
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
            line = self._lines.kept.popleft()
            reply: types.JSONRPCError | None
            try:
                if isinstance(item, Exception):
                    reply = malformed_reply(line, item)
                else:
                    reply = misnumbered_reply(line, item.message)
            except Exception:  # a bug of ours: logged, the line answered all the same, the session goes on
                log.exception("mcp_line_failed", line=line[:200])
                reply = _error(None, types.INTERNAL_ERROR, "Internal error: the line could not be read")
            if reply is not None:
                await self._write.send(SessionMessage(reply))
            elif isinstance(item, SessionMessage):
                self._unanswered.read(item.message)
                return item

    async def aclose(self) -> None:
        await self._inner.aclose()

    def __aiter__(self) -> AnsweringReadStream:
        return self

    async def __anext__(self) -> SessionMessage | Exception:
        try:
            return await self.receive()
        except anyio.EndOfStream:
            raise StopAsyncIteration from None


@contextmanager
def claimed_stdin() -> Iterator[BinaryIO]:
    """The client's pipe, read from a descriptor of its own while fd 0 reads the null device
    (a child a tool starts reads no request), as the SDK's transport has it for a stdin it
    opens itself; this one is given its stdin, to keep its lines."""
    wire = fcntl.fcntl(0, fcntl.F_DUPFD_CLOEXEC, 3)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    try:
        yield os.fdopen(wire, "rb", closefd=False)  # never closed: a worker thread may still read it
    finally:
        os.dup2(wire, 0)


def serve(server: MCPServer) -> None:
    """``server.run("stdio")``, each malformed line answered."""

    async def run() -> None:
        lowlevel = server._lowlevel_server  # the SDK's own stdio run, with the read stream wrapped
        with claimed_stdin() as wire:
            lines = KeptLines(io.TextIOWrapper(wire, encoding="utf-8", errors="replace"))
            async with stdio_server(stdin=lines) as (read_stream, write_stream):
                unanswered = Unanswered()
                counting = CountingWriteStream(write_stream, unanswered)
                answering = AnsweringReadStream(read_stream, lines, write_stream, unanswered)
                await lowlevel.run(answering, counting, lowlevel.create_initialization_options())

    anyio.run(run)
