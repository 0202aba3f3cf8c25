"""Technical-debt comments: TODO / FIXME / HACK / XXX, one entry per marker.

Works on plain comment data (lines, column, text) and the byte spans of the file's
symbols, so it knows nothing of any grammar: the query files capture ``@comment``.
A marker counts when it is an upper-case word that starts a comment line, or is
followed by ``:`` (optionally after an owner in parentheses) — never inside a word
(``TODOS``, ``mastodon``) and never in a string literal (those are not comments).
"""

from __future__ import annotations

import hashlib
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from recalld.parsers.base import Symbol, derived_entry

MARKERS = ("TODO", "FIXME", "HACK", "XXX")
MARKER_BYTES = re.compile(rb"\b(?:TODO|FIXME|HACK|XXX)\b")
_LEADING = re.compile(r"^@?(TODO|FIXME|HACK|XXX)\b(?![-'/.\w])")
_INLINE = re.compile(r"(?<![\w@$-])(TODO|FIXME|HACK|XXX)(?:\([^)]*\))?:")
_COMMENT_MARKERS = ("///", "//!", "//", "/**", "/*!", "/*", "#")
_LUA_MARKERS = ("---", "--")  # in a comment that opens with one: ``--`` is text in C's ``/* … */``
_LUA_BLOCK_OPEN, _LUA_BLOCK_CLOSE = re.compile(r"--\[(=*)\["), re.compile(r"(?:--)?\](=*)\]$")
# A second or third ``#`` after a line's ``#``, then a space or nothing: the comment's mark
# doubled, no text (RDoc's ``##``, Psych's ``###``; not ``####``, a rule; not ``#{name}``).
_DOUBLED_HASH = re.compile(r"#{1,2}(?=[ \t]|$)")
_LINE_MARKERS = frozenset({"///", "//!", "//", "#", *_LUA_MARKERS})
MAX_CONTINUATION = 8
HASH_CHARS = 10


@dataclass(frozen=True, slots=True)
class Comment:
    start_byte: int
    line: int  # 1-based line of the comment's first character
    column: int
    text: str
    trailing: bool  # code precedes it on its first line


@dataclass(frozen=True, slots=True)
class Span:
    start_byte: int
    end_byte: int
    qualname: str


# Perl's POD: a command opens a paragraph (``=head2 run``, ``=item``, ``=cut``); formatting
# codes wrap text in ``X<…>`` or ``X<< … >>``.
POD_COMMAND = re.compile(r"^=([a-z]+\d?)\b[ \t]*")
POD_TITLES = frozenset({"head2", "head3", "head4", "item"})
POD_CODE = re.compile(r"[A-Z](?:<<+\s(.*?)\s>>+|<([^<>]*)>)")
POD_NESTING = 3
RUBY_BLOCK = "=begin\n"  # Ruby's block comment, ``=begin`` … ``=end``: no POD (whose ``=begin`` names a format)


_CLOSE_ALONE = re.compile(r"\*+/")  # a block's close on a line of its own: `` */``, `` **/``


def clean_comment_line(raw: str, *, lua: bool = False, indented: bool = False, within: bool = False) -> str:
    """A comment line without its comment punctuation; ``lua``: of a comment that opens
    with Lua's ``--``; ``indented``: with the indentation its text has after the space
    that follows the punctuation (``///     let x = 1;``: ``    let x = 1;``); ``within``:
    a line of a ``/* … */`` block after its first, whose ``#`` or ``//`` is its text (a
    Rust doc's ``# Safety`` heading, a C example's ``#define``), only its margin punctuation."""
    line = raw.strip()
    if lua and (opened := _LUA_BLOCK_OPEN.match(line)):  # ``--[[``, ``--[==[``
        marker, line = opened.group(), line[opened.end() :]
    else:
        opened = None
        markers = () if within else _LUA_MARKERS + _COMMENT_MARKERS if lua else _COMMENT_MARKERS
        marker = next((m for m in markers if line.startswith(m)), "")
        line = line[len(marker) :]
        if marker == "#" and (doubled := _DOUBLED_HASH.match(line)):  # Rack's ``## * +gets+ …``
            line = line[doubled.end() :]
    # Lua's ``]]`` (``]==]``) on its block's first line or a line of its own (``]]``,
    # ``--]]``), not text's (``-- see t[1][2]``)
    closed = _LUA_BLOCK_CLOSE.search(line) if lua and "]" in line else None
    if closed is not None and (opened or closed.start() == 0):
        line = line[: closed.start()]
    line = (line if marker in _LINE_MARKERS else _unclosed(line)).rstrip()  # ``/// x = 1; /* one */``
    # A block comment's margin (`` *<p>``), not a line comment's own text (``/// **NOTE:**``,
    # ``// *** WARNING ***``); on its first line, all the stars that open it before its text, as
    # javac reads ``/****** Color support ******/`` (``Color support``, not ``*** Color support``).
    if line.lstrip().startswith("*") and marker not in _LINE_MARKERS:
        line = line.lstrip().lstrip("*") if marker and line.strip("* \t") else line.lstrip()[1:]
    if not indented:
        return line.strip()
    return line[1:] if line.startswith(" ") else line


