"""Reading memories back: search, export and status, shared by the CLI and the API."""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass, replace
from typing import Any

from recalld.daemon.app import App
from recalld.daemon.asof import LinesAt, states_at_commit, states_at_date
from recalld.daemon.branch_points import other_branches
from recalld.daemon.config import MEMORY_TYPES, SEARCH_LIMIT
from recalld.daemon.dates import parse_date
from recalld.daemon.here import holding
from recalld.daemon.logs import get_logger
from recalld.daemon.paths import within
from recalld.daemon.registry import RepoEntry, RepoRegistry
from recalld.daemon.repos import branch_missing, sync_hint, unfollowed_note
from recalld.daemon.retrieve import Retrieval, repo_glob, retrieve
from recalld.daemon.vocabulary import (CODE_LANGUAGES, KINDS_HELP, LANGUAGES_HELP, check_kinds, check_language,
                                      language_named)
from recalld.ingest.errors import RecalldError
from recalld.ingest.gitrepo import GitRepository
from recalld.ingest.held import interval_then, shown_as
from recalld.ingest.plan import Scope
from recalld.ingest.records import TASK, stored_checkpoint
from recalld.ingest.revector import stored_space
from recalld.ingest.store import MemoryFilter, StoredPoint, ValidAt
from recalld.ingest.task_memory import TASK_FIELDS

EXPORT_FIELDS = (
    "repo", "branch", "kind", "language", "path", "qualname", "name", "signature", "docstring",
    "start_line", "end_line", "content_hash", "lineage", "symbol_key", "text",
    "valid_from_commit", "valid_from_time", "valid_to_commit", "valid_to_time", "valid_through_commit", "author",
    "written_in", "change",
    "deprecated", "deprecated_reason", "superseded_by", "history",
    "type", "scope", "user", "org", "untrusted", "task_id",
)  # fmt: skip
FORMATS = ("json", "mem0")
BETWEEN_COUNTED = 1000  # commits between an as-of commit and the state answered for, counted at most
log = get_logger("recalld.query")


@dataclass(frozen=True, slots=True)
class SearchRequest:
    query: str
    repo: str | None = None
    kinds: tuple[str, ...] = ()
    language: str | None = None
    path_glob: str | None = None
    include_deprecated: bool = False
    limit: int = 10
    types: tuple[str, ...] = ()
    include_untrusted: bool = False
    as_of: str | None = None  # a commit of the tracked branch, or an ISO date/datetime
    mode: str = "hybrid"  # hybrid | dense | keyword
    tests: str = "include"  # include | exclude | only: memories of test code (daemon/retrieve.py)


def memory_record(point: StoredPoint, score: float | None = None) -> dict[str, Any]:
    """The public shape of a memory (CLI JSON, export, HTTP API)."""
    record: dict[str, Any] = {"id": point.id}
    if score is not None:
        record["score"] = round(score, 6)
    for key in EXPORT_FIELDS + (TASK_FIELDS if point.payload.get("type") == TASK else ()):
        record[key] = point.payload.get(key)
    record["deprecated"] = bool(record["deprecated"])
    record["untrusted"] = bool(record["untrusted"])
    return record


def search(app: App, request: SearchRequest) -> list[dict[str, Any]]:
    """Memories for ``request``, best first: hybrid (dense + keywords, RRF) by default;
    deprecated and untrusted memories left out unless asked for."""
    return search_noted(app, request)[0]


