"""Reading the touched files of a commit: skip rules, blobs, parsing."""

from __future__ import annotations

import posixpath
import traceback
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field

from recalld.daemon.logs import get_logger
from recalld.ingest.errors import RecalldError
from recalld.ingest.files import IndexOptions, excluded_by, says_generated, unreadable
from recalld.ingest.gitattributes import beside_text
from recalld.ingest.gitrecords import TreeFile, TreeSkip
from recalld.ingest.gitrepo import GitRepository
from recalld.ingest.languages import file_language, may_have_language
from recalld.ingest.parse_memo import PARSED, ReadFile
from recalld.ingest.plan import FileSymbols, LiveMemory, Scope
from recalld.ingest.records import live_filter
from recalld.ingest.store import MemoryFilter, Store
from recalld.parsers import PARSE_SECONDS, ParseTimeout, parse
from recalld.parsers.base import memory_type
from recalld.parsers.encoding import from_utf16
from recalld.parsers.registry import linguist_language

GENERATED = "generated"  # by linguist-generated, or by what the file's opening comments say
PARSER_ERROR = "parser_error"  # the parser raised on the file (its bug): skipped and logged
PARSE_TIMEOUT = "parse_timeout"  # the parser gave up on the file past parsers.PARSE_SECONDS: skipped and logged
LINGUIST_ATTRIBUTES = (("linguist-generated", GENERATED), ("linguist-vendored", "vendored"))
ATTRIBUTES_FILE = ".gitattributes"
# Skips that a repository's own rules or its languages explain are only counted; the
# others say something about one file (bad input, a link, a limit hit) and are noted by
# path, as are files read in part (syntax errors, invalid UTF-8, malformed tooling files).
ROUTINE_SKIPS = frozenset({"excluded", "unsupported_language", GENERATED, "vendored", "foreign", "lfs_pointer"})
NOTES_LOGGED = 20  # lines a sync logs about single files; the rest are summed up in one
PARTLY = "file read in part"
log = get_logger("recalld.sync")


@dataclass(slots=True)
class Collected:
    """The target state of the touched paths that exist at the target commit."""

    files: dict[str, FileSymbols] = field(default_factory=dict)
    skipped: dict[str, str] = field(default_factory=dict)  # path -> reason
    syntax_errors: int = 0
    invalid_utf8: int = 0
    malformed: int = 0  # tooling files that are not valid TOML/JSON/INI/XML: read as empty
    notes: list[tuple[str, str, str]] = field(default_factory=list)  # (event, path, detail): the first NOTES_LOGGED
    noted: int = 0  # every note, kept or not

    def note(self, event: str, path: str, detail: str) -> None:
        self.noted += 1
        if len(self.notes) < NOTES_LOGGED:
            self.notes.append((event, path, detail))

    def log_notes(self, repo: str) -> None:
        """One line per file skipped for a reason of its own or read in part (the first
        NOTES_LOGGED), so that a count in the sync's summary can be traced to paths."""
        for event, path, detail in self.notes:
            log.info(event, repo=repo, path=path, detail=detail)
        if self.noted > len(self.notes):
            log.info("more files skipped or read in part", repo=repo, more=self.noted - len(self.notes),
                     see="the sync's skips, syntax_errors, invalid_utf8 counts")  # fmt: skip

    def skip(self, path: str, reason: str) -> None:
        self.skipped[path] = reason
        if reason not in ROUTINE_SKIPS:
            self.note("file skipped", path, reason)

    @property
    def skip_counts(self) -> dict[str, int]:
        counts = dict(Counter(self.skipped.values()))
        if self.malformed:
            counts["malformed"] = self.malformed
        return counts


