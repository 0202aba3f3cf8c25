"""`recalld mcp` driven by the SDK's own stdio client, against a real `recalld serve`."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from typing import Any

import anyio
import pytest
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

from recalld.daemon.client import repo_path
from recalld.daemon.config import load_config
from recalld.daemon.mcp_server import DaemonGateway, ToolError
from tests.service.conftest import recalld

TOOLS = {"search_memories", "get_symbol", "file_outline", "recent_changes", "changes_since", "remember", "forget",
         "status", "sync"}


def server_params() -> StdioServerParameters:
    keep = ("RECALLD_HOME", "GIT_CONFIG_GLOBAL", "GIT_CONFIG_NOSYSTEM")
    return StdioServerParameters(command=sys.executable, args=["-m", "recalld.daemon.cli", "mcp"],
                                 env={k: os.environ[k] for k in keep})  # fmt: skip


def run_session(script: Any) -> Any:
    """Run ``script(session)`` in an MCP session with `recalld mcp` as a subprocess."""

    async def main() -> Any:
        with open(os.devnull, "w") as errlog:
            async with stdio_client(server_params(), errlog=errlog) as (read, write):
                async with ClientSession(read, write) as session:
                    await session.initialize()
                    return await script(session)

    return anyio.run(main)


async def call(session: ClientSession, tool: str, **arguments: Any) -> tuple[bool, Any]:
    result = await session.call_tool(tool, arguments)
    text = result.content[0].text if result.content else ""
    return bool(result.is_error), (text if result.is_error else result.structured_content)


def test_tools_without_a_daemon_say_to_start_it():
    async def script(session: ClientSession) -> dict[str, tuple[bool, Any]]:
        listed = {t.name for t in (await session.list_tools()).tools}
        assert listed == TOOLS
        return {tool: await call(session, tool, **args) for tool, args in
                (("status", {}), ("search_memories", {"query": "x"}), ("remember", {"text": "t", "org": "o"}))}  # fmt: skip

    for tool, (is_error, text) in run_session(script).items():
        assert is_error, tool
        assert "daemon is not running: start it with `recalld serve`" in text and "none answers for state" in text


@pytest.mark.model
def test_mcp_session_against_a_running_daemon(daemon, repo):
    recalld("repo", "add", str(repo.path))
    daemon.start()
    old_alpha = repo.head()
    repo.write("app/core.py", 'def alpha():\n    """First, now twice."""\n    return 2\n\n\nclass Basket:\n'
               '    def add(self, item):\n        """Put an item in the basket."""\n        return item\n')  # fmt: skip
    second = repo.commit("two")

    # The CLI goes through the daemon (it owns the store): remember, idempotence, forget.
    note = recalld("remember", "Basket items are never persisted to disk", "--repo", "repo", "--type", "decision")
    note_id = note.stdout.strip()
    assert recalld("remember", "Basket items are never persisted to disk", "--repo", "repo", "--type",
                   "decision").stderr.startswith("already remembered")  # fmt: skip

    async def script(session: ClientSession) -> None:
        assert {t.name for t in (await session.list_tools()).tools} == TOOLS
        synced = await call(session, "sync", repo="repo")
        assert not synced[0] and synced[1]["results"][0]["to_commit"] == second

        err, found = await call(session, "search_memories", query="put something into a basket",
                                kind=["method"], lang="python", path="app/**", limit=3)
        assert not err and found["results"][0]["qualname"] == "Basket.add"
        err, found = await call(session, "search_memories", query="put something into a basket", tests="exclude",
                                kind="method", limit=3)  # fmt: skip  (a kind alone, as get_symbol takes it)
        assert not err and found["results"][0]["qualname"] == "Basket.add"
        # compact for a model's context: no matching fields, no empty ones, the docstring once (in the text)
        assert not {"content_hash", "symbol_key", "name", "deprecated", "superseded_by", "docstring"} & set(
            found["results"][0]) and "Put an item in the basket." in found["results"][0]["text"]  # fmt: skip
        err, found = await call(session, "search_memories", query="put something into a basket", tests="only")
        assert not err and found["results"] == []  # the repository holds no test code
        err, found = await call(session, "search_memories", query="persist basket", kind=["manual"])
        assert [r["id"] for r in found["results"]] == [note_id] and "notes" not in found
        err, none = await call(session, "search_memories", query="basket", lang="Rust", kind=["method", "Trait"])
        assert not err and none["results"] == [] and [n.split(" (")[0] for n in none["notes"]] == [
            "no memory has language 'Rust'", "no memory has kind 'Trait'"]  # fmt: skip
        for tool, arguments, told in (("search_memories", dict(query="basket", lang="Klingon"),
                                       "unknown language 'Klingon': python (py),"),
                                      ("search_memories", dict(query="basket", kind=["Strukt"]),
                                       "unknown kind 'Strukt': module, class,"),
                                      ("get_symbol", dict(repo="repo", qualname="add", kind=["Strukt"]),
                                       "unknown kind 'Strukt' of a symbol: module, class,")):  # fmt: skip
            err, typo = await call(session, tool, **arguments)  # a note, until a language or kind none can have
            assert err and told in typo, typo
        err, absent = await call(session, "get_symbol", repo="repo", qualname="add", kind=["Trait"])
        assert err and "no memory of repo has kind 'trait' (module, class," in absent
        err, two = await call(session, "get_symbol", repo="repo", qualname="add", kind=["method", "function"])
        assert err and "get_symbol: 'kind' is one kind, not 2" in two

        err, symbol = await call(session, "get_symbol", repo="repo", qualname="add")
        version = symbol["versions"][0]
        assert (version["qualname"], version["path"], version["start_line"]) == ("Basket.add", "app/core.py", 7)
        assert version["signature"] == "def add(self, item)" and version["valid_from_commit"] == second
        assert "return item" in version["text"] and version["author"].startswith("Test Author")
        assert "last_changed" not in version
        err, blamed = await call(session, "get_symbol", repo="repo", qualname="add", blame=True)
        assert not err and blamed["versions"][0]["last_changed"]["commit"] in (old_alpha, second)
        err, both = await call(session, "get_symbol", repo="repo", qualname="alpha", include_deprecated=True)
        assert [v["valid_from_commit"] for v in both["versions"]] == [second, old_alpha]
        err, first = await call(session, "get_symbol", repo="repo", qualname="alpha", include_deprecated=True, limit=1)
        assert first == {"versions": both["versions"][:1],
                         "notes": ["2 found, the first 1 given: ask with a path or a kind for fewer"]}  # fmt: skip
        err, missing = await call(session, "get_symbol", repo="repo", qualname="nothing_like_this")
        assert err and "no symbol 'nothing_like_this' in repo" in missing

        err, outline = await call(session, "file_outline", repo="repo", path="app/")
        assert not err and [f["path"] for f in outline["files"]] == ["app/core.py"]
        found = [(s["kind"], s["qualname"], s["start_line"], s.get("doc", "")) for s in outline["files"][0]["symbols"]]
        assert found == [("function", "alpha", 1, "First, now twice."), ("class", "Basket", 6, ""),
                         ("method", "Basket.add", 7, "Put an item in the basket.")]  # fmt: skip
        assert "last_changed" not in outline["files"][0]
        err, blamed_outline = await call(session, "file_outline", repo="repo", path="app/", blame=True)
        assert not err and blamed_outline["files"][0]["last_changed"]["commit"] == second
        assert all(s["last_changed"]["commit"] in (old_alpha, second) for s in blamed_outline["files"][0]["symbols"])
        err, then = await call(session, "file_outline", repo="repo", path="app/core.py", as_of=old_alpha)
        assert not err and [s["qualname"] for s in then["files"][0]["symbols"]] == ["alpha"]
        assert "notes" not in then and "notes" not in symbol  # a commit synced on its own: nothing to say
        err, nothing = await call(session, "file_outline", repo="repo", path="docs/")
        assert err and "no memories of 'docs/' in repo" in nothing

        err, changes = await call(session, "recent_changes", repo="repo", limit=50)
        assert not err and changes["source"] == "task"  # one task memory per commit
        commits = {c["commit"]: c for c in changes["changes"]}
        assert {second, old_alpha} <= set(commits) and commits[second]["subject"] == "two"
        assert any("Basket.add" in s["added"] for s in commits[second]["symbols"])
        assert not {"symbol_ids", "text"} & set(commits[second])  # the symbols are listed by name

        err, since = await call(session, "changes_since", repo="repo", since=old_alpha)
        assert not err and (since["from_commit"], since["to_commit"], since["commits"]) == (old_alpha, second, 1)
        changed = {(c.get("now") or c["was"])["qualname"]: (c["change"], c.get("what")) for c in since["changes"]}
        assert changed["alpha"] == ("modified", ["doc", "code"]) and changed["Basket.add"][0] == "added"
        err, bad = await call(session, "changes_since", repo="repo", since="no-such-commit")
        assert err and "since 'no-such-commit': no such commit" in bad

        err, remembered = await call(session, "remember", text="Prefer pytest fixtures", user="alice", type="preference")
        assert not err and remembered["status"] == "created" and remembered["memory"]["scope"] == "user"
        err, unscoped = await call(session, "remember", text="floating")
        assert err and "give a scope" in unscoped
        err, bad_org = await call(session, "remember", text="floating", org="o\no")
        assert err and "'o\\no' cannot name a memory's org: a name is printable, not blank" in bad_org
        err, forgotten = await call(session, "forget", memory_id=note_id)
        assert not err and forgotten["status"] == "forgotten"
        err, refused = await call(session, "forget", memory_id=version["id"])
        assert err and "only manual memories can be forgotten" in refused
        err, bad_repo = await call(session, "get_symbol", repo="nope", qualname="alpha")
        assert err and "unknown repo 'nope'" in bad_repo

        err, report = await call(session, "status")
        assert report["daemon"]["state"] == "ready" and report["repos"][0]["indexed_commit"] == second
        resource = await session.read_resource("recalld://status")
        assert json.loads(resource.contents[0].text)["repos"][0]["repo"] == "repo"

    run_session(script)
    # JSON may spell "\ud800" in a tool's argument (the SDK's client cannot send it): a tool error, said
    gateway = DaemonGateway(load_config())
    with pytest.raises(ToolError, match="an argument is not Unicode text: it holds a lone surrogate escape"):
        gateway.call("GET", repo_path("repo", "outline"), {"path": "caf\ud800.py"})
    live = [json.loads(line) for line in recalld("export").stdout.splitlines()]
    assert note_id not in {m["id"] for m in live}
    alice = next(m for m in live if m["user"] == "alice")
    assert recalld("forget", alice["id"]).stdout.strip() == f"forgot {alice['id']}"  # through the daemon
    unknown = recalld("forget", "0" * 32, check=False)
    assert unknown.returncode == 1 and "unknown memory" in unknown.stderr
    shown = recalld("symbol", "Basket.add").stdout.splitlines()  # the daemon owns the store: through it
    assert shown[0] == "repo:app/core.py:7-9  method Basket.add" and shown[-1] == "        return item"
    missing = recalld("symbol", "Basket.remove", "--repo", "repo", check=False)
    assert missing.returncode == 1 and "daemon: no symbol 'Basket.remove' in repo" in missing.stderr
    assert daemon.stop() == 0


def test_stdout_carries_only_protocol():
    """Raw JSON-RPC over the pipes: every line on stdout is a protocol message, even with -v."""
    messages = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "status", "arguments": {}}},
    ]  # fmt: skip
    with subprocess.Popen([sys.executable, "-m", "recalld.daemon.cli", "-v", "mcp"], stdin=subprocess.PIPE,
                          stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True) as proc:  # fmt: skip
        assert proc.stdin is not None and proc.stdout is not None
        killer = threading.Timer(60, proc.kill)
        killer.start()
        try:
            proc.stdin.write("".join(json.dumps(m) + "\n" for m in messages))
            proc.stdin.flush()
            answers = [json.loads(proc.stdout.readline()) for _ in range(2)]
            proc.stdin.close()
            rest = proc.stdout.read()
        finally:
            killer.cancel()
            killer.join()
    assert rest == ""
    assert [a.get("id") for a in answers] == [1, 2] and all(a["jsonrpc"] == "2.0" for a in answers)
    assert answers[1]["result"]["isError"] and "recalld serve" in answers[1]["result"]["content"][0]["text"]


def test_every_line_gets_an_answer():
    """A line that is no JSON-RPC message is answered with a JSON-RPC error (the SDK dropped
    it: a client waited for ever), to the request's id where the line has one; the session
    goes on."""
    initialize = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}}  # fmt: skip
    lines = [
        json.dumps(initialize),
        json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        '{"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "search_memories",'
        ' "arguments": {"query": "x\\ud800"}}}',
        "this is not json",
        json.dumps({"jsonrpc": "2.0", "id": "three", "method": 5}),
        json.dumps([1, 2]),
        json.dumps({"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": {"name": "status", "arguments": {}}}),
    ]
    with subprocess.Popen([sys.executable, "-m", "recalld.daemon.cli", "mcp"], stdin=subprocess.PIPE,
                          stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True) as proc:  # fmt: skip
        assert proc.stdin is not None and proc.stdout is not None
        killer = threading.Timer(60, proc.kill)
        killer.start()
        try:
            proc.stdin.write("".join(line + "\n" for line in lines))
            proc.stdin.flush()
            answers = [json.loads(proc.stdout.readline()) for _ in range(6)]
            proc.stdin.close()
            assert proc.stdout.read() == ""
        finally:
            killer.cancel()
            killer.join()
    by_id = {a.get("id"): a for a in answers}
    assert sorted(by_id, key=str) == [1, 2, 4, None, "three"] and all(a["jsonrpc"] == "2.0" for a in answers)
    assert by_id[2]["error"]["code"] == -32600 and "lone surrogate" in by_id[2]["error"]["message"]
    not_rpc = "Invalid Request: not a JSON-RPC 2.0 request, notification or response"
    assert by_id["three"]["error"] == {"code": -32600, "message": not_rpc}
    nulls = sorted(a["error"]["code"] for a in answers if a.get("id") is None)
    assert nulls == [-32700, -32600]  # not JSON; a JSON array
    assert by_id[4]["result"]["isError"] and "recalld serve" in by_id[4]["result"]["content"][0]["text"]


def answers_to(lines: list[str], command: list[str] | None = None) -> list[dict[str, Any]]:
    """`recalld mcp` (or ``command``) given ``lines`` on stdin at once: its answers, in order."""
    done = subprocess.run(command or [sys.executable, "-m", "recalld.daemon.cli", "mcp"], capture_output=True,
                          text=True, input="".join(line + "\n" for line in lines), timeout=60)  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    return [json.loads(line) for line in done.stdout.splitlines()]


def piped(*messages: dict[str, Any]) -> dict[Any, dict[str, Any]]:
    """`recalld mcp` given ``messages`` on stdin at once: its answers, by id."""
    return {a["id"]: a for a in answers_to([json.dumps(m) for m in messages])}


def test_a_request_before_initialize_is_told_to_initialize_first():
    """The SDK answered -32602 "Invalid request parameters" of parameters that were fine; now
    an invalid request that says why. A notification gets no answer; the session goes on."""
    initialize = {"jsonrpc": "2.0", "id": 3, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}}  # fmt: skip
    answers = piped({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "status", "arguments": {}}},
                    {"jsonrpc": "2.0", "id": "two", "method": "resources/list"},
                    {"jsonrpc": "2.0", "method": "notifications/roots/list_changed"}, initialize,
                    {"jsonrpc": "2.0", "method": "notifications/initialized"},
                    {"jsonrpc": "2.0", "id": 4, "method": "tools/list"})  # fmt: skip
    assert sorted(answers, key=str) == [1, 3, 4, "two"]
    told = {"code": -32600, "message": "Invalid Request: the session is not initialized: send `initialize` first"}
    assert answers[1]["error"] == told and answers["two"]["error"] == told
    assert answers[3]["result"]["serverInfo"]["name"] == "recalld"
    assert {t["name"] for t in answers[4]["result"]["tools"]} == TOOLS


def test_ping_before_initialize_is_answered():
    assert piped({"jsonrpc": "2.0", "id": "p", "method": "ping"}) == {"p": {"jsonrpc": "2.0", "id": "p", "result": {}}}


SLOW_SERVER = """
import sys, time
from recalld.daemon.mcp_server import DaemonGateway, build_server
from recalld.daemon.mcp_stdio import serve


