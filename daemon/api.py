"""The daemon's HTTP API (FastAPI): sync, status, search, export, health, CI webhooks.

Every route but /healthz and the signed webhooks needs the bearer token kept in the
state dir. Handlers validate, append to the journal and return; syncs happen on the
dispatcher's workers.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from functools import partial
from itertools import chain, islice
from types import UnionType
from typing import TYPE_CHECKING, Annotated, Any, Literal, Union, get_args, get_origin
from urllib.parse import parse_qs

import anyio
from fastapi import Depends, FastAPI, HTTPException, Query, Request, Response
from fastapi.encoders import jsonable_encoder
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, StreamingResponse
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from starlette.concurrency import run_in_threadpool

from recalld.daemon import webhooks
from recalld.daemon.answer_shapes import HEALTH, MEM0, MEMORY, NOTED, QUEUED, STATUS, SYNC_RESULT, answered, listed
from recalld.daemon.answers import DETAIL_CHARACTERS, GENERIC_PUSH, elided, errors, json_body, noted
from recalld.daemon.api_requests import (
    BodyLimited, EmptyParametersDropped, HeadAsGet, ReasonedRoute, not_utf8, read_json,
)
from recalld.daemon.config import SEARCH_LIMIT
from recalld.daemon.journal import Event
from recalld.daemon.mem0 import mem0_results
from recalld.daemon.memory_api import add_memory_routes
from recalld.daemon.exports import export_noted
from recalld.daemon.query import SearchRequest, search_noted
from recalld.daemon.repos import unfollowed_at
from recalld.ingest.diskspace import DiskFullError
from recalld.ingest.errors import BusyError, NotFoundError, RecalldError, StoreServerError

if TYPE_CHECKING:
    from recalld.daemon.service import Service

_bearer = HTTPBearer(auto_error=False)
EXPORT_BLOCK = 200  # records an export sends a piece (``_json_lines``)
RETRY_AFTER = 5  # seconds a client told the store is busy waits before asking again
SYNC_WAITS = 256  # syncs waited for at once (``sync?wait=true``), on threads apart from the other routes'
FORM = "application/x-www-form-urlencoded"
LENIENT = ("/v1/webhooks/", "/healthz")  # routes whose URL may carry a sender's own query parameters
ECHOED = 200  # characters of a refused value a 422 shows (a 10 MB text is not sent back)


def create_api(service: Service) -> FastAPI:
    api = FastAPI(
        title="recalld",
        summary="Exact, versioned structural memories of git repositories",
        version="0.1.0",
        dependencies=[Depends(_known_query)],
    )
    api.router.route_class = ReasonedRoute
    api.add_middleware(EmptyParametersDropped)
    api.add_middleware(BodyLimited, limit=service.max_body)
    api.add_middleware(HeadAsGet)

    def authorised(creds: Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)]) -> None:
        if creds is None or not webhooks.token_ok(service.token, creds.credentials):
            raise HTTPException(401, "missing or wrong bearer token", headers={"WWW-Authenticate": "Bearer"})

    auth = [Depends(authorised)]

    @api.exception_handler(RequestValidationError)
    def _invalid(request: Request, exc: RequestValidationError) -> JSONResponse:
        # FastAPI's own answer echoes the input it refused, and a lone surrogate ("\\ud800",
        # which JSON may spell and no UTF-8 can) made rendering it a 500
        faults = [_named_fields(request, fault) for fault in exc.errors()]
        return EscapedJSON({"detail": jsonable_encoder(faults)}, status_code=422)

    @api.exception_handler(RecalldError)
    def _expected(_request: Request, exc: RecalldError) -> JSONResponse:
        detail = {"detail": elided(exc.message, DETAIL_CHARACTERS)}  # it may echo a value of megabytes
        if isinstance(exc, BusyError):  # nothing was done: the client may ask again
            return EscapedJSON(detail, status_code=503, headers={"Retry-After": str(RETRY_AFTER)})
        if isinstance(exc, DiskFullError):  # the server's disk, not the request: 507 Insufficient Storage
            return EscapedJSON(detail, status_code=507)
        if isinstance(exc, StoreServerError):  # the Qdrant server behind the daemon: 502 Bad Gateway
            return EscapedJSON(detail, status_code=502)
        status = 404 if isinstance(exc, NotFoundError) else 400  # an unknown repository's name too (the registry's)
        return EscapedJSON(detail, status_code=status)

    @api.get("/healthz", responses=answered(HEALTH, "the daemon's state"))
    def healthz() -> dict[str, Any]:
        return {"state": service.state}

    @api.get("/v1/status", dependencies=auth, responses={**answered(STATUS, "the daemon and each repository"),
                                                         **errors(401, 422)})
    def status() -> dict[str, Any]:
        return service.status()

    # ``{name:path}``: a name with "/" (a path given for a name) reaches the handler, which
    # says the repository is unknown and which are known, where the router said "Not Found"
    # A wait holds a thread until the sync is done, and did so on the threads that answer
    # every other route: 40 clients waiting (``recalld sync``, an agent's sync tool) left
    # status, search and the rest unanswered for as long. Waits count against a limiter
    # of their own.
    waits = anyio.CapacityLimiter(SYNC_WAITS)

    @api.post("/v1/repos/{name:path}/sync", dependencies=auth, status_code=202,
              responses={**answered(QUEUED, "queued (without wait)", status=202),
                         **answered(SYNC_RESULT, "with wait: the sync's result"),
                         **errors(400, 401, 404, 502, 503, 507)})
    async def sync(
        name: str, wait: bool = False, full: bool = False,
        timeout: Annotated[float, Query(gt=0, le=86400, allow_inf_nan=False, description="seconds, with wait")] = 600.0,
    ) -> Any:  # fmt: skip
        event_id = await run_in_threadpool(_sync_queued, service, name, full=full)
        if not wait:
            return {"queued": event_id, "repo": name}
        waited = partial(service.wait_for, name, event_id, timeout=timeout)
        result = await anyio.to_thread.run_sync(waited, limiter=waits)
        return JSONResponse(result, status_code=200)

    @api.get("/v1/search", dependencies=auth, responses={
        **answered({"oneOf": [listed(MEMORY), MEM0]}, "memories best first (format=mem0: Mem0's shape)", noted=True),
        **errors(400, 401, 404, 502, 503)})
    def search_memories(
        q: str,
        repo: str | None = None,
        types: Annotated[list[str] | None, Query(alias="type", description="memory type (repeatable)")] = None,
        kind: Annotated[list[str] | None, Query()] = None,
        lang: str | None = None,
        path: Annotated[str | None, Query(description="path glob")] = None,
        include_deprecated: bool = False,
        include_untrusted: bool = False,
        as_of: Annotated[str | None, Query(description="commit of the tracked branch or ISO date")] = None,
        shape: Annotated[Literal["json", "mem0"], Query(alias="format")] = "json",
        limit: Annotated[int, Query(ge=1, le=SEARCH_LIMIT)] = 10,
        tests: Annotated[Literal["include", "exclude", "only"], Query(
            description="memories of test code: include (ranked below code of like score unless the query speaks"
            " of tests), exclude or only")] = "include",
        *,
        response: Response,
    ) -> Any:
        request = SearchRequest(
            q, repo, tuple(kind or ()), lang, path, include_deprecated, limit,
            types=tuple(types or ()), include_untrusted=include_untrusted, as_of=as_of, tests=tests,
        )  # fmt: skip
        records, notes = search_noted(service.app, request)
        notes += unfollowed_at(service.app.registry, repo, as_of)
        return noted(response, notes, mem0_results(records) if shape == "mem0" else records)

    @api.get("/v1/export", dependencies=auth, response_class=StreamingResponse, responses={
        200: {"description": "one memory a line", "content": {"application/x-ndjson": {"schema": {"type": "string"}}},
              "headers": NOTED},
        **errors(400, 401, 404, 502, 503)})
    def export_memories(
        repo: str | None = None, include_deprecated: bool = False,
        as_of: Annotated[str | None, Query(description="commit of the tracked branch or ISO date")] = None,
    ) -> StreamingResponse:  # fmt: skip
        records, notes = export_noted(service.app, repo=repo, include_deprecated=include_deprecated,
                                      as_of_text=as_of or None)  # fmt: skip
        # read as it is sent (``LockedStore.stream``); the first record before answering, so an
        # unknown repo or a busy store is a 404 / 503 and not an answer cut off after its start
        first = list(islice(records, 1))
        answer = StreamingResponse(_json_lines(chain(first, records)), media_type="application/x-ndjson")
        return noted(answer, notes, answer)

    add_memory_routes(api, service, auth)

    @api.post("/v1/webhooks/github", status_code=202,
              responses={200: {"description": "a ping answered"}, **errors(400, 401, 404, 413, 507)},
              openapi_extra=json_body("GitHub's push event, signed with X-Hub-Signature-256"))
    async def github(request: Request) -> Any:
        body = await request.body()
        secret = _configured(service.config.github_secret, "GitHub secret", "github_secret")
        if not webhooks.github_signature_ok(secret, body, request.headers.get("X-Hub-Signature-256")):
            raise HTTPException(401, "bad or missing X-Hub-Signature-256")
        event = request.headers.get("X-GitHub-Event", "push")
        if event == "ping":
            return JSONResponse({"ok": True}, status_code=200)
        if event != "push":
            return JSONResponse({"ignored": event}, status_code=202)
        push = _push(webhooks.github_push, _json(_github_json(request, body)))
        return await run_in_threadpool(_accept, service, push, "github", request.headers.get("X-GitHub-Delivery"))

    @api.post("/v1/webhooks/gitlab", status_code=202, responses=errors(400, 401, 404, 413, 507),
              openapi_extra=json_body("GitLab's push event, with the X-Gitlab-Token header"))
    async def gitlab(request: Request) -> Any:
        body = await request.body()
        token = _configured(service.config.gitlab_token, "GitLab token", "gitlab_token")
        if not webhooks.token_ok(token, request.headers.get("X-Gitlab-Token")):
            raise HTTPException(401, "bad or missing X-Gitlab-Token")
        payload, event = _json(body), request.headers.get("X-Gitlab-Event")
        if not webhooks.gitlab_is_push(event, payload):
            return JSONResponse({"ignored": event}, status_code=202)
        delivery = request.headers.get("X-Gitlab-Event-UUID") or request.headers.get("Idempotency-Key")
        return await run_in_threadpool(_accept, service, _push(webhooks.gitlab_push, payload), "gitlab", delivery)

    @api.post("/v1/webhooks/generic", status_code=202, dependencies=auth, responses=errors(400, 401, 404, 413, 507),
              openapi_extra=json_body("a push to a registered repository", GENERIC_PUSH))
    async def generic(request: Request) -> Any:
        push = _push(webhooks.generic_push, _json(await request.body()))
        return await run_in_threadpool(_accept, service, push, "generic", request.headers.get("X-Delivery-Id"))

    return api


class EscapedJSON(JSONResponse):
    """JSON whose strings may hold what UTF-8 cannot (a lone surrogate a client sent):
    written as JSON's escapes."""

    def render(self, content: Any) -> bytes:
        return json.dumps(content, ensure_ascii=False, separators=(",", ":")).encode("utf-8", "backslashreplace")


