"""``--as-of`` a commit the index never synced on its own (a sync took the branch past it
with later commits, as after a push of several): the answer is the state of the last
commit synced before it, and says so; where nothing is found, it says why. It answered
silently, and called a function added there "not there then"."""

from __future__ import annotations

import json

import pytest

from recalld.daemon.client import NOTES_HEADER
from recalld.daemon.memories import get_symbol, outline
from recalld.daemon.query import SearchRequest, search_noted
from recalld.ingest.errors import NotFoundError
from tests.daemon.test_search import api_client, app  # noqa: F401 - the fixture
from tests.ingest.conftest import harness  # noqa: F401 - the fixture, on both store adapters

ONE = 'def alpha():\n    """First."""\n    return 1\n'
TWO = 'def alpha():\n    """First, changed."""\n    return 2\n\n\ndef beta():\n    return 3\n'
THREE = TWO + "\n\ndef gamma():\n    return 4\n"


@pytest.fixture
def pushed(git_repo, harness, app):  # noqa: F811
    """a: synced; b (alpha changed, beta added) and c (gamma added) synced in one step."""
    app.registry.add("r", str(git_repo.path), "main")
    commits = {}
    for name, text in (("a", ONE), ("b", TWO), ("c", THREE)):
        git_repo.write("m.py", text)
        commits[name] = git_repo.commit(name)
        if name != "b":
            harness.sync(git_repo)
    return commits


def test_an_answer_as_of_a_commit_never_synced_says_which_state_it_is(pushed, app):  # noqa: F811
    a, b = pushed["a"], pushed["b"]
    said = (f"the index never synced commit {b[:12]} on its own (a sync took the branch past it): the answer is its"
            f" state at {a[:12]}, the last commit it synced before it (1 commit earlier)")  # fmt: skip
    notes: list[str] = []
    (alpha,) = get_symbol(app, "r", "alpha", as_of_text=b, notes=notes)
    assert alpha["docstring"] == "First." and notes and notes[0].startswith(said)
    notes = []
    found = outline(app, "r", "m.py", as_of_text="HEAD~1", notes=notes)
    assert [s["qualname"] for s in found["files"][0]["symbols"]] == ["alpha"]
    assert notes[0].startswith(said.replace(f"{b[:12]} on", f"{b[:12]} (HEAD~1's) on"))
    records, notes = search_noted(app, SearchRequest("alpha", repo="r", as_of=b))
    assert records and said in " ".join(notes)
    none = (rf"no symbol 'beta' in r as of {b}: none in the index's state at {a[:12]}, the last commit it synced at"
            rf" or before {b[:12]} \(which it never synced itself\)")  # fmt: skip
    with pytest.raises(NotFoundError, match=none):
        get_symbol(app, "r", "beta", as_of_text=b)
    # as of commits it synced to, nothing to say, and "not there then" where it was not
    for commit in (a, pushed["c"]):
        notes = []
        get_symbol(app, "r", "alpha", as_of_text=commit, notes=notes)
        outline(app, "r", "m.py", as_of_text=commit, notes=notes)
        assert notes == [] and search_noted(app, SearchRequest("alpha", repo="r", as_of=commit))[1] == []
    with pytest.raises(NotFoundError, match=f"no symbol 'beta' in r as of {a}: not there then$"):
        get_symbol(app, "r", "beta", as_of_text=a)
    with pytest.raises(NotFoundError, match="no memories of 'n.py' in r as of HEAD~2: not there then$"):
        outline(app, "r", "n.py", as_of_text="HEAD~2")


def test_the_http_api_gives_the_note_in_its_header(pushed, app):  # noqa: F811
    b = pushed["b"]
    with api_client(app) as get:
        for route, params in (("/v1/repos/r/symbols", {"qualname": "alpha"}), ("/v1/repos/r/outline", {"path": "m.py"}),
                              ("/v1/search", {"q": "alpha", "repo": "r"})):  # fmt: skip
            answer = get(route, **params, as_of=b)
            assert answer.status_code == 200
            assert any(f"never synced commit {b[:12]}" in n for n in json.loads(answer.headers[NOTES_HEADER])), route
            assert NOTES_HEADER not in get(route, **params, as_of=pushed["a"]).headers, route


def test_notes_echoing_a_long_path_fit_a_header(pushed, app):  # noqa: F811
    """A note echoes the path asked of, once per repository: a path of 24k characters made a
    header a client refused (over 64 KiB), and the search looked like a daemon that did not
    answer. Each note is cut past 1,000 characters and the last ones counted."""
    from fastapi import Response

    from recalld.daemon.answers import NOTES_BYTES, noted

    with api_client(app) as get:
        answer = get("/v1/search", q="alpha", repo="r", path="a/" * 12_000)
        assert answer.status_code == 200 and len(answer.headers[NOTES_HEADER]) < NOTES_BYTES
        (note,) = json.loads(answer.headers[NOTES_HEADER])
        assert note.startswith("the index holds nothing at a/a/") and " … (" in note and len(note) < 1_100
    response = Response()
    noted(response, [f"{n}: " + "é" * 900 for n in range(100)], None)  # escaped six bytes a letter in JSON
    told = json.loads(response.headers[NOTES_HEADER])
    assert len(response.headers[NOTES_HEADER]) <= NOTES_BYTES and told[-1] == f"… and {101 - len(told)} notes more"
    assert told[:-1] == [f"{n}: " + "é" * 900 for n in range(len(told) - 1)]


