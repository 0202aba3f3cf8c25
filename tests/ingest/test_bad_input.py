"""Hostile repositories sync successfully; every skip is counted; nothing outside is read."""

from __future__ import annotations

import codecs
import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import structlog

from recalld.ingest.files import IndexOptions
from recalld.ingest.gitrecords import TreeSkip
from recalld.ingest.gitrepo import GitRepository
from tests.ingest.conftest import Harness, fresh_memories


def test_hostile_repo_syncs_and_counts_skips(git_repo, tmp_path):
    repo = git_repo
    repo.write("ok.py", "def fine():\n    return 1\n")
    repo.write("blob.py", b"\x00\x01\x02binary" * 10)
    repo.write("big.py", "x = 1\n" * 900_000)  # ~5 MB
    repo.write("latin.py", "def caf\xe9():\n    return '\xe9'\n".encode("latin-1"))
    declared = "# -*- coding: latin-1 -*-\ndef na\xefve():\n    '''R\xe9sum\xe9.'''\n"
    repo.write("declared.py", declared.encode("latin-1"))  # PEP 263: read as it says
    repo.write("broken.py", "def good():\n    return 1\n\ndef bad(:\n    pass\n\nclass After:\n    pass\n")
    repo.write("image.png", b"\x89PNG\r\n\x1a\n\x00\x00")
    repo.write("app.js", "var a=function(b){return b+1};" * 300 + "\n")  # minified: one 9 KB line
    repo.write("notes.py", "x = 1  # " + "a long comment " * 40 + "\n")  # one long line, a small file
    message = '"' + "Usage: {0} [options] <mainclass> [args...]\\n" * 12 + '"'  # a resource bundle's lines
    repo.write("Messages.java", "class Messages {\n  Object[][] contents = {\n" + f"    {{ \"usage\", {message} }},\n" * 12 + "  };\n}\n")
    repo.write("deep.rb", "module M\n" * 200 + "def bottom; end\n" + "end\n" * 200)  # nested past parsers' cap
    repo.write("node_modules/lib/index.js", "function vendored() {}\n")
    repo.write("gen/auto.py", "def generated():\n    pass\n")
    repo.write(".gitattributes", "gen/** linguist-generated=true\n")
    os.symlink("/etc/passwd", repo.path / "passwd.py")
    sub = tmp_path / "sub"
    sub.mkdir()
    for args in (["init", "-q", "-b", "main"], ["commit", "-q", "--allow-empty", "-m", "s"]):
        __import__("subprocess").run(["git", *args], cwd=sub, check=True, capture_output=True)
    repo.git("-c", "protocol.file.allow=always", "submodule", "add", "-q", str(sub), "vendored_sub")
    repo.commit("hostile")

    h = Harness("edge", tmp_path / "state", IndexOptions())
    try:
        with structlog.testing.capture_logs() as logs:
            result = h.sync(repo)
        skips = result.skips
        assert skips["binary"] == 1
        assert skips["minified"] == 1
        assert skips["oversized"] == 1
        assert skips["symlink"] == 1
        assert skips["submodule"] == 1
        assert skips["excluded"] == 1
        assert skips["generated"] == 1
        assert skips["unsupported_language"] >= 2  # image.png, .gitattributes, .gitmodules
        assert result.skipped == sum(skips.values())
        reasons = result.summary().split(f"{result.skipped} skipped (", 1)[1].split(")", 1)[0]
        assert reasons.startswith(f"unsupported language {skips['unsupported_language']}, binary 1, excluded 1")
        assert result.invalid_utf8 == 1
        assert result.syntax_errors >= 1
        names = {(m.payload["path"], m.payload["qualname"]) for m in h.memories()}
        assert {("ok.py", "fine"), ("broken.py", "good"), ("broken.py", "After")} <= names
        assert not any(p in {"passwd.py", "blob.py", "big.py", "gen/auto.py", "app.js"} for p, _ in names)
        assert ("notes.py", "<module>") in names
        assert ("Messages.java", "Messages") in names  # long lines, but of strings: not minified
        assert all("root:" not in m.payload["text"] for m in h.memories())
        assert any(p == "latin.py" for p, _ in names)
        naive = [m.payload for m in h.memories() if m.payload["path"] == "declared.py"]
        assert [(p["qualname"], p["docstring"], p["start_line"]) for p in naive if p["kind"] == "function"] == [
            ("na\xefve", "R\xe9sum\xe9.", 2)
        ]
        # Each file skipped for a reason of its own, or read in part, is logged by path;
        # what the repository's rules or languages explain is only counted.
        noted = {(e["event"], e["path"], e["detail"].split(":")[0]) for e in logs if e["event"].startswith("file ")}
        assert noted == {
            ("file skipped", "blob.py", "binary"), ("file skipped", "big.py", "oversized"),
            ("file skipped", "app.js", "minified"),
            ("file skipped", "passwd.py", "symlink"), ("file skipped", "vendored_sub", "submodule"),
            ("file read in part", "latin.py", "invalid UTF-8"),
            ("file read in part", "latin.py", "1 syntax error(s)"),  # caf\ufffd is no identifier
            ("file read in part", "broken.py", f"{result.syntax_errors - 1} syntax error(s)"),
            ("file read in part", "deep.rb", "73 definition(s) nested over 256 levels deep read as part of what holds"
             " them"),
        }  # fmt: skip
        assert sum(p == "deep.rb" for p, _ in names) == 129  # the module and the 128 outer modules
    finally:
        h.close()


