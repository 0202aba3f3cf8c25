"""The shape of a task memory (type ``task``, kind ``commit``): its embedded text and
its payload, both pure functions of a ``CommitRecord``."""

from __future__ import annotations

import re
from typing import Any

from recalld.ingest.commits import CommitRecord
from recalld.ingest.embed import text_hash
from recalld.ingest.plan import Scope
from recalld.ingest.records import PROVENANCE_VERSION, TASK, open_state, task_memory_id
from recalld.parsers.extraction import EXTRACTION_VERSION

BODY_CHARS = 500
MAX_PAYLOAD_FILES = 1000  # per list; a larger commit keeps the counts and sets files_truncated
TEXT_SYMBOLS = 40
TEXT_FILES = 20
# Payload keys only task memories have (export adds them to the common ones).
TASK_FIELDS = (
    "commit", "subject", "body", "parents", "author_time", "committer_time", "files_added",
    "files_modified", "files_deleted", "renames", "files_count", "files_truncated", "symbols",
    "symbols_truncated", "symbol_ids", "shallow",
)  # fmt: skip
_TRAILER = re.compile(r"^[A-Za-z][A-Za-z0-9-]*: ")
_SPACES = re.compile(r"\s+")


def body_summary(message: str, *, limit: int = BODY_CHARS) -> str:
    """The body's first paragraph that is not only trailers, on one line, bounded."""
    paragraphs = re.split(r"\n\s*\n", message.strip())[1:]
    for paragraph in paragraphs:
        lines = [line for line in paragraph.splitlines() if line.strip()]
        if lines and not all(_TRAILER.match(line) for line in lines):
            text = _SPACES.sub(" ", paragraph).strip()
            return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"
    return ""


def task_text(record: CommitRecord, *, max_chars: int) -> str:
    """Subject, body summary, a merge's commits' subjects (a pull request's commits: the
    first-parent history's merge is often all a history read makes a task memory of),
    then compact lists of touched symbols and files."""
    parts = [record.subject]
    body = body_summary(record.details.message)
    if body:
        parts.append(body)
    if record.merged:
        more = f" (+{record.merged_more} more commits)" if record.merged_more else ""
        parts.append("merged: " + "; ".join(record.merged) + more)
    qualnames = [q for file in record.symbols for q in file.touched]
    if qualnames:
        more = f" (+{len(qualnames) - TEXT_SYMBOLS} more)" if len(qualnames) > TEXT_SYMBOLS else ""
        parts.append("symbols: " + ", ".join(qualnames[:TEXT_SYMBOLS]) + more)
    paths = [c.new_path or c.old_path or "" for c in record.changes]
    if paths:
        more = f" (+{len(paths) - TEXT_FILES} more)" if len(paths) > TEXT_FILES else ""
        parts.append("files: " + ", ".join(paths[:TEXT_FILES]) + more)
    return "\n".join(parts)[:max_chars]


def task_payload(
    scope: Scope, record: CommitRecord, text: str, *, symbol_ids: list[str], history: list[dict[str, Any]]
) -> dict[str, Any]:
    details = record.details
    mid = task_memory_id(scope, details.id)
    return {
        "record": "memory",
        "type": TASK,
        "kind": "commit",
        "repo": scope.repo,
        "branch": scope.branch,
        "path": None,
        "name": record.subject,
        "commit": details.id,
        "subject": record.subject,
        "body": body_summary(details.message),
        "parents": list(details.parents),
        "author": details.author,
        "author_time": details.author_time,
        "committer_time": details.committer_time,
        **_files(record),
        "symbols": [
            {"path": f.path, "added": list(f.added), "modified": list(f.modified), "removed": list(f.removed)}
            for f in record.symbols
        ],
        "symbols_truncated": record.symbols_truncated,
        "symbol_ids": symbol_ids,
        "shallow": int(record.shallow),
        "provenance": PROVENANCE_VERSION,  # how its history was read: an earlier one's is written again
        "extraction": EXTRACTION_VERSION,  # and by which extractor: so is an earlier one's (tasks.backfill)
        "text": text,
        "content_hash": text_hash(text),
        "lineage": mid,
        "valid_from_commit": details.id,
        "valid_from_time": details.committer_time,
        **open_state(scope, history),
    }


def _files(record: CommitRecord) -> dict[str, Any]:
    by_status: dict[str, list[str]] = {"added": [], "modified": [], "deleted": []}
    renames: list[dict[str, Any]] = []
    for change in record.changes:
        if change.status == "renamed":
            renames.append({"from": change.old_path, "to": change.new_path, "similarity": change.similarity})
        elif change.status == "deleted":
            by_status["deleted"].append(change.old_path or "")
        elif change.status in ("added", "copied"):
            by_status["added"].append(change.new_path or "")
        else:
            by_status["modified"].append(change.new_path or "")
    truncated = max(len(renames), *(len(v) for v in by_status.values())) > MAX_PAYLOAD_FILES
    return {
        "files_added": by_status["added"][:MAX_PAYLOAD_FILES],
        "files_modified": by_status["modified"][:MAX_PAYLOAD_FILES],
        "files_deleted": by_status["deleted"][:MAX_PAYLOAD_FILES],
        "renames": renames[:MAX_PAYLOAD_FILES],
        "files_count": len(record.changes),
        "files_truncated": truncated,
    }
