"""The ``recalld`` command line."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from recalld.daemon.config import load_config
from recalld.ingest.errors import RecalldError

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2

DESCRIPTION = """\
recalld keeps an AI coding agent's memory of git repositories exact: one memory per
module, class, function and method of the tracked branch's tip, versioned in Qdrant.
State lives in $RECALLD_HOME (default: the XDG data dir); config in
$RECALLD_HOME/config.toml (default: the XDG config dir)."""

EPILOG = """\
examples:
  recalld repo add ~/src/project           register a repository (tracks its checked-out branch)
  recalld sync                             index every registered repository
  recalld search "parse the config file"   semantic search over current memories
  recalld export --repo project > mem.jsonl

exit codes: 0 ok, 1 expected failure (message on stderr), 2 usage error"""


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="recalld",
        description=DESCRIPTION,
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("-v", "--verbose", action="store_true", help="log progress to stderr")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

    repo = commands.add_parser("repo", help="register, list and remove repositories")
    repo_commands = repo.add_subparsers(dest="repo_command", metavar="ACTION", required=True)
    add = repo_commands.add_parser("add", help="register a git repository")
    add.add_argument("path", help="path to the repository (work tree or bare)")
    add.add_argument("--name", help="name to refer to it by (default: the directory name)")
    add.add_argument("--branch", help="branch to track (default: the checked-out branch)")
    add.set_defaults(handler=_repo_add)
    lst = repo_commands.add_parser("list", help="list registered repositories")
    lst.add_argument("--json", action="store_true", help="one JSON object per line")
    lst.set_defaults(handler=_repo_list)
    rm = repo_commands.add_parser("remove", help="unregister a repository and delete its memories")
    rm.add_argument("name")
    rm.set_defaults(handler=_repo_remove)

    sync = commands.add_parser("sync", help="bring memories to the tip of the tracked branch")
    sync.add_argument("names", nargs="*", metavar="NAME", help="repositories to sync (default: all)")
    sync.add_argument("--full", action="store_true", help="re-read every file, not only what git says changed")
    sync.add_argument("--json", action="store_true", help="one JSON object per repository")
    sync.set_defaults(handler=_sync)

    search = commands.add_parser("search", help="search current memories by meaning")
    search.add_argument("query")
    search.add_argument("--repo", metavar="NAME")
    search.add_argument("--kind", action="append", default=[], metavar="K",
                        help="module, class, interface, struct, enum, trait, type, function, method (repeatable)")  # fmt: skip
    search.add_argument("--lang", metavar="L", help="python, javascript, typescript, tsx, go, rust, java")
    search.add_argument("--path", metavar="GLOB", help="only paths matching GLOB (e.g. 'src/**/*.py')")
    search.add_argument("--include-deprecated", action="store_true", help="also closed (stale) versions")
    search.add_argument("--limit", type=int, default=10, metavar="N")
    search.add_argument("--json", action="store_true", help="a JSON array")
    search.set_defaults(handler=_search)

    export = commands.add_parser("export", help="every memory as JSON Lines on stdout")
    export.add_argument("--repo", metavar="NAME")
    export.add_argument("--include-deprecated", action="store_true")
    export.set_defaults(handler=_export)

    status = commands.add_parser("status", help="repositories, indexed commit, lag and memory counts")
    status.add_argument("--json", action="store_true")
    status.set_defaults(handler=_status)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        config = load_config()
        from recalld.daemon.logs import configure_logging

        level = config.get("log", "level") if args.verbose else "warning"
        configure_logging(level=level, fmt=config.get("log", "format"))
        from recalld.daemon.app import App

        app = App(config)
        try:
            handler: Callable[[App, argparse.Namespace], int] = args.handler
            return handler(app, args)
        finally:
            app.close()
    except RecalldError as exc:
        print(f"recalld: {exc.message}", file=sys.stderr)
        return exc.exit_code
    except KeyboardInterrupt:
        print("recalld: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return EXIT_OK


def _emit_json(obj: Any) -> None:
    sys.stdout.write(json.dumps(obj, ensure_ascii=False) + "\n")


def _repo_add(app: Any, args: argparse.Namespace) -> int:
    from recalld.ingest.gitrepo import GitRepository

    path = Path(args.path).expanduser().resolve()
    git = GitRepository(path)
    branch = args.branch or git.current_branch()
    name = args.name or (path.name[:-4] if path.name.endswith(".git") else path.name)
    entry = app.registry.add(name, str(path), branch)
    print(f"registered {entry.name}: {entry.path} @ {entry.branch} (run `recalld sync {entry.name}`)")
    return EXIT_OK


def _repo_list(app: Any, args: argparse.Namespace) -> int:
    for entry in app.registry.all():
        if args.json:
            _emit_json({"name": entry.name, "path": entry.path, "branch": entry.branch})
        else:
            print(f"{entry.name}\t{entry.branch}\t{entry.path}")
    return EXIT_OK


def _repo_remove(app: Any, args: argparse.Namespace) -> int:
    app.registry.get(args.name)
    removed = app.indexer.remove_repo(args.name)
    app.registry.remove(args.name)
    print(f"removed {args.name} and its {removed} memories")
    return EXIT_OK


def _sync(app: Any, args: argparse.Namespace) -> int:
    from recalld.daemon.logs import get_logger
    from recalld.daemon.progress import TerminalProgress

    entries = [app.registry.get(n) for n in args.names] if args.names else app.registry.all()
    if not entries:
        raise RecalldError("no repositories registered: run `recalld repo add PATH` first")
    log = get_logger("recalld.sync")
    failed = 0
    for entry in entries:
        try:
            result = app.indexer.sync(
                repo=entry.name, path=entry.path, branch=entry.branch, full=args.full, progress=TerminalProgress()
            )
        except RecalldError as exc:
            failed += 1
            log.error("sync failed", repo=entry.name, error=exc.message)
            print(f"recalld: {entry.name}: {exc.message}", file=sys.stderr)
            continue
        log.info(result.summary(), **result.as_dict())
        if args.json:
            _emit_json(result.as_dict())
        else:
            print(result.summary())
    return EXIT_FAILED if failed else EXIT_OK


def _search(app: Any, args: argparse.Namespace) -> int:
    from recalld.daemon.query import SearchRequest, search

    request = SearchRequest(
        query=args.query,
        repo=args.repo,
        kinds=tuple(args.kind),
        language=args.lang,
        path_glob=args.path,
        include_deprecated=args.include_deprecated,
        limit=args.limit,
    )
    results = search(app, request)
    if args.json:
        _emit_json(results)
        return EXIT_OK
    for r in results:
        state = f" [deprecated: {r['deprecated_reason']}]" if r["deprecated"] else ""
        print(f"{r['score']:.3f}  {r['repo']}:{r['path']}:{r['start_line']}  {r['kind']} {r['qualname']}{state}")
        if r["signature"]:
            print(f"       {r['signature']}")
    if not results:
        print("no matching memories", file=sys.stderr)
    return EXIT_OK


def _export(app: Any, args: argparse.Namespace) -> int:
    from recalld.daemon.query import export

    for record in export(app, repo=args.repo, include_deprecated=args.include_deprecated):
        _emit_json(record)
    return EXIT_OK


def _status(app: Any, args: argparse.Namespace) -> int:
    from recalld.daemon.query import repo_status

    statuses = [repo_status(app, e.name) for e in app.registry.all()]
    if args.json:
        _emit_json({"state_dir": str(app.config.home), "repos": statuses})
        return EXIT_OK
    if not statuses:
        print("no repositories registered")
    for s in statuses:
        indexed = (s["indexed_commit"] or "never")[:8]
        behind = "?" if s["commits_behind"] is None else s["commits_behind"]
        line = f"{s['repo']}\t{s['branch']}\tindexed {indexed}\tbehind {behind}\t{s['memories']} memories ({s['deprecated']} deprecated)"
        print(line + (f"\terror: {s['error']}" if s["error"] else ""))
    return EXIT_OK


if __name__ == "__main__":
    sys.exit(main())
