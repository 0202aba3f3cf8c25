"""`recalld status` while another command holds the embedded store."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import GitRepo

# A stand-in for a long `recalld sync`: named as the installed script is, it takes the
# store's lock as the store does, says so, and holds it until its stdin closes.
HOLDER = """\
import sys
from pathlib import Path
from recalld.ingest.store_lock import LOCK_NAME, take_lock

store = Path(sys.argv[2])
store.mkdir(parents=True, exist_ok=True)
take_lock(store / LOCK_NAME)
print("held", flush=True)
sys.stdin.read()
"""


def recalld(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "recalld.daemon.cli", *args], capture_output=True, text=True,
                          env={**os.environ})  # fmt: skip


@pytest.fixture
def held_store(tmp_path) -> Iterator[int]:
    """The store of $RECALLD_HOME held by a process whose command line is `recalld sync`: its pid."""
    script = tmp_path / "bin" / "recalld"
    script.parent.mkdir()
    script.write_text(HOLDER)
    store = Path(os.environ["RECALLD_HOME"]) / "qdrant"
    holder = subprocess.Popen([sys.executable, str(script), "sync", str(store)], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, text=True, env={**os.environ})  # fmt: skip
    assert holder.stdout is not None and holder.stdout.readline() == "held\n"
    yield holder.pid
    holder.communicate(timeout=30)  # stdin closed: it lets go


def test_status_says_what_it_can_while_a_sync_holds_the_store(tmp_path, held_store):
    """It failed with the store's lock error (exit 1): it names the repositories, their
    branches' tips and the command holding the store, and exits 0."""
    repo = GitRepo(tmp_path / "project")
    repo.write("app.py", "def main():\n    return 1\n")
    tip = repo.commit("one")
    assert recalld("repo", "add", str(repo.path)).returncode == 0
    shown = recalld("status")
    assert shown.returncode == 0, shown.stderr
    assert shown.stdout.splitlines() == [
        f"daemon: stopped; the store is in use by recalld sync (pid {held_store})",
        f"project\tmain\ttip {tip[:8]}\t(memories: once the store is free)",
    ]
    report = json.loads(recalld("status", "--json").stdout)
    assert report["daemon"]["store_holder"] == {"pid": held_store, "command": "recalld sync"}
    (project,) = report["repos"]
    assert (project["repo"], project["branch"], project["tip"], project["indexed_commit"]) == (
        "project", "main", tip, None)  # fmt: skip


@pytest.mark.parametrize("words, command", [
    (["/venv/bin/python", "/venv/bin/recalld", "-v", "sync", "--full", "web"], "recalld sync"),
    (["python3", "-m", "recalld.daemon.cli", "repo", "remove", "web"], "recalld repo remove"),
    (["recalld"], "recalld"),
    (["python3", "-c", "import recalld"], None),
])  # fmt: skip
def test_the_command_holding_the_store_is_read_from_its_command_line(words, command):
    from recalld.daemon.status import recalld_command

    assert recalld_command(words) == command


def test_a_daemon_that_took_the_store_meanwhile_is_asked_not_reported_as_the_holder(tmp_path):
    """The store's lock error of a daemon started since the command looked for one is
    ``run_command``'s to answer by asking that daemon: status does not report it as held."""
    from types import SimpleNamespace

    from recalld.daemon.status import status
    from recalld.ingest.errors import DaemonStartedError
    from recalld.ingest.store import StoreLockedError

    class StartedMeanwhile:
        registry = SimpleNamespace(all=lambda: [])

        @property
        def store(self) -> None:
            raise DaemonStartedError("the daemon (pid 1) started meanwhile") from StoreLockedError("in use")

    ctx = SimpleNamespace(daemon=lambda: None, app=StartedMeanwhile(), config=SimpleNamespace(home=tmp_path))
    with pytest.raises(DaemonStartedError):
        status(ctx, SimpleNamespace(json=True))


def test_a_sync_failed_for_the_reason_status_gives_is_said_once(capsys):
    """The daemon's last sync failed because the branch is gone, which `error` says too:
    the line gave the same text twice, as `last_error` and as `error`."""
    from recalld.daemon.status import _print

    gone = "branch 'develop' not found in /r"
    repo = {"repo": "r", "branch": "develop", "indexed_commit": "a" * 40, "commits_behind": None, "memories": 3,
            "deprecated": 0, "queue_depth": 0, "last_error": f"sync of r failed: {gone}", "error": gone}
    _print({"daemon": {"state": "ready", "pid": 7}, "repos": [repo]})
    assert capsys.readouterr().out.count(gone) == 1
    _print({"daemon": {"state": "ready", "pid": 7}, "repos": [{**repo, "last_error": "disk full"}]})
    out = capsys.readouterr().out
    assert "last_error disk full" in out and out.count(gone) == 1
