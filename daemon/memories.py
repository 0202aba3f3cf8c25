"""Memory operations shared by the CLI (no daemon) and the HTTP API: remember, forget,
get one memory, the current versions of a symbol, a file's outline, a repository's recent
changes."""

from __future__ import annotations

import heapq
import os
import time
import uuid
from collections import Counter
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from functools import partial
from typing import Any

from recalld.daemon.app import App
from recalld.daemon.config import OUTLINE_LIMIT
from recalld.daemon.query import AsOf, as_of, memory_record, note_as_of
from recalld.daemon.paths import literal_dir
from recalld.daemon.retrieve import at_path, path_ok, repo_glob
from recalld.daemon.unheld import why_unheld
from recalld.daemon.went import where_symbol_went
from recalld.ingest.errors import NotFoundError, RecalldError
from recalld.ingest.gitblame import BlameStopped, Hunks
from recalld.ingest.gitrecords import CommitInfo
from recalld.ingest.gitrepo import GitRepository
from recalld.ingest.held import as_interval, shown_as
from recalld.ingest.manual import MANUAL_KIND, ManualMemory, forgotten_payload, manual_id, manual_payload
from recalld.ingest.qualnames import parent_scope
from recalld.ingest.plan import Scope
from recalld.ingest.records import STRUCTURAL, TASK, past_intervals, stored_checkpoint
from recalld.ingest.store import MemoryFilter, StoredPoint
from recalld.ingest.result import NoProgress
from recalld.ingest.writer import MemoryDraft, upsert_points, vectorise

EVENT_FIELDS = ("valid_from_time", "valid_to_time", "history")
COMMIT_FIELDS = ("commit", "parents", "committer_time")
SUMMARY_CHARS = 160  # an outline's doc of a symbol
BLAMED_MAX = 10  # versions of a symbol an answer blames at most (one git blame a file of them)
# git blame's time an answer spends at most: git's command is stopped when it is spent (where
# libgit2 blames instead, its call runs to its end). A file's blame walks its history back to
# its oldest line (ingest/gitblame.py).
BLAME_SECONDS = 10.0
BLAME_WORKERS = min(4, os.cpu_count() or 1)  # files an answer blames at once (a git process each)
# what an outline shows, and what an as-of answer reads a version's lines then by
OUTLINE_FIELDS = ("repo", "branch", "path", "language", "kind", "qualname", "signature", "docstring",
                  "start_line", "end_line")  # fmt: skip


def remember(app: App, memory: ManualMemory) -> dict[str, Any]:
    """Store ``memory``; ``status`` says created, unchanged, reopened or updated (type)."""
    if memory.repo is not None:
        app.registry.get(memory.repo)
    point_id = manual_id(memory)
    found = app.store.retrieve([point_id])
    old = found[0].payload if found else None
    if old is not None and not old.get("deprecated") and old.get("type") == memory.type:
        return {"id": point_id, "status": "unchanged", "memory": memory_record(found[0])}
    payload = manual_payload(memory, point_id, past_intervals(old))
    if old is not None and not old.get("deprecated"):  # another type: the same memory since it was remembered
        payload["valid_from_time"] = old.get("valid_from_time") or payload["valid_from_time"]
    points, _ = vectorise(app.embeddings, [MemoryDraft(point_id, payload["text"], payload)], progress=NoProgress())
    upsert_points(app.store, points)
    status = "created" if old is None else "reopened" if old.get("deprecated") else "updated"
    return {"id": point_id, "status": status, "memory": memory_record(points[0])}


