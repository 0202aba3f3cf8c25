"""`recalld mcp`: recalld's memories as MCP tools over stdio (the official `mcp` SDK).

Every tool calls the running daemon's HTTP API with its bearer token; this process never
opens the store. With no daemon running a tool answers with an error result that says to
start `recalld serve`. Only protocol goes to stdout; logs go to stderr.
"""

from __future__ import annotations

import json
from typing import Annotated, Any, Literal

from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ResourceError, ToolError
from mcp.shared.exceptions import MCPError
from mcp_types import INVALID_PARAMS, INVALID_REQUEST, CallToolResult, TextContent, ToolAnnotations
from mcp_types.version import MODERN_PROTOCOL_VERSIONS
from pydantic import Field, ValidationError

from recalld.daemon.client import DaemonClient, flag, memory_path, repo_path
from recalld.daemon.vocabulary import KINDS_HELP, LANGUAGE_NAMES, SYMBOL_KIND_NAMES
from recalld.daemon.config import CHANGES_LIMIT, CHANGES_MAX, OUTLINE_MAX, SYMBOLS_MAX, Config
from recalld.daemon.mcp_answers import compact_answer, for_agents
from recalld.ingest.errors import RecalldError
from recalld.ingest.manual import default_author

NOT_INITIALIZED = "Invalid Request: the session is not initialized: send `initialize` first"
NO_DAEMON = "the recalld daemon is not running: start it with `recalld serve` (or `systemctl --user start recalld`)"
INSTRUCTIONS = """\
recalld keeps exact, versioned memories of git repositories: one structural memory per module,
class, function and method of each registered repository's tracked branch (path, qualified
name, signature, docstring, lines, the commit that introduced it), plus task memories (commits)
and manual notes, decisions and preferences. Use search_memories to find code or knowledge by
meaning, get_symbol for one symbol's current version, file_outline for what a file or a directory
defines (in order, with signatures), recent_changes for what changed lately, changes_since for
what changed in the code since a commit you last saw, remember/forget for facts git cannot know,
status and sync for freshness."""

Repo = Annotated[str, Field(description="registered repository name (see the status tool)")]
OptRepo = Annotated[str | None, Field(description="registered repository name; omit for all")]
ManualType = Literal["note", "decision", "preference"]
READ = ToolAnnotations(read_only_hint=True, open_world_hint=False)
SYNC_WAIT = 3600  # seconds the sync tool waits for a sync (the daemon's own default: 600)
SYMBOLS_SHOWN = 10  # versions get_symbol gives by default: `Command` in Django is 63 classes (~120 KB of JSON)
WRITE = ToolAnnotations(read_only_hint=False, destructive_hint=False, idempotent_hint=True, open_world_hint=False)


class DaemonGateway:
    """The daemon's API, found afresh for every call (it may start or restart meanwhile)."""

    def __init__(self, config: Config) -> None:
        self._config = config

    def call(self, method: str, path: str, params: dict[str, Any] | None = None, *,
             body: Any = None, timeout: float = 60.0, noted: list[str] | None = None) -> Any:  # fmt: skip
        """The answer; into ``noted``, the daemon's notes on it (a search's: why nothing was
        found, where the answers may be stale)."""
        # A busy daemon is not waited for: the agent is told to retry. Errors it answered
        # with, or no answer at all, reach the agent as the tool's error.
        try:
            client = DaemonClient.discover(self._config.runtime_file, self._config.token_file)
            if client is None:
                raise ToolError(f"{NO_DAEMON} (none answers for state directory {self._config.home}: a daemon"
                                " run with another RECALLD_HOME is found with that RECALLD_HOME in this server's env)")
            if noted is not None:
                answer, said = client.noted(method, path, params)
                noted.extend(said)
                return answer
            return client.request(method, path, params, body=body, timeout=timeout)
        except RecalldError as exc:
            raise ToolError(for_agents(exc.message)) from None
        except UnicodeEncodeError:  # JSON's "\\ud800" in an argument: no request can carry it
            raise ToolError("an argument is not Unicode text: it holds a lone surrogate escape") from None