def _known_query(request: Request) -> None:
    """A query parameter the route does not take is refused (422), with those it takes:
    FastAPI ignored it, and a misspelt ``asof`` answered for the tip without a word, a
    ``?type=decision`` kept a note, a ``?dry_run=true`` deleted. So is a path or a parameter
    that is not UTF-8 (``not_utf8``). A webhook's URL and a health probe's are left be: they
    may carry a sender's or a monitor's own parameters."""
    route = request.scope.get("route")
    if getattr(route, "path", "").startswith(LENIENT):
        return
    if faults := not_utf8(request.scope):
        raise RequestValidationError(faults)
    takes, given = _query_fields(getattr(route, "dependant", None)), request.query_params
    unknown = sorted(set(given).difference(takes))
    if unknown:
        said = f"no such parameter: this route takes {', '.join(sorted(takes))}" if takes else (
            "no such parameter: this route takes none")
        raise RequestValidationError([{"type": "extra_forbidden", "loc": ("query", name), "msg": said,
                                       "input": given[name]} for name in unknown])  # fmt: skip
    # ``repo=a&repo=b`` searched b alone, without a word: a parameter that takes one value
    repeated = sorted(name for name in set(given) if not takes[name] and len(given.getlist(name)) > 1)
    if repeated:
        raise RequestValidationError([{"type": "too_many", "loc": ("query", name), "input": given.getlist(name),
                                       "msg": "given more than once: it takes one value"} for name in repeated])


