"""Memory operations shared by the CLI (no daemon) and the HTTP API: remember, forget,
get one memory, the current versions of a symbol, a file's outline, a repository's recent
changes."""

from __future__ import annotations

import heapq
import re
import threading
import uuid
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, replace
from typing import Any

from recalld.daemon.app import App
from recalld.daemon.asof import indexed_states
from recalld.daemon.blame import with_file_blame, with_last_change
from recalld.daemon.config import OUTLINE_LIMIT
from recalld.daemon.query import as_of, memory_record, note_as_of, stale_repos
from recalld.daemon.registry import RepoEntry
from recalld.daemon.paths import literal_dir
from recalld.daemon.retrieve import at_path, path_ok, repo_glob
from recalld.daemon.unheld import unsynced, why_unheld
from recalld.daemon.went import where_symbol_went
from recalld.daemon.vocabulary import KINDS_HELP, check_kinds
from recalld.daemon.written_as import also_named, read_in_module
from recalld.ingest.errors import NotFoundError, RecalldError
from recalld.ingest.held import as_interval, shown_as
from recalld.ingest.manual import MANUAL_KIND, ManualMemory, forgotten_payload, manual_id, manual_payload
from recalld.ingest.qualnames import parent_scope
from recalld.ingest.plan import Scope
from recalld.ingest.records import STRUCTURAL, TASK, past_intervals, stored_checkpoint
from recalld.ingest.store import MemoryFilter, StoredPoint
from recalld.ingest.result import NoProgress

EVENT_FIELDS = ("valid_from_time", "valid_to_time", "history")
COMMIT_FIELDS = ("commit", "parents", "committer_time")
SUMMARY_CHARS = 160  # an outline's doc of a symbol
_UNDERLINE = re.compile(r"\s*([=~^*#+`'\".:_-])\1{2,}\s*$")  # a reStructuredText title's under- or overline
# what an outline shows, and what an as-of answer reads a version's lines then by
OUTLINE_FIELDS = ("repo", "branch", "path", "language", "kind", "qualname", "signature", "docstring",
                  "start_line", "end_line", "read_partly")  # fmt: skip
# remember and forget read a manual memory, then write it: two at once (20 agents
# remembering the same text) each read none and each said "created"
_MANUAL_WRITES = threading.Lock()


def remember(app: App, memory: ManualMemory) -> dict[str, Any]:
    """Store ``memory``; ``status`` says created, unchanged, reopened or updated (type)."""
    if memory.repo is not None:
        app.registry.get(memory.repo)
    with _MANUAL_WRITES:
        return _remember(app, memory)


def _remember(app: App, memory: ManualMemory) -> dict[str, Any]:
    point_id = manual_id(memory)
    found = app.store.retrieve([point_id])
    old = found[0].payload if found else None
    if old is not None and not old.get("deprecated") and old.get("type") == memory.type:
        return {"id": point_id, "status": "unchanged", "memory": memory_record(found[0])}
    payload = manual_payload(memory, point_id, past_intervals(old))
    if old is not None and not old.get("deprecated"):  # another type: the same memory since it was remembered
        payload["valid_from_time"] = old.get("valid_from_time") or payload["valid_from_time"]
    from recalld.ingest.writer import MemoryDraft, upsert_points, vectorise  # the model's stack: here alone

    points, _ = vectorise(app.embeddings, [MemoryDraft(point_id, payload["text"], payload)], progress=NoProgress())
    upsert_points(app.store, points)
    status = "created" if old is None else "reopened" if old.get("deprecated") else "updated"
    return {"id": point_id, "status": status, "memory": memory_record(points[0])}


def forget(app: App, memory_id: str) -> dict[str, Any]:
    """Close a manual memory (reason ``forgotten``); other memories follow git."""
    with _MANUAL_WRITES:
        return _forget(app, memory_id)


def _forget(app: App, memory_id: str) -> dict[str, Any]:
    point = _memory(app, memory_id)
    payload = point.payload
    if payload.get("kind") != MANUAL_KIND:
        what = payload.get("type") or "structural"
        raise RecalldError(f"memory {memory_id} is a {what} memory: only manual memories can be forgotten "
                           "(the others follow the repository's history)")  # fmt: skip
    if payload.get("deprecated"):
        return {"id": point.id, "status": "already forgotten", "memory": memory_record(point)}
    app.store.set_payload([point.id], forgotten_payload())
    return {"id": point.id, "status": "forgotten", "memory": memory_record(_memory(app, point.id))}


