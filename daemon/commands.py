"""The memory commands: sync, search, symbol, export (status: daemon/status.py; the repo commands: daemon/repos.py).

search, symbol, sync, status and export go through the running daemon when one owns the store
and work on the store directly when none does.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from typing import Any

from recalld.daemon.client import flag, repo_path
from recalld.daemon.here import noting_branch_here, only_repo, path_from_here
from recalld.daemon.terminal import one_line, one_lined
from recalld.ingest.errors import RecalldError

EXIT_OK, EXIT_FAILED = 0, 1
SYNC_WAIT = 86400  # seconds `recalld sync` waits for the daemon's sync, the API's most: a first index takes long


def emit_json(obj: Any) -> None:
    sys.stdout.write(json.dumps(obj, ensure_ascii=False) + "\n")


def sync(ctx: Any, args: argparse.Namespace) -> int:
    from recalld.daemon.logs import get_logger
    from recalld.ingest.result import SyncResult

    entries = ctx.app.registry.get_each(args.names) if args.names else ctx.app.registry.all()  # every unknown name
    if not entries:
        raise RecalldError("no repositories registered: run `recalld repo add PATH` first")
    log = get_logger("recalld.sync")
    daemon = ctx.daemon()
    failed = 0
    for entry in entries:
        try:
            if daemon is not None:
                params = {"wait": "true", "full": flag(args.full), "timeout": SYNC_WAIT}
                answer = daemon.request("POST", repo_path(entry.name, "sync"), params, timeout=SYNC_WAIT + 60)
                result = SyncResult(**answer)
            else:
                result = _sync_here(ctx, entry, full=args.full)
        except RecalldError as exc:
            failed += 1
            if args.verbose:  # as data beside the progress -v logs; else the line below says it once
                log.error("sync failed", repo=entry.name, error=exc.message)
            print(f"recalld: {entry.name}: {one_line(exc.message)}", file=sys.stderr)
            continue
        log.info(result.summary(), **result.as_dict())
        emit_json(result.as_dict()) if args.json else print(result.summary())
    return EXIT_FAILED if failed else EXIT_OK


def _sync_here(ctx: Any, entry: Any, *, full: bool) -> Any:
    from recalld.daemon.progress import TerminalProgress
    from recalld.daemon.branch_points import followed

    progress = TerminalProgress()
    entry = followed(ctx.app, entry, progress=progress)  # a branch git renamed is followed to its new name
    return ctx.app.indexer.sync(repo=entry.name, path=entry.path, branch=entry.branch, full=full, progress=progress)


def search(ctx: Any, args: argparse.Namespace) -> int:
    notes: list[str] = []
    args.path = path_from_here(ctx, args.repo, args.path)
    with noting_branch_here(ctx, args.repo, notes):
        results = _search(ctx, ctx.daemon(), args, notes)
    if args.format != "text":
        emit_json(results)
    else:
        for r in results:
            print_hit(r, as_of=bool(args.as_of))
        if not results:
            print("no matching memories", file=sys.stderr)
    _print_notes(notes)
    return EXIT_OK


def _search(ctx: Any, daemon: Any, args: argparse.Namespace, notes: list[str]) -> Any:
    """The records (a list; Mem0's shape, a dict, with ``--format mem0``), and into
    ``notes`` why they may not be what was asked (``query.search_noted``) and, unless
    ``--as-of``, where they may be stale: a repository whose path or branch is gone, which
    no sync can follow (the daemon says, as only it has pygit2 loaded); with no daemon to
    keep the store in line, also one whose memories lag its branch."""
    mem0 = args.format == "mem0"
    if daemon is not None:
        params = {"q": args.query, "repo": args.repo, "type": args.type or None, "kind": args.kind or None,
                  "lang": args.lang, "path": args.path,
                  "include_deprecated": flag(args.include_deprecated),
                  "include_untrusted": flag(args.include_untrusted),
                  "as_of": args.as_of, "format": "mem0" if mem0 else None, "limit": args.limit,
                  "tests": None if args.tests == "include" else args.tests}  # fmt: skip
        results, said = daemon.noted("GET", "/v1/search", params)
        notes.extend(said)
        return results
    from recalld.daemon.mem0 import mem0_results
    from recalld.daemon.query import SearchRequest, search_noted

    request = SearchRequest(
        query=args.query,
        repo=args.repo,
        types=tuple(args.type),
        kinds=tuple(args.kind),
        language=args.lang,
        path_glob=args.path,
        include_deprecated=args.include_deprecated,
        include_untrusted=args.include_untrusted,
        as_of=args.as_of,
        limit=args.limit,
        tests=args.tests,
    )
    records, said = search_noted(ctx.app, request)
    notes.extend(said)
    _note_stale(ctx, args.repo, args, notes)
    return mem0_results(records) if mem0 else records


# A memory's fields printed within a line: a tab or line end in them is shown escaped.
# More versions of a symbol than this are listed without their code (`recalld symbol`).
VERSIONS_IN_FULL = 5
BRIEF_SUBJECT = 60  # characters of a commit's subject `outline --blame` prints under each symbol
LINE_FIELDS = ("repo", "path", "kind", "qualname", "signature", "author", "doc", "deprecated_reason", "user", "org")


def closed_state(r: dict[str, Any], *, as_of: bool) -> str:
    """How a result that is closed now is marked: as of a commit it was valid then, and
    closed later."""
    if not r["deprecated"]:
        return ""
    return f" [{'later ' if as_of else ''}deprecated: {r['deprecated_reason']}]"


def print_hit(r: dict[str, Any], *, as_of: bool = False) -> None:
    """Two or three lines per result: where and what, the signature, the provenance."""
    r = one_lined(r, LINE_FIELDS)
    state = closed_state(r, as_of=as_of)
    state += " [untrusted]" if r.get("untrusted") else ""
    if r.get("path") is None:  # not about a file: a manual memory, a task...
        first = (r.get("text") or "").splitlines()[0][:120] if r.get("text") else ""
        owner = r["repo"] or r.get("user") or r.get("org")
        print(f"{r['score']:.3f}  {owner}  {r['type']} {r['kind']}: {first}{state}")
    else:
        print(f"{r['score']:.3f}  {r['repo']}:{r['path']}:{r['start_line']}  {r['kind']} {r['qualname']}{state}")
    if r.get("signature"):
        print(f"       {r['signature']}")
    print(f"       {r.get('type') or 'structural'} {provenance(r)}")


def provenance(r: dict[str, Any]) -> str:
    """``since <commit> until <commit> by <author>``, and ``in <commit>`` where the commit
    that wrote the version is another than the one its interval opened at (a first index's
    tip, a sync over several commits). A version that was there when its branch was first
    indexed says so, and who wrote it where the history read found that commit
    (``--blame`` tells who last changed its lines)."""
    since = (r.get("valid_from_commit") or "-")[:8]
    until = f" until {r['valid_to_commit'][:8]}" if r.get("valid_to_commit") else ""
    written = r.get("written_in") or ""
    by = f" by {r['author']}" if r.get("author") else ""
    by += f" in {written[:8]}" if by and written and written != r.get("valid_from_commit") else ""
    if r.get("change") == "indexed":  # ingest.records.INDEXED, not imported on the CLI's client path
        return f"since {since} (first indexed){until}{by}"
    return f"since {since}{until}{by or ' by -'}"


def symbol(ctx: Any, args: argparse.Namespace) -> int:
    repo = args.repo or only_repo(ctx)
    args.path = path_from_here(ctx, repo, args.path)
    notes: list[str] = []
    with noting_branch_here(ctx, repo, notes):
        versions = _symbol_versions(ctx, ctx.daemon(), repo, args, notes)
    if args.json:
        emit_json(versions)
    else:
        brief = len(versions) > VERSIONS_IN_FULL  # `symbol Command` in Django: 63 classes
        for number, version in enumerate(versions):
            if number and not brief:
                print()
            print_version(version, as_of=bool(args.as_of), code=not brief)
        if brief:
            print(f"\n({len(versions)} found, listed without their code: --path or --kind for fewer,"
                  " --json for all of it)")
    _print_notes(notes)
    return EXIT_OK


def _symbol_versions(ctx: Any, daemon: Any, repo: str, args: argparse.Namespace, notes: list[str]) -> Any:
    if daemon is not None:
        params = {"qualname": args.qualname, "path": args.path, "kind": args.kind,
                  "include_deprecated": flag(args.include_deprecated), "as_of": args.as_of,
                  "blame": flag(args.blame)}  # fmt: skip
        found, said = daemon.noted("GET", repo_path(repo, "symbols"), params)
        notes.extend(said)
        return found
    from recalld.daemon.memories import get_symbol

    found = get_symbol(ctx.app, repo, args.qualname, path=args.path, kind=args.kind,
                       include_deprecated=args.include_deprecated, as_of_text=args.as_of, notes=notes,
                       blame=args.blame)  # fmt: skip
    _note_stale(ctx, repo, args, notes)
    return found


def _note_stale(ctx: Any, repo: str | None, args: argparse.Namespace, notes: list[str]) -> None:
    """Where an answer read with no daemon may be stale (not ``--as-of``): the memories of ``repo``
    (or of every registration) lag its branch, or cannot follow it (``query.stale_repos``)."""
    if args.as_of is None:
        from recalld.daemon.query import stale_repos

        notes.extend(stale_repos(ctx.app, [ctx.app.registry.get(repo)] if repo else ctx.app.registry.all()))


def _print_notes(notes: list[str]) -> None:
    """Why an answer may not be what was asked, on stderr (``query.search_noted``, ``AsOf.note``)."""
    for line in notes:
        print(f"note: {one_line(line)}", file=sys.stderr)


def outline(ctx: Any, args: argparse.Namespace) -> int:
    repo = args.repo or only_repo(ctx)
    args.path = path_from_here(ctx, repo, args.path)
    notes: list[str] = []
    with noting_branch_here(ctx, repo, notes):
        found = _outline(ctx, ctx.daemon(), repo, args, notes)
    _print_outline(found, as_json=args.json)
    _print_notes(notes)
    return EXIT_OK


def _outline(ctx: Any, daemon: Any, repo: str, args: argparse.Namespace, notes: list[str]) -> Any:
    if daemon is not None:
        params = {"path": args.path, "limit": args.limit, "as_of": args.as_of, "blame": flag(args.blame)}
        found, said = daemon.noted("GET", repo_path(repo, "outline"), params)
        notes.extend(said)
        return found
    from recalld.daemon.memories import outline as read_outline

    found = read_outline(ctx.app, repo, args.path, as_of_text=args.as_of, limit=args.limit, notes=notes,
                         blame=args.blame)  # fmt: skip
    _note_stale(ctx, repo, args, notes)
    return found


def _print_outline(found: dict[str, Any], *, as_json: bool) -> None:
    if as_json:
        emit_json(found)
        return
    for number, file in enumerate(found["files"]):
        file = one_lined(file, ("path", "doc"))
        print(("\n" if number else "") + f"{file['path']}" + (f"  {file['doc']}" if file["doc"] else ""))
        if "last_changed" in file:
            print(f"  {last_changed_line(file['last_changed'], brief=True)}")
        within: list[int] = []  # the last lines of the symbols that hold this one: its depth, by lines (a
        for sym in file["symbols"]:  # dot in an overload's parameter types, ``t.Optional[str]``, is no scope)
            sym = one_lined(sym, LINE_FIELDS)
            while within and (sym["start_line"] or 0) > within[-1]:
                within.pop()
            depth = "  " * (1 + len(within))
            within.append(sym["end_line"] or 0)
            doc = f"  — {sym['doc']}" if sym["doc"] else ""
            print(f"{depth}{sym['start_line']}-{sym['end_line']}  {sym['kind']} {sym['qualname']}"
                  f"{'  ' + sym['signature'] if sym['signature'] else ''}{doc}")  # fmt: skip
            if "last_changed" in sym:
                print(f"{depth}    {last_changed_line(sym['last_changed'], brief=True)}")
    if found["truncated"]:
        shown = found["symbols"]
        print(f"\n(the first {shown} symbol{'s' if shown != 1 else ''}: --limit N for more, or a narrower path)")


def print_version(v: dict[str, Any], *, as_of: bool = False, code: bool = True) -> None:
    """One version of a symbol: where and what, its signature, provenance, doc and code
    (unless not ``code``)."""
    v = one_lined(v, LINE_FIELDS)
    state = closed_state(v, as_of=as_of)
    print(f"{v['repo']}:{v['path']}:{v['start_line']}-{v['end_line']}  {v['kind']} {v['qualname']}{state}")
    if v.get("signature"):
        print(f"    {v['signature']}")
    print(f"    {provenance(v)}")
    if "last_changed" in v:
        print(f"    {last_changed_line(v['last_changed'])}")
    for past in [] if as_of else reversed(v.get("history") or []):  # the same code, closed once and back since
        if isinstance(past, dict) and past.get("valid_from_commit"):
            reason = f" [{one_line(past['deprecated_reason'])}]" if past.get("deprecated_reason") else ""
            print(f"    earlier: since {str(past['valid_from_commit'])[:8]} until"
                  f" {str(past.get('valid_to_commit'))[:8]}{reason}")  # fmt: skip
    if code:
        _print_code(v)


def last_changed_line(changed: dict[str, Any] | None, *, brief: bool = False) -> str:
    """A version's ``last_changed`` (``blame.with_last_change``) as ``symbol --blame`` prints
    it; ``brief`` (``outline --blame``, a line under each symbol): the author's name without
    the address, the subject cut at ``BRIEF_SUBJECT`` characters."""
    if not changed:
        return "last changed: git blame cannot say (the indexed commit or the file is not in the repository)"
    day = time.strftime("%Y-%m-%d", time.gmtime(changed["time"]))
    author, subject = str(changed["author"]), one_line(changed["summary"])
    if brief:
        author = author.split(" <", 1)[0]
        subject = subject if len(subject) <= BRIEF_SUBJECT else subject[: BRIEF_SUBJECT - 1].rstrip() + "…"
    return f"last changed {changed['commit'][:8]} on {day} by {author}: {subject}"


def _print_code(v: dict[str, Any]) -> None:
    from recalld.daemon.memories import stored_code  # the stored text: its first line names it (said above)

    stored = stored_code(v)
    # a doc comment above the code is shown; a docstring inside it is shown there
    above = stored.doc and not any(stored.doc.splitlines()[0] in line for line in stored.code)
    for line in (stored.doc.splitlines() if above else []) + as_indented(stored.code, whole=not stored.more):
        print(f"    {line}".rstrip())
    if more := stored.more:
        print(f"    … {more} more line{'s' if more > 1 else ''}: {v['path']}:{v['start_line']}-{v['end_line']}")


def as_indented(code: list[str], *, whole: bool = True) -> list[str]:
    """Code whose first line lost its indentation (a stored text starts at the code's first
    character) with as much taken off the others: as much as a closing bracket on the last
    line has, else a level (four spaces) less than the least of them has. Code that is not
    ``whole`` (a text cut short) ends anywhere: its last line says nothing."""
    rest = [line for line in code[1:] if line.strip()]
    if not rest:
        return code
    width = [len(line) - len(line.lstrip(" \t")) for line in rest]
    closes = whole and rest[-1].lstrip()[:1] in ("}", ")", "]")
    cut = width[-1] if closes else max(min(width) - 4, 0)
    return code[:1] + [line[min(cut, len(line) - len(line.lstrip(" \t"))) :] for line in code[1:]]


def export(ctx: Any, args: argparse.Namespace) -> int:
    daemon = ctx.daemon()
    notes: list[str] = []
    if daemon is not None:
        params = {"repo": args.repo, "include_deprecated": flag(args.include_deprecated), "as_of": args.as_of}
        for line in daemon.lines("/v1/export", params, notes):
            sys.stdout.write(line + "\n")
        _print_notes(notes)
        return EXIT_OK
    from recalld.daemon.exports import export_noted

    records, notes = export_noted(ctx.app, repo=args.repo, include_deprecated=args.include_deprecated,
                                  as_of_text=args.as_of)  # fmt: skip
    for record in records:
        emit_json(record)
    _print_notes(notes)
    return EXIT_OK
