"""``MemoryFilter`` as qdrant-client's filter: the server adapter's half that reads no
point (``store_server``), as ``store_edge_filter`` is the embedded engine's."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from qdrant_client import models

from recalld.ingest.store import FollowedScopes, MemoryFilter, ValidAt, followed_scopes


def to_filter(flt: MemoryFilter) -> models.Filter | None:
    must: list[models.Condition] = []
    for key in ("record", "repo", "branch", "language"):
        value = getattr(flt, key)
        if value is not None:
            must.append(models.FieldCondition(key=key, match=models.MatchValue(value=value)))
    if flt.followed:
        must.extend(_followed(followed_scopes(flt)))
    if flt.types:
        must.append(models.FieldCondition(key="type", match=models.MatchAny(any=list(flt.types))))
    if flt.valid_at is not None:
        must.append(_valid_at(flt.valid_at))
    if flt.deprecated is not None:
        must.append(models.FieldCondition(key="deprecated", match=models.MatchValue(value=int(flt.deprecated))))
    if flt.dir_prefix:
        must.append(models.FieldCondition(key="dirs", match=models.MatchValue(value=flt.dir_prefix.strip("/"))))
    if flt.closed_before is not None:
        must.append(_closed_before(flt.closed_before))
    if flt.stamped_since is not None:
        since = models.Range(gte=flt.stamped_since)
        must.append(models.Filter(should=[models.FieldCondition(key=key, range=since)
                                          for key in ("valid_from_sync", "valid_to_sync")]))  # fmt: skip
    if flt.opened_after is not None:
        must.append(models.Filter(should=[
            models.FieldCondition(key="valid_from_sync", range=models.Range(gt=flt.opened_after)),
            _empty("valid_from_sync"),
        ]))  # fmt: skip
    for key, values in (("kind", flt.kinds), ("path", flt.paths), ("qualname", flt.qualnames),
                        ("name", flt.names), ("content_hash", flt.codes), ("written_in", flt.written_in),
                        ("lineage", flt.lineages)):  # fmt: skip
        if values:
            must.append(models.FieldCondition(key=key, match=models.MatchAny(any=list(values))))
    if flt.named:
        must.append(named_condition(flt.named))
    must_not: list[models.Condition] = []
    if flt.hide_untrusted:
        must_not.append(models.FieldCondition(key="untrusted", match=models.MatchValue(value=1)))
    return models.Filter(must=must, must_not=must_not) if must or must_not else None


def _followed(scopes: FollowedScopes) -> list[models.Filter]:
    """The memory is of its repository's followed branch, or of none (``followed_scopes``)."""
    def on(branch: str) -> models.Filter:
        return models.Filter(should=[models.FieldCondition(key="branch", match=models.MatchValue(value=branch)),
                                     _empty("branch")])  # fmt: skip

    if not scopes.each:  # the filter's repository's branch alone
        return [on(branch) for branch in scopes.own]
    repos = [repo for repo, _ in scopes.each]
    each = [models.Filter(must=[models.FieldCondition(key="repo", match=models.MatchValue(value=repo)), on(branch)])
            for repo, branch in scopes.each]  # fmt: skip
    elsewhere = models.Filter(must_not=[models.FieldCondition(key="repo", match=models.MatchAny(any=repos))])
    return [models.Filter(should=[*each, elsewhere])]


def _closed_before(moment: int) -> models.Filter:
    """Closed by a sync stamped before ``moment`` (unix seconds), or, closed unstamped (a
    forgotten manual memory, or before syncs were stamped), at a time before it."""
    return models.Filter(should=[
        models.FieldCondition(key="valid_to_sync", range=models.Range(gt=0, lt=moment * 1_000_000)),
        models.Filter(must=[
            _empty("valid_to_sync"),
            models.FieldCondition(key="valid_to_time", range=models.Range(gt=0, lt=moment)),
        ]),
    ])  # fmt: skip


def named_condition(names: Sequence[str]) -> models.Filter:
    """The memory's name or qualified name is one of ``names``."""
    match = models.MatchAny(any=list(names))
    return models.Filter(should=[models.FieldCondition(key=key, match=match) for key in ("name", "qualname")])


def _valid_at(at: ValidAt) -> models.Filter:
    """The current interval or any interval in ``history`` held at ``at``."""
    if at.commits is None:
        return models.Filter(should=[_by_time(at.time), _nested_history(_by_time(at.time, earlier=True))])
    states, later = list(at.commits) or [""], list(at.later) or [""]
    span = models.Filter(
        must=[models.FieldCondition(key="valid_from_commit", match=models.MatchAny(any=states))],
        should=[
            models.FieldCondition(key="valid_through_commit", match=models.MatchAny(any=later)),
            models.Filter(  # still open, or closed before recalld recorded where it was last valid
                must=[_empty("valid_through_commit")],
                must_not=[models.FieldCondition(key="valid_to_commit", match=models.MatchAny(any=states))],
            ),
        ],
    )
    if at.visit is not None:
        by_sync = models.Filter(
            must=[models.FieldCondition(key="valid_from_sync", range=models.Range(lte=at.visit))],
            should=[
                _empty("valid_to_sync"),  # still open
                models.FieldCondition(key="valid_to_sync", range=models.Range(gt=at.visit)),
            ],
        )
        span = models.Filter(should=[by_sync, models.Filter(must=[_empty("valid_from_sync"), span])])
    no_commit = models.Filter(must=[_empty("valid_from_commit"), _by_time(at.time)])
    return models.Filter(should=[span, _nested_history(span), no_commit])


def _empty(key: str) -> models.IsEmptyCondition:
    return models.IsEmptyCondition(is_empty=models.PayloadField(key=key))


def _by_time(time: int, *, earlier: bool = False) -> models.Filter:
    """An interval held at ``time``; an ``earlier`` one (of a point's history) also up to
    where it was last valid, when a move back closed it (``ValidAt``)."""
    ends: list[Any] = [
        models.FieldCondition(key="valid_to_time", match=models.MatchValue(value=0)),
        models.FieldCondition(key="valid_to_time", range=models.Range(gt=time)),
    ]
    if earlier:
        ends.append(models.FieldCondition(key="valid_through_time", range=models.Range(gte=time)))
    return models.Filter(must=[models.FieldCondition(key="valid_from_time", range=models.Range(lte=time))], should=ends)


def _nested_history(flt: models.Filter) -> models.NestedCondition:
    return models.NestedCondition(nested=models.Nested(key="history", filter=flt))
