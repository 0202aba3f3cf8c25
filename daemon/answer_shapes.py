"""The successful answers of the HTTP API as its OpenAPI document states them: a client
made from ``/openapi.json`` knows the fields of a memory, a search, an outline, a change
list and a sync, and the notes header. Documentation only: the routes answer what their
functions return (no response model filters or checks it on the way out)."""

from __future__ import annotations

from typing import Any

from recalld.daemon.client import NOTES_HEADER

_STR, _INT, _BOOL = {"type": "string"}, {"type": "integer"}, {"type": "boolean"}
_OPT_STR, _OPT_INT = {"type": ["string", "null"]}, {"type": ["integer", "null"]}


def _object(properties: dict[str, Any], *, required: tuple[str, ...] = (), **extra: Any) -> dict[str, Any]:
    return {"type": "object", "properties": properties, "required": list(required), **extra}


def _said(schema: dict[str, Any], description: str) -> dict[str, Any]:
    return {**schema, "description": description}


MEMORY = _object({
    "id": _said(_STR, "the memory's id (a UUID): get_memory, forget, an outline's or a change's id"),
    "score": _said({"type": "number"}, "a search's: how well it matched (fused ranks; higher is better)"),
    "type": _said(_STR, "structural, task, decision, debt, preference, project or note"),
    "kind": _said(_OPT_STR, "module, class, function, method, ...; commit (task); manual (note, decision, ...)"),
    "repo": _OPT_STR, "branch": _OPT_STR, "language": _OPT_STR,
    "path": _said(_OPT_STR, "the file, from the repository's top"),
    "qualname": _said(_OPT_STR, "qualified name: Class.method"), "name": _OPT_STR,
    "signature": _OPT_STR, "docstring": _OPT_STR, "start_line": _OPT_INT, "end_line": _OPT_INT,
    "text": _said(_STR, "what was embedded: the symbol's code (up to the embedding limit), a commit's summary"),
    "content_hash": _OPT_STR, "lineage": _said(_OPT_STR, "the same for every version of one symbol"),
    "symbol_key": _OPT_STR,
    "valid_from_commit": _said(_OPT_STR, "the commit of the sync that first saw this version"),
    "valid_from_time": _OPT_INT, "valid_to_commit": _OPT_STR, "valid_to_time": _OPT_INT,
    "valid_through_commit": _OPT_STR,
    "author": _said(_OPT_STR, "who wrote this version: the author of the commit that did"),
    "written_in": _said(_OPT_STR, "the commit that wrote it (before a move, for code moved unchanged)"),
    "change": _said(_OPT_STR, "how this version came: added, modified, renamed, indexed, ..."),
    "task_id": _said(_OPT_STR, "the task memory (commit) that wrote it"),
    "deprecated": _said(_BOOL, "closed: no longer valid at the tip"),
    "deprecated_reason": _said(_OPT_STR, "modified, renamed, moved, removed, deleted, skipped, ..."),
    "superseded_by": _said(_OPT_STR, "the id of the version that replaced it"),
    "history": {"type": "array", "items": {"type": "object"}, "description": "its earlier intervals"},
    "scope": _OPT_STR, "user": _OPT_STR, "org": _OPT_STR, "untrusted": _BOOL,
    "last_changed": _said({"type": "object"}, "with blame: the latest commit that wrote one of its lines"),
}, required=("id", "type", "deprecated"), additionalProperties=True)  # a task memory adds its commit's fields

MEM0 = _object({"results": {"type": "array", "items": _object({
    "id": _STR, "memory": _STR, "hash": _OPT_STR, "metadata": {"type": "object"}, "score": {"type": "number"},
    "created_at": _OPT_STR, "updated_at": _OPT_STR, "user_id": _OPT_STR, "agent_id": _OPT_STR,
    "run_id": _OPT_STR, "app_id": _OPT_STR,
})}}, required=("results",))

WRITTEN = _object({
    "id": _STR, "status": _said(_STR, "created, unchanged, reopened, updated; forgotten, already forgotten"),
    "memory": MEMORY,
}, required=("id", "status", "memory"))

