"""What a plan is made of (``ingest/plan.py``): the files it reads, and the versions it
writes, closes, relocates and rewrites."""

from __future__ import annotations

from dataclasses import dataclass

from recalld.parsers.base import Symbol


@dataclass(frozen=True, slots=True)
class FileSymbols:
    """A file as it is at the target commit, with what the parser found in it."""

    path: str
    blob: str
    language: str
    symbols: tuple[Symbol, ...]


@dataclass(frozen=True, slots=True)
class NewVersion:
    """``reread``: its file's bytes are those its memories were read from (``Plan``); ``moved``:
    the memory it was moved from unchanged, whose writer it keeps (``moved_unchanged``)."""

    id: str
    file: FileSymbols
    symbol: Symbol
    lineage: str
    change: str  # added | modified | renamed
    reread: bool = False
    moved: str | None = None


@dataclass(frozen=True, slots=True)
class Closure:
    id: str
    reason: str  # modified | removed | deleted | skipped | renamed
    superseded_by: str | None


@dataclass(frozen=True, slots=True)
class Relocation:
    """An unchanged memory's new lines; a module's new blob too, when its file's bytes
    changed but not its symbols (line endings flipped); its signature, when the extractor
    now reads the same code otherwise (``parsers.extraction.EXTRACTION_VERSION``)."""

    id: str
    start_line: int
    end_line: int
    blob: str | None = None
    signature: str | None = None
    reread: NewVersion | None = None  # the memory as read now, when its signature is new


@dataclass(frozen=True, slots=True)
class Plan:
    """``rewrites``: memories whose code is unchanged (so is their id) but whose docstring
    the extractor now reads otherwise (an earlier version's, ``parsers.extraction.
    EXTRACTION_VERSION``), or whose file is now of another language (a C header made C++
    by a class added to it): written again whole, their lineage and interval kept.
    A new version in a file whose bytes are those its memories were read from (its module
    memories' blob: an extractor that reads the same code otherwise), or in a file only a
    ``.gitattributes`` made it read (``unchanged``), is ``reread``: no commit the sync
    brings in wrote it, and its writer is left for a history read to find. So is one
    ``added`` in a file git moved from a path the store holds nothing of (a vendored tree
    moved into the code, a ``.txt`` made ``.py``): who moves code does not write it."""

    new_versions: tuple[NewVersion, ...] = ()
    closures: tuple[Closure, ...] = ()
    relocations: tuple[Relocation, ...] = ()
    rewrites: tuple[NewVersion, ...] = ()

    @property
    def is_empty(self) -> bool:
        return not (self.new_versions or self.closures or self.relocations or self.rewrites)
