"""Who last changed a symbol's code, as git blame reads it (``symbol --blame``, the API's
and MCP's ``blame``). A version's ``author`` is the author of the sync's commit that first
saw it: for what a repository's first sync found, the tip's author, who may not have
written it. ``last_changed`` names the latest commit that wrote one of its lines."""

from __future__ import annotations

import subprocess
import time
from pathlib import Path

import pytest

from recalld.daemon.commands import last_changed_line, print_version
from recalld.daemon import blame
from recalld.daemon.blame import BLAMED_MAX
from recalld.daemon.memories import get_symbol
from recalld.ingest import gitblame
from recalld.ingest.gitrepo import GitRepository
from recalld.ingest.plan import Scope
from recalld.ingest.records import task_memory_id
from tests.conftest import GitRepo
from tests.daemon.test_search import SearchApp, commit_at
from tests.ingest.conftest import harness  # noqa: F401 - the fixture, on both store adapters

FIRST = "def kept(x):\n    return x\n\n\ndef edited(x):\n    return x\n"
SECOND = "def kept(x):\n    return x\n\n\ndef edited(x):\n    return x * 2\n"


@pytest.fixture
def app(harness, tmp_path):  # type: ignore[no-untyped-def]  # noqa: F811
    a = SearchApp(harness, tmp_path)
    yield a
    a.registry.close()


def two_authors(git_repo: GitRepo, monkeypatch: pytest.MonkeyPatch) -> tuple[str, str]:
    """Ann writes both functions, Bob then edits ``edited``."""
    git_repo.write("m.py", FIRST)
    monkeypatch.setenv("GIT_AUTHOR_NAME", "Ann")
    ann = commit_at(git_repo, monkeypatch, "2024-01-10T12:00:00+00:00", "both functions")
    git_repo.write("m.py", SECOND)
    monkeypatch.setenv("GIT_AUTHOR_NAME", "Bob")
    bob = commit_at(git_repo, monkeypatch, "2024-02-10T12:00:00+00:00", "edited doubles")
    return ann, bob


def last_change(git: GitRepository, commit: str, path: str, start: int, end: int):  # type: ignore[no-untyped-def]
    """The latest commit that wrote one of lines ``start`` to ``end`` of ``path`` at
    ``commit``, as an answer reads it from the blame of those lines."""
    return git.last_change_in(git.blame_hunks(commit, path, start, end) or [], start, end)


def test_last_change_is_the_latest_commit_that_wrote_the_lines(git_repo, monkeypatch):
    ann, bob = two_authors(git_repo, monkeypatch)
    git = GitRepository(git_repo.path)
    assert last_change(git, bob, "m.py", 1, 2).id == ann  # kept: Ann's lines
    assert last_change(git, bob, "m.py", 5, 6).id == bob  # edited: Bob's last line
    assert last_change(git, bob, "m.py", 5, 6).author.startswith("Bob")
    assert last_change(git, bob, "m.py", 1, 6).id == bob  # the module: the latest of its lines
    assert last_change(git, ann, "m.py", 5, 6).id == ann  # as the file was at Ann's commit
    # nothing to say: no such file, a directory, lines past the end (libgit2 made up a hunk), a bad commit
    git_repo.write("pkg/a.py", "x = 1\n")
    tip = git_repo.commit("a package")
    assert last_change(git, tip, "nope.py", 1, 1) is None
    assert last_change(git, tip, "pkg", 1, 1) is None
    assert last_change(git, tip, "m.py", 7, 8) is None and last_change(git, tip, "m.py", 0, 1) is None
    assert last_change(git, "0" * 40, "m.py", 1, 1) is None
    # commits of one second: the latest by ancestry (by id, any of the eight)
    for n in range(8):  # each adds a line: eight commits blamed, all of one second
        git_repo.write("s.py", "".join(f"v{i} = {i}\n" for i in range(n + 1)))
        later = commit_at(git_repo, monkeypatch, "2024-05-01T00:00:00+00:00", f"s {n}")
    assert last_change(git, later, "s.py", 1, 8).id == later