def search_noted(app: App, request: SearchRequest) -> tuple[list[dict[str, Any]], list[str]]:
    """``search``'s records and why they may not be what was asked: for no record, the
    language or kinds no memory has, stale or not (``lang=js`` found nothing without a
    word; one recalld knows of no memory is refused: ``vocabulary``), or why the index
    holds nothing at the path asked of (skipped, or moved: ``unheld``); as of a time
    before any code memory, that none was valid then."""
    entry = app.registry.get(request.repo) if request.repo is not None else None  # unknown: a clear error first
    absolute = (request.path_glob or "").strip()
    if entry is None and absolute.startswith("/") and absolute.strip("/"):  # "/" alone: every repository's all
        entries = app.registry.all()
        entry = holding(entries, absolute)  # an absolute path names its repository
        if entry is None:
            held = [e.name for e in entries if within(e.path, absolute) is not None]
            which = f"{' and '.join(held)} hold" if held else "no registered repository's work tree holds"
            raise RecalldError(f"{which} {absolute!r}: say which repository (--repo, repo=), or write a path from"
                               " a repository's top")  # fmt: skip
        request = replace(request, repo=entry.name)
    if not request.query.strip():
        raise RecalldError("the query is empty: say what to look for")
    if not 1 <= request.limit <= SEARCH_LIMIT:
        raise RecalldError(f"limit must be 1 to {SEARCH_LIMIT}, not {request.limit}")
    unknown = sorted(set(request.types) - set(MEMORY_TYPES))
    if unknown:
        raise RecalldError(f"unknown memory type {unknown[0]!r}: {', '.join(MEMORY_TYPES)}")
    if request.language:
        check_language(request.language)
    check_kinds(request.kinds)
    if not app.registry.all() and not app.store.count(MemoryFilter(deprecated=None)):  # no model loaded for nothing
        return [], ["nothing is indexed yet: register a repository (`recalld repo add PATH`) and sync it"
                    " (`recalld sync`)"]  # fmt: skip
    at = as_of(app, request.as_of, request.repo)
    valid_at = at.valid_at if at else None
    flt = MemoryFilter(
        repo=request.repo,
        followed=app.registry.followed(request.repo),
        types=request.types,
        kinds=tuple(kind.lower() for kind in request.kinds),
        language=language_named(request.language) if request.language else None,  # "Python", "py"
        deprecated=None if request.include_deprecated or valid_at else 0,
        hide_untrusted=not request.include_untrusted,
        valid_at=valid_at,
    )
    path_glob = repo_glob(request.path_glob, entry.path if entry else None) if request.path_glob else None
    retrieval = Retrieval(request.query, flt, request.limit, path_glob, _mode(app, request.mode), request.tests,
                          test_weight=app.config.get("search", "test_weight"))
    hits = retrieve(app.store, lambda text: app.embeddings.embedder.encode([text])[0].tolist(), retrieval)
    points = at.placed([h.point for h in hits]) if at else [h.point for h in hits]
    records = [memory_record(point, h.score) for point, h in zip(points, hits, strict=True)]
    notes = _search_notes(app, request, flt, records)
    if not records and request.path_glob and at is None:
        from recalld.daemon.unheld import held_nothing  # why a path holds nothing: git and the config, when asked

        entries = [entry] if entry is not None else app.registry.all()
        for each in entries:  # without --repo, in each repository (named where there are several)
            pattern = repo_glob(request.path_glob, each.path)
            why = held_nothing(app, each, pattern)
            if why:
                notes.append(f"the index holds nothing at {pattern}{f' in {each.name}' * (len(entries) > 1)}: {why}")
    note_as_of(notes, at, request.as_of)
    return records, notes


def _search_notes(app: App, request: SearchRequest, flt: MemoryFilter, records: list[dict[str, Any]]) -> list[str]:
    notes = []
    anywhere = MemoryFilter(repo=request.repo, followed=flt.followed, deprecated=None)  # each filter alone, stale
    # and untrusted memories too
    where = f" of {request.repo}" if request.repo else ""
    if not records:
        checks = [("language", flt.language, request.language, LANGUAGES_HELP)] if flt.language else []
        checks += [("kind", kind, given, KINDS_HELP) for kind, given in zip(flt.kinds, request.kinds, strict=True)]
        for field, value, given, known in checks:
            if not app.store.count(replace(anywhere, language=value) if field == "language" else
                                   replace(anywhere, kinds=(value,))):  # fmt: skip
                if field == "language" and (held := _code_languages(app, anywhere, value)):
                    known = f"its code is in {', '.join(held)}"  # a language read, not there: what is
                notes.append(f"no memory{where} has {field} {given!r} ({known})")
    if flt.valid_at is not None and not any(r["type"] == "structural" for r in records):
        notes += no_code_then(app, anywhere, flt.valid_at, request.as_of)
    return notes


def no_code_then(app: App, anywhere: MemoryFilter, valid_at: ValidAt, asked: str | None) -> list[str]:
    """That no code memory (of ``anywhere``'s repository) was valid as of ``asked``, where none was."""
    if app.store.count(replace(anywhere, types=("structural",), valid_at=valid_at)):
        return []
    where = f" of {anywhere.repo}" if anywhere.repo else ""
    return [f"no code memory{where} is valid at {asked}: code memories start at a repository's first sync (commits"
            " before it are task memories only)"]


def _code_languages(app: App, anywhere: MemoryFilter, asked: str) -> list[str]:
    """The languages recalld reads that the memories of ``anywhere`` are in, where ``asked``
    is one of them (a document's or a setting's format is told every language instead)."""
    if asked not in CODE_LANGUAGES:
        return []
    return [name for name in CODE_LANGUAGES if app.store.count(replace(anywhere, language=name))]


