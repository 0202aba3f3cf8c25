"""Registrations that lose their repository, re-pointing them, and one registration per
repository and branch: the CLI end to end on real repositories."""

from __future__ import annotations

import json
import re
import shutil

import pytest

from tests.conftest import GitRepo
from tests.daemon.test_cli import recalld

pytestmark = pytest.mark.model

FOO = 'def foo(x):\n    """Foo doc."""\n    return x\n'


@pytest.fixture
def repo(tmp_path) -> GitRepo:
    r = GitRepo(tmp_path / "p1")
    r.write("a.py", FOO)
    r.commit("init")
    return r


def status(name: str) -> dict:  # type: ignore[type-arg]
    [found] = [s for s in json.loads(recalld("status", "--json").stdout)["repos"] if s["repo"] == name]
    return found


def qualnames(name: str) -> set[str]:
    return {m["qualname"] for m in map(json.loads, recalld("export", "--repo", name).stdout.splitlines())}


def assert_exact(name: str) -> None:
    """A full sync finds nothing to change: the memories are the branch's tip."""
    full = json.loads(recalld("sync", name, "--full", "--json").stdout)
    assert (full["added"], full["modified"], full["deprecated"]) == (0, 0, 0), full


def test_a_deleted_branch_is_said_and_the_registration_moves_to_another_branch(repo):
    repo.git("checkout", "-q", "-b", "feat")
    repo.write("f.py", "def feat1():\n    pass\n")
    repo.commit("f1")
    recalld("repo", "add", str(repo.path))
    recalld("sync")
    recalld("remember", "releases are cut on Thursdays", "--repo", "p1")
    repo.git("checkout", "-q", "main")
    repo.git("branch", "-D", "-q", "feat")

    assert recalld("sync", check=False).returncode == 1
    gone = f"branch 'feat' not found in {repo.path}"
    assert status("p1")["error"] == gone
    assert f"behind ?\t7 memories (0 deprecated)\terror: {gone}" in recalld("status").stdout
    found = recalld("search", "feat1", "--limit", "1")
    assert "feat1" in found.stdout  # the old memories, and a note that they may be stale
    assert f"note: p1: {gone}: its memories may be stale (`recalld repo set p1 --path PATH`" in found.stderr

    nothing = recalld("repo", "set", "p1", check=False)
    assert nothing.returncode == 2 and "say what to change of p1: --path PATH, --branch BRANCH" in nothing.stderr
    for args, message in ((["--branch", "nope"], f"no branch 'nope' in {repo.path}"),
                          (["--path", str(repo.path)], f"no branch 'feat' in {repo.path} (name the one to track"),
                          (["--path", str(repo.path.parent)], "not a git repository"),
                          (["nope", "--branch", "main"], "unknown repo 'nope'")):  # fmt: skip
        bad = recalld("repo", "set", *(args if args[0] == "nope" else ["p1", *args]), check=False)
        assert bad.returncode == 1 and bad.stderr.count("\n") == 1 and message in bad.stderr, bad.stderr

    moved = recalld("repo", "set", "p1", "--branch", "main")
    assert moved.stdout == (f"p1: {repo.path} @ main (was {repo.path} @ feat); dropped the 7 memories of feat"
                            " (manual memories kept); run `recalld sync p1`\n")  # fmt: skip
    assert json.loads(recalld("repo", "list", "--json").stdout)["branch"] == "main"
    recalld("sync")
    assert qualnames("p1") == {"<project>", "<module>", "foo", None}  # None: the commit, the manual memory
    manual = json.loads(recalld("search", "releases Thursdays", "--json", "--type", "note").stdout)
    assert [m["text"] for m in manual] == ["releases are cut on Thursdays"]
    now = status("p1")
    assert (now["error"], now["commits_behind"], now["indexed_commit"]) == (None, 0, repo.head())
    assert recalld("search", "foo").stderr == ""
    assert_exact("p1")
    same = recalld("repo", "set", "p1", "--branch", "main")
    assert same.stdout == f"p1 is {repo.path} @ main already\n"


