"""Where what the index once held at a path went: a file moved (its memories closed as
renamed, each superseded by its successor at the new path) or deleted, and a symbol that
moved on with its file or out of it (a class split across files). For the answers that
find nothing at a path that held something: an agent's memory of ``pkg/a.py`` after a
``git mv pkg src/pkg`` is told where the file is now, not only that nothing is there.

Read from the store alone: the closed memories at the path, the last of each file (a
file deleted, added again and moved has its last closure told), and the chain of
``superseded_by`` from there to a live memory, or to the last closed one."""

from __future__ import annotations

import posixpath
import shlex
from collections.abc import Iterator
from dataclasses import dataclass
from itertools import islice

from recalld.daemon.app import App
from recalld.daemon.registry import RepoEntry
from recalld.daemon.retrieve import at_path
from recalld.ingest.records import STRUCTURAL
from recalld.ingest.store import MemoryFilter, StoredPoint

CLOSED_READ = 10_000  # closed memories under a directory or matching a glob read at most
HOPS = 16  # successors followed at most (a file moved again and again)
EXAMPLES = 2  # moves a directory's answer names
FOLLOWED = 32  # closed memories of a name in several files whose chains are followed at most
FIELDS = ("path", "kind", "qualname", "start_line", "deprecated", "deprecated_reason", "superseded_by",
          "valid_to_commit", "valid_to_sync", "valid_to_time")  # fmt: skip


@dataclass(frozen=True, slots=True)
class Fate:
    """What became of one closed memory: the last of its successors (None: it had none),
    and the commit that closed the first."""

    closed: StoredPoint
    last: StoredPoint | None

    @property
    def commit(self) -> str:
        return str(self.closed.payload.get("valid_to_commit") or "")[:8]

    @property
    def live(self) -> StoredPoint | None:
        """The live memory its successors end at; None where they end closed, or it had none."""
        return self.last if self.last is not None and not self.last.payload.get("deprecated") else None

    @property
    def moved_to(self) -> str | None:
        """The path the memory's successors end at, where it is another."""
        if self.last is None:
            return None
        to = self.last.payload.get("path")
        return str(to) if to and to != self.closed.payload.get("path") else None

    def gone_since(self) -> str:
        """", since deleted (commit …)" where the last successor is closed too."""
        last = self.last
        if last is None or not last.payload.get("deprecated"):
            return ""
        commit = str(last.payload.get("valid_to_commit") or "")[:8]
        return f", {last.payload.get('deprecated_reason') or 'closed'} since (commit {commit})"


def where_files_went(app: App, entry: RepoEntry, pattern: str) -> str:
    """What became of the files the index held at ``pattern`` (a file, a directory or a
    glob) that hold nothing now, as a clause ("it moved to src/a.py (commit 1a2b3c4d)");
    "" where it held none there."""
    fates = [_fate(app, point) for _path, point in sorted(_last_closed(app, entry, pattern).items())]
    if not fates:
        return ""
    if len(fates) == 1:
        return f"it {_one(fates[0])}" + ("" if fates[0].moved_to else _lives_on(app, entry, fates[0].closed))
    moved = [f for f in fates if f.moved_to]
    parts = []
    if moved:
        targets = [str(f.moved_to) for f in moved]
        common = posixpath.commonpath([posixpath.dirname(t) for t in targets])
        where = f" to {common}/" if common else ""
        examples = ", ".join(f"{f.closed.payload.get('path')} → {f.moved_to}" for f in moved[:EXAMPLES])
        parts.append(f"{len(moved)} of its files moved{where}{_commits(moved)} ({examples}"
                     f"{', …' if len(moved) > EXAMPLES else ''})")  # fmt: skip
    by_reason: dict[str, list[Fate]] = {}
    for fate in fates:
        if not fate.moved_to:
            by_reason.setdefault(_reason(fate.closed), []).append(fate)
    for reason, closed in sorted(by_reason.items(), key=lambda item: -len(item[1])):  # the most first
        parts.append(f"{len(closed)} {'was' if len(closed) == 1 else 'were'} {reason}{_commits(closed)}")
    return "; ".join(parts)


def where_symbol_went(app: App, entry: RepoEntry, qualname: str, pattern: str, *, closure: bool = True) -> str:
    """Where the symbol ``qualname`` the index held at ``pattern`` ("": anywhere) is now, as
    a clause: "'one' is now in src/a.py at line 3 (recalld symbol one --repo r --path
    src/a.py)"; with ``closure``, also where it has no live successor ("'two' was deleted
    (commit 1a2b3c4d)"). Held in several files and asked of none: which. "" where the
    index held no such symbol there."""
    found = list(_closed_at(app, entry, pattern, qualnames=(qualname,)))
    if not found and "." not in qualname:  # a method asked by its name alone, as get_symbol finds one
        found = list(_closed_at(app, entry, pattern, names=(qualname,)))
    paths = sorted({str(p.payload.get("path")) for p in found})
    if len(paths) > 1 and not pattern and not _one_live_end(app, found):
        shown = ", ".join(paths[:EXAMPLES]) + (", …" if len(paths) > EXAMPLES else "")
        return f"{qualname!r} was held in {len(paths)} files before ({shown}): ask of one with --path"
    if not found:
        return ""
    fate = _fate(app, max(found, key=_closed_when))
    live = fate.live
    if live is None:
        if not closure:
            return ""
        if fate.last is None:
            return f"{qualname!r} was {_reason(fate.closed)} (commit {fate.commit})"
        name, path = str(fate.last.payload.get("qualname")), str(fate.last.payload.get("path"))
        return f"{qualname!r} became {name!r} in {path} (commit {fate.commit}){fate.gone_since()}"
    name, path = str(live.payload.get("qualname")), str(live.payload.get("path"))
    hint = shlex.join(["recalld", "symbol", name, "--repo", entry.name, "--path", path])
    renamed = "" if name == qualname else f"{name!r} "
    return f"{qualname!r} is now {renamed}in {path} at line {live.payload.get('start_line')} ({hint})"