def test_a_path_that_is_not_utf8_is_skipped_in_a_full_index_and_in_a_diff(git_repo, tmp_path):
    """git stores a path's bytes as given (a Latin-1 ``caf\xe9.py`` from an old checkout);
    pygit2 reads them as surrogate escapes, which no memory id, payload or filter can
    carry: such a file is skipped as a bad path in the tree's walk and left out of a diff,
    a move into such a name closes the memories at the old name, and out of it opens them."""
    latin = os.fsdecode(b"caf\xe9.py")  # the work tree's bytes
    git_repo.write(latin, "def cafe():\n    return 1\n")
    git_repo.write("ok.py", "def ok():\n    return 1\n")
    git_repo.commit("one")
    h = Harness("edge", tmp_path / "state", IndexOptions())
    names = lambda: {(m.payload["path"], m.payload["qualname"]) for m in h.memories()}  # noqa: E731
    try:
        result = h.sync(git_repo)
        assert result.skips == {"bad_path": 1} and ("ok.py", "ok") in names()
        assert not any("caf" in path for path, _ in names())
        git_repo.git("mv", "ok.py", os.fsdecode(b"ok\xe9.py"))
        git_repo.write(latin, "def cafe():\n    return 2\n")
        git_repo.commit("moved into a Latin-1 name")
        result = h.sync(git_repo)  # an incremental sync: the diff's paths, those it cannot name counted
        assert result.skips == {"bad_path": 2}
        git = GitRepository(str(git_repo.path))
        assert git.unnamed_paths(git_repo.git("rev-parse", "HEAD~1"), git_repo.head()) == ["caf\\xe9.py", "ok\\xe9.py"]
        assert [e.path for e in git.walk_tree(git_repo.head()) if isinstance(e, TreeSkip)] == [
            "caf\\xe9.py", "ok\\xe9.py"]
        assert not any(path.startswith("ok") for path, _ in names())
        tasks = {m.payload["subject"]: m.payload for m in h.memories(types=("task",))}
        assert tasks["moved into a Latin-1 name"]["files_deleted"] == ["ok.py"]
        git_repo.git("mv", os.fsdecode(b"ok\xe9.py"), "back.py")
        git_repo.commit("and out of it")
        h.sync(git_repo)
        assert ("back.py", "ok") in names()
    finally:
        h.close()


