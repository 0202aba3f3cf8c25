"""What a sync reports: its result counts, and the progress sink it reports to."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from recalld.ingest.project import PROJECT_PATH
from recalld.parsers.base import STRUCTURAL, memory_type

if TYPE_CHECKING:
    from recalld.ingest.collect import Collected
    from recalld.ingest.plan import Plan


class ProgressSink(Protocol):
    def begin(self, label: str, total: int) -> None: ...
    def advance(self, n: int) -> None: ...
    def end(self) -> None: ...


class NoProgress:
    def begin(self, label: str, total: int) -> None:
        pass

    def advance(self, n: int) -> None:
        pass

    def end(self) -> None:
        pass


@dataclass(slots=True)
class SyncResult:
    repo: str
    branch: str
    from_commit: str | None
    to_commit: str | None
    mode: str = "noop"  # noop | incremental | full
    files_changed: int = 0
    added: int = 0
    modified: int = 0
    renamed: int = 0
    deprecated: int = 0
    relocated: int = 0
    embedded: int = 0
    skipped: int = 0
    skips: dict[str, int] = field(default_factory=dict)
    syntax_errors: int = 0
    invalid_utf8: int = 0
    derived: dict[str, int] = field(default_factory=dict)  # new versions per derived memory type
    secrets_redacted: int = 0
    tasks_added: int = 0  # task memories (one per commit) written, new or reopened
    tasks_deprecated: int = 0  # task memories closed: their commit left the branch
    seconds: float = 0.0  # until the memories were all in line with the target
    # After that, the backfill of the target's commit history (a first sync's):
    history_added: int = 0  # task memories written
    history_embedded: int = 0
    history_seconds: float = 0.0
    history_writers: int = 0  # versions a first index found given their writer by it (ingest/authorship.py)
    history_owed: bool = False  # stopped early: the next sync goes on with it
    # Before it all, store-wide: memories of every repo embedded again for a new model
    # or text setting (ingest/revector.py), by the process's first sync.
    reembedded: int = 0

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)

    def count_plan(self, plan: Plan, files: Iterable[str], *, gone: set[str], had: set[str]) -> None:
        """What ``plan`` writes, added to what was counted before (a whole tree is planned
        a part at a time): ``files`` read, ``gone`` (paths deleted or skipped), ``had``:
        the paths that had memories."""
        for version in plan.new_versions:
            kind_type = memory_type(version.symbol.kind)
            if kind_type != STRUCTURAL:
                self.derived[kind_type] = self.derived.get(kind_type, 0) + 1
            if version.change == "added":
                self.added += 1
            elif version.change == "modified":
                self.modified += 1
            else:
                self.renamed += 1
        self.deprecated += len(plan.closures)
        self.relocated += len(plan.relocations) + len(plan.rewrites)  # memories set right in place
        self.files_changed += len((set(files) | (gone & had)) - {PROJECT_PATH})

    def count_reads(self, collected: Collected) -> None:
        """What reading the files found: skips by reason, syntax errors, invalid UTF-8."""
        self.skips = collected.skip_counts
        self.skipped = sum(self.skips.values())
        self.syntax_errors = collected.syntax_errors
        self.invalid_utf8 = collected.invalid_utf8

    def _skip_reasons(self) -> str:
        """Why files were skipped, the most common reason first: `` (unsupported language
        40, binary 3)``; nothing where none were."""
        if not self.skips:
            return ""
        reasons = sorted(self.skips.items(), key=lambda item: (-item[1], item[0]))
        return " (" + ", ".join(f"{reason.replace('_', ' ')} {count}" for reason, count in reasons) + ")"

    def summary(self) -> str:
        # the store's re-embedding is said by the first sync of a process, whichever repository's
        # it is: one of a branch with no commit yet said nothing of it
        reembedded = f"re-embedded {self.reembedded} memories for the configured model; " if self.reembedded else ""
        if self.to_commit is None and self.from_commit is None:  # ``sync.Syncer``: a branch with no commit yet
            return f"{reembedded}synced {self.repo}@{self.branch}: the branch has no commit yet, nothing to index"
        span = f"{_short(self.from_commit)}→{_short(self.to_commit)}"
        return (
            reembedded
            + f"synced {self.repo}@{self.branch} {span}: +{self.added} ~{self.modified} "
            f">{self.renamed} -{self.deprecated}, {self.files_changed} files, "
            f"commits +{self.tasks_added} -{self.tasks_deprecated}, "
            f"{self.embedded} embedded, {self.skipped} skipped{self._skip_reasons()}"
            + (f", {self.secrets_redacted} secrets redacted" if self.secrets_redacted else "")
            + f" in {self.seconds:.2f} s"
            + (f"; history +{self.history_added} commits" if self.history_added or self.history_writers else "")
            + (f", writers found for {self.history_writers} versions" if self.history_writers else "")
            + (f" in {self.history_seconds:.2f} s" if self.history_added or self.history_writers else "")
            + (" (more to come)" if self.history_owed else "")
        )


def _short(commit: str | None) -> str:
    return commit[:8] if commit else "∅"