class CheckedServer(MCPServer):
    """The SDK's server, telling the agent plainly what is wrong with its arguments: one a
    tool does not take is refused by name, where the SDK dropped it (``asof`` for
    ``as_of`` answered for the tip, silently), and arguments that fail validation are
    named without pydantic's model names and links."""

    async def call_tool(self, name: str, arguments: dict[str, Any], context: Any = None) -> Any:
        tool = self._tool_manager.get_tool(name)
        if tool is not None:
            takes = list(tool.parameters.get("properties", {}))
            unknown = sorted(set(arguments).difference(takes))
            if unknown:
                raise ToolError(f"{name} takes no argument {', '.join(map(repr, unknown))}; "
                                f"it takes {', '.join(takes) or 'none'}")  # fmt: skip
            # an empty optional argument is not given, as in the API; a required one given
            # empty was dropped on its way there: "'q': Field required", or ``since=""``
            # answered with the latest commits
            blank = [key for key in tool.parameters.get("required", ()) if _blank(arguments.get(key))]
            if blank:
                raise ToolError(f"{name}: {', '.join(map(repr, blank))} must not be empty")
        try:
            result = await super().call_tool(name, arguments, context)
        except ToolError as exc:
            if isinstance(exc.__cause__, ValidationError):
                raise ToolError(f"{name}: {plain_errors(exc.__cause__)}") from None
            raise
        if isinstance(result, CallToolResult) and result.structured_content is not None and not result.is_error:
            # the answer's text without the SDK's indents (a fifth of a search's): the structured copy is the same
            text = json.dumps(result.structured_content, ensure_ascii=False, separators=(",", ":"))
            result.content = [TextContent(type="text", text=text)]
        return result


async def answer_before_initialize(ctx: ServerRequestContext[Any, Any], call_next: CallNext) -> HandlerResult:
    """A request the SDK refuses because `initialize` has not come yet is told so, an invalid
    request (-32600), where the SDK said -32602 "Invalid request parameters" of parameters
    that were fine. The SDK's gate stays the judge (`ping` passes it, a method no one serves
    is -32601, a later `initialize` opens it); the 2026-07-28 era, which has no `initialize`,
    is left alone. (MCP retired -32002, once "resource not found", for good.)"""
    try:
        return await call_next(ctx)
    except MCPError as exc:
        handshake = ctx.protocol_version not in MODERN_PROTOCOL_VERSIONS
        if exc.code != INVALID_PARAMS or not handshake or ctx.session.client_params is not None:
            raise
        raise MCPError(INVALID_REQUEST, NOT_INITIALIZED) from None


async def explain_invalid_params(ctx: ServerRequestContext[Any, Any], call_next: CallNext) -> HandlerResult:
    """A request whose parameters fail the SDK's validation is told which and why
    (``Invalid request parameters: 'params.name' is required``), where the SDK said
    "Invalid request parameters" and nothing more. Outside ``answer_before_initialize``:
    `initialize` without params is told so, not to send `initialize` first."""
    try:
        return await call_next(ctx)
    except ValidationError as exc:
        raise MCPError(INVALID_PARAMS, f"Invalid request parameters: {plain_errors(exc)}") from None


def one_kind(kind: str | list[str] | None) -> str | None:
    """The one kind get_symbol is asked for, given as search_memories takes kinds (a list) or alone."""
    if not isinstance(kind, list):
        return kind
    if len(kind) > 1:
        raise ToolError(f"get_symbol: 'kind' is one kind, not {len(kind)} (given {kind!r}): ask once for each")
    return kind[0] if kind else None


def _blank(value: Any) -> bool:
    return isinstance(value, str) and not value.strip()