def test_a_git_lfs_pointer_is_skipped_as_such_not_read_as_code(git_repo, tmp_path):
    """A file stored in Git LFS is a pointer in git (three lines: spec, oid, size); read
    as Python it was a module of syntax errors. A file moved into LFS (``git lfs migrate``)
    closes its memories as skipped; out of it, they come back."""
    pointer = ("version https://git-lfs.github.com/spec/v1\noid sha256:" + "4d7a" * 16 + "\nsize 48213\n")
    code = "def generated_table():\n    return [1, 2, 3]\n"
    git_repo.write("data/table.py", code)
    git_repo.write("web/bundle.js", pointer)
    git_repo.write("ok.py", "def ok():\n    return 1\n")
    git_repo.commit("one")
    h = Harness("edge", tmp_path / "state", IndexOptions())
    paths = lambda: {m.payload["path"] for m in h.memories()} - {"."}  # noqa: E731
    try:
        result = h.sync(git_repo)
        assert result.skips == {"lfs_pointer": 1} and paths() == {"ok.py", "data/table.py"}
        git_repo.write("data/table.py", pointer)
        git_repo.commit("moved into LFS")
        result = h.sync(git_repo)
        assert result.skips == {"lfs_pointer": 1} and paths() == {"ok.py"}
        closed = {m.payload["deprecated_reason"] for m in h.memories(deprecated=1) if m.payload["path"] == "data/table.py"}
        assert closed == {"skipped"}
        git_repo.write("data/table.py", code)
        git_repo.commit("and out of it")
        h.sync(git_repo)
        assert paths() == {"ok.py", "data/table.py"}
    finally:
        h.close()


def test_a_utf16_file_with_its_byte_order_mark_is_read_as_text(git_repo, tmp_path):
    """Windows tools write C# and C headers in UTF-16 with a byte order mark; git holds
    the bytes as they are, and their NULs made the file read as binary. Read as UTF-16, its
    symbols are the same UTF-8 file's, on the same lines, in the index and in the commit's
    task memory; bytes that only start like UTF-16 stay binary."""
    source = "// Résumé helpers.\nclass Résumé {\n    void Print() {}\n}\n"
    git_repo.write("app/Resume.cs", codecs.BOM_UTF16_LE + source.encode("utf-16-le"))
    git_repo.write("inc/resume.h", codecs.BOM_UTF16_BE + "int resume_count(void);\n".encode("utf-16-be"))
    git_repo.write("odd.cs", codecs.BOM_UTF16_LE + b"\x00\x01\x02")  # an odd length: no UTF-16
    git_repo.write("same/Resume.cs", source)
    git_repo.commit("one")
    h = Harness("edge", tmp_path / "state", IndexOptions())
    try:
        result = h.sync(git_repo)
        assert result.skips == {"binary": 1}
        held = {(m.payload["path"], m.payload["qualname"], m.payload["start_line"], m.payload["end_line"])
                for m in h.memories() if m.payload["kind"] != "module"}  # fmt: skip
        as_utf8 = {(p.removeprefix("same/"), q, a, b) for p, q, a, b in held if p.startswith("same/")}
        assert as_utf8 == {("Resume.cs", "Résumé", 2, 4), ("Resume.cs", "Résumé.Print", 3, 3)}
        assert {(p.removeprefix("app/"), q, a, b) for p, q, a, b in held if p.startswith("app/")} == as_utf8
        assert ("inc/resume.h", "resume_count", 1, 1) in held
        (task,) = [m.payload for m in h.memories(types=("task",))]
        touched = {s["path"]: s["added"] for s in task["symbols"]}
        assert touched["app/Resume.cs"] == touched["same/Resume.cs"] == ["Résumé", "Résumé.Print"]
    finally:
        h.close()


