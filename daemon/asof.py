"""``--as-of COMMIT|DATE``: turning what the user typed into a validity condition.

A DATE (ISO date or datetime; UTC unless it names a zone; a bare date means the end of
that day) selects by the validity interval's times. A COMMIT of the tracked branch
selects by the branch's indexed states: the store knows the branch at the commits it
synced to (every ``valid_from_commit`` / ``valid_to_commit``, reopened points' earlier
intervals included). The answer is the state at the last of those at or before the
commit — exact for that commit when it was indexed itself, and "as far as the index
knows" otherwise.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime, time, timedelta

from recalld.ingest.errors import RecalldError
from recalld.ingest.gitrepo import GitRepository
from recalld.ingest.store import MemoryFilter, Store, ValidAt

_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}")
STATE_FIELDS = ("valid_from_commit", "valid_to_commit", "history")


def parse_date(text: str) -> int | None:
    """Unix seconds for an ISO date/datetime, None when ``text`` does not look like one."""
    if not _DATE.match(text):
        return None
    try:
        moment = datetime.fromisoformat(text)
    except ValueError as exc:
        raise RecalldError(f"--as-of {text!r} is not a valid ISO date or datetime ({exc})") from None
    if len(text) == 10:  # a bare date: the state at the end of that day
        moment = datetime.combine(moment.date(), time.min) + timedelta(days=1, seconds=-1)
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return int(moment.timestamp())


def indexed_states(store: Store, repo: str, branch: str) -> set[str]:
    """Every commit the store knows the branch at: where some interval opened or closed."""
    flt = MemoryFilter(repo=repo, branch=branch, deprecated=None)
    states: set[str] = set()
    for point in store.scroll(flt, fields=STATE_FIELDS):
        intervals = [point.payload, *(point.payload.get("history") or [])]
        for interval in intervals:
            for key in ("valid_from_commit", "valid_to_commit"):
                commit = interval.get(key)
                if isinstance(commit, str) and commit:
                    states.add(commit)
    return states


def states_at_commit(store: Store, git: GitRepository, *, repo: str, branch: str, rev: str) -> ValidAt:
    """The condition "valid at ``rev``" for a commit of the tracked branch."""
    commit = git.resolve_commit(rev)
    if commit is None:
        raise RecalldError(f"--as-of {rev!r}: no such commit in repo {repo!r} (nor an ISO date)")
    tip = git.branch_tip(branch)
    if tip is None or not git.is_ancestor(commit, tip):
        raise RecalldError(f"--as-of {rev!r}: commit {commit[:12]} is not on branch {branch!r} of repo {repo!r}")
    known = indexed_states(store, repo, branch)
    before = tuple(sorted(s for s in known if git.is_ancestor(s, commit)))
    if not before:
        raise RecalldError(
            f"--as-of {rev!r}: repo {repo!r} was never indexed at or before commit {commit[:12]}"
            " (the index starts later)"
        )
    return ValidAt(time=git.commit_info(commit).time, commits=before)
