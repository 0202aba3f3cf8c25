"""Reading memories back: search, export and status, shared by the CLI and the API."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from recalld.daemon.app import App
from recalld.ingest.errors import RecalldError
from recalld.ingest.files import glob_match
from recalld.ingest.gitrepo import GitRepository
from recalld.ingest.plan import Scope
from recalld.ingest.records import checkpoint_id
from recalld.ingest.store import MemoryFilter, StoredPoint

EXPORT_FIELDS = (
    "repo", "branch", "kind", "language", "path", "qualname", "name", "signature", "docstring",
    "start_line", "end_line", "content_hash", "lineage", "symbol_key", "text",
    "valid_from_commit", "valid_from_time", "valid_to_commit", "valid_to_time", "author",
    "deprecated", "deprecated_reason", "superseded_by", "history",
    "type", "scope", "user", "org",
)  # fmt: skip
MAX_FETCH = 4096
_WILDCARD = re.compile(r"[*?\[]")


@dataclass(frozen=True, slots=True)
class SearchRequest:
    query: str
    repo: str | None = None
    kinds: tuple[str, ...] = ()
    language: str | None = None
    path_glob: str | None = None
    include_deprecated: bool = False
    limit: int = 10


def memory_record(point: StoredPoint, score: float | None = None) -> dict[str, Any]:
    """The public shape of a memory (CLI JSON, export, HTTP API)."""
    record: dict[str, Any] = {"id": point.id}
    if score is not None:
        record["score"] = round(score, 6)
    for key in EXPORT_FIELDS:
        record[key] = point.payload.get(key)
    record["deprecated"] = bool(record["deprecated"])
    return record


def search(app: App, request: SearchRequest) -> list[dict[str, Any]]:
    if request.repo is not None:
        app.registry.get(request.repo)
    if request.limit <= 0:
        raise RecalldError("--limit must be at least 1")
    flt = MemoryFilter(
        repo=request.repo,
        kinds=request.kinds,
        language=request.language,
        dir_prefix=_literal_dir(request.path_glob),
        deprecated=None if request.include_deprecated else 0,
    )
    vector = app.embeddings.embedder.encode([request.query])[0]
    fetch = request.limit if request.path_glob is None else request.limit * 4
    while True:
        hits = app.store.search(vector.tolist(), flt, min(fetch, MAX_FETCH))
        kept = [h for h in hits if _path_ok(h.point.payload.get("path") or "", request.path_glob)]
        if len(kept) >= request.limit or len(hits) < fetch or fetch >= MAX_FETCH:
            return [memory_record(h.point, h.score) for h in kept[: request.limit]]
        fetch *= 4


def export(app: App, *, repo: str | None, include_deprecated: bool) -> Iterator[dict[str, Any]]:
    if repo is not None:
        app.registry.get(repo)
    flt = MemoryFilter(repo=repo, deprecated=None if include_deprecated else 0)
    for point in app.store.scroll(flt):
        yield memory_record(point)


def repo_status(app: App, name: str) -> dict[str, Any]:
    entry = app.registry.get(name)
    scope = Scope(entry.name, entry.branch)
    found = app.store.retrieve([checkpoint_id(scope)])
    checkpoint = found[0].payload if found else {}
    indexed = checkpoint.get("commit")
    status: dict[str, Any] = {
        "repo": entry.name,
        "path": entry.path,
        "branch": entry.branch,
        "indexed_commit": indexed,
        "tip": None,
        "commits_behind": None,
        "memories": app.store.count(MemoryFilter(repo=entry.name, branch=entry.branch, deprecated=0)),
        "deprecated": app.store.count(MemoryFilter(repo=entry.name, branch=entry.branch, deprecated=1)),
        "interrupted_sync": checkpoint.get("pending"),
        "error": None,
    }
    try:
        git = GitRepository(entry.path)
        tip = git.branch_tip(entry.branch)
        status["tip"] = tip
        if tip and indexed and git.has_commit(indexed):
            status["commits_behind"] = git.commits_between(indexed, tip)[0]
        elif tip and not indexed:
            status["commits_behind"] = None
    except RecalldError as exc:
        status["error"] = exc.message
    return status


def _literal_dir(glob: str | None) -> str | None:
    """The longest directory prefix of a glob without wildcards ("src/a" for "src/a/*.py")."""
    if not glob:
        return None
    parts = glob.strip("/").split("/")
    literal: list[str] = []
    for part in parts[:-1]:
        if _WILDCARD.search(part) or part == "**":
            break
        literal.append(part)
    return "/".join(literal) or None


def _path_ok(path: str, glob: str | None) -> bool:
    if glob is None:
        return True
    pattern = glob.strip("/")
    return glob_match(path, pattern) or glob_match(path, pattern + "/**")
