"""``recalld export`` and ``GET /v1/export``: every memory as JSON records, now or as of a
commit or date, read page by page as they are sent, with what the answer is as of then."""

from __future__ import annotations

from collections.abc import Iterator
from itertools import islice
from typing import Any

from recalld.daemon.app import App
from recalld.daemon.query import AsOf, as_of, memory_record, no_code_then, note_as_of
from recalld.ingest.store import MemoryFilter

EXPORT_PAGE = 512  # points an as-of export places at a time (``AsOf.placed``)


def export_noted(
    app: App, *, repo: str | None, include_deprecated: bool, as_of_text: str | None = None
) -> tuple[Iterator[dict[str, Any]], list[str]]:
    """Every memory (of ``repo``): those valid now, or with ``as_of_text`` those valid then
    with the lines they had (``as_of``), deprecated ones too when asked; and as of a commit
    what the answer is where the index never synced it on its own (``note_as_of``), or that
    no code memory was valid then: as search says them (an export as of 1900 was an empty
    answer without a word). A bad repository or as-of is an error here, before any record."""
    if repo is not None:
        app.registry.get(repo)
    at = as_of(app, as_of_text, repo)
    notes: list[str] = []
    note_as_of(notes, at, as_of_text)
    if at is not None:
        notes += no_code_then(app, MemoryFilter(repo=repo, followed=app.registry.followed(repo), deprecated=None),
                               at.valid_at, as_of_text)  # fmt: skip
    return _exported(app, repo, include_deprecated, at), notes


def _exported(app: App, repo: str | None, include_deprecated: bool, at: AsOf | None) -> Iterator[dict[str, Any]]:
    valid_at = at.valid_at if at else None
    flt = MemoryFilter(repo=repo, followed=app.registry.followed(repo),
                       deprecated=None if include_deprecated or at else 0, valid_at=valid_at)
    points = app.store.stream(flt)
    if at is None:
        yield from map(memory_record, points)
        return
    while page := list(islice(points, EXPORT_PAGE)):
        yield from map(memory_record, at.placed(page))
