"""Search through the query layer on both store adapters (fake embedder): hybrid ranking,
filters, untrusted memories, as-of a commit or a date, the Mem0 view and bad input."""

from __future__ import annotations

import json
import uuid
from typing import Any
from contextlib import contextmanager
from pathlib import Path

import pytest

from recalld.daemon.asof import indexed_states
from recalld.daemon.config import Config, validate
from recalld.daemon.mem0 import mem0_results
from recalld.daemon.memories import get_symbol
from recalld.daemon.exports import export_noted
from recalld.daemon.query import SearchRequest, search
from recalld.daemon.registry import RepoRegistry
from recalld.ingest.errors import RecalldError
from recalld.ingest.records import REOPENED_OVER
from recalld.ingest.store import MemoryFilter, StoredPoint
from tests.conftest import GitRepo
from tests.ingest.conftest import harness  # noqa: F401 - the fixture, on both store adapters

V1 = '''"""Configuration."""


def parse_config_file(path):
    """Read the settings."""
    return open(path).read()


def legacy_loader(path):
    return path


class HTTPServerPool:
    def acquire_connection(self):
        return 1
'''
V3 = V1.replace("def legacy_loader(path):\n    return path\n\n\n", "")
V2 = V3.replace("return open(path).read()", "return path")


class SearchApp:
    """What ``query.search`` needs of the App: a registry, the store, the embeddings and
    the space their vectors are in."""

    def __init__(self, harness, home: Path) -> None:  # type: ignore[no-untyped-def]
        self.store = harness.store
        self.embeddings = harness.embeddings
        self.space = harness.embeddings.space
        self.registry = RepoRegistry(home / "state.db")
        self.config = Config(home=home, config_path=home / "config.toml", values=validate({}))


@pytest.fixture
def app(harness, tmp_path):
    a = SearchApp(harness, tmp_path)
    yield a
    a.registry.close()


def commit_at(repo: GitRepo, monkeypatch: pytest.MonkeyPatch, when: str, message: str) -> str:
    monkeypatch.setenv("GIT_AUTHOR_DATE", when)
    monkeypatch.setenv("GIT_COMMITTER_DATE", when)
    return repo.commit(message)


@pytest.fixture
def history(git_repo, harness, app, monkeypatch):
    """c1: three functions; c2: legacy_loader removed, parse_config_file edited (synced);
    c3: a README only, not synced; c4: parse_config_file's edit reverted (synced)."""
    app.registry.add("r", str(git_repo.path), "main")
    git_repo.write("conf/settings.py", V1)
    git_repo.write("web/server.go", "package web\n\n// StartServer listens.\nfunc StartServer() {}\n")
    c1 = commit_at(git_repo, monkeypatch, "2024-01-10T12:00:00+00:00", "one")
    harness.sync(git_repo)
    git_repo.write("conf/settings.py", V2)
    c2 = commit_at(git_repo, monkeypatch, "2024-02-10T12:00:00+00:00", "two")
    harness.sync(git_repo)
    git_repo.write("README.md", "# readme\n")
    c3 = commit_at(git_repo, monkeypatch, "2024-03-10T12:00:00+00:00", "three")
    git_repo.write("conf/settings.py", V3)
    c4 = commit_at(git_repo, monkeypatch, "2024-04-10T12:00:00+00:00", "four")
    harness.sync(git_repo)
    return {"c1": c1, "c2": c2, "c3": c3, "c4": c4}


def names(records) -> list[str]:  # type: ignore[no-untyped-def]
    return [r["qualname"] for r in records]


def find(app, query: str, **kw) -> list[dict]:  # type: ignore[no-untyped-def, type-arg]
    """Search; structural memories only unless ``types`` says otherwise (every commit has a task memory)."""
    kw.setdefault("types", ("structural",))
    return search(app, SearchRequest(query, **kw))


def test_identifier_query_ranks_the_symbol_first(history, app):
    assert names(find(app, "HTTPServerPool", limit=3))[0] == "HTTPServerPool"
    assert names(find(app, "acquire connection", limit=3))[0] == "HTTPServerPool.acquire_connection"
    assert names(find(app, "parse_config_file", mode="keyword", limit=1)) == ["parse_config_file"]
    # the path is keyword material: a directory name finds what lies in it
    assert {r["path"] for r in find(app, "conf settings", mode="keyword", limit=3)} == {"conf/settings.py"}
    dense = find(app, "HTTPServerPool", mode="dense", limit=50)
    assert "HTTPServerPool" in names(dense)  # dense-only stays available


def test_a_name_among_look_alikes_ranks_first(git_repo, harness, app):
    """Thirty functions alike but for a number: the one the query names comes first, by
    its name or its qualified name (as C++ or Ruby write one too), in the hybrid and the
    keyword modes; the path glob still holds."""
    app.registry.add("r", str(git_repo.path), "main")
    body = "".join(f'def probe_check_{i}(value):\n    """Probe {i}."""\n    return value + {i}\n\n\n' for i in range(30))
    git_repo.write("probes.py", body)
    git_repo.write("lib/store.py", "class Store:\n    def probe_check_7(self):\n        return 7\n")
    git_repo.commit("probes")
    harness.sync(git_repo)
    for i in (3, 17, 29):
        for mode in ("hybrid", "keyword"):
            assert names(find(app, f"probe_check_{i}", mode=mode, limit=3))[0] == f"probe_check_{i}", (i, mode)
    assert set(names(find(app, "probe_check_7", limit=2))) == {"probe_check_7", "Store.probe_check_7"}
    for query in ("Store.probe_check_7", "Store::probe_check_7", "`Store#probe_check_7()`"):
        assert names(find(app, query, limit=1)) == ["Store.probe_check_7"], query
    assert names(find(app, "probe_check_7", path_glob="lib/**", limit=3))[0] == "Store.probe_check_7"
    assert all(r["path"] == "lib/store.py" for r in find(app, "probe_check_7", path_glob="lib/**", limit=3))


CODEC_JAVA = """class Codec {
    String decode(String s) { return s; }
    String decode(byte[] b) { return null; }
    String encode(String s) { return s; }
}
"""
DECODERS = "".join(f"def decode_{i}(data):\n    return decode(data, {i})\n\n\n" for i in range(20))


def test_a_dotted_name_finds_what_extraction_decorates(git_repo, harness, app, monkeypatch):
    """``Codec.decode`` names Java's two overloads (``Codec.decode(String)``, ``…(byte[])``)
    and ``Arg.fmt`` Rust's ``<Arg as Display>.fmt``: first, ahead of look-alikes; a plain
    name with more namesakes than are read leaves the exact qualified name alone."""
    from recalld.daemon import retrieve

    app.registry.add("r", str(git_repo.path), "main")
    git_repo.write("src/Codec.java", CODEC_JAVA)
    git_repo.write("src/arg.rs", ARG_RS)
    git_repo.write("decoders.py", DECODERS)
    git_repo.commit("codecs")
    harness.sync(git_repo)
    assert set(names(find(app, "Codec.decode", limit=2))) == {"Codec.decode(String)", "Codec.decode(byte[])"}
    assert set(names(find(app, "Arg.fmt", limit=2))) == {"<Arg as Display>.fmt", "<Arg as Debug>.fmt"}
    assert names(find(app, "decode_7", limit=1)) == ["decode_7"]
    everywhere = MemoryFilter(repo="r")
    overloads = ("Codec.decode", "Codec.decode(String)", "Codec.decode(byte[])")
    assert retrieve.decorated(app.store, everywhere, ("Codec.decode",)) == overloads
    monkeypatch.setattr(retrieve, "MAX_RESOLVED", 1)  # two namesakes: more than are read
    assert retrieve.decorated(app.store, everywhere, ("Codec.decode",)) == ("Codec.decode",)