def test_a_first_sync_says_the_tip_and_blame_who_wrote_it(git_repo, harness, app, monkeypatch):  # noqa: F811
    """Synced first at Bob's commit: both versions are first indexed there, and the
    history read names who wrote each (``kept`` Ann, ``edited`` Bob); blame says so of
    their lines. Without blame the answer has no ``last_changed``."""
    app.registry.add("r", str(git_repo.path), "main")
    ann, bob = two_authors(git_repo, monkeypatch)
    harness.sync(git_repo)
    (kept,) = get_symbol(app, "r", "kept", blame=True)
    (edited,) = get_symbol(app, "r", "edited", blame=True)
    assert (kept["change"], kept["valid_from_commit"]) == ("indexed", bob) and kept["author"].startswith("Ann")
    assert (edited["change"], edited["valid_from_commit"]) == ("indexed", bob) and edited["author"].startswith("Bob")
    assert kept["task_id"] == task_memory_id(Scope("r", "main"), ann) != edited["task_id"]
    assert kept["last_changed"]["commit"] == ann and kept["last_changed"]["author"].startswith("Ann")
    assert kept["last_changed"]["summary"] == "both functions"
    assert edited["last_changed"]["commit"] == bob and edited["last_changed"]["time"] == 1707566400
    assert "last_changed" not in get_symbol(app, "r", "kept")[0]
    # the line symbol --blame prints
    assert last_changed_line(kept["last_changed"]) == (
        f"last changed {ann[:8]} on 2024-01-10 by Ann <{kept['last_changed']['author'].split('<')[1]}: both functions"
    )
    assert last_changed_line(None).startswith("last changed: git blame cannot say")


def test_blame_follows_the_lines_a_later_sync_moved(git_repo, harness, app, monkeypatch):  # noqa: F811
    """Code above ``edited`` grows: its memory is written again in place with its new
    lines, and blame reads those lines at the indexed commit (Bob's still)."""
    app.registry.add("r", str(git_repo.path), "main")
    _ann, bob = two_authors(git_repo, monkeypatch)
    harness.sync(git_repo)
    git_repo.write("m.py", "import os\n\n\n" + SECOND)
    monkeypatch.setenv("GIT_AUTHOR_NAME", "Cid")
    cid = commit_at(git_repo, monkeypatch, "2024-03-10T12:00:00+00:00", "an import")
    harness.sync(git_repo)
    (edited,) = get_symbol(app, "r", "edited", blame=True)
    assert edited["start_line"] == 8 and edited["last_changed"]["commit"] == bob
    (module,) = get_symbol(app, "r", "m.py", kind="module", blame=True)
    assert module["last_changed"]["commit"] == cid


