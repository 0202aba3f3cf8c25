"""Files whose contents changed places in one commit (``git mv a b`` both ways, a rotation
of three) moved, as git's ``diff -B -M`` sees it: each memory follows its code to its new
path as across any rename, though no file was added or deleted. A file rewritten where
it is, with no other file to have come from, stays modified."""

from __future__ import annotations

import random
from typing import Any

import pytest

from recalld.ingest import chunks
from recalld.ingest.gitrepo import GitRepository


def _module(topic: str) -> str:
    """A module of ``topic``: ``load`` and ``Store.get``/``Store.put``, as each such module
    names them, and functions of its own; over the 400 bytes below which git breaks no
    file."""
    own = "".join(
        f'def {topic}_{i}(rows):\n    """Step {i} of the {topic}."""\n'
        f"    return [row.{topic}_{i} for row in rows]\n\n\n"
        for i in range(4)
    )
    return (
        f'"""The {topic}."""\n\n\n'
        f'def load(path):\n    """Read the {topic} at ``path``."""\n    return open(path).read().split("{topic}")\n\n\n'
        f"class Store:\n    def get(self, key):\n        return self.{topic}[key]\n\n"
        f"    def put(self, key, value):\n        self.{topic}[key] = value\n\n\n"
    ) + own


ORDERS, INVOICES = _module("orders"), _module("invoices")


def _rewritten(topic: str) -> str:
    """``_module(topic)`` rewritten: every name kept, hardly a line of its code."""
    own = "".join(f"def {topic}_{i}(rows):\n    yield from sorted(rows, key=len)[{i}:]\n\n\n" for i in range(4))
    return (
        "import json\n\n\ndef load(path):\n    with open(path) as handle:\n        return json.load(handle)\n\n\n"
        "class Store:\n    def get(self, key):\n        return self.cache.get(key, None)\n\n"
        "    def put(self, key, value):\n        self.cache[key] = value or {}\n\n\n"
    ) + own


def _swap(repo, *paths: str) -> None:  # type: ignore[no-untyped-def]
    """Each file's content moved to the next path, the last one's to the first, with git mv."""
    repo.git("mv", paths[-1], "swap.tmp")
    for old, new in zip(reversed(paths[:-1]), reversed(paths[1:])):
        repo.git("mv", old, new)
    repo.git("mv", "swap.tmp", paths[0])


def _indexed(h, repo, files: dict[str, str]) -> tuple[str, dict]:  # type: ignore[no-untyped-def,type-arg]
    """``files`` (path → text) committed and synced: the commit, and its memories."""
    for path, text in files.items():
        repo.write(path, text)
    commit = repo.commit("modules")
    h.sync(repo)
    return commit, _structural(h)


def _structural(h) -> dict[tuple[str, str], Any]:  # type: ignore[no-untyped-def]
    return {(m.payload["path"], m.payload["qualname"]): m for m in h.memories(types=("structural",))}


def _closed(h) -> dict[str, dict]:  # type: ignore[no-untyped-def,type-arg]
    return {m.id: m.payload for m in h.memories(deprecated=1, types=("structural",))}


def _assert_followed(  # type: ignore[no-untyped-def]
    h, before: dict, moved: dict[str, str], *, edited: frozenset[str] = frozenset()  # type: ignore[type-arg]
) -> None:
    """Each memory at an old path of ``moved`` closed as a file's rename closes it: renamed,
    superseded by its symbol at the new path, the lineage kept (and the code, unless
    ``edited`` names it)."""
    live, closed = _structural(h), _closed(h)
    for (path, qualname), old in before.items():
        if path not in moved:
            continue
        new = live[(moved[path], qualname)]
        closure = (closed[old.id]["deprecated_reason"], closed[old.id]["superseded_by"])
        assert closure == ("renamed", new.id), (path, qualname)
        assert new.payload["lineage"] == old.payload["lineage"], (path, qualname)
        if qualname not in edited:
            assert new.payload["content_hash"] == old.payload["content_hash"], (path, qualname)


def _task(h, subject: str) -> dict:  # type: ignore[type-arg]
    (task,) = [m.payload for m in h.memories(types=("task",)) if m.payload["subject"] == subject]
    return task


def _renames(task: dict) -> set[tuple[str, str]]:  # type: ignore[type-arg]
    return {(r["from"], r["to"]) for r in task["renames"]}


@pytest.mark.parametrize("added", [False, True], ids=["alone", "beside-a-new-file"])
def test_two_files_swapped(harness, git_repo, added):
    """``a.py`` and ``b.py`` traded contents: their same-named symbols (``load``,
    ``Store.get``) cross with their code, not "modified" where they are. Beside a new
    file too, where git's rewrites were looked for already."""
    h, repo = harness, git_repo
    _commit, before = _indexed(h, repo, {"app/a.py": ORDERS, "app/b.py": INVOICES})
    _swap(repo, "app/a.py", "app/b.py")
    if added:
        repo.write("app/c.py", "def fresh():\n    return 1\n")
    head = repo.commit("swap")
    result = h.sync(repo)
    _assert_followed(h, before, {"app/a.py": "app/b.py", "app/b.py": "app/a.py"})
    assert (result.modified, result.renamed) == (int(added), len(before))  # a new file: the project's layout
    task = _task(h, "swap")
    assert _renames(task) == {("app/a.py", "app/b.py"), ("app/b.py", "app/a.py")} and task["files_modified"] == []
    changes = GitRepository(str(repo.path)).commit_changes(head)
    assert {(c.status, c.old_path, c.new_path, c.similarity) for c in changes if c.status != "added"} == {
        ("renamed", "app/a.py", "app/b.py", 100),
        ("renamed", "app/b.py", "app/a.py", 100),
    }


