"""Commands for agents: remember and forget manual memories, serve MCP over stdio.

remember and forget go through the running daemon when one owns the store and work on
the store directly when none does; `recalld mcp` always talks to the daemon."""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import asdict
from typing import Any

from recalld.ingest.manual import MANUAL_TYPES, ManualMemory, default_author

EXIT_OK = 0

SCOPE_HELP = """\
scope: --repo NAME (a registered repository), --user NAME, --org NAME; give at least one,
all given are recorded. The same text in the same scope is the same memory (idempotent)."""


def add_commands(sub: Any) -> None:
    remember = sub.add_parser(
        "remember", help="store a manual memory (what git cannot know)", epilog=SCOPE_HELP,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )  # fmt: skip
    remember.add_argument("text")
    remember.add_argument("--repo", metavar="NAME", help="a registered repository it is about")
    remember.add_argument("--type", default="note", choices=MANUAL_TYPES, help="default: note")
    remember.add_argument("--user", metavar="NAME", help="a user it belongs to")
    remember.add_argument("--org", metavar="NAME", help="an organisation it applies to")
    remember.add_argument("--json", action="store_true", help="the result as a JSON object")
    remember.set_defaults(handler=run_remember)

    forget = sub.add_parser("forget", help="close a manual memory (others follow git and cannot be forgotten)")
    forget.add_argument("id", help="the id `recalld remember` printed")
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
    scope = ", ".join(f"{key} {m[key]}" for key in ("repo", "user", "org") if m.get(key))
    said = {"unchanged": "already remembered", "created": "remembered"}.get(result["status"], result["status"])
    print(f"{said}: {m['type']} ({scope})", file=sys.stderr)
    return EXIT_OK


def run_forget(ctx: Any, args: argparse.Namespace) -> int:
    daemon = ctx.daemon()
    if daemon is not None:
        result = daemon.request("DELETE", f"/v1/memories/{args.id}")
    else:
        from recalld.daemon.memories import forget

        result = forget(ctx.app, args.id)
    if args.json:
        print(json.dumps(result, ensure_ascii=False))
    else:
        print(f"{'forgot' if result['status'] == 'forgotten' else result['status']} {result['id']}")
    return EXIT_OK


def run_mcp(ctx: Any, _args: argparse.Namespace) -> int:
    from recalld.daemon.mcp_server import serve_stdio

    serve_stdio(ctx.config)
    return EXIT_OK
