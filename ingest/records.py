"""The shape of what is stored: embedded text, memory payloads, checkpoints."""

from __future__ import annotations

import posixpath
import re
import sys
import time
import uuid
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from recalld.ingest.gitrecords import CommitInfo
from recalld.ingest.plan import ADDED, LiveMemory, NewVersion, Scope, symbol_key
from recalld.ingest.qualnames import unnumbered
from recalld.ingest.redaction import holds_redaction
from recalld.ingest.store import MemoryFilter, Store, StoredPoint
from recalld.parsers.base import DERIVED_TYPES, STRUCTURAL, Nested, memory_type
from recalld.parsers.extraction import EXTRACTION_VERSION

# Payload fields the planner needs; scrolls for planning fetch only these. The signature
# may hold what lies outside a symbol's content (JavaScript's ``var f = function`` made
# ``const f = function``, an ``export`` added: MediaWiki 1.39 → 1.43 changed 25 so): the
# same code, the same id, a new signature (a ``Relocation``).
PLANNING_FIELDS = (
    "path", "kind", "qualname", "content_hash", "lineage", "start_line", "end_line", "blob", "language", "signature",
)  # fmt: skip
# Read too when the memories were made by an earlier extractor, which may have read the
# same code's signature or docstring otherwise: the plan then writes this one's (a
# signature by a ``Relocation``, a docstring by ``Plan.rewrites``). So are the other
# fields secret redaction writes into: a memory stored with a redaction is written again
# whole by this release's rules, which may read the text otherwise (earlier ones took
# Home Assistant's class name ``APCUPSdData`` for a password).
REREAD_FIELDS = (*PLANNING_FIELDS, "signature", "docstring", "name", "text", "symbol_key")
# Memory types ("type" in the payload) come from the kind: parsers.base.DERIVED_TYPES.
TASK = "task"
# Types whose memories the planner keeps in line with the files (tasks follow commits).
PLANNED_TYPES = (STRUCTURAL, *sorted(set(DERIVED_TYPES.values())))
# A memory's ``change`` when its version was there when its branch was indexed with nothing
# indexed before (``memory_payload``); else the plan's: added, modified or renamed.
INDEXED = "indexed"
CHECKPOINT_NAMESPACE = uuid.UUID("0b9e4bd4-6a0b-4a34-8c7e-5d2f6f1e8a73")
TASK_NAMESPACE = uuid.UUID("3d0f2c8e-5b7a-4e19-9c64-0a8e7d51b2f4")


# Test code by its path, as the languages' tools find it: a ``tests``, ``__tests__`` or
# ``testdata`` directory anywhere, a top-level ``test`` or ``spec`` one, Maven's
# ``src/test``; ``test_*.py``, ``*_test.py``, ``conftest.py``, ``*_test.go``,
# ``*.test.ts`` / ``*.spec.js`` and the like, ``*Test.java`` / ``*Tests.java`` / ``*IT.java``,
# C's and C++'s ``*_test.cc`` / ``*_unittest.cpp`` / ``test_*.c`` (abseil, googletest, leveldb),
# C#'s ``*Tests.cs`` / ``*Test.cs``, Ruby's ``*_spec.rb`` / ``*_test.rb`` / ``test_*.rb``,
# PHPUnit's ``*Test.php``, shell's ``test_*.sh`` / ``*_test.sh``, Lua's busted ``*_spec.lua``,
# ScalaTest's ``*Spec.scala`` / ``*Suite.scala`` / ``*Test.scala``, Perl's ``*.t``.
# A ``test`` or ``testing`` directory elsewhere is often the library's own test support
# (``django/test/``, Go's ``testing`` package): code like any other.
TEST_PATH = re.compile(
    r"(^|/)(tests|__tests__|testdata)/|^(test|spec)/|(^|/)src/test/"
    r"|(^|/)(test_[^/]*|[^/]*_tests?|conftest)\.py$|_test\.go$"
    r"|\.(test|spec)\.[cm]?[jt]sx?$|[^/](Tests?|TestCase)\.java$|[a-z0-9]IT\.java$"
    r"|(^|/)(test_[^/]*|[^/]*_(unit)?tests?)\.(c|cc|cpp|cxx)$|[^/]Tests?\.cs$|(^|/)(test_[^/]*|[^/]*_(spec|test))\.rb$"
    r"|[^/]Test\.php$|(^|/)(test_[^/]*|[^/]*_test)\.(sh|bash)$"
    r"|(^|/)(test_[^/]*|[^/]*_(spec|test))\.lua$|[^/](Spec|Suite|Tests?)\.scala$|[^/]\.t$"
)


