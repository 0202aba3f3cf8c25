"""Who wrote the versions a sync could not tell the writer of.

A branch's first index (and a sync whose indexed commit has gone from git) finds code
without knowing which commit wrote it: such a structural version has no ``author`` and
no ``task_id``. The task step reads commits newest first (the window, then the history
in chunks) and hands each one's record to ``WriterSearch.claim``, which gives every such
version the newest commit that produced it.

**Moves.** A commit that moves a file (renamed without edits, or renamed with edits for
the versions it left the same) did not write what it moved. The search takes such
versions back to the path they had before the commit, and an older commit that produced
exactly that version there (kind, qualified name and content hash) is their writer: a
mass move to ``src/``, a package renamed. A commit that changed more files than its read
parses (``commits.MAX_PARSED_FILES``: a first commit importing a codebase, a rename
across the tree) is read in the files past that limit too where the store holds code
(``filling``) or the search followed code back to (``claim``); past the history a
commit is read in the files sought alone, all of them. Where a version was is tracked
for the versions still without a writer alone, and only while one search reads the
history newest first (``FOLLOW``): a history read that resumes in a later search
first claims again the commits it read before (what they claimed stays theirs;
their moves are found again).

**Past the task memories' history** (``seek_writers``, ``tasks.writer_commits``) the
search goes on down the first-parent history for the versions still without a writer
(40 % of this repository's after its last 500 commits), reading only the commits that
changed a file at a path where such a version is, or was before a move the search
followed: a tree diff a commit (~2 ms), and only those files parsed. A claim there names
the author and the commit alone (no task memory names the commit). It ends at the root
commit, which wrote what is left.

**Merges.** Who merged need not have written what a merge brought in: a merge gives it
its task alone in the history read, nothing past it. Then the branches it merged are
read (``WriterSearch._sides``: the commits reachable from its other parents and not from
its first, newest first, up to ``merged_commits`` each, the same way: only commits that
changed a path sought, those files alone, moves followed) and what one of their commits
produced gets that commit's author: a pull request's code its writer's name, where the
merge commit is all the first-parent history has. What one of them moved there and none
produced goes back to where it was before, for older commits; what none produced nor
moved (a conflict's resolution, an evil merge's own code) is the merge's own, by the
merger, as git blame has it, where the branches were read whole (not in a partial clone,
nor past ``merged_commits``): else it keeps the merge's claim. A later history read
seeks again every version without an author (``unknown_writer``), a merge's task alone
included: whatever the read that left it so (one stopped, an earlier release's).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator, Sequence
from collections.abc import Set as AbstractSet
from typing import Any

from recalld.daemon.logs import get_logger
from recalld.ingest.commits import CommitReader, CommitRecord
from recalld.ingest.gitrecords import CommitDetails
from recalld.ingest.keyed import batches
from recalld.ingest.gitrepo import GitRepository
from recalld.ingest.plan import RENAMED, Scope, memory_id
from recalld.ingest.records import task_memory_id
from recalld.ingest.result import ProgressSink
from recalld.ingest.store import MemoryFilter, Store, StoredPoint
from recalld.parsers.base import STRUCTURAL

log = get_logger("recalld.sync")

UNKNOWN_WRITER = ("author", "task_id", "written_in")  # what says who wrote a version (``unknown_writer``)
VERSION_FIELDS = ("kind", "qualname", "content_hash", *UNKNOWN_WRITER)
WROTE = ("author", "written_in")  # who wrote a version, and in which commit: set and cleared together
NO_WRITER = dict.fromkeys(WROTE)
PATHS_A_SCROLL = 256
# past the task memories' history, ``stop`` is asked every so many commits walked, or read (~12 ms each)
WRITERS_CHUNK, READS_A_CHUNK = 500, 50
WRITERS_LABEL = "writers of older code"  # its progress bar

VersionKey = tuple[str, str, str]  # kind, qualname, content hash: a version at whatever path


FOLLOW, WINDOW, SKIP = "follow", "window", "skip"  # what a search does with the versions a commit moved
Moves = str  # one of FOLLOW, WINDOW, SKIP


class WriterSearch:
    """Claims, for each commit read (newest first), the versions still to claim that it
    produced. ``moves``: what a commit moved goes back to where it was before the commit,
    for an older commit to claim (FOLLOW: the versions without a writer; WINDOW: those
    ``claim`` is given, a sync's crediting), or is left (SKIP)."""

    def __init__(
        self, store: Store, scope: Scope, *, moves: Moves, reads: tuple[GitRepository, CommitReader] | None = None,
        within: AbstractSet[str] | None = None, stop: Callable[[], bool] = lambda: False,
    ) -> None:
        self.store = store
        self.scope = scope
        self.moves = moves
        self.reads = reads  # where a merge's side branches are read for who wrote what it brought in (FOLLOW)
        self.within = within  # a side branch's search: the ids it seeks (else those without a writer)
        self.stop = stop  # asked between a side branch's chunks of commits, as ``read_down`` asks
        self.stopped = False  # a side branch's search was left: what its merge brought in is read again later
        # path before the commits read so far → version there → stored ids (all still to
        # claim) that were that version at that path, where a commit read moved them since
        self._away: defaultdict[str, dict[VersionKey, set[str]]] = defaultdict(dict)
        self._settled: set[str] = set()  # claimed, or away from their stored path
        self.claimed = 0  # versions given a writer
        self.given: set[str] = set()  # their ids
        self.read = 0  # commits read by ``read_down`` (side branches' included)
        self.walked = 0  # of the commits the last ``read_down`` walked

    def claim(self, records: Sequence[CommitRecord], unknown: set[str], *, tasks: bool = True) -> None:
        """``unknown``: the stored ids to claim (by the path they are stored at); those
        claimed here leave it. A merge claims what it brought in with its task alone: its
        author need not have written it, and an older commit that produced the same code
        (before a revert) did not write this interval of it. Not ``tasks`` (commits without
        a task memory): the author and the commit alone, and a merge nothing. With
        ``reads``, what a merge claimed gets the author (and commit) of the newest commit of
        the branches it merged that produced it (``_sides``); in a side branch's search a
        merge claims nothing (the commits it merged are read too)."""
        for record in records:
            details = record.details
            merge = len(details.parents) > 1
            if merge and self.within is not None:
                continue
            if record.unparsed and self.reads is not None and self.moves == FOLLOW:  # where it moved from, read too
                moved_from = set(filter(self.moved_to, record.unparsed))
                record, whole = self.reads[1].filled(record, moved_from, stop=self.stop)
                self.stopped |= not whole  # what it left is sought again by a later read
            at = self._claims(record, unknown)
            claimed = {i for versions in at.values() for ids in versions.values() for i in ids}
            unknown.difference_update(claimed)
            fields = writer(self.scope, details.id, details.author, details.parents)
            if not tasks:
                fields = {k: fields[k] for k in WROTE} if fields["author"] else {}
            if claimed and fields:
                self.store.set_payload(sorted(claimed), fields)
                self.claimed += len(claimed)
                self.given |= claimed
            if merge and claimed and self.reads is not None and self.moves == FOLLOW:
                found, own = self._sides(details, at)
                if own and details.author:  # what none of the merged commits produced: the merge's own
                    self.store.set_payload(sorted(own), {"author": details.author, "written_in": details.id})
                self.claimed += 0 if fields else found + len(own)  # a version the merge's task claimed counts once

    def moved_back(self) -> dict[str, set[str]]:
        """The stored id each version still to claim that the commits read moved would have
        before them (the same code at the path it was moved from) → those versions."""
        return {memory_id(self.scope, path, *key): ids for path, versions in self._away.items()
                for key, ids in versions.items() if ids}  # fmt: skip

    def sought(self) -> dict[str, set[str]]:
        """path → the ids of the versions stored there (live or closed) without a writer."""
        flt = MemoryFilter(repo=self.scope.repo, branch=self.scope.branch, types=(STRUCTURAL,), deprecated=None)
        found: defaultdict[str, set[str]] = defaultdict(set)
        for point in self.store.scroll(flt, fields=("path", *UNKNOWN_WRITER)):
            if unknown_writer(point.payload):
                found[point.payload["path"]].add(point.id)
        return dict(found)

    def seeking(self, sought: dict[str, set[str]]) -> set[str]:
        """The paths of ``sought`` with a version not claimed, nor moved away, yet, and
        those where versions still to claim were before a commit read moved them."""
        away = {path for path, versions in self._away.items() if versions}
        return away | {path for path, ids in sought.items() if not ids <= self._settled}

    def moved_to(self, path: str | None) -> bool:
        """Whether versions still to claim were at ``path`` before a commit read moved them."""
        return bool(path is not None and self._away.get(path))

    def _claims(self, record: CommitRecord, unknown: AbstractSet[str]) -> dict[str, dict[VersionKey, set[str]]]:
        """path at ``record``'s commit → version there → the stored ids it claimed as that."""
        claimed: defaultdict[str, dict[VersionKey, set[str]]] = defaultdict(dict)
        moving: list[tuple[str, VersionKey, set[str]]] = []  # to the path before the commit, once all is taken
        for version in record.produced:
            key = (version.kind, version.qualname, version.content_hash)
            ids = self._away[version.path].pop(key, set()) if version.path in self._away else set()
            stored = memory_id(self.scope, version.path, *key)
            if stored in unknown and stored not in self._settled:
                ids.add(stored)
            if ids and version.moved_from is None:
                claimed[version.path].setdefault(key, set()).update(ids)
                self._settled |= ids
            elif ids:
                moving.append((version.moved_from, key, ids))
        if self.moves == SKIP:
            return claimed
        # what the commit did not produce at a path it renamed was there before the same (a
        # file renamed without edits is not parsed, nor one past the parse limit)
        renames = [(c.old_path, c.new_path) for c in record.changes
                   if c.status == "renamed" and c.old_path and c.new_path]  # fmt: skip
        stored_there = self._stored_at([new for _, new in renames], unknown)
        for path, versions in stored_there.items():
            for key, ids in versions.items():
                self._away[path].setdefault(key, set()).update(ids)
        for old, new in renames:
            moving.extend((old, key, ids) for key, ids in self._away.pop(new, {}).items())
        for path, key, ids in moving:
            self._away[path].setdefault(key, set()).update(ids)
            self._settled |= ids
        return claimed

    def _sides(self, details: CommitDetails, at: dict[str, dict[VersionKey, set[str]]]) -> tuple[int, set[str]]:
        """Gives what the merge ``details`` claimed (``at``: path there → version → stored
        ids, wherever a later commit moved them) the author of the newest commit of the
        branches it merged (up to ``merged_commits`` of each) that produced it. What one of
        them moved there and none produced goes back to where it was, for older commits
        to claim. Returns how many it gave one, and those none produced nor moved, where
        it read them all: the merge's own (a conflict's resolution), as git blame has it."""
        assert self.reads is not None
        if self.stopped:
            return 0, set()
        git, reader = self.reads
        seeded = {i: path for path, versions in at.items() for ids in versions.values() for i in ids}
        side = WriterSearch(self.store, self.scope, moves=FOLLOW, within=set(seeded))
        for path, versions in at.items():  # sought where the merge had them
            side._away[path] = {key: set(ids) for key, ids in versions.items()}
        commits = git.merged_by(details.parents, limit=reader.merged_commits)
        read = side.read_down(git, reader, commits, {}, ask=lambda _walked: self.stop())
        self.stopped |= not read  # its versions keep the merge's task alone: ``to_claim`` has them read again
        self.read += side.read
        own: set[str] = set()
        for path, versions in side._away.items():
            for key, ids in versions.items():
                own |= {i for i in ids if seeded[i] == path}
                if moved := {i for i in ids if seeded[i] != path}:  # a branch moved it: older code, for older commits
                    self._away[path].setdefault(key, set()).update(moved)
        whole = read and len(commits) < reader.merged_commits and all(git.has_commit(p) for p in details.parents)
        return side.claimed, own if whole else set()

    def read_down(
        self, git: GitRepository, reader: CommitReader, commits: Sequence[str], sought: dict[str, set[str]], *,
        ask: Callable[[int], bool] = lambda walked: False,
    ) -> bool:
        """Claims down ``commits`` (newest first) for the versions ``sought`` (path → ids),
        the author and the commit alone: a commit is read only where it changed a file at a
        path this search seeks, and only those files are parsed. Every ``WRITERS_CHUNK`` commits
        walked or ``READS_A_CHUNK`` read, ``ask`` (given how many were walked) may stop
        it: False if it did."""
        every = set().union(*sought.values())
        since, paths = 0, set()  # since: commits read since the paths sought were taken
        for n, commit in enumerate(commits):
            if n % WRITERS_CHUNK == 0 or since >= READS_A_CHUNK:
                self.walked, since, paths = n, 0, self.seeking(sought)
                if not paths:
                    return True  # every one claimed
                if n and ask(n):
                    return False
            wanted = {c.new_path for c in git.commit_changes(commit)
                      if c.new_path and (c.new_path in paths or self.moved_to(c.new_path))}  # fmt: skip
            if wanted:
                record = reader.read(commit, only=wanted)
                self.claim([record], {i for i in version_ids(self.scope, record) if i in every}, tasks=False)
                self.read, since = self.read + 1, since + 1
        self.walked = len(commits)
        return True

    def _stored_at(self, paths: list[str], unknown: AbstractSet[str]) -> dict[str, dict[VersionKey, set[str]]]:
        """The stored versions at ``paths`` still to claim (those a side branch's search
        seeks; without a writer, when following moves; else among ``unknown``) and not
        claimed or moved yet."""
        found: defaultdict[str, dict[VersionKey, set[str]]] = defaultdict(dict)
        batches = scrolls_at(self.store, self.scope, paths, fields=("path", *VERSION_FIELDS), deprecated=None)
        for point in (p for batch in batches for p in batch):
            payload = point.payload
            if point.id in self._settled:
                continue
            if self.within is not None:
                wanted = point.id in self.within
            else:
                wanted = point.id in unknown if self.moves == WINDOW else unknown_writer(payload)
            if wanted:
                key = (payload["kind"], payload["qualname"], payload["content_hash"])
                found[payload["path"]].setdefault(key, set()).add(point.id)
        return found


def seek_writers(
    git: GitRepository, reader: CommitReader, writers: WriterSearch, commits: Sequence[str], *,
    stop: Callable[[], bool], progress: ProgressSink,
) -> bool:
    """Claims on, down ``commits`` (the first-parent commits past the task memories'
    history, newest first), for the versions still without a writer
    (``WriterSearch.read_down``). Between chunks ``stop`` is asked whether to leave the
    rest; False if it did."""
    sought = writers.sought()
    claimed, read, shown = writers.claimed, writers.read, [0]

    def ask(walked: int) -> bool:
        progress.advance(walked - shown[0])
        shown[0] = walked
        return stop()

    progress.begin(WRITERS_LABEL, len(commits))
    try:
        complete = writers.read_down(git, reader, commits, sought, ask=ask)
        progress.advance(writers.walked - shown[0])
    finally:
        progress.end()
    log.info("writers sought past the commit history", repo=writers.scope.repo, branch=writers.scope.branch,
             versions=sum(map(len, sought.values())), claimed=writers.claimed - claimed, walked=writers.walked,
             read=writers.read - read, complete=complete)  # fmt: skip
    return complete


def writer(scope: Scope, commit: str, author: str | None, parents: Sequence[str] | None) -> dict[str, Any]:
    """The fields that name ``commit`` a version's writer: its task, and its author and
    itself (``WROTE``) unless it is a merge (who merged need not have written what the
    merge brought in: the commit of its branches that did is sought, ``_sides``)."""
    merge = len(parents or ()) > 1
    return {"task_id": task_memory_id(scope, commit), "author": None if merge else author,
            "written_in": None if merge or not author else commit}  # fmt: skip


def to_claim(stored: Iterable[StoredPoint]) -> set[str]:
    """Of ``stored`` (read with ``UNKNOWN_WRITER``), the versions whose writer is still to
    find (``unknown_writer``)."""
    return {p.id for p in stored if unknown_writer(p.payload)}


def unknown_writer(payload: dict[str, Any]) -> bool:
    """Whether a version's writer is for a history read to find: it has no author, or not
    the commit the author wrote it in (an earlier release's claim). A merge's task alone
    counts: the branches it merged are read again (what one of them moved is older code,
    for older commits), also where an earlier read, or an earlier release's, left it with
    a merge whose branches had moved it there."""
    return not payload.get("author") or not payload.get("written_in")


def given_by_task(store: Store, scope: Scope) -> dict[str, list[str]]:
    """task id → the structural versions (live and closed) its commit's sync opened that
    name it their writer's (what a history read or a crediting gave it was given by what
    that commit did), or that it opened as moved with another's (a sync past its
    window's limit paired files its commits did not move: ``credit.credit_window``)."""
    flt = MemoryFilter(repo=scope.repo, branch=scope.branch, types=(STRUCTURAL,), deprecated=None)
    found: defaultdict[str, list[str]] = defaultdict(list)
    for point in store.scroll(flt, fields=("task_id", "valid_from_commit", "change", "written_in")):
        p = point.payload
        opened = p.get("valid_from_commit")
        if not opened:
            continue
        task = task_memory_id(scope, opened)
        if p.get("task_id") == task or (p.get("change") == RENAMED and p.get("written_in") != opened):
            found[task].append(point.id)
    return dict(found)


def unclaim_misgiven(store: Store, scope: Scope, record: CommitRecord, given: dict[str, list[str]]) -> int:
    """Clears the writer of the versions ``given`` names ``record``'s commit's that it did
    not write: what it did not produce, or moved there unchanged (the moves are followed),
    is left for the history read to find, and a merge's author is left to the branches it
    merged. Earlier releases gave a first index's every version the tip, a sync over
    several commits its target, and (before stop 114) a sync what its commit moved. How
    many it cleared."""
    written = written_ids(scope, [record])
    mine = given.get(task_memory_id(scope, record.details.id), [])
    wrong = sorted(i for i in mine if i not in written)
    # a merge's: its task alone, the author its branches' (``_sides``)
    kept = sorted(set(mine) - set(wrong)) if len(record.details.parents) > 1 else []
    for ids, cleared in ((wrong, {**NO_WRITER, "task_id": None}), (kept, NO_WRITER)):
        for batch in batches(ids, 1000):
            store.set_payload(batch, cleared)
    return len(wrong)


def produced_ids(scope: Scope, records: Sequence[CommitRecord]) -> set[str]:
    return {i for r in records for i in version_ids(scope, r)}


def written_ids(scope: Scope, records: Sequence[CommitRecord]) -> set[str]:
    """The versions ``records``' commits produced and did not move there unchanged: what they wrote."""
    return {memory_id(scope, v.path, v.kind, v.qualname, v.content_hash) for r in records for v in r.produced
            if not v.moved_from}  # fmt: skip


def renamed_to(records: Sequence[CommitRecord]) -> list[str]:
    return sorted({c.new_path for r in records for c in r.changes if c.status == "renamed" and c.new_path})


def version_ids(scope: Scope, record: CommitRecord) -> list[str]:
    """The memory ids of the versions ``record``'s commit produced, in its order, once each."""
    return list(dict.fromkeys(memory_id(scope, v.path, v.kind, v.qualname, v.content_hash) for v in record.produced))


def live_at(store: Store, scope: Scope, paths: Sequence[str]) -> list[str]:
    """The ids of the live structural versions at ``paths`` (sorted within each batch)."""
    return [i for batch in scrolls_at(store, scope, paths, fields=()) for i in sorted(p.id for p in batch)]


def scrolls_at(
    store: Store, scope: Scope, paths: Sequence[str], *, fields: Sequence[str], deprecated: int | None = 0
) -> Iterator[list[StoredPoint]]:
    """The structural versions of ``scope`` at ``paths``, one list a batch of
    ``PATHS_A_SCROLL`` paths (``deprecated``: as ``MemoryFilter``'s; None: live and closed)."""
    for start in range(0, len(paths), PATHS_A_SCROLL):
        flt = MemoryFilter(repo=scope.repo, branch=scope.branch, types=(STRUCTURAL,),
                           paths=tuple(paths[start : start + PATHS_A_SCROLL]), deprecated=deprecated)  # fmt: skip
        yield list(store.scroll(flt, fields=fields))
