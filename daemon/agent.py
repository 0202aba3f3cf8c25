"""Commands for agents: remember and forget manual memories, what changed since a commit,
serve MCP over stdio.

remember, forget and changes go through the running daemon when one owns the store and work on
the store directly when none does; `recalld mcp` always talks to the daemon."""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import asdict
from typing import Any

from recalld.daemon.admin import nonblank
from recalld.daemon.client import memory_path
from recalld.daemon.commands import LINE_FIELDS
from recalld.daemon.terminal import one_line, one_lined
from recalld.ingest.manual import MANUAL_TYPES, ManualMemory, default_author

EXIT_OK = 0
COMMITS_SHOWN, SUMMARY_SHOWN = 5, 100  # what `changes --since` prints of the commits between

SCOPE_HELP = """\
scope: --repo NAME (a registered repository), --user NAME, --org NAME; give at least one,
all given are recorded. The same text in the same scope is the same memory (idempotent)."""


def add_commands(sub: Any) -> None:
    remember = sub.add_parser(
        "remember", help="store a manual memory (what git cannot know)", epilog=SCOPE_HELP,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )  # fmt: skip
    remember.add_argument("text", help="what to remember: a fact, decision or preference (at most 8,000 characters)")
    remember.add_argument("--repo", metavar="NAME", help="a registered repository it is about")
    remember.add_argument("--type", default="note", choices=MANUAL_TYPES, help="default: note")
    remember.add_argument("--user", metavar="NAME", help="a user it belongs to")
    remember.add_argument("--org", metavar="NAME", help="an organisation it applies to")
    remember.add_argument("--json", action="store_true", help="the result as a JSON object")
    remember.set_defaults(handler=run_remember)

    forget = sub.add_parser("forget", help="close a manual memory (others follow git and cannot be forgotten)")
    forget.add_argument("id", type=nonblank, help="the id `recalld remember` printed")
    forget.add_argument("--json", action="store_true", help="the result as a JSON object")
    forget.set_defaults(handler=run_forget)

    mcp = sub.add_parser(
        "mcp", help="serve recalld's tools to an MCP client over stdio (talks to `recalld serve`)",
        description="An MCP server on stdin/stdout. Its tools call the running daemon; start it with `recalld serve`.",
    )  # fmt: skip
    mcp.set_defaults(handler=run_mcp)


def run_remember(ctx: Any, args: argparse.Namespace) -> int:
    memory = ManualMemory(args.text, args.type, args.repo, args.user, args.org, author=args.user or default_author())
    daemon = ctx.daemon()
    if daemon is not None:
        result = daemon.request("POST", "/v1/memories", body=asdict(memory))
    else:
        from recalld.daemon.memories import remember

        result = remember(ctx.app, memory)
    if args.json:
        print(json.dumps(result, ensure_ascii=False))
        return EXIT_OK
    print(result["id"])
    m = result["memory"]
    scope = ", ".join(f"{key} {one_line(m[key])}" for key in ("repo", "user", "org") if m.get(key))
    said = {"unchanged": "already remembered", "created": "remembered"}.get(result["status"], result["status"])
    print(f"{said}: {m['type']} ({scope})", file=sys.stderr)
    return EXIT_OK


def run_forget(ctx: Any, args: argparse.Namespace) -> int:
    daemon = ctx.daemon()
    if daemon is not None:
        result = daemon.request("DELETE", memory_path(args.id))
    else:
        from recalld.daemon.memories import forget

        result = forget(ctx.app, args.id)
    if args.json:
        print(json.dumps(result, ensure_ascii=False))
    else:
        print(f"{'forgot' if result['status'] == 'forgotten' else result['status']} {result['id']}")
    return EXIT_OK


def run_changes(ctx: Any, args: argparse.Namespace) -> int:
    from recalld.daemon.client import repo_path
    from recalld.daemon.here import only_repo, path_from_here

    repo = args.repo or only_repo(ctx)
    daemon = ctx.daemon()
    path = path_from_here(ctx, repo, args.path)
    asked = {"since": args.since, "until": args.until, "path": path, "limit": args.limit}
    if daemon is not None:
        found = daemon.request("GET", repo_path(repo, "changes"), asked)
    else:
        from recalld.daemon.changes import repo_changes

        found = repo_changes(ctx.app, repo, **asked)
    if args.json:
        print(json.dumps(found, ensure_ascii=False))
    elif args.since:
        print_changes(found)
    else:
        print_recent(found)
    return EXIT_OK