@lru_cache(maxsize=4096)  # every symbol of a file asks, twice in a sync: the pattern scans the whole path
def is_test_path(path: str) -> bool:
    return TEST_PATH.search(path) is not None


def model_chars(path: str | None, type_: str, test_chars: int) -> int | None:
    """How much of a memory's (redacted) text the model reads: all of it (None), but the
    first ``test_chars`` characters of code in a test file, its head and first lines:
    tests are most of a large repository's symbols (Django: 70 %, 72 % of the tokens),
    and their whole bodies mostly made them outrank the code they test. 0: all of it."""
    if test_chars and type_ == STRUCTURAL and path and is_test_path(path):
        return test_chars
    return None


@lru_cache(maxsize=256)  # every memory a commit writes carries it
def task_memory_id(scope: Scope, commit: str) -> str:
    """The task memory of a commit on a branch: uuid5(repo, branch, commit)."""
    return str(uuid.uuid5(TASK_NAMESPACE, f"{scope.repo}\x00{scope.branch}\x00{commit}"))


def memory_text(version: NewVersion, *, max_chars: int) -> str:
    """What gets embedded. The path stays out, so a move or rename embeds nothing new.
    A derived entry (debt, decision, preference, project) brings its own readable text."""
    sym = version.symbol
    if memory_type(sym.kind) != STRUCTURAL:
        return sym.source[:max_chars]
    return _code_text(version)[:max_chars]


def _code_text(version: NewVersion, source: str | None = None) -> str:
    """A code symbol's head, its docstring unless ``source`` holds it, and ``source`` (by
    default the symbol's own)."""
    sym = version.symbol
    source = sym.source if source is None else source
    language = version.file.language
    # a repeat's mark left out (``close#3``: the third ``close`` of its scope): one inserted
    # above its namesakes renumbers them and changes no text of theirs to embed again
    head = f"{language} module" if sym.kind == "module" else f"{language} {sym.kind} {unnumbered(sym.qualname)}"
    if sym.docstring and sym.docstring not in source:
        return "\n".join([head, sym.docstring, source])
    return "\n".join([head, source])


def memory_keywords(version: NewVersion, nested: Nested | None = None) -> str:
    """The keyword side's material, never truncated. For code: the embedded text whole,
    except that what lies inside another symbol of the file (a module's functions and
    classes, a class's methods) is left to that symbol's own memory and stands here by
    its signature. Each line of a file is then material once, not once per enclosing
    symbol (a module's material was its whole file: scanned for secrets and made into
    keyword terms again after its classes and their methods), and the most specific
    symbol carries its terms. A symbol with nothing inside has its embedded text as
    material (the same string when the text is not cut: scanned for secrets once). A
    derived entry: its kind and name before its text. ``keyword_text`` adds the path and
    the qualified name. ``nested``: ``Nested(version.file.symbols)``, made once for a file's
    versions."""
    sym = version.symbol
    if memory_type(sym.kind) != STRUCTURAL:
        return "\n".join([f"{version.file.language} {sym.kind} {sym.qualname}", sym.docstring or "", sym.source])
    inner = (nested or Nested(version.file.symbols)).within(sym)
    if not inner:
        return _code_text(version)
    lines = sym.source.split("\n")
    for child in inner:  # a child's first line may hold the parent's own text: kept
        first, last = max(child.start_line, sym.start_line + 1), min(child.end_line, sym.end_line)
        lines[first - sym.start_line : last - sym.start_line + 1] = [""] * max(0, last - first + 1)
    own = "\n".join(line for line in lines if line)
    signatures = [child.signature for child in inner if child.signature]
    return "\n".join([_code_text(version, own), *signatures])


