"""How git's bytes become text here: a tree entry's name, a path in a diff, a commit's
message, its subject and its author. git stores names and messages as the bytes it was
given; what is not UTF-8 is never read as a path (it could not be stored, filtered on or
logged), a message is read as well as its bytes allow, and a subject line or a name is
bounded (a commit whose first line is a pasted 3 MB log is a task memory of 6 MB)."""

from __future__ import annotations

from typing import Any

SUBJECT_CHARS = 300  # a message's first line, as a task memory's subject and name holds it
PERSON_CHARS = 300  # an author's "Name <email>"


def entry_name(entry: Any) -> str | None:
    """A tree entry's name, or None for one that no path can hold: not UTF-8, empty, with
    a NUL, ``.`` or ``..`` (a crafted tree)."""
    try:
        name = entry.name
    except UnicodeDecodeError:
        return None
    if not name or "\x00" in name or name in (".", "..") or not is_utf8(name):
        return None
    return str(name)


def is_utf8(path: str) -> bool:
    """Whether git holds ``path`` as UTF-8: pygit2 reads other bytes as surrogate escapes,
    which no payload, filter or log line can carry (a Latin-1 ``caf\\xe9.py``)."""
    try:
        path.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def shown_path(raw: bytes) -> str:
    """A path that is not UTF-8 as a skip names it: its bytes, the undecodable ones as
    ``\\xe9`` (``caf\\xe9.py``)."""
    return raw.decode("utf-8", "backslashreplace")


def message_text(commit: Any) -> str:
    """A commit's message, decoded as its encoding header says, else as UTF-8 with the
    undecodable bytes replaced."""
    try:
        return str(commit.message)
    except (UnicodeDecodeError, LookupError):
        return bytes(commit.raw_message).decode("utf-8", "replace")


def subject_of(message: str) -> str:
    """A message's first line, stripped, at most ``SUBJECT_CHARS`` (cut with an ellipsis)."""
    return _bounded(message.strip().split("\n", 1)[0].strip(), SUBJECT_CHARS)


def person(signature: Any) -> str:
    """A signature's ``Name <email>``, at most ``PERSON_CHARS``."""
    return _bounded(f"{signature.name} <{signature.email}>", PERSON_CHARS)


def _bounded(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"
