"""Benchmark: hooks and the daemon. Not part of the test run.

Prints how long the installed git hooks take (daemon down, and a hung listener in the
daemon's place), and, with the daemon running, p50/p95 from `git commit` returning to
the new function being returned by `recalld search` over 20 commits; then, the daemon
left idle, how often its threads wake and the share of a core it uses (Linux: /proc).

    python tests/bench/bench_daemon.py [--commits 20] [--idle 30]
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ENV = {"GIT_AUTHOR_NAME": "bench", "GIT_AUTHOR_EMAIL": "b@example.invalid",
       "GIT_COMMITTER_NAME": "bench", "GIT_COMMITTER_EMAIL": "b@example.invalid"}  # fmt: skip


def run(*args: str, cwd: Path | None = None, env: dict[str, str]) -> str:
    return subprocess.run(args, cwd=cwd, env=env, check=True, capture_output=True, text=True).stdout


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def time_hooks(repo: Path, env: dict[str, str], rounds: int = 10) -> list[float]:
    timings = []
    for _ in range(rounds):
        started = time.perf_counter()
        subprocess.run([str(repo / ".git" / "hooks" / "post-commit")], cwd=repo, env=env, check=True)
        timings.append(time.perf_counter() - started)
        time.sleep(0.4)
    return timings


def idle_use(pid: int, seconds: float) -> tuple[float, float]:
    """Wakeups a second (voluntary context switches, summed over the threads) and the
    percent of one core the process used over ``seconds``."""

    def sample() -> tuple[int, int]:
        switches = 0
        for task in Path(f"/proc/{pid}/task").iterdir():
            try:
                status = (task / "status").read_text()
            except OSError:  # a thread that ended meanwhile
                continue
            switches += int(status.split("voluntary_ctxt_switches:")[1].split()[0])
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return switches, int(fields[11]) + int(fields[12])  # utime + stime, in clock ticks

    before = sample()
    time.sleep(seconds)
    after = sample()
    return (after[0] - before[0]) / seconds, 100 * (after[1] - before[1]) / os.sysconf("SC_CLK_TCK") / seconds


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--commits", type=int, default=20)
    parser.add_argument("--idle", type=float, default=30.0, help="seconds the idle daemon is watched (default 30)")
    args = parser.parse_args()
    recalld = [sys.executable, "-m", "recalld.daemon.cli"]
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        home = root / "home"
        home.mkdir()
        (home / "config.toml").write_text(f"[daemon]\nport = {port}\nsettle_ms = 50\n")
        env = {**os.environ, **ENV, "RECALLD_HOME": str(home)}
        repo = root / "repo"
        repo.mkdir()
        run("git", "init", "-q", "-b", "main", cwd=repo, env=env)
        (repo / "seed.py").write_text("def seed():\n    return 0\n")
        run("git", "add", "-A", cwd=repo, env=env)
        run("git", "commit", "-qm", "seed", cwd=repo, env=env)
        run(*recalld, "repo", "add", str(repo), env=env)
        run(*recalld, "hooks", "install", str(repo), env=env)

        down = time_hooks(repo, env)
        hung = socket.socket()
        hung.bind(("127.0.0.1", 0))
        hung.listen(1)
        (home / "daemon.json").write_text(json.dumps({"pid": os.getpid(), "address": f"http://127.0.0.1:{hung.getsockname()[1]}"}))
        stuck = time_hooks(repo, env)
        hung.close()
        (home / "daemon.json").unlink()

        proc = subprocess.Popen([*recalld, "serve"], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        started = time.monotonic()
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=1) as r:
                    if json.load(r)["state"] == "ready":
                        break
            except OSError:
                time.sleep(0.1)
        ready = time.monotonic() - started
        latencies = []
        for i in range(args.commits):
            name = f"bench_function_{i}_quux"
            (repo / f"m{i}.py").write_text(f'def {name}():\n    """Benchmark function {i}."""\n    return {i}\n')
            run("git", "add", "-A", cwd=repo, env=env)
            run("git", "commit", "-qm", f"c{i}", cwd=repo, env=env)
            committed = time.monotonic()
            while True:
                hits = json.loads(run(*recalld, "search", name, "--json", "--limit", "3", env=env))
                if any(h["qualname"] == name for h in hits):
                    latencies.append(time.monotonic() - committed)
                    break
                if time.monotonic() - committed > 30:
                    latencies.append(float("inf"))
                    break
        search_wall = []
        for _ in range(10):
            t = time.monotonic()
            run(*recalld, "search", "benchmark function", "--limit", "5", env=env)
            search_wall.append(time.monotonic() - t)
        time.sleep(6)  # its idle upkeep after the syncs (the model's memory given back) is done
        wakeups, cpu = idle_use(proc.pid, args.idle)
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=20)

    ms = lambda v: f"{v * 1000:7.1f} ms"  # noqa: E731
    print(f"hook, daemon down       p50 {ms(statistics.median(down))}  p95 {ms(percentile(down, 0.95))}  (target < 50 ms)")
    print(f"hook, daemon hung       p50 {ms(statistics.median(stuck))}  p95 {ms(percentile(stuck, 0.95))}  (target < 50 ms)")
    print(f"daemon start to ready   {ready:6.2f} s")
    print(f"commit → searchable     p50 {ms(statistics.median(latencies))}  p95 {ms(percentile(latencies, 0.95))}"
          f"  over {len(latencies)} commits (target < 2 s)")  # fmt: skip
    print(f"`recalld search` wall   p50 {ms(statistics.median(search_wall))}  (CLI through the daemon)")
    print(f"idle daemon             {wakeups:5.1f} wakeups/s, {cpu:.2f} % of a core over {args.idle:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