def forget(app: App, memory_id: str) -> dict[str, Any]:
    """Close a manual memory (reason ``forgotten``); other memories follow git."""
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
    is read as recalld writes it (``geo.Widget.Draw``). With ``as_of_text``, the versions
    valid then, with the lines they had (``query.as_of``). At most ``limit`` (the first
    by path and line), a note saying how many were found. With ``blame``, each live
    version's ``last_changed`` (``with_last_change``)."""
    entry = app.registry.get(repo)
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
    scope, _dot, name = qualname.rpartition(".")
    if not points and scope:
        named = found(replace(base, names=(name,)))
        points = [p for p in named if parent_scope(str(p.payload.get("qualname") or "")) == scope]
    if not points and "::" in qualname:
        return get_symbol(app, repo, qualname.replace("::", "."), path=path, kind=kind,
                          include_deprecated=include_deprecated, as_of_text=as_of_text, notes=notes,
                          limit=limit, blame=blame)  # fmt: skip
    if not points and kind and not app.store.count(MemoryFilter(repo=repo, kinds=(kind,), deprecated=None)):
        from recalld.daemon.commands import KINDS_HELP  # a typo of a kind: found nothing, and why

        raise NotFoundError(f"no memory of {repo} has kind {kind!r} ({KINDS_HELP})")
    if not points:
        then = at.none_then(str(as_of_text)) if at else ""
        if path and not at and next(found(replace(base, kinds=()), ("path",)), None) is None:  # nothing there at all
            then = f": {why_unheld(app, entry, path.strip('/'))}"
            went = where_symbol_went(app, entry, qualname, path, closure=False)  # the file's fate was told
            then += f"; {went}" if went else ""
        elif not at:
            went = where_symbol_went(app, entry, qualname, path or "")
            then = f": {went}" if went else ""
        raise NotFoundError(f"no symbol {qualname!r} in {repo}" + (f" at {path}" if path else "") + then)
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
    if blame:
        with_last_change(app, entry, records, at, notes if notes is not None else [])
    return records


def with_last_change(
    app: App, entry: Any, records: list[dict[str, Any]], at: AsOf | None, notes: list[str]
) -> None:
    """Set ``last_changed`` (commit, time, author, summary) on the live versions among
    ``records`` (with ``at``, on those valid then), the first ``BLAMED_MAX``: the latest
    commit that wrote one of its lines at the indexed commit (``at``'s state, where the
    lines it gives were read), as git blame reads them. A version's ``author`` is that
    of the sync's commit that first saw it, which for what a repository's first sync
    found is the tip's author; blame names who wrote the code (None where git cannot say)."""
    live = records if at is not None else [r for r in records if not r["deprecated"]]
    commit = _blamed_state(app, entry, at)
    git = _git_for_blame(entry, at, notes)
    if git is None:
        return
    deadline = time.monotonic() + BLAME_SECONDS
    blamed = live[:BLAMED_MAX]
    by_path: dict[str, list[dict[str, Any]]] = {}
    for record in blamed:
        by_path.setdefault(record["path"], []).append(record)
    state = str(commit) if commit else None
    groups = list(by_path.items())
    stopped = _run_blames([partial(_blame_versions, git, state, path, versions, deadline) for path, versions in groups])
    left = sum(len(versions) for (_, versions), stop in zip(groups, stopped, strict=True) if stop)
    if left:
        notes.append(_blame_stopped(left, len(blamed), "versions"))
    if len(live) > BLAMED_MAX:
        notes.append(f"last_changed is given for the first {BLAMED_MAX} of {len(live)} versions: ask with a path"
                     " for others")


def _blame_versions(
    git: GitRepository, commit: str | None, path: str, versions: list[dict[str, Any]], deadline: float
) -> None:
    """``last_changed`` of ``versions``, all of ``path``: one blame of the lines from the
    first one's to the last one's (a file's history walked once), else, where those are
    no lines of the file, one blame each. ``BlameStopped`` at ``deadline``."""
    spans = [(v["start_line"], v["end_line"]) for v in versions]
    hunks = _hunks(git, commit, path, min(s for s, _ in spans), max(e for _, e in spans), deadline)
    for version, (start, end) in zip(versions, spans, strict=True):
        if hunks is None and len(versions) > 1:
            alone = _hunks(git, commit, path, start, end, deadline)
        else:
            alone = hunks
        info = git.last_change_in(alone or [], start, end)
        version["last_changed"] = commit_record(info) if info else None


def _hunks(git: GitRepository, commit: str | None, path: str, start: int | None, end: int | None,
           deadline: float) -> Hunks | None:  # fmt: skip
    """``blame_hunks`` in the time left before ``deadline`` (``BlameStopped`` when none is)."""
    left = deadline - time.monotonic()
    if left <= 0:
        raise BlameStopped(f"no time left to blame {path}")
    if commit is None:
        return None
    return git.blame_hunks(commit, path, start, end, timeout=left)


def _blamed_state(app: App, entry: Any, at: AsOf | None) -> str | None:
    """The commit whose lines an answer gives, and blame reads: ``at``'s indexed state, else
    the branch's indexed commit (None: never synced)."""
    if at is not None:
        return at.valid_at.state
    return stored_checkpoint(app.store, Scope(entry.name, entry.branch)).get("commit")