def test_a_store_an_earlier_extractor_left_reads_lfs_pointers_and_utf16_files_anew(git_repo, tmp_path, monkeypatch):
    """Version 32 read an LFS pointer as code and a UTF-16 file as binary: a store it left
    is compared file by file on this release's first sync, which closes the pointer's
    memories as skipped and reads the UTF-16 file's symbols, the blobs unchanged."""
    from recalld.ingest import collect, files
    from recalld.ingest.parse_memo import PARSED
    from recalld.ingest.plan import Scope
    from recalld.ingest.records import checkpoint_point
    from recalld.parsers.extraction import EXTRACTION_VERSION

    pointer = "version https://git-lfs.github.com/spec/v1\noid sha256:" + "4d7a" * 16 + "\nsize 48213\n"
    git_repo.write("web/bundle.js", pointer)
    git_repo.write("app/Resume.cs", codecs.BOM_UTF16_LE + "class Resume {\n    void Print() {}\n}\n".encode("utf-16-le"))
    git_repo.write("ok.py", "def ok():\n    return 1\n")
    git_repo.commit("one")
    monkeypatch.setattr(collect, "from_utf16", lambda data: data)  # as version 32 read (commits read through collect)
    monkeypatch.setattr(files, "LFS_POINTER_MAX", 0)
    h = Harness("edge", tmp_path / "state", IndexOptions())
    live = lambda: {(m.payload["path"], m.payload["qualname"]) for m in h.memories()} - {(".", "<project>")}  # noqa: E731
    try:
        assert h.sync(git_repo).skips == {"binary": 1}
        assert ("web/bundle.js", "<module>") in live() and not any(p == "app/Resume.cs" for p, _ in live())
        old = checkpoint_point(Scope("r", "main"), commit=git_repo.head(), pending=None)
        old.payload["extraction"] = EXTRACTION_VERSION - 1
        h.store.upsert([old])
        monkeypatch.undo()
        PARSED.trim(0)
        result = h.sync(git_repo)
        assert result.mode == "full" and result.skips == {"lfs_pointer": 1}
        assert live() == {("ok.py", "<module>"), ("ok.py", "ok"), ("app/Resume.cs", "<module>"),
                          ("app/Resume.cs", "Resume"), ("app/Resume.cs", "Resume.Print")}  # fmt: skip
        closed = {m.payload["deprecated_reason"] for m in h.memories(deprecated=1) if m.payload["path"] == "web/bundle.js"}
        assert closed == {"skipped"}
        again = h.sync(git_repo)
        assert again.added == again.modified == again.deprecated == 0 and again.mode != "full"
    finally:
        h.close()


def test_notes_about_single_files_are_bounded(git_repo, tmp_path):
    """A sync that meets many broken files logs the first of them by path and sums up the
    rest in one line; its counts stay exact."""
    from recalld.ingest import collect

    for i in range(collect.NOTES_LOGGED + 5):
        git_repo.write(f"bin/blob{i:02}.py", b"\x00binary")
    git_repo.commit("blobs")
    h = Harness("edge", tmp_path / "state", IndexOptions())
    try:
        with structlog.testing.capture_logs() as logs:
            result = h.sync(git_repo)
        assert result.skips == {"binary": collect.NOTES_LOGGED + 5}
        assert sum(e["event"] == "file skipped" for e in logs) == collect.NOTES_LOGGED
        (more,) = [e for e in logs if e["event"] == "more files skipped or read in part"]
        assert more["more"] == 5
    finally:
        h.close()


def test_full_index_and_sync_honour_info_attributes_alike(git_repo, tmp_path):
    """An attribute set outside the tree (.git/info/attributes) skips the same files in a
    full index as in an incremental sync, which asks git file by file; ``=false`` keeps a
    file that the default excludes would skip."""
    repo = git_repo
    repo.write("app.py", "def kept():\n    pass\n")
    repo.commit("first")
    incremental = Harness("edge", tmp_path / "incremental", IndexOptions())
    full = Harness("edge", tmp_path / "full", IndexOptions())
    try:
        incremental.sync(repo)
        (repo.path / ".git" / "info").mkdir(exist_ok=True)
        (repo.path / ".git" / "info" / "attributes").write_text(
            "gen/** linguist-generated=true\n*_pb2.py linguist-generated=false\n"
        )
        repo.write("gen/auto.py", "def generated():\n    pass\n")
        repo.write("msg_pb2.py", "class Message:\n    pass\n")
        repo.commit("second")
        assert incremental.sync(repo).skips.get("generated") == 1
        assert full.sync(repo).skips.get("generated") == 1
        paths = {m.payload["path"] for m in full.memories()}
        assert "gen/auto.py" not in paths and "msg_pb2.py" in paths
        assert paths == {m.payload["path"] for m in incremental.memories()}
    finally:
        full.close()
        incremental.close()


