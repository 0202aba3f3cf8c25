"""A repository's ``linguist-language`` attributes name the language its files are read in."""

from __future__ import annotations

from typing import Any

from recalld.ingest.files import DerivedOptions, IndexOptions
from tests.ingest.conftest import Harness, fresh_memories

HEADER = "struct Point {\n    int x;\n};\n\nint point_norm(struct Point p);\n"
INCLUDED = "class Greeter {\npublic:\n    void greet();\n};\n"
PROLOG = "parent(tom, bob).\nancestor(X, Y) :- parent(X, Y).\n"
PERL = "package Tool;\n\nsub main {\n    return 1;\n}\n\n1;\n"
NAMED = "*.inc linguist-language=C++\ninclude/*.h linguist-language=cpp\nrules/*.pl linguist-language=Prolog\n"


def key(payload: dict[str, Any]) -> tuple[str, str, str]:
    return payload["path"], payload["qualname"], payload["language"]


def held(h: Harness) -> set[tuple[str, str, str]]:
    return {key(m.payload) for m in h.memories()}


def test_files_are_read_in_the_language_their_attribute_names(git_repo, tmp_path):
    """``*.inc linguist-language=C++`` reads files of no language recalld knows by their
    name as C++, in the index and in the commit's task memory; a header named C++ is
    C++'s though C's grammar reads it; a ``.pl`` named Prolog is skipped as of a language
    recalld does not read, not read as Perl; the others are read as their names say."""
    git_repo.write(".gitattributes", NAMED)
    git_repo.write("src/greeter.inc", INCLUDED)
    git_repo.write("include/point.h", HEADER)
    git_repo.write("lib/point.h", HEADER)
    git_repo.write("rules/family.pl", PROLOG)
    git_repo.write("bin/tool.pl", PERL)
    git_repo.commit("one")
    h = Harness("edge", tmp_path / "state", IndexOptions())
    try:
        result = h.sync(git_repo)
        assert result.skips.get("unsupported_language") == 2  # .gitattributes, the Prolog file
        memories = held(h)
        assert {m for m in memories if m[0] == "src/greeter.inc"} >= {
            ("src/greeter.inc", "Greeter", "cpp"), ("src/greeter.inc", "Greeter.greet", "cpp")}  # fmt: skip
        assert ("include/point.h", "point_norm", "cpp") in memories and ("lib/point.h", "point_norm", "c") in memories
        assert not any(m[0] == "rules/family.pl" for m in memories)
        assert ("bin/tool.pl", "Tool::main", "perl") in memories
        (task,) = [m.payload for m in h.memories(types=("task",))]
        added = {s["path"]: s["added"] for s in task["symbols"]}
        assert added["src/greeter.inc"] == ["Greeter", "Greeter.greet"] and "rules/family.pl" not in added
    finally:
        h.close()


def test_a_changed_language_attribute_reads_unchanged_files_again(git_repo, tmp_path):
    """A ``.gitattributes`` whose ``linguist-language`` lines come, go and change reads the
    unchanged files they name again in the language named now: each sync's memories are
    a fresh index's of the same commit, and a commit's task memory lists what changed."""
    git_repo.write("src/greeter.inc", INCLUDED)
    git_repo.write("include/point.h", HEADER)
    git_repo.write("rules/family.pl", PERL)
    git_repo.write("app.py", "def run():\n    return 1\n")
    git_repo.commit("one")
    incremental = Harness("edge", tmp_path / "incremental", IndexOptions())
    try:
        incremental.sync(git_repo)
        steps = (NAMED, "include/*.h linguist-language=C\n*.inc linguist-language=Python\n", "*.py text\n", NAMED)
        seen = []
        for step, attributes in enumerate(steps):
            git_repo.write(".gitattributes", attributes)
            git_repo.commit(f"attributes {step}")
            incremental.sync(git_repo)
            expected = fresh_memories(git_repo, tmp_path / f"fresh{step}", key)
            assert held(incremental) == expected
            seen.append(expected)
        assert ("src/greeter.inc", "Greeter", "cpp") in seen[0] and not any(m[0] == "src/greeter.inc" for m in seen[2])
        assert ("include/point.h", "point_norm", "cpp") in seen[0] and ("include/point.h", "point_norm", "c") in seen[1]
        assert not any(m[0] == "rules/family.pl" for m in seen[0])
        assert ("rules/family.pl", "Tool::main", "perl") in seen[1]
    finally:
        incremental.close()


