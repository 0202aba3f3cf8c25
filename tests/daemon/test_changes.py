"""What changed between two indexed states (``daemon/changes.py``) on both store adapters:
a symbol added, modified (its doc alone, its signature), renamed, moved with its file, and
removed, paired by lineage; a path, a limit, an until, and bad input."""

from __future__ import annotations

import hashlib
import re
import subprocess
from collections.abc import Callable

import pytest

from recalld.daemon.changes import changes_between
from recalld.ingest.errors import NotFoundError, RecalldError
from recalld.ingest.gitrepo import GitRepository
from tests.conftest import GitRepo
from tests.daemon.test_search import app, history  # noqa: F401 - the fixtures
from tests.ingest.conftest import harness  # noqa: F401 - the fixture, on both store adapters

A1 = '''class Config:
    def load(self, path):
        """Read the file."""
        return open(path).read()


def helper(x):
    return x * 2
'''
A2 = A1.replace("Read the file.", "Read the whole file.").replace("def helper(x):", "def helper(x, y=1):")
B1 = "def old_name(items):\n    total = 0\n    for item in items:\n        total += item\n    return total\n"
B2 = B1.replace("old_name", "new_name")


def brief(answer) -> list[tuple]:  # type: ignore[no-untyped-def, type-arg]
    return [(c["change"], (c["was"] or {}).get("qualname"), (c["now"] or {}).get("qualname"), c.get("what"),
             c.get("reason")) for c in answer["changes"] if (c["now"] or c["was"])["kind"] != "module"]  # fmt: skip


@pytest.fixture
def steps(git_repo, harness, app):  # type: ignore[no-untyped-def]
    """c1: pkg/a.py, pkg/b.py, pkg/gone.py; c2: a.py moved to src/ with a doc and a
    signature edited, old_name renamed, gone.py deleted, c.py added."""
    app.registry.add("r", str(git_repo.path), "main")
    git_repo.write("pkg/a.py", A1)
    git_repo.write("pkg/b.py", B1)
    git_repo.write("pkg/gone.py", "def obsolete():\n    return 'no longer needed here'\n")
    c1 = git_repo.commit("one")
    harness.sync(git_repo)
    git_repo.remove("pkg/a.py")
    git_repo.write("src/a.py", A2)
    git_repo.write("pkg/b.py", B2)
    git_repo.remove("pkg/gone.py")
    git_repo.write("pkg/c.py", "def fresh():\n    return 1\n")
    c2 = git_repo.commit("two: move a.py to src/")
    harness.sync(git_repo)
    return {"c1": c1, "c2": c2}


def test_changes_since_a_commit_pair_a_symbols_versions_by_lineage(steps, app):
    answer = changes_between(app, "r", steps["c1"])
    assert (answer["from_commit"], answer["to_commit"], answer["commits"]) == (steps["c1"], steps["c2"], 1)
    assert [c["summary"] for c in answer["newest_commits"]] == ["two: move a.py to src/"]
    assert brief(answer) == [
        ("renamed", "old_name", "new_name", ["name"], None),
        ("added", None, "fresh", None, None),
        ("removed", "obsolete", None, None, "deleted"),
        ("moved", "Config", "Config", ["path", "code"], None),  # a method's doc is in its code
        ("moved", "Config.load", "Config.load", ["path", "doc"], None),
        ("moved", "helper", "helper", ["path", "signature", "code"], None),
    ]  # fmt: skip
    counts = answer["counts"]
    assert (counts["moved"], counts["renamed"], counts["added"], counts["removed"]) == (4, 1, 2, 2)  # modules too
    helper = next(c for c in answer["changes"] if (c["now"] or {}).get("qualname") == "helper")
    assert (helper["was"]["path"], helper["was"]["signature"]) == ("pkg/a.py", "def helper(x)")
    assert (helper["now"]["path"], helper["now"]["signature"], helper["now"]["commit"]) == (
        "src/a.py", "def helper(x, y=1)", steps["c2"])
    assert changes_between(app, "r", steps["c2"])["changes"] == []


