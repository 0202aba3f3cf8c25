"""The daemon's answers made compact for a model's context, as the MCP tools give them, and
its errors in the tools' words (``for_agents``).

The HTTP API answers with every field of a memory, for programs; an agent reads each
answer into its context, where most of those fields are noise. A search for "where are HTTP
retries configured" in requests was 83 KB (151 KB on the wire with the structured copy):
each result carried its content hash, symbol key, times and empty fields, its docstring
a second time beside the text that holds it, and a commit's memory the ids of every symbol
it touched (542 in one). Here, in every memory and change an answer holds:

- a field that is empty (None, "", [], {}) or a flag that is off (``deprecated: false``) is
  left out: a field missing is empty;
- the fields a program uses to match memories (``LEFT_OUT``) are left out;
- a docstring the text holds is given once, in the text;
- a commit's memory lists at most ``SYMBOLS_LISTED`` of the symbols it touched, file by
  file, with how many more there are (``symbols_more``), and leaves out its text (its
  subject, body, files and symbols, which are given as fields);
- in a change, a version's ``written_in`` is left out where it is the version's commit.

An answer's own fields (``truncated``, ``changes``, ``notes``) are kept as they are, empty or not.
"""

from __future__ import annotations

import re
import shlex
from typing import Any

# Fields for matching memories up in a program, not for reading: ``recalld export`` and
# the HTTP API give them. ``name`` is the qualname's last part, the times are the commits'.
LEFT_OUT = frozenset({"content_hash", "symbol_key", "symbol_ids", "name", "valid_from_time", "valid_to_time"})
SYMBOLS_LISTED = 40  # a commit memory's symbols listed (qualnames, over its files)
TASK = "task"
# A CLI command an error names as the way to ask (``went.where_symbol_went``'s hint), as this
# server's tool takes it: ``recalld symbol one --repo r --path src/a.py``.
_SYMBOL_HINT = re.compile(r"recalld symbol (.+?) --repo (.+?) --path (.+?)(?=\)|$)")


def compact_answer(answer: Any) -> Any:
    """``answer`` with each memory and change in it made compact; its own fields as they are."""
    if isinstance(answer, dict):
        return {key: _compact_all(value) for key, value in answer.items()}
    return _compact_all(answer)


def _compact_all(value: Any) -> Any:
    if isinstance(value, list):
        return [compact(item) if isinstance(item, dict) else _compact_all(item) for item in value]
    if isinstance(value, dict):
        return compact(value)
    return value


def compact(record: dict[str, Any]) -> dict[str, Any]:
    """One memory, change or file of an answer, made compact (the module's rules)."""
    kept: dict[str, Any] = {}
    for key, value in record.items():
        if key in LEFT_OUT or _empty(value):
            continue
        kept[key] = compact(value) if isinstance(value, dict) else _compact_all(value)
    text = kept.get("text")
    if isinstance(text, str) and kept.get("docstring") and kept["docstring"] in text:
        del kept["docstring"]
    if kept.get("type") == TASK:
        kept.pop("text", None)
        _cap_symbols(kept)
    if kept.get("written_in") is not None and kept.get("written_in") == kept.get("commit"):
        del kept["written_in"]
    return kept


def _empty(value: Any) -> bool:
    return value is None or value is False or (isinstance(value, str | list | dict) and not value)


def _cap_symbols(task: dict[str, Any]) -> None:
    """A commit memory's symbols cut to ``SYMBOLS_LISTED`` qualnames, in its files' order."""
    listed, left, more = 0, [], 0
    for entry in task.get("symbols") or ():
        kept_entry: dict[str, Any] = {}
        for change, names in entry.items():
            if not isinstance(names, list):
                kept_entry[change] = names
                continue
            room = max(0, SYMBOLS_LISTED - listed)
            if names[:room]:
                kept_entry[change] = names[:room]
            listed += len(names[:room])
            more += len(names) - len(names[:room])
        if any(isinstance(names, list) for names in kept_entry.values()):
            left.append(kept_entry)
    if "symbols" in task:
        task["symbols"] = left
    if more:
        task["symbols_more"] = more


def for_agents(message: str) -> str:
    """An error's words for an agent of this server: a ``recalld symbol`` command it names
    as the way to ask is the get_symbol call (``get_symbol qualname='one' repo='r'
    path='src/a.py'``)."""

    def call(found: re.Match[str]) -> str:
        try:
            qualname, repo, path = (" ".join(shlex.split(part)) for part in found.groups())
        except ValueError:  # quoting the CLI's hint did not close: said as it is
            return found.group(0)
        return f"get_symbol qualname={qualname!r} repo={repo!r} path={path!r}"

    return _SYMBOL_HINT.sub(call, message)