def _mode(app: App, mode: str) -> str:
    """``mode``, or keywords alone while the stored vectors are of another model than the
    query's (until a sync re-embeds them: ingest/revector.py); ranking by meaning across
    two models' vectors is noise."""
    if mode == "keyword":
        return mode
    vectors = vectors_status(app)
    if vectors["current"]:
        return mode
    log.warning(
        "stored vectors are of another model or text setting (words_only, max_tokens) until the next sync"
        " re-embeds them",
        stored=vectors["stored"] or "mixed (a re-embedding under way or interrupted)", configured=app.space,
        searching="by keywords" if mode == "hybrid" else "by meaning, unreliably",
    )  # fmt: skip
    return "keyword" if mode == "hybrid" else mode


def vectors_status(app: App) -> dict[str, Any]:
    """The space the stored vectors are in (None: mixed, a re-embedding under way or
    interrupted), the configured one, and whether they agree (a store without a marker
    is taken to be of the configured space)."""
    marked, space = stored_space(app.store)
    current = not marked or space == app.space
    return {"stored": space if marked else app.space, "configured": app.space, "current": current}


@dataclass(frozen=True, slots=True)
class AsOf:
    """An ``--as-of`` asked: the condition on the memories, and ``placed``, which shows
    each point found as it was at the state answered for: by the interval that held
    there (a reopened point's earlier one: ``ingest/held.py``), with the lines its code had
    (read from the repository's git: ``asof.LinesAt``; as stored when the state is not one
    commit, a date across several repositories)."""

    valid_at: ValidAt
    lines: LinesAt | None = None
    git: GitRepository | None = None

    def placed(self, points: list[StoredPoint]) -> list[StoredPoint]:
        authors: dict[str, str | None] = {}

        def author_of(commit: str) -> str | None:
            if commit not in authors:
                authors[commit] = _author(self.git, commit)
            return authors[commit]

        held = [shown_as(point, interval_then(point.payload, self.valid_at, author_of)) for point in points]
        return self.lines(held) if self.lines is not None else held

    @property
    def between(self) -> int:
        """How many commits of the branch lie between the state answered for and the commit
        asked (that state's own excluded): 0 when the index synced to that commit itself."""
        state, commit = self.valid_at.state, self.valid_at.commit
        if not state or not commit or state == commit or self.git is None:
            return 0
        return max(1, len(self.git.walk_commits(commit, hide=state, limit=BETWEEN_COUNTED, first_parent=True)))

    def note(self, asked: str) -> str | None:
        """What an answer as of ``asked`` is, when the index never synced to that commit
        itself (a sync took the branch past it with later commits, as after a push of
        several): the memories of the last state it synced to before it, each with the
        lines its code has at the commit asked where that code is the same there."""
        n = self.between
        if not n:
            return None
        state, commit = str(self.valid_at.state), str(self.valid_at.commit)
        count = f"{n:,}{'+' if n >= BETWEEN_COUNTED else ''} commit{'' if n == 1 else 's'}"
        named = "" if commit.startswith(asked.strip().lower()) else f" ({asked}'s)"
        return (f"the index never synced commit {commit[:12]}{named} on its own (a sync took the branch past it):"
                f" the answer is its state at {state[:12]}, the last commit it synced before it ({count} earlier);"
                f" code changed in between is as it was there")  # fmt: skip

    def none_then(self, asked: str, synced: Collection[str]) -> str:
        """Why nothing was found as of ``asked``: not there then, or not in the state the
        index holds for then (``note``), or before the index began: no state, or one of the
        commits a history read holds alone (none of ``synced``, the states syncs took the
        branch to: a commit before the first sync, said to be "not there then")."""
        state = self.valid_at.state
        if self.valid_at.commits is not None and (state is None or state not in synced):
            return f" as of {asked}: before the repository's first sync (code memories start there)"
        if self.between:
            return (f" as of {asked}: none in the index's state at {str(state)[:12]}, the last commit it synced at or"
                    f" before {str(self.valid_at.commit)[:12]} (which it never synced itself)")  # fmt: skip
        return f" as of {asked}: not there then"


def note_as_of(notes: list[str], at: AsOf | None, asked: str | None) -> None:
    """Into ``notes``, what an answer as of ``asked`` is where the index never synced that
    commit on its own (``AsOf.note``)."""
    said = at.note(str(asked)) if at is not None else None
    if said:
        notes.append(said)


def _author(git: GitRepository | None, commit: str) -> str | None:
    """A commit's author, None when it is not there (gone with a force-push, or no git)."""
    if git is None:
        return None
    try:
        return git.commit_info(commit).author
    except (KeyError, ValueError):
        return None