def test_a_changed_gitattributes_reads_a_document_of_the_configurations_globs_again(git_repo, tmp_path):
    """A decision record that only the configuration's globs make one (``[memories]
    decision_globs``), marked generated and then no more, is read again when the mark
    goes, as a fresh index with that configuration reads it."""
    options = IndexOptions(memories=DerivedOptions(decision_globs=("rfcs/*.md",)))
    git_repo.write("rfcs/0001-storage.md", "# Store memories in Qdrant\n\n## Status\n\nAccepted\n\n"
                                           "## Decision\n\nAn embedded engine by default.\n")  # fmt: skip
    git_repo.write("app.py", "def run():\n    return 1\n")
    git_repo.write(".gitattributes", "rfcs/** linguist-generated\n")
    git_repo.commit("one")
    incremental = Harness("edge", tmp_path / "incremental", options)
    try:
        incremental.sync(git_repo)
        assert not any(m[0].startswith("rfcs/") for m in held(incremental))
        git_repo.write(".gitattributes", "rfcs/** text\n")
        git_repo.commit("the records are written by hand")
        incremental.sync(git_repo)
        expected = fresh_memories(git_repo, tmp_path / "fresh", key, options)
        assert held(incremental) == expected and any(m[0] == "rfcs/0001-storage.md" for m in expected)
    finally:
        incremental.close()


def test_the_tracked_branch_is_read_under_its_own_attributes_whatever_is_checked_out(git_repo, tmp_path):
    """The daemon tracks main while a feature branch is checked out whose .gitattributes
    names other languages and vendors a folder: main's files are read as main's
    .gitattributes says (libgit2's lookup read the checked-out index's first)."""
    git_repo.write(".gitattributes", NAMED)
    git_repo.write("src/greeter.inc", INCLUDED)
    git_repo.write("include/point.h", HEADER)
    git_repo.write("lib/tool.py", "def run():\n    return 1\n")
    git_repo.commit("one")
    git_repo.git("checkout", "-q", "-b", "feature")
    git_repo.write(".gitattributes", "*.inc linguist-language=Python\ninclude/*.h linguist-language=C\n"
                                     "lib/** linguist-vendored\n")  # fmt: skip
    git_repo.commit("feature's attributes")
    h = Harness("edge", tmp_path / "state", IndexOptions())
    try:
        h.sync(git_repo)
        memories = held(h)
        assert ("src/greeter.inc", "Greeter", "cpp") in memories
        assert ("include/point.h", "point_norm", "cpp") in memories
        assert ("lib/tool.py", "run", "python") in memories
    finally:
        h.close()


def test_a_change_to_info_attributes_is_read_by_the_next_sync(git_repo, tmp_path):
    """``.git/info/attributes`` (and the user's global file) are no part of a commit: when
    they change, the next sync compares every file as a fresh index reads it, though the
    branch has not moved; a sync after that writes nothing."""
    git_repo.write("lib/tool.py", "def run():\n    return 1\n")
    git_repo.write("src/greeter.inc", INCLUDED)
    git_repo.write("app.py", "def main():\n    return 2\n")
    git_repo.commit("one")
    info = git_repo.path / ".git" / "info" / "attributes"
    info.parent.mkdir(exist_ok=True)
    h = Harness("edge", tmp_path / "state", IndexOptions())
    try:
        h.sync(git_repo)
        steps = ("lib/** linguist-vendored\n*.inc linguist-language=C++\n", "*.inc linguist-language=C++\n", "")
        seen = []
        for step, text in enumerate(steps):
            info.write_text(text)
            first = h.sync(git_repo)
            assert first.mode == "full"
            assert held(h) == fresh_memories(git_repo, tmp_path / f"fresh{step}", key)
            assert h.sync(git_repo).mode != "full"  # nothing changed since
            seen.append(held(h))
        assert not any(m[0] == "lib/tool.py" for m in seen[0]) and ("src/greeter.inc", "Greeter", "cpp") in seen[0]
        assert ("lib/tool.py", "run", "python") in seen[1] and ("src/greeter.inc", "Greeter", "cpp") in seen[1]
        assert not any(m[0] == "src/greeter.inc" for m in seen[2])
    finally:
        h.close()


