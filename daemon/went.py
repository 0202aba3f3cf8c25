"""Where what the index once held at a path went: a file moved (its memories closed as
renamed, each superseded by its successor at the new path) or deleted, and a symbol that
moved on with its file or out of it (a class split across files). For the answers that
find nothing at a path that held something: an agent's memory of ``pkg/a.py`` after a
``git mv pkg src/pkg`` is told where the file is now, not only that nothing is there.

Read from the store alone: the closed memories at the path, the last of each file (a
file deleted, added again and moved has its last closure told), and the chain of
``superseded_by`` from there to a live memory, or to the last closed one; each move and
rename along it is told with its own commit ("it moved to src/a.py (commit 1a2b3c4d),
then to lib/a.py (commit 5e6f7a8b)")."""

from __future__ import annotations

import posixpath
import shlex
from collections.abc import Iterator
from dataclasses import dataclass
from itertools import islice, pairwise

from recalld.daemon.app import App
from recalld.daemon.registry import RepoEntry
from recalld.daemon.retrieve import at_path
from recalld.ingest.records import STRUCTURAL
from recalld.ingest.store import MemoryFilter, StoredPoint

CLOSED_READ = 10_000  # closed memories under a directory or matching a glob read at most
HOPS = 16  # successors followed at most (a file moved again and again)
EXAMPLES = 2  # moves a directory's answer names
ROUTE = 3  # moves and renames of one chain an answer names at most (the first, how many more, the last)
FOLLOWED = 32  # closed memories of a name in several files whose chains are followed at most
FIELDS = ("path", "kind", "qualname", "lineage", "start_line", "deprecated", "deprecated_reason", "superseded_by",
          "valid_to_commit", "valid_to_sync", "valid_to_time")  # fmt: skip


@dataclass(frozen=True, slots=True)
class Fate:
    """What became of one closed memory: the chain of its successors (``superseded_by``),
    from it to the last."""

    chain: tuple[StoredPoint, ...]

    @property
    def closed(self) -> StoredPoint:
        return self.chain[0]

    @property
    def last(self) -> StoredPoint | None:
        """The last of its successors; None where it had none."""
        return self.chain[-1] if len(self.chain) > 1 else None

    @property
    def commit(self) -> str:
        """The commit that closed the first."""
        return _closing(self.closed)

    @property
    def steps(self) -> list[tuple[StoredPoint, str]]:
        """Each successor at another path or of another name than the one before it (a
        move, a rename), with the commit that closed that one."""
        return [(after, _closing(before)) for before, after in pairwise(self.chain)
                if (_path(after), _qualname(after)) != (_path(before), _qualname(before))]  # fmt: skip

    @property
    def live(self) -> StoredPoint | None:
        """The live memory its successors end at; None where they end closed, or it had none."""
        return self.last if self.last is not None and not self.last.payload.get("deprecated") else None

    @property
    def gone(self) -> StoredPoint | None:
        """The last successor, where it is closed too."""
        return self.last if self.last is not None and self.last.payload.get("deprecated") else None

    def gone_since(self) -> str:
        """", deleted since (commit …)" where the last successor is closed too."""
        gone = self.gone
        return f", {_reason(gone)} since (commit {_closing(gone)})" if gone is not None else ""


def where_files_went(app: App, entry: RepoEntry, pattern: str) -> str:
    """What became of the files the index held at ``pattern`` (a file, a directory or a
    glob) that hold nothing now, as a clause ("it moved to src/a.py (commit 1a2b3c4d)");
    "" where it held none there."""
    fates = [_fate(app, point) for _at, point in sorted(_last_closed(app, entry, pattern).items())]
    if not fates:
        return ""
    if len(fates) == 1:
        return f"it {_one(fates[0])}" + ("" if fates[0].steps else _lives_on(app, entry, fates[0].closed))
    parts = []
    moved = [f for f in fates if f.steps and f.gone is None]
    if moved:
        parts.append(f"{len(moved)} of its files {_moves(moved)}")
    gone_since: dict[str, list[Fate]] = {}  # moved, then deleted (or closed otherwise) there
    for fate in fates:
        if fate.steps and fate.gone is not None:
            gone_since.setdefault(_reason(fate.gone), []).append(fate)
    for reason, closed in _most_first(gone_since):
        commits = _commits([_closing(f.gone) for f in closed if f.gone is not None])
        parts.append(f"{len(closed)} {_moves(closed, then=f'{_was(closed)} {reason} since{commits}')}")
    by_reason: dict[str, list[Fate]] = {}
    for fate in fates:
        if not fate.steps:
            by_reason.setdefault(_reason(fate.closed), []).append(fate)
    for reason, closed in _most_first(by_reason):
        parts.append(f"{len(closed)} {_was(closed)} {reason}{_commits([f.commit for f in closed])}")
    return "; ".join(parts)