def _lives_on(app: App, entry: RepoEntry, module: StoredPoint) -> str:
    """Where the symbols of a file that was closed without a successor went in the same
    commit, as a clause ("; what it defined lives on in core/parser.py (Parser,
    Parser.read)"): a file split into others, its classes moved each to a file of its own;
    "" where none did."""
    path, commit = module.payload.get("path"), module.payload.get("valid_to_commit")
    closed = (p for p in _closed_at(app, entry, str(path))
              if p.payload.get("kind") != "module" and p.payload.get("valid_to_commit") == commit)  # fmt: skip
    where: dict[str, list[tuple[int, str]]] = {}
    for point in islice(closed, FOLLOWED):
        last = _fate(app, point).live
        if last is not None and last.payload.get("path") != path:
            found = (int(last.payload.get("start_line") or 0), str(last.payload.get("qualname")))
            where.setdefault(str(last.payload.get("path")), []).append(found)
    if not where:
        return ""
    shown = [f"{to} ({', '.join(name for _line, name in sorted(names)[: EXAMPLES + 1])}"
             f"{', …' if len(names) > EXAMPLES + 1 else ''})" for to, names in sorted(where.items())[:EXAMPLES]]  # fmt: skip
    more = f" and {len(where) - EXAMPLES} more files" if len(where) > EXAMPLES else ""
    return f"; what it defined lives on in {', '.join(shown)}{more}"


def _one_live_end(app: App, found: list[StoredPoint]) -> bool:
    """Whether the closed memories ``found`` (of one name, in several files) all lead to
    one live memory: one symbol moved with its file and renamed since (``humanize/`` →
    ``humanise/``, then ``ordinal`` → ``ordinal_number``), not several."""
    if len(found) > FOLLOWED:
        return False
    ends = set()
    for point in found:
        last = _fate(app, point).live
        if last is None:
            return False
        ends.add(last.id)
    return len(ends) == 1


def _one(fate: Fate) -> str:
    if fate.moved_to:
        return f"moved to {fate.moved_to} (commit {fate.commit}){fate.gone_since()}"
    return f"was {_reason(fate.closed)} (commit {fate.commit})"


def _commits(fates: list[Fate]) -> str:
    commits = {f.commit for f in fates}
    return f" (commit {commits.pop()})" if len(commits) == 1 else f" in {len(commits)} commits"


def _reason(point: StoredPoint) -> str:
    return str(point.payload.get("deprecated_reason") or "closed")


def _closed_at(
    app: App, entry: RepoEntry, pattern: str, *, qualnames: tuple[str, ...] = (), names: tuple[str, ...] = (),
    kinds: tuple[str, ...] = (),
) -> Iterator[StoredPoint]:
    """The closed code memories of ``entry``'s branch at ``pattern`` (of ``qualnames``,
    ``names`` and ``kinds``, if given): those of the file, else those under the directory or matching
    the glob, or anywhere for "" (``CLOSED_READ`` at most)."""
    base = MemoryFilter(repo=entry.name, branch=entry.branch, types=(STRUCTURAL,), deprecated=1,
                        qualnames=qualnames, names=names, kinds=kinds)  # fmt: skip
    if not pattern.strip("/"):  # anywhere
        yield from islice(app.store.scroll(base, fields=FIELDS), CLOSED_READ)
        return
    yield from islice(at_path(app.store, base, pattern, fields=FIELDS), CLOSED_READ)


def _closed_when(point: StoredPoint) -> tuple[int, int]:
    payload = point.payload
    return int(payload.get("valid_to_sync") or 0), int(payload.get("valid_to_time") or 0)


def _last_closed(app: App, entry: RepoEntry, pattern: str) -> dict[str, StoredPoint]:
    """Each file's last closed module memory at ``pattern`` (a module's fate is its
    file's), by path; where no module memory was closed there, each file's last closed
    memory."""
    points = list(_closed_at(app, entry, pattern, kinds=("module",))) or list(_closed_at(app, entry, pattern))
    last: dict[str, StoredPoint] = {}
    for point in sorted(points, key=_closed_when):
        last[str(point.payload.get("path"))] = point  # the latest closure last of each
    return last


def _fate(app: App, point: StoredPoint) -> Fate:
    """``point`` and the last memory its ``superseded_by`` chain reaches."""
    seen = {point.id}
    last: StoredPoint | None = None
    successor = point.payload.get("superseded_by")
    while successor and successor not in seen and len(seen) <= HOPS:
        seen.add(str(successor))
        found = app.store.retrieve([str(successor)], fields=FIELDS)
        if not found:
            break
        last = found[0]
        if not last.payload.get("deprecated"):
            break
        successor = last.payload.get("superseded_by")
    return Fate(point, last)