class FileCollector:
    def __init__(
        self,
        git: GitRepository,
        commit: str,
        options: IndexOptions,
        *,
        check_attributes: bool,
        on_file: Callable[[FileSymbols], None] | None = None,
    ) -> None:
        self._git = git
        self._commit = commit
        self._options = options
        self._check_attributes = check_attributes and options.honour_gitattributes
        self._globs = options.memories.globs
        self._types = options.memories.types
        self._on_file = on_file  # told about every parsed file as soon as it is parsed
        self.result = Collected()

    def prefetch(self, entries: Iterable[TreeFile | TreeSkip]) -> None:
        """Have a partial clone fetch, in one go, the blobs of ``entries`` that ``add``
        may read: one fetch, not one a file. A file of a language or a script's, not
        excluded; where attributes are read, also one they name a language of or keep
        (``linguist-vendored=false``), and not one they skip."""
        self._git.blobs.prefetch(e.blob for e in entries if isinstance(e, TreeFile) and self._may_read(e.path))

    def _may_read(self, path: str) -> bool:
        said = linguist_says(self._git, self._commit, path) if self._check_attributes else NO_SAY
        if skipped_by_name(path, said, self._options) is not None:
            return False
        return said.language is not None or may_have_language(path, self._globs)

    def add(self, entry: TreeFile | TreeSkip) -> None:
        if isinstance(entry, TreeSkip):
            self.result.skip(entry.path, entry.reason)
            return
        read = read_file(self._git, self._commit, entry.path, entry.blob, self._options,
                         check_attributes=self._check_attributes, globs=self._globs)  # fmt: skip
        parsed = read.parsed
        if parsed is None:
            self.result.skip(entry.path, read.unread)
            return
        self.result.invalid_utf8 += parsed.undecodable
        for why in parsed.read_partly():
            self.result.note(PARTLY, entry.path, why)
        if parsed.symbols:
            self.result.syntax_errors += parsed.syntax_errors
        else:
            self.result.malformed += parsed.syntax_errors
            if parsed.syntax_errors:
                problem = "; ".join(parsed.notes) or f"malformed {parsed.language}"
                self.result.note(PARTLY, entry.path, f"{problem}: read as empty")
        derived = tuple(d for d in parsed.derived if memory_type(d.kind) in self._types)
        symbols = parsed.symbols + derived
        self.put(FileSymbols(entry.path, entry.blob, parsed.language, symbols))

    def put(self, file: FileSymbols) -> None:
        """A file's symbols into the result (an entry made elsewhere, such as the project
        memory, joins here too: its text is then queued as early as any file's)."""
        self.result.files[file.path] = file
        if self._on_file is not None:
            self._on_file(file)


@dataclass(frozen=True, slots=True)
class LinguistSays:
    """What a file's ``linguist-`` attributes say of it: skip it (as "generated" or
    "vendored"); read it even where the excludes take it (an attribute set to false); read
    it even where its opening comments say a generator wrote it (linguist-generated=false);
    read it in the language ``linguist-language`` names ("": one recalld does not read)."""

    skip: str | None = None
    forced_in: bool = False
    source: bool = False
    language: str | None = None


NO_SAY = LinguistSays()


def skipped_by_name(path: str, said: LinguistSays, options: IndexOptions) -> str | None:
    """Why a sync skips ``path`` before looking at its bytes: what its attributes say
    ("generated", "vendored"), else the configuration's ``exclude`` globs unless an
    attribute keeps the file; None where neither skips it."""
    if said.skip is not None:
        return said.skip
    return "excluded" if not said.forced_in and excluded_by(path, options.exclude) else None


def skip_reason(
    git: GitRepository,
    commit: str,
    path: str,
    blob: str,
    options: IndexOptions,
    *,
    check_attributes: bool,
    globs: Mapping[str, tuple[str, ...]] | None = None,
) -> tuple[str | None, LinguistSays]:
    """Why a sync skips a file of ``commit`` before reading it ("generated", "vendored",
    "excluded", "unsupported_language", "oversized"), or None; and what its ``linguist-``
    attributes say of it (asked when ``check_attributes``). The file collector and the
    task step's commit reader read files so, and list the same symbols."""
    said = linguist_says(git, commit, path) if check_attributes else NO_SAY
    named_skip = skipped_by_name(path, said, options)
    if named_skip is not None:
        return named_skip, said
    if file_language(git, path, blob, globs, max_bytes=options.max_file_bytes, named=said.language) is None:
        return "unsupported_language", said
    if git.blobs.size(blob) > options.max_file_bytes:
        return "oversized", said
    return None, said


