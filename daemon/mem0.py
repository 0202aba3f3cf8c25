"""A Mem0-shaped view of search results, for agents written against Mem0's API.

Mem0's ``search`` answers ``{"results": [{"id", "memory", "hash", "metadata", "score",
"created_at", "updated_at", "user_id", "agent_id", "run_id", ...}]}``. Here the repo is
the group: ``user_id`` is the memory's user where it has one, else its repo, and
``app_id`` is always the repo. ``metadata`` carries the provenance.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

MEMORY_CHARS = 1000
METADATA_FIELDS = (
    "repo", "branch", "type", "kind", "language", "path", "start_line", "end_line", "qualname",
    "signature", "author", "written_in", "valid_from_commit", "valid_from_time", "valid_to_commit", "valid_to_time",
    "deprecated", "deprecated_reason", "superseded_by", "lineage", "untrusted", "org",
)  # fmt: skip


def mem0_results(records: list[dict[str, Any]]) -> dict[str, Any]:
    return {"results": [mem0_record(r) for r in records]}


def mem0_record(record: dict[str, Any]) -> dict[str, Any]:
    """One public memory record (``query.memory_record``) as a Mem0 memory item."""
    metadata = {key: record[key] for key in METADATA_FIELDS if record.get(key) is not None}
    metadata["commit"] = record.get("valid_from_commit")
    closed = record.get("valid_to_time") or 0
    return {
        "id": record["id"],
        "memory": summary(record),
        "hash": record.get("content_hash"),
        "metadata": metadata,
        "score": record.get("score"),
        "created_at": _iso(record.get("valid_from_time")),
        "updated_at": _iso(closed) if closed else None,
        "user_id": record.get("user") or record.get("repo"),
        "agent_id": None,
        "run_id": None,
        "app_id": record.get("repo"),
    }


def summary(record: dict[str, Any]) -> str:
    """A readable line for a structural memory; the text itself for the other types."""
    if record.get("type", "structural") != "structural" or not record.get("kind"):
        return str(record.get("text") or "")[:MEMORY_CHARS]
    where = f"{record.get('path')}:{record.get('start_line')}-{record.get('end_line')}"
    if record["kind"] == "module":
        head = f"{record.get('language')} module {record.get('path')}"
    else:
        head = f"{record.get('language')} {record['kind']} {record.get('qualname')} in {where}"
    parts = [head]
    if record.get("signature"):
        parts.append(str(record["signature"]))
    doc = str(record.get("docstring") or "").strip()
    if doc:
        parts.append(doc.splitlines()[0])
    return " — ".join(parts)[:MEMORY_CHARS]


def _iso(seconds: Any) -> str | None:
    if not isinstance(seconds, int | float) or seconds <= 0:
        return None
    return datetime.fromtimestamp(seconds, tz=UTC).isoformat()
