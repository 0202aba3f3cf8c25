"""Decision records and architecture notes: Markdown (and reStructuredText) split into
sections with a small line-based splitter — no Markdown library needed.

An ADR-style document is one ``adr`` entry (title, status, and a summary of its
context / decision / consequences), unless it holds several decisions: then each
top-level section is one entry. An architecture note is one ``architecture`` entry
per top-level section. Subsections stay in their section. Qualnames are the section
headings (``<document>`` for a whole document), so edits inside a section are
``modified`` and a moved document is ``renamed`` with its lineage.
"""

from __future__ import annotations

import posixpath
import re
from collections import Counter
from dataclasses import dataclass, field

from recalld.parsers.base import ParseResult, Symbol, derived_entry
from recalld.parsers.registry import LanguageSpec

_ATX = re.compile(r"^ {0,3}(#{1,6})\s+(.*?)(?:\s+#+)?\s*$")
_FENCE = re.compile(r"^ {0,3}(```|~~~)")
_UNDERLINE = re.compile(r"^([=\-~^\"'`#*+:.])\1{2,}\s*$")
_STATUS_LINE = re.compile(r"^\W*status\W*[:\-]\s*\W*([A-Za-z][\w -]*)", re.IGNORECASE)
# Section titles that are parts of one decision record, not decisions of their own.
ADR_PARTS = frozenset({
    "status", "context", "context and problem statement", "problem", "decision", "decision outcome",
    "consequences", "considered options", "options", "decision drivers", "pros and cons of the options",
    "rationale", "alternatives", "alternatives considered", "links", "references", "more information",
    "date", "deciders", "notes", "positive consequences", "negative consequences", "summary",
})  # fmt: skip
SUMMARY_PARTS = (("Context", ("context", "context and problem statement", "problem")),
                 ("Decision", ("decision", "decision outcome")),
                 ("Consequences", ("consequences", "positive consequences", "negative consequences")))  # fmt: skip
PART_CHARS = 400
LABELS = {"adr": "Decision", "architecture": "Architecture note"}
MARKDOWN, RESTRUCTUREDTEXT = "markdown", "restructuredtext"  # the language of a document's memories
DOCUMENT_FORMATS = (MARKDOWN, RESTRUCTUREDTEXT)


@dataclass(slots=True)
class Section:
    level: int
    title: str
    start_line: int  # 1-based, the heading's line
    end_line: int
    body: list[str] = field(default_factory=list)
    parts: list[Section] = field(default_factory=list)  # subsections, folded into the body


def extract(spec: LanguageSpec, data: bytes, path: str) -> ParseResult:
    language = RESTRUCTUREDTEXT if path.lower().endswith(".rst") else MARKDOWN
    text = data.decode("utf-8", "replace")
    lines = text.splitlines()
    rst = language == RESTRUCTUREDTEXT
    front, start = _front_matter(lines) if not rst else ({}, 0)
    sections = _split(lines, start, rst=rst)
    title, top = _title_and_top(sections, path)
    if spec.name == "adr" and _single_decision(top):
        entries: tuple[Symbol, ...] = (_record(title, front, top, len(lines)),)
    else:
        entries = _section_entries(spec.name, title, top)
    return ParseResult(language, (), derived=entries)


def _front_matter(lines: list[str]) -> tuple[dict[str, str], int]:
    if not lines or lines[0].strip() != "---":
        return {}, 0
    for end in range(1, min(len(lines), 60)):
        if lines[end].strip() == "---":
            pairs = (line.split(":", 1) for line in lines[1:end] if ":" in line)
            return {k.strip().lower(): v.strip().strip("'\"") for k, v in pairs}, end + 1
    return {}, 0


def _split(lines: list[str], start: int, *, rst: bool) -> list[Section]:
    """Flat list of sections in order; text before the first heading is level 0."""
    sections = [Section(0, "", start + 1, start + 1)]
    styles: list[str] = []
    fenced = False
    index = start
    while index < len(lines):
        line = lines[index]
        if _FENCE.match(line):
            fenced = not fenced
        heading = None if fenced else _heading(lines, index, rst=rst, styles=styles)
        if heading is not None:
            level, title, used = heading
            sections.append(Section(level, title, index + 1, index + used))
            index += used
            continue
        sections[-1].body.append(line)
        sections[-1].end_line = index + 1
        index += 1
    return sections