def _named_fields(request: Request, fault: dict[str, Any]) -> dict[str, Any]:
    """A body's field the route does not take (pydantic's "Extra inputs are not
    permitted") told with the fields it takes, as an unknown query parameter is; the
    refused value shown cut to its first ``ECHOED`` characters."""
    fault = _echo_cut(fault)
    model = getattr(getattr(getattr(request.scope.get("route"), "body_field", None), "field_info", None),
                    "annotation", None)  # fmt: skip
    if fault.get("type") != "extra_forbidden" or fault.get("loc", ())[:1] != ("body",) or model is None:
        return fault
    takes = ", ".join(getattr(model, "model_fields", {}))
    return {**fault, "msg": f"no such field: this body takes {takes}"} if takes else fault


def _echo_cut(fault: dict[str, Any]) -> dict[str, Any]:
    """A fault whose refused value is long text shown with its start and its length alone:
    a memory of 10 MB refused for its length was sent back whole."""
    value = fault.get("input")
    if isinstance(value, str) and len(value) > ECHOED:
        return {**fault, "input": f"{value[:ECHOED]}… ({len(value)} characters)"}
    if isinstance(value, dict | list) and len(repr(value)) > ECHOED:
        return {key: item for key, item in fault.items() if key != "input"}
    return fault


