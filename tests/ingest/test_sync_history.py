"""A scripted git history synced step by step: after every sync the live memories are
exactly the tip's symbols and derived entries (debt comments, decision sections, tool
preferences, one project memory), and every stale memory is closed with the right reason."""

from __future__ import annotations

import ast
import subprocess
from collections import Counter

from recalld.parsers import language_for_path, parse

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


def tip_symbols(repo, *, derived: bool = False) -> set[tuple[str, str, str]]:
    """(path, kind, qualname) of every symbol (or derived entry) at HEAD, parsed
    independently of the store."""
    expected = set()
    for path in repo.git("ls-tree", "-r", "--name-only", "HEAD").splitlines():
        language = language_for_path(path)
        if language is None:
            continue
        data = subprocess.run(
            ["git", "show", f"HEAD:{path}"], cwd=repo.path, capture_output=True, check=True
        ).stdout
        parsed = parse(language, data, path=path)
        expected |= {(path, s.kind, s.qualname) for s in (parsed.derived if derived else parsed.symbols)}
    return expected


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
    assert by_type.pop("structural") == tip_symbols(repo)
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
    for path, text in FILES.items():
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
    repo.write("java/Main.java", FILES["java/App.java"].replace("void run() {}", "void run() { int x = 1; }"))
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
    repo.write("web/types.ts", FILES["web/types.ts"] + "export type Id = string;\n")
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


class CountingStore:
    """Wraps a harness's store and counts every write."""

    def __init__(self, inner) -> None:
        self._inner = inner
        self.count = 0

    @classmethod
    def wrap(cls, h):
        counting = cls(h.store)
        h.indexer.store = counting
        return counting

    def __getattr__(self, name):
        attr = getattr(self._inner, name)
        if name in {"upsert", "set_payload", "delete"}:
            def counted(*args, **kwargs):
                self.count += 1
                return attr(*args, **kwargs)
            return counted
        return attr