def plain_errors(error: ValidationError) -> str:
    """Each argument's fault in a line's words: ``'limit': Input should be a valid integer
    (given 'x')``, ``'repo' is required``."""
    faults = []
    for fault in error.errors(include_url=False):
        where = ".".join(str(part) for part in fault["loc"])
        if not where:  # the arguments together (a validator of the whole)
            faults.append(fault["msg"])
        elif fault["type"] == "missing":
            faults.append(f"{where!r} is required")
        else:
            given = repr(fault.get("input"))
            faults.append(f"{where!r}: {fault['msg']} (given {given if len(given) <= 60 else given[:57] + '...'})")
    return "; ".join(faults)


def build_server(gateway: DaemonGateway) -> MCPServer:
    server: MCPServer = CheckedServer(name="recalld", instructions=INSTRUCTIONS, version="0.1.0", log_level="WARNING",
                                      middleware=[explain_invalid_params, answer_before_initialize])

    @server.tool(annotations=READ)
    def search_memories(
        query: Annotated[str, Field(description="what you are looking for, in words or identifiers")],
        repo: OptRepo = None,
        type: Annotated[str | list[str] | None, Field(description="a memory type or a list of them: structural, "
                                                      "task, decision, debt, preference, project, note")] = None,
        kind: Annotated[str | list[str] | None, Field(description=f"a kind or a list of them: {KINDS_HELP}")] = None,
        lang: Annotated[str | None, Field(description=LANGUAGE_NAMES)] = None,
        path: Annotated[str | None, Field(description="only paths matching this glob, e.g. 'src/**/*.py'")] = None,
        limit: Annotated[int, Field(ge=1, le=100, description="how many results")] = 10,
        include_deprecated: Annotated[bool, Field(description="also closed (stale) versions")] = False,
        as_of: Annotated[str | None, Field(description="a commit or date: what was valid then")] = None,
        include_untrusted: Annotated[bool, Field(description="also memories from refs marked untrusted "
                                                 "(possibly poisoned; off by default)")] = False,  # fmt: skip
        tests: Annotated[Literal["include", "exclude", "only"], Field(description="memories of test code: kept "
                         "(include: ranked below code of like score unless the query speaks of tests), left out to "
                         "find the code itself (exclude), or alone (only)")] = "include",
    ) -> dict[str, Any]:
        """Search memories by meaning and keywords (best first); the symbols a query names as code
        (parse_config, QuerySet.bulk_create) come first. Each result is one memory with its repo,
        path, qualname, kind, signature, lines, text, provenance (valid_from_commit, author, written_in) and id.
        ``notes``, when there are any: why nothing was found (a language or kind no memory has),
        or where the answers may be stale (a repository no sync can follow)."""
        params = {"q": query, "repo": repo, "type": type, "kind": kind, "lang": lang, "path": path,
                  "limit": limit, "include_deprecated": flag(include_deprecated), "as_of": as_of,
                  "include_untrusted": flag(include_untrusted),
                  "tests": None if tests == "include" else tests}  # fmt: skip
        notes: list[str] = []
        results = compact_answer(gateway.call("GET", "/v1/search", params, noted=notes))
        return {"results": results, "notes": notes} if notes else {"results": results}

    @server.tool(annotations=READ)
    def get_symbol(
        repo: Repo,
        qualname: Annotated[str, Field(description="qualified name ('Class.method'), plain name ('method'), or "
                                "scope and name ('Arg.fmt' finds Rust's '<Arg as Display>.fmt', 'Codec.decode' "
                                "each overload), or as imported or called ('requests.sessions.Session', "
                                "'Session.request()')")],
        path: Annotated[str | None, Field(description="a file, directory or glob of the repo, to pick one of several")
                        ] = None,
        kind: Annotated[str | list[str] | None, Field(description=f"one kind: {SYMBOL_KIND_NAMES}")] = None,
        include_deprecated: Annotated[bool, Field(description="also its earlier, closed versions, under the names "
                                                  "and paths it had (renamed, moved)")] = False,
        as_of: Annotated[str | None, Field(description="a commit or date: the version valid then, "
                                           "with its lines then")] = None,
        limit: Annotated[int, Field(ge=1, le=SYMBOLS_MAX, description="at most this many versions (a common "
                                    "name such as 'Command' or '__init__' is in many files)")] = SYMBOLS_SHOWN,
        blame: Annotated[bool, Field(description="also last_changed of each version: the latest commit that "
                                     "wrote one of its lines, its author and date, by git blame")] = False,
    ) -> dict[str, Any]:
        """The current memory of a symbol on the tracked branch (or as of a commit or date): source
        text (cut at embedding.max_chars: text_cut then says how many of its last lines it leaves
        out, to read from the file), signature, docstring, path and lines, and provenance (valid_from_commit: the commit
        of the sync that first saw this version; author, written_in and task_id: the commit that
        wrote it (code moved unchanged: the commit that wrote it before the move); for what a
        branch's first sync found, change "indexed", its tip, and the author and commit that
        produced it where the commit history read found one (older code: no task_id), else none;
        blame=true says who last changed the code). Where none
        is live, the error says where the one the index held went (moved, renamed: how to ask for
        it; removed) or why the path holds nothing. Where more are found than limit, notes says how
        many: ask with path or kind."""
        params = {"qualname": qualname, "path": path, "kind": one_kind(kind), "as_of": as_of, "limit": limit,
                  "include_deprecated": flag(include_deprecated), "blame": flag(blame)}  # fmt: skip
        notes: list[str] = []
        versions = compact_answer(gateway.call("GET", repo_path(repo, "symbols"), params, noted=notes))
        return {"versions": versions, "notes": notes} if notes else {"versions": versions}

    @server.tool(annotations=READ)
    def file_outline(
        repo: Repo,
        path: Annotated[str, Field(description="a file ('src/app.py'), a directory ('src/') or a glob ('**/*.go')")],
        as_of: Annotated[str | None, Field(description="a commit or date: the outline then")] = None,
        limit: Annotated[int, Field(ge=1, le=OUTLINE_MAX, description="list at most this many symbols")] = 200,
        blame: Annotated[bool, Field(description="also last_changed of each file and symbol: the latest commit "
                                     "that wrote one of its lines, its author and date, by git blame")] = False,
    ) -> dict[str, Any]:
        """What a file defines, or the files under a directory or matching a glob, in the order it
        stands, without reading the code: per file its language and doc, then each symbol's kind,
        qualname, signature, lines, its doc's first sentence and its memory id (get_symbol gives
        its code). truncated says when more symbols than limit match; blame=true adds when each
        file and symbol was last changed and by whom. Where the index holds nothing there, the
        error says why: the files skipped, or where the ones it held went."""
        params = {"path": path, "as_of": as_of, "limit": limit, "blame": flag(blame)}
        notes: list[str] = []
        found = dict(compact_answer(gateway.call("GET", repo_path(repo, "outline"), params, noted=notes)))
        return {**found, "notes": notes} if notes else found

    @server.tool(annotations=READ)
    def recent_changes(
        repo: Repo, limit: Annotated[int, Field(ge=1, le=500, description="how many changes")] = 20
    ) -> dict[str, Any]:
        """What changed lately in a repository, newest first: its latest commits (task memories)
        when indexed, else the symbol versions most recently added (event 'opened') or closed."""
        return dict(compact_answer(gateway.call("GET", repo_path(repo, "changes"), {"limit": limit})))

    @server.tool(annotations=READ)
    def changes_since(
        repo: Repo,
        since: Annotated[str, Field(description="a commit of the tracked branch (id, tag, 'HEAD~5') or an ISO date:"
                                    " e.g. the indexed_commit status gave when you last worked on the repository")],
        until: Annotated[str | None, Field(description="to this commit or date (default: the indexed commit)")] = None,
        path: Annotated[str | None, Field(description="only what was or is under this file, directory or glob")] = None,
        limit: Annotated[int, Field(ge=1, le=CHANGES_MAX, description="list at most this many")] = CHANGES_LIMIT,
    ) -> dict[str, Any]:
        """What changed in a repository's code since a commit or date, without reading its diff:
        every symbol added, modified (what: signature, doc, code), renamed, moved to another file
        or removed (reason: deleted, removed, skipped), each as it was then (was) and is now
        (now: lines, signature, doc's first sentence, the commit and author of its version, id for
        get_symbol); counts of each, and the commits between. from_commit is the state the index
        synced to at or before since (since_commit when it synced there)."""
        params = {"since": since, "until": until, "path": path, "limit": limit}
        return dict(compact_answer(gateway.call("GET", repo_path(repo, "changes"), params)))

    @server.tool(annotations=WRITE)
    def remember(
        text: Annotated[str, Field(description="the fact, decision or preference, in one or a few sentences")],
        repo: Annotated[str | None, Field(description="the registered repository it applies to (repo scope)")] = None,
        type: Annotated[ManualType, Field(description="note (default), decision or preference")] = "note",
        user: Annotated[str | None, Field(description="the user it belongs to (user scope)")] = None,
        org: Annotated[str | None, Field(description="the organisation it applies to (org scope)")] = None,
    ) -> dict[str, Any]:
        """Store a manual memory of something git cannot know. Give a scope: repo, user or org
        (at least one). Remembering the same text in the same scope again changes nothing.
        Returns its id (for forget) and status: created, unchanged, reopened or updated."""
        body = {"text": text, "type": type, "repo": repo, "user": user, "org": org, "author": user or default_author()}
        return dict(gateway.call("POST", "/v1/memories", body=body))

    @server.tool(annotations=WRITE)
    def forget(memory_id: Annotated[str, Field(description="the id remember returned")]) -> dict[str, Any]:
        """Forget (close) a manual memory. Structural, task and other derived memories follow
        the repository's history and cannot be forgotten."""
        return dict(gateway.call("DELETE", memory_path(memory_id)))

    @server.tool(annotations=READ)
    def status() -> dict[str, Any]:
        """The daemon's state and, per registered repository: tracked branch, indexed commit,
        tip, commits behind, memory counts, last sync result and queue depth."""
        return dict(gateway.call("GET", "/v1/status"))

    @server.tool(annotations=WRITE)
    def sync(
        repo: OptRepo = None,
        wait: Annotated[bool, Field(description="wait for the sync to finish and return its result")] = True,
        full: Annotated[bool, Field(description="re-read every file, not only what git says changed")] = False,
    ) -> dict[str, Any]:
        """Bring a repository's memories (or every repository's) to the tip of its tracked branch.
        Of every repository: each one's result, or its error (the others are synced all the same)."""
        params = {"wait": flag(wait), "full": flag(full), "timeout": SYNC_WAIT if wait else None}
        if repo:
            return {"results": [gateway.call("POST", repo_path(repo, "sync"), params, timeout=SYNC_WAIT + 60)]}
        # one repository that cannot be synced (its path moved, its branch deleted) made the
        # tool an error and left the repositories after it unsynced, as ``recalld sync`` does not
        results: list[dict[str, Any]] = []
        for entry in gateway.call("GET", "/v1/status")["repos"]:
            try:
                results.append(gateway.call("POST", repo_path(entry["repo"], "sync"), params, timeout=SYNC_WAIT + 60))
            except ToolError as exc:
                results.append({"repo": entry["repo"], "error": str(exc)})
        return {"results": results}

    @server.resource("recalld://status", mime_type="application/json", description="the daemon's status report")
    def status_resource() -> str:
        try:
            return json.dumps(gateway.call("GET", "/v1/status"))
        except ToolError as exc:
            raise ResourceError(str(exc)) from None

    return server


def serve_stdio(config: Config) -> None:
    from recalld.daemon.mcp_stdio import serve

    serve(build_server(DaemonGateway(config)))

