"""A scripted git history synced step by step: after every sync the live memories are
exactly the tip's symbols and derived entries (debt comments, decision sections, tool
preferences, one project memory), and every stale memory is closed with the right reason."""

from __future__ import annotations

import ast
import re
import subprocess
from collections import Counter

import pytest

from recalld.parsers import language_for_path, parse
from tests.ingest.conftest import StoreWrapper

PY_CORE = '''"""Core engine."""
import os


class Engine:
    """Runs jobs."""

    class Config:
        def load(self, path):
            return path

    def start(self):
        def inner():
            return 1
        return inner()

    def stop(self):
        return os.getpid()


def helper(x):
    """Help."""
    return x + 1


def unused():
    return None


if os.name == "nt":
    def platform_hook():
        return "nt"
else:
    def platform_hook():
        return "posix"
'''

FILES = {
    "app/core.py": PY_CORE,
    "app/util.py": "def util_one():\n    return 1\n\n\ndef util_two():\n    return 2\n",
    "web/app.js": "// Greets.\nfunction greet(name) {\n  return `hi ${name}`;\n}\nclass Widget {\n  render() { return 1; }\n}\n",
    "web/types.ts": "export interface Shape {\n  area(): number;\n}\nexport class Square implements Shape {\n  area(): number { return 4; }\n}\n",
    "web/comp.tsx": "export function Button(props: {label: string}) {\n  return <button>{props.label}</button>;\n}\n",
    "svc/main.go": "package main\n\n// Server serves.\ntype Server struct{}\n\n// Start starts.\nfunc (s *Server) Start() error { return nil }\n\nfunc main() {}\n",
    "lib/src/lib.rs": "/// A point.\npub struct Point { x: i32 }\n\nimpl Point {\n    pub fn new(x: i32) -> Self { Point { x } }\n}\n\npub fn free() {}\n",
    "java/App.java": "public class App {\n    /** Entry. */\n    public static void main(String[] args) {}\n    void run() {}\n}\n",
    "app/debt.py": "def slow():\n    # TODO: cache this\n    return 1\n\n\n# FIXME: module-level wart\n",
    "pyproject.toml": '[tool.pytest.ini_options]\ntestpaths = ["tests"]\n\n[tool.ruff]\nline-length = 100\n',
    "docs/adr/0001-use-qdrant.md": "# 1. Use Qdrant\n\n## Status\n\nAccepted\n\n## Decision\n\nStore vectors in Qdrant.\n",
}


CONTENT = ("docstring", "signature", "start_line", "end_line", "content_hash")


def stored_contents(h) -> dict[tuple[str, str, str], tuple]:  # type: ignore[no-untyped-def]
    """(path, kind, qualname) → the CONTENT fields of every live code memory in the store."""
    return {(m.payload["path"], m.payload["kind"], m.payload["qualname"]): tuple(m.payload.get(f) for f in CONTENT)
            for m in h.memories(types=("structural",))}  # fmt: skip


def tip_contents(repo, *, derived: bool = False) -> dict[tuple[str, str, str], tuple]:
    """(path, kind, qualname) → the CONTENT fields of every symbol (or derived entry) at
    HEAD, parsed independently of the store."""
    expected = {}
    for path in repo.git("ls-tree", "-r", "--name-only", "HEAD").splitlines():
        language = language_for_path(path)
        if language is None:
            continue
        data = subprocess.run(
            ["git", "show", f"HEAD:{path}"], cwd=repo.path, capture_output=True, check=True
        ).stdout
        parsed = parse(language, data, path=path)
        for s in parsed.derived if derived else parsed.symbols:
            expected[(path, s.kind, s.qualname)] = tuple(getattr(s, f) for f in CONTENT)
    return expected


def tip_symbols(repo, *, derived: bool = False) -> set[tuple[str, str, str]]:
    return set(tip_contents(repo, derived=derived))


def ast_symbols(source: str) -> set[tuple[str, str]]:
    """An independent listing for Python: classes, functions, methods, not nested in functions."""
    found: list[tuple[str, str]] = []

    def visit(body, prefix: str, in_class: bool) -> None:
        for node in body:
            if isinstance(node, ast.ClassDef):
                found.append(("class", prefix + node.name))
                visit(node.body, prefix + node.name + ".", True)
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                found.append(("method" if in_class else "function", prefix + node.name))
            elif isinstance(node, (ast.If, ast.Try, ast.With, ast.For, ast.While)):
                for block in ("body", "orelse", "finalbody"):
                    visit(getattr(node, block, []), prefix, in_class)
                for handler in getattr(node, "handlers", []):
                    visit(handler.body, prefix, in_class)

    visit(ast.parse(source).body, "", False)
    counts: Counter[tuple[str, str]] = Counter()
    listing = set()
    for kind, name in found:
        counts[(kind, name)] += 1
        n = counts[(kind, name)]
        listing.add((kind, name if n == 1 else f"{name}#{n}"))
    return listing | {("module", "<module>")}


def assert_exact(h, repo) -> dict:
    live = h.memories()
    keys = [(m.payload["path"], m.payload["kind"], m.payload["qualname"]) for m in live]
    assert len(keys) == len(set(keys)), "duplicate live memories"
    by_type = {t: {k for k, m in zip(keys, live) if m.payload["type"] == t} for t in {m.payload["type"] for m in live}}
    expected = tip_contents(repo)
    assert by_type.pop("structural") == set(expected)
    stored = {k: tuple(m.payload.get(f) for f in CONTENT) for k, m in zip(keys, live) if k in expected}
    assert stored == expected  # docstrings, signatures, lines and hashes as a fresh parse gives them
    assert by_type.pop("project") == {(".", "structure", "<project>")}
    assert set().union(*by_type.values()) == tip_symbols(repo, derived=True)
    assert set(by_type) == {"debt", "decision", "preference"}
    keys = [k for k, m in zip(keys, live) if m.payload["type"] == "structural"]
    for path in {k[0] for k in keys if k[0].endswith(".py")}:
        source = repo.git("show", f"HEAD:{path}") + "\n"
        assert {(k, q) for p, k, q in keys if p == path} == ast_symbols(source)
    closed = h.memories(deprecated=1)
    for m in closed:
        assert m.payload["deprecated_reason"] in {"modified", "removed", "deleted", "renamed"}
        assert m.payload["valid_to_commit"]
    assert all(m.payload.get("valid_to_commit") is None for m in live)  # edge: a key set to None is dropped
    return {(m.payload["path"], m.payload["qualname"]): m for m in live}


def closed_by_key(h) -> dict:
    return {(m.payload["path"], m.payload["qualname"]): m for m in h.memories(deprecated=1)}