def test_changes_over_several_commits_name_the_commit_that_wrote_each_version(git_repo, harness, app, monkeypatch,
                                                                             capsys):  # fmt: skip
    """One sync over Ann's and Bob's commits opens both versions at Bob's: each change names
    the commit its author wrote it in (``written_in``), and prints it beside the change."""
    from recalld.daemon.agent import print_changes

    app.registry.add("r", str(git_repo.path), "main")
    git_repo.write("a.py", "def base():\n    return 0\n")
    first = git_repo.commit("base")
    harness.sync(git_repo)
    monkeypatch.setenv("GIT_AUTHOR_NAME", "Ann")
    git_repo.write("a.py", "def base():\n    return 0\n\n\ndef by_ann():\n    return 1\n")
    ann = git_repo.commit("Ann's")
    monkeypatch.setenv("GIT_AUTHOR_NAME", "Bob")
    git_repo.write("b.py", "def by_bob():\n    return 2\n")
    git_repo.write("keep.py", "def kept():\n    return 3\n")
    bob = git_repo.commit("Bob's")
    harness.sync(git_repo)
    git_repo.git("mv", "keep.py", "kept.py")
    git_repo.write("b.py", "def by_bob():\n    return 20\n")
    monkeypatch.setenv("GIT_AUTHOR_NAME", "Cid")
    cid = git_repo.commit("Cid's: keep.py is kept.py, by_bob returns 20")
    monkeypatch.setenv("GIT_AUTHOR_NAME", "Dan")
    git_repo.write("c.py", "def by_dan():\n    return 4\n")
    dan = git_repo.commit("Dan's")
    harness.sync(git_repo)
    answer = changes_between(app, "r", first, until=bob)
    now = {c["now"]["qualname"]: c["now"] for c in answer["changes"] if c["now"]}
    assert {name: (side["commit"], side["written_in"]) for name, side in now.items() if name != "<module>"} == {
        "by_ann": (bob, ann), "by_bob": (bob, bob), "kept": (bob, bob)}
    print_changes(answer)
    out = capsys.readouterr().out
    assert f"  added     function by_ann  5-6  ({ann[:8]} Ann)\n" in out
    assert f"  added     function by_bob  1-2  ({bob[:8]} Bob)\n" in out
    # a file moved unchanged: its code was written before, by Bob (the move was Cid's)
    answer = changes_between(app, "r", bob)
    now = {c["now"]["qualname"]: c["now"] for c in answer["changes"] if c["now"]}
    assert {name: now[name]["written_in"] for name in ("kept", "by_bob", "by_dan")} == {
        "kept": bob, "by_bob": cid, "by_dan": dan}
    print_changes(answer)
    out = capsys.readouterr().out
    assert f"  moved     function kept  (from keep.py)  [path]  1-2  (code written in {bob[:8]} by Bob)\n" in out
    assert f"  modified  function by_bob  [code]  1-2  ({cid[:8]} Cid)\n" in out


def test_changes_under_a_path_keep_what_moved_in_or_out_of_it(steps, app):
    moved = brief(changes_between(app, "r", steps["c1"], path="src/"))
    assert [c[2] for c in moved] == ["Config", "Config.load", "helper"]
    assert [c[0] for c in brief(changes_between(app, "r", steps["c1"], path="pkg/a.py"))] == ["moved"] * 3
    assert brief(changes_between(app, "r", steps["c1"], path="./src")) == moved
    assert brief(changes_between(app, "r", steps["c1"], path="pkg/b.py")) == [
        ("renamed", "old_name", "new_name", ["name"], None)]
    first = changes_between(app, "r", steps["c1"], limit=2)
    assert (len(first["changes"]), first["truncated"], sum(first["counts"].values())) == (2, True, 10)


