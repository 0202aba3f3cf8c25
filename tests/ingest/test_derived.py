"""Derived memories follow their source through the same lifecycle as symbols:
debt comments, decision records, tool preferences and the project structure."""

from __future__ import annotations

from pathlib import Path

import pytest

from recalld.ingest.files import DerivedOptions, IndexOptions
from tests.ingest.conftest import Harness


def live(h, type_: str) -> dict:
    return {(m.payload["path"], m.payload["qualname"]): m for m in h.memories() if m.payload["type"] == type_}


def closed(h) -> dict:
    return {m.id: m.payload for m in h.memories(deprecated=1)}


def only(mapping: dict):
    (value,) = mapping.values()
    return value


def test_debt_appears_moves_lines_is_edited_removed_and_renamed(harness, git_repo):
    h, repo = harness, git_repo
    repo.write("a.py", "def f():\n    # TODO: cache this\n    return 1\n")
    repo.commit("todo")
    h.sync(repo)
    todo = only(live(h, "debt"))
    p = todo.payload
    assert (p["kind"], p["path"], p["start_line"], p["enclosing"], p["language"]) == ("todo", "a.py", 2, "f", "python")
    assert p["text"].startswith("TODO: cache this") and p["deprecated"] == 0 and p["untrusted"] == 0

    repo.write("a.py", "import os\n\n\ndef f():\n    # TODO: cache this\n    return 1\n")
    repo.commit("lines above")
    r = h.sync(repo)
    moved = only(live(h, "debt"))
    assert moved.id == todo.id and moved.payload["start_line"] == 5 and r.relocated >= 1
    assert "debt" not in r.derived

    repo.write("a.py", "import os\n\n\ndef f():\n    # TODO: cache this in redis\n    return 1\n")
    repo.commit("edit the note")
    h.sync(repo)
    edited = only(live(h, "debt"))
    assert closed(h)[todo.id]["deprecated_reason"] == "modified"
    assert closed(h)[todo.id]["superseded_by"] == edited.id
    assert edited.payload["lineage"] == todo.payload["lineage"]

    repo.git("mv", "a.py", "b.py")
    repo.commit("rename")
    r = h.sync(repo)
    renamed = only(live(h, "debt"))
    assert renamed.payload["path"] == "b.py"
    assert r.embedded == 2 and r.derived["project"] == r.tasks_added == 1  # root listing, commit
    assert closed(h)[edited.id]["deprecated_reason"] == "renamed"
    assert closed(h)[edited.id]["superseded_by"] == renamed.id
    assert renamed.payload["lineage"] == todo.payload["lineage"]

    repo.write("b.py", "import os\n\n\ndef f():\n    return 1\n")
    repo.commit("done")
    h.sync(repo)
    assert live(h, "debt") == {}
    assert closed(h)[renamed.id]["deprecated_reason"] == "removed"


ADR = "# 1. Use Qdrant\n\n## Status\n\nProposed\n\n## Decision\n\nStore vectors in Qdrant.\n"


def test_decisions_are_modified_renamed_and_deleted_with_their_document(harness, git_repo):
    h, repo = harness, git_repo
    repo.write("docs/adr/0001-qdrant.md", ADR)
    repo.write("ARCHITECTURE.md", "# Arch\n\n## Ingest\n\nReads git.\n\n## Search\n\nDense.\n")
    repo.commit("docs")
    h.sync(repo)
    decisions = live(h, "decision")
    adr = decisions[("docs/adr/0001-qdrant.md", "<document>")]
    assert (adr.payload["kind"], adr.payload["status"], adr.payload["title"]) == ("adr", "proposed", "1. Use Qdrant")
    assert adr.payload["language"] == "markdown"
    assert {q for p, q in decisions if p == "ARCHITECTURE.md"} == {"Ingest", "Search"}
    ingest = decisions[("ARCHITECTURE.md", "Ingest")]

    repo.write("docs/adr/0001-qdrant.md", ADR.replace("Proposed", "Accepted"))
    repo.write("ARCHITECTURE.md", "# Arch\n\n## Ingest\n\nReads git.\n\n## Search\n\nHybrid.\n")
    repo.commit("accept")
    r = h.sync(repo)
    assert r.derived == {"decision": 2}
    decisions = live(h, "decision")
    accepted = decisions[("docs/adr/0001-qdrant.md", "<document>")]
    assert accepted.payload["status"] == "accepted"
    assert closed(h)[adr.id]["deprecated_reason"] == "modified"
    assert closed(h)[adr.id]["superseded_by"] == accepted.id
    assert decisions[("ARCHITECTURE.md", "Ingest")].id == ingest.id  # untouched section

    repo.git("mv", "docs/adr/0001-qdrant.md", "docs/adr/0001-use-qdrant.md")
    repo.commit("rename adr")
    r = h.sync(repo)
    moved = live(h, "decision")[("docs/adr/0001-use-qdrant.md", "<document>")]
    assert r.embedded == r.tasks_added == 1 and moved.payload["lineage"] == adr.payload["lineage"]  # the commit
    assert closed(h)[accepted.id]["deprecated_reason"] == "renamed"
    assert closed(h)[accepted.id]["superseded_by"] == moved.id

    repo.remove("docs/adr/0001-use-qdrant.md")
    repo.commit("drop adr")
    h.sync(repo)
    assert closed(h)[moved.id]["deprecated_reason"] == "deleted"
    assert {p for p, _q in live(h, "decision")} == {"ARCHITECTURE.md"}