class SlowGateway(DaemonGateway):
    def __init__(self):
        pass

    def call(self, method, path, params=None, **kw):
        time.sleep(float(sys.argv[1]))
        return {"repos": []}


serve(build_server(SlowGateway()))
"""


def test_requests_piped_in_whole_are_all_answered_before_the_server_ends():
    """The input ends right after the requests (``recalld mcp < requests``): the answers
    still to come are waited for (the SDK cancelled them, and ended without a word), but
    for a request the client cancelled."""
    initialize = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}}  # fmt: skip
    status = {"jsonrpc": "2.0", "method": "tools/call", "params": {"name": "status", "arguments": {}}}
    messages = [initialize, {"jsonrpc": "2.0", "method": "notifications/initialized"}, {**status, "id": 2},
                {**status, "id": "three"}, {**status, "id": 4},
                {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 4}}]  # fmt: skip
    command = [sys.executable, "-c", SLOW_SERVER, "0.5"]
    done = subprocess.run(command, input="".join(json.dumps(m) + "\n" for m in messages), capture_output=True,
                          text=True, timeout=60)  # fmt: skip
    answers = [json.loads(line) for line in done.stdout.splitlines()]
    by_id = {a["id"]: a for a in answers}
    assert done.returncode == 0, done.stderr[-2000:]
    assert {1, 2, "three"} <= set(by_id) <= {1, 2, "three", 4}, answers
    assert not by_id[2]["result"]["isError"] and not by_id["three"]["result"]["isError"], answers


def nested(depth: int) -> Any:
    return json.loads("[" * depth + "]" * depth)


def test_a_line_nested_too_deep_is_answered_and_the_session_goes_on():
    """JSON nested deeper than pydantic's reader goes (~200 levels) is an invalid request that
    says so, to the request's id where Python's reader finds it. 1000 levels deep, the
    transport died of a RecursionError looking for that id: that line, and the request still
    being answered, went unanswered. 300 deep, the answer blamed a lone surrogate escape."""
    initialize = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}}  # fmt: skip
    lines = [json.dumps(initialize), json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}),
             json.dumps({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                         "params": {"name": "status", "arguments": {}}}),  # answered after the deep lines
             "[" * 1000 + "]" * 1000,
             json.dumps({"jsonrpc": "2.0", "id": 3, "method": "ping", "params": {"_meta": {"x": nested(300)}}}),
             json.dumps(nested(400)), json.dumps({"jsonrpc": "2.0", "id": 4, "method": "ping"})]  # fmt: skip
    answers = answers_to(lines, [sys.executable, "-c", SLOW_SERVER, "0.5"])
    too_deep = {"code": -32600, "message": "Invalid Request: arrays and objects nest too deeply (the JSON reader "
                "stops at about 200 levels)"}  # fmt: skip
    assert [a["error"] for a in answers if a["id"] is None] == [too_deep, too_deep]
    by_id = {a["id"]: a for a in answers if a["id"] is not None}
    assert sorted(by_id) == [1, 2, 3, 4] and by_id[3]["error"] == too_deep and by_id[4]["result"] == {}
    assert by_id[2]["result"]["structuredContent"] == {"repos": []}
    assert by_id[2]["result"]["content"] == [{"type": "text", "text": '{"repos":[]}'}]  # without the SDK's indents


def test_a_request_whose_id_is_no_string_or_integer_is_an_invalid_request():
    """JSON-RPC 2.0 calls a message with an id a request and one without a notification;
    MCP's ids are strings or integers, never null. The SDK dropped any other id and took the
    request for a notification: never answered, the client waited for ever. Now it is an
    invalid request, answered to null (its id cannot be answered to); ``"id": null`` too,
    as a request (JSON-RPC answers it to null) that MCP forbids, not a notification. A
    notification (no id) is still not answered; the session goes on."""
    ping = {"jsonrpc": "2.0", "method": "ping"}
    answers = answers_to([json.dumps({**ping, "id": given}) for given in (None, {"a": 1}, 1.5, True)] + [
        json.dumps({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 9}}),
        json.dumps({**ping, "id": "p"})])  # fmt: skip
    told = [{"code": -32600, "message": f"Invalid Request: the id must be a string or an integer, not {given}"}
            for given in ("null", '{"a":1}', "1.5", "true")]  # fmt: skip
    assert [a["error"] for a in answers if a["id"] is None] == told
    assert [a for a in answers if a["id"] is not None] == [{"jsonrpc": "2.0", "id": "p", "result": {}}]


def test_invalid_request_parameters_say_what_is_wrong():
    """The SDK answered "Invalid request parameters" with data "" for any of them; now which
    parameter and why, in pydantic's words without its model names."""
    initialize = {"jsonrpc": "2.0", "id": 2, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}}  # fmt: skip
    call = {"jsonrpc": "2.0", "method": "tools/call"}
    answers = piped({"jsonrpc": "2.0", "id": 1, "method": "initialize"}, initialize,
                    {"jsonrpc": "2.0", "method": "notifications/initialized"},
                    {**call, "id": 3, "params": {"name": "status", "arguments": "notadict"}},
                    {**call, "id": 4, "params": {"arguments": {}}})  # fmt: skip
    invalid = "Invalid request parameters: "
    assert answers[1]["error"] == {"code": -32602, "message": invalid + "'params' is required"}
    assert answers[2]["result"]["serverInfo"]["name"] == "recalld"
    assert answers[3]["error"] == {"code": -32602, "message": invalid + "'params.arguments': Input should be a "
                                   "valid dictionary (given 'notadict')"}  # fmt: skip
    assert answers[4]["error"] == {"code": -32602, "message": invalid + "'params.name' is required"}