def test_turning_honour_gitattributes_off_and_on_reads_every_file_again(git_repo, tmp_path):
    """``[index] honour_gitattributes`` changed between two syncs of the same commit: the
    second compares every file, as a fresh index with the new setting reads them."""
    git_repo.write(".gitattributes", "lib/** linguist-vendored\n")
    git_repo.write("lib/tool.py", "def run():\n    return 1\n")
    git_repo.write("app.py", "def main():\n    return 2\n")
    git_repo.commit("one")
    for step, honour in enumerate((True, False, True)):
        options = IndexOptions(honour_gitattributes=honour)
        h = Harness("edge", tmp_path / "state", options)
        try:
            result = h.sync(git_repo)
            assert result.mode == "full"
            assert held(h) == fresh_memories(git_repo, tmp_path / f"fresh{step}", key, options)
            assert (("lib/tool.py", "run", "python") in held(h)) != honour
        finally:
            h.close()


def test_with_attributes_not_honoured_a_changed_gitattributes_reads_nothing_again(git_repo, tmp_path, monkeypatch):
    """``[index] honour_gitattributes = false``: a commit that marks a folder vendored
    changes no memory and has no unchanged file compared again (what attributes say is
    never read: no file's attributes are asked), where it read every file they now skip."""
    from recalld.ingest import collect

    git_repo.write("lib/tool.py", "def run():\n    return 1\n")
    git_repo.write("app.py", "def main():\n    return 2\n")
    git_repo.commit("one")
    options = IndexOptions(honour_gitattributes=False)
    h = Harness("edge", tmp_path / "state", options)
    try:
        h.sync(git_repo)
        before = held(h)
        asked: list[object] = []
        monkeypatch.setattr(collect, "linguist_says", lambda *args: asked.append(args) or collect.NO_SAY)
        git_repo.write(".gitattributes", "lib/** linguist-vendored\n")
        git_repo.commit("vendored")
        h.sync(git_repo)
        assert not asked and held(h) == before == fresh_memories(git_repo, tmp_path / "fresh", key, options)
    finally:
        h.close()


KOTLIN = "package cam\n\nclass CameraView {\n    fun focus(x: Int): Boolean {\n        return x > 0\n    }\n}\n"
SWIFT = "class CameraView {\n    func focus(x: Int) -> Bool {\n        return x > 0\n    }\n}\n"


def test_an_attribute_naming_a_language_no_kin_of_the_files_own_is_unheeded(git_repo, tmp_path):
    """react-native-vision-camera's ``*.kt linguist-language=Swift`` (for GitHub's language
    statistics) read its Kotlin as Swift, with syntax errors and few symbols: a name whose
    extension is another language's, not one of its kin, is read in its own; an
    extension of no language of its own and a header of C's kin follow the attribute."""
    git_repo.write(".gitattributes", "*.kt linguist-language=Swift\n*.h linguist-language=Objective-C\n"
                                     "*.inc linguist-language=Swift\n")  # fmt: skip
    git_repo.write("android/CameraView.kt", KOTLIN)
    git_repo.write("ios/CameraView.inc", SWIFT)
    git_repo.write("ios/point.h", HEADER)
    git_repo.commit("one")
    memories = held_once_synced(git_repo, tmp_path)
    assert {m for m in memories if m[0] == "android/CameraView.kt"} >= {
        ("android/CameraView.kt", "CameraView", "kotlin"), ("android/CameraView.kt", "CameraView.focus", "kotlin")}
    assert ("ios/CameraView.inc", "CameraView.focus", "swift") in memories
    assert ("ios/point.h", "point_norm", "objc") in memories


def held_once_synced(git_repo, tmp_path) -> set[tuple[str, str, str]]:  # type: ignore[no-untyped-def]
    """The memories (path, qualname, language) a fresh index of the repository's tip holds."""
    h = Harness("edge", tmp_path / "state", IndexOptions())
    try:
        h.sync(git_repo)
        return held(h)
    finally:
        h.close()