def as_of(app: App, text: str | None, repo: str | None, *, flag: str = "as of") -> AsOf | None:
    """What ``--as-of TEXT`` (a commit of the tracked branch or an ISO date) asks of
    ``repo``'s memories, or of every repository's; None when not asked. ``flag``: what
    it was given as ("as of", "since"), as an error names it: in words, which read alike
    to a command's user (``--as-of``) and to the API's or MCP's (``as_of``)."""
    if text is None:
        return None
    if not text.strip():
        raise RecalldError(f"{flag} {text!r}: give a commit of the tracked branch or an ISO date")
    entry = app.registry.get(repo) if repo is not None else app.registry.sole()
    valid_at = _valid_at(app, text, entry, flag)
    if entry is None:
        return AsOf(valid_at)
    git = GitRepository(entry.path)
    if valid_at.state is None:
        return AsOf(valid_at, git=git)
    options = app.config.index_options()
    lines = LinesAt(git, valid_at.state, repo=entry.name, branch=entry.branch,
                    asked=valid_at.commit, globs=options.memories.globs, max_chars=options.max_embed_chars,
                    attributes=options.honour_gitattributes)  # fmt: skip
    return AsOf(valid_at, lines, git)


def _valid_at(app: App, as_of: str, entry: RepoEntry | None, flag: str) -> ValidAt:
    """A date answers by the repository's branch at that time when the search is of one
    repository, else by the memories' validity intervals."""
    moment = parse_date(as_of, flag=flag)
    if moment is not None and entry is None:
        return ValidAt(time=moment)
    if entry is None:
        raise RecalldError(f"{flag} {as_of!r} looks like a commit: name its repository (--repo, repo=)")
    git = GitRepository(entry.path)
    if moment is not None:
        return states_at_date(app.store, git, repo=entry.name, branch=entry.branch, moment=moment)
    return states_at_commit(app.store, git, repo=entry.name, branch=entry.branch, rev=as_of, flag=flag)


def repo_status(app: App, name: str) -> dict[str, Any]:
    entry = app.registry.get(name)
    checkpoint = _checkpoint(app, entry)
    status: dict[str, Any] = {
        "repo": entry.name,
        "path": entry.path,
        "branch": entry.branch,
        "indexed_commit": checkpoint.get("commit"),
        "memories": app.store.count(MemoryFilter(repo=entry.name, branch=entry.branch, deprecated=0)),
        "deprecated": app.store.count(MemoryFilter(repo=entry.name, branch=entry.branch, deprecated=1)),
        "interrupted_sync": checkpoint.get("pending"),
        "history_owed": bool(checkpoint.get("history_owed")),  # commit history still to backfill
        "other_branches": other_branches(app.store, entry),  # held beside the followed one: {branch: live memories}
    }
    return {**status, **lag(entry, checkpoint.get("commit"), app.registry)}


def lag(entry: Any, indexed: str | None, registry: RepoRegistry | None = None) -> dict[str, Any]:
    """The tracked branch's tip and how many commits the memories at ``indexed`` are
    behind it (None: never synced, or ``indexed`` no longer in the repository); ``error``:
    why no sync can follow the branch (its path or the branch is gone); ``empty``: the
    branch has no commit yet (a repository registered before its first)."""
    found: dict[str, Any] = {"tip": None, "commits_behind": None, "error": None, "empty": False}
    try:
        git = GitRepository(entry.path)
        tip = found["tip"] = git.branch_tip(entry.branch)
        if tip is None:
            found["error"] = branch_missing(git, entry, registry)
            found["empty"] = found["error"] is None  # no commit yet: nothing behind
            found["commits_behind"] = 0 if found["empty"] else None
        elif indexed and git.has_commit(indexed):
            found["commits_behind"] = git.commits_between(indexed, tip)[0]
    except RecalldError as exc:
        found["error"] = exc.message
    return found


def stale_repos(app: App, entries: Sequence[Any]) -> list[str]:
    """A line for each registered repository of ``entries`` whose memories lag its tracked
    branch (what a search read from the store with no daemon running to keep it in line),
    or cannot follow it (its path or branch gone: `recalld repo set`)."""
    lines = []
    for entry in entries:
        name = entry.name
        indexed = _checkpoint(app, entry).get("commit")
        found = lag(entry, indexed, app.registry)
        if found["error"]:
            lines.append(unfollowed_note(entry, found["error"]))
        if found["error"] or not found["tip"] or found["tip"] == indexed:
            continue
        behind = found["commits_behind"]
        state = "never synced" if indexed is None else (
            f"{behind} commit{'s' if behind != 1 else ''} behind" if behind else "not at")  # fmt: skip
        lines.append(f"{name}: memories {state} {entry.branch} ({sync_hint(name)})")
    return lines


def _checkpoint(app: App, entry: Any) -> dict[str, Any]:
    return stored_checkpoint(app.store, Scope(entry.name, entry.branch))