def get_memory(app: App, memory_id: str) -> dict[str, Any]:
    return memory_record(_memory(app, memory_id))


def get_symbol(
    app: App, repo: str, qualname: str, *, path: str | None = None, kind: str | None = None,
    include_deprecated: bool = False, as_of_text: str | None = None, notes: list[str] | None = None,
    limit: int | None = None, blame: bool = False,
) -> list[dict[str, Any]]:  # fmt: skip
    """The versions of a symbol on the tracked branch, by qualified name, else by plain
    name, else by scope and name: ``Arg.fmt`` finds Rust's ``<Arg as Display>.fmt`` and
    ``<Arg as Debug>.fmt``, ``Codec.decode`` Java's ``Codec.decode(String)``, a repeat's
    ``Codec.decode#2``. A name written as C++ and Rust write one (``geo::Widget::Draw``)
    is read as recalld writes it (``geo.Widget.Draw``); one written as imported or called
    as a module's qualname (``requests.sessions.Session``, ``flask.Flask`` of ``src/flask/app.py``,
    ``Session.request()``: ``written_as``), a note saying how it was read. Of a plain name
    found by its qualname, a note names the other symbols of that name. With ``as_of_text``, the versions
    valid then, with the lines they had (``query.as_of``). At most ``limit`` (the first
    by path and line), a note saying how many were found. With ``blame``, each live
    version's ``last_changed`` (``with_last_change``)."""
    entry = app.registry.get(repo)
    check_kinds([kind] if kind else [], symbols=True)
    at = as_of(app, as_of_text, repo)
    path = repo_glob(path, entry.path) if path else None
    kind = kind.lower() if kind else None
    # a path is a file, or the files under a directory or matching a glob, as outline's
    base = MemoryFilter(repo=repo, branch=entry.branch, types=(STRUCTURAL,), dir_prefix=literal_dir(path),
                        kinds=(kind,) if kind else (), deprecated=None if include_deprecated or at else 0,
                        valid_at=at.valid_at if at else None)  # fmt: skip

    def found(flt: MemoryFilter, fields: tuple[str, ...] | None = None) -> Iterator[StoredPoint]:
        points = app.store.scroll(flt, fields=fields)
        return (p for p in points if not path or path_ok(str(p.payload.get("path")), path))

    points = list(found(replace(base, qualnames=(qualname,))))
    if not points:
        points = list(found(replace(base, names=(qualname,))))
        if points and not at and notes is not None:  # the symbol of that qualname gone: what became of it
            notes.extend(_gone_beside(app, entry, qualname, path))
    scope, _dot, name = qualname.rpartition(".")
    if not points and scope:
        named = found(replace(base, names=(name,)))
        points = [p for p in named if parent_scope(str(p.payload.get("qualname") or "")) == scope]
    if not points and (module_read := read_in_module(found, base, qualname)) is not None:
        points, read_as = module_read
        if notes is not None:
            notes.append(f"{qualname!r} read as {read_as}")
    elif points and "." not in qualname and notes is not None:
        notes.extend(also_named(found, base, qualname, points))
    if not points and "::" in qualname:
        return get_symbol(app, repo, qualname.replace("::", "."), path=path, kind=kind,
                          include_deprecated=include_deprecated, as_of_text=as_of_text, notes=notes,
                          limit=limit, blame=blame)  # fmt: skip
    if not points and kind and not app.store.count(MemoryFilter(repo=repo, kinds=(kind,), deprecated=None)):
        raise NotFoundError(f"no memory of {repo} has kind {kind!r} ({KINDS_HELP})")
    if not points:
        then = at.none_then(str(as_of_text), indexed_states(app.store, repo, entry.branch).targets) if at else ""
        if path and not at and next(found(replace(base, kinds=()), ("path",)), None) is None:  # nothing there at all
            then = f": {why_unheld(app, entry, path.strip('/'))}"
            went = where_symbol_went(app, entry, qualname, path, closure=False)  # the file's fate was told
            then += f"; {went}" if went else ""
        elif not at:  # where it went, or else that the memories lag the branch: a sync may bring it in
            went = where_symbol_went(app, entry, qualname, path or "")
            lagging = [] if went else stale_repos(app, [entry])
            then = f": {went}" if went else (f"; {lagging[0]}" if lagging else "")
        raise NotFoundError(f"no symbol {qualname!r} in {repo}" + (f" at {path}" if path else "") + then)
    if include_deprecated and not at:  # its earlier versions under other names and paths (renamed, moved)
        points += _lineage_kept(app, replace(base, dir_prefix=None, kinds=()), points)
    if notes is not None:
        note_as_of(notes, at, as_of_text)
    points = at.placed(points) if at else points
    points.sort(key=lambda p: (p.payload.get("deprecated", 0), p.payload.get("path") or "",
                               p.payload.get("start_line") or 0, -(p.payload.get("valid_from_time") or 0)))  # fmt: skip
    if limit is not None and len(points) > limit:
        if notes is not None:
            notes.append(f"{len(points)} found, the first {limit} given: ask with a path or a kind for fewer")
        points = points[:limit]
    records = [memory_record(p) for p in points]
    for record in records:
        if more := stored_code(record).more:
            record["text_cut"] = more
    if blame:
        with_last_change(app, entry, records, at, notes if notes is not None else [])
    return records


