"""The tree diff that reads only the subtrees that differ gives what libgit2's gives."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pygit2

from recalld.ingest.gitrepo import GitRepository
from recalld.ingest.treediff import changes

ROOT = Path(__file__).resolve().parents[2]


def libgit2_changes(old: pygit2.Tree | None, new: pygit2.Tree) -> list[tuple[object, ...]]:
    diff = old.diff_to_tree(new) if old is not None else new.diff_to_tree(swap=True)
    return [_fields(d) for d in diff.deltas]


def _fields(d: Any) -> tuple[object, ...]:
    """What a delta says, as ``GitDiffs`` reads it (libgit2's and ours alike)."""
    old, new = d.old_file, d.new_file
    return (d.status_char(), old.path, new.path, str(old.id), str(new.id), old.mode, new.mode, new.raw_path)


def every_pair(path: Path) -> list[tuple[pygit2.Tree | None, pygit2.Tree]]:
    """Each commit's tree against each parent's (a root's against nothing)."""
    repo = pygit2.Repository(str(path))
    pairs: list[tuple[pygit2.Tree | None, pygit2.Tree]] = []
    for commit in repo.walk(repo.head.target, pygit2.enums.SortMode.TOPOLOGICAL):
        pairs += [(repo[p].peel(pygit2.Tree), commit.tree) for p in commit.parent_ids] or [(None, commit.tree)]
    return pairs


def assert_as_libgit2(path: Path) -> int:
    repo = pygit2.Repository(str(path))
    pairs = every_pair(path)
    for old, new in pairs:
        assert [_fields(d) for d in changes(repo, old, new)] == libgit2_changes(old, new)
    return len(pairs)


def test_every_kind_of_change_is_as_libgit2_gives_it(git_repo):
    """Added, deleted and modified files; a mode change; a file replaced by a directory
    and back; a file by a symbolic link and back; a submodule added, moved, replaced by a
    file; names git sorts around a directory (``a.b``, ``a/b``, ``a-b``, ``a0``); a name
    that is not UTF-8, names with a space or a line end; directories deleted and added
    whole; a merge's two sides."""
    r = git_repo
    for name in ("a/b", "a.b", "a-b", "a0", "foo", "d/f", "bar", "keep/x/y.py", "a dir/x y.py", "new\nline.py"):
        r.write(name, "1\n")
    r.commit("root")
    os.chmod(r.path / "a0", 0o755)
    r.write("a dir/x y.py", "2\n")
    r.write("new\nline.py", "2\n")
    r.commit("mode, and names with a space and a line end")
    (r.path / "foo").unlink()
    r.write("foo/in", "q\n")
    r.commit("a file becomes a directory")
    r.remove("foo")
    r.write("foo", "x\n")
    r.commit("and a file again")
    (r.path / "bar").unlink()
    os.symlink("a0", r.path / "bar")
    r.commit("a file becomes a link")
    (r.path / "bar").unlink()
    r.write("bar", "z\n")
    r.commit("and a file again")
    r.git("update-index", "--add", "--cacheinfo", f"160000,{r.head()},sub")
    r.git("commit", "-q", "-m", "a submodule")
    r.git("update-index", "--cacheinfo", f"160000,{r.git('rev-parse', 'HEAD~2')},sub")
    r.git("commit", "-q", "-m", "the submodule moved")
    r.git("rm", "-q", "--cached", "sub")
    r.write("sub", "s\n")
    r.commit("the submodule becomes a file")
    r.write(os.fsdecode(b"caf\xe9.py"), "x\n")
    r.commit("a name that is not UTF-8")
    r.write(os.fsdecode(b"caf\xe9.py"), "y\n")
    r.commit("and changed")
    r.remove("d")
    r.remove("a")
    r.write("n/e/f/g", "1\n")
    r.write("n/e/h", "2\n")
    r.commit("directories deleted and added")
    r.git("mv", "n/e/f/g", "n/e/f/g2")
    r.commit("a move")
    r.git("checkout", "-q", "-b", "side", "HEAD~2")
    r.write("keep/x/side.py", "s\n")
    r.commit("side")
    r.git("checkout", "-q", "main")
    r.git("merge", "-q", "--no-edit", "side")
    assert assert_as_libgit2(r.path) == 16  # 15 commits, the merge against both parents


def test_this_repositorys_history_is_as_libgit2_gives_it():
    """A real history: every commit of this repository's checkout (a shallow CI clone
    holds fewer)."""
    if not (ROOT / ".git").exists():
        return
    assert assert_as_libgit2(ROOT) >= 1


def test_a_subtree_both_sides_share_is_never_read(git_repo):
    """The unchanged directory's tree object is deleted from the repository: libgit2's diff
    expands it and fails; this one never reads it."""
    git_repo.write("big/inner/a.py", "a = 1\n")
    git_repo.write("app.py", "x = 1\n")
    git_repo.commit("one")
    git_repo.write("app.py", "x = 2\n")
    tip = git_repo.commit("two")
    repo = pygit2.Repository(str(git_repo.path))
    shared = str(repo[tip].peel(pygit2.Commit).tree["big"].id)
    (git_repo.path / ".git" / "objects" / shared[:2] / shared[2:]).unlink()
    repo = pygit2.Repository(str(git_repo.path))
    commit = repo[tip].peel(pygit2.Commit)
    old, new = repo[commit.parent_ids[0]].peel(pygit2.Commit).tree, commit.tree
    assert [(c.status, c.new_file.path) for c in changes(repo, old, new)] == [("M", "app.py")]
    try:
        libgit2_changes(old, new)
    except (KeyError, pygit2.GitError):
        pass
    else:
        raise AssertionError("libgit2 read the shared subtree: the test shows nothing")
    assert [c.new_path for c in GitRepository(str(git_repo.path)).commit_changes(tip)] == ["app.py"]


def test_directories_nested_thousands_deep(tmp_path):
    """No recursion: 3,000 nested directories, changed, added and deleted whole."""
    repo = pygit2.init_repository(str(tmp_path / "deep"))

    def nested(content: bytes) -> pygit2.Tree:
        builder = repo.TreeBuilder()
        builder.insert("f.py", repo.create_blob(content), pygit2.enums.FileMode.BLOB)
        tree = builder.write()
        for _ in range(3000):
            builder = repo.TreeBuilder()
            builder.insert("d", tree, pygit2.enums.FileMode.TREE)
            tree = builder.write()
        return repo[tree].peel(pygit2.Tree)

    old, new = nested(b"x = 1\n"), nested(b"x = 2\n")
    path = "d/" * 3000 + "f.py"
    assert [(c.status, c.new_file.path) for c in changes(repo, old, new)] == [("M", path)]
    assert [(c.status, c.old_file.path) for c in changes(repo, new, None)] == [("D", path)]
    assert [(c.status, c.new_file.path) for c in changes(repo, None, new)] == [("A", path)]


def test_modes_an_old_git_wrote_are_read_as_what_they_mean(tmp_path):
    """``100664`` is a regular file and ``040000`` a directory, as the tree's entries give
    them to the sync: libgit2's diff gave ``100664`` as written, a mode no file is read
    with, and a file whose mode was written two ways as changed."""
    repo = pygit2.init_repository(str(tmp_path / "old"))
    one, two = repo.create_blob(b"x = 1\n"), repo.create_blob(b"x = 2\n")

    def tree(*entries: bytes) -> pygit2.Tree:
        return repo[repo.odb.write(pygit2.enums.ObjectType.TREE, b"".join(entries))].peel(pygit2.Tree)

    inner_one, inner_two = tree(b"100644 f.py\0" + one.raw), tree(b"100644 f.py\0" + two.raw)
    old = tree(b"100664 a.py\0" + one.raw, b"040000 d\0" + inner_one.id.raw, b"100644 same.py\0" + one.raw,
               b"100644 z.py\0" + one.raw)  # fmt: skip
    new = tree(b"100664 a.py\0" + two.raw, b"040000 d\0" + inner_two.id.raw, b"100664 same.py\0" + one.raw,
               b"100755 z.py\0" + one.raw)  # fmt: skip
    found = [(c.status, c.new_file.path, c.old_file.mode, c.new_file.mode) for c in changes(repo, old, new)]
    assert found == [("M", "a.py", 0o100644, 0o100644), ("M", "d/f.py", 0o100644, 0o100644),
                     ("M", "z.py", 0o100644, 0o100755)]  # fmt: skip
    assert [(e.name, e.filemode) for e in new][0] == ("a.py", 0o100644)  # what the sync's walk of the tree gives
    given = [(c[0], c[2], c[5], c[6]) for c in libgit2_changes(old, new)]  # modes as written: same.py a change
    assert given == [("M", "a.py", 0o100664, 0o100664), ("M", "d/f.py", 0o100644, 0o100644),
                     ("M", "same.py", 0o100644, 0o100664), ("M", "z.py", 0o100644, 0o100755)]  # fmt: skip
    sig = pygit2.Signature("A", "a@example.com", 1_700_000_000, 0)
    first = repo.create_commit("refs/heads/main", sig, sig, "old", old.id, [])
    second = repo.create_commit("refs/heads/main", sig, sig, "new", new.id, [first])
    git = GitRepository(str(tmp_path / "old"))
    read = {c.new_path: (c.status, c.new_blob) for c in git.commit_changes(str(second))}
    assert read["a.py"] == ("modified", str(two)) and "same.py" not in read  # a blob to read; no change