OUTLINE = _object({
    "repo": _STR, "path": _STR, "as_of": _OPT_STR,
    "files": {"type": "array", "items": _object({
        "path": _STR, "language": _OPT_STR, "doc": _OPT_STR,
        "symbols": {"type": "array", "items": _object({
            "kind": _STR, "qualname": _STR, "signature": _OPT_STR, "start_line": _INT, "end_line": _INT,
            "doc": _OPT_STR, "id": _STR}, additionalProperties=True)},
    }, additionalProperties=True)},
    "symbols": _said(_INT, "how many symbols are listed"), "truncated": _BOOL,
}, required=("repo", "path", "files", "symbols", "truncated"), additionalProperties=True)

CHANGES = _object({
    "repo": _STR,
    "since": _OPT_STR, "until": _OPT_STR, "since_commit": _OPT_STR, "until_commit": _OPT_STR,
    "from_commit": _said(_OPT_STR, "the state the index synced to at or before since"), "to_commit": _OPT_STR,
    "commits": _INT, "newest_commits": {"type": "array", "items": {"type": "object"}},
    "counts": _said({"type": "object", "additionalProperties": _INT},
                    "added, modified, renamed, moved, removed: how many of each"),
    "changes": {"type": "array", "items": {"type": "object"},
                "description": "with since: each change (change, was, now, differs, reason); without: the latest"
                " commits (task memories) or symbol versions"},
    "source": _said(_STR, "without since: task (commits) or structural (versions opened and closed)"),
    "truncated": _BOOL, "note": _said(_STR, "why nothing was found under path"),
}, required=("repo", "changes"), additionalProperties=True)

SYNC_RESULT = _object({
    "repo": _STR, "branch": _STR, "from_commit": _OPT_STR, "to_commit": _OPT_STR,
    "mode": _said(_STR, "noop, incremental or full"), "added": _INT, "modified": _INT, "renamed": _INT,
    "deprecated": _INT, "embedded": _INT, "files_changed": _INT, "skipped": _INT, "seconds": {"type": "number"},
}, required=("repo", "branch"), additionalProperties=True)

QUEUED = _object({"queued": _said(_INT, "the event's id in the daemon's journal"), "repo": _STR},
                 required=("queued", "repo"))

STATUS = _object({
    "daemon": _object({"state": _STR, "pid": _OPT_INT, "uptime": {"type": "number"}}, additionalProperties=True),
    "vectors": _said({"type": ["object", "null"]}, "the embedding space stored and configured (null: store busy)"),
    "repos": {"type": "array", "items": _object({
        "repo": _STR, "branch": _STR, "indexed_commit": _OPT_STR, "tip": _OPT_STR, "commits_behind": _OPT_INT,
        "memories": _INT, "deprecated": _INT, "error": _OPT_STR, "empty": _BOOL, "queue_depth": _INT,
        "last_error": _OPT_STR, "history_owed": _BOOL,
        "other_branches": _said({"type": "object", "additionalProperties": _INT},
                                "the other branches the store holds of it, each with its live memories"),
    }, additionalProperties=True)},
}, required=("daemon", "repos"), additionalProperties=True)

HEALTH = _object({"state": _said(_STR, "starting, ready, restarting, stopping or stopped")}, required=("state",))

NOTED = {NOTES_HEADER: {
    "description": "a JSON list of strings, when there are notes: why the answer may not be what was asked (a"
                   " repository whose memories may be stale, a filter nothing matches, an as-of state read from an"
                   " earlier sync, more found than the limit)",
    "schema": {"type": "string"},
}}


def answered(schema: dict[str, Any], description: str, *, status: int = 200, noted: bool = False) -> dict[int, Any]:
    """The ``responses`` entry of a route's successful answer."""
    answer: dict[str, Any] = {"description": description, "content": {"application/json": {"schema": schema}}}
    if noted:
        answer["headers"] = NOTED
    return {status: answer}


def listed(schema: dict[str, Any]) -> dict[str, Any]:
    return {"type": "array", "items": schema}