def _lineage_kept(app: App, base: MemoryFilter, points: list[StoredPoint]) -> list[StoredPoint]:
    """The versions of the lineages of ``points`` that are not among them: a symbol's
    earlier versions under another name or path (``bypasses_proxy``, renamed from
    ``should_bypass_proxies``, and that one's versions)."""
    lineages = tuple(sorted({str(p.payload["lineage"]) for p in points if p.payload.get("lineage")}))
    if not lineages:
        return []
    ids = {p.id for p in points}
    return [p for p in app.store.scroll(replace(base, lineages=lineages)) if p.id not in ids]


def _gone_beside(app: App, entry: RepoEntry, qualname: str, path: str | None) -> list[str]:
    """Where a symbol ``qualname`` named and the index held went, when other symbols of that
    name answer for it (``info`` after ``help.py`` was deleted found ``MockResponse.info``)."""
    closed = MemoryFilter(repo=entry.name, branch=entry.branch, types=(STRUCTURAL,), qualnames=(qualname,),
                          deprecated=1)  # fmt: skip
    went = where_symbol_went(app, entry, qualname, path or "") if app.store.count(closed) else ""
    return [f"{went}; the symbols given are others of that name"] if went else []


@dataclass(frozen=True, slots=True)
class StoredCode:
    """What a symbol's stored text holds after its first line (which names it): the doc,
    when it comes before the code, and the code's lines."""

    doc: str  # the doc the text opens with, cleaned ("" where it does not open with it)
    code: list[str]
    more: int  # the symbol's lines the code leaves out: the text is cut at embedding.max_chars


def stored_code(record: dict[str, Any]) -> StoredCode:
    """The doc and code a symbol memory's stored text holds, and how many of its lines it
    leaves out (``text_cut`` in a symbol's answer: read the file's lines for the rest)."""
    text = (record.get("text") or "").split("\n", 1)[1:]
    shown = text[0].rstrip() if text else ""
    doc = record.get("docstring") or ""
    documented = bool(doc) and shown.startswith(doc)
    code = (shown[len(doc) :] if documented else shown).strip("\n").splitlines()
    span = (record.get("end_line") or 0) - (record.get("start_line") or 0) + 1
    return StoredCode(doc if documented else "", code, span - len(code) if 0 < len(code) < span else 0)


