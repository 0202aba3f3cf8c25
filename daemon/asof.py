"""``--as-of COMMIT|DATE``: turning what the user typed into a validity condition.

A COMMIT of the tracked branch selects by the branch's indexed states: the store knows
the branch at the commits it synced to (every ``valid_from_commit`` / ``valid_to_commit``
/ ``valid_through_commit``, reopened points' earlier intervals included). The answer is
the state at the last of those at or before the commit — exact for that commit when it
was indexed itself, and "as far as the index knows" otherwise: the intervals that span a
sync that moved the branch there (each sync stamps what it opens and closes:
``records.next_stamp``), whichever way the branch moved before and after. Intervals made
before syncs were stamped are judged by their commits (``store.ValidAt``). Each memory
of the answer is given the lines, signature, docstring and language its code had at the
commit asked where its code is there (its id is its content's), else at the state
(``LinesAt``).

A DATE (ISO date or datetime; UTC unless it names a zone; a bare date means the end of
that day) is, for one repository, its branch's commit at that time; across several, the
validity intervals' times decide. Manual memories, which no commit opened, go by time.
"""

from __future__ import annotations

import threading
import weakref
from dataclasses import dataclass, field, replace
from itertools import chain
from collections.abc import Callable, Iterable, Iterator
from time import monotonic
from typing import TYPE_CHECKING, Any

from recalld.daemon.logs import get_logger
from recalld.ingest.errors import AmbiguousRevisionError, RecalldError
from recalld.ingest.files import IndexOptions
from recalld.ingest.gitrecords import TreeFile
from recalld.ingest.plan import FileSymbols, Scope, memory_id
from recalld.ingest.records import TASK, stored_checkpoint
from recalld.ingest.store import MemoryFilter, Store, StoredPoint, ValidAt
from recalld.parsers.base import Symbol

if TYPE_CHECKING:  # given one by the caller that asks as of a commit or a date: pygit2 loads there
    from recalld.ingest.gitrepo import GitRepository

STATE_KEYS = ("valid_from_commit", "valid_to_commit", "valid_through_commit")
STATE_FIELDS = (*STATE_KEYS, "valid_from_sync", "valid_to_sync", "history")
# What an unchanged memory's code may have read otherwise at an earlier commit, its text
# with it: a signature holds what lies outside its code (``var f = function`` made ``const
# f = function``), a header's code the language its other code makes it (C's ``.h`` read as
# C++), and any of them an earlier extractor's reading (a doc read otherwise).
_READ_AGAIN = ("signature", "docstring", "language")
log = get_logger("recalld.asof")
# A store's branches' known states, with the generation they were read at (``indexed_states``).
_KNOWN: weakref.WeakKeyDictionary[Store, dict[tuple[str, str], _Kept]] = weakref.WeakKeyDictionary()
_KNOWN_LOCK = threading.Lock()


@dataclass(slots=True)
class Known:
    """What the store knows of a branch's states: every commit where some interval opened,
    closed or was last valid; those of them the branch was synced to (all but a task
    memory's own commit, where its interval opens: ``ingest/tasks.py``); and for a
    synced commit, the stamp of a sync that moved the branch there (``records.next_stamp``);
    ``left``: for a commit where what a sync closed was last valid, one just before that
    sync's stamp, where the branch still held it (``visit``: for a state no sync that moved
    nothing stamped, as a mode changed; not over a stamp of its own, which an interrupted
    sync's writes since, kept by the next, could follow)."""

    states: set[str] = field(default_factory=set)
    targets: set[str] = field(default_factory=set)
    visits: dict[str, int] = field(default_factory=dict)
    left: dict[str, int] = field(default_factory=dict)

    def copy(self) -> Known:
        return Known(set(self.states), set(self.targets), dict(self.visits), dict(self.left))

    def visit(self, commit: str) -> int | None:
        """A stamp at which the branch held ``commit``, where one is known."""
        return self.visits.get(commit, self.left.get(commit))

    def add(self, interval: dict[str, Any], *, task: bool) -> None:
        for key in STATE_KEYS:
            commit = interval.get(key)
            if isinstance(commit, str) and commit:
                self.states.add(commit)
                if not (task and key == "valid_from_commit"):
                    self.targets.add(commit)
        for commit_key, stamp_key in (("valid_from_commit", "valid_from_sync"), ("valid_to_commit", "valid_to_sync")):
            commit, stamp = interval.get(commit_key), interval.get(stamp_key)
            if isinstance(commit, str) and isinstance(stamp, int) and not (task and commit_key == "valid_from_commit"):
                self.visits[commit] = max(stamp, self.visits.get(commit, stamp))
        through, closed = interval.get("valid_through_commit"), interval.get("valid_to_sync")
        if isinstance(through, str) and through and isinstance(closed, int):
            self.left[through] = min(closed - 1, self.left.get(through, closed - 1))


