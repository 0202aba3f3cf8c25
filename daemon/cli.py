"""The ``recalld`` command line."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from recalld.daemon import admin, agent, commands, repos
from recalld.daemon.admin import nonblank
from recalld.daemon.config import (CHANGES_LIMIT, CHANGES_MAX, MEMORY_TYPES, OUTLINE_LIMIT, OUTLINE_MAX, RECENT_LIMIT,
                                   RECENT_MAX, SEARCH_LIMIT, load_config)
from recalld.daemon.context import run_command
from recalld.daemon.status import status as status_command
from recalld.daemon.terminal import OutputError, VisibleOutput, drop_output, one_line
from recalld.daemon.vocabulary import LANGUAGE_NAMES, check_kinds, check_language
from recalld.ingest.errors import RecalldError
from recalld.ingest.gitnames import is_utf8

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2
# Commands whose stdout is not for a terminal: the daemon, and MCP's protocol on stdio.
RAW_OUTPUT = ("serve", "mcp")

DESCRIPTION = """\
recalld keeps an AI coding agent's memory of git repositories exact: one memory per
module, class, function and method of the tracked branch's tip, versioned in Qdrant.
State lives in $RECALLD_HOME (default: the XDG data dir); config in $RECALLD_CONFIG,
else $RECALLD_HOME/config.toml when RECALLD_HOME is set, else the XDG config dir."""

EPILOG = """\
examples:
  recalld repo add ~/src/project           register a repository (tracks its checked-out branch)
  recalld sync                             index every registered repository
  recalld search "parse the config file"   semantic search over current memories
  recalld symbol Config.load               a symbol's code, signature and provenance
  recalld symbol Config.load --as-of v1.2  the version valid at that commit, with its lines then
  recalld outline src/config.py            the symbols of a file (a directory, a glob) in order
  recalld changes --since v1.2             what changed in the code since then: added, modified, moved, ...
  recalld export --repo project > mem.jsonl
  recalld remember "releases are cut on Thursdays" --repo project --type decision

exit codes: 0 ok, 1 expected failure (message on stderr), 2 usage error"""


class _Version(argparse.Action):
    """``--version``: the installed distribution's version, looked up only when asked."""

    def __init__(self, option_strings: Sequence[str], dest: str, help: str | None = None) -> None:  # noqa: A002
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS, help=help)

    def __call__(self, parser: argparse.ArgumentParser, namespace: Any, values: Any, option: str | None = None) -> None:
        from importlib.metadata import PackageNotFoundError, version

        try:
            found = version("recalld")
        except PackageNotFoundError:
            found = "unknown (not installed)"
        print(f"recalld {found}")
        parser.exit()


