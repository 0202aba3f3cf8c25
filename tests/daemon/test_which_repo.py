"""Which repository a command is about without --repo: the one registered, else the one
whose work tree holds the current directory."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from recalld.daemon.here import only_repo
from recalld.daemon.registry import RepoRegistry
from recalld.ingest.errors import RecalldError


def test_the_repository_holding_the_current_directory_is_the_one_meant(tmp_path, monkeypatch):
    registry = RepoRegistry(tmp_path / "state.db")
    ctx = SimpleNamespace(registry=registry)
    outer, inner, other = tmp_path / "outer", tmp_path / "outer" / "vendor" / "inner", tmp_path / "other"
    for path in (outer, inner, other, tmp_path / "elsewhere"):
        (path / "src").mkdir(parents=True)
    registry.add("outer", str(outer), "main")
    monkeypatch.chdir(tmp_path / "elsewhere")
    assert only_repo(ctx) == "outer"  # the one registered, wherever one stands
    registry.add("inner", str(inner), "main")
    registry.add("other", str(other), "main")
    with pytest.raises(RecalldError, match="say which repository with --repo: inner, other, outer"):
        only_repo(ctx)
    monkeypatch.chdir(outer / "src")
    assert only_repo(ctx) == "outer"
    monkeypatch.chdir(inner / "src")
    assert only_repo(ctx) == "inner"  # the innermost
    (tmp_path / "link").symlink_to(other)
    monkeypatch.chdir(tmp_path / "link" / "src")
    assert only_repo(ctx) == "other"  # through a symbolic link
    registry.add("other-dev", str(other), "dev")
    with pytest.raises(RecalldError, match="say which repository"):
        only_repo(ctx)  # two branches of it registered: which is not clear
    registry.close()


def test_a_path_written_in_a_subdirectory_is_read_from_there(tmp_path, monkeypatch):
    """From a subdirectory of the work tree, ``.``, ``./…``, ``../…`` and a relative path
    that is there and not at the top are read from the current directory, as git reads
    them; a path from the top, an absolute one, a glob from the top and anything outside
    the repository stay as written."""
    from recalld.daemon.here import from_directory, path_from_here

    top = tmp_path / "repo"
    for name in ("app/models.py", "app/views/list.py", "docs/guide.md", "models.py", "lib/app/x.py"):
        (top / name).parent.mkdir(parents=True, exist_ok=True)
        (top / name).write_text("")
    app = str(top / "app")
    read = lambda path, cwd=app: from_directory(str(top), cwd, path)  # noqa: E731
    assert read("views/list.py") == "app/views/list.py"  # there, not at the top
    assert read("views/") == "app/views/"
    assert read("views/*.py") == "app/views/*.py"  # a glob by the directory before its wildcard
    assert read("app/models.py") == "app/models.py"  # written from the top
    assert read("models.py") == "models.py"  # at the top too: the top's (as it was read before)
    assert read("./models.py") == "app/models.py"  # said to be here
    assert read(".") == "app" and read("./") == "app/"
    assert read("../docs/guide.md") == "docs/guide.md"
    assert read("..") == "."  # the top: the whole repository
    assert read("../../elsewhere.py") == "../../elsewhere.py"  # out of it: as written
    assert read("gone.py") == "gone.py"  # neither here nor at the top (deleted, moved): as written
    assert read("**/*.py") == "**/*.py"  # no directory before the wildcard: the whole repository
    assert read("views/list.py", str(top)) == "views/list.py"  # at the top: as written
    assert read("./x.py", str(tmp_path)) == "./x.py"  # outside the work tree
    assert read("x.py", str(top / "lib" / "app")) == "lib/app/x.py"
    (tmp_path / "link").symlink_to(top)  # the current directory reached through a link
    assert read("views/list.py", str(tmp_path / "link" / "app")) == "app/views/list.py"

    registry = RepoRegistry(tmp_path / "state.db")
    registry.add("repo", str(top), "main")
    registry.add("other", str(tmp_path / "other"), "main")
    ctx = SimpleNamespace(registry=registry)
    monkeypatch.chdir(top / "app")
    assert path_from_here(ctx, "repo", "views/list.py") == "app/views/list.py"
    assert path_from_here(ctx, None, "views/list.py") == "app/views/list.py"  # the repository holding it
    assert path_from_here(ctx, "other", "views/list.py") == "views/list.py"  # another one's: as written
    assert path_from_here(ctx, "repo", str(top / "app/models.py")) == str(top / "app/models.py")
    assert path_from_here(ctx, "repo", None) is None
    registry.close()