@pytest.mark.parametrize(
    ("query", "expected"),
    [("parse_config", ("parse_config",)), ("Config", ("Config",)), ("how is the config parsed", ()),
     ("QuerySet.bulk_create() crashes on save", ("QuerySet.bulk_create",)), ("geo::Widget::Draw", ("geo.Widget.Draw",)),
     ("Fixed Signal.asend and asend_robust", ("Signal.asend", "asend_robust")), ("use `read_blob`, then HTTPServer",
     ("read_blob", "HTTPServer")), ("src/app.py", ()), ("getUser(id)", ("getUser",)), ("42", ()),
     ("mockWin.close#3", ("mockWin.close",)), ("Codec.decode(byte[])", ("Codec.decode",)),
     ("it calls `read_blob`.", ("read_blob",)), ("(see `Repo.diff()`).", ("Repo.diff",)), ("...parse_config", ("parse_config",))],
)  # fmt: skip
def test_the_names_a_query_writes_as_code(query, expected):
    from recalld.daemon.retrieve import identifiers

    assert identifiers(query) == expected


def test_filters_and_provenance(history, app):
    assert {r["language"] for r in find(app, "server", language="go")} == {"go"}
    assert set(names(find(app, "anything", kinds=("method",)))) == {"HTTPServerPool.acquire_connection"}
    # as a person or an agent writes a language or a kind: "Python" found nothing
    assert {r["id"] for r in find(app, "server", language="Go")} == {r["id"] for r in find(app, "server", language="go")}
    assert set(names(find(app, "anything", kinds=("Method",)))) == {"HTTPServerPool.acquire_connection"}
    with pytest.raises(RecalldError, match="a path cannot hold a NUL character"):
        find(app, "anything", path_glob="conf/\x00")
    assert {r["path"] for r in find(app, "anything", path_glob="conf/**", limit=50)} == {"conf/settings.py"}
    assert {r["path"] for r in find(app, "anything", path_glob="./conf/", limit=50)} == {"conf/settings.py"}
    commits = {r["commit"] for r in find(app, "anything", types=("task",), limit=50)}
    assert commits == set(history.values())
    at_c2 = {r["commit"] for r in find(app, "anything", types=("task",), as_of=history["c2"], limit=50)}
    assert at_c2 == {history["c1"], history["c2"]}
    assert len(find(app, "anything", types=("structural",), limit=50)) == 6
    hit = find(app, "parse_config_file", limit=1)[0]
    assert hit["type"] == "structural" and hit["deprecated"] is False and hit["untrusted"] is False
    assert hit["valid_from_commit"] == history["c4"] and hit["author"].startswith("Test Author")
    assert hit["start_line"] == 4 and hit["valid_to_time"] == 0
    stale = find(app, "parse_config_file", include_deprecated=True, limit=50)
    assert any(r["deprecated"] and r["qualname"] == "parse_config_file" for r in stale)
    assert not any(r["deprecated"] for r in find(app, "parse_config_file", limit=50))


def test_untrusted_memories_are_left_out_unless_asked(history, app, harness):
    target = next(p for p in harness.memories() if p.payload["qualname"] == "HTTPServerPool")
    harness.store.set_payload([target.id], {"untrusted": 1})
    assert "HTTPServerPool" not in names(find(app, "HTTPServerPool", limit=50))
    flagged = [r for r in find(app, "HTTPServerPool", include_untrusted=True, limit=50) if r["untrusted"]]
    assert names(flagged) == ["HTTPServerPool"]


def test_as_of_commit_returns_that_commits_symbols(history, app):
    assert "legacy_loader" not in names(find(app, "legacy_loader", limit=50))
    at_c1 = find(app, "legacy_loader", as_of=history["c1"], limit=50)
    assert names(at_c1)[0] == "legacy_loader"
    at_c2 = find(app, "loader", as_of=history["c2"][:10], repo="r", limit=50)
    assert "legacy_loader" not in names(at_c2)
    # c3 was never indexed itself: the answer is the state at c2, the last indexed before it
    assert sorted(names(find(app, "x", as_of="HEAD~1", limit=50))) == sorted(names(at_c2))
    # c4 reverted parse_config_file: its c1 point was reopened and answers for c1 through its history
    (parse_c1,) = [r for r in at_c1 if r["qualname"] == "parse_config_file"]
    (parse_c2,) = [r for r in at_c2 if r["qualname"] == "parse_config_file"]
    (parse_now,) = [r for r in find(app, "x", limit=50) if r["qualname"] == "parse_config_file"]
    assert parse_c1["id"] == parse_now["id"] != parse_c2["id"]
    assert parse_now["valid_from_commit"] == history["c4"] and parse_c2["valid_from_commit"] == history["c2"]
    assert sorted(r["id"] for r in find(app, "x", as_of="main", limit=50)) == sorted(
        r["id"] for r in find(app, "x", limit=50)
    )


def test_as_of_date_uses_the_validity_interval(history, app, tmp_path):
    def at(when: str) -> list[str]:
        return sorted(names(find(app, "x", as_of=when, limit=50)))

    assert at("2024-01-09") == []  # before anything was indexed
    assert "legacy_loader" in at("2024-01-10")  # end of that day
    assert "legacy_loader" not in at("2024-02-11") and "parse_config_file" in at("2024-02-11")
    assert at("2024-02-10T11:59:59+00:00") == at("2024-01-20")
    assert at("2024-05-01") == sorted(names(find(app, "x", limit=50)))
    # one repository's dates are its branch's commits; across several, the intervals' times
    by_commit = {when: at(when) for when in ("2024-01-09", "2024-01-10", "2024-02-11", "2024-05-01")}
    other = GitRepo(tmp_path / "other")
    other.commit("empty")
    app.registry.add("other", str(other.path), "main")
    assert {when: at(when) for when in by_commit} == by_commit


def test_as_of_answers_alike_after_the_branch_moved_back_and_forth(history, app, git_repo, harness):
    """A reset closes what the commits it leaves added, at the commit it goes back to (an
    ancestor of them): as of those commits they still held, in the interval a move
    forward again keeps in their history. While the branch is back, a date answers by
    the branch as it is (what it left is no part of it), by the branch's commit at that
    time: a move forward over an indexed commit (c1 to c4 over c2) closes at c4 what c2
    removed, and the intervals' times alone would keep it valid until c4."""

    def at(when: str) -> list[str]:
        return sorted(r["id"] for r in find(app, "x", as_of=when, types=("structural", "task"), limit=50))

    c1, c2, tip = history["c1"], history["c2"], git_repo.head()
    asked = [c1, c2, "HEAD~1", tip, "2024-01-10", "2024-02-11", "2024-03-11"]
    before = {when: at(when) for when in asked}
    assert len({tuple(ids) for ids in before.values()}) >= 3
    for commit, on_branch in ((c1, [c1]), (c2, [c1, c2]), (tip, asked), (c1, [c1]), (tip, asked)):
        git_repo.git("reset", "-q", "--hard", commit)
        harness.sync(git_repo)
        assert {when: at(when) for when in on_branch} == {when: before[when] for when in on_branch}, commit
    git_repo.git("reset", "-q", "--hard", c1)
    harness.sync(git_repo)
    assert at("2024-03-11") == at("2024-01-10") == before[c1]