def test_a_changed_gitattributes_skips_and_keeps_files_that_did_not_change(git_repo, tmp_path):
    """A ``.gitattributes`` that newly marks unchanged files generated closes their
    memories, and one that stops marking them reads them again, as a fresh index of the
    same commit does (numpy 1.26's new ``.gitattributes`` and its ``lapack_lite/f2c_*.c``)."""
    repo = git_repo
    repo.write("lapack/f2c_blas.c", "int dgemm_(int *m)\n{\n    return 0;\n}\n")
    repo.write("lapack/lite.py", "def solve():\n    pass\n")
    repo.commit("first")
    incremental = Harness("edge", tmp_path / "incremental", IndexOptions())
    try:
        incremental.sync(repo)
        assert "lapack/f2c_blas.c" in {m.payload["path"] for m in incremental.memories()}
        for step, attributes in enumerate(("lapack/f2c_*.c linguist-generated\n", "*.c text\n")):
            repo.write(".gitattributes", attributes)
            repo.commit(f"attributes {step}")
            incremental.sync(repo)
            expected = fresh_memories(repo, tmp_path / f"fresh{step}", lambda p: (p["path"], p["qualname"]))
            assert {(m.payload["path"], m.payload["qualname"]) for m in incremental.memories()} == expected
            assert (("lapack/f2c_blas.c", "dgemm_") in expected) == (step == 1)
    finally:
        incremental.close()


def test_a_line_ending_flip_changes_no_memory(git_repo, tmp_path):
    """CRLF reads as LF: stored texts hold no carriage returns, and a commit that only
    converts a file's line endings closes, writes and embeds nothing of its symbols."""
    source = '"""Shapes."""\n\n\nclass Circle:\n    """A circle.\n\n    Round."""\n\n    def area(self, r):\n        return 3.14 * r * r\n'
    git_repo.write("shapes.py", source.replace("\n", "\r\n"))
    git_repo.commit("crlf")
    h = Harness("edge", tmp_path / "state", IndexOptions())
    try:
        h.sync(git_repo)
        before = {m.payload["qualname"]: m for m in h.memories(types=("structural",))}
        assert set(before) == {"<module>", "Circle", "Circle.area"}
        assert not any("\r" in str(m.payload[f]) for m in before.values() for f in ("text", "docstring", "signature"))
        git_repo.write("shapes.py", source)
        git_repo.commit("lf")
        flip = h.sync(git_repo)
        assert (flip.added, flip.modified, flip.renamed, flip.deprecated) == (0, 0, 0, 0)
        assert flip.embedded == 1  # the commit's own task memory, nothing of the file
        after = {m.payload["qualname"]: m for m in h.memories(types=("structural",))}
        assert {q: m.id for q, m in after.items()} == {q: m.id for q, m in before.items()}
        # the module follows the file's new blob (a reconcile compares it to skip the file)
        assert flip.relocated == 1 and after["<module>"].payload["blob"] == git_repo.git("rev-parse", "HEAD:shapes.py")
        again = h.sync(git_repo, full=True)
        assert (again.added, again.modified, again.deprecated, again.relocated) == (0, 0, 0, 0)
    finally:
        h.close()


