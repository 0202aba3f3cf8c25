"""The ISO dates and datetimes ``--as-of``, ``--since`` and ``--until`` take."""

from __future__ import annotations

import re
from datetime import UTC, datetime, time, timedelta

from recalld.ingest.errors import RecalldError

_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}")


def parse_date(text: str, *, flag: str = "as of") -> int | None:
    """Unix seconds for an ISO date/datetime, None when ``text`` does not look like one
    (``flag``: what it was given as, as an error names it: ``query.as_of``)."""
    if not _DATE.match(text):
        return None
    try:
        moment = datetime.fromisoformat(text)
    except ValueError as exc:  # "month must be in 1..12"; an offset's told its Python repr (timedelta(days=4, …))
        why = "its UTC offset is not within 24 hours" if "offset" in str(exc) else str(exc)
        raise RecalldError(f"{flag} {text!r} is not a valid ISO date or datetime ({why})") from None
    if len(text) == 10:  # a bare date: the state at the end of that day
        moment = datetime.combine(moment.date(), time.min) + timedelta(days=1, seconds=-1)
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return int(moment.timestamp())