def ancestor_dirs(path: str) -> list[str]:
    parts = path.split("/")[:-1]
    return ["/".join(parts[: i + 1]) for i in range(len(parts))]


# Bumped whenever memory_payload changes a field its id fixes (``CONTENT_FIELDS``: a reopen writes the
# others), or the secret rules read a text otherwise: a closed memory an older version wrote is rewritten
# whole when it comes back, not reopened by a state update. 2: names made of words are no secret
# (``APCUPSdData`` was an Artifactory password), a redaction ends at its token.
PAYLOAD_VERSION = 2
# Bumped whenever reading a branch's history says otherwise what its task memories say or
# who wrote its versions: an earlier version's history is read again (``read_earlier``).
# What each version changed: the README's "Upgrades" (7: what a sync past its window's limit did not read).
PROVENANCE_VERSION = 7
# The fields of a memory that its id fixes (the id hashes repo, branch, path, kind,
# qualname and the symbol's source; the embedded text is made of those, so are both
# vectors). A closed memory that comes back keeps them as stored: everything else
# (lines, blob, lineage, the interval, the commit, derived entries' own fields, the
# signature, which an extractor of another version may read otherwise) is written
# again (``reopen_payload``).
CONTENT_FIELDS = frozenset({
    "record", "type", "repo", "branch", "kind", "path", "dirs", "name", "qualname", "docstring",
    "text", "content_hash", "symbol_key",
})  # fmt: skip


def memory_payload(
    scope: Scope, version: NewVersion, text: str, step: SyncStep, history: list[dict[str, Any]]
) -> dict[str, Any]:
    sym, commit = version.symbol, step.commit
    path = version.file.path
    # nothing indexed before (a first sync, or the indexed commit gone from git): the commit
    # that wrote the version is unknown, at or before the target, and its writer (author,
    # task, commit) not claimed; nor for code whose file's bytes it was read from (``reread``)
    known = step.last is not None and not version.reread
    return {
        **dict(sym.extra),
        "record": "memory",
        "type": memory_type(sym.kind),
        "repo": scope.repo,
        "branch": scope.branch,
        "kind": sym.kind,
        "language": version.file.language,
        "path": path,
        "dirs": ancestor_dirs(path),
        "name": posixpath.basename(path) if sym.kind == "module" else sym.name,
        "qualname": sym.qualname,
        "signature": sym.signature,
        "docstring": sym.docstring,
        "start_line": sym.start_line,
        "end_line": sym.end_line,
        "text": text,
        "content_hash": sym.content_hash,
        "symbol_key": symbol_key(scope, path, sym.kind, sym.qualname),
        "lineage": version.lineage,
        "blob": version.file.blob,
        "change": version.change if known or version.change != ADDED else INDEXED,
        "valid_from_commit": commit.id,
        "valid_from_time": commit.time,
        "valid_from_sync": step.stamp,
        "task_id": task_memory_id(scope, commit.id) if known else None,
        "author": commit.author if known else None,
        "written_in": commit.id if known else None,
        "payload_version": PAYLOAD_VERSION,
        **open_state(scope, history),
    }


def reopen_payload(
    scope: Scope, version: NewVersion, step: SyncStep, history: list[dict[str, Any]]
) -> dict[str, Any]:
    """What ``memory_payload`` would write for ``version`` that the stored point of its id
    may not hold already: set on a closed point that comes back, the rest kept."""
    full = memory_payload(scope, version, "", step, history)
    return {key: value for key, value in full.items() if key not in CONTENT_FIELDS}


@dataclass(frozen=True, slots=True)
class SyncStep:
    """A sync's move of a branch, as its memories' intervals record it: the commit it moves
    to, the one the branch was indexed at before (None: none), the sync's stamp, which orders
    the branch's syncs (``next_stamp``), and the last ended sync's (``sync.pending_after``)."""

    commit: CommitInfo
    last: CommitInfo | None
    stamp: int
    after: int | None = None


