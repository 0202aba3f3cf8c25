"""What the repository reader (``gitrepo.GitRepository``) gives: a tree's entries, a
rename, a commit's summary and details. Plain records, without pygit2."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class TreeFile:
    path: str
    blob: str  # hex object id


@dataclass(frozen=True, slots=True)
class TreeSkip:
    path: str
    reason: str  # symlink | submodule | bad_path


@dataclass(frozen=True, slots=True)
class RenameDelta:
    old_path: str
    new_path: str
    similarity: int


@dataclass(frozen=True, slots=True)
class CommitInfo:
    id: str
    time: int  # committer time, unix seconds
    author: str
    summary: str


@dataclass(frozen=True, slots=True)
class CommitDetails:
    id: str
    message: str
    author: str  # "Name <email>"
    author_time: int  # unix seconds
    committer_time: int
    parents: tuple[str, ...]