def test_as_of_gives_the_lines_the_code_had_then(git_repo, harness, app):
    """Code that moved down its file keeps its memory (its lines are written in place):
    as of an earlier commit, an answer gives the lines it had there, read from git."""
    app.registry.add("r", str(git_repo.path), "main")
    target = 'def target(x):\n    """The one."""\n    return x\n'
    todo = "\n\n# TODO: make target lazy\n"
    above = "import os\n\n\ndef added():\n    return os\n\n\n"
    commits = []
    for prefix in ("", above, above + above.replace("added", "again")):
        git_repo.write("m.py", prefix + target + todo)
        commits.append(git_repo.commit("move"))
        harness.sync(git_repo)

    def lines(as_of: str | None, types: tuple[str, ...], qualname: str) -> tuple[int, int]:
        (hit,) = [r for r in find(app, "target", as_of=as_of, types=types, limit=50) if r["qualname"] == qualname]
        return hit["start_line"], hit["end_line"]

    (todo_name,) = {r["qualname"] for r in find(app, "lazy", types=("debt",), limit=50)}
    assert [lines(c, ("structural",), "target") for c in (*commits, None)] == [(1, 3), (8, 10), (15, 17), (15, 17)]
    assert [lines(c, ("debt",), todo_name) for c in (*commits, None)] == [(6, 6), (13, 13), (20, 20), (20, 20)]
    for commit in (commits[0], commits[2]):  # and after the branch moved back and forward again
        git_repo.git("reset", "-q", "--hard", commit)
        harness.sync(git_repo)
    assert [lines(c, ("structural",), "target") for c in (*commits, None)] == [(1, 3), (8, 10), (15, 17), (15, 17)]
    # the symbol and the export as of a commit, in-process and through the HTTP API
    (at_c1,) = get_symbol(app, "r", "target", as_of_text=commits[0])
    assert (at_c1["start_line"], at_c1["end_line"]) == (1, 3)
    exported = {r["qualname"]: r for r in export_noted(app, repo="r", include_deprecated=False, as_of_text=commits[1])[0]}
    assert (exported["target"]["start_line"], exported["added"]["start_line"]) == (8, 4) and "again" not in exported
    with api_client(app) as get:
        (version,) = get("/v1/repos/r/symbols", qualname="target", as_of=commits[1]).json()
        assert version["start_line"] == 8
        assert get("/v1/repos/r/symbols", qualname="again", as_of=commits[1]).status_code == 404
        lines_out = get("/v1/export", repo="r", as_of=commits[0]).text.splitlines()
        assert {json.loads(line)["qualname"]: json.loads(line)["start_line"] for line in lines_out}["target"] == 1
        assert get("/v1/export", repo="r", as_of="nope").status_code == 400


def test_known_states_are_kept_until_the_branch_changes(history, app, harness, git_repo):
    """What the store knows of the branch's states is read once per generation: a sync
    (its checkpoint) or a point written without one (a history backfill cut short)."""
    known = indexed_states(app.store, "r", "main")
    assert indexed_states(app.store, "r", "main") is known
    task = next(iter(app.store.scroll(MemoryFilter(repo="r", types=("task",), deprecated=None))))
    cut_short = {**task.payload, "valid_from_commit": "f" * 40, "valid_from_sync": None}
    app.store.upsert([StoredPoint(str(uuid.uuid4()), cut_short, [1.0] + [0.0] * (app.store.dim - 1))])
    assert "f" * 40 in indexed_states(app.store, "r", "main").states
    git_repo.git("reset", "-q", "--hard", history["c1"])
    harness.sync(git_repo)
    assert indexed_states(app.store, "r", "main").visits[history["c1"]] > known.visits[history["c1"]]


def test_states_read_ahead_are_what_the_first_as_of_question_finds(history, app, harness, git_repo, monkeypatch):
    """``warm_states`` (the daemon, idle after syncs) reads a branch's states as the first
    question would; the question then reads no point. An unknown repository is logged and
    skipped, and a stopping daemon reads nothing."""
    from recalld.daemon import asof

    asof._KNOWN.pop(app.store, None)
    asof.warm_states(app.store, [("r", "main")], lambda: True)
    assert app.store not in asof._KNOWN or not asof._KNOWN[app.store]
    asof.warm_states(app.store, [("nope", "main"), ("r", "main")], lambda: False)
    scrolled: list[object] = []
    scroll = app.store.scroll
    monkeypatch.setattr(app.store, "scroll", lambda *a, **k: scrolled.append(a) or scroll(*a, **k))
    (hit,) = [r for r in find(app, "anything", as_of=history["c2"], limit=50) if r["qualname"] == "parse_config_file"]
    assert hit["valid_from_commit"] in (history["c1"], history["c2"]) and scrolled == []
    monkeypatch.undo()
    asof._KNOWN[app.store].clear()
    assert indexed_states(app.store, "r", "main").states == {history[c] for c in ("c1", "c2", "c3", "c4")}


def test_known_states_read_on_after_syncs_are_those_read_afresh(history, app, harness, git_repo, monkeypatch):
    """After a sync the branch's states are read on from what was kept (the points the
    syncs since stamped, and the task memories): the same as read from every point, after
    moves back and forth; after a prune, every point is read again."""
    from recalld.daemon import asof

    def afresh() -> asof.Known:
        asof._KNOWN[app.store].clear()
        return indexed_states(app.store, "r", "main")

    def seen(known: asof.Known) -> tuple:  # type: ignore[type-arg]
        return known.states, known.targets, known.visits

    read_on: list[object] = []
    catch_up = asof._caught_up
    monkeypatch.setattr(asof, "_caught_up", lambda *args: read_on.append(catch_up(*args)) or read_on[-1])
    indexed_states(app.store, "r", "main")
    for commit in (history["c1"], history["c4"], history["c2"], history["c1"], history["c4"]):
        git_repo.git("reset", "-q", "--hard", commit)
        harness.sync(git_repo)
        assert seen(indexed_states(app.store, "r", "main")) == seen(afresh()), commit
    assert len(read_on) == 5 and None not in read_on
    closed = next(iter(app.store.scroll(MemoryFilter(repo="r", deprecated=1), fields=())))
    app.store.delete([closed.id])
    git_repo.write("late.py", "def late():\n    return 1\n")
    git_repo.commit("late")
    harness.sync(git_repo)
    assert seen(indexed_states(app.store, "r", "main")) == seen(afresh()) and read_on[-1] is None


def test_a_commit_a_shallow_clone_lacks_is_said_to_be_beyond_it(git_repo, tmp_path, app):
    import subprocess

    from recalld.daemon.asof import states_at_commit
    from recalld.ingest.gitrepo import GitRepository

    first = git_repo.commit("one")
    git_repo.commit("two")
    for where, depth, shallow in (("shallow", "--depth=1", True), ("whole", "--no-local", False)):
        subprocess.run(["git", "clone", "-q", depth, f"file://{git_repo.path}", str(tmp_path / where)], check=True)
        lacked = first if shallow else "deadbeef" * 5
        with pytest.raises(RecalldError, match="no such commit") as raised:
            states_at_commit(app.store, GitRepository(tmp_path / where), repo="r", branch="main", rev=lacked)
        assert ("a shallow clone: `git fetch --unshallow` brings its older commits" in str(raised.value)) is shallow