def outline(
    app: App, repo: str, path: str, *, as_of_text: str | None = None, limit: int = OUTLINE_LIMIT,
    notes: list[str] | None = None, blame: bool = False,
) -> dict[str, Any]:  # fmt: skip
    """The symbols of a file, or of the files under a directory or matching a glob, as
    they stand in each file: its kind, qualified name, signature, lines and its doc's first
    sentence (``summary``); each file's own doc first. With ``as_of_text``, the versions valid then,
    with the lines they had. At most ``limit`` symbols (``truncated`` says when more). With
    ``blame``, each file's and symbol's ``last_changed`` (``with_file_blame``)."""
    if limit <= 0:
        raise RecalldError("limit must be at least 1")
    entry = app.registry.get(repo)
    pattern = repo_glob(path, entry.path)
    if not pattern:
        raise RecalldError("name a file, a directory or a glob of the repository ('src/app.py', 'src/', '**/*.go')")
    at = as_of(app, as_of_text, repo)
    base = MemoryFilter(repo=repo, branch=entry.branch, types=(STRUCTURAL,), deprecated=None if at else 0,
                        valid_at=at.valid_at if at else None)  # fmt: skip
    points = list(at_path(app.store, base, pattern, fields=OUTLINE_FIELDS))
    if not points:
        if at:
            synced = indexed_states(app.store, repo, entry.branch).targets
            raise NotFoundError(f"no memories of {path!r} in {repo}" + at.none_then(str(as_of_text), synced))
        raise NotFoundError(f"no memories of {path!r} in {repo}: {why_unheld(app, entry, pattern)}")
    if notes is not None:
        note_as_of(notes, at, as_of_text)
    points = at.placed(points) if at else points
    points.sort(key=lambda p: (p.payload.get("path") or "", p.payload.get("kind") != "module",
                               p.payload.get("start_line") or 0, -(p.payload.get("end_line") or 0)))  # fmt: skip
    files: dict[str, dict[str, Any]] = {}
    shown, partly = 0, []
    total = sum(1 for p in points if p.payload.get("kind") != "module")
    for point in points:
        fields = point.payload
        module = fields.get("kind") == "module"
        if shown == limit and (not module or shown < total):
            break  # the files after the last symbol shown are not listed
        where = str(fields.get("path"))
        file = files.setdefault(where, {"path": where, "language": fields.get("language"), "doc": "", "symbols": []})
        doc = summary(str(fields.get("docstring") or ""))
        if module:
            file["doc"] = doc
            if fields.get("read_partly"):  # a syntax error: the symbols past it may be missing or cut
                file["read_partly"] = fields["read_partly"]
                partly.append(f"{where} was read in part ({fields['read_partly']}): its outline may lack symbols")
            continue
        shown += 1
        file["symbols"].append({
            "kind": fields.get("kind"), "qualname": fields.get("qualname"), "signature": fields.get("signature"),
            "start_line": fields.get("start_line"), "end_line": fields.get("end_line"), "doc": doc, "id": point.id,
        })  # fmt: skip
    if blame:
        with_file_blame(app, entry, list(files.values()), at, notes if notes is not None else [])
    if notes is not None:
        notes.extend(partly)
    if total > shown and notes is not None:  # what the cut leaves out, and how to see it
        left = len({p.payload.get("path") for p in points} - set(files))
        notes.append(f"{shown} of {total} symbols listed, {left} more file{'s' if left != 1 else ''} not: ask for a"
                     " narrower path or a higher limit")  # fmt: skip
    return {"repo": repo, "path": path, "as_of": as_of_text, "files": list(files.values()), "symbols": shown,
            "truncated": total > shown}  # fmt: skip


def summary(doc: str) -> str:
    """A doc's first paragraph on one line, to its first sentence's end, at most
    ``SUMMARY_CHARS`` (cut at a word, with an ellipsis). A reStructuredText title that opens
    it (requests' ``requests.adapters`` over ``~~~~~~~~~~~~~~~~~``) is passed over for the
    paragraph after it."""
    paragraphs = doc.strip().split("\n\n")
    lines = paragraphs[0].splitlines()
    if any(_UNDERLINE.match(line) for line in lines):
        kept = [line for line in lines if not _UNDERLINE.match(line)]
        paragraphs[0] = paragraphs[1] if len(paragraphs) > 1 and paragraphs[1].strip() else "\n".join(kept)
    paragraph = " ".join(paragraphs[0].split())
    end = paragraph.find(". ")
    if end >= 0:
        paragraph = paragraph[: end + 1]
    if len(paragraph) <= SUMMARY_CHARS:
        return paragraph
    return paragraph[: SUMMARY_CHARS - 1].rsplit(" ", 1)[0] + "…"