def test_scripted_history_stays_exact(harness, git_repo):
    h, repo = harness, git_repo
    files = dict(FILES)
    for path, text in files.items():
        repo.write(path, text)
    repo.commit("initial")
    first = h.sync(repo)
    assert first.mode == "full" and first.added > 20
    live = assert_exact(h, repo)
    assert ("svc/main.go", "Server.Start") in live
    assert ("lib/src/lib.rs", "Point.new") in live
    assert ("app/core.py", "Engine.Config.load") in live
    assert ("app/core.py", "platform_hook#2") in live
    assert ("app/core.py", "inner") not in live and ("app/core.py", "Engine.start.inner") not in live

    # edit a function
    old_helper = live[("app/core.py", "helper")]
    repo.write("app/core.py", PY_CORE.replace("return x + 1", "return x + 2"))
    repo.commit("edit helper")
    r = h.sync(repo)
    assert r.mode == "incremental" and r.modified >= 1
    live = assert_exact(h, repo)
    new_helper = live[("app/core.py", "helper")]
    closed = {m.id: m for m in h.memories(deprecated=1)}
    assert closed[old_helper.id].payload["deprecated_reason"] == "modified"
    assert closed[old_helper.id].payload["superseded_by"] == new_helper.id
    assert new_helper.payload["lineage"] == old_helper.payload["lineage"]

    # edit only the doc comments above definitions (outside their nodes): new versions
    doc_edits = {
        "web/app.js": ("// Greets.", "// Greets warmly."),
        "svc/main.go": ("// Start starts.", "// Start starts the server."),
        "lib/src/lib.rs": ("/// A point.", "/// A point on a line."),
        "java/App.java": ("/** Entry. */", "/** The entry point. */"),
    }
    documented = [live[key] for key in [("web/app.js", "greet"), ("svc/main.go", "Server.Start"),
                                        ("lib/src/lib.rs", "Point"), ("java/App.java", "App.main")]]  # fmt: skip
    for path, (before, after) in doc_edits.items():
        repo.write(path, files[path].replace(before, after))
    repo.commit("reword doc comments")
    r = h.sync(repo)
    assert r.embedded >= 4
    live = assert_exact(h, repo)
    closed = {m.id: m for m in h.memories(deprecated=1)}
    for old in documented:
        new = live[(old.payload["path"], old.payload["qualname"])]
        assert closed[old.id].payload["superseded_by"] == new.id and new.payload["docstring"] in new.payload["text"]
    for path in doc_edits:
        files[path] = files[path].replace(*doc_edits[path])

    # delete a function
    unused = live[("app/core.py", "unused")]
    repo.write("app/core.py", PY_CORE.replace("return x + 1", "return x + 2").replace(
        "def unused():\n    return None\n\n\n", ""))  # fmt: skip
    repo.commit("drop unused")
    h.sync(repo)
    live = assert_exact(h, repo)
    assert {m.id: m for m in h.memories(deprecated=1)}[unused.id].payload["deprecated_reason"] == "removed"

    # delete a file
    greet = live[("web/app.js", "greet")]
    repo.remove("web/app.js")
    repo.commit("delete app.js")
    h.sync(repo)
    live = assert_exact(h, repo)
    assert {m.id: m for m in h.memories(deprecated=1)}[greet.id].payload["deprecated_reason"] == "deleted"

    # pure git mv: renamed, same lineage, zero embeddings
    start = live[("svc/main.go", "Server.Start")]
    repo.git("mv", "svc/main.go", "svc/server.go")
    repo.commit("rename go file")
    r = h.sync(repo)
    assert r.embedded == 2 and r.derived["project"] == r.tasks_added == 1 and r.renamed >= 3  # "svc/main.go" left the entry points
    live = assert_exact(h, repo)
    moved = live[("svc/server.go", "Server.Start")]
    old = {m.id: m for m in h.memories(deprecated=1)}[start.id]
    assert old.payload["deprecated_reason"] == "renamed" and old.payload["superseded_by"] == moved.id
    assert moved.payload["lineage"] == start.payload["lineage"]

    # git mv with an edit
    run = live[("java/App.java", "App.run")]
    repo.git("mv", "java/App.java", "java/Main.java")
    repo.write("java/Main.java", files["java/App.java"].replace("void run() {}", "void run() { int x = 1; }"))
    repo.commit("rename and edit java")
    h.sync(repo)
    live = assert_exact(h, repo)
    moved = live[("java/Main.java", "App.run")]
    old = {m.id: m for m in h.memories(deprecated=1)}[run.id]
    assert old.payload["deprecated_reason"] == "renamed" and old.payload["superseded_by"] == moved.id
    assert moved.payload["lineage"] == run.payload["lineage"]

    # move a directory: zero embeddings
    todo = live[("app/debt.py", next(q for p, q in live if p == "app/debt.py" and ":todo:" in q))]
    repo.git("mv", "app", "src")
    before_move = repo.commit("move app to src")
    r = h.sync(repo)
    assert r.embedded == 2 and r.derived["project"] == r.tasks_added == 1  # the project layout and the commit
    live = assert_exact(h, repo)
    assert ("src/core.py", "Engine.stop") in live
    moved = live[("src/debt.py", todo.payload["qualname"])]
    assert moved.payload["lineage"] == todo.payload["lineage"] and moved.payload["enclosing"] == "slow"
    assert {m.id: m for m in h.memories(deprecated=1)}[todo.id].payload["deprecated_reason"] == "renamed"

    # reset --hard two commits back, then sync: exact again, nothing embedded
    repo.write("src/extra.py", "def extra():\n    return 3\n")
    repo.commit("add extra")
    h.sync(repo)
    repo.git("reset", "-q", "--hard", "HEAD~2")
    r = h.sync(repo)
    assert r.embedded == 0
    live = assert_exact(h, repo)
    assert ("app/core.py", "helper") in live and ("src/extra.py", "extra") not in live

    # rebase main onto a side branch
    repo.git("checkout", "-q", "-b", "side", "HEAD~1")
    repo.write("lib/src/other.rs", "pub trait Shape {\n    fn area(&self) -> f64 { 0.0 }\n}\n")
    repo.commit("side work")
    repo.git("checkout", "-q", "main")
    repo.git("rebase", "-q", "side")
    h.sync(repo)
    live = assert_exact(h, repo)
    assert ("lib/src/other.rs", "Shape.area") in live

    # amend the tip
    repo.write("web/types.ts", files["web/types.ts"] + "export type Id = string;\n")
    repo.git("add", "-A")
    repo.git("commit", "-q", "--amend", "-m", "amended")
    h.sync(repo)
    assert_exact(h, repo)
    assert before_move != repo.head()


def test_second_sync_writes_and_embeds_nothing(harness, git_repo):
    h, repo = harness, git_repo
    for path, text in FILES.items():
        repo.write(path, text)
    repo.commit("initial")
    h.sync(repo)
    writes = CountingStore.wrap(h)
    again = h.sync(repo)
    assert (again.mode, again.embedded, again.added, again.deprecated) == ("noop", 0, 0, 0)
    full = h.sync(repo, full=True)
    assert (full.embedded, full.added, full.modified, full.deprecated, full.relocated) == (0, 0, 0, 0, 0)
    assert writes.count == 0