def _heading(lines: list[str], index: int, *, rst: bool, styles: list[str]) -> tuple[int, str, int] | None:
    """(level, title, lines used) when a heading starts at ``index``."""
    line = lines[index]
    below = lines[index + 1] if index + 1 < len(lines) else ""
    if not rst:
        atx = _ATX.match(line)
        if atx:
            return len(atx.group(1)), atx.group(2).strip(), 1
        if line.strip() and below.strip() and set(below.strip()) <= {"="}:
            return 1, line.strip(), 2
        if line.strip() and below.strip() and set(below.strip()) <= {"-"} and len(below.strip()) >= 2:
            return 2, line.strip(), 2
        return None
    underline = _UNDERLINE.match(below)
    if line.strip() and underline and len(below.rstrip()) >= len(line.rstrip()) and not _UNDERLINE.match(line):
        style = underline.group(1)
        if style not in styles:
            styles.append(style)
        return styles.index(style) + 1, line.strip(), 2
    return None


def _title_and_top(sections: list[Section], path: str) -> tuple[str, list[Section]]:
    """The document title and its top-level sections (subsections folded in)."""
    headed = [s for s in sections if s.level]
    fallback = posixpath.splitext(posixpath.basename(path))[0]
    if not headed:
        return fallback, [s for s in sections if _content(s)]
    first_level = min(s.level for s in headed)
    titles = [s for s in headed if s.level == first_level]
    title = titles[0].title if len(titles) == 1 else fallback
    top_level = first_level + 1 if len(titles) == 1 else first_level
    top: list[Section] = []
    for section in sections:
        if section.level == 0 or (len(titles) == 1 and section is titles[0]):
            if _content(section):
                top.append(Section(0, "", section.start_line, section.end_line, section.body))
        elif section.level <= top_level or not top:
            top.append(section)
        else:
            top[-1].parts.append(section)
            top[-1].end_line = section.end_line
    return title, top


def _single_decision(top: list[Section]) -> bool:
    titled = [s for s in top if s.level]
    return len(titled) <= 1 or all(_plain(s.title) in ADR_PARTS for s in titled)


def _record(title: str, front: dict[str, str], top: list[Section], total_lines: int) -> Symbol:
    by_title = {_plain(s.title): s for s in top if s.level}
    status = front.get("status", "") or _status(by_title.get("status"), top)
    lines = [f"Decision record: {front.get('title') or title}"]
    if status:
        lines.append(f"Status: {status}")
    for label, names in SUMMARY_PARTS:
        part = next((by_title[n] for n in names if n in by_title), None)
        if part is not None:
            lines.append(f"{label}: {_summary(part)}")
    if len(lines) <= 2:
        lines.extend(_summary(s) for s in top)
    text = "\n".join(line for line in lines if line.strip())
    extra = (("title", title), ("status", status.lower()))
    return derived_entry("adr", "<document>", text, lines=(1, max(1, total_lines)), extra=extra)


def _status(section: Section | None, top: list[Section]) -> str:
    if section is not None:
        return next((line.strip(" *_") for line in _content(section) if line.strip()), "")
    for candidate in top[:2]:
        for line in candidate.body:
            found = _STATUS_LINE.match(line)
            if found:
                return found.group(1).strip()
    return ""


def _section_entries(kind: str, title: str, top: list[Section]) -> tuple[Symbol, ...]:
    seen: Counter[str] = Counter()
    entries: list[Symbol] = []
    label = LABELS.get(kind, kind)
    for section in top:
        heading = section.title or "<preamble>"
        seen[heading] += 1
        qualname = heading if seen[heading] == 1 else f"{heading}#{seen[heading]}"
        head = f"{label}: {title}" + (f" — {section.title}" if section.title else "")
        text = f"{head}\n{_summary(section, limit=0)}"
        extra = (("title", title), ("section", section.title))
        lines = (section.start_line, section.end_line)
        entries.append(derived_entry(kind, qualname, text, lines=lines, extra=extra))
    return tuple(entries)


def _content(section: Section) -> list[str]:
    lines = list(section.body)
    for part in section.parts:
        lines.extend([part.title, *part.body])
    return [line for line in lines if line.strip()]


def _summary(section: Section, *, limit: int = PART_CHARS) -> str:
    text = " ".join(" ".join(_content(section)).split())
    return text[:limit] if limit else "\n".join(_content(section))


def _plain(title: str) -> str:
    return re.sub(r"[^a-z ]", "", title.lower()).strip()