PYPROJECT = """[project]
name = "x"
dependencies = ["fastapi", "pygit2"]

[tool.ruff]
line-length = 100
"""


def test_preferences_follow_the_tooling_files(harness, git_repo):
    h, repo = harness, git_repo
    repo.write("pyproject.toml", PYPROJECT)
    repo.write("setup.cfg", "[tool:pytest]\ntestpaths = tests\n")
    repo.commit("tooling")
    h.sync(repo)
    prefs = live(h, "preference")
    assert set(prefs) == {("pyproject.toml", "FastAPI"), ("pyproject.toml", "ruff"), ("setup.cfg", "pytest")}
    ruff = prefs[("pyproject.toml", "ruff")]
    assert ruff.payload["kind"] == "linter" and ruff.payload["evidence"]["value"] == "line-length=100"
    assert ruff.payload["text"] == "Code is checked with ruff (pyproject.toml [tool.ruff]: line-length=100)"
    fastapi, pytest_cfg = prefs[("pyproject.toml", "FastAPI")], prefs[("setup.cfg", "pytest")]

    repo.write("pyproject.toml", PYPROJECT.replace("100", "120").replace('"fastapi", ', "")
               + '\n[tool.pytest.ini_options]\ntestpaths = ["tests"]\n')  # fmt: skip
    repo.write("setup.cfg", "[metadata]\nname = x\n")
    repo.commit("ruff 120, no fastapi, pytest config moved")
    h.sync(repo)
    prefs = live(h, "preference")
    now_ruff = prefs[("pyproject.toml", "ruff")]
    assert closed(h)[ruff.id]["deprecated_reason"] == "modified"
    assert closed(h)[ruff.id]["superseded_by"] == now_ruff.id
    assert closed(h)[fastapi.id]["deprecated_reason"] == "removed"
    moved = prefs[("pyproject.toml", "pytest")]
    assert closed(h)[pytest_cfg.id]["deprecated_reason"] == "renamed"
    assert moved.payload["lineage"] == pytest_cfg.payload["lineage"]
    assert ("setup.cfg", "setuptools") in prefs

    repo.write("pyproject.toml", "[tool.ruff\nline-length = ")
    repo.commit("broken toml")
    r = h.sync(repo)
    assert r.skips == {"malformed": 1}
    assert {p for p, _q in live(h, "preference")} == {"setup.cfg"}
    assert closed(h)[now_ruff.id]["deprecated_reason"] == "removed"