class RecordingGateway(DaemonGateway):
    """The daemon's API as a script: each call recorded, ``failing`` repositories' syncs refused."""

    def __init__(self, repos: list[str], failing: set[str]) -> None:
        self.repos, self.failing, self.calls = repos, failing, []  # type: ignore[var-annotated]

    def call(self, method: str, path: str, params: dict[str, Any] | None = None, **kw: Any) -> Any:
        self.calls.append((method, path, params))
        if path == "/v1/status":
            return {"repos": [{"repo": name} for name in self.repos]}
        name = next(n for n in self.repos if path == repo_path(n, "sync"))
        if name in self.failing:
            raise ToolError(f"daemon: sync of {name} failed: not a git repository: /gone/{name}")
        return {"repo": name, "mode": "noop"}


def test_the_sync_tool_syncs_every_repository_past_one_that_fails():
    """One repository that cannot be synced (its path moved) made the sync tool of every
    repository an error, and the repositories after it were not synced; a sync waited
    for was given up by the daemon after its default 600 s, though the tool waits an hour."""
    from recalld.daemon.mcp_server import build_server

    gateway = RecordingGateway(["alpha", "gone", "omega"], failing={"gone"})
    server = build_server(gateway)

    async def sync(**arguments: Any) -> Any:
        return (await server.call_tool("sync", arguments)).structured_content

    assert anyio.run(sync) == {"results": [
        {"repo": "alpha", "mode": "noop"},
        {"repo": "gone", "error": "daemon: sync of gone failed: not a git repository: /gone/gone"},
        {"repo": "omega", "mode": "noop"},
    ]}  # fmt: skip
    synced = [(path, params) for method, path, params in gateway.calls if method == "POST"]
    assert [params["timeout"] for _, params in synced] == [3600] * 3
    with pytest.raises(ToolError, match="sync of gone failed"):  # one asked for: its error is the tool's
        anyio.run(lambda: sync(repo="gone"))
    assert anyio.run(lambda: sync(repo="alpha", wait=False)) == {"results": [{"repo": "alpha", "mode": "noop"}]}
    assert gateway.calls[-1][2] == {"wait": None, "full": None, "timeout": None}
    for thread in threading.enumerate():  # the tools ran on worker threads, which outlive the event loop
        if thread.name == "AnyIO worker thread":
            thread.join(timeout=15)  # an idle one ends after 10 s (AnyIO)