def test_as_of_shows_the_interval_that_held_then(git_repo, harness, app, monkeypatch, capsys):
    """A function Ann wrote, Bob deleted with its file and Cid restored as it was is one
    point, reopened: as of Ann's commit its answers give the interval that held there
    (Ann's commit and task, closed later by Bob's deletion), not the restore's; as of
    Cid's, the restore. So do ``changes --since`` and an interval whose history entry
    predates the fields entries keep (the author then read from git)."""
    from recalld.daemon.changes import changes_between
    from recalld.daemon.commands import print_version
    from recalld.ingest.plan import Scope
    from recalld.ingest.records import task_memory_id

    app.registry.add("r", str(git_repo.path), "main")
    code = 'def restored(x):\n    """Comes back."""\n    return x + 1\n'
    commits = {}
    for month, (who, step) in enumerate((("Ann", "write"), ("Bob", "delete"), ("Cid", "restore")), 1):
        monkeypatch.setenv("GIT_AUTHOR_NAME", who)
        git_repo.write("keep.py", f"def kept():\n    return {who!r}\n")
        if step == "delete":
            git_repo.remove("a.py")
        else:  # restored four lines down
            git_repo.write("a.py", ("\n" * 4 if step == "restore" else "") + code)
        commits[who] = commit_at(git_repo, monkeypatch, f"2024-0{month}-10T12:00:00+00:00", step)
        harness.sync(git_repo)

    def shown(record) -> tuple:  # type: ignore[no-untyped-def, type-arg]
        return (record["valid_from_commit"], record["valid_to_commit"], record["deprecated"],
                record["deprecated_reason"], record["author"].split(" <")[0], record["start_line"])  # fmt: skip

    ann = (commits["Ann"], commits["Bob"], True, "deleted", "Ann", 1)
    (at_ann,) = get_symbol(app, "r", "restored", as_of_text=commits["Ann"])
    (hit,) = [r for r in find(app, "restored", as_of=commits["Ann"], limit=50) if r["qualname"] == "restored"]
    assert shown(at_ann) == shown(hit) == ann
    assert at_ann["id"] == get_symbol(app, "r", "restored")[0]["id"]  # one point
    assert at_ann["task_id"] == task_memory_id(Scope("r", "main"), commits["Ann"])
    (now,) = get_symbol(app, "r", "restored", as_of_text=commits["Cid"])
    assert shown(now) == (commits["Cid"], None, False, None, "Cid", 5)
    assert (at_ann["written_in"], now["written_in"]) == (commits["Ann"], commits["Cid"])
    with pytest.raises(RecalldError, match="not there then"):
        get_symbol(app, "r", "restored", as_of_text=commits["Bob"])
    print_version(now)  # `recalld symbol` names the earlier interval; as of it, the one shown
    assert f"    earlier: since {commits['Ann'][:8]} until {commits['Bob'][:8]} [deleted]\n" in capsys.readouterr().out
    print_version(at_ann, as_of=True)
    out = capsys.readouterr().out  # the first sync's version: its writer found by the history read
    assert f"since {commits['Ann'][:8]} (first indexed) until {commits['Bob'][:8]} by Ann <" in out
    assert "earlier" not in out
    removed = [c for c in changes_between(app, "r", commits["Ann"], commits["Bob"])["changes"]
               if (c["was"] or {}).get("qualname") == "restored"]  # fmt: skip
    assert [(c["change"], c["was"]["commit"], c["was"]["author"].split(" <")[0]) for c in removed] == [
        ("removed", commits["Ann"], "Ann")
    ]
    # the versions last opened and closed (a store without task memories): the restore's
    # opening and the deletion's closing, each as its interval shows it
    from recalld.daemon.memories import recent_changes

    harness.store.delete([p.id for p in harness.memories(types=("task",))])
    events = [(c["event"], c["valid_from_commit"], c["author"].split(" <")[0])
              for c in recent_changes(app, "r", limit=50)["changes"] if c["qualname"] == "restored"]  # fmt: skip
    assert events == [("opened", commits["Cid"], "Cid"), ("closed", commits["Ann"], "Ann"),
                      ("opened", commits["Ann"], "Ann")]  # fmt: skip
    # an entry of an older version holds the interval alone
    point = harness.store.retrieve([at_ann["id"]])[0]
    kept = REOPENED_OVER  # what entries keep since they keep any of it
    bare = [{k: v for k, v in e.items() if k not in kept} for e in point.payload["history"]]
    harness.store.set_payload([point.id], {"history": bare})
    (old,) = get_symbol(app, "r", "restored", as_of_text=commits["Ann"])
    assert shown(old) == ann and old["task_id"] == at_ann["task_id"]


def test_bad_as_of_and_types_are_clear_errors(history, app, git_repo, tmp_path):
    with pytest.raises(RecalldError, match="no such commit"):
        find(app, "x", as_of="deadbeefdeadbeef")
    with pytest.raises(RecalldError, match="not a valid ISO date"):
        find(app, "x", as_of="2024-13-45")
    git_repo.git("checkout", "-q", "-b", "side")
    git_repo.write("side.py", "def s():\n    pass\n")
    side = git_repo.commit("side")
    with pytest.raises(RecalldError, match="not on branch 'main'"):
        find(app, "x", as_of=side)
    with pytest.raises(RecalldError, match="unknown memory type 'symbols'"):
        find(app, "x", types=("symbols",))
    other = GitRepo(tmp_path / "other")
    other.commit("empty")
    app.registry.add("other", str(other.path), "main")
    with pytest.raises(RecalldError, match=r"name its repository \(--repo, repo=\)"):
        find(app, "x", as_of=history["c1"])
    with pytest.raises(RecalldError, match="never indexed at or before"):
        find(app, "x", as_of="HEAD", repo="other")


def test_mem0_view(history, app):
    (record,) = find(app, "parse_config_file", limit=1)
    (item,) = mem0_results([record])["results"]
    assert set(item) >= {"id", "memory", "hash", "metadata", "score", "created_at", "updated_at",
                         "user_id", "agent_id", "run_id"}  # fmt: skip
    assert item["id"] == record["id"] and item["hash"] == record["content_hash"]
    assert item["user_id"] == "r" and item["app_id"] == "r" and item["agent_id"] is None and item["run_id"] is None
    assert item["memory"].startswith("python function parse_config_file in conf/settings.py:4-6")
    assert "Read the settings." in item["memory"]
    meta = item["metadata"]
    assert meta["commit"] == history["c4"] and meta["path"] == "conf/settings.py" and meta["type"] == "structural"
    assert meta["written_in"] == record["written_in"] and record["written_in"] in history.values()
    assert item["created_at"] == "2024-04-10T12:00:00+00:00" and item["updated_at"] is None


def test_unknown_repo_is_a_clear_error(app, harness):
    assert harness.store.count(MemoryFilter(repo="r")) == 0
    with pytest.raises(RecalldError, match="unknown repo"):
        find(app, "x", repo="r")


@contextmanager
def api_client(app):  # type: ignore[no-untyped-def]
    """``get(route, **params)`` against the HTTP API over ``app`` (``method=`` another than GET)."""
    from types import SimpleNamespace

    from recalld.daemon.api import create_api
    from tests.service.conftest import DocumentedClient

    service = SimpleNamespace(app=app, token="t0ken", state="ready", max_body=1 << 20)
    with DocumentedClient(create_api(service)) as client:  # type: ignore[arg-type]

        def get(route: str, method: str = "GET", **params):  # type: ignore[no-untyped-def]
            return client.request(method, route, params=params, headers={"Authorization": "Bearer t0ken"})

        yield get