def test_blame_is_for_the_versions_valid_and_the_first_few(git_repo, harness, app, monkeypatch, capsys):  # noqa: F811
    app.registry.add("r", str(git_repo.path), "main")
    git_repo.write("m.py", FIRST)
    ann = git_repo.commit("both functions")
    harness.sync(git_repo)  # synced at each commit: the first version of edited is closed
    git_repo.write("m.py", SECOND)
    bob = git_repo.commit("edited doubles")
    harness.sync(git_repo)
    versions = get_symbol(app, "r", "edited", include_deprecated=True, blame=True)
    assert [("last_changed" in v, v["deprecated"]) for v in versions] == [(True, False), (False, True)]
    # as of a commit: the version valid then, blamed there
    (then,) = get_symbol(app, "r", "edited", as_of_text=ann, blame=True)
    assert then["valid_from_commit"] == ann and then["last_changed"]["commit"] == ann
    git_repo.write("m.py", "import os\n\n\n" + SECOND)
    cid = git_repo.commit("an import")
    harness.sync(git_repo)
    (module_then,) = get_symbol(app, "r", "m.py", kind="module", as_of_text=bob, blame=True)
    assert module_then["end_line"] == 6 and module_then["last_changed"]["commit"] == bob
    assert get_symbol(app, "r", "m.py", kind="module", blame=True)[0]["last_changed"]["commit"] == cid
    # more live versions than are blamed: a note says so
    git_repo.write("many.py", "".join(f"class C{i}:\n    def run(self):\n        return {i}\n\n\n"
                                      for i in range(BLAMED_MAX + 2)))
    git_repo.commit("many")
    harness.sync(git_repo)
    notes = []
    runs = get_symbol(app, "r", "run", blame=True, notes=notes)
    assert sum("last_changed" in v for v in runs) == BLAMED_MAX and len(runs) == BLAMED_MAX + 2
    assert notes == [f"last_changed is given for the first {BLAMED_MAX} of {BLAMED_MAX + 2} versions: ask with a path"
                     " for others"]
    (written_as_cpp,) = get_symbol(app, "r", "C3::run", blame=True)  # read as C3.run, blamed as asked
    assert written_as_cpp["qualname"] == "C3.run" and "last_changed" in written_as_cpp
    # printed below the provenance line
    print_version(get_symbol(app, "r", "kept", blame=True)[0], code=False)
    printed = capsys.readouterr().out.splitlines()
    assert printed[2].startswith(f"    since {ann[:8]} ") and printed[3].startswith(f"    last changed {ann[:8]} on ")


def git_command(tmp_path: Path, body: str) -> str:
    """A stand-in for the git command: a shell script of ``body``."""
    script = tmp_path / "fake-git"
    script.write_text(f"#!/bin/sh\n{body}\n")
    script.chmod(0o755)
    return str(script)


@pytest.fixture(params=["command", "no git", "git refuses"])
def blamed_by(request, tmp_path, monkeypatch):  # type: ignore[no-untyped-def]
    """git's command blames; or it cannot (none on the PATH; one that refuses the
    repository) and libgit2 does: the same runs of lines either way."""
    if request.param == "no git":
        monkeypatch.setattr(gitblame, "GIT", str(tmp_path / "no-such-git"))
    elif request.param == "git refuses":
        refuses = git_command(tmp_path, "echo 'fatal: detected dubious ownership' >&2; exit 128")
        monkeypatch.setattr(gitblame, "GIT", refuses)
    return request.param


def test_blame_hunks_are_each_run_of_lines_and_who_wrote_it(git_repo, monkeypatch, blamed_by):
    ann, bob = two_authors(git_repo, monkeypatch)
    git = GitRepository(git_repo.path)
    assert git.blame_hunks(bob, "m.py") == [(1, 5, ann), (6, 6, bob)]  # the whole file
    assert git.blame_hunks(bob, "m.py", 2, 3) == [(2, 3, ann)]
    assert git.blame_hunks(ann, "m.py") == [(1, 6, ann)]
    git_repo.write("empty.py", "")
    tip = git_repo.commit("an empty file")
    assert git.blame_hunks(tip, "empty.py") is None and git.blame_hunks(tip, "nope.py") is None
    assert git.latest_commit([ann, bob, ann]).id == bob and git.latest_commit([]) is None
    # a file renamed, a line added: its other lines are still the first author's
    git_repo.git("mv", "m.py", "n.py")
    git_repo.write("n.py", SECOND + "\n\ndef added():\n    return 3\n")
    monkeypatch.setenv("GIT_AUTHOR_NAME", "Cid")
    cid = commit_at(git_repo, monkeypatch, "2024-03-10T12:00:00+00:00", "renamed, one added")
    assert git.blame_hunks(cid, "n.py") == [(1, 5, ann), (6, 6, bob), (7, 10, cid)]