def read_file(
    git: GitRepository,
    commit: str,
    path: str,
    blob: str,
    options: IndexOptions,
    *,
    check_attributes: bool,
    globs: Mapping[str, tuple[str, ...]] | None = None,
) -> ReadFile:
    """The file at ``path`` of ``commit`` as a sync reads it: parsed, or unread with the
    reason it is skipped, before reading (``skip_reason``) or by what it holds (binary,
    minified, generated). Attributes that say it is source all the same
    (linguist-generated=false) have it read even where its opening comments say a
    generator wrote it."""
    reason, said = skip_reason(git, commit, path, blob, options, check_attributes=check_attributes, globs=globs)
    if reason is not None:
        return ReadFile(None, unread=reason)
    language = file_language(git, path, blob, globs, max_bytes=options.max_file_bytes, named=said.language)
    assert language is not None  # checked by skip_reason
    return read_parsed(git, blob, language, path, generated=said.source or not options.skip_generated)


def linguist_says(git: GitRepository, commit: str, path: str) -> LinguistSays:
    forced_in = source = False
    attributes = git.attributes(commit, path)
    for attribute, reason in LINGUIST_ATTRIBUTES:
        value = attributes.get(attribute)
        if value is True or value == "true":
            return LinguistSays(skip=reason)
        if value is False or value == "false":
            forced_in = True
            source = source or reason == GENERATED
    named = attributes.get("linguist-language")
    language = linguist_language(named, path) if isinstance(named, str) else None
    return LinguistSays(forced_in=forced_in, source=source, language=language)


def read_parsed(
    git: GitRepository, blob: str, language: str, path: str, *, generated: bool = True, keep: bool = True
) -> ReadFile:
    """The blob parsed, from the parse memo when this blob was read before. Code whose
    opening comments say a generator wrote it is read only when ``generated`` is true,
    and is otherwise unread as "generated". ``keep``: put a new parse in the memo (the
    history's reads take what syncs kept and keep nothing of theirs: ``CommitReader``)."""
    key = (blob, language, path)
    read = PARSED.get(key)
    if read is None or (generated and read.unread == GENERATED):  # kept unparsed, wanted now
        data = from_utf16(git.blobs.read(blob))
        reason = unreadable(data, language)
        marked = reason is None and says_generated(data, language)
        if marked and not generated:
            reason = GENERATED
        if reason is not None:
            read = ReadFile(None, unread=reason)  # holds nothing: counts for the least a file can
        else:
            read = parse_file(language, data, path, generated=marked)
        if keep:
            PARSED.put(key, read, len(data) if read.parsed is not None else 0)
    if read.generated and not generated:
        return ReadFile(None, unread=GENERATED)
    return read


def parse_file(language: str, data: bytes, path: str, *, generated: bool = False) -> ReadFile:
    """``parse``, which never raises on bad input; a bug of its own that does on one file
    skips that file (logged with the traceback, counted as ``parser_error``) where it
    failed every sync of the repository, each retry again."""
    try:
        return ReadFile(parse(language, data, path=path), generated=generated)
    except ParseTimeout:  # tree-sitter's error recovery on input its grammar cannot read
        log.warning("the parser gave up on a file past its deadline: skipped", path=path, language=language,
                    bytes=len(data), seconds=PARSE_SECONDS)  # fmt: skip
        return ReadFile(None, unread=PARSE_TIMEOUT)
    except Exception as exc:  # noqa: BLE001 - one file, not the repository
        log.error("the parser failed on a file: skipped", path=path, language=language,
                  error=f"{type(exc).__name__}: {exc}", traceback=traceback.format_exc())  # fmt: skip
        return ReadFile(None, unread=PARSER_ERROR)


class OldSources:
    """A live memory's code, read from the blob its version was written from: what the
    planner compares when a symbol moved and was edited in one commit."""

    def __init__(self, git: GitRepository, options: IndexOptions) -> None:
        self._git = git
        self._globs = options.memories.globs
        # (blob, path) -> each symbol's (code, docstring)
        self._files: dict[tuple[str, str], dict[tuple[str, str], tuple[str, str]]] = {}

    def __call__(self, mem: LiveMemory) -> str | None:
        found = self._symbol(mem)
        return found[0] if found is not None else None

    def docstring(self, mem: LiveMemory) -> str | None:
        """Its docstring, as ``plan_changes``'s ``old_docstring``."""
        found = self._symbol(mem)
        return found[1] if found is not None else None

    def _symbol(self, mem: LiveMemory) -> tuple[str, str] | None:
        if not mem.blob:
            return None
        key = (mem.blob, mem.path)
        code = self._files.get(key)
        if code is None:
            code = self._files[key] = self._read(mem.blob, mem.path)
        return code.get((mem.kind, mem.qualname))

    def _read(self, blob: str, path: str) -> dict[tuple[str, str], tuple[str, str]]:
        try:  # a blob gone with a rewritten, collected history reads as empty
            language = file_language(self._git, path, blob, self._globs)
            if language is None:
                return {}
            parsed = read_parsed(self._git, blob, language, path).parsed
        except (RecalldError, ValueError):
            return {}
        return {(s.kind, s.qualname): (s.source, s.docstring) for s in parsed.symbols} if parsed is not None else {}