def test_changes_under_a_path_list_the_commits_that_changed_it(steps, git_repo, harness, app, capsys):  # noqa: F811
    """``changes --path`` listed every commit between as its newest; it lists those that
    changed the path (a file or a directory; a glob's directory), the count still of all."""
    git_repo.write("docs/notes.txt", "notes\n")
    git_repo.commit("three: docs only")
    git_repo.write("src/a.py", A2 + "\n\ndef later():\n    return 5\n")
    c4 = git_repo.commit("four: src again")
    harness.sync(git_repo)
    from recalld.daemon.agent import print_changes

    for path, read in (("src/", "src"), ("src/a.py", "src/a.py"), ("src/*.py", "src/*.py")):
        answer = changes_between(app, "r", steps["c1"], path=path)
        assert answer["commits"] == 3 and [c["commit"] for c in answer["newest_commits"]] == [c4, steps["c2"]]
        assert answer["commits_under"] == read
    assert [c["commit"] for c in changes_between(app, "r", steps["c2"], path="pkg/")["newest_commits"]] == []
    everything = changes_between(app, "r", steps["c1"])
    assert len(everything["newest_commits"]) == 3 and "commits_under" not in everything
    print_changes(changes_between(app, "r", steps["c1"], path="src/"))
    assert "  the newest that changed src:\n" in capsys.readouterr().out


def test_changes_until_an_earlier_commit_read_each_side_then(history, app):
    answer = changes_between(app, "r", history["c1"], history["c2"])
    assert answer["to_commit"] == history["c2"]
    assert brief(answer) == [
        ("modified", "parse_config_file", "parse_config_file", ["code"], None),
        ("removed", "legacy_loader", None, None, "removed"),
    ]  # fmt: skip
    # c4 reverted c2's edit: parse_config_file is c1's code again, the same memory
    assert brief(changes_between(app, "r", history["c1"])) == [("removed", "legacy_loader", None, None, "removed")]
    assert changes_between(app, "r", "2024-01-31", history["c2"])["from_commit"] == history["c1"]


def test_changes_since_a_commit_before_the_first_sync_are_refused(git_repo, harness, app):
    """A first sync at the tip holds the code from there on and the history before it as
    commits alone: a change since an earlier commit is not "everything added"."""
    app.registry.add("r", str(git_repo.path), "main")
    git_repo.write("a.py", "def a():\n    return 1\n")
    early = git_repo.commit("one")
    git_repo.write("b.py", "def b():\n    return 2\n")
    git_repo.commit("two")
    harness.sync(git_repo)
    with pytest.raises(RecalldError, match="the index holds the code of repo 'r' from the first commit it synced on"):
        changes_between(app, "r", early)
    assert changes_between(app, "r", "HEAD")["changes"] == []
    # a symbol and a file asked of as of that commit: not "not there then", which a() was
    from recalld.daemon.memories import get_symbol, outline

    before = re.escape(f"as of {early}: before the repository's first sync (code memories start there)") + "$"
    with pytest.raises(NotFoundError, match=f"no symbol 'a' in r {before}"):
        get_symbol(app, "r", "a", as_of_text=early)
    with pytest.raises(NotFoundError, match=f"no memories of 'a.py' in r {before}"):
        outline(app, "r", "a.py", as_of_text=early)
    with pytest.raises(NotFoundError, match="no symbol 'c' in r as of HEAD: not there then$"):
        get_symbol(app, "r", "c", as_of_text="HEAD")


def test_bad_since_and_until_are_clear_errors(history, app):
    with pytest.raises(RecalldError, match="is not before"):
        changes_between(app, "r", history["c4"], history["c1"])
    with pytest.raises(RecalldError, match="never indexed at or before then"):
        changes_between(app, "r", "2001-01-01")
    with pytest.raises(RecalldError, match="^since .nosuchref.: no such commit"):
        changes_between(app, "r", "nosuchref")
    with pytest.raises(RecalldError, match="name a file"):
        changes_between(app, "r", history["c1"], path="  ")
    with pytest.raises(RecalldError, match="unknown repo"):
        changes_between(app, "nope", history["c1"])


def _object_beginning(git_repo: GitRepo, prefix: str, kind: str, text: Callable[[int], str]) -> str:
    """An object of ``kind`` written to ``git_repo``, of the first of ``text(0)``, ``text(1)``
    … whose id begins with ``prefix`` (some 65,000 hashes for four hex digits)."""
    for n in range(10_000_000):
        data = text(n).encode()
        if hashlib.sha1(f"{kind} {len(data)}\0".encode() + data).hexdigest().startswith(prefix):
            done = subprocess.run(["git", "hash-object", "-t", kind, "-w", "--stdin"], cwd=git_repo.path, input=data,
                                  capture_output=True, check=True)  # fmt: skip
            return done.stdout.decode().strip()
    raise AssertionError(f"no {kind} found beginning {prefix}")