COMMAND_PARSER = "command_parser"  # the parser of the command given, in the arguments read
COMMAND_MISSING = "command_missing"  # the choice of a command (or ``repo``'s action) the arguments must make


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="recalld",
        description=DESCRIPTION,
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("-v", "--verbose", action="store_true", help="log progress to stderr")
    parser.add_argument("--version", action=_Version, help="print recalld's version and exit")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

    repo = sub.add_parser("repo", help="register, list, re-point and remove repositories")
    repo_sub = repo.add_subparsers(dest="repo_command", metavar="ACTION", required=True)
    add = repo_sub.add_parser("add", help="register a git repository")
    add.add_argument("path", type=nonblank, help="path to the repository (work tree or bare)")
    add.add_argument("--name", help="name to refer to it by (default: the directory name)")
    add.add_argument("--branch", type=nonblank, help="branch to track: a local branch, or remote/branch such as"
                     " origin/main (what webhook-triggered fetches move; default: the checked-out branch)")
    add.set_defaults(handler=repos.repo_add)
    lst = repo_sub.add_parser("list", help="list registered repositories")
    lst.add_argument("--json", action="store_true", help="one JSON object per line")
    lst.set_defaults(handler=repos.repo_list)
    edit = repo_sub.add_parser(
        "set", help="re-point a registration to another path or branch, keeping its manual memories",
        description="Re-point a registered repository that moved, was cloned again, or whose branch was renamed or"
        " deleted. Another path (a clone or checkout of the same repository) keeps every memory: the next sync"
        " compares them with the branch there. Another branch that goes on from the old one (a rename, or one holding"
        " the indexed commit) has the old branch's memories carried to it with their history; any other drops them"
        " (manual ones are kept) and the next sync indexes its tip. A shared store (a Qdrant server) keeps the old"
        " branch's memories for its other writers. Stop the daemon first.",
    )  # fmt: skip
    edit.add_argument("name", help="the registered name (recalld repo list)")
    edit.add_argument("--path", type=nonblank, help="the repository's new place (work tree or bare)")
    edit.add_argument("--branch", type=nonblank, help="the branch to track instead: a local branch, or remote/branch")
    edit.set_defaults(handler=repos.repo_set)
    rm = repo_sub.add_parser(
        "remove", help="unregister a repository and delete its memories",
        description="Unregister a repository and delete its memories, manual ones too (export them first). A shared"
        " store (a Qdrant server's collection) keeps them for its other writers unless --purge is given. With"
        " --branch, delete only the memories of a branch it does not follow (one it followed before a rename or"
        " `repo set --branch`) and keep the registration. Stop the daemon first.",
    )  # fmt: skip
    rm.add_argument("name", help="the registered name (recalld repo list)")
    rm.add_argument("--branch", type=nonblank, help="delete only this branch's memories (not the followed one's); on a"
                    " shared store with --purge")  # fmt: skip
    rm.add_argument("--purge", action="store_true", help="delete its memories from a shared store too, for every"
                    " writer (also a name no longer registered here)")  # fmt: skip
    rm.set_defaults(handler=repos.repo_remove)

    sync = sub.add_parser("sync", help="bring memories to the tip of the tracked branch")
    sync.add_argument("names", nargs="*", metavar="NAME", help="repositories to sync (default: all)")
    sync.add_argument("--full", action="store_true", help="re-read every file, not only what git says changed")
    sync.add_argument("--json", action="store_true", help="one JSON object per repository")
    sync.set_defaults(handler=commands.sync)

    search = sub.add_parser(
        "search", help="search memories: meaning and keywords (identifiers, paths) fused",
        description="Hybrid search: the query's embedding and its keywords (identifiers split at _, case"
        " changes, dots, dashes and slashes) each rank the memories; Qdrant fuses the two rankings (RRF)."
        " A name the query writes as code (parse_config, HTTPServer, Repo.diff(), geo::Widget; or its one"
        " word) puts the memories of that name or qualified name first."
        " Deprecated and untrusted memories are left out unless asked for.",
    )  # fmt: skip
    search.add_argument("query", type=nonblank, help="what to look for: words, identifiers, paths")
    search.add_argument("--repo", metavar="NAME",
                        help="only this repository (needed for --as-of COMMIT when several are registered)")
    search.add_argument("--type", action="append", default=[], metavar="T", dest="type", type=_memory_type,
                        help=f"memory type: {', '.join(MEMORY_TYPES)} (repeatable)")
    search.add_argument("--kind", action="append", default=[], metavar="K", type=_kind,
                        help="refines --type: module, class, function, method, ...; commit; todo, fixme; adr;"
                        " ... (repeatable)")
    search.add_argument("--lang", metavar="L", type=_language, help=LANGUAGE_NAMES)
    search.add_argument("--path", metavar="GLOB", help="only paths matching GLOB (e.g. 'src/**/*.py')")
    search.add_argument("--tests", choices=("include", "exclude", "only"), default="include",
                        help="memories of test code (tests/, test_*.py, *_test.go, *.spec.ts, …): kept (default: ranked"
                        " below code of like score, search.test_weight, unless the query speaks of tests), left out"
                        " to find the code itself, or alone")
    search.add_argument("--include-deprecated", action="store_true", help="also closed (stale) versions")
    search.add_argument("--include-untrusted", action="store_true",
                        help="also memories from refs marked untrusted in config (left out by default)")
    search.add_argument("--as-of", metavar="COMMIT|DATE", type=nonblank, help=AS_OF_HELP)
    search.add_argument("--limit", type=_limit, default=10, metavar="N",
                        help=f"how many results, 1 to {SEARCH_LIMIT} (default 10)")
    # one or the other: `--format mem0 --json` printed the plain array, the last of them winning unsaid
    shape = search.add_mutually_exclusive_group()
    shape.add_argument("--format", choices=("text", "json", "mem0"), default="text",
                       help="text (default); json: an array of memories with provenance; mem0: Mem0's"
                       " {\"results\": [...]} shape with the repo as the group")
    shape.add_argument("--json", action="store_const", const="json", dest="format", help="same as --format json")
    search.set_defaults(handler=commands.search)  # fmt: skip

    symbol = sub.add_parser(
        "symbol", help="a symbol's memory by name: its code, signature, docstring and provenance",
        description="The memory of a symbol of a repository's tracked branch: by qualified name"
                    " ('InvoiceBuilder.add_line'), else by plain name ('add_line'), else by scope and name"
                    " ('Arg.fmt' finds Rust's '<Arg as Display>.fmt', 'Codec.decode' each Java overload)."
                    " Every match is printed with its code, live versions first.",
    )
    symbol.add_argument("qualname", type=nonblank, help="qualified name, plain name, or scope and name")
    symbol.add_argument("--repo", metavar="NAME", help="the repository (default: the one registered, or the one here)")
    symbol.add_argument("--path", metavar="PATH", help="only in this file, directory or glob")
    symbol.add_argument("--kind", metavar="K", type=_symbol_kind, help="module, class, function, method, ...")
    symbol.add_argument("--include-deprecated", action="store_true", help="also its earlier, closed versions")
    symbol.add_argument("--as-of", metavar="COMMIT|DATE", type=nonblank, help=AS_OF_HELP)
    symbol.add_argument("--blame", action="store_true",
                        help="also who last changed each version's lines and when (git blame; the 'since ... by'"
                        " line names the commit whose sync first saw it, and who made that version)")
    symbol.add_argument("--json", action="store_true", help="the versions as one JSON list")
    symbol.set_defaults(handler=commands.symbol)  # fmt: skip

    outline = sub.add_parser(
        "outline", help="the symbols of a file, a directory or a glob, in the order they stand",
        description="The symbols of a file of a repository's tracked branch, or of the files under a directory"
                    " or matching a glob, in the order they stand: lines, kind, qualified name, signature and the"
                    " doc's first sentence, each file's own doc first; with --as-of, as they were then.",
    )
    outline.add_argument("path", type=nonblank, help="a file ('src/config.py'), a directory ('src/') or a glob"
                         " ('src/**/*.go') of the repository, from its top; in a subdirectory '.', './x' and '../x' are"
                         " read from there, as is a path that is there and not at the top")
    outline.add_argument("--repo", metavar="NAME", help="the repository (default: the one registered, or the one here)")
    outline.add_argument("--as-of", metavar="COMMIT|DATE", type=nonblank, help=AS_OF_HELP)
    outline.add_argument("--limit", type=_outline_limit, default=OUTLINE_LIMIT, metavar="N",
                         help=f"list at most N symbols, 1 to {OUTLINE_MAX} (default {OUTLINE_LIMIT})")
    outline.add_argument("--blame", action="store_true",
                         help="also the commit that last changed each file and each symbol's lines, its date and"
                         " author (git blame, each file once)")
    outline.add_argument("--json", action="store_true", help="the outline as one JSON object")
    outline.set_defaults(handler=commands.outline)  # fmt: skip

    changes = sub.add_parser(
        "changes", help="what changed in a repository's code since a commit or date (or its latest commits)",
        description="With --since: every symbol of a repository's tracked branch added, modified, renamed, moved to"
                    " another file or removed from that commit or date to the indexed commit (or --until), paired"
                    " by lineage, each as it was then and as it is now; the commits between. Without: its latest"
                    " commits (or symbol versions opened and closed).",
    )  # fmt: skip
    changes.add_argument("--repo", metavar="NAME", help="the repository (default: the one registered, or the one here)")
    changes.add_argument("--since", metavar="COMMIT|DATE", type=nonblank, help="a commit of the tracked branch (id,"
                         " tag, HEAD~5) or an ISO date (end of that day, UTC): e.g. the commit an agent last worked at")
    changes.add_argument("--until", metavar="COMMIT|DATE", type=nonblank, help="with --since: to this commit or date"
                         " (default: the indexed commit)")
    changes.add_argument("--path", metavar="GLOB", type=nonblank, help="with --since: only what was or is under this"
                         " file, directory or glob ('src/', '**/*.go')")
    changes.add_argument("--limit", type=_changes_limit, default=None, metavar="N",
                         help=f"list at most N: changes, 1 to {CHANGES_MAX} (default {CHANGES_LIMIT}); without"
                         f" --since commits, 1 to {RECENT_MAX} (default {RECENT_LIMIT})")
    changes.add_argument("--json", action="store_true", help="the answer as one JSON object")
    changes.set_defaults(handler=agent.run_changes)  # fmt: skip

    export = sub.add_parser("export", help="every memory as JSON Lines on stdout",
                            description="Every memory valid now (or at --as-of), one JSON object a line.")
    export.add_argument("--repo", metavar="NAME", help="only this repository (needed for --as-of COMMIT when several"
                        " are registered)")
    export.add_argument("--include-deprecated", action="store_true", help="also closed (stale) versions")
    export.add_argument("--as-of", metavar="COMMIT|DATE", type=nonblank, help=AS_OF_HELP)
    export.set_defaults(handler=commands.export)

    status = sub.add_parser("status", help="repositories, indexed commit, lag and memory counts")
    status.add_argument("--json", action="store_true", help="the report as one JSON object")
    status.set_defaults(handler=status_command)
    agent.add_commands(sub)
    admin.add_commands(sub)
    _every_command(parser)
    return parser


