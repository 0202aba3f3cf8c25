"""Manual memories: what git cannot know, remembered by hand (``recalld remember``).

Scope: ``repo`` (a registered repository), ``user`` and ``org``; at least one is given and
every given one is recorded. The id is uuid5 of the scope and the whitespace-normalised
text, so remembering the same thing twice is the same point. Forgetting closes the point
(``deprecated = 1``, reason ``forgotten``) rather than deleting it: as-of search and export
keep what was known when, retention pruning removes it like any closed memory, and
remembering it again reopens it with the earlier interval in ``history``.
"""

from __future__ import annotations

import getpass
import hashlib
import re
import time
import uuid
from dataclasses import dataclass
from typing import Any

from recalld.daemon.terminal import is_name
from recalld.ingest.errors import RecalldError

MANUAL_KIND = "manual"
MANUAL_TYPES = ("note", "decision", "preference")
MAX_TEXT = 8000
MAX_NAME = 255  # characters of a repo, user, org or author: a directory's name (a repo's by default) fits
FORGOTTEN = "forgotten"
MANUAL_NAMESPACE = uuid.UUID("6f2d1c4e-3b7a-4e58-9a1f-2c8d5e7b9a30")
# C0 and C1 but a tab and a line end (\n, or \r\n: stored as \n), and DEL
TEXT_CONTROL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]|\r(?!\n)")


@dataclass(frozen=True, slots=True)
class ManualMemory:
    """A request to remember ``text`` in a scope; ``author`` is who asked."""

    text: str
    type: str = "note"
    repo: str | None = None
    user: str | None = None
    org: str | None = None
    author: str | None = None

    def __post_init__(self) -> None:
        """Malformed requests are usage errors (CLI exit 2, HTTP 400)."""
        if not normalise(self.text):
            raise RecalldError("nothing to remember: the text is empty", exit_code=2)
        if len(self.text) > MAX_TEXT:
            raise RecalldError(f"a memory is at most {MAX_TEXT} characters (this one has {len(self.text)})",
                               exit_code=2)  # fmt: skip
        check_text(self.text)
        if self.type not in MANUAL_TYPES:
            raise RecalldError(f"unknown memory type {self.type!r}: use one of {', '.join(MANUAL_TYPES)}", exit_code=2)
        for field, name in (("repo", self.repo), ("user", self.user), ("org", self.org), ("author", self.author)):
            if name is not None and len(name) > MAX_NAME:  # told by its length: the name is not echoed
                raise RecalldError(f"a memory's {field} is at most {MAX_NAME} characters (this one has {len(name)})",
                                   exit_code=2)  # fmt: skip
            if name is not None and not is_name(name):  # shown on every line that lists the memory
                raise RecalldError(f"{name!r} cannot name a memory's {field}: a name is printable, not blank",
                                   exit_code=2)  # fmt: skip
        if not (self.repo or self.user or self.org):
            raise RecalldError(
                "give a scope: a repo, a user or an org (--repo NAME, --user NAME or --org NAME; in the API"
                " the fields repo, user or org)",
                exit_code=2,
            )

    @property
    def scope(self) -> str:
        """The narrowest scope given: user, else repo, else org."""
        return "user" if self.user else "repo" if self.repo else "org"


def check_text(text: str) -> None:
    """Refuse a memory's text that holds a control character but tabs and line ends (NUL,
    an escape sequence's ESC, a carriage return alone, which hides a line's start; a
    Windows client's ``\\r\\n`` line ends are line ends, stored as ``\\n``), saying which
    and where: refused, not stripped, so what is remembered is what was sent. Every way in
    (the API, the CLI, the MCP tool through the API) builds a ``ManualMemory``, which checks."""
    found = TEXT_CONTROL.search(text)
    if found is None:
        return
    char, at = found.group(), found.start()
    line, column = text.count("\n", 0, at) + 1, at - text.rfind("\n", 0, at)
    crlf = " (a line ends with \\n or \\r\\n, not \\r alone)" if char == "\r" else ""
    raise RecalldError(f"text holds the control character {char!r} (U+{ord(char):04X}) at character {at + 1} (line"
                       f" {line}, column {column}): a memory's text may hold line ends and tabs, no other control"
                       f" character{crlf}", exit_code=2)  # fmt: skip


def normalise(text: str) -> str:
    return " ".join(text.split())


def manual_id(memory: ManualMemory) -> str:
    key = "\x00".join((memory.org or "", memory.repo or "", memory.user or "", normalise(memory.text)))
    return str(uuid.uuid5(MANUAL_NAMESPACE, key))


def manual_payload(memory: ManualMemory, point_id: str, history: list[dict[str, Any]]) -> dict[str, Any]:
    text = memory.text.replace("\r\n", "\n").strip()
    now = int(time.time())
    return {
        "record": "memory",
        "type": memory.type,
        "kind": MANUAL_KIND,
        "scope": memory.scope,
        "repo": memory.repo,
        "user": memory.user,
        "org": memory.org,
        "branch": None,
        "path": None,
        "qualname": None,
        "name": None,
        "text": text,
        "content_hash": hashlib.sha256(normalise(text).encode("utf-8")).hexdigest(),
        "lineage": point_id,
        "valid_from_commit": None,
        "valid_from_time": now,
        "valid_to_commit": None,
        "valid_to_time": 0,
        "author": memory.author,
        "deprecated": 0,
        "deprecated_reason": None,
        "superseded_by": None,
        "untrusted": 0,
        "history": history,
        "indexed_at": now,
    }


def forgotten_payload() -> dict[str, Any]:
    return {"deprecated": 1, "deprecated_reason": FORGOTTEN, "valid_to_time": int(time.time())}


def default_author() -> str | None:
    """Who is asking: the login name of this process, or None when it has none that
    names anyone (``$LOGNAME`` with a control character in it)."""
    try:
        login = getpass.getuser()
    except (OSError, KeyError):
        return None
    return login if is_name(login) else None