def test_a_short_commit_id_that_begins_a_blobs_id_too_names_the_commit(history, app, git_repo):
    """A short id read as git reads a revision that names a commit: libgit2 refused one that
    began another object's id too as ambiguous, and the commit was "no such commit"."""
    c1, c2 = history["c1"], history["c2"]
    blob = _object_beginning(git_repo, c1[:4], "blob", lambda n: f"blob {n}\n")
    assert blob != c1 and blob[:4] == c1[:4]
    answer = changes_between(app, "r", c1[:4], c2[:7])
    assert (answer["since_commit"], answer["until_commit"]) == (c1, c2)
    assert changes_between(app, "r", f"{c1[:4].upper()}~0")["since_commit"] == c1
    # a second commit whose id begins alike (off the branch): which one is meant is not known
    tree = git_repo.git("rev-parse", f"{c1}^{{tree}}")
    other = _object_beginning(git_repo, c1[:4], "commit",
                              lambda n: f"tree {tree}\nauthor A <a@e> 0 +0000\ncommitter A <a@e> 0 +0000\n\n{n}\n")
    with pytest.raises(RecalldError, match=f"^since '{c1[:4]}': '{c1[:4]}' begins the ids of 2 commits "
                                           f"\\(({c1[:12]}, {other[:12]}|{other[:12]}, {c1[:12]})\\): give more"):
        changes_between(app, "r", c1[:4])
    assert changes_between(app, "r", c1[:12])["since_commit"] == c1


def test_changes_since_read_by_stamps_agree_with_both_states_compared_after_moves_back_and_forth(
    history, app, git_repo, harness
):
    """The changes since a commit to the indexed one are read from the versions opened
    after the sync that moved the branch there (``changes._since``); compared with the
    two states' memories side by side (as ``--until`` reads them), after resets that
    reopen and close versions again."""

    def both(since: str) -> tuple[dict, dict]:  # type: ignore[type-arg]
        tip = git_repo.head()
        quick, compared = changes_between(app, "r", since), changes_between(app, "r", since, tip)
        for answer in (quick, compared):
            answer.pop("until"), answer.pop("until_commit")
        return quick, compared

    c1, c2 = history["c1"], history["c2"]
    assert both(c1)[0] == both(c1)[1] and both(c2)[0] == both(c2)[1]  # c4 reopened c1's parse_config_file
    for commit in (c1, history["c4"], c2, c1, history["c4"]):
        git_repo.git("reset", "-q", "--hard", commit)
        harness.sync(git_repo)
        for since in (c1, c2, commit):
            if git_repo.git("merge-base", since, commit) == since:  # on the branch now
                quick, compared = both(since)
                assert quick == compared, (commit, since)
    assert brief(changes_between(app, "r", c2))[0][:2] == ("modified", "parse_config_file")  # c4 reverted c2's edit


def test_latest_commits_come_children_first_and_one_rewritten_away_is_marked(git_repo, harness, app, monkeypatch,
                                                                            capsys):  # fmt: skip
    """Six commits of one second (a rebase, ``git am``) and a child dated before its
    parent come out as ``git log`` shows them; a commit a reset took off the branch stays
    listed, marked."""
    from recalld.daemon.agent import print_recent
    from recalld.daemon.memories import recent_changes
    from tests.daemon.test_search import commit_at

    app.registry.add("r", str(git_repo.path), "main")
    git_repo.write("a.py", "def a():\n    return 1\n")
    commit_at(git_repo, monkeypatch, "2025-01-01T00:00:00Z", "init")
    for i in range(1, 7):
        git_repo.write(f"c{i}.py", f"def c{i}():\n    return {i}\n")
        commit_at(git_repo, monkeypatch, "2025-02-01T00:00:00Z", f"commit-{i}")
    git_repo.write("early.py", "def early():\n    return 0\n")
    commit_at(git_repo, monkeypatch, "2024-06-01T00:00:00Z", "backdated")
    git_repo.write("gone.py", "def gone():\n    return 0\n")
    commit_at(git_repo, monkeypatch, "2025-03-01T00:00:00Z", "rewritten away")
    harness.sync(git_repo)
    git_repo.git("reset", "-q", "--hard", "HEAD~1")
    harness.sync(git_repo)
    subjects = [c["subject"] for c in recent_changes(app, "r", limit=20)["changes"]]
    assert subjects == ["rewritten away", "backdated", *(f"commit-{i}" for i in range(6, 0, -1)), "init"]
    assert git_repo.git("log", "--format=%s").splitlines() == subjects[1:]
    print_recent(recent_changes(app, "r", limit=2))
    first, second = capsys.readouterr().out.splitlines()
    assert "rewritten away" in first and first.endswith(")  [no longer on the branch]")
    assert not second.endswith("]")


