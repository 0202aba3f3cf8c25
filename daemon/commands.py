"""The memory commands: repo, sync, search, export, status.

search, sync, status and export go through the running daemon when one owns the store
and work on the store directly when none does.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from recalld.ingest.errors import RecalldError

EXIT_OK, EXIT_FAILED = 0, 1


def emit_json(obj: Any) -> None:
    sys.stdout.write(json.dumps(obj, ensure_ascii=False) + "\n")


def repo_add(ctx: Any, args: argparse.Namespace) -> int:
    from recalld.ingest.gitrepo import GitRepository

    path = Path(args.path).expanduser().resolve()
    git = GitRepository(path)
    branch = args.branch or git.current_branch()
    if args.branch and not git.branch_exists(branch):
        raise RecalldError(f"no branch {branch!r} in {path} (a local branch, or remote/branch)")
    name = args.name or (path.name[:-4] if path.name.endswith(".git") else path.name)
    entry = ctx.app.registry.add(name, str(path), branch)
    running = " (the running daemon picks it up within seconds)" if ctx.daemon() else ""
    print(f"registered {entry.name}: {entry.path} @ {entry.branch} (run `recalld sync {entry.name}`){running}")
    return EXIT_OK


def repo_list(ctx: Any, args: argparse.Namespace) -> int:
    for entry in ctx.app.registry.all():
        if args.json:
            emit_json({"name": entry.name, "path": entry.path, "branch": entry.branch})
        else:
            print(f"{entry.name}\t{entry.branch}\t{entry.path}")
    return EXIT_OK


def repo_remove(ctx: Any, args: argparse.Namespace) -> int:
    if ctx.daemon():
        raise RecalldError("stop the daemon before removing a repository (it owns the store)")
    from recalld.ingest.store import MemoryFilter

    ctx.app.registry.get(args.name)
    manual = ctx.app.store.count(MemoryFilter(repo=args.name, kinds=("manual",), deprecated=None))
    removed = ctx.app.indexer.remove_repo(args.name)
    ctx.app.registry.remove(args.name)
    print(f"removed {args.name} and its {removed} memories ({manual} manual)")
    return EXIT_OK


def sync(ctx: Any, args: argparse.Namespace) -> int:
    from recalld.daemon.logs import get_logger
    from recalld.ingest.sync import SyncResult

    entries = [ctx.app.registry.get(n) for n in args.names] if args.names else ctx.app.registry.all()
    if not entries:
        raise RecalldError("no repositories registered: run `recalld repo add PATH` first")
    log = get_logger("recalld.sync")
    daemon = ctx.daemon()
    failed = 0
    for entry in entries:
        try:
            if daemon is not None:
                params = {"wait": "true", "full": "true" if args.full else None}
                result = SyncResult(**daemon.request("POST", f"/v1/repos/{entry.name}/sync", params, timeout=3600))
            else:
                result = _sync_here(ctx, entry, full=args.full)
        except RecalldError as exc:
            failed += 1
            log.error("sync failed", repo=entry.name, error=exc.message)
            print(f"recalld: {entry.name}: {exc.message}", file=sys.stderr)
            continue
        log.info(result.summary(), **result.as_dict())
        emit_json(result.as_dict()) if args.json else print(result.summary())
    return EXIT_FAILED if failed else EXIT_OK


def _sync_here(ctx: Any, entry: Any, *, full: bool) -> Any:
    from recalld.daemon.progress import TerminalProgress

    return ctx.app.indexer.sync(
        repo=entry.name, path=entry.path, branch=entry.branch, full=full, progress=TerminalProgress()
    )


def search(ctx: Any, args: argparse.Namespace) -> int:
    daemon = ctx.daemon()
    if daemon is not None:
        params = {"q": args.query, "repo": args.repo, "kind": args.kind or None, "lang": args.lang,
                  "path": args.path, "include_deprecated": "true" if args.include_deprecated else None,
                  "limit": args.limit}  # fmt: skip
        results = daemon.request("GET", "/v1/search", params)
    else:
        from recalld.daemon.query import SearchRequest
        from recalld.daemon.query import search as run_search

        request = SearchRequest(
            query=args.query,
            repo=args.repo,
            kinds=tuple(args.kind),
            language=args.lang,
            path_glob=args.path,
            include_deprecated=args.include_deprecated,
            limit=args.limit,
        )
        results = run_search(ctx.app, request)
    if args.json:
        emit_json(results)
        return EXIT_OK
    for r in results:
        state = f" [deprecated: {r['deprecated_reason']}]" if r["deprecated"] else ""
        if r["path"] is None:  # not about a file: a manual memory, a task...
            first = (r["text"] or "").splitlines()[0][:120] if r["text"] else ""
            print(f"{r['score']:.3f}  {r['repo'] or r['user'] or r['org']}  {r['type']} {r['kind']}: {first}{state}")
            continue
        print(f"{r['score']:.3f}  {r['repo']}:{r['path']}:{r['start_line']}  {r['kind']} {r['qualname']}{state}")
        if r["signature"]:
            print(f"       {r['signature']}")
    if not results:
        print("no matching memories", file=sys.stderr)
    return EXIT_OK


def export(ctx: Any, args: argparse.Namespace) -> int:
    daemon = ctx.daemon()
    if daemon is not None:
        params = {"repo": args.repo, "include_deprecated": "true" if args.include_deprecated else None}
        for line in daemon.lines("/v1/export", params):
            sys.stdout.write(line + "\n")
        return EXIT_OK
    from recalld.daemon.query import export as run_export

    for record in run_export(ctx.app, repo=args.repo, include_deprecated=args.include_deprecated):
        emit_json(record)
    return EXIT_OK


def status(ctx: Any, args: argparse.Namespace) -> int:
    daemon = ctx.daemon()
    if daemon is not None:
        report = daemon.request("GET", "/v1/status")
    else:
        from recalld.daemon.query import repo_status

        report = {
            "daemon": {"state": "stopped", "pid": None},
            "repos": [repo_status(ctx.app, e.name) for e in ctx.app.registry.all()],
        }
    report["state_dir"] = str(ctx.config.home)
    if args.json:
        emit_json(report)
        return EXIT_OK
    d = report["daemon"]
    print(f"daemon: {d['state']}" + (f" (pid {d['pid']})" if d.get("pid") else ""))
    if not report["repos"]:
        print("no repositories registered")
    for s in report["repos"]:
        indexed = (s["indexed_commit"] or "never")[:8]
        behind = "?" if s["commits_behind"] is None else s["commits_behind"]
        extra = "".join(
            f"\t{key} {s[key]}" for key in ("queue_depth", "watcher", "last_error") if s.get(key) not in (None, 0)
        )
        line = (f"{s['repo']}\t{s['branch']}\tindexed {indexed}\tbehind {behind}\t"
                f"{s['memories']} memories ({s['deprecated']} deprecated){extra}")  # fmt: skip
        print(line + (f"\terror: {s['error']}" if s["error"] else ""))
    return EXIT_OK
