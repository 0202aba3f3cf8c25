"""What changed in a repository's code between two indexed states: ``recalld changes
--since``, the HTTP API's ``changes?since=``, MCP's ``changes_since``.

The structural memories valid at each state (``--as-of``'s exact condition: ``asof``) are
compared by id, the same code at the same place; those on one side only are paired by
lineage, which a sync carries through an edit, a rename and a move (``ingest/plan.py``).
A lineage on both sides is one symbol that was ``modified``, ``renamed`` (its qualified
name) or ``moved`` (its file); one only at the later state was ``added``, one only at the
earlier ``removed``, with the reason its version was closed for (``deleted`` with its file,
``removed`` from it, ``skipped`` with a file no longer read)."""

from __future__ import annotations

import itertools
import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from recalld.daemon.app import App
from recalld.daemon.asof import indexed_states
from recalld.daemon.config import CHANGES_LIMIT, RECENT_LIMIT, RECENT_MAX
from recalld.daemon.blame import commit_record
from recalld.daemon.memories import recent_changes, summary
from recalld.daemon.query import AsOf, as_of, stale_repos
from recalld.daemon.paths import walked_dir
from recalld.daemon.registry import RepoEntry
from recalld.daemon.retrieve import path_ok, repo_glob
from recalld.daemon.unheld import held_nothing
from recalld.ingest.errors import RecalldError
from recalld.ingest.gitrecords import TreeFile
from recalld.ingest.gitrepo import GitRepository
from recalld.ingest.plan import Scope
from recalld.ingest.qualnames import short_name
from recalld.ingest.records import HISTORY_FIELDS, STRUCTURAL, stored_checkpoint
from recalld.ingest.store import MemoryFilter, StoredPoint, retrieve_many

# A version's fields, its intervals' with them: an earlier one is shown where it held (``query.AsOf``).
CHANGE_FIELDS = ("repo", "branch", "path", "language", "kind", "qualname", "signature", "docstring", "text",
                 "content_hash", "lineage", "start_line", "end_line", "author", "written_in",
                 *HISTORY_FIELDS)  # fmt: skip
PAIR_FIELDS = ("path", "kind", "qualname", "lineage", "start_line")  # what pairs and orders the changes
ORDER = ("moved", "renamed", "modified", "added", "removed")
COMMITS_LISTED = 20  # the newest commits between the two states an answer names
COMMITS_COUNTED = 10_000  # and how many it counts at most
PATH_SCANNED = 2_000  # the newest of them read for those under a path (a treeless clone fetches their trees)
# the marks around a doc's lines in code (quotes, comment leaders), for "did only its doc change"
_DOC_MARKS = " \t\"'/*#-;!"


@dataclass(frozen=True, slots=True)
class Change:
    change: str  # one of ORDER
    was: StoredPoint | None
    now: StoredPoint | None

    @property
    def where(self) -> tuple[str, int]:
        point = self.now or self.was
        assert point is not None
        return str(point.payload.get("path")), int(point.payload.get("start_line") or 0)


def repo_changes(
    app: App, repo: str, *, since: str | None = None, until: str | None = None, path: str | None = None,
    limit: int | None = None,
) -> dict[str, Any]:  # fmt: skip
    """What ``recalld changes`` and ``GET /v1/repos/{name}/changes`` answer: with ``since``
    the changes from then (``changes_between``), else the latest commits
    (``memories.recent_changes``)."""
    if since:
        return changes_between(app, repo, since, until or None, path=path, limit=limit or CHANGES_LIMIT)
    if until or path:
        raise RecalldError("until and path narrow the changes since a commit or date: give since too")
    if limit is not None and not 1 <= limit <= RECENT_MAX:
        raise RecalldError(f"limit must be 1 to {RECENT_MAX} without since, not {limit}")
    return recent_changes(app, repo, limit=limit or RECENT_LIMIT)