def test_an_absolute_path_inside_the_work_tree_is_read_from_its_root(steps, app, git_repo, tmp_path):
    """Agents' tools write absolute paths: outline, symbol, changes and search read one
    inside the repository (as registered, or through a symbolic link to it) from its
    root; one elsewhere, or one climbing above the top, is refused, as git refuses it."""
    from recalld.daemon.memories import get_symbol, outline
    from recalld.daemon.query import SearchRequest, search

    link = tmp_path / "link"
    link.symlink_to(git_repo.path)
    names = [s["qualname"] for f in outline(app, "r", "src/a.py")["files"] for s in f["symbols"]]
    assert names and "Config.load" in names
    for root in (git_repo.path, link):
        answer = outline(app, "r", f"{root}/src/a.py")
        assert [s["qualname"] for f in answer["files"] for s in f["symbols"]] == names
        assert outline(app, "r", str(root))["files"] == outline(app, "r", ".")["files"]
        for where in ("src/a.py", "src/", "src/*.py", "**/a.py"):  # a file, a directory, globs
            assert [s["path"] for s in get_symbol(app, "r", "helper", path=f"{root}/{where}")] == ["src/a.py"]
        assert brief(changes_between(app, "r", steps["c1"], path=f"{root}/pkg/b.py")) == [
            ("renamed", "old_name", "new_name", ["name"], None)
        ]
        found = search(app, SearchRequest("helper", repo="r", path_glob=f"{root}/src", limit=5))
        assert found and {f["path"] for f in found} == {"src/a.py"}
        # without --repo the work tree holding it names the repository (it matched no path of any)
        assert search(app, SearchRequest("helper", path_glob=f"{root}/src", limit=5)) == found
    outside = str(tmp_path / "other" / "src" / "a.py")
    refused = rf"{re.escape(repr(outside))} is outside the repository's work tree \({re.escape(str(git_repo.path))}\)"
    with pytest.raises(RecalldError, match=refused + rf": .*for its own {re.escape(repr(outside.strip('/')))}"):
        outline(app, "r", outside)
    for ask in (
        lambda where: get_symbol(app, "r", "helper", path=where),
        lambda where: changes_between(app, "r", steps["c1"], path=where),
        lambda where: search(app, SearchRequest("helper", repo="r", path_glob=where, limit=5)),
    ):
        with pytest.raises(RecalldError, match=refused):
            ask(outside)
        with pytest.raises(RecalldError, match=r"'\.\./src/a\.py' is outside the repository: write a path from"):
            ask("../src/a.py")
        assert ask("/") == ask(".") and ask("pkg/../src/a.py") == ask("src/a.py")
        assert ask(f"{git_repo.path}/../{git_repo.path.name}/src/a.py") == ask("src/a.py")  # out and in again
    with pytest.raises(RecalldError, match=rf"no registered repository's work tree holds {re.escape(repr(outside))}"):
        search(app, SearchRequest("helper", path_glob=outside, limit=5))  # without --repo
    # files there, not it: where it went (pkg/a.py → src/a.py)
    with pytest.raises(NotFoundError, match=r"no symbol 'helper' in r at pkg: 'helper' is now in src/a.py at line 7 "
                                            r"\(recalld symbol helper --repo r --path src/a.py\)$"):  # fmt: skip
        get_symbol(app, "r", "helper", path="pkg/")
    with pytest.raises(NotFoundError, match="at nowhere: no file is there"):
        get_symbol(app, "r", "helper", path="nowhere/")


