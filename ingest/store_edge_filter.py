"""A ``MemoryFilter`` in the embedded engine's terms (qdrant-edge's ``Filter``), for
``store_edge``; ``store_server`` has its twin for qdrant-client's models."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import qdrant_edge as qe

from recalld.ingest.store import FollowedScopes, MemoryFilter, ValidAt, followed_scopes


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
    if flt.followed:
        must.extend(_followed(followed_scopes(flt)))
    if flt.types:
        any_of("type", flt.types)
    if flt.valid_at is not None:
        must.append(_valid_at(flt.valid_at))
    if flt.deprecated is not None:
        equal("deprecated", int(flt.deprecated))
    if flt.dir_prefix:
        equal("dirs", flt.dir_prefix.strip("/"))
    if flt.closed_before is not None:
        must.append(_closed_before(flt.closed_before))
    if flt.stamped_since is not None:
        since = qe.RangeFloat(gte=float(flt.stamped_since))
        stamps = ("valid_from_sync", "valid_to_sync")
        must.append(qe.Filter(should=[qe.FieldCondition(key, range=since) for key in stamps]))
    if flt.opened_after is not None:
        must.append(qe.Filter(should=[
            qe.FieldCondition("valid_from_sync", range=qe.RangeFloat(gt=float(flt.opened_after))),
            qe.IsEmptyCondition("valid_from_sync"),
        ]))  # fmt: skip
    for key, values in (("kind", flt.kinds), ("path", flt.paths), ("qualname", flt.qualnames),
                        ("name", flt.names), ("content_hash", flt.codes), ("written_in", flt.written_in),
                        ("lineage", flt.lineages)):  # fmt: skip
        if values:
            any_of(key, values)
    if flt.named:
        must.append(named_condition(flt.named))
    must_not: list[Any] = [qe.FieldCondition("untrusted", match=qe.MatchValue(1))] if flt.hide_untrusted else []
    return qe.Filter(must=must, must_not=must_not) if must or must_not else None


def _followed(scopes: FollowedScopes) -> list[qe.Filter]:
    """The memory is of its repository's followed branch, or of none (``followed_scopes``)."""
    def on(branch: str) -> qe.Filter:
        named = qe.FieldCondition("branch", match=qe.MatchValue(branch))
        return qe.Filter(should=[named, qe.IsEmptyCondition("branch")])

    if not scopes.each:  # the filter's repository's branch alone
        return [on(branch) for branch in scopes.own]
    repos = [repo for repo, _ in scopes.each]
    each = [qe.Filter(must=[qe.FieldCondition("repo", match=qe.MatchValue(repo)), on(branch)])
            for repo, branch in scopes.each]  # fmt: skip
    return [qe.Filter(should=[*each, qe.Filter(must_not=[qe.FieldCondition("repo", match=qe.MatchAny(repos))])])]


def _closed_before(moment: int) -> qe.Filter:
    """Closed by a sync stamped before ``moment`` (unix seconds), or, closed unstamped (a
    forgotten manual memory, or before syncs were stamped), at a time before it."""
    return qe.Filter(should=[
        qe.FieldCondition("valid_to_sync", range=qe.RangeFloat(gt=0, lt=float(moment) * 1e6)),
        qe.Filter(must=[
            qe.IsEmptyCondition("valid_to_sync"),
            qe.FieldCondition("valid_to_time", range=qe.RangeFloat(gt=0, lt=float(moment))),
        ]),
    ])  # fmt: skip


def named_condition(names: Sequence[str]) -> qe.Filter:
    """The memory's name or qualified name is one of ``names``."""
    return qe.Filter(should=[qe.FieldCondition(key, match=qe.MatchAny(list(names))) for key in ("name", "qualname")])


def _valid_at(at: ValidAt) -> qe.Filter:
    """The current interval or any interval in ``history`` held at ``at``."""
    if at.commits is None:
        return qe.Filter(should=[_by_time(at.time), qe.NestedCondition("history", _by_time(at.time, earlier=True))])
    states, later = list(at.commits) or [""], list(at.later) or [""]
    span = qe.Filter(
        must=[qe.FieldCondition("valid_from_commit", match=qe.MatchAny(states))],
        should=[
            qe.FieldCondition("valid_through_commit", match=qe.MatchAny(later)),
            qe.Filter(  # still open, or closed before recalld recorded where it was last valid
                must=[qe.IsEmptyCondition("valid_through_commit")],
                must_not=[qe.FieldCondition("valid_to_commit", match=qe.MatchAny(states))],
            ),
        ],
    )
    if at.visit is not None:
        k = float(at.visit)
        by_sync = qe.Filter(
            must=[qe.FieldCondition("valid_from_sync", range=qe.RangeFloat(lte=k))],
            should=[
                qe.IsEmptyCondition("valid_to_sync"),  # still open
                qe.FieldCondition("valid_to_sync", range=qe.RangeFloat(gt=k)),
            ],
        )
        span = qe.Filter(should=[by_sync, qe.Filter(must=[qe.IsEmptyCondition("valid_from_sync"), span])])
    no_commit = qe.Filter(must=[qe.IsEmptyCondition("valid_from_commit"), _by_time(at.time)])
    return qe.Filter(should=[span, qe.NestedCondition("history", span), no_commit])


def _by_time(time: int, *, earlier: bool = False) -> qe.Filter:
    """An interval held at ``time``; an ``earlier`` one (of a point's history) also up to
    where it was last valid, when a move back closed it (``ValidAt``)."""
    t = float(time)
    ends: list[Any] = [
        qe.FieldCondition("valid_to_time", range=qe.RangeFloat(lte=0)),  # 0: still valid
        qe.FieldCondition("valid_to_time", range=qe.RangeFloat(gt=t)),
    ]
    if earlier:
        ends.append(qe.FieldCondition("valid_through_time", range=qe.RangeFloat(gte=t)))
    return qe.Filter(must=[qe.FieldCondition("valid_from_time", range=qe.RangeFloat(lte=t))], should=ends)