def _moves(fates: list[Fate], *, then: str = "") -> str:
    """Where files that moved went, as a clause: "moved to src/ (commit 1a2b3c4d) (a.py →
    src/a.py, …)", ``then`` after where ("and was deleted since (commit …)"); each file
    by the paths it went through ("a.py → src/a.py → lib/a.py")."""
    common = posixpath.commonpath([posixpath.dirname(_path(f.chain[-1])) for f in fates])
    where = f" to {common}/" if common else ""
    commits = _commits([commit for f in fates for _step, commit in f.steps])
    examples = ", ".join(" → ".join(_squeezed([_path(f.closed), *(_path(p) for p, _c in f.steps)]))
                         for f in fates[:EXAMPLES])  # fmt: skip
    more = ", …" if len(fates) > EXAMPLES else ""
    return f"moved{where}{commits}{f' and {then}' if then else ''} ({examples}{more})"


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
    lineages = {str(p.payload.get("lineage") or p.id) for p in found}  # one symbol moved or renamed keeps its lineage
    if len(paths) > 1 and len(lineages) > 1 and not pattern and not _one_live_end(app, found):
        shown = ", ".join(paths[:EXAMPLES]) + (", …" if len(paths) > EXAMPLES else "")
        return f"{qualname!r} was held in {len(paths)} files before ({shown}): ask of one with --path"
    if not found:
        return ""
    fate = _fate(app, max(found, key=_closed_when))
    live = fate.live
    if live is None:
        if not closure:
            return ""
        if not fate.steps:  # no successor, or ones edited where it was: the end's closure
            end = fate.gone or fate.closed
            return f"{qualname!r} was {_reason(end)} (commit {_closing(end)})"
        return f"{qualname!r} {_route(fate)}"
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
             f"{', …' if len(names) > EXAMPLES + 1 else ''})"
             for to, names in sorted(where.items())[:EXAMPLES]]  # fmt: skip
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
    if fate.steps:
        return _route(fate)
    return f"was {_reason(fate.closed)} (commit {fate.commit})"


def _route(fate: Fate) -> str:
    """The moves and renames of ``fate``, each with its commit, and its end where closed:
    "moved to src/a.py (commit 1a2b3c4d), then to lib/a.py (commit 5e6f7a8b), deleted
    since (commit 9c0d1e2f)", "became 'two' in src/a.py (commit …)" for a rename (the
    first, how many more and the last of more than ``ROUTE``)."""
    said: list[str] = []
    before, moved = fate.closed, False  # whether the step before was a move: "then to" the next
    for after, commit in fate.steps:
        renamed = _qualname(after) != _qualname(before)
        if renamed:
            said.append(f"became {_qualname(after)!r} in {_path(after)} (commit {commit})")
        else:
            said.append(f"{'to' if moved else 'moved to'} {_path(after)} (commit {commit})")
        before, moved = after, not renamed
    if len(said) > ROUTE:
        said = [said[0], f"{len(said) - 2} more times", said[-1]]
    return ", then ".join(said) + fate.gone_since()


def _squeezed(paths: list[str]) -> list[str]:
    """The first, "…" and the last of more than ``ROUTE`` + 1 paths."""
    return paths if len(paths) <= ROUTE + 1 else [paths[0], "…", paths[-1]]


def _commits(commits: list[str]) -> str:
    distinct = set(commits)
    return f" (commit {distinct.pop()})" if len(distinct) == 1 else f" in {len(distinct)} commits"


def _most_first(groups: dict[str, list[Fate]]) -> list[tuple[str, list[Fate]]]:
    return sorted(groups.items(), key=lambda item: -len(item[1]))


def _was(fates: list[Fate]) -> str:
    return "was" if len(fates) == 1 else "were"


def _reason(point: StoredPoint) -> str:
    return str(point.payload.get("deprecated_reason") or "closed")


def _closing(point: StoredPoint) -> str:
    """The commit that closed ``point``, short."""
    return str(point.payload.get("valid_to_commit") or "")[:8]


def _path(point: StoredPoint) -> str:
    return str(point.payload.get("path"))


def _qualname(point: StoredPoint) -> str:
    return str(point.payload.get("qualname"))


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
    """``point`` and the memories its ``superseded_by`` chain reaches, to a live one or the
    last closed one (``HOPS`` at most)."""
    chain = [point]
    successor = point.payload.get("superseded_by")
    while successor and all(p.id != successor for p in chain) and len(chain) <= HOPS:
        found = app.store.retrieve([str(successor)], fields=FIELDS)
        if not found:
            break
        chain.append(found[0])
        if not found[0].payload.get("deprecated"):
            break
        successor = found[0].payload.get("superseded_by")
    return Fate(tuple(chain))