def test_changes_under_a_path_the_index_holds_nothing_of_say_why(steps, git_repo, harness, app):  # noqa: F811
    git_repo.write("vendor/lib/x.py", "def vendored():\n    return 1\n")
    git_repo.write("pkg/c.py", "def fresh():\n    return 2\n")
    c3 = git_repo.commit("three: vendor a library")
    harness.sync(git_repo)
    answer = changes_between(app, "r", steps["c2"], path="vendor/")
    assert answer["changes"] == [] and answer["note"] == (
        f"the index holds nothing at vendor: the sync skipped the one file there, vendor/lib/x.py, at the indexed"
        f" commit {c3[:8]}: excluded"
    )
    answer = changes_between(app, "r", steps["c1"], path="pkg/gone.py")  # the change is listed: no note
    assert [c["change"] for c in answer["changes"]] == ["removed", "removed"] and "note" not in answer
    answer = changes_between(app, "r", steps["c2"], path="pkg/gone.py")  # gone before: where it went
    assert answer["changes"] == [] and answer["note"].endswith(f"no file is there or matches it at the indexed commit"
                                                                f" {c3[:8]}: it was deleted (commit {steps['c2'][:8]})")
    answer = changes_between(app, "r", steps["c2"], path="src/")  # held, unchanged: nothing to explain
    assert answer["changes"] == [] and "note" not in answer


def test_changes_to_the_indexed_commit_say_when_the_memories_lag_the_branch(steps, git_repo, app):  # noqa: F811
    """Changes since the indexed commit while commits wait for a sync: "no change", and a
    note that says how far behind the memories are (it said nothing of them)."""
    indexed = git_repo.head()
    git_repo.write("pkg/later.py", "def later():\n    return 3\n")
    git_repo.commit("four: not synced yet")
    answer = changes_between(app, "r", indexed)
    assert answer["changes"] == [] and answer["note"] == (
        "r: memories 1 commit behind main (recalld sync r, or keep recalld serve running)")
    assert "note" not in changes_between(app, "r", steps["c1"], until=indexed)  # to a commit asked for: as it was