def test_a_moved_repository_is_said_and_re_pointed_to_its_new_place_or_a_clone(repo, tmp_path):
    recalld("repo", "add", str(repo.path))
    recalld("sync")
    recalld("remember", "releases are cut on Thursdays", "--repo", "p1")
    indexed = repo.head()
    moved = tmp_path / "moved"
    shutil.move(repo.path, moved)

    assert status("p1")["error"] == f"not a git repository: {repo.path}"
    note = recalld("search", "foo").stderr
    assert note.startswith(f"note: p1: not a git repository: {repo.path}: its memories may be stale")

    (moved / "sub").mkdir()
    recalld("repo", "set", "p1", "--path", str(moved / "sub"))  # stored as the repository's top level
    assert json.loads(recalld("repo", "list", "--json").stdout) == {"name": "p1", "path": str(moved), "branch": "main"}
    again = json.loads(recalld("sync", "--json").stdout)
    assert (again["from_commit"], again["to_commit"], again["added"], again["embedded"]) == (indexed, indexed, 0, 0)

    # a clone whose main was rewritten: the indexed commit is no ancestor of its tip (a reset)
    clone = GitRepo(tmp_path / "clone")
    clone.git("pull", "-q", str(moved), "main")
    clone.write("a.py", "def bar(y):\n    return y\n")
    clone.git("commit", "-q", "-a", "--amend", "-m", "bar instead")
    assert indexed not in clone.git("rev-list", "HEAD")
    recalld("repo", "set", "p1", "--path", str(clone.path))
    recalld("sync")
    assert qualnames("p1") == {"<project>", "<module>", "bar", None}
    assert status("p1")["indexed_commit"] == clone.head()
    assert_exact("p1")
    manual = json.loads(recalld("search", "releases Thursdays", "--json", "--type", "note").stdout)
    assert [m["text"] for m in manual] == ["releases are cut on Thursdays"]


def test_one_repository_and_branch_is_registered_once(repo, tmp_path):
    repo.write("sub/s.py", "def s():\n    pass\n")
    repo.commit("s")
    link = tmp_path / "link"
    link.symlink_to(repo.path)
    assert recalld("repo", "add", str(link / "sub")).stdout.startswith(f"registered p1: {repo.path} @ main")
    assert recalld("repo", "add", str(repo.path / "sub")).stdout.startswith("already registered p1:")
    twice = f"this repository's 'main' is registered already, as p1 ({repo.path} @ main): use p1"
    for where, name in ((repo.path, "p1b"), (repo.path / "sub", "p1sub"), (link, "p1link")):
        refused = recalld("repo", "add", str(where), "--name", name, check=False)
        assert refused.returncode == 1 and twice in refused.stderr, refused.stderr
    empty = recalld("repo", "add", str(repo.path), "--name", "", check=False)
    assert empty.returncode == 1 and "'' cannot name a repository" in empty.stderr

    # a linked worktree is a checkout of its own, registered on its own branch; not on one taken
    worktree = tmp_path / "wt"
    repo.git("worktree", "add", "-q", "-b", "topic", str(worktree))
    assert recalld("repo", "add", str(worktree / "sub")).stdout.startswith(f"registered wt: {worktree} @ topic")
    refused = recalld("repo", "add", str(worktree), "--branch", "main", "--name", "wt-main", check=False)
    assert refused.returncode == 1 and twice in refused.stderr
    onto = recalld("repo", "set", "wt", "--branch", "main", check=False)
    assert onto.returncode == 1 and twice in onto.stderr
    recalld("sync")
    hits = json.loads(recalld("search", "s", "--json", "--limit", "20").stdout)
    assert sorted(h["repo"] for h in hits if h["qualname"] == "s") == ["p1", "wt"]


def test_a_lost_path_with_a_line_end_is_said_on_one_line(tmp_path):
    """The path in status's error and in search's note on stderr broke the line at its
    line end (``…/new`` then ``line: its memories may be stale``), which ``recalld sync``
    already showed escaped, as git quotes such names."""
    odd = GitRepo(tmp_path / "new\nline")
    odd.write("a.py", FOO)
    odd.commit("init")
    recalld("repo", "add", str(odd.path), "--name", "nl")
    recalld("sync")
    shutil.move(odd.path, tmp_path / "gone")
    escaped = str(odd.path).replace("\n", "\\n")
    [line] = [line for line in recalld("status").stdout.splitlines() if line.startswith("nl\t")]
    assert line.endswith(f"\terror: not a git repository: {escaped}")
    [note] = recalld("search", "foo").stderr.splitlines()
    assert note.startswith(f"note: nl: not a git repository: {escaped}: its memories may be stale")