def test_a_commit_synced_that_changed_no_memory_is_a_synced_state(git_repo, harness, app):  # noqa: F811
    """A commit of what recalld does not read, synced: its state is the index's own, no note says otherwise,
    and ``changes --since`` it lists nothing, not that commit itself."""
    from recalld.daemon.changes import changes_between

    app.registry.add("r", str(git_repo.path), "main")
    git_repo.write("m.py", ONE)
    git_repo.write("notes.txt", "nothing recalld reads\n")
    git_repo.commit("a")
    harness.sync(git_repo)
    git_repo.write("notes.txt", "nothing recalld reads, still\n")
    docs = git_repo.commit("notes only")
    harness.sync(git_repo)
    notes: list[str] = []
    assert [s["qualname"] for s in outline(app, "r", "m.py", as_of_text=docs, notes=notes)["files"][0]["symbols"]] == [
        "alpha"]  # fmt: skip
    assert notes == []
    answer = changes_between(app, "r", docs)
    assert (answer["from_commit"], answer["commits"], answer["changes"]) == (docs, 0, [])


def test_symbol_and_outline_through_the_daemon_say_a_repository_cannot_be_followed(pushed, git_repo, app):  # noqa: F811
    """Its path gone: the daemon answers from the memories it holds, and says they may be
    stale, as a search does; as of a commit, nothing to say."""
    git_repo.git("branch", "-m", "main", "trunk")  # the tracked branch gone
    with api_client(app) as get:
        for route, params in (("/v1/repos/r/symbols", {"qualname": "alpha"}), ("/v1/repos/r/outline", {"path": "m.py"}),
                              ("/v1/search", {"q": "alpha", "repo": "r"})):  # fmt: skip
            answer = get(route, **params)
            assert answer.status_code == 200
            assert any("its memories may be stale" in n for n in json.loads(answer.headers[NOTES_HEADER])), route


def test_as_of_a_commit_last_held_before_a_deletion_after_a_rewrite_is_its_synced_state(git_repo, harness, app):  # noqa: F811
    """A commit synced that moved nothing (``c``, a mode made executable) is a state the
    index knows only as where what the next sync closed was last valid (``valid_through_commit``).
    As of it, what a commit since rewritten away opened (``gamma``, opened at ``x``, amended
    to one of the same tree) held there: the answer lacked it, judged by ancestry alone, as
    after a `git filter-branch` or a rebase that kept the tree."""
    app.registry.add("r", str(git_repo.path), "main")
    git_repo.write("m.py", ONE)
    git_repo.commit("a")
    harness.sync(git_repo)
    git_repo.write("n.py", "def gamma():\n    return 3\n")
    git_repo.commit("x")
    harness.sync(git_repo)
    git_repo.git("commit", "-q", "--amend", "-m", "x reworded")  # gamma's opening commit is no longer on the branch
    harness.sync(git_repo)
    (git_repo.path / "m.py").chmod(0o755)
    c = git_repo.commit("c: m.py made executable")
    harness.sync(git_repo)
    git_repo.write("m.py", "")
    git_repo.commit("alpha deleted")  # alpha closed, last valid at c
    harness.sync(git_repo)
    notes: list[str] = []
    assert [s["qualname"] for s in outline(app, "r", "n.py", as_of_text=c, notes=notes)["files"][0]["symbols"]] == [
        "gamma"]  # fmt: skip
    assert notes == []
    assert [m["qualname"] for m in get_symbol(app, "r", "alpha", as_of_text=c)] == ["alpha"]


def test_as_of_a_commit_before_a_killed_sync_leaves_out_what_it_wrote(git_repo, harness, app, monkeypatch):  # noqa: F811
    """A sync killed after writing its plan (``b``'s ``gamma`` opened, ``alpha`` closed) and
    resumed: as of ``a``, synced before it, ``alpha`` and not ``gamma``, though the resume
    closed what was last valid at ``a`` after the killed sync had written."""
    from recalld.ingest import sync as sync_module

    def killed(*_args: object, **_kwargs: object) -> None:
        raise RuntimeError("killed")

    app.registry.add("r", str(git_repo.path), "main")
    git_repo.write("m.py", ONE)
    a = git_repo.commit("a")
    harness.sync(git_repo)
    git_repo.write("m.py", "")
    git_repo.write("n.py", "def gamma():\n    return 3\n")
    git_repo.commit("b")
    with monkeypatch.context() as dying:
        dying.setattr(sync_module.Indexer, "_sync_tasks", killed)
        with pytest.raises(RuntimeError, match="killed"):
            harness.sync(git_repo)
    harness.sync(git_repo)
    assert [m["qualname"] for m in get_symbol(app, "r", "alpha", as_of_text=a)] == ["alpha"]
    with pytest.raises(NotFoundError, match="not there then"):
        get_symbol(app, "r", "gamma", as_of_text=a)