def test_http_search_params_formats_and_bad_input(history, app):
    with api_client(app) as api_get:

        def get(**params):  # type: ignore[no-untyped-def]
            return api_get("/v1/search", **params)

        plain = get(q="legacy_loader", limit=50)
        assert plain.status_code == 200 and "legacy_loader" not in names(plain.json())
        old = get(q="legacy_loader", as_of=history["c1"], repo="r", type=["structural"], kind=["function"])
        assert names(old.json())[0] == "legacy_loader" and {r["kind"] for r in old.json()} == {"function"}
        mem0 = get(q="HTTPServerPool", format="mem0", path="conf/*.py", include_untrusted="true").json()
        assert "HTTPServerPool" in {m["metadata"].get("qualname") for m in mem0["results"]}
        assert {m["metadata"]["path"] for m in mem0["results"]} == {"conf/settings.py"}
        for bad, detail in ((dict(as_of="2024-99-01"), "not a valid ISO date"), (dict(as_of="nope"), "no such commit"),
                            (dict(as_of="HEAD\x00x"), "no such commit"),  # read as HEAD up to stop 116
                            (dict(as_of="2024-01-01T10:00:00+99:00"), "(its UTC offset is not within 24 hours)"),
                            (dict(type="symbols"), "unknown memory type"), (dict(q=" "), "the query is empty"),
                            (dict(as_of=" "), "as of ' ': give a commit")):  # fmt: skip
            response = get(**{"q": "x", "repo": "r", **bad})
            assert response.status_code == 400 and detail in response.json()["detail"]
        assert get(q="legacy_loader", as_of="", limit=50).json() == plain.json()  # empty: not given
        assert get(q="x", format="xml").status_code == 422 and get(q="x", tests="none").status_code == 422
        assert {r["path"] for r in get(q="HTTPServerPool", tests="only", type=["structural"]).json()} == set()
        assert get(q="x", limit=0).status_code == 422 and get(q="x", limit=1001).status_code == 422
        assert get(q="x", repo="nope").status_code == 404
        misspelt = get(q="legacy_loader", asof=history["c1"])  # answered for the tip, without a word, until stop 113
        assert misspelt.status_code == 422 and misspelt.json()["detail"][0]["loc"] == ["query", "asof"]
        assert "this route takes as_of, format, include_deprecated" in misspelt.json()["detail"][0]["msg"]
        assert get(q="legacy_loader", asof="", limit=50).json() == plain.json()  # empty: not given, as any
        twice = get(q="x", repo=["r", "other"], limit=["5", "6"])  # searched "other" alone, 6 of it, until stop 116
        assert twice.status_code == 422 and [f["loc"] for f in twice.json()["detail"]] == [["query", "limit"],
                                                                                             ["query", "repo"]]
        assert twice.json()["detail"][0]["msg"] == "given more than once: it takes one value"
        assert get(q="legacy_loader", type=["structural", "task"], kind=["function", "commit"]).status_code == 200
        assert api_get("/healthz", verbose="1").json() == {"state": "ready"}  # a route that takes none ignores them
        outline = api_get("/v1/repos/r/outline", path="conf", kinds="function")
        assert outline.status_code == 422 and outline.json()["detail"][0]["loc"] == ["query", "kinds"]


def test_each_routes_answer_has_the_shape_its_openapi_document_gives(history, app):
    """The OpenAPI document gave no success answer a shape (``{}``): ``DocumentedClient``
    now checks every JSON answer against the schema documented for its status."""
    with api_client(app) as api_get:
        for route, params in (("/v1/search", dict(q="loader", limit=3)), ("/v1/search", dict(q="loader", format="mem0")),
                              ("/v1/search", dict(q="commit", type=["task"])),
                              ("/v1/repos/r/symbols", dict(qualname="parse_config_file", include_deprecated="true")),
                              ("/v1/repos/r/outline", dict(path="conf")), ("/v1/repos/r/changes", {}),
                              ("/v1/repos/r/changes", dict(since=history["c1"]))):  # fmt: skip
            answer = api_get(route, **params)
            assert answer.status_code == 200 and answer.json(), (route, params, answer.text)
        (found,) = api_get("/v1/search", q="parse_config_file", kind=["function"], limit=1).json()
        assert api_get(f"/v1/memories/{found['id']}").json()["id"] == found["id"]
        document = api_get("/openapi.json").json()
        search = document["paths"]["/v1/search"]["get"]["responses"]["200"]
        assert "X-Recalld-Notes" in search["headers"] and "oneOf" in search["content"]["application/json"]["schema"]


def test_a_memory_that_cannot_be_forgotten_or_an_id_with_a_slash_is_answered_as_documented(history, app):
    """Forgetting a structural memory is a 400 the OpenAPI document did not list for
    DELETE; an id with "/" (``../status``, as an agent may pass one) was the router's bare
    "Not Found", not the unknown memory it is."""
    with api_client(app) as api_get:
        (found,) = api_get("/v1/search", q="parse_config_file", type=["structural"], kind=["function"], limit=1).json()
        refused = api_get(f"/v1/memories/{found['id']}", method="DELETE")
        assert refused.status_code == 400 and "only manual memories can be forgotten" in refused.json()["detail"]
        for method in ("GET", "DELETE"):
            answer = api_get("/v1/memories/..%2Fv1%2Fstatus", method=method)
            assert (answer.status_code, answer.json()) == (404, {"detail": "unknown memory '../v1/status'"})


@pytest.mark.parametrize("kind", ["edge", "server"])
def test_keyword_vector_covers_the_whole_file_beyond_the_embedded_text(kind, git_repo, tmp_path):
    from recalld.daemon.retrieve import Retrieval, retrieve
    from recalld.ingest.files import IndexOptions
    from tests.ingest.conftest import Harness

    filler = "".join(f"WIDGET_{i} = {i}\n" for i in range(60))
    git_repo.write("pkg/consts.py", f'"""Constants."""\n{filler}ZEPHYR_QUOTA = 7\n')
    git_repo.commit("consts")
    h = Harness(kind, tmp_path / "state", IndexOptions(max_embed_chars=200))
    try:
        h.sync(git_repo)
        (module,) = [m for m in h.memories() if m.payload["kind"] == "module"]
        assert "ZEPHYR_QUOTA" not in module.payload["text"]  # beyond the embedded text...
        flt = MemoryFilter(repo="r", types=("structural",))
        hits = retrieve(h.store, lambda t: [0.0] * 16, Retrieval("zephyr quota", flt, mode="keyword"))
        assert [x.point.id for x in hits] == [module.id]  # ...yet found by its keywords
    finally:
        h.close()


ARG_RS = """pub struct Arg {
    name: String,
}

impl Arg {
    pub fn name(&self) -> &str {
        &self.name
    }
}

impl fmt::Display for Arg {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "{}", self.name)
    }
}

impl fmt::Debug for Arg {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.debug_struct("Arg").finish()
    }
}
"""