def _every_command(parser: argparse.ArgumentParser) -> None:
    """``-v`` after a command as before it (``recalld sync -v``, as ``recalld -v sync``):
    each command's parser takes it too, and sets it only when given (it would otherwise
    undo the one before the command). And each names itself (``COMMAND_PARSER``), for
    ``main`` to refuse an argument it does not know with its own usage, and its command
    to choose (``COMMAND_MISSING``): argparse would ask for that first (``recalld
    --bogus``: "COMMAND required")."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            if action.required:  # asked for by ``main``, after the arguments it does not know
                action.required = False
                parser.set_defaults(**{COMMAND_MISSING: action})
            for command in dict.fromkeys(action.choices.values()):  # an alias's parser is its command's
                command.add_argument("-v", "--verbose", action="store_true", default=argparse.SUPPRESS,
                                     help="log progress to stderr")  # fmt: skip
                command.set_defaults(**{COMMAND_PARSER: command})
                _every_command(command)


AS_OF_HELP = ("what was valid then, with the lines it had: a commit of the tracked branch (id, ref, HEAD~3) or an"
              " ISO date (end of that day, UTC) / datetime")


def _memory_type(text: str) -> str:
    """A usage error (2) like the other filters' bad values, where the search's refusal exited 1."""
    if text not in MEMORY_TYPES:
        raise argparse.ArgumentTypeError(f"unknown memory type {text!r}: {', '.join(MEMORY_TYPES)}")
    return text


def _language(text: str) -> str:
    """A language recalld reads, a usage error like ``--type``'s (one no memory has is a note)."""
    return _usage(check_language, text)