@dataclass(frozen=True, slots=True)
class _Kept:
    """A branch's known states as read at a generation: its checkpoint (and so the last
    sync's stamp, and whether a sync was under way) and how many points the branch had,
    with their ids."""

    checkpoint: dict[str, Any]
    count: int
    ids: frozenset[str]
    known: Known


def indexed_states(store: Store, repo: str, branch: str) -> Known:
    """Every interval's states of ``repo``'s ``branch``, reopened points' earlier ones too.

    Read from every point of the branch (~3 s at 40k points), and kept per store while
    the branch's generation holds: its checkpoint (every sync writes it, with a stamp
    later than the last, before and after it moves an interval) and how many points it
    has (what a history backfill cut short or a prune changes without a checkpoint).
    After syncs that each completed, it is read on from what was kept (``_caught_up``)."""
    flt = MemoryFilter(repo=repo, branch=branch, deprecated=None)
    checkpoint, count = stored_checkpoint(store, Scope(repo, branch)), store.count(flt)
    with _KNOWN_LOCK:
        kept = _KNOWN.setdefault(store, {}).get((repo, branch))
    if kept is not None and (kept.checkpoint, kept.count) == (checkpoint, count):
        return _with_checkpoint(kept.known, checkpoint)
    now = _caught_up(store, flt, kept, checkpoint, count) if kept is not None else None
    if now is None:
        known, ids = Known(), set()
        for point in store.scroll(flt, fields=(*STATE_FIELDS, "type")):
            ids.add(point.id)
            _add(known, point)
        now = _Kept(checkpoint, count, frozenset(ids), known)
    with _KNOWN_LOCK:
        _KNOWN.setdefault(store, {})[(repo, branch)] = now
    return _with_checkpoint(now.known, checkpoint)


def warm_states(store: Store, branches: Iterable[tuple[str, str]], stopping: Callable[[], bool]) -> None:
    """Reads each ``(repo, branch)``'s indexed states ahead of the first as-of or
    ``changes --since`` question, which would read them itself (the daemon calls this when
    idle after syncs: every point at its start, ~1.3–3 s at 40k, then on from what was
    kept, 0.02–0.2 s). A branch that fails is logged and left to the question."""
    for repo, branch in branches:
        if stopping():
            return
        started = monotonic()
        try:
            indexed_states(store, repo, branch)
        except RecalldError as exc:
            log.warning("as-of states not read ahead", repo=repo, branch=branch, error=exc.message)
            continue
        log.debug("as-of states read ahead", repo=repo, branch=branch, seconds=round(monotonic() - started, 3))