def test_the_spans_of_a_file_are_blamed_at_once_or_where_one_is_past_its_end_each_alone(git_repo, monkeypatch):
    """``last_changes``: one blame over all spans; where that is no lines of the file (a
    span past its end), each span's own, the one past the end none."""
    ann, bob = two_authors(git_repo, monkeypatch)
    git = GitRepository(git_repo.path)
    asked: list[tuple[object, object]] = []
    blame_hunks = GitRepository.blame_hunks

    def counted(self, commit, path, start=None, end=None, **kw):  # type: ignore[no-untyped-def]
        asked.append((start, end))
        return blame_hunks(self, commit, path, start, end, **kw)

    monkeypatch.setattr(GitRepository, "blame_hunks", counted)
    changes = git.last_changes(bob, "m.py", [(1, 2), (6, 6)], lambda: 10.0)
    assert [c.id if c else None for c in changes] == [ann, bob] and asked == [(1, 6)]
    asked.clear()
    changes = git.last_changes(bob, "m.py", [(1, 2), (6, 60)], lambda: 10.0)
    assert [c.id if c else None for c in changes] == [ann, None] and asked == [(1, 60), (1, 2), (6, 60)]


def test_git_blame_reads_the_repository_it_is_given(git_repo, monkeypatch, tmp_path):
    """Not the one a hook's environment points git at: git's command answers (it would
    find no objects in the empty directory), where libgit2 would have to."""
    ann, _bob = two_authors(git_repo, monkeypatch)
    (tmp_path / "objects").mkdir()
    monkeypatch.setenv("GIT_OBJECT_DIRECTORY", str(tmp_path / "objects"))
    monkeypatch.setenv("GIT_DIR", str(tmp_path))
    git_dir = GitRepository(git_repo.path)._repo.path
    assert gitblame.command_blame(git_dir, ann, "m.py", 1, 6, timeout=30) == [(1, 6, ann)]


def test_a_partial_clone_is_blamed_by_git_or_not_at_all(git_repo, monkeypatch, tmp_path):
    """A blobless clone lacks the blob of Ann's commit: git's command fetches it and
    answers; libgit2 fetches nothing and gives every line to Bob, so without git's
    command there is no answer."""
    ann, bob = two_authors(git_repo, monkeypatch)
    git_repo.git("config", "uploadpack.allowFilter", "true")
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", "--filter=blob:none", f"file://{git_repo.path}", str(clone)], check=True)
    assert GitRepository(clone).blame_hunks(bob, "m.py") == [(1, 5, ann), (6, 6, bob)]
    clone2 = tmp_path / "clone2"
    subprocess.run(["git", "clone", "-q", "--filter=blob:none", f"file://{git_repo.path}", str(clone2)], check=True)
    monkeypatch.setattr(gitblame, "GIT", str(tmp_path / "no-such-git"))
    assert GitRepository(clone2).blame_hunks(bob, "m.py") is None


def test_git_blame_runs_apart_are_joined_in_line_order():
    a, b = "a" * 40, "b" * 64
    output = (f"{a} 3 3 2\nauthor Ann\nsummary {b} 1 1 1\nfilename m.py\n{b} 1 1 2\nfilename m.py\n"
              f"{a} 5 5 1\nfilename m.py\n").encode()
    assert gitblame.runs(output) == [(1, 2, b), (3, 5, a)]  # a commit message's line is no group


