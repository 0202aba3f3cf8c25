"""Shared fixtures: real git repositories in temp dirs, an isolated state dir, guards."""

from __future__ import annotations

import compileall
import hashlib
import os
import shutil
import subprocess
import tempfile
import threading
import time
from pathlib import Path

import numpy as np
import pytest

GIT_ENV = {
    "GIT_AUTHOR_NAME": "Test Author",
    "GIT_AUTHOR_EMAIL": "author@example.invalid",
    "GIT_COMMITTER_NAME": "Test Author",
    "GIT_COMMITTER_EMAIL": "author@example.invalid",
    "GIT_CONFIG_NOSYSTEM": "1",
}
PACKAGES = ("daemon", "parsers", "ingest", "hooks")  # recalld's own, at the repository's root


def pytest_configure(config: pytest.Config) -> None:
    """Before the workers start: the run's temporary files put in memory, and recalld's
    own modules byte-compiled once. Where PYTHONDONTWRITEBYTECODE is set (this machine sets
    it), an editable install has no bytecode, and every ``recalld`` the suite runs (~400
    commands and daemons) compiled the ~60 modules it imports again: ~0.3 s each, ~1 s on a
    loaded host. Python reads ``__pycache__`` whatever that variable says; git ignores it."""
    if os.environ.get("PYTEST_XDIST_WORKER"):
        return
    _temporary_files_in_memory(config)
    root = Path(__file__).resolve().parents[1]
    for package in PACKAGES:
        compileall.compile_dir(root / package, quiet=2, workers=2)


MEMORY_FS = Path("/dev/shm")
MEMORY_FS_ROOM = 8 << 30  # at most 1.9 GB of the run's were there at once, its passing tests' removed


def _temporary_files_in_memory(config: pytest.Config) -> None:
    """The run's temporary directory (every ``tmp_path``, state dir and repository of the
    suite) on the memory filesystem where there is one with room: the store engine syncs
    its files to disk on each write, and a new store's payload indexes took 0.40 s on this
    machine's disk against 0.12 s on a tmpfs (hundreds of stores a run). A kill loses no
    write (the page cache outlives the process alike), and a full disk is tested on a tmpfs
    of its own. ``--basetemp``, ``TMPDIR`` and ``PYTEST_DEBUG_TEMPROOT`` choose otherwise."""
    if config.option.basetemp or os.environ.get("TMPDIR") or os.environ.get("PYTEST_DEBUG_TEMPROOT"):
        return
    try:
        room = os.statvfs(MEMORY_FS)
    except OSError:
        return
    if room.f_bavail * room.f_frsize >= MEMORY_FS_ROOM and os.access(MEMORY_FS, os.W_OK):
        tempfile.tempdir = str(MEMORY_FS)  # the controller's alone: its workers are given their base


# Run first, where the two workers share them out and the many short tests fill the end:
# the longest tests (``--durations`` lists them) came last in the collection's order
# (tests/service/, test_types.py), and one worker finished them while the other sat idle.
# mypy's (no model) leads, so one worker is busy while the other exports the model.
FIRST = ("tests/test_types.py", "tests/service/", "tests/ingest/test_crash.py", "tests/ingest/test_disk_full.py")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    def rank(item: pytest.Item) -> int:
        for place, prefix in enumerate(FIRST):
            if item.nodeid.startswith(prefix):
                return place
        return len(FIRST) if item.get_closest_marker("model") else len(FIRST) + 1

    items.sort(key=rank)  # stable: each file's tests in their order


@pytest.fixture(scope="session", autouse=True)
def shared_model_cache(tmp_path_factory: pytest.TempPathFactory):
    """One model cache for the session (each test has its own $RECALLD_HOME, but the
    model is exported to ONNX once, not once per test), and for all of its xdist workers:
    the first to need the model exports it, the others wait for it (~30 s of CPU each)."""
    root = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        root = root.parent  # the run's directory, above each worker's own
    path = root / "model-cache"
    path.mkdir(exist_ok=True)
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("RECALLD_MODEL_CACHE", str(path))
        yield path


PASSED = pytest.StashKey[dict[str, bool]]()


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]):  # type: ignore[no-untyped-def]
    """Whether each phase of a test passed, for its fixtures' teardown to read."""
    report = yield
    item.stash.setdefault(PASSED, {})[report.when] = report.passed
    return report


