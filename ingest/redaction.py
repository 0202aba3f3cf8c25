"""No secret is embedded or stored: every memory draft is redacted on its way to a point.

``writer.vectorise`` calls ``redact_drafts`` first (and a closed memory reopened by a
state update has its new fields go through ``redact_payload``), so the embedded text, the keyword
(sparse) vector's material, every string of the payload (text, signature, docstring,
names, commit messages, nested lists and dicts) and the embedding cache (keyed by the
hash of the *redacted* text) only ever see ``[REDACTED:<kind>]``. A memory's secrets
are logged, never a value: in a sync (``counting_redactions``, which counts them) one
warning per file (how many, their kinds, repo, path, how many memories, and where the
first ``LOGGED_PLACES`` are: qualified name, field and line), else one per memory.

``content_hash`` (sha256 of a symbol's raw source) and ``blob`` (git's id of the file)
are left as they are: a digest of a whole symbol or file reveals nothing of a secret in
it; confirming a guess would take the exact remaining source, which only someone who
can read the repository has — and they can read the secret too. Those fields, and the
others recalld derives itself (point ids, commit ids: ``DERIVED_FIELDS``), are not
scanned either: they hold no text of the repository.

Two strings of a memory are known clean without a scan of their own. A string found
inside the memory's text once that text is found clean (a name, a qualified name, a
signature, a docstring: ~93k of the ~143k payload strings a Django index scanned): each
rule finds in a part of a text what it finds in the whole, but for a token cut off by
the part's own end, which the stored text shows whole anyway. And ``symbol_key``, when
it is exactly what ``plan.symbol_key`` makes of the memory's repo, branch, path, kind and
qualified name and each of them was found clean: a scan of the key could only find what
their joins make (``12345678:`` and a 35-character name look like a Telegram token).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from recalld.daemon.logs import get_logger
from recalld.ingest.plan import Scope, symbol_key
from recalld.ingest.secrets import KNOWN_CLEAN, MARKER_PREFIX, line_of, redact

if TYPE_CHECKING:
    from recalld.ingest.writer import MemoryDraft

log = get_logger("recalld.secrets")

# Payload keys whose values recalld derives: hex digests, uuids, commit ids. A sync would
# scan each once per memory (a tenth of its scanning time) to find nothing.
DERIVED_FIELDS = frozenset({
    "content_hash", "blob", "lineage", "task_id", "superseded_by", "symbol_ids",
    "commit", "parents", "valid_from_commit", "valid_to_commit", "valid_through_commit",
})  # fmt: skip
# The payload fields plan.symbol_key is made of, in the order of its arguments.
KEY_PARTS = ("repo", "branch", "path", "kind", "qualname")
# Where a memory's secrets are (field:line), listed in its one warning up to this many.
LOGGED_PLACES = 20


@dataclass(slots=True)
class RedactionTally:
    """Secrets redacted while it is open (a sync): distinct secrets per memory, summed.

    It also keeps the texts ``redacted_text`` found clean, which their drafts bring again
    later in the sync: a second scan would find nothing new. They are the very strings the
    embedding thread holds, and go with the sync."""

    count: int = 0
    clean_texts: set[str] = field(default_factory=set)
    files: dict[tuple[Any, Any, str], _FileSecrets] = field(default_factory=dict)  # logged when it closes


@dataclass(slots=True)
class _FileSecrets:
    """The secrets a sync redacted in one file's memories, for its one warning."""

    secrets: int = 0
    kinds: set[str] = field(default_factory=set)
    memories: int = 0
    places: list[str] = field(default_factory=list)  # "<qualname> <field>:<line>"


_TALLY: ContextVar[RedactionTally | None] = ContextVar("recalld_redactions", default=None)