def test_a_symbol_is_found_by_its_scope_and_name_when_its_qualname_says_more(git_repo, harness, app):
    """A Rust trait's methods are named by their trait (``<Arg as Display>.fmt``):
    ``Arg.fmt`` finds both; the qualified name and the plain name find what they did."""
    from recalld.daemon.memories import get_symbol
    from recalld.ingest.errors import NotFoundError

    app.registry.add("r", str(git_repo.path), "main")
    git_repo.write("src/arg.rs", ARG_RS)
    git_repo.commit("arg")
    harness.sync(git_repo)
    found = [(v["qualname"], v["start_line"]) for v in get_symbol(app, "r", "Arg.fmt")]
    assert found == [("<Arg as Display>.fmt", 12), ("<Arg as Debug>.fmt", 18)]
    assert names(get_symbol(app, "r", "<Arg as Debug>.fmt")) == ["<Arg as Debug>.fmt"]
    assert names(get_symbol(app, "r", "fmt")) == ["<Arg as Display>.fmt", "<Arg as Debug>.fmt"]
    notes: list[str] = []  # at most a limit, the rest said
    assert names(get_symbol(app, "r", "fmt", limit=1, notes=notes)) == ["<Arg as Display>.fmt"]
    assert notes == ["2 found, the first 1 given: ask with a path or a kind for fewer"]
    assert names(get_symbol(app, "r", "fmt", limit=2, notes=notes)) == ["<Arg as Display>.fmt", "<Arg as Debug>.fmt"]
    assert len(notes) == 1
    assert names(get_symbol(app, "r", "Arg.name")) == ["Arg.name"]
    assert names(get_symbol(app, "r", "<Arg as Debug>::fmt")) == ["<Arg as Debug>.fmt"]  # as Rust writes it
    with pytest.raises(NotFoundError, match="no symbol 'Other.fmt'"):
        get_symbol(app, "r", "Other.fmt")


def test_a_symbol_asked_for_as_imported_or_called_is_found_and_others_of_a_plain_name_are_named(
    git_repo, harness, app
):
    """``requests.sessions.Session`` (an import path), ``flask.Flask`` (a package's export,
    defined in one of its modules) and ``Session.request()`` (a call) find the symbols,
    with a note of how they were read; a plain name found by its qualname notes the other
    symbols of that name (``request`` found ``api.request`` alone)."""
    app.registry.add("r", str(git_repo.path), "main")
    git_repo.write("src/requests/sessions.py", "class Session:\n    def request(self):\n        return 1\n")
    git_repo.write("src/requests/api.py", "def request(method):\n    return 2\n")
    git_repo.write("src/requests/__init__.py", "from .sessions import Session\n")
    git_repo.write("tests/test_sessions.py", "class Session:\n    pass\n")
    git_repo.commit("requests")
    harness.sync(git_repo)

    def asked(qualname: str) -> tuple[list[tuple[str, str]], list[str]]:
        notes: list[str] = []
        return [(v["qualname"], v["path"]) for v in get_symbol(app, "r", qualname, notes=notes)], notes

    session = [("Session", "src/requests/sessions.py")]
    assert asked("requests.sessions.Session") == (session, ["'requests.sessions.Session' read as 'Session' of"
                                                           " module requests.sessions"])  # fmt: skip
    assert asked("requests.Session") == (session, ["'requests.Session' read as 'Session' of module requests"])
    assert asked("requests.sessions.Session.request") == ([("Session.request", "src/requests/sessions.py")],
                                                          ["'requests.sessions.Session.request' read as"
                                                           " 'Session.request' of module requests.sessions"])
    assert asked("Session.request()")[0] == [("Session.request", "src/requests/sessions.py")]
    assert asked("request") == ([("request", "src/requests/api.py")], [
        "also named 'request': Session.request (src/requests/sessions.py) (ask with the qualified name)"])
    with pytest.raises(RecalldError, match="no symbol 'flask.Session' in r"):
        get_symbol(app, "r", "flask.Session")


def test_a_symbol_whose_stored_text_is_cut_says_how_many_lines_it_leaves_out(git_repo, harness, app):
    """The stored text is cut at embedding.max_chars: a symbol's answer says how many of
    its lines it leaves out (``text_cut``), so that an agent reads them from the file (the
    answer looked whole, ending mid-docstring)."""
    app.registry.add("r", str(git_repo.path), "main")
    body = "".join(f"    total = total + {i}  # step {i} of the long sum\n" for i in range(60))
    git_repo.write("calc.py", f'def long_sum():\n    """Adds."""\n    total = 0\n{body}    return total\n\n\n'
                              'def short():\n    return 1\n')  # fmt: skip
    git_repo.commit("calc")
    harness.sync(git_repo)
    (long,) = get_symbol(app, "r", "long_sum")
    last_shown = long["text"].splitlines()[-1]  # cut within it, maybe
    lines = (git_repo.path / "calc.py").read_text().splitlines()
    assert long["end_line"] == 64 and 0 < long["text_cut"] < 64 and lines[63 - long["text_cut"]].startswith(last_shown)
    assert "text_cut" not in get_symbol(app, "r", "short")[0]


def test_a_symbol_is_printed_with_its_doc_once_and_its_code_as_indented(capsys):
    from recalld.daemon.commands import print_version

    base = {"repo": "r", "kind": "method", "deprecated": False, "valid_from_commit": "0123456789ab", "author": "A"}
    doc = "Why it is skipped.\n\nOr None."
    python = {**base, "path": "c.py", "qualname": "C.skip", "signature": "def skip(self)", "start_line": 3,
              "end_line": 7, "docstring": doc, "text": f"python method C.skip\n{doc}\ndef skip(self):\n"
              '        """Why it is skipped.\n\n        Or None."""\n        return None'}  # fmt: skip
    rust = {**base, "path": "a.rs", "qualname": "<Arg as Display>.fmt", "signature": "fn fmt(&self)",
            "start_line": 10, "end_line": 12, "docstring": "Shows it.",
            "text": "rust method <Arg as Display>.fmt\nShows it.\nfn fmt(&self) {\n        write(f)\n    }"}  # fmt: skip
    # a long class's text cut short inside a call: its last line is no closing line of the class
    cut = {**base, "kind": "class", "path": "r.py", "qualname": "Req", "signature": "class Req(object)",
           "start_line": 66, "end_line": 1005, "docstring": "",
           "text": "python class Req\nclass Req(object):\n    def __init__(self, req,\n                 link=None):\n"
                   "        if req:\n            self.req = f(\n                req,\n            )"}  # fmt: skip
    print_version(python)
    print_version(rust)
    print_version(cut)
    assert capsys.readouterr().out.splitlines() == [
        "r:c.py:3-7  method C.skip", "    def skip(self)", "    since 01234567 by A",
        "    def skip(self):", '        """Why it is skipped.', "", "        Or None.\"\"\"", "        return None",
        "r:a.rs:10-12  method <Arg as Display>.fmt", "    fn fmt(&self)", "    since 01234567 by A",
        "    Shows it.", "    fn fmt(&self) {", "        write(f)", "    }",
        "r:r.py:66-1005  class Req", "    class Req(object)", "    since 01234567 by A",
        "    class Req(object):", "        def __init__(self, req,", "                     link=None):",
        "            if req:", "                self.req = f(", "                    req,", "                )",
        "    … 933 more lines: r.py:66-1005",
    ]  # fmt: skip
    closed = {**python, "deprecated": True, "deprecated_reason": "modified", "valid_to_commit": "fedcba987654"}
    print_version(closed)
    print_version(closed, as_of=True)  # valid at the commit asked about, closed since
    heads = [line for line in capsys.readouterr().out.splitlines() if line.startswith("r:")]
    assert heads == ["r:c.py:3-7  method C.skip [deprecated: modified]", "r:c.py:3-7  method C.skip [later deprecated: modified]"]