def test_arguments_a_tool_does_not_take_or_that_fail_validation_are_told_plainly():
    """An argument a tool does not take was dropped by the SDK, so a misspelt ``asof``
    answered for the tip without a word; now it is refused by name with the arguments the
    tool takes. Arguments that fail validation are named without pydantic's model names
    and links. The gateway is never called for either."""
    from recalld.daemon.mcp_server import build_server

    gateway = RecordingGateway(["alpha"], failing=set())
    server = build_server(gateway)

    def refused(tool: str, **arguments: Any) -> str:
        with pytest.raises(ToolError) as caught:
            anyio.run(lambda: server.call_tool(tool, arguments))
        return str(caught.value)

    assert refused("search_memories", query="parse", asof="v1.2") == (
        "search_memories takes no argument 'asof'; it takes query, repo, type, kind, lang, path, limit, "
        "include_deprecated, as_of, include_untrusted, tests")
    assert refused("get_symbol", name="Config.load").startswith("get_symbol takes no argument 'name'; it takes repo, "
                                                                "qualname, ")  # fmt: skip
    told = refused("search_memories", limit="many")
    assert told == ("search_memories: 'query' is required; 'limit': Input should be a valid integer, unable to parse "
                    "string as an integer (given 'many')")  # fmt: skip
    assert "pydantic" not in told and "Arguments" not in told
    assert refused("search_memories", query="q", limit=0) == (
        "search_memories: 'limit': Input should be greater than or equal to 1 (given 0)")
    # given empty, a required argument was dropped on its way: "'q': Field required", or
    # the latest commits for changes since ""
    assert refused("search_memories", query="") == "search_memories: 'query' must not be empty"
    assert refused("changes_since", repo="alpha", since=" ") == "changes_since: 'since' must not be empty"
    assert refused("get_symbol", repo="", qualname="") == "get_symbol: 'repo', 'qualname' must not be empty"
    assert refused("file_outline", repo="alpha", path="") == "file_outline: 'path' must not be empty"
    long = refused("search_memories", query="q", limit="x" * 500)
    assert long.endswith("...)") and len(long) < 200
    assert gateway.calls == []
    assert anyio.run(lambda: server.call_tool("status", {})).structured_content == {"repos": [{"repo": "alpha"}]}
