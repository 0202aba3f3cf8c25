"""The error answers of the HTTP API as its OpenAPI document states them: each route
names those it can give, so a client made from ``/openapi.json`` knows every status."""

from __future__ import annotations

import json
from typing import Any, TypeVar

from fastapi import Response
from pydantic import BaseModel

from recalld.daemon.client import NOTES_HEADER

T = TypeVar("T")


class ErrorAnswer(BaseModel):
    detail: str


class RefusedAnswer(BaseModel):
    detail: list[dict[str, Any]]  # pydantic's faults: type, loc, msg, input


MEANINGS = {
    400: "cannot be done as asked; the detail says why (a commit or date not found, a manual memory without a scope)",
    401: "missing or wrong credentials",
    404: "no such repository, memory or symbol, or no registered repository matches the push",
    413: "body over the daemon's limit",
    422: "a query parameter the route does not take, or one that takes one value given twice",
    502: "the Qdrant server the daemon stores in did not answer, or refused the call",
    503: "the store is taken for long (the vector index being built): ask again after Retry-After seconds",
    507: "the daemon's disk is too full to write",
}


NOTE_CHARACTERS = 1_000  # of one note the header holds: a note may echo what was asked (a path of 24k characters)
NOTES_BYTES = 32_768  # of the header: clients refuse a header line over 64 KiB (Python's http.client)
# of an error's detail: it may echo what was asked too (a qualname of 1 MB was sent back whole,
# into an agent's context by the MCP tool that asked)
DETAIL_CHARACTERS = 4_000


def elided(text: str, limit: int) -> str:
    """``text``, or past ``limit`` characters its start and its end around how many are left out."""
    if len(text) <= limit:
        return text
    half = limit // 2
    return f"{text[:half]} … ({len(text) - 2 * half} characters) … {text[-half:]}"


def noted(response: Response, notes: list[str], answer: T) -> T:
    """``answer``, with ``notes`` (why it may not be what was asked) in its ``NOTES_HEADER``:
    each cut to its start and end past ``NOTE_CHARACTERS``, and the last ones told by their
    number past ``NOTES_BYTES`` (a client read a long ``--path``'s notes as no answer)."""
    kept: list[str] = []
    size = 64  # the brackets, and room for the last note saying how many more there are
    for number, note in enumerate(notes):
        note = elided(note, NOTE_CHARACTERS)
        size += len(json.dumps(note)) + 2
        if size > NOTES_BYTES:
            kept.append(f"… and {len(notes) - number} note{'s' * (len(notes) - number > 1)} more")
            break
        kept.append(note)
    if kept:  # ASCII, as a header must be
        response.headers[NOTES_HEADER] = json.dumps(kept)
    return answer


def errors(*statuses: int) -> dict[int | str, dict[str, Any]]:
    """The ``responses`` of a route that answers ``statuses`` with ``{"detail": message}``."""
    answers: dict[int | str, dict[str, Any]] = {}
    for status in statuses:
        answers[status] = {"model": RefusedAnswer if status == 422 else ErrorAnswer, "description": MEANINGS[status]}
        if status == 503:
            answers[status]["headers"] = {"Retry-After": {"description": "seconds", "schema": {"type": "integer"}}}
    return answers


# what ``webhooks.generic_push`` reads
GENERIC_PUSH = {
    "type": "object",
    "required": ["repo"],
    "properties": {
        "repo": {"type": "string", "minLength": 1, "description": "a registered name or a remote URL"},
        "ref": {"type": "string", "description": "the ref pushed (refs/heads/main)"},
        "commit": {"type": "string", "description": "the commit it points at"},
    },
    "additionalProperties": False,
}


def json_body(description: str, schema: dict[str, Any] | None = None) -> dict[str, Any]:
    """The request body of a route that reads its own (a webhook, whose signature is of
    the bytes as sent), for ``openapi_extra``."""
    content = {"application/json": {"schema": schema or {"type": "object"}}}
    return {"requestBody": {"required": True, "description": description, "content": content}}