def changes_between(
    app: App, repo: str, since: str, until: str | None = None, *, path: str | None = None,
    limit: int = CHANGES_LIMIT,
) -> dict[str, Any]:  # fmt: skip
    """The symbols of ``repo`` added, modified, renamed, moved and removed from the state
    ``since`` answers for (a commit of the tracked branch, or a date) to ``until``'s (by
    default the indexed commit): the last the index synced the branch to at or before each
    (``from_commit``, ``to_commit``; the commits asked for are ``since_commit`` and
    ``until_commit``), those under ``path`` (a file, a directory or a glob: either
    side's path) alone when given. Each side is as it stood then (its lines, signature and
    doc at that state: ``asof.LinesAt``); at most ``limit`` changes listed, every one counted."""
    if limit <= 0:
        raise RecalldError("limit must be at least 1")
    entry = app.registry.get(repo)
    pattern = repo_glob(path, entry.path) if path is not None else None
    if pattern == "":
        raise RecalldError("name a file, a directory or a glob of the repository ('src/app.py', 'src/', '**/*.go')")
    start = _state(app, repo, since, "since")
    end = _state(app, repo, until, "until") if until else None
    synced = indexed_states(app.store, entry.name, entry.branch).targets
    for flag, text, at in (("since", since, start), ("until", until, end)):
        if at is not None and at.valid_at.state not in synced:  # only a commit's task memory is held there
            raise RecalldError(f"{flag} {text!r}: the index holds the code of repo {repo!r} from the first commit it"
                               " synced on, and before it the commits alone: ask since a later commit"
                               " (`recalld changes` lists the latest)")  # fmt: skip
    first = str(start.valid_at.state)
    last = str(end.valid_at.state) if end else stored_checkpoint(app.store, Scope(entry.name, entry.branch))["commit"]
    git = GitRepository(entry.path)
    # a state the branch left (an amend, a rebase) is compared as the index held it: only
    # one after the later state is refused
    if first != last and git.is_ancestor(last, first):
        later = f"until {until!r}" if until else "the indexed commit"
        raise RecalldError(f"since {since!r} ({first[:8]}) is not before {later} ({last[:8]}) on branch"
                           f" {entry.branch!r}")  # fmt: skip
    found = _paired(*_versions(app, entry, start, end))
    if pattern is not None:
        found = [c for c in found if any(p and path_ok(str(p.payload.get("path")), pattern) for p in (c.was, c.now))]
    found.sort(key=lambda c: (*c.where, ORDER.index(c.change)))
    shown = found[:limit]
    whole = {p.id: p for p in retrieve_many(app.store, [p.id for c in shown for p in (c.was, c.now) if p],
                                            fields=CHANGE_FIELDS)}  # fmt: skip
    shown = [c for c in shown if all(p is None or p.id in whole for p in (c.was, c.now))]  # none pruned since
    was_then = _placed(start.placed, [whole[c.was.id] for c in shown if c.was])
    now_then = _placed(end.placed if end else list, [whole[c.now.id] for c in shown if c.now])
    gone = _file_gone(git, last) if end else None
    cut = _Cut(git, first, last, app.config.index_options().max_embed_chars)
    listed = [_record(replace(c, was=was_then.get(c.was.id) if c.was else None,
                              now=now_then.get(c.now.id) if c.now else None), gone, cut)
              for c in shown]  # fmt: skip
    commits = git.walk_commits(last, hide=first, limit=COMMITS_COUNTED, first_parent=True) if first != last else []
    newest = _touching(git, commits, pattern) if pattern is not None else commits[:COMMITS_LISTED]
    counts = Counter(c.change for c in found)
    return {
        "repo": repo, "since": since, "until": until, "since_commit": start.valid_at.commit,
        "until_commit": end.valid_at.commit if end else last,
        "from_commit": first, "to_commit": last,
        "commits": len(commits),
        "newest_commits": [commit_record(git.commit_info(c)) for c in newest],
        **({"commits_under": pattern} if pattern is not None else {}),  # newest_commits: those that changed it
        "counts": {name: counts.get(name, 0) for name in ORDER}, "changes": listed,
        "truncated": len(found) > limit,
        **_noted(app, entry, pattern, found, to_indexed=end is None),
    }  # fmt: skip