def test_a_blame_begun_is_stopped_when_the_time_is_spent(git_repo, harness, app, monkeypatch, tmp_path):  # noqa: F811
    """git's command is stopped at the answer's budget (a libgit2 call ran to its end):
    a git that would take a minute, an answer with a budget of half a second."""
    from recalld.daemon import memories

    app.registry.add("r", str(git_repo.path), "main")
    two_authors(git_repo, monkeypatch)
    harness.sync(git_repo)
    monkeypatch.setattr(gitblame, "GIT", git_command(tmp_path, "exec sleep 60"))
    with pytest.raises(gitblame.BlameStopped):
        GitRepository(git_repo.path).blame_hunks(git_repo.git("rev-parse", "HEAD").strip(), "m.py", timeout=0.2)
    monkeypatch.setattr(blame, "BLAME_SECONDS", 0.5)
    notes: list[str] = []
    started = time.monotonic()
    (kept,) = memories.get_symbol(app, "r", "kept", blame=True, notes=notes)
    assert time.monotonic() - started < 30 and "last_changed" not in kept
    assert notes == ["git blame stopped after 0.5 s: 1 of 1 versions are without last_changed (ask for fewer)"]


def test_the_versions_of_one_file_are_blamed_at_once(git_repo, harness, app, monkeypatch):  # noqa: F811
    """Three methods of one name in one file, one edited later: one blame of the file's
    lines from the first to the last, each version its own latest commit."""
    app.registry.add("r", str(git_repo.path), "main")
    classes = [f"class C{i}:\n    def run(self):\n        return {i}\n" for i in range(3)]
    git_repo.write("c.py", "\n\n".join(classes))
    monkeypatch.setenv("GIT_AUTHOR_NAME", "Ann")
    ann = commit_at(git_repo, monkeypatch, "2024-01-10T12:00:00+00:00", "three classes")
    git_repo.write("c.py", "\n\n".join([classes[0], classes[1].replace("return 1", "return -1"), classes[2]]))
    monkeypatch.setenv("GIT_AUTHOR_NAME", "Bob")
    bob = commit_at(git_repo, monkeypatch, "2024-02-10T12:00:00+00:00", "C1 negative")
    harness.sync(git_repo)
    asked: list[tuple[str, object, object]] = []
    blame_hunks = GitRepository.blame_hunks

    def counted(self, commit, path, start=None, end=None, **kw):  # type: ignore[no-untyped-def]
        asked.append((path, start, end))
        return blame_hunks(self, commit, path, start, end, **kw)

    monkeypatch.setattr(GitRepository, "blame_hunks", counted)
    runs = get_symbol(app, "r", "run", blame=True)
    assert {v["qualname"]: v["last_changed"]["commit"] for v in runs} == {"C0.run": ann, "C1.run": bob, "C2.run": ann}
    assert asked == [("c.py", 2, 13)]  # C0.run at lines 2-3, C2.run at 12-13


def test_outline_blame_says_when_each_file_and_symbol_changed(
    git_repo, harness, app, monkeypatch, capsys  # noqa: F811
):
    from recalld.daemon.commands import _print_outline
    from recalld.daemon.memories import outline

    app.registry.add("r", str(git_repo.path), "main")
    git_repo.write("m.py", FIRST)
    monkeypatch.setenv("GIT_AUTHOR_NAME", "Ann")
    ann = commit_at(git_repo, monkeypatch, "2024-01-10T12:00:00+00:00", "both functions")
    harness.sync(git_repo)  # synced at each commit, so that the outline as of Ann's is known
    git_repo.write("m.py", SECOND)
    monkeypatch.setenv("GIT_AUTHOR_NAME", "Bob")
    bob = commit_at(git_repo, monkeypatch, "2024-02-10T12:00:00+00:00", "edited doubles")
    git_repo.write("other.py", "def alone():\n    return 1\n")
    monkeypatch.setenv("GIT_AUTHOR_NAME", "Cid")
    cid = commit_at(git_repo, monkeypatch, "2024-03-10T12:00:00+00:00", "another file")
    harness.sync(git_repo)
    found = outline(app, "r", "*.py", blame=True)
    by_path = {f["path"]: f for f in found["files"]}
    m = by_path["m.py"]
    assert m["last_changed"]["commit"] == bob and by_path["other.py"]["last_changed"]["commit"] == cid
    assert [(s["qualname"], s["last_changed"]["commit"]) for s in m["symbols"]] == [("kept", ann), ("edited", bob)]
    assert by_path["other.py"]["symbols"][0]["last_changed"]["summary"] == "another file"
    assert all("last_changed" not in s for f in outline(app, "r", "*.py")["files"] for s in [f, *f["symbols"]])
    # as of Ann's commit: the lines then, blamed there
    then = outline(app, "r", "m.py", as_of_text=ann, blame=True)["files"][0]
    assert {s["qualname"]: s["last_changed"]["commit"] for s in then["symbols"]} == {"kept": ann, "edited": ann}
    # printed below each file and symbol
    _print_outline(outline(app, "r", "m.py", blame=True), as_json=False)
    printed = capsys.readouterr().out.splitlines()
    assert printed[0] == "m.py" and printed[1] == f"  last changed {bob[:8]} on 2024-02-10 by Bob: edited doubles"
    assert printed[2].startswith("  1-2  function kept")
    assert printed[3] == f"      last changed {ann[:8]} on 2024-01-10 by Ann: both functions"  # the name, no address
    long = {**m["last_changed"], "summary": "x" * 80}
    assert last_changed_line(long, brief=True).endswith(": " + "x" * 59 + "…")
    assert last_changed_line(long).endswith("x" * 80)