def test_reverted_code_reopens_its_point_with_history(harness, git_repo):
    h, repo = harness, git_repo
    repo.write("a.py", "def f():\n    return 1\n")
    repo.commit("v1")
    h.sync(repo)
    (v1,) = [m for m in h.memories() if m.payload["qualname"] == "f"]
    repo.write("a.py", "def f():\n    return 2\n")
    repo.commit("v2")
    h.sync(repo)
    repo.write("a.py", "def f():\n    return 1\n")
    repo.commit("back to v1")
    r = h.sync(repo)
    assert r.embedded == r.tasks_added == 1
    (again,) = [m for m in h.memories() if m.payload["qualname"] == "f"]
    assert again.id == v1.id
    assert [e["deprecated_reason"] for e in again.payload["history"]] == ["modified"]


def test_a_sync_stamps_the_intervals_it_opens_and_closes_after_the_last_one(harness, git_repo, monkeypatch):
    """Each sync's stamp orders the branch's syncs, the clock put back or not; a close
    records where the branch was before it (``valid_through_commit``)."""
    h, repo = harness, git_repo
    repo.write("a.py", "def f():\n    return 1\n")
    c1 = repo.commit("v1")
    h.sync(repo)
    first = h.checkpoint()["sync_stamp"]
    (v1,) = [m for m in h.memories() if m.payload["qualname"] == "f"]
    assert v1.payload["valid_from_sync"] == first and v1.payload["valid_to_sync"] is None
    monkeypatch.setattr("time.time_ns", lambda: 0)  # the clock went back
    repo.write("a.py", "def f():\n    return 2\n")
    c2 = repo.commit("v2")
    h.sync(repo)
    assert h.checkpoint()["sync_stamp"] == first + 1
    (closed,) = [m for m in h.memories(deprecated=1) if m.payload["qualname"] == "f"]
    assert closed.id == v1.id and closed.payload["valid_to_sync"] == first + 1
    assert (closed.payload["valid_to_commit"], closed.payload["valid_through_commit"]) == (c2, c1)
    (v2,) = [m for m in h.memories() if m.payload["qualname"] == "f"]
    assert v2.payload["valid_from_sync"] == first + 1


class CountingStore(StoreWrapper):
    """Wraps a harness's store and counts every write."""

    def __init__(self, inner) -> None:
        super().__init__(inner)
        self.count = 0

    @classmethod
    def wrap(cls, h):
        counting = cls(h.store)
        h.indexer.store = counting
        return counting

    def before_write(self, name: str, args: tuple) -> None:
        self.count += 1


def test_memories_an_earlier_extractor_made_are_compared_again(harness, git_repo, monkeypatch):
    """Version 1 hashed a definition's source alone: a reworded doc comment above
    unchanged code left the memory's docstring (and embedded text) stale. A branch
    indexed under it is compared whole on its next sync, even with no new commit."""
    import hashlib

    from recalld.ingest.parse_memo import PARSED
    from recalld.ingest.plan import Scope
    from recalld.ingest.records import checkpoint_id, checkpoint_point
    from recalld.parsers import extract
    from recalld.parsers.extraction import EXTRACTION_VERSION

    h, repo = harness, git_repo
    repo.write("web/app.js", "// Greets.\nfunction greet(name) {\n  return name;\n}\n")
    repo.write("app/util.py", 'def util_one():\n    """One."""\n    return 1\n')
    repo.commit("initial")
    monkeypatch.setattr(extract, "content_hash", lambda source, **_: hashlib.sha256(source).hexdigest())
    h.sync(repo)
    repo.write("web/app.js", "// Greets by name.\nfunction greet(name) {\n  return name;\n}\n")
    repo.commit("reword")
    h.sync(repo)
    old = checkpoint_point(Scope("r", "main"), commit=repo.head(), pending=None)
    del old.payload["extraction"]  # as version 1 wrote it
    h.store.upsert([old])
    before = {m.payload["qualname"]: m for m in h.memories()}
    assert before["greet"].payload["docstring"] == "Greets."  # the stale memory version 1 left
    monkeypatch.undo()
    PARSED.trim(0)  # the parses version 1 made are not this version's (a new process in life)

    r = h.sync(repo)
    assert r.mode == "full" and r.modified == 1 and r.embedded >= 1
    after = {m.payload["qualname"]: m for m in h.memories()}
    assert after["greet"].payload["docstring"] == "Greets by name." and "by name" in after["greet"].payload["text"]
    assert after["util_one"].id == before["util_one"].id  # a docstring inside the code: hash as before
    stored = {(m.payload["path"], m.payload["kind"], m.payload["qualname"]): tuple(m.payload.get(f) for f in CONTENT)
              for m in h.memories(types=("structural",))}  # fmt: skip
    assert stored == tip_contents(repo)
    [checkpoint] = h.store.retrieve([checkpoint_id(Scope("r", "main"))])
    assert checkpoint.payload["extraction"] == EXTRACTION_VERSION
    again = h.sync(repo)
    assert again.added == again.modified == again.deprecated == 0 and again.mode != "full"


OVERLOADED = """public class Codec {{
{above}
    /** Decodes a number. */
    public int decode(int raw) {{
        return raw;
    }}
}}
"""
DECODE_STRING = """    /** Decodes text. */
    public int decode(String raw) {
        return raw.length();
    }
"""
DECODE_BYTES = """    public int decode(byte[] raw, int... offsets) {
        return raw.length;
    }
"""
ANONYMOUS = """    private final Runnable task = new Runnable() {
        public void decode(int raw) {}
    };
"""