def _query_fields(dependant: Any) -> dict[str, bool]:
    """The query parameters a route's dependant reads, its dependencies' too, each with
    whether it takes several values (``type=a&type=b``)."""
    if dependant is None:
        return {}
    found = {field.alias: _takes_many(field.field_info.annotation) for field in dependant.query_params}
    for inner in dependant.dependencies:
        found.update(_query_fields(inner))
    return found


def _takes_many(annotation: Any) -> bool:
    if get_origin(annotation) in (Union, UnionType):
        return any(map(_takes_many, get_args(annotation)))
    return get_origin(annotation) in (list, tuple, set, frozenset)


def _json_lines(records: Iterator[dict[str, Any]], block: int = EXPORT_BLOCK) -> Iterator[str]:
    """JSON Lines, ``block`` records a piece: the server reads each piece of a sync
    iterator in a worker thread of its own, ~0.2 ms a hop (30k records one by one: 8.8 s)."""
    while piece := list(islice(records, block)):
        yield "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in piece)


def _json(body: bytes) -> dict[str, Any]:
    payload = read_json(body)
    if not isinstance(payload, dict):
        raise HTTPException(400, "body must be a JSON object")
    try:
        json.dumps(payload, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:  # "\ud800": JSON may spell it, no text can hold it (nor the journal)
        raise HTTPException(400, "body is not Unicode text: it holds a lone surrogate escape") from None
    return payload


def _github_json(request: Request, body: bytes) -> bytes:
    """The JSON of a GitHub delivery. A webhook made with GitHub's default content type,
    ``application/x-www-form-urlencoded``, sends it as the form's ``payload`` field (signed
    as the whole form): each such push was refused as "body is not JSON". A JSON object
    labelled a form (as ``curl -d`` and urllib label what they post) is read as JSON. The
    form is read byte for byte (Latin-1 both ways), so that the field's bytes reach the JSON
    reader as sent: read as ASCII, a push whose message or author held a non-ASCII letter
    was a 500."""
    if request.headers.get("content-type", "").partition(";")[0].strip().lower() != FORM or body.lstrip()[:1] == b"{":
        return body
    payload = parse_qs(body.decode("latin-1"), keep_blank_values=True, encoding="latin-1").get("payload")
    if not payload:
        raise HTTPException(400, f"a body sent as {FORM} must hold the JSON in its payload field, as GitHub sends it")
    return payload[0].encode("latin-1")


def _configured(secret: str, what: str, key: str) -> str:
    """A webhook's secret, or a 401 that says none is configured (it said the signature or
    the token was wrong, and the sender's log showed no more)."""
    if not secret:
        raise HTTPException(401, f"no {what} is configured (webhooks.{key} or ${'RECALLD_' + key.upper()}): "
                                 "the daemon takes none of these webhooks")  # fmt: skip
    return secret


def _push(read: Callable[[dict[str, Any]], webhooks.PushInfo], payload: dict[str, Any]) -> webhooks.PushInfo:
    """The push a webhook's body tells of; a body that is not one is a 400 saying why."""
    try:
        return read(payload)
    except ValueError as exc:
        raise HTTPException(400, str(exc)) from exc


def _sync_queued(service: Service, name: str, *, full: bool) -> int:
    """The event of a sync of ``name`` asked for now (tried at once, backing off or not)."""
    service.app.registry.get(name)
    service.dispatcher.retry_now(name)
    return service.enqueue(name, "cli", {"full": full} if full else {})


def _accept(service: Service, push: webhooks.PushInfo, source: str, delivery: str | None) -> Any:
    """Queue the push for each registered repository it is for, but those whose followed
    branch it cannot move (a tag, another branch: said why in ``ignored``, where each was a
    fetch and a sync that changed nothing). On a worker thread: git lists each one's
    remotes, and a webhook had kept every other request waiting meanwhile."""
    registered = service.app.registry.all()
    followed = {e.name: e.branch for e in registered}
    matches = webhooks.match_repos(push, [(e.name, e.path) for e in registered])
    if not matches:
        raise HTTPException(404, "no registered repository matches this push")
    events, ignored = [], []
    for name, remote in matches:
        reason = webhooks.ignored_because(push, followed[name])
        if reason is not None:  # a tag, another branch: its fetch and sync would change nothing
            ignored.append({"repo": name, "reason": reason})
            continue
        detail: dict[str, Any] = {"webhook": source, "ref": push.ref, "commit": push.commit}
        if remote:
            detail["fetch"] = remote
        events.append(Event(name, "webhook", detail))
    ids = service.journal.append_delivered(source, delivery, events) if events else []  # all of them, or none
    if ids is None:
        return JSONResponse({"duplicate": delivery}, status_code=202)
    queued = [{"repo": e.repo, "event": i} for e, i in zip(events, ids)]
    return JSONResponse({"queued": queued, "ignored": ignored}, status_code=202)