def _caught_up(store: Store, flt: MemoryFilter, kept: _Kept, checkpoint: dict[str, Any], count: int) -> _Kept | None:
    """What was kept, with what syncs since wrote: the points a sync stamped at or after
    the last one kept opened or closed (each sync stamps every interval it moves), and the
    task memories (a history backfill writes them unstamped). None, to read every point
    again, where that cannot be the whole of it: a sync was under way at either end (an
    interrupted one is undone in place by the next: ``ingest/recovery.py``), or points went
    (a prune) or came unseen, as the count says."""
    if kept.checkpoint.get("pending") or checkpoint.get("pending") or not kept.checkpoint.get("sync_stamp"):
        return None
    old = kept.known
    known = old.copy()
    ids = set(kept.ids)
    stamped = replace(flt, stamped_since=int(kept.checkpoint["sync_stamp"]))
    for point in chain(store.scroll(stamped, fields=(*STATE_FIELDS, "type")),
                       store.scroll(replace(flt, types=(TASK,)), fields=(*STATE_FIELDS, "type"))):  # fmt: skip
        ids.add(point.id)
        _add(known, point)
    if len(ids) != count:
        return None
    return _Kept(checkpoint, count, frozenset(ids), known)


def _with_checkpoint(known: Known, checkpoint: dict[str, Any]) -> Known:
    """``known``, and the commit the last sync took the branch to as a synced state, whether
    or not the sync moved an interval (a commit of files recalld does not read: nothing
    else says so). Not kept with ``known``: what a later sync leaves of it is what the
    intervals tell, read on or afresh alike."""
    commit, stamp = checkpoint.get("commit"), checkpoint.get("sync_stamp")
    if not isinstance(commit, str) or not commit or checkpoint.get("pending") or not isinstance(stamp, int):
        return known
    if commit in known.targets and commit in known.visits:
        return known
    found = known.copy()
    found.add({"valid_from_commit": commit, "valid_from_sync": stamp}, task=False)
    return found


def _add(known: Known, point: StoredPoint) -> None:
    task = point.payload.get("type") == TASK
    for interval in [point.payload, *(point.payload.get("history") or [])]:
        known.add(interval, task=task)


def last_commit_at(git: GitRepository, tip: str, moment: int) -> str | None:
    """The first-parent commit of ``tip`` that was the branch's at ``moment`` (committed
    at or before it), by committer time; None when all are later."""
    limit, seen = 256, 0
    while True:
        commits = git.walk_commits(tip, hide=None, limit=limit, first_parent=True)
        for commit in commits[seen:]:
            if git.commit_info(commit).time <= moment:
                return commit
        if len(commits) < limit:
            return None
        seen, limit = len(commits), limit * 16


def states_at_date(store: Store, git: GitRepository, *, repo: str, branch: str, moment: int) -> ValidAt:
    """The condition "valid at ``moment``" for a repository's memories: those of the
    branch's commit at that time (as ``states_at_commit``), manual ones by time. The
    intervals' times alone say less once the branch moved back and forth: a reset closes
    at an older commit's time what later commits made."""
    tip = git.branch_tip(branch)
    commit = last_commit_at(git, tip, moment) if tip else None
    found = _states(store, git, repo=repo, branch=branch, commit=commit) if commit else None
    return ValidAt(time=moment, commits=()) if found is None else replace(found, time=moment, commit=commit)