def as_an_earlier_extractor_left_it(h, repo, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """The store as an earlier extractor left it (what ``monkeypatch`` made it read): its
    checkpoint says the version before this one; this extractor reads again, afresh."""
    from recalld.ingest.parse_memo import PARSED
    from recalld.ingest.plan import Scope
    from recalld.ingest.records import checkpoint_point
    from recalld.parsers.extraction import EXTRACTION_VERSION

    old = checkpoint_point(Scope("r", "main"), commit=repo.head(), pending=None)
    old.payload["extraction"] = EXTRACTION_VERSION - 1
    h.store.upsert([old])
    monkeypatch.undo()
    PARSED.trim(0)


WRAPPED = (
    "def connect(\n    host: str,  # where\n    port: int = 5432,\n) -> None:\n    return None\n\n\n"
    "def gone(\n    a,\n):\n    return a\n"
)


def test_signatures_an_earlier_extractor_read_otherwise_are_read_again(harness, git_repo, monkeypatch):
    """A signature is no part of a memory's id: code an earlier extractor read with its
    comments and line breaks keeps its id, its history and its vectors, and gets this
    extractor's signature (on the sync that compares every file, and when closed code
    comes back)."""
    from recalld.ingest.sparse import query_vector
    from recalld.ingest.store import MemoryFilter
    from recalld.parsers import signatures

    h, repo = harness, git_repo
    repo.write("db.py", f"import os\n\n\n{WRAPPED}")
    repo.commit("initial")
    never = re.compile(r"(\b\B)")  # breaks and comments as an earlier extractor read them
    monkeypatch.setattr(signatures, "_WRAPPED_OPEN", never)
    monkeypatch.setattr(signatures, "_WRAPPED_CLOSE", never)
    monkeypatch.setattr(signatures, "_code_text", lambda node, data, end: data[node.start_byte : end].decode())
    h.sync(repo)
    first = {m.payload["qualname"]: m for m in h.memories()}
    assert first["connect"].payload["signature"] == "def connect( host: str, # where port: int = 5432, ) -> None"
    repo.write("db.py", "import os\n\n\n" + WRAPPED.split("\n\n\ndef gone")[0] + "\n")
    repo.commit("gone goes")
    h.sync(repo)
    as_an_earlier_extractor_left_it(h, repo, monkeypatch)

    r = h.sync(repo)
    assert r.mode == "full" and (r.added, r.modified, r.deprecated, r.embedded) == (0, 0, 0, 0)
    now = {m.payload["qualname"]: m for m in h.memories()}
    assert now["connect"].id == first["connect"].id and now["connect"].payload["valid_from_commit"] == (
        first["connect"].payload["valid_from_commit"]
    )
    assert now["connect"].payload["signature"] == "def connect(host: str, port: int = 5432) -> None"
    assert r.relocated == 2  # connect's signature; the module, whose keywords are its members' signatures
    module = next(m for m in h.memories() if m.payload["qualname"] == "<module>")
    found = h.store.hybrid_search(None, query_vector("where"), MemoryFilter(repo="r"), 10)
    assert now["connect"].id in {m.point.id for m in found} and module.id not in {m.point.id for m in found}  # its word
    repo.write("db.py", f"import os\n\n\n{WRAPPED}")
    repo.commit("gone comes back")
    back = h.sync(repo)
    assert back.embedded == back.tasks_added  # the commit's task alone: the code's points come back
    (gone,) = [m for m in h.memories() if m.payload["qualname"] == "gone"]
    assert gone.id == first["gone"].id and gone.payload["signature"] == "def gone(a)"
    again = h.sync(repo)
    assert (again.added, again.modified, again.deprecated, again.relocated) == (0, 0, 0, 0)


def test_a_signature_changed_outside_its_code_is_written_on_an_ordinary_sync(harness, git_repo):
    """MediaWiki 1.43 made ``var …, isSelected = function ( dt )`` ``const …``: the
    declarator's code, and so the function's id, unchanged, its signature not; the signature
    stayed ``var …`` where a fresh index reads ``const …``. One stored redacted is written again
    whole rather than compared."""
    h, repo = harness, git_repo
    calendar = "{} a = 1,\n  isSelected = function ( dt ) {{\n  return dt;\n}};\nfunction other() {{{}}}\n"

    def commit_and_sync(keyword: str, other: str):  # type: ignore[no-untyped-def]
        repo.write("cal.js", calendar.format(keyword, other))
        repo.commit(f"{keyword}, {other}")
        result = h.sync(repo)
        (selected,) = [m for m in h.memories() if m.payload["qualname"] == "isSelected"]
        return result, selected

    _result, before = commit_and_sync("var", "")
    r, after = commit_and_sync("const", " return 1; ")
    assert after.id == before.id and after.payload["signature"] == "const isSelected = function ( dt )"
    assert r.relocated >= 1 and r.embedded == r.tasks_added + 2  # ``other``'s new version and the module
    h.store.set_payload([after.id], {"signature": "const [REDACTED:cut-token]"})
    _result, again = commit_and_sync("const", " return 2; ")
    assert again.id == before.id and again.payload["signature"] == "const isSelected = function ( dt )"


def test_names_an_earlier_extractor_numbered_continue_as_this_ones_names(harness, git_repo, monkeypatch):
    """A setter, a class's own method and a C++ specialisation's member an earlier extractor
    numbered by order (``value#2``, ``controller_path#2``, ``max_digits()#2``) are this
    one's ``value=``, ``self.controller_path`` and ``format<float>.max_digits``: the same
    code continues its lineage, renamed, and nothing else moves."""
    from recalld.parsers import declarators, namesakes, written_names

    h, repo = harness, git_repo
    repo.write("box.js", "class Box {\n  get value() { return 1; }\n  set value(v) {}\n}\n")
    repo.write("base.rb", "class Base\n  def controller_path; end\n  def self.controller_path; end\nend\n")
    repo.write("format.hpp", "".join(
        f"template <> inline int format<{t}>::max_digits() {{ return {n}; }}\n" for t, n in (("double", 769), ("float", 114))
    ))  # fmt: skip
    repo.commit("initial")
    monkeypatch.setattr(written_names, "accessor_name", lambda _node, _named, name, _data: name)
    monkeypatch.setattr(namesakes, "_on_the_class", lambda *_args: False)
    monkeypatch.setattr(declarators, "MAX_SPECIALISATION", -1)
    h.sync(repo)
    first = {m.payload["qualname"]: m.payload for m in h.memories()}
    assert {"Box.value#2", "Base.controller_path#2", "format.max_digits()#2"} <= set(first)
    as_an_earlier_extractor_left_it(h, repo, monkeypatch)
    r = h.sync(repo)
    now = {m.payload["qualname"]: m.payload for m in h.memories()}
    assert now["Box.value="]["lineage"] == first["Box.value#2"]["lineage"]
    assert now["Base.self.controller_path"]["lineage"] == first["Base.controller_path#2"]["lineage"]
    assert now["format<float>.max_digits"]["lineage"] == first["format.max_digits()#2"]["lineage"]
    assert now["format<double>.max_digits"]["lineage"] == first["format.max_digits()"]["lineage"]
    assert (r.added, r.renamed) == (0, 4)


def test_docstrings_an_earlier_extractor_read_otherwise_are_read_again(harness, git_repo, monkeypatch):
    """A module's docstring is no part of its id (its hash is the file's), nor is a Python
    docstring's cleaning: code an earlier extractor read a docstring of otherwise (zod's
    section banners, a licence notice) keeps its id, lineage, interval and history, and
    gets this extractor's docstring and the text and vectors made with it."""
    from recalld.parsers import extract

    h, repo = harness, git_repo
    repo.write("web/zsf.ts", "////////////////////\n//////////   TYPES   //////////\n////////////////////\n\nexport type Id = string;\n")
    repo.write("app/util.py", 'def util_one():\n    """One."""\n    return 1\n')
    repo.write("app/gone.py", "def gone():\n    return 0\n")
    repo.commit("initial")
    monkeypatch.setattr(extract, "module_docstring", lambda *_read: "TYPES as an earlier extractor read it")
    h.sync(repo)
    gone = {m.payload["qualname"]: m.id for m in h.memories() if m.payload["path"] == "app/gone.py"}
    repo.write("app/util.py", 'def util_one():\n    """One."""\n    return 2\n')
    repo.remove("app/gone.py")
    repo.commit("edit")
    h.sync(repo)
    first = {(m.payload["path"], m.payload["qualname"]): m for m in h.memories()}
    module = first[("web/zsf.ts", "<module>")]
    earlier = "TYPES as an earlier extractor read it"
    assert module.payload["docstring"] == earlier and module.payload["text"].startswith(f"typescript module\n{earlier}\n")
    as_an_earlier_extractor_left_it(h, repo, monkeypatch)

    r = h.sync(repo)
    assert r.mode == "full" and (r.added, r.modified, r.deprecated) == (0, 0, 0)
    assert r.relocated == 2  # the modules of both files; no signature or docstring of util_one changed
    now = {(m.payload["path"], m.payload["qualname"]): m for m in h.memories()}
    after = now[("web/zsf.ts", "<module>")]
    assert after.id == module.id and after.payload["docstring"] == ""
    assert after.payload["text"].startswith("typescript module\n////////////////////\n")  # the file, no docstring
    for field in ("lineage", "valid_from_commit", "valid_from_time", "author", "history", "change"):
        assert after.payload.get(field) == module.payload.get(field), field
    [expected] = h.embedder.encode([after.payload["text"]])
    assert h.store.get_vectors([after.id])[after.id] == pytest.approx(list(expected), abs=1e-6)  # of the new text
    assert stored_contents(h) == tip_contents(repo)
    again = h.sync(repo)
    assert (again.added, again.modified, again.deprecated, again.relocated) == (0, 0, 0, 0)
    repo.write("app/gone.py", "def gone():\n    return 0\n")  # closed under the earlier reading, back now
    repo.commit("gone comes back")
    h.sync(repo)
    back = {m.payload["qualname"]: m for m in h.memories() if m.payload["path"] == "app/gone.py"}
    assert {q: m.id for q, m in back.items()} == gone and back["<module>"].payload["docstring"] == ""
    assert stored_contents(h) == tip_contents(repo)


def as_earlier_secret_rules_read(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """The secret rules as releases before 16 read: an Artifactory password may be a
    name made of words (``APCUPSdData``). ``as_an_earlier_extractor_left_it`` undoes it."""
    import dataclasses

    from recalld.ingest import secrets

    earlier = tuple(dataclasses.replace(r, accept=None) if r.kind == "artifactory-credentials" else r
                    for r in secrets.scanner().rules)  # fmt: skip
    scan = secrets.Scanner.of(earlier)
    monkeypatch.setattr(secrets, "scanner", lambda: scan)
    secrets.forget_clean()


def test_redactions_earlier_rules_made_are_made_again_by_this_releases(harness, git_repo, monkeypatch):
    """Earlier rules read Home Assistant's class name ``APCUPSdData`` as an Artifactory
    password and redacted its name, qualified name and text. On the sync that compares
    every file, a memory stored with a redaction is written again under its id, lineage
    and interval kept, by this release's rules: the name comes back, a real secret stays
    redacted. A closed one an earlier release wrote is written again when it comes back."""
    from recalld.ingest import secrets
    from recalld.ingest.store import MemoryFilter

    h, repo = harness, git_repo
    repo.write("apc.py", 'class APCUPSdData(dict):\n    """UPS data."""\n\n    def model(self):\n        return 1\n')
    repo.write("gh.py", 'def client():\n    return Github("ghp_' + "R7kQ2mZx9LpW4vN8bT3sF6hJ1cY5dG0aUeIo" + '")\n')
    repo.write("bridge.py", "class APBridgeAdapter:\n    pass\n")
    repo.commit("initial")
    as_earlier_secret_rules_read(monkeypatch)
    h.sync(repo)
    repo.remove("bridge.py")
    repo.commit("bridge goes")
    h.sync(repo)
    first = {m.payload["path"]: m for m in h.memories() if m.payload["kind"] in ("class", "function")}
    assert first["apc.py"].payload["name"] == "[REDACTED:artifactory-credentials]"
    first_tasks = {m.payload["subject"]: m.payload for m in h.memories(types=("task",))}
    assert "REDACTED" in first_tasks["initial"]["text"]
    closed = [p for p in h.store.scroll(MemoryFilter(repo="r", deprecated=True), fields=("path",))
              if p.payload["path"] == "bridge.py"]  # fmt: skip
    h.store.set_payload([p.id for p in closed], {"payload_version": 1})  # as an earlier release wrote them
    as_an_earlier_extractor_left_it(h, repo, monkeypatch)
    secrets.forget_clean()

    r = h.sync(repo)
    assert r.mode == "full" and (r.added, r.modified, r.deprecated) == (0, 0, 0)
    now = {m.payload["path"]: m for m in h.memories() if m.payload["kind"] in ("class", "function")}
    apc = now["apc.py"]
    assert apc.id == first["apc.py"].id and (apc.payload["name"], apc.payload["qualname"]) == ("APCUPSdData",) * 2
    assert "REDACTED" not in apc.payload["text"] and apc.payload["symbol_key"].endswith(":class:APCUPSdData")
    for field in ("lineage", "valid_from_commit", "history", "change"):
        assert apc.payload.get(field) == first["apc.py"].payload.get(field), field
    assert "[REDACTED:github-token]" in now["gh.py"].payload["text"]  # still a secret
    module = next(m for m in h.memories() if m.payload["path"] == "apc.py" and m.payload["kind"] == "module")
    assert "REDACTED" not in module.payload["text"]
    tasks = {m.payload["subject"]: m.payload for m in h.memories(types=("task",))}
    assert "APCUPSdData" in tasks["initial"]["text"] and "REDACTED" not in tasks["initial"]["text"]  # its symbols
    apc_symbols = next(f["added"] for f in tasks["initial"]["symbols"] if f["path"] == "apc.py")
    assert apc_symbols == ["APCUPSdData", "APCUPSdData.model"] and r.tasks_added == 2  # "bridge goes" too
    again = h.sync(repo)
    assert (again.added, again.modified, again.deprecated, again.relocated) == (0, 0, 0, 0)
    repo.write("bridge.py", "class APBridgeAdapter:\n    pass\n")
    repo.commit("bridge comes back")
    h.sync(repo)
    back = next(m for m in h.memories() if m.payload["path"] == "bridge.py" and m.payload["kind"] == "class")
    assert back.id in {p.id for p in closed} and back.payload["name"] == "APBridgeAdapter"


def test_a_task_memory_earlier_rules_redacted_is_written_again_when_no_code_changes(harness, git_repo, monkeypatch):
    """The sync after an upgrade writes through even when its plan is empty: the task
    step then writes again a commit's memory whose subject earlier rules redacted."""
    from recalld.ingest import secrets

    h, repo = harness, git_repo
    repo.write("ups.py", "def status():\n    return 1\n")
    repo.commit("Read the APCUPSdData fields")
    as_earlier_secret_rules_read(monkeypatch)
    h.sync(repo)
    (task,) = h.memories(types=("task",))
    assert "REDACTED" in task.payload["subject"]
    as_an_earlier_extractor_left_it(h, repo, monkeypatch)
    secrets.forget_clean()

    r = h.sync(repo)
    assert (r.added, r.modified, r.relocated, r.tasks_added) == (0, 0, 0, 1)
    (again,) = h.memories(types=("task",))
    assert again.id == task.id and again.payload["subject"] == "Read the APCUPSdData fields"
    assert h.sync(repo).tasks_added == 0


def test_a_task_memory_this_releases_rules_redacted_is_not_written_again_by_full(harness, git_repo):
    """Only an earlier release's redactions are written again: a token this release's
    rules take stays redacted, and a --full sync leaves its commit's memory alone."""
    h, repo = harness, git_repo
    repo.write("gh.py", "def client():\n    return 1\n")
    repo.commit("Use the token ghp_" + "R7kQ2mZx9LpW4vN8bT3sF6hJ1cY5dG0aUeIo")
    h.sync(repo)
    (task,) = h.memories(types=("task",))
    assert "REDACTED" in task.payload["subject"]
    repo.write("gh.py", "def client():\n    return 2\n")
    repo.commit("Return two")
    r = h.sync(repo, full=True)
    assert (r.mode, r.tasks_added, r.tasks_deprecated) == ("full", 1, 0)  # the new commit's only
    assert next(m for m in h.memories(types=("task",)) if m.id == task.id).payload == task.payload


def test_an_overload_added_above_another_leaves_it_alone(harness, git_repo):
    """Java overloads are named by their parameter types: the method that was alone
    becomes ``decode(int)``, a rename that keeps its lineage, and a third overload or an
    anonymous class's method of the same name added above it later changes nothing of it."""
    h, repo = harness, git_repo

    def decode_methods() -> dict[str, object]:
        return {m.payload["qualname"]: m for m in h.memories() if m.payload["kind"] == "method"}

    repo.write("Codec.java", OVERLOADED.format(above=""))
    repo.commit("one decode")
    h.sync(repo)
    (alone,) = decode_methods().values()
    assert alone.payload["qualname"] == "Codec.decode"

    repo.write("Codec.java", OVERLOADED.format(above=DECODE_STRING))
    repo.commit("decode text too")
    r = h.sync(repo)
    second = decode_methods()
    assert set(second) == {"Codec.decode(String)", "Codec.decode(int)"}
    typed = second["Codec.decode(int)"]
    assert (r.renamed, typed.payload["change"], typed.payload["lineage"]) == (1, "renamed", alone.payload["lineage"])
    assert second["Codec.decode(String)"].payload["docstring"] == "Decodes text."

    repo.write("Codec.java", OVERLOADED.format(above=ANONYMOUS + DECODE_BYTES + DECODE_STRING))
    repo.commit("decode bytes, and a task")
    r = h.sync(repo)
    third = decode_methods()
    assert set(third) == {"Codec.decode(byte[], int...)", "Codec.decode(String)", "Codec.decode(int)"}
    assert (r.added, r.renamed) == (1, 0)  # the class and its module changed, no method did
    for qualname in ("Codec.decode(String)", "Codec.decode(int)"):
        assert third[qualname].id == second[qualname].id


def test_a_namesake_added_above_others_embeds_only_itself(harness, git_repo, monkeypatch):
    """Repeats of a name are numbered in source order (``check``, ``check#2``, …): one
    added above them renumbers them all, each moved under its next number with its
    lineage, and embeds no text of theirs again (the mark is no part of the text)."""
    h, repo = harness, git_repo

    def check(n: int) -> str:
        return f"@register\ndef check():\n    return rule_{n}()\n\n\n"

    repo.write("checks.py", "".join(check(n) for n in range(1, 6)))
    repo.commit("five checks")
    h.sync(repo)
    before = {m.payload["text"]: m.payload for m in h.memories() if m.payload["kind"] == "function"}
    assert sorted(p["qualname"] for p in before.values()) == ["check", "check#2", "check#3", "check#4", "check#5"]

    repo.write("checks.py", check(0) + "".join(check(n) for n in range(1, 6)))
    repo.commit("a check above them")
    embedded: list[str] = []
    encode = h.embedder.encode
    monkeypatch.setattr(h.embedder, "encode", lambda texts: embedded.extend(texts) or encode(texts))
    r = h.sync(repo)
    assert [t for t in embedded if t.startswith("python function")] == ["python function check\n" + check(0).strip()]
    after = {m.payload["text"]: m.payload for m in h.memories() if m.payload["kind"] == "function"}
    assert set(after) == set(before) | {next(t for t in after if "rule_0" in t)}
    for text, old in before.items():  # rule_1 was ``check``, now ``check#2``; each kept its lineage
        assert after[text]["lineage"] == old["lineage"] and after[text]["qualname"] != old["qualname"]
    assert r.renamed == 5


APP = '''class Flask:
    """The application."""

    def route(self, rule, **options):
        """Register a view function for a URL rule."""
        def decorator(f):
            endpoint = options.pop("endpoint", None)
            self.add_url_rule(rule, endpoint, f, **options)
            return f
        return decorator

    def run(self, host=None, port=None):
        """Serve the application."""
        return serve(self, host or "127.0.0.1", port or 5000)
'''

APP_SPLIT = '''from scaffold import Scaffold


class Flask(Scaffold):
    """The application."""
'''

SCAFFOLD = '''class Scaffold:
    """What applications and blueprints share."""

    def route(self, rule: str, **options):
        """Register a view function for a URL rule."""
        def decorator(f):
            endpoint = options.pop("endpoint", None)
            self.add_url_rule(rule, endpoint, f, **options)
            return f
        return decorator

    def run(self):
        """Not the same method at all."""
        raise NotImplementedError("blueprints are not run")
'''


def test_a_class_split_across_files_with_edits_keeps_lineages(harness, git_repo):
    """Methods moved to another class in another file and edited in the same commit are
    moves (renamed, superseded_by, the same lineage) when their code is alike; a method
    of the same name with other code is a removal; the class that stays is modified."""
    h, repo = harness, git_repo
    repo.write("app.py", APP)
    repo.commit("one class")
    h.sync(repo)
    before = {m.payload["qualname"]: m for m in h.memories(types=("structural",))}
    repo.write("app.py", APP_SPLIT)
    repo.write("scaffold.py", SCAFFOLD)
    repo.commit("split out a Scaffold")
    h.sync(repo)
    live = {(m.payload["path"], m.payload["qualname"]): m for m in h.memories(types=("structural",))}
    assert set(live) == {("app.py", "<module>"), ("app.py", "Flask"), ("scaffold.py", "<module>"),
                         ("scaffold.py", "Scaffold"), ("scaffold.py", "Scaffold.route"), ("scaffold.py", "Scaffold.run")}
    closed = closed_by_key(h)
    route, successor = closed[("app.py", "Flask.route")], live[("scaffold.py", "Scaffold.route")]
    assert route.payload["deprecated_reason"] == "renamed" and route.payload["superseded_by"] == successor.id
    assert successor.payload["lineage"] == before["Flask.route"].payload["lineage"]
    assert successor.payload["change"] == "renamed"
    run = closed[("app.py", "Flask.run")]
    assert run.payload["deprecated_reason"] == "removed" and run.payload.get("superseded_by") is None
    assert live[("scaffold.py", "Scaffold.run")].payload["change"] == "added"
    # git finds app.py rewritten, its old code in scaffold.py: the class it still declares stays
    flask = live[("app.py", "Flask")]
    assert flask.payload["lineage"] == before["Flask"].payload["lineage"] and flask.payload["change"] == "modified"
    assert live[("scaffold.py", "Scaffold")].payload["change"] == "added"


VECTOR_ES5 = """function Vector3(x, y, z) {
  this.x = x || 0;
  this.y = y || 0;
}

Object.assign(Vector3.prototype, {
  isVector3: true,

  set: function (x, y) {
    this.x = x;
    this.y = y;
    return this;
  },

  applyEuler: function () {
    var quaternion = new Quaternion();
    return function applyEuler(euler) {
      return this.applyQuaternion(quaternion.setFromEuler(euler));
    };
  }(),

  length: function () {
    return Math.sqrt(this.x * this.x + this.y * this.y);
  }
});

Object.assign(Vector3, {
  zero: function () {
    return new Vector3(0, 0, 0);
  }
});
"""

VECTOR_CLASS = """class Vector3 {
  constructor(x = 0, y = 0) {
    this.x = x;
    this.y = y;
  }

  set(x, y) {
    this.x = x;
    this.y = y;
    return this;
  }

  applyEuler(euler) {
    return this.applyQuaternion(_quaternion.setFromEuler(euler));
  }

  length() {
    return Math.sqrt(this.x * this.x + this.y * this.y);
  }

  static zero() {
    return new Vector3(0, 0, 0);
  }
}
"""


def test_a_prototype_class_rewritten_as_a_class_keeps_its_memories(harness, git_repo):
    """three.js r100 wrote ``Vector3`` as a constructor whose methods
    ``Object.assign(Vector3.prototype, {…})`` gives it (one a closure returns); r127 as
    ``class Vector3``. They are the same class and methods, each modified in place."""
    h, repo = harness, git_repo
    repo.write("src/math/Vector3.js", VECTOR_ES5)
    repo.commit("prototypes")
    h.sync(repo)
    before = {m.payload["qualname"]: m.payload for m in h.memories(types=("structural",))}
    assert {q: p["kind"] for q, p in before.items()} == {
        "<module>": "module", "Vector3": "class", "Vector3.set": "method", "Vector3.applyEuler": "method",
        "Vector3.length": "method", "Vector3.zero": "method",
    }  # fmt: skip
    repo.write("src/math/Vector3.js", VECTOR_CLASS)
    repo.commit("classes")
    r = h.sync(repo)
    after = {m.payload["qualname"]: m.payload for m in h.memories(types=("structural",))}
    assert set(after) == {*before, "Vector3.constructor"} and r.added == 1 and r.modified == len(before)
    for qualname, was in before.items():
        assert after[qualname]["lineage"] == was["lineage"] and after[qualname]["change"] == "modified", qualname


@pytest.mark.parametrize("edited", [False, True], ids=["same-code", "edited"])
@pytest.mark.parametrize("shared", [True, False], ids=["boilerplate", "its-own"])
def test_code_that_stays_in_a_namesake_moves_nowhere(harness, git_repo, shared, edited):
    """three.js r125 deleted ``Geometry``, whose ``dispose`` had the very code of
    ``Material``'s, which stays, while ``InstancedMesh`` gained a ``dispose`` of that
    code: no move, the old one is deleted. Code of its own, the same or nearly, moved."""
    h, repo = harness, git_repo
    dispose = "  dispose() {\n    this.dispatchEvent({ type: 'dispose', target: this, reason: 'released by its owner' });\n  }\n"
    own = dispose if shared else dispose.replace("dispose', target", "disposed', target")
    repo.write("src/core/Geometry.js", f"class Geometry {{\n  computeNormals() {{ return this.faces.map(normal); }}\n{dispose}}}\n")
    repo.write("src/materials/Material.js", f"class Material {{\n  clone() {{ return new Material(); }}\n{own}}}\n")
    repo.write("src/objects/InstancedMesh.js", "class InstancedMesh {\n  setMatrixAt(i, m) { m.toArray(this.array, i * 16); }\n}\n")
    repo.commit("three classes")
    h.sync(repo)
    old = next(m for m in h.memories(types=("structural",)) if m.payload["qualname"] == "Geometry.dispose")
    repo.remove("src/core/Geometry.js")
    gained = dispose.replace("its owner", "the owner") if edited else dispose
    repo.write("src/objects/InstancedMesh.js",
               "class InstancedMesh {\n  setMatrixAt(i, m) { m.toArray(this.array, i * 16); }\n" + gained + "}\n")  # fmt: skip
    repo.commit("drop Geometry")
    h.sync(repo)
    closed = next(m for m in h.memories(deprecated=1, types=("structural",)) if m.id == old.id)
    new = next(m for m in h.memories(types=("structural",)) if m.payload["qualname"] == "InstancedMesh.dispose")
    moved = new.payload["lineage"] == old.payload["lineage"]
    assert (closed.payload["deprecated_reason"], moved) == (("deleted", False) if shared else ("renamed", True))


@pytest.mark.parametrize(
    ("path", "name", "before", "after", "kinds"),
    [
        ("text.py", "Parser", "def Parser(text):\n    \"\"\"Splits text.\"\"\"\n    return text.split()\n",
         "class Parser:\n    \"\"\"Splits text.\"\"\"\n\n    def __init__(self, text):\n        self.words = text.split()\n",
         ("function", "class")),
        ("props.ts", "Props", "export type Props = {\n  title: string;\n};\n",
         "export interface Props {\n  title: string;\n  subtitle?: string;\n}\n", ("type", "interface")),
        ("Torus.js", "Torus", "function Torus(r) {\n  Shape.call(this);\n  this.r = r;\n}\n",
         "class Torus extends Shape {\n  constructor(r) {\n    super();\n    this.r = r;\n  }\n}\n",
         ("function", "class")),
    ],
    ids=["python function to class", "typescript type to interface", "javascript constructor to class"],
)
def test_a_symbol_that_changed_kind_in_place_keeps_its_lineage(harness, git_repo, path, name, before, after, kinds):
    """Rewrites change what a name is where it stays: its memory is modified, not
    removed with a new one added beside (three.js's ES2015 rewrite made 78 constructor
    functions classes). ``Torus`` uses no prototype in its file, so it reads as a
    function: its rewrite as a class keeps the lineage all the same."""
    h, repo = harness, git_repo
    repo.write(path, before)
    repo.commit("before")
    h.sync(repo)
    old = next(m for m in h.memories(types=("structural",)) if m.payload["qualname"] == name)
    repo.write(path, after)
    repo.commit("rewrite")
    result = h.sync(repo)
    new = next(m for m in h.memories(types=("structural",)) if m.payload["qualname"] == name)
    closed = next(m for m in h.memories(deprecated=1, types=("structural",)) if m.id == old.id)
    assert (old.payload["kind"], new.payload["kind"]) == kinds
    assert new.payload["lineage"] == old.payload["lineage"]
    assert (closed.payload["deprecated_reason"], closed.payload["superseded_by"]) == ("modified", new.id)
    assert result.modified == 2  # the module, and the symbol: none removed, none added beside


def test_renames_in_place_point_to_their_successors(harness, git_repo):
    """A function, a method and a class renamed where they are: each closed as renamed,
    superseded by its new name, the lineage kept (the class's methods follow it)."""
    h, repo = harness, git_repo
    repo.write("geo.py", GEO)
    repo.commit("geometry")
    h.sync(repo)
    before = {m.payload["qualname"]: m for m in h.memories(types=("structural",))}
    repo.write("geo.py", GEO.replace("compute_perimeter", "circle_perimeter").replace("def area", "def surface")
               .replace("class Shape", "class Figure"))  # fmt: skip
    repo.commit("rename")
    result = h.sync(repo)
    live = {m.payload["qualname"]: m for m in h.memories(types=("structural",))}
    closed = {m.payload["qualname"]: m for m in h.memories(deprecated=1, types=("structural",))}
    for old, new in (("compute_perimeter", "circle_perimeter"), ("Shape", "Figure"), ("Shape.area", "Figure.surface"),
                     ("Shape.scale", "Figure.scale")):  # fmt: skip
        assert closed[old].payload["deprecated_reason"] == "renamed", old
        assert closed[old].payload["superseded_by"] == live[new].id, old
        assert live[new].payload["lineage"] == before[old].payload["lineage"], old
    assert result.renamed == 4 and result.added == 0


GEO = '''"""Geometry."""

import math


def compute_perimeter(radius):
    """The perimeter of a circle."""
    if radius < 0:
        raise ValueError("a radius is never negative")
    return 2 * math.pi * radius


class Shape:
    """Something with an area."""

    def area(self, width, height):
        """Width times height."""
        checked = max(width, 0), max(height, 0)
        return checked[0] * checked[1]

    def scale(self, factor):
        return Shape()
'''


def _engine(cls: str, flavour: str) -> str:
    """A class whose methods' code is the ``flavour``'s: its own words on every line."""
    lines = [f'"""The {flavour} engine."""', "", "", f"class {cls}:"]
    for method in ("lint_files", "lint_text"):
        lines += [f"    def {method}(self, target):", f'        """{method} the {flavour} way."""']
        if flavour == "flat":
            lines += [f"        if target.{method}_{i}:\n            return [x for x in target if x > {i}]" for i in range(5)]
        else:
            lines += [f"        step_{i} = {method}({i}, *target)" for i in range(8)]
        lines += ["        return target", ""]
    lines += ["", "def by_path(result):", "    return result.path", ""]  # the same in every engine
    return "\n".join(lines) + "\n"


def test_a_file_rewritten_with_another_files_code_while_its_own_moves_on(harness, git_repo):
    """eslint 9.0: ``eslint.js`` moved to ``legacy-eslint.js`` and ``flat-eslint.js`` took
    its place (both edited). ``ESLint.lint_files`` in eslint.py now continues the flat
    one, and the legacy class continues the old ``ESLint``: git's rewrite detection (-B -M),
    not the path, says where each file's code went."""
    h, repo = harness, git_repo
    repo.write("eslint.py", _engine("ESLint", "legacy"))
    repo.write("flat_eslint.py", _engine("FlatESLint", "flat"))
    repo.commit("two engines")
    h.sync(repo)
    before = {(m.payload["path"], m.payload["qualname"]): m.payload["lineage"] for m in h.memories()}
    repo.git("rm", "-q", "flat_eslint.py")
    repo.write("legacy_eslint.py", _engine("LegacyESLint", "legacy").replace("step_7", "last"))
    repo.write("eslint.py", _engine("ESLint", "flat").replace("> 4", ">= 4"))
    repo.commit("the flat engine becomes the engine")
    h.sync(repo)
    live = {(m.payload["path"], m.payload["qualname"]): m.payload["lineage"] for m in h.memories()}
    for method in ("lint_files", "lint_text"):
        assert live[("eslint.py", f"ESLint.{method}")] == before[("flat_eslint.py", f"FlatESLint.{method}")]
        assert live[("legacy_eslint.py", f"LegacyESLint.{method}")] == before[("eslint.py", f"ESLint.{method}")]
    assert live[("legacy_eslint.py", "<module>")] == before[("eslint.py", "<module>")]
    # Code the rewritten file holds unchanged stays its own memory, live.
    assert live[("eslint.py", "by_path")] == before[("eslint.py", "by_path")]
    assert ("legacy_eslint.py", "by_path") in live


RUST_ARG = """use std::fmt;

pub struct Arg {
    name: String,
}

impl Arg {
    pub fn new(name: &str) -> Self {
        Arg { name: name.to_string() }
    }
}

impl fmt::Display for Arg {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "--{}", self.name)
    }
}

impl fmt::Debug for Arg {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.debug_struct("Arg").field("name", &self.name).finish()
    }
}
"""


def test_a_rust_types_trait_impls_move_and_reorder_with_it(harness, git_repo):
    """A trait impl's members are their type's (``<Arg as Display>.fmt`` is declared in
    ``Arg``): a type renamed and moved takes them along, each to its own trait's member;
    impls reordered rename nothing (as ``Arg.fmt`` and ``Arg.fmt#2`` they swapped names)."""
    h, repo = harness, git_repo
    repo.write("src/arg.rs", RUST_ARG)
    for i in range(6):
        repo.write(f"src/other{i}.rs", f"pub fn helper{i}() -> u32 {{\n    {i}\n}}\n")
    repo.commit("arg")
    h.sync(repo)
    before = {m.payload["qualname"]: m.payload["lineage"] for m in h.memories() if m.payload["path"] == "src/arg.rs"}
    repo.git("mv", "src/arg.rs", "src/argument.rs")
    repo.write("src/argument.rs", RUST_ARG.replace("Arg", "Argument"))
    repo.commit("rename")
    r = h.sync(repo)
    assert r.added == 0 and r.renamed == 5
    after = {m.payload["qualname"]: m.payload["lineage"] for m in h.memories() if m.payload["path"] == "src/argument.rs"}
    assert after == {q.replace("Arg", "Argument"): lineage for q, lineage in before.items()}
    display, debug = RUST_ARG.split("impl fmt::Display")[1].split("impl fmt::Debug")
    head = RUST_ARG.split("impl fmt::Display")[0]
    repo.write("src/argument.rs", (head + "impl fmt::Debug" + debug + "\nimpl fmt::Display" + display).replace("Arg", "Argument"))
    repo.commit("reorder")
    r = h.sync(repo)
    assert r.added == r.renamed == 0 and r.modified == 1  # the module
    assert {m.payload["qualname"]: m.payload["lineage"] for m in h.memories() if m.payload["path"] == "src/argument.rs"} == after