def test_a_repository_registered_before_its_first_commit_says_so_then_is_indexed(tmp_path):
    """A branch with no commit yet is registered (its first is indexed when it is made), and
    sync, status and outline said nothing of it: `synced e@main ∅→∅`, `behind ?`, "never
    synced (recalld sync)" right after a sync."""
    empty = GitRepo(tmp_path / "e")
    recalld("repo", "add", str(empty.path))
    assert recalld("sync", "e").stdout.startswith("synced e@main: the branch has no commit yet, nothing to index")
    now = status("e")
    assert (now["error"], now["empty"], now["commits_behind"], now["memories"]) == (None, True, 0, 0)
    [line] = [line for line in recalld("status").stdout.splitlines() if line.startswith("e\t")]
    assert line.endswith("\tbehind 0\t0 memories (0 deprecated)\tno commit yet")
    refused = recalld("outline", "a.py", "--repo", "e", check=False)
    assert refused.returncode == 1 and "branch 'main' has no commit yet (its first is indexed when" in refused.stderr
    empty.write("a.py", FOO)
    empty.commit("first")
    recalld("sync", "e")
    assert "foo" in qualnames("e") and status("e")["empty"] is False


def test_a_repository_with_no_commit_yet_is_registered_and_re_pointed_by_its_branch_name(tmp_path):
    """``repo add`` took a repository with no commit yet without ``--branch`` (its checked-out
    branch), and refused it with ``--branch main``, as ``repo set`` did: "no branch 'main'"."""
    empty = GitRepo(tmp_path / "empty")
    assert "registered empty:" in recalld("repo", "add", str(empty.path), "--branch", "main").stdout
    moved = tmp_path / "moved"
    shutil.move(str(empty.path), moved)
    said = recalld("repo", "set", "empty", "--path", str(moved), "--branch", "main").stdout
    assert said.startswith(f"empty: {moved} @ main (was {empty.path} @ main)")
    missing = recalld("repo", "set", "empty", "--branch", "dev", check=False)
    assert missing.returncode != 0 and "no branch 'dev'" in missing.stderr


def synced_twice(repo: GitRepo) -> str:
    """``repo`` registered and synced at its first commit and again after foo changed: two
    versions of foo; the first commit."""
    recalld("repo", "add", str(repo.path))
    recalld("sync")
    first = repo.head()
    repo.write("a.py", FOO.replace("return x", "return x + 1"))
    repo.commit("foo adds one")
    recalld("sync")
    return first


def test_a_renamed_branch_keeps_its_memories_and_their_history(repo):
    first = synced_twice(repo)
    repo.git("branch", "-m", "main", "trunk")

    followed = recalld("sync", "--json")  # git's reflog says main became trunk: followed
    assert "its branch was renamed: following it" in followed.stderr, followed.stderr
    again = json.loads(followed.stdout)
    assert (again["branch"], again["from_commit"], again["to_commit"]) == ("trunk", repo.head(), repo.head())
    assert (again["added"], again["embedded"]) == (0, 0)
    assert json.loads(recalld("repo", "list", "--json").stdout)["branch"] == "trunk"
    versions = json.loads(recalld("symbol", "foo", "--include-deprecated", "--json").stdout)
    assert sorted(v["valid_from_commit"] for v in versions) == sorted([first, repo.head()])
    assert {v["branch"] for v in versions} == {"trunk"}
    [then] = json.loads(recalld("symbol", "foo", "--as-of", first, "--json").stdout)
    assert then["valid_from_commit"] == first
    assert_exact("p1")

    # a branch made from it, the old one deleted: no rename to follow, but repo set carries
    repo.git("checkout", "-q", "-b", "release")
    repo.git("branch", "-D", "-q", "trunk")
    assert recalld("sync", check=False).returncode == 1
    moved = recalld("repo", "set", "p1", "--branch", "release")
    assert moved.stdout.startswith(f"p1: {repo.path} @ release (was {repo.path} @ trunk); carried the ")
    assert moved.stdout.endswith(" live) of trunk to release, history kept; run `recalld sync p1`\n")
    after = json.loads(recalld("sync", "--json").stdout)
    assert (after["from_commit"], after["added"], after["embedded"]) == (repo.head(), 0, 0)
    assert len(json.loads(recalld("symbol", "foo", "--include-deprecated", "--json").stdout)) == 2
    assert_exact("p1")
    # the embedded store kept nothing of trunk; its followed branch is never removed alone
    assert status("p1")["other_branches"] == {}
    gone = recalld("repo", "remove", "p1", "--branch", "trunk", check=False)
    assert gone.returncode == 1, gone.stderr
    assert re.fullmatch(r"recalld: the store holds nothing of p1 at 'trunk' \(its branches there: release \(\d+"
                        r" memories\)\)\n", gone.stderr), gone.stderr  # fmt: skip
    followed = recalld("repo", "remove", "p1", "--branch", "release", check=False)
    assert followed.returncode == 2 and "p1 follows 'release': `recalld repo set p1 --branch OTHER`" in followed.stderr