def _touching(git: GitRepository, commits: list[str], pattern: str) -> list[str]:
    """The newest of ``commits`` (at most ``COMMITS_LISTED``) that changed something under
    ``pattern``'s directory or file (a glob's literal directory; ``**/x.py``: all of them),
    of the newest ``PATH_SCANNED`` (``changes --path`` listed every commit between)."""
    under = walked_dir(pattern)
    if not under:
        return commits[:COMMITS_LISTED]
    touched = (c for c in commits[:PATH_SCANNED] if git.touches(c, under))
    return list(itertools.islice(touched, COMMITS_LISTED))


def _noted(app: App, entry: RepoEntry, pattern: str | None, found: list[Change], *, to_indexed: bool) -> dict[str, str]:
    """``note``: why no change was found under ``pattern``, where the index holds nothing
    there now (the sync skipped the files, or there are none: ``unheld.why_unheld``); and,
    for changes to the indexed commit, that the memories lag the branch or cannot follow it
    (``query.stale_repos``: commits made since are not counted, "no change" while a sync
    was pending said nothing of them)."""
    said = []
    if pattern is not None and not found and (why := held_nothing(app, entry, pattern)):
        said.append(f"the index holds nothing at {pattern}: {why}")
    if to_indexed:
        said.extend(stale_repos(app, [entry]))
    return {"note": "; ".join(said)} if said else {}


def _state(app: App, repo: str, text: str, flag: str) -> AsOf:
    """The indexed state a ``--since`` or ``--until`` answers for (``query.as_of``)."""
    at = as_of(app, text, repo, flag=flag)
    assert at is not None
    if at.valid_at.state is None:  # a date before the index began
        raise RecalldError(f"{flag} {text!r}: repo {repo!r} was never indexed at or before then"
                           " (the index starts later)")  # fmt: skip
    return at


def versions_between(app: App, repo: str, since: str, until: str | None = None) -> tuple[set[str], set[str]]:
    """The ids of the versions valid at ``since``'s state and not at ``until``'s (by
    default the indexed commit), and of those valid at ``until``'s and not at ``since``'s:
    what ``changes_between`` pairs (``tests/bench/check_exact.py`` compares them with two
    fresh indexes)."""
    entry = app.registry.get(repo)
    start = _state(app, repo, since, "since")
    gone, came = _versions(app, entry, start, _state(app, repo, until, "until") if until else None)
    return {p.id for p in gone}, {p.id for p in came}


def _versions(
    app: App, entry: RepoEntry, start: AsOf, end: AsOf | None
) -> tuple[list[StoredPoint], list[StoredPoint]]:  # fmt: skip
    """The structural versions valid at one of the two states only (``end``: the indexed
    commit when None), with what pairs them."""
    flt = MemoryFilter(repo=entry.name, branch=entry.branch, types=(STRUCTURAL,), deprecated=None)
    return _differing(app, flt, start, end) if end else _since(app, flt, start)


def _since(app: App, branch: MemoryFilter, start: AsOf) -> tuple[list[StoredPoint], list[StoredPoint]]:
    """The versions valid at ``start`` and closed now, and those live now and not valid
    then, read without going through every live one: a live version valid then opened
    by a sync no later than the one that moved the branch there (``ValidAt.visit``), or
    held then in an earlier interval and reopened (asked of those opened after)."""
    store, at = app.store, start.valid_at
    gone = list(store.scroll(replace(branch, deprecated=1, valid_at=at), fields=PAIR_FIELDS))
    opened = replace(branch, deprecated=0, opened_after=at.visit)  # every live one when no visit is known
    held = {p.id for p in store.scroll(replace(opened, valid_at=at), fields=())}
    return gone, [p for p in store.scroll(opened, fields=PAIR_FIELDS) if p.id not in held]


