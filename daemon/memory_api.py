"""HTTP routes for agents: manual memories (remember, get, forget), a symbol's versions,
a file's outline, a repository's recent changes or its changes since a commit. Handlers call
daemon/memories.py and daemon/changes.py, as the CLI does."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any, Literal

from fastapi import FastAPI, Query, Response
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict, Field, model_validator

from recalld.daemon import memories
from recalld.daemon.answer_shapes import CHANGES, MEMORY, OUTLINE, WRITTEN, answered, listed
from recalld.daemon.answers import errors, noted
from recalld.daemon.changes import repo_changes
from recalld.daemon.config import (CHANGES_LIMIT, CHANGES_MAX, OUTLINE_LIMIT, OUTLINE_MAX, RECENT_LIMIT, RECENT_MAX,
                                   SYMBOLS_MAX)
from recalld.daemon.repos import unfollowed_at
from recalld.ingest.gitnames import is_utf8
from recalld.ingest.manual import MAX_NAME, MAX_TEXT, ManualMemory

if TYPE_CHECKING:
    from recalld.daemon.service import Service


NAME = "a name: printable (no control character), not blank"


class RememberBody(BaseModel):
    # a memory belongs to a repo, a user or an org: one of them given (``ManualMemory``);
    # a field it does not take is refused (a misspelt "typ" kept a decision as a note)
    model_config = ConfigDict(extra="forbid", json_schema_extra={
        "anyOf": [{"required": [scope], "properties": {scope: {"type": "string", "minLength": 1}}}
                  for scope in ("repo", "user", "org")]
    })  # fmt: skip
    # checked by ``ManualMemory`` (a 400 that says which character, where), as the CLI's
    text: str = Field(min_length=1, max_length=MAX_TEXT, description="line ends and tabs, no other control character")
    type: Literal["note", "decision", "preference"] = "note"
    # names of MAX_NAME characters at most: one of 1 MB was kept, and sent back by every search that found it
    repo: str | None = Field(None, max_length=MAX_NAME, description="a registered repository's name")
    user: str | None = Field(None, max_length=MAX_NAME, description=NAME)
    org: str | None = Field(None, max_length=MAX_NAME, description=NAME)
    author: str | None = Field(None, max_length=MAX_NAME, description=f"who asked; {NAME}")

    @model_validator(mode="after")
    def _unicode(self) -> RememberBody:
        """JSON may spell a lone surrogate ("\\ud800"); no text can hold one (the registry's
        lookup of such a repo raised). pydantic refuses it only where a field is checked."""
        for name, value in self:
            if isinstance(value, str) and not is_utf8(value):
                raise ValueError(f"{name} is not Unicode text: it holds a lone surrogate escape")
        return self


def add_memory_routes(api: FastAPI, service: Service, auth: list[Any]) -> None:
    @api.post("/v1/memories", dependencies=auth, status_code=201,
              responses={**answered(WRITTEN, "remembered", status=201),
                         **answered(WRITTEN, "a memory of this text was kept: unchanged, reopened or retyped"),
                         **errors(400, 401, 404, 413, 502, 503, 507)})
    def remember(body: RememberBody) -> JSONResponse:
        result = memories.remember(service.app, ManualMemory(**body.model_dump()))
        return JSONResponse(result, status_code=201 if result["status"] == "created" else 200)

    # ``{memory_id:path}``: an id with "/" (``../status``) is an unknown memory, where the
    # router's bare "Not Found" said nothing of it
    @api.get("/v1/memories/{memory_id:path}", dependencies=auth,
             responses={**answered(MEMORY, "the memory"), **errors(401, 404, 502, 503)})
    def get_memory(memory_id: str) -> dict[str, Any]:
        return memories.get_memory(service.app, memory_id)

    # 400: the memory is not a manual one (structural, task and derived memories follow git)
    @api.delete("/v1/memories/{memory_id:path}", dependencies=auth,
                responses={**answered(WRITTEN, "forgotten (closed)"), **errors(400, 401, 404, 502, 503, 507)})
    def forget(memory_id: str) -> dict[str, Any]:
        return memories.forget(service.app, memory_id)

    @api.get("/v1/repos/{name:path}/symbols", dependencies=auth, responses={
        **answered(listed(MEMORY), "the symbol's versions", noted=True), **errors(400, 401, 404, 502, 503)})
    def symbol(
        name: str, qualname: str, path: str | None = None, kind: str | None = None, include_deprecated: bool = False,
        as_of: Annotated[str | None, Query(description="commit of the tracked branch or ISO date")] = None,
        limit: Annotated[int | None, Query(ge=1, le=SYMBOLS_MAX, description="at most this many (a note says how"
                                           " many were found); without it, all")] = None,
        blame: Annotated[bool, Query(description="each version's last_changed: the latest commit that wrote"
                                     " one of its lines, by git blame (author is the sync's commit's)")] = False,
        *,
        response: Response,
    ) -> list[dict[str, Any]]:  # fmt: skip
        notes: list[str] = []
        found = memories.get_symbol(
            service.app, name, qualname, path=path, kind=kind, include_deprecated=include_deprecated,
            as_of_text=as_of or None, notes=notes, limit=limit, blame=blame,
        )
        return noted(response, notes + unfollowed_at(service.app.registry, name, as_of), found)

    @api.get("/v1/repos/{name:path}/outline", dependencies=auth, responses={
        **answered(OUTLINE, "what the files define, in order", noted=True), **errors(400, 401, 404, 502, 503)})
    def outline(
        name: str, path: Annotated[str, Query(description="a file, a directory or a glob ('src/**/*.py')")],
        limit: Annotated[int, Query(ge=1, le=OUTLINE_MAX)] = OUTLINE_LIMIT,
        as_of: Annotated[str | None, Query(description="commit of the tracked branch or ISO date")] = None,
        blame: Annotated[bool, Query(description="each file's and symbol's last_changed: the latest commit that"
                                     " wrote one of its lines, by git blame")] = False,
        *,
        response: Response,
    ) -> dict[str, Any]:  # fmt: skip
        notes: list[str] = []
        found = memories.outline(service.app, name, path, as_of_text=as_of or None, limit=limit, notes=notes,
                                 blame=blame)  # fmt: skip
        return noted(response, notes + unfollowed_at(service.app.registry, name, as_of), found)

    @api.get("/v1/repos/{name:path}/changes", dependencies=auth, responses={
        **answered(CHANGES, "what changed (without since: the latest commits)"), **errors(400, 401, 404, 502, 503)})
    def changes(
        name: str,
        limit: Annotated[int | None, Query(ge=1, le=CHANGES_MAX, description=f"at most this many changes (default"
                                           f" {CHANGES_LIMIT}); without since, commits: 1 to {RECENT_MAX} (default"
                                           f" {RECENT_LIMIT}), more is a 400")] = None,
        since: Annotated[str | None, Query(description="a commit of the tracked branch or an ISO date: what changed"
                                           " in the code's symbols from then (without it: the latest commits)")] = None,
        until: Annotated[str | None, Query(description="with since: to this commit or date (default: the indexed"
                                           " commit)")] = None,
        path: Annotated[str | None, Query(description="with since: only under this file, directory or glob")] = None,
    ) -> dict[str, Any]:  # fmt: skip
        return repo_changes(service.app, name, since=since, until=until, path=path, limit=limit)