def _kind(text: str) -> str:
    return _usage(lambda kind: check_kinds([kind]), text)


def _symbol_kind(text: str) -> str:
    return _usage(lambda kind: check_kinds([kind], symbols=True), text)


def _usage(check: Callable[[str], object], text: str) -> str:
    """``text``, where ``check`` takes it; else its refusal as argparse's usage error."""
    try:
        check(text)
    except RecalldError as exc:
        raise argparse.ArgumentTypeError(exc.message) from None
    return text


def _limit(text: str, most: int = SEARCH_LIMIT) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if not 1 <= value <= most:
        raise argparse.ArgumentTypeError(f"must be 1 to {most}, not {value}")
    return value


def _outline_limit(text: str) -> int:
    return _limit(text, OUTLINE_MAX)


def _changes_limit(text: str) -> int:
    return _limit(text, CHANGES_MAX)


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args, unknown = parser.parse_known_args(argv)
    command: argparse.ArgumentParser = vars(args).pop(COMMAND_PARSER, parser)
    choice: argparse.Action | None = vars(args).pop(COMMAND_MISSING, None)
    if unknown:  # said by the command's parser: its usage shows what it takes
        command.error(f"unrecognized arguments: {' '.join(unknown)}")
    if choice is not None and getattr(args, choice.dest, None) is None:
        command.error(f"the following arguments are required: {choice.metavar}")
    if args.command == "changes" and args.since is None:
        if (args.limit or 0) > RECENT_MAX:  # what --limit reads
            command.error(f"argument --limit: must be 1 to {RECENT_MAX} without --since, not {args.limit}")
        if args.until or args.path:  # exit 1 before, through the daemon too, as if it could not be done
            command.error("--until and --path narrow the changes since a commit or date: give --since too")
    undecodable = _not_utf8(args)
    if undecodable is not None:  # a Latin-1 terminal's argument: no query, path or store can hold it
        shown = undecodable.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
        print(f"recalld: argument '{shown}' is not UTF-8 text (is the terminal's locale UTF-8?)", file=sys.stderr)
        return EXIT_USAGE
    stdout = sys.stdout
    if args.command not in RAW_OUTPUT:  # what the repositories hold, shown safe for a terminal
        sys.stdout = VisibleOutput(stdout)
    try:
        return _run(args)
    finally:
        sys.stdout = stdout


