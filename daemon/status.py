"""``recalld status``: the daemon's report, or with none running the store's own.

While another command holds the embedded store (a ``recalld sync`` run by hand), what
only the store knows (memories, the indexed commit: a checkpoint is a point in the store)
is left out: the report names the registered repositories, their branches' tips from git,
and which process holds the store, and the command exits 0.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from recalld.daemon.commands import EXIT_OK, emit_json
from recalld.daemon.terminal import one_line
from recalld.ingest.errors import DaemonStartedError, RecalldError

RECALLD_MODULES = ("recalld.daemon.cli", "recalld.daemon.program")  # run as ``python -m …``


def status(ctx: Any, args: argparse.Namespace) -> int:
    report = _report(ctx)
    report["state_dir"] = str(ctx.config.home)
    if args.json:
        emit_json(report)
    else:
        _print(report)
    return EXIT_OK


def _report(ctx: Any) -> dict[str, Any]:
    daemon = ctx.daemon()
    if daemon is not None:
        return dict(daemon.request("GET", "/v1/status"))
    from recalld.daemon.query import repo_status, vectors_status
    from recalld.ingest.store import StoreLockedError

    try:
        return {
            "daemon": {"state": "stopped", "pid": None},
            "vectors": vectors_status(ctx.app),
            "repos": [repo_status(ctx.app, e.name) for e in ctx.app.registry.all()],
        }
    except RecalldError as exc:  # a daemon that took the store meanwhile is asked instead (``run_command``)
        if isinstance(exc, DaemonStartedError) or not isinstance(exc.__cause__, StoreLockedError):
            raise
    return _held_report(ctx)


def _held_report(ctx: Any) -> dict[str, Any]:
    """What is known while another process holds the embedded store: the registrations and
    their branches' tips (``lag``), the holder (``store_holder``)."""
    from recalld.daemon.query import lag
    from recalld.ingest.store_lock import LOCK_NAME

    pid, command = store_holder(ctx.config.store_path / LOCK_NAME)
    by = f"{command} (pid {pid})" if command else f"another process (pid {pid})"
    repos = [{"repo": e.name, "path": e.path, "branch": e.branch, "indexed_commit": None, **lag(e, None)}
             for e in ctx.registry.all()]  # fmt: skip
    holder = {"pid": pid, "command": command}
    return {"daemon": {"state": "stopped", "pid": None, "busy": f"the store is in use by {by}", "store_holder": holder},
            "vectors": None, "repos": repos}  # fmt: skip


def store_holder(lock: Path) -> tuple[int | None, str | None]:
    """The pid the holder of the store's ``lock`` wrote there, and the recalld command it
    runs (``recalld sync``) where its command line says one (Linux's /proc), else None."""
    try:
        pid = int(lock.read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return None, None
    try:
        words = Path(f"/proc/{pid}/cmdline").read_bytes().decode("utf-8", "replace").split("\0")
    except OSError:
        return pid, None
    return pid, recalld_command(words)


def recalld_command(words: list[str]) -> str | None:
    """``recalld COMMAND`` of a command line that runs recalld (its script, or ``python -m``
    its module), else None; ``repo``'s action too (``recalld repo remove``)."""
    start = next((i + 1 for i, word in enumerate(words)
                  if Path(word).name == "recalld" or word in RECALLD_MODULES), None)  # fmt: skip
    if start is None:
        return None
    named = [word for word in words[start:] if word and not word.startswith("-")]
    if not named:
        return "recalld"
    return " ".join(["recalld", *named[:2 if named[0] == "repo" else 1]])


def _print(report: dict[str, Any]) -> None:
    d = report["daemon"]
    # a store taken by its index build or another command, or a Qdrant server not answering: counts left out below
    held = d.get("busy") or d.get("store_error")
    busy = f"; {held}" if held else ""
    restarts = f", restarted {d['restarts']}x to give back memory" if d.get("restarts") else ""
    print(f"daemon: {d['state']}" + (f" (pid {d['pid']}{restarts})" if d.get("pid") else "") + busy)
    vectors = report.get("vectors") or {"current": True}  # a daemon of an earlier version, or a store held
    if not vectors["current"]:
        print(f"vectors: of {vectors['stored'] or 'two models (a re-embedding under way or interrupted)'}; "
              f"the daemon's start or the next sync embeds every memory again for {vectors['configured']}")  # fmt: skip
    if not report["repos"]:
        print("no repositories registered")
    for s in report["repos"]:
        if "memories" not in s:
            _print_unknown_counts(s, d)
            continue
        indexed = (s["indexed_commit"] or "never")[:8]
        behind = "?" if s["commits_behind"] is None else s["commits_behind"]
        extra = "".join(
            f"\t{key} {one_line(s[key])}"
            for key in ("queue_depth", "watcher", "last_error", "fetch_error")
            # a sync that failed for the reason ``error`` gives is said once, by it
            if s.get(key) not in (None, 0) and not (key == "last_error" and s["error"] and s["error"] in s[key])
        ) + ("\tcommit history still backfilling" if s.get("history_owed") else "") + (
            "\tno commit yet" if s.get("empty") else "") + _others(s)
        line = (f"{s['repo']}\t{s['branch']}\tindexed {indexed}\tbehind {behind}\t"
                f"{s['memories']} memories ({s['deprecated']} deprecated){extra}")  # fmt: skip
        print(line + (f"\terror: {one_line(s['error'])}" if s["error"] else ""))


def _others(s: dict[str, Any]) -> str:
    """The branches the store holds of a repository beside the one it follows (other
    writers' on a shared store; `recalld repo remove NAME --branch B` deletes one)."""
    others = s.get("other_branches") or {}
    held = ", ".join(f"{one_line(branch)} ({count} memories)" for branch, count in others.items())
    return f"\tother branches held: {held}" if held else ""


def _print_unknown_counts(s: dict[str, Any], d: dict[str, Any]) -> None:
    """A repository's line while what only the store knows is unknown."""
    until = "the store answers" if d.get("store_error") else "the store is free"
    queued = f"\tqueue_depth {s['queue_depth']}" if "queue_depth" in s else ""
    tip = f"\ttip {s['tip'][:8]}" if s.get("tip") else ""
    error = f"\terror: {one_line(s['error'])}" if s.get("error") else ""
    print(f"{s['repo']}\t{s['branch']}{tip}{queued}\t(memories: once {until}){error}")