@contextmanager
def counting_redactions() -> Iterator[RedactionTally]:
    """Count the redactions made in this context (a sync runs in one thread)."""
    tally = RedactionTally()
    token = _TALLY.set(tally)
    try:
        yield tally
    finally:
        _TALLY.reset(token)
        for (repo, branch, path), found in tally.files.items():
            _warn(found.secrets, found.kinds, found.places, repo=repo, branch=branch, path=path,
                  memories=found.memories)  # fmt: skip


@dataclass(frozen=True, slots=True)
class Detection:
    kind: str
    field: str  # "text", or the payload key path where it was first seen ("docstring", "files[2]")
    line: int  # 1-based, within that field


@dataclass(slots=True)
class _MemoryScan:
    """Redacts every string of one memory; remembers each distinct secret once."""

    clean: set[str] | frozenset[str]  # strings this sync already found clean
    seen: dict[str, Detection] = field(default_factory=dict)  # secret value -> first sighting
    done: dict[str, str] = field(default_factory=dict)  # string -> its redacted form
    inside: str = ""  # the memory's text, once found clean: what it holds is clean too

    def string(self, value: str, where: str) -> str:
        if value in self.clean or value in KNOWN_CLEAN or value in self.inside:
            return value
        known = self.done.get(value)
        if known is not None:
            return known
        redacted, findings = redact(value)
        for finding in findings:
            secret = value[finding.start : finding.end]
            self.seen.setdefault(secret, Detection(finding.kind, where, line_of(value, finding)))
        self.done[value] = redacted
        return redacted

    def value(self, value: Any, where: str) -> Any:
        kind = type(value)
        if kind is str:
            return self.string(value, where)
        if kind is int or value is None:  # most of a payload that is not text
            return value
        if isinstance(value, str):
            return self.string(value, where)
        if isinstance(value, dict):
            return self.fields(value, where)
        if isinstance(value, (list, tuple)):
            return type(value)(self.value(v, f"{where}[{i}]") for i, v in enumerate(value))
        return value

    def fields(self, payload: dict[Any, Any], where: str) -> dict[Any, Any]:
        """A dict's values redacted. Strings, ints and None (a payload's ~30 fields are
        nearly all of them) are handled in the loop: a call per field, and the name of
        its place made for each, took a third of redacting a memory."""
        out: dict[Any, Any] = {}
        for key, value in payload.items():
            kind = type(value)
            if kind is int or value is None or key in DERIVED_FIELDS:
                out[key] = value
            elif kind is str and (value in self.clean or value in KNOWN_CLEAN or value in self.inside):
                out[key] = value
            elif key == "symbol_key" and value == _clean_key(payload, out):
                out[key] = value
            else:
                out[key] = self.value(value, f"{where}.{key}" if where else str(key))
        return out


def _clean_key(payload: dict[Any, Any], out: dict[Any, Any]) -> str | None:
    """``plan.symbol_key`` of the payload's fields when the scan has kept each of them as
    it was (found clean); else None."""
    parts: list[str] = []
    for name in KEY_PARTS:
        part = out.get(name)
        if part is not payload.get(name) or not isinstance(part, str):
            return None
        parts.append(part)
    repo, branch, path, kind, qualname = parts
    return symbol_key(Scope(repo, branch), path, kind, qualname)


def holds_redaction(value: Any) -> bool:
    """Whether a stored payload (or any value in it) holds a redaction marker in a string."""
    if isinstance(value, str):
        return MARKER_PREFIX in value
    if isinstance(value, dict):
        return any(holds_redaction(item) for item in value.values())
    if isinstance(value, (list, tuple)):
        return any(holds_redaction(item) for item in value)
    return False


def redacted_text(text: str) -> str:
    """What ``vectorise`` embeds for ``text``: for work done ahead of it (embedding texts
    while a sync still parses), so that ahead, too, only the redacted text is embedded."""
    tally = _TALLY.get()
    if tally is not None and text in tally.clean_texts:
        return text
    redacted, findings = redact(text)
    if tally is not None and not findings:
        tally.clean_texts.add(text)
    return redacted