@pytest.fixture(autouse=True)
def isolated_home(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
):
    """Every test gets its own $HOME and $RECALLD_HOME; touching the real home fails. A
    passing test's are removed as its ``tmp_path`` is (``tmp_path_retention_policy``): a
    store's 18 payload indexes take ~38 MB of a tmpfs even empty (~2 MB each)."""
    home = tmp_path_factory.mktemp("home")
    state = tmp_path_factory.mktemp("recalld-home")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("RECALLD_HOME", str(state))
    monkeypatch.delenv("XDG_DATA_HOME", raising=False)
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    monkeypatch.delenv("RECALLD_CONFIG", raising=False)
    for key, value in GIT_ENV.items():
        monkeypatch.setenv(key, value)
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(home / ".gitconfig-test"))
    yield home
    leftovers = [p.name for p in home.iterdir() if p.name != ".gitconfig-test"]
    if not leftovers and request.node.stash.get(PASSED, {}).get("call", False):
        shutil.rmtree(home, ignore_errors=True)
        shutil.rmtree(state, ignore_errors=True)
    assert not leftovers, f"test wrote into $HOME: {leftovers}"


@pytest.fixture(autouse=True)
def fresh_parse_memo():
    """Each test starts with no parsed files kept from an earlier test (the memo is
    process-wide, and a test counting parses must see its own)."""
    from recalld.ingest.parse_memo import PARSED

    PARSED.trim(0)
    yield


@pytest.fixture(autouse=True)
def logging_left_as_found():
    """A test that sets recalld's logging up in this process (the CLI's ``main()`` does)
    binds it to that test's captured stderr, closed after it: each later test of the worker
    that logged failed on the closed file (24 in one run). Put back as each test found it."""
    import logging

    import structlog

    config, handlers = structlog.get_config(), list(logging.getLogger().handlers)
    yield
    structlog.configure(**config)
    logging.getLogger().handlers = handlers


@pytest.fixture(autouse=True)
def no_thread_leaks():
    """No thread a test started outlives it: one told to end (an executor shut down
    without waiting, whose idle worker takes its leave on its own) gets 5 s to."""
    before = set(threading.enumerate())
    yield
    leaked = [t for t in threading.enumerate() if t not in before and t.is_alive() and not t.daemon]
    deadline = time.monotonic() + 5
    for thread in leaked:
        thread.join(timeout=max(0.0, deadline - time.monotonic()))
    leaked = [t for t in leaked if t.is_alive()]
    assert not leaked, f"threads leaked: {leaked}"


class GitRepo:
    """A real repository driven with the git CLI."""

    def __init__(self, path: Path) -> None:
        self.path = path
        path.mkdir(parents=True, exist_ok=True)
        self.git("init", "-q", "-b", "main")

    def git(self, *args: str, check: bool = True) -> str:
        done = subprocess.run(
            ["git", *args], cwd=self.path, capture_output=True, text=True, check=False, env={**os.environ}
        )
        if check and done.returncode != 0:
            raise AssertionError(f"git {' '.join(args)} failed: {done.stderr}")
        return done.stdout.strip()

    def write(self, rel: str, content: str | bytes) -> None:
        target = self.path / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            target.write_bytes(content)
        else:
            target.write_text(content)

    def remove(self, rel: str) -> None:
        self.git("rm", "-q", "-r", rel)

    def commit(self, message: str = "change") -> str:
        self.git("add", "-A")
        self.git("commit", "-q", "--allow-empty", "-m", message)
        return self.head()

    def head(self) -> str:
        return self.git("rev-parse", "HEAD")


@pytest.fixture
def git_repo(tmp_path: Path) -> GitRepo:
    return GitRepo(tmp_path / "repo")


class FakeEmbedder:
    """Deterministic, fast, meaning-free: for unit tests that only count embeddings."""

    model_id = "fake-hash-embedder"
    dim = 16

    def __init__(self) -> None:
        self.calls: list[int] = []

    def encode(self, texts):  # type: ignore[no-untyped-def]
        self.calls.append(len(texts))
        rows = []
        for text in texts:
            digest = hashlib.sha256(text.encode("utf-8", "surrogatepass")).digest()
            row = np.frombuffer(digest[: self.dim], dtype=np.uint8).astype(np.float32) + 1.0
            rows.append(row / np.linalg.norm(row))
        return np.stack(rows) if rows else np.zeros((0, self.dim), dtype=np.float32)