def _unclosed(line: str) -> str:
    """A block comment's line without its ``*/``, and the stars that lead up to it (``/**
    Validates. **/``: ``Validates.``, not ``Validates. *``)."""
    return line[:-2].rstrip("*") if line.endswith("*/") else line


def dedented(lines: list[str]) -> list[str]:
    """``lines`` without the indentation all of them that hold text share (a block comment
    written ``/**`` then ``  *   text``), blank ones blank."""
    shared = _shared_indent(lines)
    return [line[shared:] if line.strip() else "" for line in lines]


def _shared_indent(lines: Iterable[str]) -> int:
    """The indentation all of ``lines`` that hold text share, in characters."""
    return min((len(line) - len(line.lstrip()) for line in lines if line.strip()), default=0)


def find_marker(line: str) -> tuple[str, int] | None:
    """(marker, offset) of the debt marker a cleaned comment line carries, if any."""
    found = _LEADING.match(line) or _INLINE.search(line)
    return (found.group(1), found.start(1)) if found else None


def without_leading_notes(doc: str, name: str = "") -> str:
    """A doc without the debt notes it opens with, each with its continuation lines as a
    debt entry takes them (guava's ``// TODO(fry): …`` above a method, 139 of its 15,367
    docs, was the method's doc; its debt memory holds it). What follows them is the doc,
    as is a line that opens with the definition's ``name`` (Go's ``// TODO(bep) replace
    … / // IsNumber returns whether …``)."""
    lines = written = doc.splitlines()
    while lines and _LEADING.match(lines[0]) and not (name and lines[0].startswith(name)):
        end = 1
        while end < len(lines) and lines[end] and not find_marker(lines[end]) and end <= MAX_CONTINUATION:
            if name and lines[end].startswith(name):
                break
            end += 1
        lines = lines[end:]
        while lines and not lines[0].strip():
            lines.pop(0)
    return doc if lines is written else "\n".join(lines)


def debt_entries(language: str, comments: Sequence[Comment], spans: Sequence[Span]) -> tuple[Symbol, ...]:
    """One entry per marker, in source order."""
    lines = [_comment_lines(c) for c in comments]
    entries: list[Symbol] = []
    seen: Counter[str] = Counter()
    for index, comment in enumerate(comments):
        for offset, line in enumerate(lines[index]):
            hit = find_marker(line)
            if hit is None:
                continue
            body = [line[hit[1] :], *_continuation(comments, lines, index, offset)]
            enclosing = _enclosing(spans, comment.start_byte)
            start = comment.line + offset
            entries.append(_entry(language, hit[0].lower(), body, enclosing, start, seen))
    return tuple(entries)


def clean_comment_lines(text: str, *, indented: bool = False, whole_margin: bool = False) -> list[str]:
    """A comment's lines without their punctuation, Lua's where it opens with ``--``; Perl's
    POD (``=item run(COUNT)`` … ``=cut``) as its text (``pod_lines``). ``indented`` (a doc's):
    each with its text's indentation (``clean_comment_line``), and a block's ``#`` and ``//``
    after its first line its text. ``whole_margin`` (rustdoc's reading): a block's `` * ``
    margin is one only where all its lines have it, else a line's ``*`` is its text (a
    Markdown list's ``* item``, ``**NOTE:**`` in memchr's ``/*!`` doc)."""
    if POD_COMMAND.match(text) and not text.startswith(RUBY_BLOCK):
        return pod_lines(text)
    lua = text.startswith("--")
    lines = text.splitlines()
    if not (indented and lines and text.lstrip().startswith("/*")):  # a debt note's lines as they always were
        return [clean_comment_line(raw, lua=lua, indented=indented) for raw in lines]
    # A block's lines after its first: those of no margin (`` * ``) keep their indentation
    # less what they share (Go's ``/*`` package doc: ``\tif err != nil {`` in an example)
    margined = not whole_margin or _margin_everywhere(lines[1:])
    marked = [margined and raw.lstrip().startswith("*") for raw in lines[1:]]
    shared = _shared_indent(raw for raw, mark in zip(lines[1:], marked, strict=True) if not mark)
    return [clean_comment_line(lines[0], indented=True)] + [
        clean_comment_line(raw, indented=True, within=True) if mark else _unclosed(raw[shared:].rstrip()).rstrip()
        for raw, mark in zip(lines[1:], marked, strict=True)
    ]  # fmt: skip