def states_at_commit(
    store: Store, git: GitRepository, *, repo: str, branch: str, rev: str, flag: str = "as of"
) -> ValidAt:  # fmt: skip
    """The condition "valid at ``rev``" for a commit of the tracked branch, or one the index
    synced it to that it has since left (manual memories by the commit's time); ``flag``
    as in ``parse_date``."""
    try:
        commit = git.resolve_commit(rev)
    except AmbiguousRevisionError as exc:
        raise RecalldError(f"{flag} {rev!r}: {exc.message}") from None
    if commit is None:
        unshallow = " (a shallow clone: `git fetch --unshallow` brings its older commits)"
        shallow = unshallow if git.shallow_boundaries else ""
        synced = [c for c in indexed_states(store, repo, branch).targets if c.startswith(rev.lower())]
        if len(rev) >= 4 and len(synced) == 1:  # the index knows it, git no longer does
            shallow = (f" (the index synced commit {synced[0][:12]}, which git has since pruned, as `git gc` does"
                       " after a reset, an amend or a rebase: an answer as of it reads its history from git)")
        raise RecalldError(f"{flag} {rev!r}: no such commit in repo {repo!r} (nor an ISO date){shallow}")
    tip = git.branch_tip(branch)
    # one the branch left (an amend, a rebase, a force-push) answers where the index synced it
    if tip is None or not (git.is_ancestor(commit, tip) or commit in indexed_states(store, repo, branch).targets):
        raise RecalldError(f"{flag} {rev!r}: commit {commit[:12]} is not on branch {branch!r} of repo {repo!r}"
                           " (nor a commit the index synced it to)")
    found = _states(store, git, repo=repo, branch=branch, commit=commit)
    if found is None:
        raise RecalldError(
            f"{flag} {rev!r}: repo {repo!r} was never indexed at or before commit {commit[:12]}"
            " (the index starts later)"
        )
    return replace(found, time=git.commit_info(commit).time, commit=commit)


def _states(store: Store, git: GitRepository, *, repo: str, branch: str, commit: str) -> ValidAt | None:
    """The indexed states at or before ``commit``, those at or after the last of them and
    a sync's stamp there (``ValidAt``, its time left to the caller); None when there is
    none before it."""
    known = indexed_states(store, repo, branch)
    before = sorted(s for s in known.states if git.is_ancestor(s, commit))
    if not before:
        return None
    synced = [s for s in before if s in known.targets] or before
    last = synced[0]  # the last state the index held at or before the commit
    for state in synced[1:]:
        if git.is_ancestor(last, state):
            last = state
    later = tuple(sorted(s for s in known.states if git.is_ancestor(last, s)))
    return ValidAt(0, tuple(before), later, known.visit(last) if last in known.targets else None, state=last)


DEFAULT_MAX_CHARS = IndexOptions().max_embed_chars  # ``[embedding] max_chars``'s default


@dataclass(frozen=True, slots=True)
class Placed:
    """A file at a commit: its blob, and each memory id of its code with the symbol it was
    read as there (its lines, signature, docstring), and the file as read (its language)."""

    blob: str | None = None
    symbols: dict[str, Symbol] = field(default_factory=dict)
    file: FileSymbols | None = None