class NameCounts:
    """How many live symbols of a kind bear a name in a branch, as the store holds it
    before a sync writes, and with ``code`` how many of them have that code: what tells
    the planner whether a name is rare enough to pair two symbols by, and whether code
    is boilerplate (``specific.SpecificNames``). One count per name asked."""

    def __init__(self, store: Store, scope: Scope) -> None:
        self._store, self._scope = store, scope

    def __call__(self, kind: str, name: str, *, code: str | None = None) -> int:
        repo, branch = self._scope.repo, self._scope.branch
        codes = (code,) if code is not None else ()
        return self._store.count(MemoryFilter(repo=repo, branch=branch, kinds=(kind,), names=(name,), codes=codes))


def live_languages(store: Store, scope: Scope) -> dict[str, set[str | None]]:
    """The paths a repository's branch holds live memories of, with the languages they were read in."""
    points = store.scroll(live_filter(scope), fields=("path", "language"))
    return held_languages((str(p.payload.get("path")), p.payload.get("language")) for p in points)


def held_languages(memories: Iterable[tuple[str, str | None]]) -> dict[str, set[str | None]]:
    """Each path of ``memories`` (path, language) with the languages its memories were read in."""
    held: dict[str, set[str | None]] = {}
    for path, language in memories:
        held.setdefault(path, set()).add(language)
    return held


def reattributed(
    git: GitRepository,
    target: str,
    changed: Iterable[str],
    tree: Callable[[], Iterable[TreeFile | TreeSkip]],
    stored: Callable[[], Mapping[str, set[str | None]]],
    options: IndexOptions,
) -> set[str]:
    """The unchanged files under a ``.gitattributes`` among the ``changed`` paths that
    their ``linguist-`` attributes at ``target`` skip though the store holds memories of
    them, or read though it holds none, or read in another language than the store's
    (``linguist-language``): numpy 1.26's new ``.gitattributes`` marks its unchanged
    ``lapack_lite/f2c_*.c`` generated. Compared with what is stored, not with the
    attributes at the indexed commit: the store is what must agree. ``tree``: the target's
    entries; ``stored``: the paths the store holds live memories of and their languages
    (``live_languages``), both asked only where a ``.gitattributes`` changed; ``options``:
    none where attributes are not honoured (``[index] honour_gitattributes``), and files
    read with the configuration's document globs, as the collector reads them."""
    folders = {posixpath.dirname(path) for path in changed if posixpath.basename(path) == ATTRIBUTES_FILE}
    if not folders or not options.honour_gitattributes:
        return set()
    globs = options.memories.globs
    prefixes = tuple(f"{folder}/" for folder in folders if folder)
    held = stored()
    found: set[str] = set()
    for entry in tree():
        path = entry.path
        if not isinstance(entry, TreeFile) or ("" not in folders and not path.startswith(prefixes)):
            continue
        said = linguist_says(git, target, path)
        language = file_language(git, path, entry.blob, globs, named=said.language)
        read = language is not None and said.skip is None
        # held in another language (None: an early release's memory, which names none)
        if (path in held) != read or (read and not held[path] & {language, None}):
            found.add(path)
    return found


def tree_has_linguist_attributes(git: GitRepository, entries: list[TreeFile | TreeSkip]) -> bool:
    """Whether any attribute file that applies to the tree sets a ``linguist-`` attribute:
    without one, a full index asks nothing per file. Includes the files beside the tree
    (info/attributes, the user's global one), which the per-file check reads too, so a
    full index and an incremental sync skip the same files."""
    if b"linguist-" in beside_text(git.attribute_files):
        return True
    files = [e for e in entries if isinstance(e, TreeFile) and e.path.rsplit("/", 1)[-1] == ATTRIBUTES_FILE]
    git.blobs.prefetch(e.blob for e in files)  # a partial clone's: in one fetch
    return any(b"linguist-" in git.blobs.read(entry.blob) for entry in files)