def _run(args: argparse.Namespace) -> int:
    """The command's exit code. What stdout still buffers is written here, where a write
    that fails (a full disk) is said on one line, not with a traceback by Python at exit."""
    try:
        code = _handled(args)
        try:
            sys.stdout.flush()
        except OSError as exc:  # serve's and mcp's stdout, not a VisibleOutput
            raise OutputError(exc) from exc
        return code
    except OutputError as exc:
        drop_output(sys.stdout)
        if exc.closed:  # `recalld export | head`
            return EXIT_OK
        print(f"recalld: {exc.message}", file=sys.stderr)
        return EXIT_FAILED


def _handled(args: argparse.Namespace) -> int:
    config = None
    try:
        config = load_config()
        from recalld.daemon.logs import configure_logging

        level = config.get("log", "level") if args.verbose or args.command == "serve" else "warning"
        configure_logging(level=level, fmt=config.get("log", "format"), deferred=args.command != "serve")
        return run_command(config, args.handler, args)
    except RecalldError as exc:
        print(f"recalld: {one_line(exc.message)}", file=sys.stderr)
        return exc.exit_code
    except KeyboardInterrupt:
        print("recalld: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return EXIT_OK
    except OSError as exc:  # the state directory where no directory can be (RECALLD_HOME=/proc/x): a traceback
        if config is None or not exc.filename or not Path(str(exc.filename)).is_relative_to(config.home):
            raise
        print(f"recalld: the state directory cannot be used: {exc.strerror or exc} ({one_line(str(exc.filename))})",
              file=sys.stderr)  # fmt: skip
        return EXIT_FAILED


def _not_utf8(args: argparse.Namespace) -> str | None:
    """The first argument that Python read from bytes that are not UTF-8 (as surrogate
    escapes), if any."""
    for value in vars(args).values():
        for text in value if isinstance(value, list) else [value]:
            if isinstance(text, str) and not is_utf8(text):
                return text
    return None


if __name__ == "__main__":
    from recalld.daemon.program import exit_now

    exit_now(main())