def test_a_file_converted_from_its_declared_encoding_to_utf8_keeps_its_symbols(git_repo, tmp_path):
    """A latin-1 file that says so reads as its text: converted to UTF-8 (its declaration
    changed with it), only the module memory, whose text holds that line, is new."""
    body = "\n\nclass Caf\xe9:\n    '''Cr\xe8me br\xfbl\xe9e.'''\n\n    def na\xefve(self):\n        return '\xe9'\n"
    git_repo.write("menu.py", ("# -*- coding: latin-1 -*-" + body).encode("latin-1"))
    git_repo.commit("latin-1")
    h = Harness("edge", tmp_path / "state", IndexOptions())
    try:
        first = h.sync(git_repo)
        assert first.invalid_utf8 == 0
        before = {m.payload["qualname"]: m for m in h.memories(types=("structural",))}
        assert before["Caf\xe9"].payload["docstring"] == "Cr\xe8me br\xfbl\xe9e."
        git_repo.write("menu.py", ("# -*- coding: utf-8 -*-" + body).encode("utf-8"))
        git_repo.commit("utf-8")
        converted = h.sync(git_repo)
        after = {m.payload["qualname"]: m for m in h.memories(types=("structural",))}
        assert {q: m.id for q, m in after.items() if q != "<module>"} == {
            q: m.id for q, m in before.items() if q != "<module>"
        } == {"Caf\xe9": before["Caf\xe9"].id, "Caf\xe9.na\xefve": before["Caf\xe9.na\xefve"].id}
        # the module's new version (its old one closed), and the commit's task memory
        assert (converted.modified, converted.added, converted.deprecated, converted.embedded) == (1, 0, 1, 2)
    finally:
        h.close()


def test_looking_up_paths_keeps_no_reference_to_them(git_repo):
    """pygit2's ``Tree[path]`` keeps a reference to the path it is given: a daemon that
    looks up every changed path of every sync would hold each string for good. The
    lookup hands it an interned copy, so a new string per lookup is never kept."""
    git_repo.write("pkg/mod.py", "def f():\n    return 1\n")
    commit = git_repo.commit("one file")
    repo = GitRepository(str(git_repo.path))
    assert repo.lookup(commit, "".join(["pkg/", "mod.py"])) is not None  # the one copy kept
    paths = ["".join(["pkg/", "mod.py"]) for _ in range(50)]  # equal strings, each its own object
    before = [sys.getrefcount(p) for p in paths]
    assert all(repo.lookup(commit, p) is not None for p in paths)
    assert [sys.getrefcount(p) for p in paths] == before


def test_vendored_trees_are_excluded_by_default():
    """What linguist counts as vendored (its ``vendors?/`` matches pip's and setuptools'
    ``_vendor/``, its ``third[-_]?party/``) is excluded by the default globs."""
    from recalld.ingest.files import DEFAULT_EXCLUDE, excluded_by

    for path in ("src/pip/_vendor/rich/console.py", "pkg_resources/_vendor/packaging/version.py",
                 "lib/vendor/a.go", "assets/vendors/b.js", "third-party/c.rs", "deps/third_party/d.java"):  # fmt: skip
        assert excluded_by(path, DEFAULT_EXCLUDE), path
    for path in ("src/pip/_internal/vendoring.py", "vendored.py", "src/vendor_utils/x.py", "party/y.py"):
        assert not excluded_by(path, DEFAULT_EXCLUDE), path


def test_a_parser_that_raises_on_one_file_skips_it_and_the_sync_goes_on(git_repo, tmp_path, monkeypatch):
    """``parse`` never raises on bad input; if a bug of its own does on one file, that file
    is skipped (logged with the traceback, counted) and the rest of the repository is
    synced: it failed every sync of the repository, every retry again."""
    from recalld.ingest import collect

    real = collect.parse

    def parse(language, data, *, path=""):  # type: ignore[no-untyped-def]
        if path == "trips.py":
            raise SystemError("a parser's bug")
        return real(language, data, path=path)

    monkeypatch.setattr(collect, "parse", parse)
    with _synced({"ok.py": "def fine():\n    return 1\n", "trips.py": "def tripped():\n    return 2\n"}, git_repo,
                 tmp_path) as (h, result, logs):  # fmt: skip
        assert result.skips == {"parser_error": 1}
        assert {(m.payload["path"], m.payload["qualname"]) for m in h.memories()} >= {("ok.py", "fine")}
        assert "trips.py" not in {m.payload["path"] for m in h.memories()}
        failed = [e for e in logs if e["event"] == "the parser failed on a file: skipped"]
        # by the file reader and by the commit's task memory, which counts the commit's symbols
        assert {(e["path"], e["error"]) for e in failed} == {("trips.py", "SystemError: a parser's bug")}
        assert "Traceback" in failed[0]["traceback"]


