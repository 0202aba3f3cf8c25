"""End to end through the CLI with the real model: a repository with an AWS key pair, a
GitHub token and private keys (in code, a docstring, a JS file, a commit message, a
manual memory) yields none of them in any payload, export, search result or log line; an untrusted branch's memories are stored with untrusted = 1."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.conftest import GitRepo
from tests.daemon.test_cli import recalld
from tests.ingest.test_redaction import CLIENT_JS, SECRETS, SETTINGS_PY
from tests.ingest.test_secrets import GITHUB_TOKEN, PEM

pytestmark = pytest.mark.model


def test_no_secret_in_export_search_or_logs(tmp_path):
    repo = GitRepo(tmp_path / "leaky")
    repo.write("app/settings.py", SETTINGS_PY)
    repo.write("web/client.js", CLIENT_JS)
    repo.commit(f"Add settings\n\nThe bot token is {GITHUB_TOKEN}")
    outputs: list[str] = []

    def run(*args: str) -> str:
        done = recalld(*args)
        outputs.extend((done.stdout, done.stderr))
        return done.stdout

    run("repo", "add", str(repo.path))
    first = json.loads(run("sync", "--json"))
    # and the token in the commit message, redacted in its task memory
    assert (first["added"] - sum(first["derived"].values()), first["secrets_redacted"]) == (5, 9)
    repo.write("app/keys.py", f'def deploy_key():\n    """The deploy key."""\n    return """{PEM}"""\n')
    repo.write("app/settings.py", SETTINGS_PY.replace("eu-west-1", "us-east-1"))
    repo.commit("Deploy key; move region")
    second = json.loads(run("sync", "--json"))
    assert second["secrets_redacted"] == 8  # settings module + connect, keys module + deploy_key
    again = json.loads(run("sync", "--json"))
    assert (again["added"], again["embedded"], again["secrets_redacted"]) == (0, 0, 0)

    note = json.loads(run("remember", f"The CI bot logs in with {GITHUB_TOKEN}", "--repo", "leaky", "--json"))
    assert note["memory"]["text"] == "The CI bot logs in with [REDACTED:github-token]"

    exported = [json.loads(line) for line in run("export", "--include-deprecated").splitlines()]
    structural = [m for m in exported if m["type"] == "structural"]
    assert len(structural) == 9 and sum(m["deprecated"] for m in structural) == 2
    hits = []
    for query in ("AWS session credentials", "sign with the private key", "deploy key", "GitHub bot token"):
        hits += json.loads(run("search", query, "--include-deprecated", "--json", "--limit", "10"))
    assert {h["qualname"] for h in hits} >= {"connect", "signer", "deploy_key"}
    deploy = next(m for m in exported if m["qualname"] == "deploy_key")
    assert '"""[REDACTED:private-key]"""' in deploy["text"]
    everything = "\n".join(outputs)
    for secret in (*SECRETS, *PEM.splitlines()[1:-1]):
        assert secret not in everything, secret
    assert "secret redacted" in everything  # logged, by kind and place


def test_untrusted_branch_is_stored_untrusted(tmp_path):
    from recalld.daemon.config import load_config
    from recalld.ingest.store import MemoryFilter, StoreConfig
    from recalld.ingest.store_edge import QdrantEdgeStore

    Path(os.environ["RECALLD_HOME"], "config.toml").write_text('[trust]\nuntrusted_branches = ["pr/*"]\n')
    repo = GitRepo(tmp_path / "proj")
    repo.write("lib.py", "def helper():\n    return 1\n")
    repo.commit("base")
    repo.git("checkout", "-q", "-b", "pr/1")
    repo.write("lib.py", "def helper():\n    return 2\n")
    repo.commit("fork change")
    recalld("repo", "add", str(repo.path), "--name", "fork", "--branch", "pr/1")
    recalld("repo", "add", str(repo.path), "--name", "base", "--branch", "main")
    recalld("sync")
    default = json.loads(recalld("search", "helper", "--json").stdout)
    assert default and {h["repo"] for h in default} == {"base"}  # left out of default search
    everything = json.loads(recalld("search", "helper", "--include-untrusted", "--json").stdout)
    assert {(h["repo"], h["untrusted"]) for h in everything} >= {("fork", True), ("base", False)}
    store = QdrantEdgeStore(StoreConfig(dim=384, path=str(load_config().store_path)))
    try:
        flags = {(p.payload["repo"], p.payload["untrusted"]) for p in store.scroll(MemoryFilter())}
    finally:
        store.close()
    assert flags == {("fork", 1), ("base", 0)}
