"""Benchmark helpers around a running daemon: commit → searchable latency, idle RSS,
`recalld search` wall time and what the CLI's client path imports.

Used by bench_all.py; each function takes a state dir (``RECALLD_HOME``) whose
repository is registered and indexed already.
"""

from __future__ import annotations

import json
import os
import socket
import statistics
import subprocess
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path
from types import TracebackType

ENV = {"GIT_AUTHOR_NAME": "bench", "GIT_AUTHOR_EMAIL": "b@example.invalid",
       "GIT_COMMITTER_NAME": "bench", "GIT_COMMITTER_EMAIL": "b@example.invalid"}  # fmt: skip
RECALLD = [sys.executable, "-m", "recalld.daemon.cli"]
ENTRY_POINT = str(Path(sys.executable).parent / "recalld")  # what a user runs
HEAVY = ("torch", "numpy", "qdrant_edge", "qdrant_client", "pygit2", "tree_sitter", "fastapi", "transformers")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def state_env(home: Path) -> dict[str, str]:
    return {**os.environ, **ENV, "RECALLD_HOME": str(home)}


def run(*args: str, cwd: Path | None = None, env: dict[str, str]) -> str:
    return subprocess.run(args, cwd=cwd, env=env, check=True, capture_output=True, text=True).stdout


class RunningDaemon:
    """`recalld serve` on ``home`` with git hooks installed in ``repo``."""

    def __init__(self, home: Path, repo: Path) -> None:
        self.home, self.repo = home, repo
        self.env = state_env(home)
        self.port = free_port()
        (home / "config.toml").write_text(f"[daemon]\nport = {self.port}\n")
        run(*RECALLD, "hooks", "install", str(repo), env=self.env)
        self.proc = subprocess.Popen([*RECALLD, "serve"], env=self.env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.token = ""

    def __enter__(self) -> RunningDaemon:
        deadline = time.monotonic() + 600
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError("recalld serve exited during start-up")
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/healthz", timeout=2) as r:
                    if json.load(r)["state"] == "ready":
                        self.token = (self.home / "api-token").read_text().strip()
                        return self
            except OSError:
                pass
            time.sleep(0.1)
        raise RuntimeError("recalld serve not ready within 600 s")

    def __exit__(self, _t: type[BaseException] | None, _e: BaseException | None, _tb: TracebackType | None) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()

    def get(self, route: str, **params: object) -> object:
        query = f"?{urllib.parse.urlencode(params)}" if params else ""
        request = urllib.request.Request(
            f"http://127.0.0.1:{self.port}{route}{query}", headers={"Authorization": f"Bearer {self.token}"}
        )
        with urllib.request.urlopen(request, timeout=120) as r:
            return json.load(r)

    def busy(self) -> str | None:
        """What takes the daemon's store for long (an index build, a seal), if anything."""
        status = self.get("/v1/status")
        assert isinstance(status, dict)
        return status["daemon"].get("busy")

    def wait_unbusy(self, timeout: float = 900.0) -> float:
        """Seconds waited until the store is no longer busy (an idle index build ended)."""
        started = time.monotonic()
        while self.busy() and time.monotonic() - started < timeout:
            time.sleep(0.2)
        return time.monotonic() - started

    def found(self, name: str) -> bool:
        try:
            hits = self.get("/v1/search", q=name, limit=3)
            assert isinstance(hits, list)
            return any(hit["qualname"] == name for hit in hits)
        except urllib.error.HTTPError as exc:
            if exc.code == 503:  # building its vector index: not searchable yet
                return False
            raise

    def commit_to_searchable(self, i: int, *, timeout: float = 60.0) -> float:
        """Seconds from starting a one-file `git commit` to its new function being found."""
        name = f"bench_probe_{i}_{os.getpid()}"
        target = self.repo / "probe" / f"probe_{i % 3}.py"
        target.parent.mkdir(exist_ok=True)
        previous = target.read_text() if target.exists() else ""
        target.write_text(previous + f'\n\ndef {name}(value):\n    """Probe {i}."""\n    return value + {i}\n')
        run("git", "add", "-A", cwd=self.repo, env=self.env)
        started = time.monotonic()
        run("git", "commit", "-qm", f"probe {i}", cwd=self.repo, env=self.env)
        while time.monotonic() - started < timeout:
            if self.found(name):
                return time.monotonic() - started
            time.sleep(0.02)
        return float("inf")

    def latencies(self, commits: int) -> list[float]:
        """After the first index's build (commits made during one: ``bench_build_commits``)."""
        self.commit_to_searchable(10_000, timeout=900)  # warm
        self.wait_unbusy()
        return [self.commit_to_searchable(i) for i in range(commits)]

    def rss_mb(self) -> dict[str, float]:
        """Resident MB: ``VmRSS`` whole, ``RssAnon`` (the process's own memory) and
        ``RssFile`` (mapped files: the store's vectors, indexes and write-ahead log, the
        libraries; clean pages the kernel takes back under pressure)."""
        status = Path(f"/proc/{self.proc.pid}/status").read_text()
        rows = dict(row.split(":", 1) for row in status.splitlines() if ":" in row)
        return {key: int(rows[key].split()[0]) / 1024 for key in ("VmRSS", "RssAnon", "RssFile")}

    def cli_search_walls(self, rounds: int = 10) -> list[float]:
        walls = []
        for _ in range(rounds):
            started = time.monotonic()
            run(ENTRY_POINT, "search", "parse the config file", "--limit", "5", env=self.env)
            walls.append(time.monotonic() - started)
        return walls

    def heavy_client_imports(self) -> list[str]:
        done = subprocess.run(
            [sys.executable, "-X", "importtime", "-m", "recalld.daemon.cli", "search", "x"],
            env=self.env, capture_output=True, text=True, check=True,
        )  # fmt: skip
        imported = {line.split("|")[-1].strip() for line in done.stderr.splitlines() if line.startswith("import time:")}
        return sorted(m for m in imported if m.split(".")[0] in HEAVY)


def median(values: list[float]) -> float:
    return statistics.median(values) if values else float("nan")