def test_project_structure_updates_only_when_the_layout_changes(harness, git_repo):
    h, repo = harness, git_repo
    repo.write("pyproject.toml", '[build-system]\nbuild-backend = "setuptools.build_meta"\n\n'
               '[project]\nname = "tool"\n\n[project.scripts]\ntool = "tool.cli:main"\n')  # fmt: skip
    repo.write("tool/__init__.py", "")
    repo.write("tool/cli.py", "def main():\n    pass\n")
    repo.write("cmd/serve/main.go", "package main\n\nfunc main() {}\n")
    repo.write("bin/deploy", "#!/bin/sh\n")
    repo.write("Makefile", "all:\n")
    repo.commit("layout")
    h.sync(repo)
    (key, project), = live(h, "project").items()
    assert key == (".", "<project>") and project.payload["kind"] == "structure"
    text = project.payload["text"]
    assert "Build system: make (Makefile), setuptools (pyproject.toml)" in text
    assert "tool = tool.cli:main (pyproject.toml [project.scripts])" in text
    assert "go main package: cmd/serve" in text and "script: bin/deploy" in text
    assert "tool/ — 2 modules (python 2)" in text and "cmd/ — 1 module (go 1)" in text

    repo.write("tool/cli.py", "def main():\n    return 1\n")
    repo.commit("edit inside")
    r = h.sync(repo)
    assert only(live(h, "project")).id == project.id and "project" not in r.derived

    repo.write("lib/util.py", "def u():\n    pass\n")
    repo.commit("new package")
    r = h.sync(repo)
    new = only(live(h, "project"))
    assert r.derived["project"] == 1 and "lib/ — 1 module (python 1)" in new.payload["text"]
    assert closed(h)[project.id]["deprecated_reason"] == "modified"
    assert closed(h)[project.id]["superseded_by"] == new.id
    assert new.payload["lineage"] == project.payload["lineage"]

    # a symlink made a file and back: the same paths, another count (stale until stop 116)
    (repo.path / "lib/link.py").symlink_to("util.py")
    repo.commit("a link")
    h.sync(repo)
    assert "lib/ — 1 module (python 1)" in only(live(h, "project")).payload["text"]  # a link is no module
    for made, count in (("file", "2 modules (python 2)"), ("link", "1 module (python 1)")):
        repo.remove("lib/link.py")
        if made == "file":
            repo.write("lib/link.py", "def l():\n    pass\n")
        else:
            (repo.path / "lib/link.py").symlink_to("util.py")
        repo.commit(f"lib/link.py made a {made}")
        h.sync(repo)
        assert f"lib/ — {count}" in only(live(h, "project")).payload["text"], made


@pytest.fixture(params=["edge", "server"])
def plain_harness(request: pytest.FixtureRequest, tmp_path: Path):
    off = DerivedOptions(debt=False, decisions=False, preferences=False, project=False)
    h = Harness(request.param, tmp_path / "state", IndexOptions(memories=off))
    yield h
    h.close()


def test_each_derived_type_can_be_switched_off(plain_harness, git_repo):
    h, repo = plain_harness, git_repo
    repo.write("a.py", "# TODO: x\ndef f():\n    pass\n")
    repo.write("docs/adr/0001.md", ADR)
    repo.write("pyproject.toml", PYPROJECT)
    repo.commit("all kinds")
    r = h.sync(repo)
    assert {m.payload["type"] for m in h.memories()} == {"structural"}
    assert r.derived == {} and r.skips == {"unsupported_language": 2}


def test_an_index_made_without_the_project_memory_gets_one_on_the_next_sync(tmp_path, git_repo):
    repo = git_repo
    repo.write("a.py", "def f():\n    pass\n")
    repo.commit("one")
    off = Harness("edge", tmp_path / "state", IndexOptions(memories=DerivedOptions(project=False)))
    off.sync(repo)
    off.close()
    on = Harness("edge", tmp_path / "state")
    try:
        repo.write("a.py", "def f():\n    return 1\n")
        repo.commit("edit, no layout change")
        r = on.sync(repo)
        assert r.mode == "incremental" and r.derived == {"project": 1}
        assert "a.py" in only(live(on, "project")).payload["text"]
        repo.write("a.py", "def f():\n    return 2\n")
        repo.commit("again")
        assert "project" not in on.sync(repo).derived
    finally:
        on.close()


def test_a_swift_package_names_its_build_system_and_language(harness, git_repo):
    h, repo = harness, git_repo
    repo.write("Package.swift", '// swift-tools-version:5.9\nimport PackageDescription\n\nlet package = Package(name: "App")\n')
    repo.write("Sources/App/App.swift", "struct App {\n    func run() {}\n}\n")
    repo.write("android/src/Main.kt", "class Main {\n    fun run() {}\n}\n")
    repo.commit("layout")
    h.sync(repo)
    text = only(live(h, "project")).payload["text"]
    assert "Build system: swift package manager (Package.swift)" in text
    assert "Sources/ — 1 module (swift 1)" in text and "android/ — 1 module (kotlin 1)" in text