def test_blame_stops_at_its_time_budget_and_says_so(git_repo, harness, app, monkeypatch):  # noqa: F811
    """A file of a long history costs what libgit2's walk to its oldest line costs: an
    answer blames for ``BLAME_SECONDS`` at most; what is left has no last_changed, and a
    note says how many."""
    from recalld.daemon import memories

    app.registry.add("r", str(git_repo.path), "main")
    two_authors(git_repo, monkeypatch)
    git_repo.write("other.py", "def kept():\n    return 1\n")
    git_repo.commit("another kept")
    harness.sync(git_repo)
    monkeypatch.setattr(blame, "BLAME_SECONDS", -1.0)  # spent before the first call
    notes: list[str] = []
    versions = memories.get_symbol(app, "r", "kept", blame=True, notes=notes)
    assert len(versions) == 2 and all("last_changed" not in v for v in versions)
    assert notes == ["git blame stopped after -1 s: 2 of 2 versions are without last_changed (ask for fewer)"]
    notes.clear()
    found = memories.outline(app, "r", "*.py", blame=True, notes=notes)
    assert all("last_changed" not in f for f in found["files"])
    assert notes == ["git blame stopped after -1 s: 2 of 2 files are without last_changed (ask for fewer)"]


def test_an_outline_blames_its_files_at_once(git_repo, harness, app, monkeypatch, tmp_path):  # noqa: F811
    """Two files, two git processes that each wait (up to 5 s) until both have started:
    run one after the other, the first would see only itself."""
    from recalld.daemon.memories import outline

    app.registry.add("r", str(git_repo.path), "main")
    git_repo.write("a.py", "def a():\n    return 1\n")
    git_repo.write("b.py", "def b():\n    return 2\n")
    tip = git_repo.commit("two files")
    harness.sync(git_repo)
    seen = tmp_path / "seen"
    seen.mkdir()
    waits = (f'd="{seen}"; touch "$d/started.$$"; n=0\n'
             'while [ "$(ls "$d" | grep -c "^started")" -lt 2 ] && [ $n -lt 50 ]; do sleep 0.1; n=$((n+1)); done\n'
             'ls "$d" | grep -c "^started" > "$d/saw.$$"\nexec git "$@"')  # fmt: skip
    monkeypatch.setattr(gitblame, "GIT", git_command(tmp_path, waits))
    monkeypatch.setattr(blame, "BLAME_WORKERS", 2)
    found = outline(app, "r", "*.py", blame=True)
    assert [f["last_changed"]["commit"] for f in found["files"]] == [tip, tip]
    assert sorted(p.read_text().strip() for p in seen.glob("saw.*")) == ["2", "2"]