def test_many_symbols_of_a_name_are_listed_without_their_code(monkeypatch, capsys):
    """`recalld symbol Command` in Django finds 63 classes: more than a few are listed by
    where they are, signature and provenance, and a line says how to narrow them."""
    from types import SimpleNamespace

    from recalld.daemon import commands

    def one(n: int) -> dict:  # type: ignore[type-arg]
        return {"repo": "r", "kind": "class", "deprecated": False, "valid_from_commit": "0123456789ab", "author": "A",
                "path": f"cmd{n}.py", "qualname": "Command", "signature": "class Command(Base)", "start_line": 1,
                "end_line": 3, "docstring": "", "text": "python class Command\nclass Command(Base):\n    pass"}  # fmt: skip

    args = SimpleNamespace(repo="r", path=None, json=False, as_of=None)
    ctx = SimpleNamespace(daemon=lambda: None, registry=SimpleNamespace(all=lambda: []))
    for count in (commands.VERSIONS_IN_FULL, commands.VERSIONS_IN_FULL + 1):
        monkeypatch.setattr(commands, "_symbol_versions", lambda *a, count=count: [one(n) for n in range(count)])
        commands.symbol(ctx, args)
        printed = capsys.readouterr().out.splitlines()
        code = [line for line in printed if line == "    class Command(Base):"]
        if count == commands.VERSIONS_IN_FULL:
            assert len(code) == count and "found, listed" not in printed[-1]
        else:
            assert code == [] and printed[:3] == ["r:cmd0.py:1-3  class Command", "    class Command(Base)",
                                                  "    since 01234567 by A"]  # fmt: skip
            assert printed[-1] == "(6 found, listed without their code: --path or --kind for fewer, --json for all of it)"


def test_test_code_is_kept_left_out_or_alone_as_asked(git_repo, harness, app):
    """Tests are named as what they test (``test_parse_config_file``, ``it("parses the
    config file")``) and outrank it for many a query: ``tests="exclude"`` finds the code
    itself, ``"only"`` the tests; task memories are no test code."""
    app.registry.add("r", str(git_repo.path), "main")
    git_repo.write("conf/settings.py", V1)
    git_repo.write("tests/test_settings.py", "def test_parse_config_file():\n    assert parse_config_file('x')\n")
    git_repo.write("web/config.spec.ts", "describe('config', () => {\n  it('parses the config file', () => {});\n});\n")
    git_repo.commit("settings and their tests")
    harness.sync(git_repo)
    paths = {r["path"] for r in find(app, "parse config file", types=(), limit=50)}
    assert {"conf/settings.py", "tests/test_settings.py", "web/config.spec.ts", None} <= paths
    code = find(app, "parse config file", types=(), tests="exclude", limit=50)
    assert {r["path"] for r in code} == {"conf/settings.py", ".", None}  # the project memory, the task memory
    assert names(find(app, "parse config file", tests="exclude", limit=1)) == ["parse_config_file"]
    only = {(r["path"], r["qualname"]) for r in find(app, "parse config file", tests="only", limit=50)}
    assert ("tests/test_settings.py", "test_parse_config_file") in only
    assert ("web/config.spec.ts", '"config"."parses the config file"') in only
    assert {path for path, _ in only} == {"tests/test_settings.py", "web/config.spec.ts"}
    with pytest.raises(RecalldError, match="unknown tests filter 'none'"):
        find(app, "x", tests="none")


def test_test_code_ranks_below_code_of_like_score(git_repo, harness, app):
    """A test's fused score is weighted (search.test_weight, 0.9): the code it tests comes
    first where the test alone would. Not when the query names the test or speaks of
    tests; 1 ranks tests as code."""
    app.registry.add("r", str(git_repo.path), "main")
    git_repo.write("conf/settings.py", V1)
    git_repo.write("tests/test_settings.py", "def test_parse_config_file():\n"
                   "    assert parse_config_file('config file') == parse_config_file('config file')\n")
    git_repo.commit("settings and their tests")
    harness.sync(git_repo)
    as_code = SearchApp.__new__(SearchApp)
    as_code.__dict__.update(app.__dict__)
    as_code.config = Config(home=app.config.home, config_path=app.config.config_path,
                            values=validate({"search": {"test_weight": 1}}))
    even = find(as_code, "parse config file", limit=5)
    assert names(even)[:2] == ["test_parse_config_file", "parse_config_file"]  # the test alone would lead
    weighted = find(app, "parse config file", limit=5)
    assert names(weighted)[0] == "parse_config_file" and "test_parse_config_file" in names(weighted)[1:]
    score = {r["qualname"]: r["score"] for r in weighted}
    assert score["test_parse_config_file"] == pytest.approx(0.9 * even[0]["score"], abs=1e-6)
    assert score["parse_config_file"] == even[1]["score"]
    assert [r["score"] for r in weighted] == sorted((r["score"] for r in weighted), reverse=True)
    # the code beyond the first place fetched: asked for one, the code comes
    assert names(find(app, "parse config file", limit=1)) == ["parse_config_file"]
    # a query of tests ranks them by score alone; a named test leads whatever its weight
    for about_tests in ("tests of parse config file", "parse config file unit test", "Testing: parse config file"):
        assert find(app, about_tests, limit=5) == find(as_code, about_tests, limit=5)
    assert find(app, "parse config file", limit=5) != even
    assert names(find(app, "test_parse_config_file", limit=2))[0] == "test_parse_config_file"
    assert find(app, "test_parse_config_file", limit=1)[0]["score"] > 1


def test_as_of_gives_the_language_and_text_the_code_had_then(git_repo, harness, app):
    """Code unchanged to the letter keeps its memory, written again in place where what
    lies outside it changed: a C header that C++ written into it reads as C++. As of the
    earlier commit, an answer gives the language and text the code had there."""
    app.registry.add("r", str(git_repo.path), "main")
    definition = "/* Counts the words. */\nint count_words(const char *text)\n{\n    return 0;\n}\n"
    commits = []
    for tail in ("", "namespace geo {\nclass P {};\n}\n"):
        git_repo.write("words.h", definition + tail)
        commits.append(git_repo.commit("words"))
        harness.sync(git_repo)

    def hit(as_of: str | None) -> dict[str, Any]:
        (found,) = [r for r in find(app, "count words", as_of=as_of, limit=50) if r["qualname"] == "count_words"]
        return found

    now, then = hit(None), hit(commits[0])
    assert now["id"] == then["id"]  # one memory, written again in place
    assert (now["language"], then["language"]) == ("cpp", "c")
    assert now["text"].startswith("cpp function count_words") and then["text"].startswith("c function count_words")
    assert then["docstring"] == now["docstring"] == "Counts the words."
    assert hit(commits[1])["text"] == now["text"]