class Killed(BaseException):
    """The daemon killed while it deletes the old name's points."""


def test_a_follow_killed_while_it_drops_the_old_name_leaves_no_strays_once_followed_again(repo, monkeypatch):
    from recalld.daemon.app import App
    from recalld.daemon.config import load_config
    from recalld.daemon.repos import follow_renamed
    from recalld.ingest.result import NoProgress
    from recalld.ingest.store import MemoryFilter

    recalld("repo", "add", str(repo.path))
    recalld("sync")
    exported = len(recalld("export", "--repo", "p1").stdout.splitlines())
    repo.git("branch", "-m", "main", "trunk")
    app = App(load_config())
    monkeypatch.setattr(app.indexer, "remove_repo", lambda *a, **k: (_ for _ in ()).throw(Killed()))
    with pytest.raises(Killed):
        follow_renamed(app, app.registry.get("p1"), progress=NoProgress())
    app.close()

    again = App(load_config())  # the daemon restarted: its first sync follows the rename
    follow_renamed(again, again.registry.get("p1"), progress=NoProgress())
    left = again.store.count(MemoryFilter(record=None, repo="p1", branch="main", deprecated=None))
    again.close()
    assert left == 0
    assert status("p1")["branch"] == "trunk"
    assert len(recalld("export", "--repo", "p1").stdout.splitlines()) == exported  # each memory once


def test_a_rename_to_a_branch_another_registration_follows_is_not_followed_and_says_which(repo):
    repo.git("branch", "side")
    recalld("repo", "add", str(repo.path))
    recalld("repo", "add", str(repo.path), "--name", "other", "--branch", "side")
    recalld("sync")
    repo.git("branch", "-M", "main", "side")  # git overwrites side: p1's main is now other's branch

    failed = recalld("sync", "p1", check=False)
    assert failed.returncode == 1
    assert "branch 'main' not found in" in failed.stderr
    assert "it was renamed to 'side', which is not followed: " in failed.stderr
    assert "registered already, as other (" in failed.stderr and "repo set p1 --branch side" not in failed.stderr
    assert status("p1")["branch"] == "main" and qualnames("p1") == qualnames("other")
    said = status("p1")["error"]  # status and search's notes say so too, not that the next sync follows it
    assert "renamed to 'side', which is not followed: " in said and "registered already, as other (" in said, said
    noted = recalld("search", "anything", "--repo", "p1").stderr
    assert "which is not followed: " in noted and "which the next sync follows" not in noted, noted


def test_repo_set_stopped_after_the_old_branchs_points_went_converges_on_its_next_run(repo):
    """`repo set --branch` onto a branch made from a deleted one carries, deletes the old
    branch's points, then re-points the registration: killed after the deletion, the carried
    points are there and the registration names the old branch. Run again, it finds no old
    memories to carry or drop, and the next sync goes on from the carried ones."""
    from recalld.daemon.app import App
    from recalld.daemon.config import load_config
    from recalld.ingest.rebranch import carry_branch
    from recalld.ingest.result import NoProgress
    from recalld.ingest.store import MemoryFilter

    first = synced_twice(repo)
    repo.git("checkout", "-q", "-b", "release")
    repo.git("branch", "-D", "-q", "main")
    app = App(load_config())  # what the stopped run left: carried, the old name's points gone, not re-pointed
    try:
        carry_branch(app.store, "p1", "main", "release", progress=NoProgress())
        app.store.delete([p.id for p in app.store.scroll(MemoryFilter(record=None, repo="p1", branch="main",
                                                                      deprecated=None), fields=())])  # fmt: skip
    finally:
        app.close()

    again = recalld("repo", "set", "p1", "--branch", "release")
    assert "dropped the 0 memories of main" in again.stdout
    after = json.loads(recalld("sync", "--json").stdout)
    assert (after["from_commit"], after["added"], after["embedded"]) == (repo.head(), 0, 0)
    versions = json.loads(recalld("symbol", "foo", "--include-deprecated", "--json").stdout)
    assert sorted(v["valid_from_commit"] for v in versions) == sorted([first, repo.head()])
    assert_exact("p1")
