"""A ``MemoryFilter`` in the embedded engine's terms (qdrant-edge's ``Filter``), for
``store_edge``; ``store_server`` has its twin for qdrant-client's models."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import qdrant_edge as qe

from recalld.ingest.store import MemoryFilter, ValidAt


def to_filter(flt: MemoryFilter) -> qe.Filter | None:
    must: list[Any] = []

    def equal(key: str, value: Any) -> None:
        must.append(qe.FieldCondition(key, match=qe.MatchValue(value)))

    def any_of(key: str, values: Sequence[str]) -> None:
        must.append(qe.FieldCondition(key, match=qe.MatchAny(list(values))))

    for key in ("record", "repo", "branch", "language"):
        value = getattr(flt, key)
        if value is not None:
            equal(key, value)
    if flt.types:
        any_of("type", flt.types)
    if flt.valid_at is not None:
        must.append(_valid_at(flt.valid_at))
    if flt.deprecated is not None:
        equal("deprecated", int(flt.deprecated))
    if flt.dir_prefix:
        equal("dirs", flt.dir_prefix.strip("/"))
    if flt.closed_before is not None:
        must.append(qe.FieldCondition("valid_to_time", range=qe.RangeFloat(gt=0, lt=float(flt.closed_before))))
    for key, values in (("kind", flt.kinds), ("path", flt.paths), ("qualname", flt.qualnames),
                        ("name", flt.names), ("content_hash", flt.codes)):  # fmt: skip
        if values:
            any_of(key, values)
    if flt.named:
        must.append(named_condition(flt.named))
    must_not: list[Any] = [qe.FieldCondition("untrusted", match=qe.MatchValue(1))] if flt.hide_untrusted else []
    return qe.Filter(must=must, must_not=must_not) if must or must_not else None


def named_condition(names: Sequence[str]) -> qe.Filter:
    """The memory's name or qualified name is one of ``names``."""
    return qe.Filter(should=[qe.FieldCondition(key, match=qe.MatchAny(list(names))) for key in ("name", "qualname")])


def _valid_at(at: ValidAt) -> qe.Filter:
    """The current interval or any interval in ``history`` held at ``at``."""
    t = float(at.time)
    by_time = qe.Filter(
        must=[qe.FieldCondition("valid_from_time", range=qe.RangeFloat(lte=t))],
        should=[
            qe.FieldCondition("valid_to_time", range=qe.RangeFloat(lte=0)),  # 0: still valid
            qe.FieldCondition("valid_to_time", range=qe.RangeFloat(gt=t)),
        ],
    )
    if at.commits is None:
        return qe.Filter(should=[by_time, qe.NestedCondition("history", by_time)])
    states = list(at.commits) or [""]
    by_state = qe.Filter(
        must=[qe.FieldCondition("valid_from_commit", match=qe.MatchAny(states))],
        must_not=[qe.FieldCondition("valid_to_commit", match=qe.MatchAny(states))],
    )
    no_commit = qe.Filter(must=[qe.IsEmptyCondition("valid_from_commit"), by_time])
    return qe.Filter(should=[by_state, qe.NestedCondition("history", by_state), no_commit])
