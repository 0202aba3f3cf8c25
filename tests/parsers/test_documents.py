"""Decision records and architecture notes: selected by path globs, split into sections."""

from __future__ import annotations

import pytest

from recalld.parsers import language_for_path, parse

ADR = """---
status: superseded
---
# 7. Use SQLite for the journal

## Context

Events must survive a crash.

## Decision

Use SQLite in WAL mode.

```md
## Not a heading inside a fence
```

## Consequences

One more file in the state directory.
"""

LOG = """# Decision log

## Use Rust for the parser
Speed.

### Details
Tree-sitter bindings.

## Use gRPC between services
Schemas.
"""

RST = """Architecture
============

Intro.

Ingest
------

Reads git objects.

Stores
------

Two adapters.
"""


@pytest.mark.parametrize(
    ("path", "spec"),
    [
        ("docs/adr/0007-sqlite.md", "adr"),
        ("services/api/docs/adr/2024/0001.md", "adr"),
        ("doc/decisions/0001.rst", "adr"),
        ("adr/0001.md", "adr"),
        ("notes/ADR-12-queues.md", "adr"),
        ("notes/adr-12-queues.md", "adr"),
        ("ARCHITECTURE.md", "architecture"),
        ("docs/architecture-overview.md", "architecture"),
        ("sub/DESIGN.md", "architecture"),
        ("pyproject.toml", "tooling"),
        ("web/package.json", "tooling"),
        ("README.md", None),
        ("docs/guide.md", None),
        ("docs/adr/diagram.png", None),
        ("src/adr.py", "python"),
        ("setup.py", "python"),
        ("eslint.config.js", "javascript"),
    ],
)
def test_documents_are_selected_by_globs(path: str, spec: str | None):
    assert language_for_path(path) == spec


def test_configured_globs_replace_the_defaults():
    globs = {"adr": ("decisions/*.md",), "architecture": ()}
    assert language_for_path("decisions/a.md", globs) == "adr"
    assert language_for_path("docs/adr/0001.md", globs) is None
    assert language_for_path("ARCHITECTURE.md", globs) is None


def test_an_adr_is_one_memory_with_title_status_and_summary():
    result = parse("adr", ADR.encode(), path="docs/adr/0007-sqlite.md")
    (entry,) = result.derived
    assert result.language == "markdown" and result.symbols == ()
    assert (entry.kind, entry.qualname, entry.start_line) == ("adr", "<document>", 1)
    extra = dict(entry.extra)
    assert extra == {"title": "7. Use SQLite for the journal", "status": "superseded"}
    lines = entry.source.splitlines()
    assert lines[0] == "Decision record: 7. Use SQLite for the journal"
    assert "Status: superseded" in lines
    assert any(line.startswith("Decision: Use SQLite in WAL mode.") for line in lines)
    assert any(line.startswith("Consequences: One more file") for line in lines)


def test_status_from_a_section_or_a_line():
    section = parse("adr", b"# T\n\n## Status\n\nAccepted\n\n## Decision\n\nX.\n", path="a.md").derived[0]
    line = parse("adr", b"# T\n\nStatus: Proposed\n\n## Decision\n\nX.\n", path="a.md").derived[0]
    assert dict(section.extra)["status"] == "accepted" and dict(line.extra)["status"] == "proposed"


def test_a_multi_decision_document_is_one_memory_per_section():
    entries = parse("adr", LOG.encode(), path="docs/decisions/log.md").derived
    assert [(e.qualname, e.start_line, e.end_line) for e in entries] == [
        ("Use Rust for the parser", 3, 8),
        ("Use gRPC between services", 9, 10),
    ]
    assert "Tree-sitter bindings." in entries[0].source  # the subsection stays in its section
    assert entries[1].source.startswith("Decision: Decision log — Use gRPC between services")


def test_architecture_notes_per_section_in_restructuredtext():
    result = parse("architecture", RST.encode(), path="docs/architecture.rst")
    assert result.language == "restructuredtext"
    assert [e.qualname for e in result.derived] == ["<preamble>", "Ingest", "Stores"]
    assert result.derived[1].source == "Architecture note: Architecture — Ingest\nReads git objects."


def test_section_edits_change_only_that_section():
    before = parse("architecture", b"# A\n\n## One\n\nx\n\n## Two\n\ny\n", path="ARCHITECTURE.md").derived
    after = parse("architecture", b"# A\n\n## One\n\nx\n\n## Two\n\ny changed\n", path="ARCHITECTURE.md").derived
    assert before[0] == after[0]
    assert before[1].qualname == after[1].qualname and before[1].content_hash != after[1].content_hash


@pytest.mark.parametrize("data", [b"", b"\xff\xfe garbage \x00", b"no headings at all", b"#\n##\n###"])
def test_odd_documents_never_raise(data: bytes):
    for spec in ("adr", "architecture"):
        result = parse(spec, data, path="x.md")
        assert all(e.kind == spec for e in result.derived)
