"""A repository's commit history (``GitHistory``, a part of ``gitrepo.GitRepository``):
what a commit is and says, which commits a revision names, which are ancestors of which,
walks between two tips, and a shallow clone's boundary (the commits it holds without
their parents)."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path

import pygit2
from pygit2.enums import ObjectType, SortMode

from recalld.daemon.logs import get_logger
from recalld.ingest.errors import AmbiguousRevisionError
from recalld.ingest.gitblame import BlameUnanswered, Hunks, command_blame
from recalld.ingest.gitnames import message_text, person, subject_of
from recalld.ingest.gitrepo_objects import GitObjects
from recalld.ingest.gitrecords import CommitDetails, CommitInfo

log = get_logger("recalld.git")
# a revision that begins with a short commit id: ``a1b2c3d``, ``a1b2c3d~2``, ``a1b2c3d^{commit}``
_SHORT_ID = re.compile(r"([0-9a-fA-F]{4,63})((?:[~^].*)?)", re.DOTALL)


class GitHistory(GitObjects):
    _shallow: frozenset[str] | None  # shallow_boundaries, read once (None: not yet)

    def has_commit(self, commit_id: str | None) -> bool:
        if not commit_id:
            return False
        try:
            obj = self._repo.get(commit_id)
        except (ValueError, KeyError):
            return False
        return obj is not None and obj.type == ObjectType.COMMIT

    def commit_info(self, commit_id: str) -> CommitInfo:
        commit = self._repo[commit_id].peel(pygit2.Commit)
        return CommitInfo(
            id=str(commit.id),
            time=int(commit.commit_time),
            author=person(commit.author),
            summary=subject_of(message_text(commit)),
        )

    def last_change_in(self, hunks: Hunks, start_line: int, end_line: int | float) -> CommitInfo | None:
        """The latest commit (by commit time) of ``hunks`` (``blame_hunks``) that wrote one
        of lines ``start_line`` to ``end_line`` (a shallow clone's boundary commit for what
        came before it); None for none."""
        return self.latest_commit(c for first, last, c in hunks if first <= end_line and last >= start_line)

    def last_changes(
        self, commit: str, path: str, spans: Sequence[tuple[int, int]], seconds_left: Callable[[], float]
    ) -> list[CommitInfo | None]:
        """``last_change_in`` of each span (first and last line) of ``path`` at ``commit``:
        one blame from the first span's first line to the last one's (the file's history
        walked once), else, where those are no lines of the file, one blame each.
        ``seconds_left``: the time each blame may take (``BlameStopped`` after it)."""
        hunks = self.blame_hunks(commit, path, min(s for s, _ in spans), max(e for _, e in spans),
                                 timeout=seconds_left())  # fmt: skip
        found = []
        for start, end in spans:
            alone = self.blame_hunks(commit, path, start, end, timeout=seconds_left()) if (
                hunks is None and len(spans) > 1) else hunks  # fmt: skip
            found.append(self.last_change_in(alone or [], start, end))
        return found

    def blame_hunks(
        self, commit: str, path: str, start_line: int | None = None, end_line: int | None = None,
        *, timeout: float | None = None,
    ) -> Hunks | None:
        """Lines ``start_line`` to ``end_line`` (1-based; default: the whole file) of ``path``
        as it is at ``commit``, as git blame reads them: (first line, last line, the commit
        that wrote them) for each run of lines one commit wrote, in order. None where
        ``path`` is no file of ``commit`` or holds no such lines. git's command answers
        (``gitblame``; in a partial clone, fetching the old blobs it lacks), stopped after
        ``timeout`` seconds (``BlameStopped``); where it cannot, libgit2 does, to its end,
        but in a partial clone, where it would give the lines of a blob it lacks to a later
        commit: None there."""
        try:
            data = self._repo[commit].peel(pygit2.Commit).tree[path].data
        except (KeyError, ValueError, AttributeError, pygit2.GitError):  # no such file (a tree: no data)
            return None
        lines = data.count(b"\n") + (bool(data) and not data.endswith(b"\n"))
        start = 1 if start_line is None else start_line
        end = lines if end_line is None else end_line
        if not 1 <= start <= end <= lines:  # libgit2 makes up a hunk for lines past the end
            return None
        try:
            return command_blame(self.git_dir, commit, path, start, end, timeout=timeout)
        except BlameUnanswered as exc:
            if self.blobs.partial:  # libgit2 fetches nothing: an old blob it lacks, and it gives the lines to the tip
                log.info("git blame's command could not answer, and libgit2 cannot blame a partial clone", path=path,
                         reason=str(exc))  # fmt: skip
                return None
            log.info("git blame's command could not answer: libgit2 blames", path=path, reason=str(exc))
        try:
            blame = self._repo.blame(path, newest_commit=commit, min_line=start, max_line=end)
            return [(h.final_start_line_number, h.final_start_line_number + h.lines_in_hunk - 1,
                     str(h.final_commit_id)) for h in blame]  # fmt: skip
        except (KeyError, ValueError, pygit2.GitError):
            return None

    def latest_commit(self, commit_ids: Iterable[str]) -> CommitInfo | None:
        """The latest of ``commit_ids`` by commit time; of commits of one second (a rebase,
        a script), the one the others lead to. None for none."""
        infos = sorted((self.commit_info(c) for c in set(commit_ids)), key=lambda c: (-c.time, c.id))
        if not infos:
            return None
        latest = [c for c in infos if c.time == infos[0].time]
        return next((c for c in latest if all(self.is_ancestor(o.id, c.id) for o in latest)), latest[0])

    def resolve_commit(self, rev: str) -> str | None:
        """The commit a revision names (full or short id, branch, tag, ``main~2``), or None
        (also for one holding NUL, which libgit2 read up to it: ``HEAD\0x`` as ``HEAD``)."""
        if not rev or rev.startswith("-") or "\x00" in rev:
            return None
        try:
            commit = self._repo.revparse_single(rev).peel(pygit2.Commit)
        except pygit2.AmbiguousError:
            return self._commit_of_prefix(rev)
        except (KeyError, ValueError, pygit2.GitError, pygit2.InvalidSpecError):
            return None
        return str(commit.id)

    def _commit_of_prefix(self, rev: str) -> str | None:
        """The commit of ``rev`` whose short id begins the ids of other objects too, read as
        git reads a revision that names a commit: among the commits (and tags of one) the id
        begins. libgit2 refused it as ambiguous, and a commit id an agent or a log gave with
        seven characters was "no such commit" where a blob's id began alike. Several commits:
        an error that names them."""
        found = _SHORT_ID.fullmatch(rev)
        if found is None:
            return None
        prefix, rest = found.groups()
        commits = sorted({c for c in map(self._peeled_commit, self._objects_of_prefix(prefix.lower())) if c})
        if len(commits) > 1:
            shown = ", ".join(c[:12] for c in commits[:5]) + (", …" if len(commits) > 5 else "")
            raise AmbiguousRevisionError(f"{prefix!r} begins the ids of {len(commits)} commits ({shown}):"
                                         " give more of the id")  # fmt: skip
        if not commits:
            return None
        try:
            return str(self._repo.revparse_single(commits[0] + rest).peel(pygit2.Commit).id)
        except (KeyError, ValueError, pygit2.GitError, pygit2.InvalidSpecError):
            return None

    def _objects_of_prefix(self, prefix: str) -> Iterator[pygit2.Object]:
        """The objects whose ids begin with ``prefix``: libgit2 finds one id of a prefix
        alone, so an ambiguous one is read a hex digit longer, each way."""
        try:
            found = self._repo.get(prefix)
        except pygit2.AmbiguousError:
            if len(prefix) < 64:  # a whole id is never ambiguous (SHA-1's 40 digits, SHA-256's 64)
                for digit in "0123456789abcdef":
                    yield from self._objects_of_prefix(prefix + digit)
            return
        except (KeyError, ValueError, pygit2.GitError):
            return
        if found is not None:
            yield found

    @staticmethod
    def _peeled_commit(obj: pygit2.Object) -> str | None:
        try:
            return str(obj.peel(pygit2.Commit).id)
        except (KeyError, ValueError, pygit2.GitError, pygit2.InvalidSpecError):
            return None

    def is_ancestor(self, ancestor: str, commit: str) -> bool:
        """Whether ``ancestor`` is ``commit`` or reachable from it."""
        if ancestor == commit:
            return True
        try:
            return bool(self._repo.descendant_of(commit, ancestor))
        except (KeyError, ValueError, pygit2.GitError):
            return False

    def commits_between(self, old: str, new: str) -> tuple[int, int]:
        """(commits in new not in old, commits in old not in new)."""
        ahead, behind = self._repo.ahead_behind(new, old)
        return int(ahead), int(behind)

    def commit_details(self, commit_id: str) -> CommitDetails:
        commit = self._repo[commit_id].peel(pygit2.Commit)
        return CommitDetails(
            id=str(commit.id),
            message=message_text(commit),
            author=person(commit.author),
            author_time=int(commit.author.time),
            committer_time=int(commit.commit_time),
            parents=self._parents(commit),
        )

    def _parents(self, commit: pygit2.Commit) -> tuple[str, ...]:
        """The commit's parents as it names them: libgit2 reads a shallow clone's boundary
        commit as a root, though its object names the parents the clone does not hold."""
        if commit.parent_ids or str(commit.id) not in self.shallow_boundaries:
            return tuple(str(p) for p in commit.parent_ids)
        header = self._repo.odb.read(commit.id)[1].split(b"\n\n", 1)[0]
        return tuple(line[7:].decode() for line in header.split(b"\n") if line.startswith(b"parent "))

    @property
    def shallow_boundaries(self) -> frozenset[str]:
        """The commits a shallow clone holds without their parents (``.git/shallow``, which
        ``git clone --depth`` and ``git fetch --deepen`` write); read once an instance."""
        if self._shallow is None:
            shallow = Path(self.common_dir) / "shallow"
            listed = shallow.read_text(encoding="ascii", errors="replace") if shallow.is_file() else ""
            self._shallow = frozenset(line.strip() for line in listed.splitlines() if line.strip())
        return self._shallow

    @property
    def shallow_state(self) -> str:
        """What a checkpoint keeps of ``shallow_boundaries`` to see a fetch deepen the clone:
        "" for a complete clone."""
        if not self.shallow_boundaries:
            return ""
        return hashlib.sha1("\n".join(sorted(self.shallow_boundaries)).encode(), usedforsecurity=False).hexdigest()

    def reads_parents(self, commit_id: str) -> bool:
        """Whether the repository holds ``commit_id`` with a parent (not a root, nor a shallow boundary)."""
        return self.has_commit(commit_id) and bool(self._repo[commit_id].peel(pygit2.Commit).parent_ids)

    def walk_commits(self, tip: str, *, hide: str | None, limit: int, first_parent: bool) -> list[str]:
        """Up to ``limit`` commits reachable from ``tip`` and not from ``hide``, newest first."""
        if limit <= 0:
            return []
        sort = SortMode.TOPOLOGICAL | SortMode.TIME if hide else SortMode.NONE
        walker = self._repo.walk(pygit2.Oid(hex=tip), sort)
        if first_parent:
            walker.simplify_first_parent()
        if hide:
            walker.hide(pygit2.Oid(hex=hide))
        found: list[str] = []
        for commit in walker:
            found.append(str(commit.id))
            if len(found) >= limit:
                break
        return found

    def merged_by(self, parents: tuple[str, ...], *, limit: int) -> list[str]:
        """The commits a merge of ``parents`` brought in, newest first: those reachable
        from its other parents and not from its first (up to ``limit`` from each); none
        where the clone lacks one of them (a shallow clone's boundary)."""
        first, *others = parents
        if not others or not all(self.has_commit(p) for p in parents):
            return []
        walks = (self.walk_commits(o, hide=first, limit=limit, first_parent=False) for o in others)
        return list(dict.fromkeys(c for walk in walks for c in walk))

    def not_reachable(self, commits: list[str], tip: str) -> set[str]:
        """Those of ``commits`` that are not ``tip`` or one of its ancestors (gone ones included)."""
        present = [c for c in commits if self.has_commit(c)]
        gone = set(commits) - set(present)
        if not present:
            return gone
        walker = self._repo.walk(None)
        for commit in present:
            walker.push(pygit2.Oid(hex=commit))
        walker.hide(pygit2.Oid(hex=tip))
        wanted = set(present)
        return gone | {str(c.id) for c in walker if str(c.id) in wanted}