def redact_drafts(drafts: Sequence[MemoryDraft]) -> list[MemoryDraft]:
    """``drafts`` with every secret in their texts and payloads replaced by a marker."""
    return [redact_draft(draft) for draft in drafts]


def redact_draft(draft: MemoryDraft) -> MemoryDraft:
    scan = _scan()
    text = scan.string(draft.text, "text")
    if text is draft.text:  # clean
        scan.inside = text
    keywords = scan.string(draft.keywords, "keywords") if draft.keywords else draft.keywords
    payload = scan.value(draft.payload, "")
    if not scan.seen:
        return draft
    _report(draft.id, draft.payload, list(scan.seen.values()))
    return replace(draft, text=text, payload=payload, keywords=keywords)


def redact_payload(
    memory_id: str, payload: dict[str, Any], *, context: dict[str, Any], text: Callable[[], str] | None = None
) -> dict[str, Any]:
    """``payload`` (fields written to a stored memory without a draft: a reopened one's
    state) with every secret in its strings replaced; ``context`` names the memory in
    the log (repo, branch, path). ``text``: the memory's text, made only when a field
    alone looks like it holds a secret: where that text is clean, what it holds is, as
    ``redact_draft`` judges a new memory's fields (a signature ending in what looks like a
    token cut short was redacted when a reset reopened its memory, and kept whole in a
    fresh index of the same commit)."""
    redacted, scan = _judged(payload, text)
    if not scan.seen:
        return payload
    _report(memory_id, {**context, **payload}, list(scan.seen.values()))
    return dict(redacted)


def redacted_fields(payload: dict[str, Any], *, text: Callable[[], str] | None = None) -> dict[str, Any]:
    """``payload`` as ``redact_payload`` would write it, nothing logged: for fields read
    again as they were at an older commit (``daemon.asof``), which a sync stored so."""
    redacted, scan = _judged(payload, text)
    return dict(redacted) if scan.seen else payload


def _judged(payload: dict[str, Any], text: Callable[[], str] | None) -> tuple[Any, _MemoryScan]:
    scan = _scan()
    redacted = scan.value(payload, "")
    if scan.seen and text is not None and not redact(whole := text())[1]:
        scan = _scan()
        scan.inside = whole
        redacted = scan.value(payload, "")
    return redacted, scan


def _scan() -> _MemoryScan:
    tally = _TALLY.get()
    return _MemoryScan(tally.clean_texts if tally is not None else frozenset())


def _report(memory_id: str, payload: dict[str, Any], detections: list[Detection]) -> None:
    """Logged once per file in a sync (``counting_redactions``), else once per memory: a
    generated or test file may hold hundreds of secrets (a certificate's lines, a table of
    keys; SQLAlchemy's sample database URLs gave 1,306 warnings, one per memory)."""
    tally = _TALLY.get()
    if tally is not None:
        tally.count += len(detections)
    path = payload.get("path")
    if tally is None or not isinstance(path, str):  # no sync, or no file (a commit's task memory)
        _warn(len(detections), {d.kind for d in detections}, [f"{d.field}:{d.line}" for d in detections],
              repo=payload.get("repo"), branch=payload.get("branch"), path=path, start_line=payload.get("start_line"),
              memory=memory_id)  # fmt: skip
        return
    found = tally.files.setdefault((payload.get("repo"), payload.get("branch"), path), _FileSecrets())
    found.secrets += len(detections)
    found.kinds.update(d.kind for d in detections)
    found.memories += 1
    name = payload.get("qualname") or memory_id
    found.places.extend(f"{name} {d.field}:{d.line}" for d in detections[: max(0, LOGGED_PLACES - len(found.places))])


def _warn(secrets: int, kinds: set[str], places: list[str], **where: Any) -> None:
    log.warning(
        "secret redacted",
        secrets=secrets,
        kinds=sorted(kinds),
        **where,
        at=places[:LOGGED_PLACES],
        **({"more": secrets - LOGGED_PLACES} if secrets > LOGGED_PLACES else {}),
    )