@contextmanager
def _synced(files: dict[str, str], repo, root) -> Iterator[tuple[Harness, Any, list[dict[str, Any]]]]:  # type: ignore[no-untyped-def]
    """``files`` committed to ``repo`` and synced into a store under ``root``: the harness,
    the sync's result and what it logged."""
    for path, text in files.items():
        repo.write(path, text)
    repo.commit("one")
    h = Harness("edge", root / "state", IndexOptions())
    try:
        with structlog.testing.capture_logs() as logs:
            result = h.sync(repo)
        yield h, result, logs
    finally:
        h.close()


def test_a_file_the_sync_no_longer_reads_closes_its_memories_as_skipped_not_deleted(git_repo, tmp_path):
    """A file still in the tree that grew past the size limit tells no more what it
    defines: its memories close, but as ``skipped`` (the sync's skips say why), where a
    file deleted closes its own as ``deleted``."""
    git_repo.write("grows.py", "def small():\n    return 1\n")
    git_repo.write("goes.py", "def leaving():\n    return 2\n")
    git_repo.commit("one")
    h = Harness("edge", tmp_path / "state", IndexOptions(max_file_bytes=4096))
    try:
        h.sync(git_repo)
        git_repo.write("grows.py", "def small():\n    return 1\n" + "TABLE = [\n" + "    1,\n" * 1000 + "]\n")
        git_repo.remove("goes.py")
        git_repo.commit("two")
        result = h.sync(git_repo)
        assert result.skips == {"oversized": 1}
        by_path = {(m.payload["path"], m.payload["qualname"]): m.payload["deprecated_reason"]
                   for m in h.memories(deprecated=1) if m.payload["path"].endswith(".py")}  # fmt: skip
        assert by_path == {("grows.py", "<module>"): "skipped", ("grows.py", "small"): "skipped",
                           ("goes.py", "<module>"): "deleted", ("goes.py", "leaving"): "deleted"}  # fmt: skip
        assert not [m for m in h.memories() if m.payload["path"] in {"grows.py", "goes.py"}]
    finally:
        h.close()


def test_a_file_whose_parse_runs_past_its_deadline_is_skipped_and_the_sync_goes_on(git_repo, tmp_path, monkeypatch):
    """tree-sitter's error recovery can take far longer than a file is long (285 kB of
    mutated Python read as Lua: 15 s): a parse past ``parsers.PARSE_SECONDS`` is given up,
    the file skipped as ``parse_timeout`` (logged), the rest synced; a file under the
    size it is watched from is parsed without the clock. A deadline that has already
    passed stands in for a slow parse."""
    import recalld.parsers

    monkeypatch.setattr(recalld.parsers, "PARSE_SECONDS", 0.0)
    big = "".join(f"def f{n}(x):\n    return x + {n}\n\n\n" for n in range(1000))  # ~30 kB
    with _synced({"big.py": big, "small.py": "def fine():\n    return 1\n"}, git_repo, tmp_path) as (h, result, logs):
        assert result.skips == {"parse_timeout": 1}
        assert {m.payload["path"] for m in h.memories(types=("structural",))} == {"small.py"}
        gave_up = [e for e in logs if e["event"] == "the parser gave up on a file past its deadline: skipped"]
        assert {(e["path"], e["language"]) for e in gave_up} == {("big.py", "python")}