def test_a_rename_of_a_symbol_longer_than_its_embedded_text_is_its_name_alone(git_repo, harness, app):  # noqa: F811
    """The stored text is cut at ``max_chars``: where one was, the whole code of both versions is
    read from git, so a pure rename is ``[name]`` at any length, and code edited past the cut ``code``."""
    from recalld.ingest.files import IndexOptions

    max_chars = IndexOptions().max_embed_chars
    body = "".join(f"    value_{n} = items[{n}] * {n} + len(items)\n" for n in range(max_chars // 30))
    app.registry.add("r", str(git_repo.path), "main")
    short = "\n\n\ndef short_one(x):\n    return x\n"
    git_repo.write("big.py", f"def long_one(items):\n{body}    return long_one(value_1)\n\n\n"
                             f"def long_edit(items):\n{body}    return value_1{short}")
    first = git_repo.commit("long")
    harness.sync(git_repo)
    (held,) = [m for m in harness.memories() if m.payload["qualname"] == "long_one"]
    assert len(held.payload["text"]) == max_chars  # cut
    git_repo.write("big.py", f"def long_two(items):\n{body}    return long_two(value_1)\n\n\n"
                             f"def long_edited(items):\n{body}    return value_2{short.replace('_one', '_two')}")
    git_repo.commit("rename")
    harness.sync(git_repo)
    assert brief(changes_between(app, "r", first)) == [
        ("renamed", "long_one", "long_two", ["name"], None),
        ("renamed", "long_edit", "long_edited", ["name", "code"], None),  # past the cut
        ("renamed", "short_one", "short_two", ["name"], None),
    ]  # fmt: skip


def test_a_move_stays_a_move_after_a_deletion_of_its_file_is_reverted(git_repo, harness, app):  # noqa: F811
    """``git mv a.py b.py``, then ``git rm b.py``, then its revert: what comes back
    continues the lineage it had, so the move reads as a move still, not as a removal
    and an addition."""
    app.registry.add("r", str(git_repo.path), "main")
    git_repo.write("a.py", B1)
    c0 = git_repo.commit("a")
    harness.sync(git_repo)
    git_repo.git("mv", "a.py", "b.py")
    moved = git_repo.commit("mv")
    harness.sync(git_repo)
    assert brief(changes_between(app, "r", c0)) == [("moved", "old_name", "old_name", ["path"], None)]
    git_repo.git("rm", "-q", "b.py")
    git_repo.commit("rm")
    harness.sync(git_repo)
    git_repo.git("revert", "--no-edit", "HEAD")
    harness.sync(git_repo)
    assert brief(changes_between(app, "r", c0, until=moved)) == [("moved", "old_name", "old_name", ["path"], None)]
    assert brief(changes_between(app, "r", c0)) == [("moved", "old_name", "old_name", ["path"], None)]


def test_changes_since_a_commit_synced_before_an_amend_compare_that_state(git_repo, harness, app):  # noqa: F811
    """The commit ``status`` gave before an amend (or a rebase, a force-push) is no longer
    on the branch, but the index synced it: ``changes --since`` it and ``--as-of`` it
    answer from the state the index held there; one it never synced is still refused."""
    from recalld.daemon.asof import states_at_commit

    app.registry.add("r", str(git_repo.path), "main")
    git_repo.write("a.py", B1)
    git_repo.commit("a")
    harness.sync(git_repo)
    git_repo.write("b.py", "def fresh():\n    return 1\n")
    synced = git_repo.commit("b")
    harness.sync(git_repo)
    git_repo.write("b.py", "def fresh():\n    return 2\n")
    git_repo.git("commit", "-q", "--amend", "-a", "-m", "b, amended")
    harness.sync(git_repo)
    answer = changes_between(app, "r", synced)
    assert (answer["from_commit"], answer["commits"]) == (synced, 1)
    assert brief(answer) == [("modified", "fresh", "fresh", ["code"], None)]
    git = GitRepository(git_repo.path)
    assert states_at_commit(app.store, git, repo="r", branch="main", rev=synced).commit == synced
    git_repo.git("checkout", "-q", "-b", "side")
    git_repo.write("c.py", "def side():\n    return 3\n")
    unsynced = git_repo.commit("never synced")
    git_repo.git("checkout", "-q", "main")
    with pytest.raises(RecalldError, match="is not on branch 'main'"):
        changes_between(app, "r", unsynced)


def test_the_latest_changes_of_a_repository_never_synced_say_so(git_repo, harness, app):  # noqa: F811
    """``recalld changes`` of a registration no sync has read printed nothing, exit 0."""
    from recalld.daemon.memories import recent_changes

    app.registry.add("r", str(git_repo.path), "main")
    git_repo.write("a.py", "def a():\n    return 1\n")
    git_repo.commit("one")
    assert recent_changes(app, "r") == {"repo": "r", "source": "structural", "changes": [],
                                        "note": "the repository was never synced (recalld sync)"}  # fmt: skip
    harness.sync(git_repo)
    assert "note" not in recent_changes(app, "r")


def test_a_name_only_extraction_marks_differently_is_no_signature_change():
    """A Java method named as its class was ``EditorContainer()#2`` and is now named by its
    return type (``EditorContainer(): void``): the same declared name, so its unchanged
    signature is not read as changed by a rename."""
    from recalld.daemon.changes import _Cut, _what

    was = {"path": "E.java", "qualname": "EditorContainer.EditorContainer()#2", "kind": "method",
           "signature": "void EditorContainer()", "docstring": "", "content_hash": "h", "text": "x"}  # fmt: skip
    now = {**was, "qualname": "EditorContainer.EditorContainer(): void"}
    assert _what(was, now, _Cut(None, "a", "b", max_chars=1000)) == ["name"]  # type: ignore[arg-type]
    renamed = {**was, "qualname": "EditorContainer.open(): void", "signature": "void open()", "content_hash": "i"}
    assert _what(was, renamed, _Cut(None, "a", "b", max_chars=1000)) == ["name"]  # type: ignore[arg-type]