def test_an_outline_lists_a_files_symbols_in_order_now_and_as_of_a_commit(history, app):
    from recalld.daemon.memories import outline
    from recalld.ingest.errors import NotFoundError

    (file,) = outline(app, "r", "conf/settings.py")["files"]
    assert (file["path"], file["language"], file["doc"]) == ("conf/settings.py", "python", "Configuration.")
    assert [(s["kind"], s["qualname"], s["start_line"], s["end_line"], s["doc"]) for s in file["symbols"]] == [
        ("function", "parse_config_file", 4, 6, "Read the settings."), ("class", "HTTPServerPool", 9, 11, ""),
        ("method", "HTTPServerPool.acquire_connection", 10, 11, ""),
    ]  # fmt: skip
    then = outline(app, "r", "./conf/settings.py", as_of_text=history["c1"])["files"][0]["symbols"]
    assert [(s["qualname"], s["start_line"]) for s in then] == [
        ("parse_config_file", 4), ("legacy_loader", 9), ("HTTPServerPool", 13),
        ("HTTPServerPool.acquire_connection", 14),
    ]  # fmt: skip
    assert [f["path"] for f in outline(app, "r", "conf")["files"]] == ["conf/settings.py"]  # a directory
    (go,) = outline(app, "r", "**/*.go")["files"]  # a glob
    assert [(s["qualname"], s["doc"]) for s in go["symbols"]] == [("StartServer", "StartServer listens.")]
    notes: list[str] = []
    first = outline(app, "r", "**", limit=2, notes=notes)
    assert (first["symbols"], first["truncated"]) == (2, True)
    assert notes == ["2 of 4 symbols listed, 1 more file not: ask for a narrower path or a higher limit"]
    assert [f["path"] for f in first["files"]] == ["conf/settings.py"]  # the files after the cut are not listed
    with pytest.raises(NotFoundError, match="no memories of 'docs/' in r: no file is there or matches it at the"
                       f" indexed commit {history['c4'][:8]}"):  # fmt: skip
        outline(app, "r", "docs/")
    with pytest.raises(NotFoundError, match="README.md' in r: the sync skipped the file there at the indexed commit"
                       f" {history['c4'][:8]}: unsupported language"):  # fmt: skip
        outline(app, "r", "README.md")
    with pytest.raises(NotFoundError, match="as of .*: not there then$"):
        outline(app, "r", "README.md", as_of_text=history["c1"])
    with pytest.raises(RecalldError, match="name a file, a directory or a glob"):
        outline(app, "r", "  ")
    # as a person or an agent writes a path: ./ before it, doubled slashes; "." the whole repository
    assert outline(app, "r", "./conf//settings.py/")["files"] == [file]
    assert outline(app, "r", ".", limit=2) == {**first, "path": "."}


def test_an_outlines_doc_is_a_docs_first_sentence_cut_at_a_word():
    from recalld.daemon.memories import SUMMARY_CHARS, summary

    assert summary("Reads the file.  Then closes it.\n\nMore.") == "Reads the file."
    assert summary("Reads the\nwhole file\n\nMore.") == "Reads the whole file"
    assert summary("requests.adapters\n~~~~~~~~~~~~~~~~~\n\nThis module holds the adapters. More.") == (
        "This module holds the adapters.")  # a reStructuredText title passed over
    assert summary("=======\nRouting\n=======") == "Routing" and summary("a --- b") == "a --- b"
    long = summary("word " * 100)
    assert len(long) <= SUMMARY_CHARS and long.endswith("word…")


def test_an_outline_of_a_file_the_sync_skipped_says_why(git_repo, harness, app):
    from recalld.daemon.memories import outline
    from recalld.ingest.errors import NotFoundError

    app.registry.add("r", str(git_repo.path), "main")
    git_repo.write("api/types.go", "// Code generated by protoc-gen-go. DO NOT EDIT.\n\npackage api\n\nfunc A() {}\n")
    git_repo.write("vendor/lib/x.go", "package lib\n\nfunc X() {}\n")
    git_repo.write("src/main.go", "package main\n\nfunc main() {}\n")
    (git_repo.path / "src" / "link.go").symlink_to("main.go")
    git_repo.commit("one")
    harness.sync(git_repo)
    for path, reason in (("api/types.go", "generated"), ("vendor/lib/x.go", "excluded"), ("src/link.go", "symlink")):
        with pytest.raises(NotFoundError, match=f"skipped the file there at the indexed commit .{{8}}: {reason}$"):
            outline(app, "r", path)
    assert [f["path"] for f in outline(app, "r", "src")["files"]] == ["src/main.go"]
    # a directory or a glob of which the sync read nothing: why, file by file
    for path, said in (("vendor", "the one file there, vendor/lib/x.go, at the indexed commit .{8}: excluded$"),
                       ("api/", "the one file there, api/types.go, .*: generated$"), ("**/types.go", ": generated$"),
                       ("src/*.txt", "no file is there or matches it"), ("nowhere/", "no file is there")):  # fmt: skip
        with pytest.raises(NotFoundError, match=said):
            outline(app, "r", path)
    git_repo.write("vendor/lib/y.go", "package lib\n")
    git_repo.write("vendor/lib/logo.png", b"\x89PNG\r\n\x1a\n\0\0")
    git_repo.commit("two")
    harness.sync(git_repo)
    with pytest.raises(NotFoundError, match=r"skipped the 3 files there at the indexed commit .{8}: 3 excluded$"):
        outline(app, "r", "vendor/lib")
    with pytest.raises(NotFoundError, match="no symbol 'A' in r at api/types.go: the sync skipped .*: generated$"):
        get_symbol(app, "r", "A", path="api/types.go")
    with pytest.raises(NotFoundError, match="no symbol 'other' in r at src/main.go$"):  # the file is held
        get_symbol(app, "r", "other", path="src/main.go")


def test_an_outline_of_a_file_read_in_part_says_so_until_it_is_read_whole(git_repo, harness, app):
    """A syntax error hides what follows it from an outline (here the class it breaks, and
    its method): the outline said nothing of it, and an agent took the symbols for all."""
    from recalld.daemon.memories import outline

    app.registry.add("r", str(git_repo.path), "main")
    broken = "def a():\n    pass\n\nclass B(:\n    def m(self):\n        return 1\n\ndef c():\n    pass\n"
    git_repo.write("x.py", broken)
    git_repo.write("y.py", "def y():\n    pass\n")
    git_repo.commit("one")
    harness.sync(git_repo)
    notes: list[str] = []
    files = {f["path"]: f for f in outline(app, "r", "*.py", notes=notes)["files"]}
    partly = "1 syntax error(s): symbols read around them"
    assert files["x.py"]["read_partly"] == partly and "read_partly" not in files["y.py"]
    assert notes == [f"x.py was read in part ({partly}): its outline may lack symbols"]
    git_repo.write("x.py", broken.replace("class B(:", "class B:"))
    git_repo.commit("fixed")
    harness.sync(git_repo)
    notes.clear()
    (whole,) = outline(app, "r", "x.py", notes=notes)["files"]
    assert "read_partly" not in whole and notes == []
    assert "B.m" in [s["qualname"] for s in whole["symbols"]]


def test_as_of_gives_the_language_a_linguist_attribute_named_then(git_repo, harness, app):
    """A header that a ``.gitattributes`` named C++ and then no more keeps its memories
    (their code is the same), written again in place as C: as of the commit that named
    it C++, an answer gives it as C++, as the sync read it there."""
    app.registry.add("r", str(git_repo.path), "main")
    git_repo.write("include/point.h", "struct Point {\n    int x;\n};\n\nint point_norm(struct Point p);\n")
    commits = []
    for attributes in ("include/*.h linguist-language=C++\n", "include/*.h text\n"):
        git_repo.write(".gitattributes", attributes)
        commits.append(git_repo.commit("attributes"))
        harness.sync(git_repo)

    def read_as(as_of: str | None) -> tuple[str, str]:
        (hit,) = get_symbol(app, "r", "point_norm", as_of_text=as_of)
        return hit["language"], hit["text"].split(" ", 1)[0]

    assert [read_as(c) for c in (*commits, None)] == [("cpp", "cpp"), ("c", "c"), ("c", "c")]
    # where the attributes are not honoured ([index] honour_gitattributes), as a sync then reads it
    from recalld.daemon.asof import LinesAt
    from recalld.ingest.gitrepo import GitRepository

    points = [p for p in harness.memories() if p.payload["qualname"] == "point_norm"]
    for honoured, language in ((True, "cpp"), (False, "c")):
        at = LinesAt(GitRepository(str(git_repo.path)), commits[0], repo="r", branch="main", attributes=honoured)
        assert [p.payload["language"] for p in at(points)] == [language]
