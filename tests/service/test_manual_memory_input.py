"""A manual memory's text holds no control character but line ends and tabs, and its
author, repo, user and org none at all: each way in (the API, the CLI, the MCP tool)
refuses one with a usage error that names the field and the character, where NUL, an
escape sequence or a carriage return was stored and shown by every line that lists it."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from recalld.daemon.api import create_api
from recalld.daemon.config import load_config
from recalld.daemon.service import Service
from recalld.ingest.errors import RecalldError
from recalld.ingest.manual import MAX_NAME, ManualMemory, default_author
from tests.service.conftest import DocumentedClient, recalld
from tests.service.test_mcp import call, run_session

REFUSED_TEXT = [
    ("a\x00b", "'\\x00' (U+0000) at character 2 (line 1, column 2)"),
    ("first line\n\tthen \x1b[2Jcleared", "'\\x1b' (U+001B) at character 18 (line 2, column 7)"),
    ("two\rlines", "'\\r' (U+000D) at character 4 (line 1, column 4)"),
    ("bell\x07", "'\\x07' (U+0007) at character 5 (line 1, column 5)"),
    ("del\x7f", "'\\x7f' (U+007F) at character 4 (line 1, column 4)"),
    ("c1 \x9b31m", "'\\x9b' (U+009B) at character 4 (line 1, column 4)"),
]


def said(where: str) -> str:
    crlf = " (a line ends with \\n or \\r\\n, not \\r alone)" if "'\\r'" in where else ""
    return (f"text holds the control character {where}: a memory's text may hold line ends and tabs,"
            f" no other control character{crlf}")  # fmt: skip


@pytest.fixture
def service() -> Iterator[Service]:
    svc = Service(load_config())
    yield svc
    svc.close()


def test_the_api_refuses_control_characters_in_a_memorys_text_and_names_with_where_they_are(service):
    client = DocumentedClient(create_api(service))
    bearer = {"Authorization": f"Bearer {service.token}"}

    def post(**body: str) -> Any:
        return client.post("/v1/memories", json={"org": "acme", **body}, headers=bearer)

    for text, where in REFUSED_TEXT:
        answer = post(text=text)
        assert (answer.status_code, answer.json()["detail"]) == (400, said(where)), text
    for field, name in (("author", "ev\x1b]0;il\x07"), ("author", "two\nlines"), ("author", ""), ("repo", "w\x00"),
                        ("user", "tab\there")):  # fmt: skip
        answer = post(text="a note", **{field: name})
        assert (answer.status_code, answer.json()["detail"]) == (
            400, f"{name!r} cannot name a memory's {field}: a name is printable, not blank"), field
    misspelt = post(text="releases are cut on Thursdays", typ="decision")  # kept as a note until stop 113
    assert misspelt.status_code == 422 and misspelt.json()["detail"][0]["loc"] == ["body", "typ"]
    assert misspelt.json()["detail"][0]["msg"] == "no such field: this body takes text, type, repo, user, org, author"
    stored = client.get("/v1/export", headers=bearer)
    assert stored.status_code == 200 and stored.text == ""  # nothing was remembered
    kept = post(text="  Release notes:\r\n\t- one\n\t- two\r\n", author="Zoë Ågren")
    assert kept.status_code == 201, kept.text
    memory = kept.json()["memory"]
    assert (memory["text"], memory["author"]) == ("Release notes:\n\t- one\n\t- two", "Zoë Ågren")


def test_a_write_route_refuses_a_query_parameter_and_a_refused_text_is_not_sent_back_whole(service):
    """``POST /v1/memories?type=decision`` kept a note and ``DELETE …?dry_run=true``
    deleted, each without a word: the routes that take no query parameter ignored them.
    A text over the limit was refused with all of it echoed back (20 MB in, 20 MB out)."""
    client = DocumentedClient(create_api(service))
    bearer = {"Authorization": f"Bearer {service.token}"}
    typed = client.post("/v1/memories?type=decision", json={"text": "ship on Thursdays", "org": "acme"}, headers=bearer)
    assert typed.status_code == 422 and typed.json()["detail"][0]["loc"] == ["query", "type"]
    assert typed.json()["detail"][0]["msg"] == "no such parameter: this route takes none"
    assert client.get("/v1/export", headers=bearer).text == ""
    memory = client.post("/v1/memories", json={"text": "ship on Thursdays", "org": "acme"}, headers=bearer).json()
    mid = memory["memory"]["id"]
    for method in ("DELETE", "GET"):
        answer = client.request(method, f"/v1/memories/{mid}?dry_run=true", headers=bearer)
        assert answer.status_code == 422 and answer.json()["detail"][0]["loc"] == ["query", "dry_run"], method
    assert client.get(f"/v1/memories/{mid}", headers=bearer).json()["deprecated"] is False  # not forgotten
    assert client.get("/v1/status?verbose=1", headers=bearer).status_code == 422
    assert client.get("/healthz?probe=1").status_code == 200  # a monitor's own parameters are left be
    huge = client.post("/v1/memories", json={"text": "a " * 500_000, "org": "acme"}, headers=bearer)
    (fault,) = huge.json()["detail"]
    assert huge.status_code == 422 and fault["type"] == "string_too_long" and len(huge.content) < 2000
    assert fault["input"] == "a " * 100 + "… (1000000 characters)"
    # an error that names what was asked is cut too: a qualname of 1 MB was its 404's detail whole
    for url in ("/v1/repos/" + "r" * 60_000 + "/symbols?qualname=x", "/v1/memories/" + "m" * 60_000,
                "/v1/search?q=x&kind=" + "k" * 60_000, "/v1/search?q=x&as_of=" + "9" * 60_000):  # fmt: skip
        answer = client.get(url, headers=bearer)
        assert answer.status_code in (400, 404) and len(answer.content) < 4100, (url[:40], len(answer.content))
    detail = client.get("/v1/memories/" + "m" * 60_000, headers=bearer).json()["detail"]
    assert detail == "unknown memory '" + "m" * 1984 + " … (56017 characters) … " + "m" * 1999 + "'"


def test_the_same_memory_remembered_at_once_by_many_is_created_once(service):
    """20 agents remembering one text at once were each told "created" (each read none
    before any wrote), where one after another they are told "unchanged"."""
    from concurrent.futures import ThreadPoolExecutor

    client = DocumentedClient(create_api(service))
    bearer = {"Authorization": f"Bearer {service.token}"}

    def post(_: int) -> str:
        answer = client.post("/v1/memories", json={"text": "race the same text", "user": "racer"}, headers=bearer)
        return str(answer.json()["status"])

    with ThreadPoolExecutor(8) as pool:
        told = sorted(pool.map(post, range(16)))
    assert told == ["created"] + ["unchanged"] * 15


def test_the_cli_refuses_them_before_reaching_a_store():
    for text, where in REFUSED_TEXT[1:]:  # an argument holds no NUL
        refused = recalld("remember", text, "--org", "acme", check=False)
        assert (refused.returncode, refused.stderr) == (2, f"recalld: {said(where)}\n"), text
    bad_user = recalld("remember", "a note", "--user", "a\x1b[31mb", check=False)
    assert (bad_user.returncode, bad_user.stderr) == (
        2, "recalld: 'a\\x1b[31mb' cannot name a memory's user: a name is printable, not blank\n")


def test_a_login_name_with_a_control_character_is_no_author(monkeypatch):
    """The CLI and the MCP tool take the login name for the author: one that names nobody
    is left out, not refused (the person remembering did not give it)."""
    for key in ("LOGNAME", "USER", "LNAME", "USERNAME"):
        monkeypatch.setenv(key, "ev\x1bil")
    assert default_author() is None
    monkeypatch.setenv("LOGNAME", "alice")
    assert default_author() == "alice"


@pytest.mark.model
def test_the_mcp_tool_and_the_daemons_api_refuse_them(daemon):
    daemon.start()
    for text, where in REFUSED_TEXT[:2]:
        code, answer = daemon.call("POST", "/v1/memories", json.dumps({"text": text, "org": "acme"}).encode(),
                                   {"Authorization": f"Bearer {daemon.token}", "Content-Type": "application/json"})
        assert (code, json.loads(answer)["detail"]) == (400, said(where))

    async def script(session: Any) -> list[tuple[bool, Any]]:
        return [await call(session, "remember", text=text, org="acme") for text, _ in REFUSED_TEXT]

    for (text, where), (is_error, message) in zip(REFUSED_TEXT, run_session(script), strict=True):
        assert is_error and message.endswith(f": daemon: {said(where)}"), (text, message)
    assert recalld("export").stdout == ""
    assert daemon.stop() == 0


def test_a_memorys_names_are_of_at_most_max_name_characters_in_the_api_and_the_cli(service):
    """A user of 1 MB was kept, and sent back by every search that found the memory (2 MB
    an answer); the refusal says the limit and the length, not the name."""
    client = DocumentedClient(create_api(service))
    bearer = {"Authorization": f"Bearer {service.token}"}
    for field in ("repo", "user", "org", "author"):
        answer = client.post("/v1/memories", json={"text": "a note", "org": "acme", field: "n" * 1_000_000},
                             headers=bearer)  # fmt: skip
        assert answer.status_code == 422 and len(answer.content) < 2000, (field, answer.text[:300])
        (fault,) = answer.json()["detail"]
        assert (fault["loc"], fault["msg"]) == (["body", field], f"String should have at most {MAX_NAME} characters")
    assert client.get("/v1/export", headers=bearer).text == ""
    kept = client.post("/v1/memories", json={"text": "a note", "user": "u" * MAX_NAME}, headers=bearer)
    assert kept.status_code == 201 and kept.json()["memory"]["user"] == "u" * MAX_NAME
    with pytest.raises(RecalldError) as refused_here:
        ManualMemory("a note", org="acme", author="a" * 300)
    assert refused_here.value.message == f"a memory's author is at most {MAX_NAME} characters (this one has 300)"
    refused = recalld("remember", "a note", "--org", "o" * (MAX_NAME + 1), check=False)
    assert (refused.returncode, refused.stderr) == (
        2, f"recalld: a memory's org is at most {MAX_NAME} characters (this one has {MAX_NAME + 1})\n")