def _differing(app: App, branch: MemoryFilter, start: AsOf, end: AsOf) -> tuple[list[StoredPoint], list[StoredPoint]]:
    """The versions valid at ``start`` and not at ``end``, and those valid at ``end`` and not at ``start``."""
    before = {p.id: p for p in app.store.scroll(replace(branch, valid_at=start.valid_at), fields=PAIR_FIELDS)}
    after = {p.id: p for p in app.store.scroll(replace(branch, valid_at=end.valid_at), fields=PAIR_FIELDS)}
    return [p for i, p in before.items() if i not in after], [p for i, p in after.items() if i not in before]


def _paired(gone: list[StoredPoint], came: list[StoredPoint]) -> list[Change]:
    """The versions valid at one state only, as changes: those of one lineage paired (the
    same path and name first, then the same name, then the same path, then the rest in turn)."""
    lineages: dict[str, tuple[list[StoredPoint], list[StoredPoint]]] = {}
    for side, points in enumerate((gone, came)):
        for point in points:
            lineages.setdefault(str(point.payload.get("lineage") or point.id), ([], []))[side].append(point)
    changes: list[Change] = []
    for olds, news in lineages.values():
        for key in (_place_name, _name, _place, lambda p: ""):
            for old in list(olds):
                new = next((n for n in news if key(n) == key(old)), None)
                if new is not None:
                    olds.remove(old)
                    news.remove(new)
                    changes.append(Change(_how(old, new), old, new))
        changes += [Change("removed", old, None) for old in olds] + [Change("added", None, new) for new in news]
    return changes


def _place_name(point: StoredPoint) -> tuple[str, str]:
    return _place(point), _name(point)


def _place(point: StoredPoint) -> str:
    return str(point.payload.get("path"))


def _name(point: StoredPoint) -> str:
    return str(point.payload.get("qualname"))


def _how(old: StoredPoint, new: StoredPoint) -> str:
    if _place(old) != _place(new):
        return "moved"
    return "renamed" if _name(old) != _name(new) else "modified"


Placing = Callable[[list[StoredPoint]], list[StoredPoint]]


def _placed(place: Placing, points: list[StoredPoint]) -> dict[str, StoredPoint]:
    return {p.id: p for p in place(points)}


def _file_gone(git: GitRepository, commit: str) -> Callable[[str], bool]:
    """Whether nothing is at a path at ``commit``."""
    return lambda path: git.lookup(commit, path) is None


def _record(change: Change, gone: Callable[[str], bool] | None, cut: _Cut) -> dict[str, Any]:
    """A change as the API answers it: what it was and what it is, and for a symbol on both
    sides what differs (``what``); for a removed one why (``reason``: its version's closing
    reason when the later state is the indexed commit, else by its file then)."""
    record: dict[str, Any] = {"change": change.change, "was": _side(change.was), "now": _side(change.now)}
    if change.was and change.now:
        record["what"] = _what(change.was.payload, change.now.payload, cut)
    elif change.was:
        old = change.was.payload
        if gone is None:
            record["reason"] = old.get("deprecated_reason")
        else:
            record["reason"] = "deleted" if gone(str(old.get("path"))) else "removed"
    return record


def _side(point: StoredPoint | None) -> dict[str, Any] | None:
    if point is None:
        return None
    fields = point.payload
    return {"id": point.id, "path": fields.get("path"), "kind": fields.get("kind"), "qualname": fields.get("qualname"),
            "signature": fields.get("signature"), "start_line": fields.get("start_line"),
            "end_line": fields.get("end_line"), "doc": summary(str(fields.get("docstring") or "")),
            "commit": fields.get("valid_from_commit"), "author": fields.get("author"),
            "written_in": fields.get("written_in")}  # fmt: skip