def print_changes(found: dict[str, Any]) -> None:
    """A summary line, the newest commits, then each file's changes (over several commits,
    each new version with the commit that wrote it and its author)."""
    counts = ", ".join(f"{n} {change}" for change, n in found["counts"].items() if n) or "no change"
    commits = found["commits"]
    print(f"{found['repo']}: {found['from_commit'][:8]} → {found['to_commit'][:8]}, {commits} commit"
          f"{'' if commits == 1 else 's'}: {counts}")  # fmt: skip
    for flag, commit, state in (("since", "since_commit", "from_commit"), ("until", "until_commit", "to_commit")):
        if found[commit] and found[commit] != found[state]:
            print(f"  (--{flag} is {found[commit][:8]}, which the index never synced to: it knew the branch at"
                  f" {found[state][:8]} before it)")  # fmt: skip
    if found.get("note"):
        print(f"  ({found['note']})")
    if found.get("commits_under") and found["newest_commits"]:
        print(f"  the newest that changed {found['commits_under']}:")
    for commit in found["newest_commits"][:COMMITS_SHOWN]:
        commit = one_lined(commit, ("summary", "author"))
        summary = commit["summary"]
        summary = summary if len(summary) <= SUMMARY_SHOWN else summary[: SUMMARY_SHOWN - 1] + "…"
        print(f"  {commit['commit'][:8]}  {summary}  ({commit['author'].split(' <')[0]})")
    if commits > COMMITS_SHOWN and not found.get("commits_under"):
        print(f"  … and {commits - COMMITS_SHOWN} earlier")
    where = None
    for change in found["changes"]:
        was, now = one_lined(change["was"], LINE_FIELDS), one_lined(change["now"], LINE_FIELDS)
        side = now or was
        if side["path"] != where:
            where = side["path"]
            print(f"\n{where}")
        name = side["qualname"] or ""
        line = f"  {change['change']:<8}  {side['kind']} {name}".rstrip()
        if change["change"] == "renamed":
            line += f"  (was {was['qualname']})"
        elif change["change"] == "moved":
            line += f"  (from {was['path']}" + (f" {was['qualname']}" if was["qualname"] != name else "") + ")"
        if change.get("what"):
            line += f"  [{', '.join(change['what'])}]"
        if change.get("reason"):
            line += f"  [{change['reason']}]"
        if now:
            line += f"  {now['start_line']}-{now['end_line']}"
        if now and commits > 1 and now.get("written_in"):  # which of the commits wrote it
            commit, by = now["written_in"][:8], (now.get("author") or "-").split(" <")[0]
            moved = change.get("what") == ["path"]  # code moved unchanged: none of the commits wrote it, mostly
            line += f"  (code written in {commit} by {by})" if moved else f"  ({commit} {by})"
        print(line)
        if now and now["signature"] and (not was or "signature" in change.get("what", ())):
            print(f"            {(was['signature'] + '  →  ') if was else ''}{now['signature']}")
    if found["truncated"]:
        shown = len(found["changes"])
        print(f"\n(the first {shown} change{'s' if shown != 1 else ''}: --limit N for more, or --path)")


def print_recent(found: dict[str, Any]) -> None:
    """The latest commits, or the symbol versions last opened and closed; why there are
    none (a repository never synced)."""
    if found.get("note"):
        print(f"{found['repo']}: {found['note']}", file=sys.stderr)
    for change in found["changes"]:
        change = one_lined(change, (*LINE_FIELDS, "subject"))
        if found["source"] == "task":
            author = (change.get("author") or "-").split(" <")[0]
            gone = "  [no longer on the branch]" if change.get("deprecated") else ""
            print(f"{(change.get('commit') or '')[:8]}  {change.get('subject') or ''}  ({author}){gone}")
        else:
            where = f"{change['path']}:{change['start_line']}"
            print(f"{change['event']:<6}  {where}  {change['kind']} {change['qualname']}")


def run_mcp(ctx: Any, _args: argparse.Namespace) -> int:
    from recalld.daemon.mcp_server import serve_stdio

    serve_stdio(ctx.config)
    return EXIT_OK