def _margin_everywhere(lines: list[str]) -> bool:
    """Whether each of a block's ``lines`` (after its first, but the blank ones at its ends
    and a close alone, `` */``) opens with a ``*`` at one column, as rustdoc asks of a margin."""
    body = list(lines)
    if body and _CLOSE_ALONE.fullmatch(body[-1].strip()):
        body.pop()
    while body and not body[-1].strip():
        body.pop()
    while body and not body[0].strip():
        body.pop(0)
    columns = {len(raw) - len(raw.lstrip(" \t")) for raw in body}
    return all(raw.lstrip(" \t").startswith("*") for raw in body) and len(columns) <= 1


def pod_lines(text: str) -> list[str]:
    """POD's lines as they read: a heading's or an item's title (``=head2 run``, ``=item
    run(COUNT)``) a line of text, its other commands (``=cut``, ``=over``) none, a
    formatting code its text (``C<fast>``, ``B<< $x >>``, ``L<the guide|Guide>``: ``fast``,
    ``$x``, ``the guide``)."""
    lines: list[str] = []
    for raw in text.splitlines():
        command = POD_COMMAND.match(raw)
        if command is not None:
            if command.group(1) not in POD_TITLES:
                continue
            raw = raw[command.end() :]
        for _depth in range(POD_NESTING):  # the innermost first: ``C<L<Git>>``
            raw, found = POD_CODE.subn(_pod_code_text, raw)
            if not found:
                break
        lines.append(raw.rstrip())
    return lines


def _pod_code_text(code: re.Match[str]) -> str:
    """A formatting code's text: ``C<fast>``'s ``fast``, ``L<the guide|Guide>``'s ``the
    guide``, an empty one's nothing (``C<< >>``, ``E<>``)."""
    inner = code.group(1) if code.group(1) is not None else code.group(2)
    return (inner or "").split("|", 1)[0].strip()


def _comment_lines(comment: Comment) -> list[str]:
    return clean_comment_lines(comment.text) or [""]


def _continuation(comments: Sequence[Comment], lines: list[list[str]], index: int, offset: int) -> list[str]:
    """The lines after a marker that continue its note: the rest of a block comment,
    or the line comments right below it at the same column."""
    out: list[str] = []
    for line in lines[index][offset + 1 :]:
        if not line or find_marker(line) or len(out) == MAX_CONTINUATION:
            return out
        out.append(line)
    if len(lines[index]) > 1:
        return out
    comment, follow = comments[index], index + 1
    expected_line = comment.line + 1
    while follow < len(comments) and len(out) < MAX_CONTINUATION:
        nxt = comments[follow]
        text = lines[follow]
        if nxt.line != expected_line or nxt.column != comment.column or nxt.trailing or len(text) != 1:
            break
        if not text[0] or find_marker(text[0]):
            break
        out.append(text[0])
        expected_line += 1
        follow += 1
    return out


def _enclosing(spans: Sequence[Span], at: int) -> str:
    inside = [s for s in spans if s.start_byte <= at < s.end_byte]
    if not inside:
        return ""
    return min(inside, key=lambda s: s.end_byte - s.start_byte).qualname


def _entry(language: str, kind: str, body: list[str], enclosing: str, start: int, seen: Counter[str]) -> Symbol:
    note = " ".join(" ".join(body).split())
    digest = hashlib.sha256(note.encode("utf-8", "surrogatepass")).hexdigest()[:HASH_CHARS]
    qualname = f"{enclosing or '<module>'}:{kind}:{digest}"
    seen[qualname] += 1
    if seen[qualname] > 1:
        qualname = f"{qualname}#{seen[qualname]}"
    where = f"in {enclosing}" if enclosing else "at module level"
    text = f"{note} [{language} {kind}, {where}]"
    return derived_entry(
        kind,
        qualname,
        text,
        lines=(start, start + len(body) - 1),
        extra=(("enclosing", enclosing), ("marker", kind.upper())),
        name=qualname.rsplit(".", 1)[-1],
        docstring=note,
    )