def recent_changes(app: App, repo: str, *, limit: int = 20) -> dict[str, Any]:
    """The newest task memories (one per commit) when there are any, else the most
    recently opened or closed structural versions; newest first."""
    if limit <= 0:
        raise RecalldError("limit must be at least 1")
    entry = app.registry.get(repo)
    tasks = list(app.store.scroll(MemoryFilter(repo=repo, branch=entry.branch, types=(TASK,), deprecated=None),
                                  fields=COMMIT_FIELDS))
    if tasks:
        newest = newest_commits(tasks)[:limit]
        return {"repo": repo, "source": TASK, "changes": [memory_record(p) for p in _full(app, newest)]}
    flt = MemoryFilter(repo=repo, branch=entry.branch, types=(STRUCTURAL,), deprecated=None)
    # (time, event, point, the earlier interval of its history the event is of, if one)
    events: list[tuple[int, str, StoredPoint, dict[str, Any] | None]] = []
    for point in app.store.scroll(flt, fields=EVENT_FIELDS):
        past = point.payload.get("history")
        for interval in [None, *(past if isinstance(past, list) else [])]:
            fields = point.payload if interval is None else interval
            events.append((int(fields.get("valid_from_time") or 0), "opened", point, interval))
            if fields.get("valid_to_time"):
                events.append((int(fields["valid_to_time"]), "closed", point, interval))
    events.sort(key=lambda e: (-e[0], e[1] == "opened"))
    events = events[:limit]
    full = {p.id: p for p in _full(app, [e[2] for e in events])}
    changes = [{"event": event, "time": when, **memory_record(_shown(full[p.id], interval))}
               for when, event, p, interval in events if p.id in full]  # fmt: skip
    synced = changes or stored_checkpoint(app.store, Scope(entry.name, entry.branch)).get("commit")
    return {"repo": repo, "source": STRUCTURAL, "changes": changes,
            **({} if synced else {"note": unsynced(entry)})}  # fmt: skip  (it printed nothing)


def _shown(point: StoredPoint, interval: dict[str, Any] | None) -> StoredPoint:
    """``point`` as of ``interval``, an earlier one of its history (None: as it is)."""
    return shown_as(point, None if interval is None else as_interval(point.payload, interval))


def newest_commits(tasks: list[StoredPoint]) -> list[StoredPoint]:
    """Task memories newest first as ``git log --date-order`` shows commits: by commit
    time, but never a commit before one of its children (commits of one second, from a
    rebase or ``git am``, came out in any order, and a child dated before its parent
    after it); commits of equal standing by id, so that the order is the same each time."""
    by_commit: dict[str, list[StoredPoint]] = {}
    for point in tasks:
        by_commit.setdefault(str(point.payload.get("commit")), []).append(point)
    parents = {commit: {str(p) for p in points[0].payload.get("parents") or []} & by_commit.keys()
               for commit, points in by_commit.items()}  # fmt: skip
    waiting = Counter(parent for known in parents.values() for parent in known)

    def place(commit: str) -> tuple[int, str]:
        return -int(by_commit[commit][0].payload.get("committer_time") or 0), commit

    ready = [place(commit) for commit in by_commit if not waiting[commit]]
    heapq.heapify(ready)
    ordered: list[StoredPoint] = []
    while ready:
        _, commit = heapq.heappop(ready)
        ordered.extend(by_commit.pop(commit))
        for parent in parents[commit]:
            waiting[parent] -= 1
            if not waiting[parent]:
                heapq.heappush(ready, place(parent))
    # what a cycle of parents would leave, which git cannot make: by time
    return ordered + [p for commit in sorted(by_commit, key=place) for p in by_commit[commit]]


def _full(app: App, points: list[StoredPoint]) -> list[StoredPoint]:
    """``points`` again with their whole payload, in the same order."""
    found = {p.id: p for p in app.store.retrieve(list(dict.fromkeys(p.id for p in points)))}
    return [found[p.id] for p in points if p.id in found]


def _memory(app: App, memory_id: str) -> StoredPoint:
    try:
        canonical = str(uuid.UUID(memory_id))
    except ValueError:
        raise NotFoundError(f"unknown memory {memory_id!r}") from None
    found = app.store.retrieve([canonical])
    if not found or found[0].payload.get("record") != "memory":
        raise NotFoundError(f"unknown memory {memory_id!r}")
    return found[0]