class _Cut:
    """The whole code of versions whose stored text was cut at ``max_chars``, read from
    git for them alone: the lines of a version placed in a file's blob (``asof.LinesAt``)
    there, else in its file at ``was`` (the earlier state) or ``now`` (the later)."""

    def __init__(self, git: GitRepository, was: str, now: str, max_chars: int) -> None:
        self._git, self._at, self.max_chars = git, {False: was, True: now}, max_chars
        self._lines: dict[str, list[str] | None] = {}  # by blob

    def whole(self, fields: dict[str, Any], *, now: bool) -> dict[str, Any] | None:
        """``fields`` with the version's whole code for text (its head line blank, as
        ``_code`` reads one: the doc's lines are left out there); None where not read."""
        path, start, end = fields.get("path"), int(fields.get("start_line") or 0), int(fields.get("end_line") or 0)
        blob = fields.get("blob")
        try:
            if not blob:
                found = self._git.lookup(self._at[now], str(path))
                blob = found.blob if isinstance(found, TreeFile) else None
            if blob and blob not in self._lines:
                self._lines[blob] = self._git.blobs.read(blob).decode("utf-8", "replace").split("\n")
        except RecalldError:  # a blob a partial clone cannot fetch now: the code counts as changed
            return None
        lines = self._lines.get(blob) if blob else None
        if lines is None or not 1 <= start <= end <= len(lines):
            return None
        return {**fields, "text": "\n".join(["", *lines[start - 1 : end]])}


def _what(old: dict[str, Any], new: dict[str, Any], cut: _Cut) -> list[str]:
    """What differs between two versions of a symbol: ``path``, ``name``, ``kind``,
    ``signature``, ``doc``, ``code``: its signature and code beyond its new name, and
    beyond its doc (the content hash; where the doc or the name changed too, the stored
    texts without the doc's lines and with the old name read as the new; where one was
    cut at ``max_chars``, both versions' whole code, read from git: ``_Cut``)."""
    what = [name for name, key in (("path", "path"), ("name", "qualname"), ("kind", "kind"))
            if old.get(key) != new.get(key)]  # fmt: skip
    was, now = _declared(old), _declared(new)
    renamed = re.compile(rf"(?<![\w$]){re.escape(was)}(?![\w$])") if was and now and was != now else None

    def as_new(text: str) -> str:
        return renamed.sub(now, text) if renamed else text

    if as_new(str(old.get("signature") or "")) != str(new.get("signature") or ""):
        what.append("signature")
    if old.get("docstring") != new.get("docstring"):
        what.append("doc")
    if old.get("content_hash") != new.get("content_hash"):
        if ("doc" not in what and not renamed) or _code_differs(old, new, as_new, cut):
            what.append("code")
    return what


def _code_differs(old: dict[str, Any], new: dict[str, Any], as_new: Callable[[str], str], cut: _Cut) -> bool:
    """Whether two versions' code differs beyond their doc and the old name read as the
    new (``as_new``): their stored texts compared, or where one was cut at ``max_chars``
    (the code past it unseen) their whole code, read from git (differing where not read)."""
    if max(len(str(f.get("text") or "")) for f in (old, new)) >= cut.max_chars:
        was, now = cut.whole(old, now=False), cut.whole(new, now=True)
        if was is None or now is None:
            return True
        old, new = was, now
    return [as_new(line) for line in _code(old)] != _code(new)


def _declared(fields: dict[str, Any]) -> str:
    """The name a symbol is declared with (``qualnames.short_name``): its qualified name's
    last part, without what extraction appends to tell namesakes apart (an overload's
    parameters, a Java method's return type, a repeat's mark)."""
    return short_name(str(fields.get("qualname") or ""))


def _code(fields: dict[str, Any]) -> list[str]:
    """A version's stored text without its head line and its doc's lines (as written in
    code or cleaned), each line without the marks around it, blank lines left out."""
    doc = {line.strip(_DOC_MARKS) for line in str(fields.get("docstring") or "").splitlines()}
    lines = str(fields.get("text") or "").split("\n")[1:]
    return [bare for line in lines if (bare := line.strip(_DOC_MARKS)) and bare not in doc]