class LinesAt:
    """Points given the lines, file blob and content their code had at ``commit``, a state
    the branch was indexed at and they held at: a version's stored lines are its latest
    (code that moved down its file keeps its memory, its lines written in place), and so
    are its signature, docstring, language and text, which a sync writes again in place
    where what lies outside its code changed (``_READ_AGAIN``: a ``.gitattributes`` that
    names another language). A file is read from git and parsed as a sync reads it, in the
    language it had then (``ingest/collect.read_parsed``, whose memo a sync shares), once
    for all the points asked about, and what differs redacted as a sync writes it
    (``max_chars``: the embedded text's, which vouches for what it holds);
    a point of another repository or branch, one without a file (manual, task), or whose
    code is not found there keeps what it has."""

    def __init__(
        self, git: GitRepository, commit: str, *, repo: str, branch: str, asked: str | None = None,
        globs: dict[str, tuple[str, ...]] | None = None, max_chars: int = DEFAULT_MAX_CHARS, attributes: bool = True,
    ) -> None:  # fmt: skip
        self._git, self._scope, self._globs, self._attributes = git, (repo, branch), globs, attributes
        self._at = tuple(dict.fromkeys(c for c in (asked, commit) if c))  # where a point's code is looked for, in order
        self._max_chars = max_chars
        self._files: dict[tuple[str, str, str], Placed] = {}
        self._languages: dict[tuple[str, str], str | None] = {}

    def __call__(self, points: list[StoredPoint]) -> list[StoredPoint]:
        return [self._placed(point) for point in points]

    def _placed(self, point: StoredPoint) -> StoredPoint:
        payload = point.payload
        path, language = payload.get("path"), payload.get("language")
        if (payload.get("repo"), payload.get("branch")) != self._scope or not isinstance(path, str) or not language:
            return point
        for at, reading in self._readings(path, str(language)):
            if (at, path, reading) not in self._files:
                self._files[(at, path, reading)] = self._read(at, path, reading)
            found = self._files[(at, path, reading)]
            sym = found.symbols.get(point.id)
            if sym is not None and found.file is not None:
                then = {"start_line": sym.start_line, "end_line": sym.end_line, "blob": found.blob}
                read_then = (sym.signature, sym.docstring, found.file.language)
                if read_then != tuple(payload.get(key) for key in _READ_AGAIN):
                    then.update(self._content(point.id, found.file, sym))
                return replace(point, payload={**payload, **then})
        return point

    def _readings(self, path: str, stored: str) -> Iterator[tuple[str, str]]:
        """Each commit to look for a point's code at (the one asked, then the state the
        branch was indexed at: a sync that only wrote memories again in place, as for a
        ``.gitattributes`` that names another language, is no state of its own), and each
        language to read ``path`` in there: the one a sync read it in, else the stored one."""
        for at in self._at:
            for reading in dict.fromkeys((self._language_then(at, path), stored)):
                if reading is not None:
                    yield at, reading

    def _language_then(self, at: str, path: str) -> str | None:
        """The language a sync read ``path`` in at commit ``at``: its name's, its opening
        lines', or the one its ``linguist-language`` attribute named there (which a later
        ``.gitattributes`` may have changed; ``attributes``: ``[index] honour_gitattributes``);
        None where it was no file."""
        if (at, path) not in self._languages:
            from recalld.ingest.collect import linguist_says
            from recalld.ingest.languages import file_language

            language = None
            try:
                entry = self._git.lookup(at, path)
                if isinstance(entry, TreeFile):
                    named = linguist_says(self._git, at, path).language if self._attributes else None
                    language = file_language(self._git, path, entry.blob, self._globs, named=named)
            except RecalldError:  # a script's blob a partial clone cannot fetch now: read as stored
                pass
            self._languages[(at, path)] = language
        return self._languages[(at, path)]

    def _content(self, memory: str, file: FileSymbols, sym: Symbol) -> dict[str, Any]:
        """The fields of ``_READ_AGAIN`` and the text a sync writes for ``sym`` of ``file``,
        redacted as it would redact them (nothing logged)."""
        from recalld.ingest.plan import MODIFIED, NewVersion
        from recalld.ingest.redaction import redacted_fields
        from recalld.ingest.writer import draft_text

        whole = draft_text(NewVersion(memory, file, sym, "", MODIFIED), max_chars=self._max_chars)
        fields = {"signature": sym.signature, "docstring": sym.docstring, "language": file.language, "text": whole}
        return redacted_fields(fields, text=lambda: whole)

    def _read(self, at: str, path: str, language: str) -> Placed:
        from recalld.ingest.collect import read_parsed

        try:
            entry = self._git.lookup(at, path)
            if not isinstance(entry, TreeFile):
                return Placed()
            parsed = read_parsed(self._git, entry.blob, language, path).parsed
        except RecalldError as exc:  # a blob a partial clone cannot fetch now: the stored lines stand
            log.warning("could not read a file as of a commit: its memories keep their latest lines",
                        path=path, commit=at, error=exc.message)  # fmt: skip
            return Placed()
        if parsed is None:
            return Placed(entry.blob)
        scope = Scope(*self._scope)
        symbols = {memory_id(scope, path, s.kind, s.qualname, s.content_hash): s
                   for s in (*parsed.symbols, *parsed.derived)}  # fmt: skip
        return Placed(entry.blob, symbols, FileSymbols(path, entry.blob, parsed.language, parsed.symbols))