def test_three_files_rotated_one_edited(harness, git_repo):
    """a → b → c → a, the content that reached ``b.py`` edited on the way: three renames."""
    h, repo = harness, git_repo
    _commit, before = _indexed(h, repo, {"a.py": ORDERS, "b.py": INVOICES, "c.py": _module("customers")})
    _swap(repo, "a.py", "b.py", "c.py")
    repo.write("b.py", _module("orders").replace("row.orders_1 for row", "row.orders_1 for row in rows if row or"))
    repo.commit("rotate")
    h.sync(repo)
    rotated = {"a.py": "b.py", "b.py": "c.py", "c.py": "a.py"}
    _assert_followed(h, before, rotated, edited=frozenset({"orders_1", "<module>"}))
    assert _renames(_task(h, "rotate")) == {("a.py", "b.py"), ("b.py", "c.py"), ("c.py", "a.py")}


def test_a_swap_beside_an_ordinary_edit(harness, git_repo):
    """Two files swapped while a third is edited as usual: the swap moves, the edit is a
    modification where it is."""
    h, repo = harness, git_repo
    _commit, before = _indexed(h, repo, {"a.py": ORDERS, "b.py": INVOICES, "c.py": _module("customers")})
    _swap(repo, "a.py", "b.py")
    repo.write("c.py", _module("customers").replace("row.customers_2 for row", "row.customers_2 or 0 for row"))
    repo.commit("swap and edit")
    h.sync(repo)
    _assert_followed(h, before, {"a.py": "b.py", "b.py": "a.py"})
    live, closed = _structural(h), _closed(h)
    edited = before[("c.py", "customers_2")]
    assert closed[edited.id]["deprecated_reason"] == "modified"
    assert closed[edited.id]["superseded_by"] == live[("c.py", "customers_2")].id
    assert live[("c.py", "load")].id == before[("c.py", "load")].id  # untouched
    task = _task(h, "swap and edit")
    assert _renames(task) == {("a.py", "b.py"), ("b.py", "a.py")} and task["files_modified"] == ["c.py"]


@pytest.mark.parametrize("names", ["its-own", "the-swapped-ones"])
def test_a_file_rewritten_in_place_stays_modified(harness, git_repo, names):
    """A file whose code is mostly new but came from no other file (git: "rewrite
    engine.py") continues itself beside a swap: its memories are modified where they are,
    their lineage kept, even where its names are those the swapped files trade."""
    h, repo = harness, git_repo
    topic = "engine" if names == "its-own" else "orders"
    engine = _module(topic).replace(f"{topic}_", "engine_")  # the-swapped-ones: a near twin of a.py
    before_commit, before = _indexed(h, repo, {"a.py": ORDERS, "b.py": INVOICES, "engine.py": engine})
    _swap(repo, "a.py", "b.py")
    repo.write("engine.py", _rewritten("engine"))
    after_commit = repo.commit("swap and rewrite")
    assert "rewrite engine.py" in repo.git("diff", "-B", "-M", "--summary", before_commit, after_commit)
    h.sync(repo)
    _assert_followed(h, before, {"a.py": "b.py", "b.py": "a.py"})
    live, closed = _structural(h), _closed(h)
    for (path, qualname), old in before.items():
        if path == "engine.py":
            new = live[("engine.py", qualname)]
            assert closed[old.id]["deprecated_reason"] == "modified" and closed[old.id]["superseded_by"] == new.id
            assert new.payload["lineage"] == old.payload["lineage"], qualname
    task = _task(h, "swap and rewrite")
    assert _renames(task) == {("a.py", "b.py"), ("b.py", "a.py")} and task["files_modified"] == ["engine.py"]


def test_the_quick_look_hides_no_rewrite():
    """An edit between a long kept head and tail is seen to be no rewrite from its bytes
    alone (``chunks._surely_kept``), sparing the count of its chunks: on random files
    heavy with white space (indented, blank, long and unterminated lines) and edits of
    every size, never where counting finds a rewrite, and for most small edits."""
    rng = random.Random(7)
    words = [b"x", b"return self.value", b"}", b"", b"def f(a, b):", b"# " + b"long " * 30, b"\t\tif a:  "]

    def lines(n: int) -> list[bytes]:
        return [b" " * rng.choice((0, 4, 8, 16)) + rng.choice(words) + rng.choice((b"", b"%d" % rng.randrange(9)))
                for _ in range(n)]  # fmt: skip

    rewrites = spared = small = 0
    for _ in range(3000):
        old = lines(rng.randrange(1, 160))
        start = rng.randrange(len(old) + 1)
        end = min(len(old), start + rng.choice((0, 2, 20, 80, len(old))))
        new = old[:start] + lines(rng.choice((0, 1, 2)) * (end - start) + rng.randrange(3)) + old[end:]
        old_data, new_data = (b"\n".join(x) + rng.choice((b"\n", b"")) for x in (old, new))
        cache = chunks.LineCache({"old": old_data, "new": new_data}.get)
        cache.of("old"), cache.of("new")  # counted already: no quick look
        rewritten = chunks.rewritten(cache, "old", "new")
        kept = chunks._surely_kept(old_data, new_data)
        assert not (kept and rewritten), (old_data, new_data)
        rewrites += rewritten
        if end - start <= 2 and len(old) > 40:
            small += 1
            spared += kept
    print(rewrites, spared, small)
    assert rewrites > 300 and spared > 0.6 * small
