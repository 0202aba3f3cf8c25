"""What a new user's first commands say when something is missing: no repository
registered, a path that is not there, a directory that is no repository."""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

from recalld.daemon.registry import RepoRegistry
from recalld.daemon.repos import repo_add
from tests.conftest import GitRepo


def recalld(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "recalld.daemon.cli", *args], capture_output=True, text=True,
                          env={**os.environ}, cwd=cwd)  # fmt: skip


def test_with_no_repository_registered_a_command_says_how_to_add_one():
    """It said "say which repository with --repo", of a --repo that can name none."""
    for args in (["symbol", "x"], ["outline", "x"], ["changes"]):
        done = recalld(*args)
        assert (done.returncode, done.stderr) == (1, "recalld: no repository is registered: add one with"
                                                     " `recalld repo add PATH`\n")  # fmt: skip
    named = recalld("remember", "a note", "--repo", "r")
    assert named.stderr == "recalld: unknown repo 'r' (none is registered: add one with `recalld repo add PATH`)\n"


def test_a_path_that_does_not_exist_is_said_so(tmp_path):
    """`repo add /no/such/path` said "not a git repository"; `hooks install` in a directory
    that is no repository named it ".": the directory is named as it is."""
    for args in (["repo", "add", "nosuch"], ["hooks", "install", "nosuch"]):
        done = recalld(*args, cwd=tmp_path)
        assert (done.returncode, done.stderr) == (1, f"recalld: {tmp_path / 'nosuch'} does not exist\n")
    absolute = recalld("repo", "add", str(tmp_path / "no" / "such"))
    assert absolute.stderr == f"recalld: {tmp_path / 'no' / 'such'} does not exist\n"
    plain = recalld("hooks", "install", cwd=tmp_path)
    assert (plain.returncode, plain.stderr) == (1, f"recalld: not a git repository: {tmp_path}\n")


class RunningDaemon:
    """What `repo add` asks of a command's context, with a daemon running."""

    def __init__(self, registry: RepoRegistry) -> None:
        self.registry = registry

    def daemon(self) -> object:
        return object()


def test_repo_add_while_the_daemon_runs_says_one_thing(tmp_path, capsys):
    """It said both "run `recalld sync NAME`" and "the running daemon picks it up": the
    daemon syncs a repository registered meanwhile, so that is all there is to say."""
    repo = GitRepo(tmp_path / "project")
    repo.commit("one")
    registry = RepoRegistry(tmp_path / "state.db")
    try:
        args = argparse.Namespace(path=str(repo.path), name=None, branch=None)
        assert repo_add(RunningDaemon(registry), args) == 0
    finally:
        registry.close()
    said = capsys.readouterr().out
    assert said == f"registered project: {repo.path} @ main (the running daemon syncs it within seconds)\n"


def test_sync_names_every_unknown_repository_before_syncing_any(tmp_path):
    """`recalld sync A nosuch other` named 'nosuch' alone: a second typo was found only
    once the first was put right. Every unknown name is named, and nothing is synced."""
    repo = GitRepo(tmp_path / "project")
    repo.commit("one")
    assert recalld("repo", "add", str(repo.path)).returncode == 0
    done = recalld("sync", "nosuch", "project", "other")
    assert (done.returncode, done.stdout) == (1, "")
    assert done.stderr == "recalld: unknown repos 'nosuch', 'other' (known: project)\n"
    one = recalld("sync", "project", "nosuch")
    assert one.stderr == "recalld: unknown repo 'nosuch' (known: project)\n"
    status = recalld("status").stdout
    assert "project\tmain\tindexed never\t" in status  # nothing synced