def _git_for_blame(entry: Any, at: AsOf | None, notes: list[str]) -> GitRepository | None:
    """The repository to blame in: the one an as-of answer opened, else opened now."""
    if at is not None and at.git is not None:
        return at.git
    try:
        return GitRepository(entry.path)
    except Exception as exc:  # noqa: BLE001 - the memories are the answer; blame is what git can add
        notes.append(f"git blame could not open {entry.path}: {exc}")
        return None


def _blame_stopped(left: int, total: int, what: str) -> str:
    return (f"git blame stopped after {BLAME_SECONDS:g} s: {left} of {total} {what} are without last_changed"
            " (ask for fewer)")


def with_file_blame(app: App, entry: Any, files: list[dict[str, Any]], at: AsOf | None, notes: list[str]) -> None:
    """``outline``'s blame: each file blamed once, whole, at the indexed commit (``at``'s
    state); the file and each of its symbols get ``last_changed``, the latest commit that
    wrote one of its lines (None where git cannot say), as ``with_last_change`` gives it."""
    commit = _blamed_state(app, entry, at)
    git = _git_for_blame(entry, at, notes)
    if git is None:
        return
    deadline = time.monotonic() + BLAME_SECONDS
    state = str(commit) if commit else None
    stopped = _run_blames([partial(_blame_file, git, state, file, deadline) for file in files])
    if any(stopped):
        notes.append(_blame_stopped(sum(stopped), len(files), "files"))


def _blame_file(git: GitRepository, commit: str | None, file: dict[str, Any], deadline: float) -> None:
    """``last_changed`` of ``file`` (an outline's) and its symbols, of one blame of it whole."""
    hunks = _hunks(git, commit, file["path"], None, None, deadline) or []
    for holder in [file, *file["symbols"]]:
        start, end = holder.get("start_line") or 1, holder.get("end_line") or float("inf")
        info = git.last_change_in(hunks, start, end)
        holder["last_changed"] = commit_record(info) if info else None


def _run_blames(jobs: list[Callable[[], None]]) -> list[bool]:
    """Each job (a file's blame, and what it sets) run, ``BLAME_WORKERS`` at a time: git's
    blame commands are processes of their own, each walking one file's history; whether
    each was stopped (``BlameStopped``: the answer's time for blame was spent)."""

    def run(job: Callable[[], None]) -> bool:
        try:
            job()
        except BlameStopped:
            return True
        return False

    if len(jobs) <= 1 or BLAME_WORKERS <= 1:
        return [run(job) for job in jobs]
    with ThreadPoolExecutor(max_workers=min(BLAME_WORKERS, len(jobs)), thread_name_prefix="recalld-blame") as pool:
        return list(pool.map(run, jobs))


def commit_record(info: CommitInfo) -> dict[str, Any]:
    """A commit as answers give one (``changes``' newest commits, ``last_changed``)."""
    return {"commit": info.id, "summary": info.summary, "author": info.author, "time": info.time}


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
            raise NotFoundError(f"no memories of {path!r} in {repo}" + at.none_then(str(as_of_text)))
        raise NotFoundError(f"no memories of {path!r} in {repo}: {why_unheld(app, entry, pattern)}")
    if notes is not None:
        note_as_of(notes, at, as_of_text)
    points = at.placed(points) if at else points
    points.sort(key=lambda p: (p.payload.get("path") or "", p.payload.get("kind") != "module",
                               p.payload.get("start_line") or 0, -(p.payload.get("end_line") or 0)))  # fmt: skip
    files: dict[str, dict[str, Any]] = {}
    shown = 0
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
            continue
        shown += 1
        file["symbols"].append({
            "kind": fields.get("kind"), "qualname": fields.get("qualname"), "signature": fields.get("signature"),
            "start_line": fields.get("start_line"), "end_line": fields.get("end_line"), "doc": doc, "id": point.id,
        })  # fmt: skip
    if blame:
        with_file_blame(app, entry, list(files.values()), at, notes if notes is not None else [])
    return {"repo": repo, "path": path, "as_of": as_of_text, "files": list(files.values()), "symbols": shown,
            "truncated": total > shown}  # fmt: skip


def summary(doc: str) -> str:
    """A doc's first paragraph on one line, to its first sentence's end, at most
    ``SUMMARY_CHARS`` (cut at a word, with an ellipsis)."""
    paragraph = " ".join(doc.strip().split("\n\n", 1)[0].split())
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
    tasks = list(app.store.scroll(MemoryFilter(repo=repo, types=(TASK,), deprecated=None), fields=COMMIT_FIELDS))
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
    return {"repo": repo, "source": STRUCTURAL, "changes": changes}


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
