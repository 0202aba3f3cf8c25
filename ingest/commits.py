"""What one commit did: its message, the files it touched, the renames it made, and
the symbols it added, modified or removed.

Symbols come from parsing the old and new blob of each changed file with recalld's
parsers and comparing symbol content hashes. Parses are cached by blob id, so a
backfill (where a commit's old blob is the next older commit's new blob) parses each
blob once; a blob a sync parsed is not parsed again (its files, ``know``; the parse memo
of recent syncs, which a commit's read takes from and adds nothing to). The work per
commit is bounded: files renamed without a content change are never parsed, and only
the first ``MAX_PARSED_FILES`` changed files (by path) are; the rest are listed as files
and the symbol list is marked truncated. The result is a pure function of the commit
(never of the cache), so re-runs agree — but in a partial clone, whose history is read
with only the blobs it holds (``CommitReader._lacking``).
The search for writers reads the files past the limit that hold code it seeks
(``CommitReader.filled``): a read of chosen files (``only``) parses them all.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Iterable
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, replace

from recalld.daemon.logs import get_logger
from recalld.ingest.collect import NO_SAY, LinguistSays, read_parsed, skip_reason, tree_has_linguist_attributes
from recalld.ingest.errors import MissingBlobError
from recalld.ingest.files import IndexOptions
from recalld.ingest.gitnames import subject_of
from recalld.ingest.gitrecords import CommitDetails
from recalld.ingest.gitrepo import FileChange, GitRepository
from recalld.ingest.languages import file_language, may_have_language
from recalld.ingest.plan import FileSymbols
from recalld.parsers import Symbol
from recalld.parsers.base import STRUCTURAL, memory_type

log = get_logger("recalld.sync")

MAX_PARSED_FILES = 200
# a merge's commits: those whose subject its task lists (those walked of each branch it
# merged, counted for the task and read for who wrote what it brought in: authorship, are
# ``IndexOptions.merged_commits``)
MERGED_SUBJECTS = 20
PARSE_CACHE_SIZE = 4096

# (kind, qualname) -> content hash, for one parsed blob
SymbolHashes = dict[tuple[str, str], str]


@dataclass(frozen=True, slots=True)
class FileSymbolChanges:
    """Symbols of one file the commit touched (qualnames; the module symbol left out)."""

    path: str
    added: tuple[str, ...] = ()
    modified: tuple[str, ...] = ()
    removed: tuple[str, ...] = ()

    @property
    def touched(self) -> tuple[str, ...]:
        return self.added + self.modified + self.removed


@dataclass(frozen=True, slots=True)
class ProducedVersion:
    """A symbol version as the commit left it: what a structural memory id is made of;
    ``moved_from``: the file's old path, where the commit renamed it and this version was
    there the same (moved, not written: ``ingest/authorship.py``)."""

    path: str
    kind: str
    qualname: str
    content_hash: str
    moved_from: str | None = None


@dataclass(frozen=True, slots=True)
class CommitRecord:
    details: CommitDetails
    changes: tuple[FileChange, ...]
    symbols: tuple[FileSymbolChanges, ...]
    produced: tuple[ProducedVersion, ...]
    symbols_truncated: bool
    # a shallow clone's boundary: the clone holds the commit but not its parents, so what it
    # changed is unknown (no files, no symbols); written again whole once a fetch deepens it
    shallow: bool = False
    # a merge: the subjects of the first ``MERGED_SUBJECTS`` commits it brought in (newest
    # first, merges among them left out), and how many more it brought in
    merged: tuple[str, ...] = ()
    merged_more: int = 0
    # the paths of the files it changed past the parse limit: neither their symbols nor
    # the versions it produced there are read (but where ``filled``)
    unparsed: tuple[str, ...] = ()

    @property
    def subject(self) -> str:
        return subject_of(self.details.message)

    @property
    def pure_renames(self) -> tuple[FileChange, ...]:
        return tuple(c for c in self.changes if c.status == "renamed" and c.old_blob == c.new_blob)


class CommitReader:
    """Reads commits of one repository, sharing a bounded parse cache between them. A
    file is read as the sync reads it: its ``linguist-`` attributes at the commit read
    (``check_attributes``: whether any applies to the repository; None: find out, once,
    from the first commit read) say what the excludes and its opening comments do not."""

    def __init__(self, git: GitRepository, options: IndexOptions, *, check_attributes: bool | None = None) -> None:
        self._git = git
        self._options = options
        self._check_attributes = check_attributes if options.honour_gitattributes else False
        self._parsed: OrderedDict[tuple[str, str, bool], SymbolHashes] = OrderedDict()
        self._known: dict[tuple[str, str], tuple[Symbol, ...]] = {}
        self._said: dict[tuple[str | None, str | None], LinguistSays | None] = {}  # of the commit read
        self.lacked = 0  # files of the commits read whose blobs the repository lacks

    @property
    def merged_commits(self) -> int:
        """Commits read of each branch a merge brought in, at most (``IndexOptions``)."""
        return self._options.merged_commits

    def know(self, files: Iterable[FileSymbols]) -> None:
        """Files the sync has parsed already (by blob and language), so that the commits
        that produced them are compared without parsing them again. Only the structural
        symbols count: exactly what ``parse(language, data).symbols`` holds."""
        for file in files:
            self._known[(file.blob, file.language)] = file.symbols

    def read(self, commit_id: str, *, only: AbstractSet[str] | None = None) -> CommitRecord:
        """``only``: parse the files the commit left at these paths alone (the others are
        listed, their symbols not read: a record for ``authorship.seek_writers``)."""
        if self._check_attributes is None:
            entries = list(self._git.walk_tree(commit_id))
            try:
                self._check_attributes = tree_has_linguist_attributes(self._git, entries)
            except MissingBlobError:
                self._check_attributes = True  # ask git: an attribute file it lacks says nothing
        self._said.clear()
        if commit_id in self._git.shallow_boundaries:  # libgit2 reads it as a root: every file added
            return CommitRecord(self._git.commit_details(commit_id), (), (), (), False, shallow=True)
        changes = tuple(self._git.commit_changes(commit_id))
        content_changes = sorted(
            (c for c in changes if c.old_blob != c.new_blob and (only is None or c.new_path in only)
             and self._parseable(c, commit_id)),  # fmt: skip
            key=lambda c: c.new_path or c.old_path or "",
        )
        symbols: list[FileSymbolChanges] = []
        produced: list[ProducedVersion] = []
        limit = MAX_PARSED_FILES if only is None else len(content_changes)  # the files chosen are all read
        for change in content_changes[:limit]:
            file_symbols, file_produced = self._compare(change, commit_id)
            if file_symbols.touched:
                symbols.append(file_symbols)
            produced.extend(file_produced)
        details = self._git.commit_details(commit_id)
        merge = len(details.parents) > 1 and only is None  # a record for a task memory: its merge's commits
        brought = self._git.merged_by(details.parents, limit=self.merged_commits) if merge else []
        firsts = (self._git.commit_details(c) for c in brought[:MERGED_SUBJECTS])
        return CommitRecord(
            details=details,
            changes=changes,
            symbols=tuple(symbols),
            produced=tuple(produced),
            symbols_truncated=len(content_changes) > limit,
            merged=tuple(subject_of(d.message) for d in firsts if len(d.parents) < 2),
            merged_more=max(0, len(brought) - MERGED_SUBJECTS),
            unparsed=tuple(c.new_path for c in content_changes[limit:] if c.new_path),
        )

    def filled(
        self, record: CommitRecord, paths: AbstractSet[str], *, stop: Callable[[], bool] | None = None
    ) -> tuple[CommitRecord, bool]:
        """``record`` with the versions its commit produced in the files past the parse
        limit at ``paths`` read too (what the search for writers seeks there: its task
        memory's text still lists the symbols of the files within the limit alone), and
        whether all were read. They are read ``MAX_PARSED_FILES`` at a time, as a commit's
        read, ``stop`` asked between (False: it stopped the fill)."""
        wanted = sorted(path for path in record.unparsed if path in paths)
        produced, read = list(record.produced), set()
        for start in range(0, len(wanted), MAX_PARSED_FILES):
            if start and stop is not None and stop():
                break
            chunk = set(wanted[start : start + MAX_PARSED_FILES])
            produced.extend(self.read(record.details.id, only=chunk).produced)
            read |= chunk
        if not read:
            return record, True
        left = tuple(p for p in record.unparsed if p not in read)
        return replace(record, produced=tuple(produced), unparsed=left), len(read) == len(wanted)

    def _parseable(self, change: FileChange, commit: str) -> bool:
        if not all(self._git.blobs.holds(blob) for blob in (change.old_blob, change.new_blob) if blob):
            if any(path and may_have_language(path) for path in (change.old_path, change.new_path)):
                self._lacking(commit)
            return False  # one side alone would list every symbol of the other as added or removed
        return any(
            self._says(path, blob, commit) is not None
            for path, blob in ((change.old_path, change.old_blob), (change.new_path, change.new_blob))
        )

    def _says(self, path: str | None, blob: str | None, commit: str) -> LinguistSays | None:
        """None where the sync would not read the file; else what its attributes say of it
        (both sides of a change are read under the commit's attributes)."""
        key = (path, blob)
        if key not in self._said:
            self._said[key] = self._read_says(path, blob, commit)
        return self._said[key]

    def _read_says(self, path: str | None, blob: str | None, commit: str) -> LinguistSays | None:
        if path is None or blob is None:
            return None
        if not self._check_attributes and self._language(path, blob, NO_SAY) is None:  # no attribute names one
            return None
        check = bool(self._check_attributes)
        reason, said = skip_reason(self._git, commit, path, blob, self._options, check_attributes=check)
        return said if reason is None else None

    def _language(self, path: str, blob: str, said: LinguistSays) -> str | None:
        return file_language(self._git, path, blob, max_bytes=self._options.max_file_bytes, named=said.language)

    def _lacking(self, commit: str) -> None:
        """A blob of ``commit`` that the repository lacks (a partial clone's history, read
        without fetching: ``GitRepository.local_only``; one a rewritten history let git
        collect) leaves its file's symbols out of the commit's (the file is listed); said
        once a reader."""
        if not self.lacked:
            log.info("history read without the blobs the repository lacks: their files are listed without symbols",
                     repo=self._git.git_dir, commit=commit)  # fmt: skip
        self.lacked += 1

    def _compare(self, change: FileChange, commit: str) -> tuple[FileSymbolChanges, list[ProducedVersion]]:
        old = self._symbols(change.old_path, change.old_blob, commit)
        new = self._symbols(change.new_path, change.new_blob, commit)
        path = change.new_path or change.old_path or ""
        same_place = change.status != "renamed"
        produced = []
        for (kind, qualname), digest in new.items():
            unchanged = old.get((kind, qualname)) == digest
            if not same_place or not unchanged:
                produced.append(ProducedVersion(path, kind, qualname, digest, change.old_path if unchanged else None))
        listed = {key: digest for key, digest in new.items() if key[0] != "module"}
        before = {key: digest for key, digest in old.items() if key[0] != "module"}
        touched = FileSymbolChanges(
            path=path,
            added=tuple(q for (k, q) in listed if (k, q) not in before),
            modified=tuple(q for (k, q), d in listed.items() if (k, q) in before and before[(k, q)] != d),
            removed=tuple(q for (k, q) in before if (k, q) not in listed),
        )
        return touched, produced

    def _symbols(self, path: str | None, blob: str | None, commit: str) -> SymbolHashes:
        said = self._says(path, blob, commit)
        if said is None:
            return {}
        assert path is not None and blob is not None  # checked by _says
        language = self._language(path, blob, said)
        assert language is not None  # checked by _says
        key = (blob, language, said.source)
        cached = self._parsed.get(key)
        if cached is not None:
            self._parsed.move_to_end(key)
            return cached
        symbols = self._known.get((blob, language))
        if symbols is None:  # a blob a sync parsed lately is taken from the parse memo
            generated = said.source or not self._options.skip_generated
            read = read_parsed(self._git, blob, language, path, generated=generated, keep=False).parsed
            symbols = read.symbols if read is not None else ()
        # a collected file also holds its derived entries (debt, decisions): not compared
        hashes: SymbolHashes = {
            (s.kind, s.qualname): s.content_hash for s in symbols if memory_type(s.kind) == STRUCTURAL
        }
        self._parsed[key] = hashes
        if len(self._parsed) > PARSE_CACHE_SIZE:
            self._parsed.popitem(last=False)
        return hashes
