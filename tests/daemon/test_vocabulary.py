"""A language or kind recalld does not know is refused, naming the valid ones (a usage
error); one it knows that no memory has is a note."""

from __future__ import annotations

import json

import pytest

from recalld.daemon.query import SearchRequest, search
from recalld.ingest.errors import RecalldError
from tests.daemon.test_cli import recalld
from tests.daemon.test_search import api_client, app, history  # noqa: F401 - the fixtures
from tests.ingest.conftest import harness  # noqa: F401 - the fixture, on both store adapters


@pytest.mark.parametrize("args, told", [
    (["search", "x", "--lang", "klingon"], "argument --lang: unknown language 'klingon': python (py), javascript"),
    (["search", "x", "--kind", "bogus"], "argument --kind: unknown kind 'bogus': module, class,"),
    (["symbol", "x", "--kind", "todo"], "argument --kind: unknown kind 'todo' of a symbol: module, class,"),
])  # fmt: skip
def test_the_cli_refuses_a_language_or_kind_it_does_not_know(args, told):
    """`search --lang klingon` and `--kind bogus` printed a note and exited 0, where `--type
    bogus` was a usage error: each is one now, naming the valid values. (The CLI runs in a
    process of its own: run here, it would bind the logs to this test's captured stderr.)"""
    refused = recalld(*args, check=False)
    assert refused.returncode == 2 and told in refused.stderr


def test_the_cli_notes_a_known_language_and_kind_no_memory_has():
    noted = recalld("search", "x", "--lang", "Markdown", "--kind", "TODO", "--kind", "commit")
    assert "note: nothing is indexed yet" in noted.stderr


def test_search_and_the_api_refuse_what_no_memory_can_have_and_note_what_none_has(history, app):
    with pytest.raises(RecalldError, match="unknown language 'klingon': python") as refused:
        search(app, SearchRequest("x", language="klingon"))
    assert refused.value.exit_code == 2
    with api_client(app) as get:
        for route, params, detail in (
            ("/v1/search", dict(q="x", lang="klingon"), "unknown language 'klingon': python (py)"),
            ("/v1/search", dict(q="x", kind=["method", "bogus"]), "unknown kind 'bogus': module,"),
            ("/v1/repos/r/symbols", dict(qualname="x", kind="todo"), "unknown kind 'todo' of a symbol"),
        ):
            answer = get(route, **params)
            assert answer.status_code == 400 and detail in answer.json()["detail"], answer.text
        known = get("/v1/search", q="x", lang="markdown", kind=["fixme"])
        assert known.status_code == 200 and known.json() == []
        assert json.loads(known.headers["X-Recalld-Notes"]) == [
            "no memory has language 'markdown' (python (py), javascript (js), typescript (ts), tsx, vue, svelte, astro,"
            " go, rust, java, kotlin (kt), scala, swift, objc (m, objective-c), c, cpp (c++), csharp (c#), ruby (rb),"
            " php, perl (pl), lua, bash (sh, shell); a tool setting has its file's format: toml, ...)",
            "no memory has kind 'fixme' (module, class, object, interface, struct, enum, trait, type, function, method;"
            " commit; todo, fixme; adr; ...)",
        ]