def next_stamp(checkpoint: dict[str, Any]) -> int:
    """A sync's stamp: microseconds since the epoch, after the branch's previous one even
    when the clock went back. An interval opened by the sync stamped ``a`` and closed by
    the one stamped ``b`` held at every sync stamped ``a`` to ``b - 1``: at each state the
    index held then, whichever way the branch moved (``daemon.asof``)."""
    return max(time.time_ns() // 1000, int(checkpoint.get("sync_stamp") or 0) + 1)


# The interval fields of a memory valid now (a closed one that comes back is set them).
OPEN_INTERVAL: dict[str, Any] = {
    "valid_to_commit": None,
    "valid_to_time": 0,
    "valid_through_commit": None,
    "valid_through_time": None,
    "valid_to_sync": None,
    "deprecated": 0,
    "deprecated_reason": None,
    "superseded_by": None,
}


def open_state(scope: Scope, history: list[dict[str, Any]]) -> dict[str, Any]:
    """The payload fields of a memory that is valid now (every memory type shares them)."""
    return {
        **OPEN_INTERVAL,
        "untrusted": int(scope.untrusted),
        "history": history,
        "indexed_at": int(time.time()),
    }


INTERVAL_FIELDS = (
    "valid_from_commit", "valid_from_time", "valid_from_sync", "valid_to_commit", "valid_to_time", "valid_to_sync",
    "valid_through_commit", "valid_through_time", "deprecated_reason", "superseded_by",
)  # fmt: skip
# What a new version of an existing point needs from it: whether it is closed, its history.
HISTORY_FIELDS = ("deprecated", "history", *INTERVAL_FIELDS)


def closing_fields(step: SyncStep) -> dict[str, Any]:
    """What closes a memory's interval when a sync (stamped ``step.stamp``, see
    ``next_stamp``) moves the branch from the state it last held at, ``step.last`` (None:
    none indexed), to ``step.commit``. ``valid_to_commit`` is where the memory stopped
    being valid; ``valid_through_commit`` where it last was. The two differ when the branch
    moved back (a reset, a force-push): an interval opened at c1 and closed by a move from
    c2 back to c0 held at c1 and c2, though it closed at an ancestor of both."""
    target, last = step.commit, step.last
    return {
        "deprecated": 1,
        "valid_to_commit": target.id,
        "valid_to_time": target.time,
        "valid_through_commit": last.id if last else None,
        "valid_through_time": last.time if last else None,
        "valid_to_sync": step.stamp,
    }


# What reopening a closed memory writes again that neither its id (``CONTENT_FIELDS``) nor
# its interval tells: kept in the history entry of that interval, so that the reopen of a
# sync that was interrupted is undone exactly (``recovery.before_writing``).
REOPENED_OVER = ("signature", "start_line", "end_line", "lineage", "blob", "change", "task_id", "author", "written_in")


def closed_interval(payload: dict[str, Any], kept: tuple[str, ...] = ()) -> dict[str, Any]:
    """One entry of a reopened point's history: the interval it was valid before, and
    those of the ``kept`` fields it holds, not null (a store may keep a null field or
    not; ``reopened_over`` reads one an entry lacks as null)."""
    return {**{name: payload.get(name) for name in INTERVAL_FIELDS},
            **{k: payload[k] for k in kept if payload.get(k) is not None}}  # fmt: skip


def reopened_over(entry: dict[str, Any]) -> dict[str, Any]:
    """The ``REOPENED_OVER`` fields of a history entry (``closed_interval``): one that kept
    them (every memory has a ``change``) lacks a field only where it was null; one written
    before entries kept them has none of them."""
    kept = {key: entry[key] for key in REOPENED_OVER if key in entry}
    return {**dict.fromkeys(REOPENED_OVER), **kept} if "change" in entry else kept


def past_intervals(old: dict[str, Any] | None, kept: tuple[str, ...] = ()) -> list[dict[str, Any]]:
    """The history of a stored point (``old``, its payload; None: none) written again:
    its past intervals, and the one it just had if it is closed (``closed_interval``)."""
    past = list(old.get("history") or []) if old else []
    return [*past, closed_interval(old, kept)] if old and old.get("deprecated") else past


def live_memory(point: StoredPoint, *, redacted: bool = False) -> LiveMemory:
    """The planning form of a stored memory. Its file's fields (path, kind, language,
    blob) are interned: a store hands each point its own copies, and a sync holds the
    memories of every path it plans together (a mass move's, a part's): the generated
    repository's 30k memories took 842 bytes each, 585 with those shared."""
    p = point.payload
    return LiveMemory(
        id=point.id,
        path=_interned(p["path"]),
        kind=_interned(p["kind"]),
        qualname=p["qualname"],
        content_hash=p["content_hash"],
        lineage=p["lineage"],
        start_line=int(p["start_line"]),
        end_line=int(p["end_line"]),
        blob=_interned(p.get("blob")),
        language=_interned(p.get("language")),
        signature=p.get("signature"),
        docstring=p.get("docstring"),
        # a signature stored redacted cannot be compared with the one read now: written
        # again whole, as a new version's is
        redacted=redacted or holds_redaction(p.get("signature")),
    )


def _interned(value: Any) -> Any:
    return sys.intern(value) if type(value) is str else value


def checkpoint_id(scope: Scope) -> str:
    return str(uuid.uuid5(CHECKPOINT_NAMESPACE, f"{scope.repo}\x00{scope.branch}"))


def checkpoint_point(
    scope: Scope,
    *,
    commit: str | None,
    pending: str | None,
    extraction: int | None = EXTRACTION_VERSION,
    history_owed: bool = False,
    sync_stamp: int | None = None,
    shallow: str | None = "",
    attributes: str | None = None,
    pending_after: int | None = None,
    provenance: int | None = PROVENANCE_VERSION,
    history_asks: int = 0,
) -> StoredPoint:
    """``extraction``: the EXTRACTION_VERSION the memories of ``commit`` were made with
    (a pending marker or a trust update keeps the one it found). ``history_owed``: the
    task memories of ``commit``'s history are still to be backfilled (ingest/tasks.py).
    ``sync_stamp``: the last sync's (``next_stamp``). ``shallow``: the clone's shallow
    boundaries the sync saw (``GitRepository.shallow_state``; "" for a complete clone,
    None while a sync is under way). ``attributes``: the attribute files beside the tree
    the memories were read under (``gitattributes.beside_state``; None: not known).
    ``pending_after``: with ``pending``, the stamp of the last sync of the branch that
    ended (0: none did); what the syncs killed since wrote carries a later stamp
    (``recovery.before_interrupted``). None: a marker of an earlier release.
    ``provenance``: the PROVENANCE_VERSION that read the history of ``commit`` (kept while
    it is read again). ``history_asks``: see ``history.read_history``."""
    payload = {
        "record": "checkpoint",
        "repo": scope.repo,
        "branch": scope.branch,
        "commit": commit,
        "pending": pending,
        "extraction": extraction,
        "history_owed": int(history_owed),
        "untrusted": int(scope.untrusted),
        "sync_stamp": sync_stamp,
        "shallow": shallow,
        "attributes": attributes,
        "pending_after": pending_after,
        "provenance": provenance,
        "history_asks": history_asks,
        "updated_at": int(time.time()),
    }
    return StoredPoint(id=checkpoint_id(scope), payload=payload, vector=None)


def stored_checkpoint(store: Store, scope: Scope) -> dict[str, Any]:
    """The payload of ``scope``'s checkpoint, or {} when the branch was never synced."""
    found = store.retrieve([checkpoint_id(scope)])
    return found[0].payload if found else {}


def live_filter(scope: Scope, **conditions: Any) -> MemoryFilter:
    """Live memories of a repo/branch that the planner manages (not task memories)."""
    return MemoryFilter(repo=scope.repo, branch=scope.branch, types=PLANNED_TYPES, deprecated=0, **conditions)
