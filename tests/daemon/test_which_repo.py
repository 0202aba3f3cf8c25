"""Which repository a command is about without --repo: the one registered, else the one
whose work tree holds the current directory."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from recalld.daemon.commands import only_repo
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
