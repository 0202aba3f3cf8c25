"""Task memories: one per commit of the tracked branch, through backfill, new commits,
resets, rebases and amends, linked both ways with the structural versions."""

from __future__ import annotations

from functools import partial
from pathlib import Path

import pytest

from recalld.ingest import authorship as authorship_module
from recalld.ingest import collect as collect_module
from recalld.ingest import commits as commits_module
from recalld.ingest import tasks as tasks_module
from recalld.ingest.files import IndexOptions
from recalld.ingest.gitrepo import GitRepository
from recalld.ingest.plan import Scope
from recalld.ingest.records import task_memory_id
from recalld.ingest.store import MemoryFilter
from tests.ingest.conftest import Harness, StoreWrapper

SCOPE = Scope("r", "main")


def tasks(h: Harness, *, deprecated: int | None = 0) -> dict[str, dict]:
    """commit id → payload of its task memory."""
    flt = MemoryFilter(repo="r", types=("task",), deprecated=deprecated)
    found = list(h.store.scroll(flt))
    commits = [p.payload["commit"] for p in found]
    assert len(commits) == len(set(commits)), "duplicate task memories"
    for point in found:
        assert point.id == task_memory_id(SCOPE, point.payload["commit"])
    return {p.payload["commit"]: p.payload for p in found}


def structural(h: Harness) -> dict[tuple[str, str], object]:
    flt = MemoryFilter(repo="r", types=("structural",))
    return {(p.payload["path"], p.payload["qualname"]): p for p in h.store.scroll(flt)}


def linear_history(repo, n: int) -> list[str]:
    made = []
    for i in range(n):
        repo.write(f"m{i}.py", f"def f{i}():\n    return {i}\n")
        made.append(repo.commit(f"add f{i}"))
    return made


def commit_by(repo, monkeypatch, who: str, message: str) -> str:  # type: ignore[no-untyped-def]
    monkeypatch.setenv("GIT_AUTHOR_NAME", who)
    return repo.commit(message)


def merged_from_side(repo, monkeypatch, path: str, code: str) -> str:  # type: ignore[no-untyped-def]
    """Dan writes ``path`` on a branch ``side``, and Eve merges it into main: the merge."""
    repo.git("checkout", "-q", "-b", "side")
    repo.write(path, code)
    commit_by(repo, monkeypatch, "Dan", "on a side branch")
    repo.git("checkout", "-q", "main")
    monkeypatch.setenv("GIT_AUTHOR_NAME", "Eve")
    repo.git("merge", "-q", "--no-ff", "-m", "merge side", "side")
    return repo.head()


def write_and_commit(repo, monkeypatch, who: str, message: str, files: dict[str, str]) -> str:  # type: ignore
    for path, text in files.items():
        repo.write(path, text)
    return commit_by(repo, monkeypatch, who, message)


def commits_read(monkeypatch, *, searched: bool = False) -> list[str]:  # type: ignore[no-untyped-def]
    """The commits ``CommitReader`` reads from now on, in order (``searched``: those the
    search past the history read reads, its files at the paths it seeks alone)."""
    read: list[str] = []
    reader = commits_module.CommitReader.read

    def reading(self, commit: str, **kw):  # type: ignore[no-untyped-def]
        if not searched or kw.get("only") is not None:
            read.append(commit)
        return reader(self, commit, **kw)

    monkeypatch.setattr(commits_module.CommitReader, "read", reading)
    return read


def author_name(payload: dict) -> str:  # type: ignore[type-arg]
    return (payload.get("author") or "").split(" <")[0]


def written_in_its_authors_commit(h: Harness, repo, gone: tuple[str, ...] = ()) -> int:  # type: ignore
    """Asserts of every structural version, live or closed, that it names the commit it was
    written in (``written_in``) exactly where it names an author, that commit's author
    (git's; but for ``gone``, commits git no longer has), and, where it names a task too, a
    merge's or that commit's. How many name one."""
    flt = MemoryFilter(repo="r", types=("structural",), deprecated=None)
    named = 0
    for point in h.store.scroll(flt, fields=("path", "qualname", "author", "written_in", "task_id")):
        p, what = point.payload, (point.payload["path"], point.payload["qualname"])
        assert bool(p.get("author")) == bool(p.get("written_in")), (what, p)
        if p.get("written_in"):
            named += 1
            if p["written_in"] in gone:
                continue
            assert repo.git("log", "-1", "--format=%an", p["written_in"]) == author_name(p), (what, p)
            task = p.get("task_id")
            merges = repo.git("rev-list", "--merges", "main").split()
            assert task in (None, task_memory_id(SCOPE, p["written_in"]), *(task_memory_id(SCOPE, m) for m in merges))
    return named


def test_each_commit_records_files_symbols_and_renames(harness, git_repo):
    h, repo = harness, git_repo
    repo.write("app/core.py", "def f():\n    return 1\n\n\ndef g():\n    return 2\n")
    repo.write("app/old.py", "def gone():\n    return 0\n")
    repo.write("notes.md", "hello\n")
    c1 = repo.commit("Initial layout\n\nSets up the core module.\n\nSigned-off-by: A <a@b.c>")
    repo.write("app/core.py", "def f():\n    return 10\n\n\ndef h():\n    return 3\n")
    c2 = repo.commit("Rework core\n\nSigned-off-by: A <a@b.c>")
    (repo.path / "src").mkdir()
    repo.git("mv", "app/core.py", "src/core.py")
    c3 = repo.commit("Move core to src")
    repo.git("mv", "app/old.py", "src/old.py")
    repo.write("src/old.py", "def gone():\n    return 0\n\n\ndef fresh():\n    return 5\n")
    repo.remove("notes.md")
    c4 = repo.commit("Move old and add fresh")

    result = h.sync(repo)
    assert (result.tasks_added, result.history_added, result.tasks_deprecated) == (1, 3, 0)
    found = tasks(h)
    assert set(found) == {c1, c2, c3, c4}

    first = found[c1]
    assert (first["type"], first["kind"], first["path"]) == ("task", "commit", None)
    assert first["subject"] == "Initial layout" and first["body"] == "Sets up the core module."
    assert first["files_added"] == ["app/core.py", "app/old.py", "notes.md"] and first["parents"] == []
    assert first["author"] == "Test Author <author@example.invalid>" and first["valid_from_commit"] == c1
    assert {s["path"]: s["added"] for s in first["symbols"]} == {"app/core.py": ["f", "g"], "app/old.py": ["gone"]}

    second = found[c2]
    assert second["body"] == "" and second["parents"] == [c1] and second["files_modified"] == ["app/core.py"]
    assert second["symbols"] == [{"path": "app/core.py", "added": ["h"], "modified": ["f"], "removed": ["g"]}]
    assert "Rework core" in second["text"] and "h, f, g" in second["text"] and "app/core.py" in second["text"]

    moved = found[c3]
    assert moved["renames"] == [{"from": "app/core.py", "to": "src/core.py", "similarity": 100}]
    assert moved["symbols"] == [] and moved["files_added"] == moved["files_deleted"] == []

    last = found[c4]
    assert last["renames"][0]["from"] == "app/old.py" and last["renames"][0]["to"] == "src/old.py"
    assert last["files_deleted"] == ["notes.md"]
    assert last["symbols"] == [{"path": "src/old.py", "added": ["fresh"], "modified": [], "removed": []}]

    # links both ways: the target's task memory lists every version it produced at its
    # paths (all of a file renamed with edits); a first index's versions (which commit
    # wrote them the sync did not know) point back at the newest commit that wrote them:
    # src/old.py's gone, which c4 moved unchanged, at c1's; src/core.py's, which c3 moved
    # without edits, at c2's
    live = structural(h)
    produced_by_target = {live[("src/old.py", q)].id for q in ("<module>", "gone", "fresh")}
    assert set(last["symbol_ids"]) == produced_by_target
    writers = {key: (p.payload["change"], p.payload["task_id"]) for key, p in live.items()}
    assert writers == {("src/old.py", "<module>"): ("indexed", task_memory_id(SCOPE, c4)),
                       ("src/old.py", "fresh"): ("indexed", task_memory_id(SCOPE, c4)),
                       ("src/old.py", "gone"): ("indexed", task_memory_id(SCOPE, c1))} | {
        ("src/core.py", q): ("indexed", task_memory_id(SCOPE, c2)) for q in ("<module>", "f", "h")}  # fmt: skip
    # older commits: linked where the version they produced still exists in the store
    assert live[("src/core.py", "f")].id not in second["symbol_ids"]  # f at app/core.py never indexed
    assert first["symbol_ids"] == [] and moved["symbol_ids"] == []


def test_older_commit_links_a_version_that_survives(harness, git_repo):
    h, repo = harness, git_repo
    repo.write("a.py", "def f():\n    return 1\n")
    c1 = repo.commit("add f")
    repo.write("b.py", "def g():\n    return 2\n")
    c2 = repo.commit("add g")
    h.sync(repo)
    f = structural(h)[("a.py", "f")]
    assert f.id in tasks(h)[c1]["symbol_ids"]  # a.py is unchanged since c1
    assert structural(h)[("b.py", "g")].id in tasks(h)[c2]["symbol_ids"]


def test_backfill_and_new_commits_respect_the_limit(git_repo, tmp_path):
    repo = git_repo
    made = linear_history(repo, 8)
    h = Harness("edge", tmp_path / "state", IndexOptions(backfill_commits=3))
    try:
        first = h.sync(repo)
        assert (first.tasks_added, first.history_added) == (1, 2)
        assert set(tasks(h)) == set(made[-3:])
        made += linear_history(repo, 2)
        assert h.sync(repo).tasks_added == 2
        assert set(tasks(h)) == set(made[-5:])
        burst = [repo.commit(f"empty {i}") for i in range(5)]
        assert h.sync(repo).tasks_added == 3
        assert set(tasks(h)) == set(made[-5:]) | set(burst[-3:])
    finally:
        h.close()


def test_a_first_index_finds_who_wrote_its_versions_in_the_history(git_repo, tmp_path, monkeypatch):
    """A first index does not know which commit wrote what it finds: its versions are
    ``indexed``, with no author or task. The history read (one commit a chunk here) gives
    each the newest commit that produced it: ``f``, reverted to Ann's code, is Cid's; what
    a merge brought in has the merge's task and the author of the merged branch's commit
    that wrote it; code from before the history
    read, moved since without edits, has its author alone from the search past it (no task
    memory names that commit), and neither with that search off. A later commit's version
    is its own."""
    monkeypatch.setattr(tasks_module, "HISTORY_CHUNK", 1)
    repo = git_repo

    by = partial(commit_by, repo, monkeypatch)

    repo.write("z.py", "def ancient():\n    return 0\n")
    zed = by("Zed", "before the history read")
    repo.write("a.py", "def f():\n    return 1\n")
    ann = by("Ann", "f")
    repo.write("a.py", "def f():\n    return 2\n")
    by("Bob", "f returns 2")
    repo.write("a.py", "def f():\n    return 1\n")
    cid = by("Cid", "revert: f returns 1")
    merge = merged_from_side(repo, monkeypatch, "m.py", "def merged():\n    return 3\n")
    repo.git("mv", "z.py", "old_z.py")
    tip = by("Fay", "move z.py")
    h = Harness("edge", tmp_path / "state", IndexOptions(backfill_commits=5))  # Fay's back to Ann's
    try:
        h.sync(repo)
        assert set(tasks(h)) >= {ann, cid, merge, tip}

        def writers() -> dict[tuple[str, str], tuple]:  # type: ignore[type-arg]
            return {key: (p.payload["valid_from_commit"], p.payload["change"], p.payload.get("task_id"),
                          author_name(p.payload), p.payload.get("written_in"))
                    for key, p in structural(h).items()}  # fmt: skip

        found = writers()
        by_cid = (tip, "indexed", task_memory_id(SCOPE, cid), "Cid", cid)
        dan = repo.git("rev-parse", "side")
        by_merge = (tip, "indexed", task_memory_id(SCOPE, merge), "Dan", dan)  # the side branch's author and commit
        by_zed = (tip, "indexed", None, "Zed", zed)
        assert found == {("a.py", "<module>"): by_cid, ("a.py", "f"): by_cid, ("m.py", "<module>"): by_merge,
                         ("m.py", "merged"): by_merge, ("old_z.py", "<module>"): by_zed,
                         ("old_z.py", "ancient"): by_zed}  # fmt: skip
        repo.write("a.py", "def f():\n    return 4\n")
        gus = by("Gus", "f returns 4")
        h.sync(repo)
        assert writers()[("a.py", "f")] == (gus, "modified", task_memory_id(SCOPE, gus), "Gus", gus)
        assert writers()[("m.py", "merged")] == by_merge
        assert written_in_its_authors_commit(h, repo) >= 7
    finally:
        h.close()
    h = Harness("edge", tmp_path / "unsought", IndexOptions(backfill_commits=5, writer_commits=0))
    try:
        h.sync(repo)
        assert {key: author_name(p.payload) for key, p in structural(h).items() if key[0] == "old_z.py"} == {
            ("old_z.py", "<module>"): "", ("old_z.py", "ancient"): ""}
    finally:
        h.close()


def test_what_a_merge_brought_in_gets_the_author_of_the_side_branchs_commit_that_wrote_it(
    git_repo, tmp_path, monkeypatch
):
    """A pull request merged with a merge commit: the history read gives what the merge
    brought in the merge's task, and the author of the newest commit of the merged branch
    that produced it, through a merge inside that branch too. What the merge itself made
    (neither side's code) keeps the merge's task alone."""
    repo = git_repo
    by = partial(commit_by, repo, monkeypatch)
    f = "def f():\n    return {}\n\n\ndef g():\n    return {}\n"
    repo.write("lib/a.py", f.format(1, 1))
    repo.write("lib/b.py", "def b():\n    return 1\n")
    by("Ann", "f, g and b")
    repo.git("checkout", "-q", "-b", "feat")
    repo.write("lib/a.py", f.format(2, 1))
    by("Bob", "f returns 2")
    repo.git("checkout", "-q", "-b", "feat2")
    repo.write("lib/d.py", "def d():\n    return 4\n")
    by("Dan", "d")
    repo.git("checkout", "-q", "feat")
    repo.write("lib/a.py", f.format(2, 1) + "\n\ndef h():\n    return 3\n")
    by("Cid", "h")
    monkeypatch.setenv("GIT_AUTHOR_NAME", "Eve")
    repo.git("merge", "-q", "--no-ff", "-m", "feat2 into feat", "feat2")
    repo.git("checkout", "-q", "main")
    repo.write("lib/b.py", "def b():\n    return 2\n")
    gus = by("Gus", "b returns 2")
    monkeypatch.setenv("GIT_AUTHOR_NAME", "Mia")
    repo.git("merge", "-q", "--no-ff", "-m", "merge feat", "feat")
    repo.write("lib/b.py", "def b():\n    return 2\n\n\ndef bb():\n    return 5\n")
    repo.git("commit", "-q", "--amend", "--no-edit", "-a")  # an evil merge: bb is Mia's alone
    merge = repo.head()
    h = Harness("edge", tmp_path / "state")
    try:
        h.sync(repo)
        found = {key: (p.payload.get("task_id"), author_name(p.payload)) for key, p in structural(h).items()}
        by_merge = task_memory_id(SCOPE, merge)
        assert found[("lib/a.py", "f")] == (by_merge, "Bob")
        assert found[("lib/a.py", "h")] == (by_merge, "Cid")
        assert found[("lib/d.py", "d")] == (by_merge, "Dan")
        assert found[("lib/b.py", "bb")] == (by_merge, "Mia")  # the merge's own code, as git blame has it
        assert found[("lib/a.py", "g")][1] == "Ann" and found[("lib/b.py", "b")][1] == "Gus"
        assert found[("lib/b.py", "b")][0] == task_memory_id(SCOPE, gus)
        written_in_its_authors_commit(h, repo)
    finally:
        h.close()


@pytest.mark.parametrize("limit", [0, 2, 3, 4])
def test_the_commits_read_of_a_merged_branch_are_at_most_merged_commits(git_repo, tmp_path, monkeypatch, limit):
    """``tasks.merged_commits``: of the branch a merge brought in, its newest commits up to
    that many are read for who wrote what it brought in; what only an older one wrote
    keeps the merge's task alone, and so does every version with 0. The merge's own code
    is the merger's only where the branch was read whole (fewer commits than the limit)."""
    by = partial(commit_by, git_repo, monkeypatch)
    git_repo.write("main.py", "def main():\n    return 0\n")
    by("Ann", "main")
    git_repo.git("checkout", "-q", "-b", "feat")
    for who in ("Bob", "Cid", "Dan"):
        git_repo.write(f"{who.lower()}.py", f"def by_{who.lower()}():\n    return 1\n")
        by(who, f"{who}'s")
    git_repo.git("checkout", "-q", "main")
    monkeypatch.setenv("GIT_AUTHOR_NAME", "Mia")
    git_repo.git("merge", "-q", "--no-ff", "-m", "merge feat", "feat")
    git_repo.write("main.py", "def main():\n    return 0\n\n\ndef mine():\n    return 2\n")
    git_repo.git("commit", "-q", "--amend", "--no-edit", "-a")  # the merge's own code
    h = Harness("edge", tmp_path / "state", IndexOptions(merged_commits=limit))
    try:
        h.sync(git_repo)
        found = {key[1]: author_name(p.payload) for key, p in structural(h).items() if key[1] != "<module>"}
        read = ["Dan", "Cid", "Bob"][:limit]  # newest first
        whole = limit > 3  # a window at its limit may have been cut short
        assert found == {"main": "Ann", "mine": "Mia" if whole else "",
                         **{f"by_{w.lower()}": (w if w in read else "") for w in ("Bob", "Cid", "Dan")}}  # fmt: skip
        merge = tasks(h)[git_repo.head()]
        assert ("\nmerged: " in merge["text"]) == bool(limit)
        written_in_its_authors_commit(h, git_repo)
    finally:
        h.close()


def test_a_side_branch_read_asked_to_stop_is_read_again_by_the_next_sync(git_repo, tmp_path, monkeypatch):
    """The daemon's stop reaches a side branch's search (a merge of a long-lived branch
    can bring in a thousand commits): the history stays owed, and the next sync reads
    the merge's branch again for what it left."""
    monkeypatch.setattr(authorship_module, "READS_A_CHUNK", 1)
    repo = git_repo
    by = partial(commit_by, repo, monkeypatch)
    repo.write("a.py", "def f():\n    return 1\n")
    by("Ann", "f")
    repo.git("checkout", "-q", "-b", "feat")
    repo.write("a.py", "def f():\n    return 2\n")
    by("Bob", "f returns 2")
    repo.write("a.py", "def f():\n    return 2\n\n\ndef h():\n    return 3\n")
    by("Cid", "h")
    repo.git("checkout", "-q", "main")
    monkeypatch.setenv("GIT_AUTHOR_NAME", "Mia")
    repo.git("merge", "-q", "--no-ff", "-m", "merge feat", "feat")
    repo.write("README", "words\n")
    by("Hal", "a readme")
    h = Harness("edge", tmp_path / "state")
    try:
        first = h.sync(repo, stop_history=lambda: True)

        def authors() -> dict[str, str]:
            return {key[1]: author_name(p.payload) for key, p in structural(h).items() if key[0] == "a.py"}

        assert first.history_owed is True and authors() == {"<module>": "Cid", "f": "", "h": "Cid"}
        assert h.sync(repo).history_owed is False
        assert authors() == {"<module>": "Cid", "f": "Bob", "h": "Cid"}
    finally:
        h.close()


def test_an_octopus_merge_reads_every_branch_it_merged(git_repo, tmp_path, monkeypatch):
    """A merge of three branches at once: what each brought in is its own commit's, and
    the merge's task memory lists the subjects of all of them."""
    repo = git_repo
    by = partial(commit_by, repo, monkeypatch)
    repo.write("base.py", "def base():\n    return 0\n")
    by("Ann", "base")
    for who in ("Bob", "Cid", "Dan"):
        repo.git("checkout", "-q", "-b", who.lower(), "main")
        repo.write(f"{who.lower()}.py", f"def {who.lower()}():\n    return 1\n")
        by(who, f"{who.lower()} added")
    repo.git("checkout", "-q", "main")
    monkeypatch.setenv("GIT_AUTHOR_NAME", "Mia")
    repo.git("merge", "-q", "--no-ff", "-m", "octopus", "bob", "cid", "dan")
    merge = repo.head()
    assert len(repo.git("rev-list", "--parents", "-n", "1", merge).split()) == 5  # itself, main and three
    h = Harness("edge", tmp_path / "state")
    try:
        h.sync(repo)
        found = {key: (p.payload.get("task_id"), author_name(p.payload)) for key, p in structural(h).items()}
        for who in ("Bob", "Cid", "Dan"):
            assert found[(f"{who.lower()}.py", who.lower())] == (task_memory_id(SCOPE, merge), who)
        merged = tasks(h)[merge]["text"].splitlines()[1]
        assert merged.startswith("merged: ") and sorted(merged[8:].split("; ")) == [
            "bob added", "cid added", "dan added"]
        written_in_its_authors_commit(h, repo)
    finally:
        h.close()


def test_code_a_side_branch_moved_goes_back_to_the_commit_that_wrote_it_before_the_branch(
    git_repo, tmp_path, monkeypatch
):
    """A branch renames ``k.py`` (no edits), then grows the file past what git pairs as a
    rename: the merge adds ``kay.py``. ``k`` in it was written before the branch, by Ann:
    the branch's rename takes it back to ``k.py``, where the first-parent history finds
    her, not the merger."""
    repo = git_repo
    by = partial(commit_by, repo, monkeypatch)
    repo.write("lib/k.py", "def k():\n    return 1\n")
    ann = by("Ann", "k")
    repo.write("README", "words\n")
    by("Ben", "a readme")
    repo.git("checkout", "-q", "-b", "feat")
    repo.git("mv", "lib/k.py", "lib/kay.py")
    by("Cid", "k.py is kay.py")
    grown = "".join(f"\n\ndef g{i}(a, b):\n    total = a * {i} + b\n    return total - {i}\n" for i in range(30))
    repo.write("lib/kay.py", "def k():\n    return 1\n" + grown)
    by("Dan", "thirty helpers")
    repo.git("checkout", "-q", "main")
    monkeypatch.setenv("GIT_AUTHOR_NAME", "Mia")
    repo.git("merge", "-q", "--no-ff", "-m", "merge feat", "feat")
    h = Harness("edge", tmp_path / "state")
    try:
        h.sync(repo)
        found = {key: (p.payload.get("task_id"), author_name(p.payload)) for key, p in structural(h).items()}
        assert found[("lib/kay.py", "k")] == (task_memory_id(SCOPE, ann), "Ann")
        assert found[("lib/kay.py", "g7")][1] == "Dan"
        written_in_its_authors_commit(h, repo)
    finally:
        h.close()


@pytest.mark.parametrize("every", [None, "WRITERS_CHUNK", "READS_A_CHUNK"], ids=["whole", "walked", "read"])
def test_code_older_than_the_history_read_gets_its_author_from_a_search_past_it(
    git_repo, tmp_path, monkeypatch, every
):
    """Past the task memories' history the search reads on only the commits that changed a
    file where a version without a writer is, or was before a move it followed (found in
    the same chunk of commits); a claim there names the author alone, and a merge claims
    nothing itself: its side branch is read for who wrote what it brought in. Stopped
    where it asks whether to (every so many commits walked, or read), it goes on in the
    next sync."""
    stopped = every is not None
    if every:
        monkeypatch.setattr(authorship_module, every, 1)
    repo = git_repo
    by = partial(commit_by, repo, monkeypatch)

    def x_py(x: int, y: int) -> dict[str, str]:
        return {"lib/x.py": f"def x():\n    return {x}\n\n\ndef y():\n    return {y}\n"}

    steps = (("Ann", "x and y", x_py(1, 2)), ("Bob", "y returns 3", x_py(1, 3)),
             ("Cid", "docs alone", {"docs.md": "words\n"}))  # fmt: skip
    _, bob, cid = (write_and_commit(repo, monkeypatch, who, message, files) for who, message, files in steps)
    merge = merged_from_side(repo, monkeypatch, "lib/w.py", "def w():\n    return 0\n")
    side = repo.git("rev-parse", "side").strip()
    (repo.path / "src").mkdir()
    repo.git("mv", "lib", "src/lib")
    fay = by("Fay", "lib into src")
    repo.write("src/lib/x.py", "def x():\n    return 10\n\n\ndef y():\n    return 3\n")
    gus = by("Gus", "x returns 10")
    repo.write("README.md", "hello\n")
    hal = by("Hal", "a readme")
    read = commits_read(monkeypatch, searched=True)
    asked: list[int] = []
    h = Harness("edge", tmp_path / "state", IndexOptions(backfill_commits=2))  # Hal's and Gus's
    try:
        first = h.sync(repo, stop_history=lambda: stopped and not asked.append(1))
        assert first.history_owed is stopped and set(tasks(h)) == {gus, hal}
        if not stopped:  # Gus's two, then the merge's two (Dan's) and Bob's y past the history read
            assert first.history_writers == 5
            assert "; history +1 commits, writers found for 5 versions in" in first.summary()
        if stopped:  # after the first chunk past the history read
            assert read == [fay] and h.sync(repo).history_owed is False
        found = {key: (p.payload.get("task_id"), author_name(p.payload)) for key, p in structural(h).items()}
        assert found == {("src/lib/x.py", "<module>"): (task_memory_id(SCOPE, gus), "Gus"),
                         ("src/lib/x.py", "x"): (task_memory_id(SCOPE, gus), "Gus"),
                         ("src/lib/x.py", "y"): (None, "Bob"),
                         ("src/lib/w.py", "<module>"): (None, "Dan"),
                         ("src/lib/w.py", "w"): (None, "Dan")}  # fmt: skip
        # the merge, then its side branch's commit, then Bob's; nothing left to seek: Ann's not read
        assert read[-4:] == [fay, merge, side, bob] and cid not in read
        written_in_its_authors_commit(h, repo)
    finally:
        h.close()


@pytest.mark.parametrize("stopped", [False, True], ids=["whole", "stopped"])
def test_the_history_read_follows_moves_back_to_who_wrote_the_code(git_repo, tmp_path, monkeypatch, stopped):
    """A mass move to ``src/`` (no edits) and a rename with edits did not write the code
    they moved: its writers are the commits that wrote it at its old paths. A history read
    that stopped finds the moves of what it read before again when it goes on."""
    monkeypatch.setattr(tasks_module, "HISTORY_CHUNK", 1)
    repo = git_repo

    by = partial(commit_by, repo, monkeypatch)

    repo.write("lib/a.py", "def f():\n    return 1\n\n\ndef g():\n    return 2\n")
    K = "def k():\n" + "".join(f"    x{i} = {i}\n" for i in range(12)) + "    return 3\n"
    repo.write("lib/b.py", K)
    ann = by("Ann", "a and b")
    repo.write("lib/a.py", "def f():\n    return 1\n\n\ndef g():\n    return 20\n")
    bob = by("Bob", "g returns 20")
    (repo.path / "src").mkdir()
    repo.git("mv", "lib", "src/lib")
    by("Cid", "move lib to src")
    repo.git("mv", "src/lib/b.py", "src/lib/bee.py")
    repo.write("src/lib/bee.py", K + "\n\ndef k2():\n    return 4\n")
    dan = by("Dan", "b.py is bee.py, with k2")
    repo.write("README.md", "hello\n")
    by("Eve", "a readme")
    asked: list[int] = []
    h = Harness("edge", tmp_path / "state")
    try:
        first = h.sync(repo, stop_history=lambda: stopped and not asked.append(1))
        assert first.history_owed is stopped
        if stopped:
            assert h.sync(repo).history_owed is False
        assert [r["to"] for r in tasks(h)[dan]["renames"]] == ["src/lib/bee.py"]  # renamed, with edits
        found = {key: (p.payload.get("task_id"), author_name(p.payload))
                 for key, p in structural(h).items()}  # fmt: skip
        by_ann, by_bob, by_dan = ((task_memory_id(SCOPE, c), who)
                                  for c, who in ((ann, "Ann"), (bob, "Bob"), (dan, "Dan")))  # fmt: skip
        assert found == {("src/lib/a.py", "<module>"): by_bob, ("src/lib/a.py", "f"): by_ann,
                         ("src/lib/a.py", "g"): by_bob, ("src/lib/bee.py", "<module>"): by_dan,
                         ("src/lib/bee.py", "k"): by_ann, ("src/lib/bee.py", "k2"): by_dan}  # fmt: skip
        written_in_its_authors_commit(h, repo)
    finally:
        h.close()


def test_what_a_commit_renamed_past_the_parse_limit_goes_back_whole(git_repo, harness, monkeypatch):
    """Past the parse limit a commit's renamed file is not compared: none of its versions
    is the commit's, and each is claimed where an older commit produced it the same. What
    none produced gets its writer from git blame (``blamed``): Bob wrote ``k2``."""
    monkeypatch.setattr(commits_module, "MAX_PARSED_FILES", 2)
    repo = git_repo
    k = "def k():\n" + "".join(f"    x{i} = {i}\n" for i in range(12)) + "    return 3\n"
    repo.write("b.py", k)
    ann = commit_by(repo, monkeypatch, "Ann", "k")
    repo.git("mv", "b.py", "z.py")
    repo.write("z.py", k + "\n\ndef k2():\n    return 4\n")
    repo.write("a1.py", "def one():\n    return 1\n")
    repo.write("a2.py", "def two():\n    return 2\n")
    commit_by(repo, monkeypatch, "Bob", "b.py is z.py, with k2, and two more files")  # z.py sorts third: not parsed
    repo.write("README.md", "hello\n")
    repo.commit("a readme")
    harness.sync(repo)
    found = {key: author_name(p.payload) for key, p in structural(harness).items()}
    assert {key: who for key, who in found.items() if key[0] == "z.py"} == {
        ("z.py", "k"): "Ann", ("z.py", "k2"): "Bob", ("z.py", "<module>"): "Bob"}
    assert found[("a1.py", "one")] == "Bob" and tasks(harness)[ann]["symbol_ids"] == []


def test_a_sync_over_several_commits_gives_each_version_the_commit_that_made_it(harness, git_repo, monkeypatch):
    """The sync opens what it writes at its target; each version goes to the newest
    commit of the window that wrote it: a rename is followed back (Bob wrote h, Cid moved
    it), what a merge brought in goes to the side branch's commit that wrote it, and only
    what no other commit made to the target. A version the sync did not write keeps its own."""
    repo = git_repo
    by = partial(commit_by, repo, monkeypatch)
    repo.write("a.py", "def f():\n    return 1\n\n\ndef g():\n    return 2\n")
    repo.write("keep.py", "def kept():\n    return 0\n")
    zed = by("Zed", "f, g, kept")
    harness.sync(repo)
    repo.write("a.py", "def f():\n    return 10\n\n\ndef g():\n    return 2\n")
    ann = by("Ann", "f returns 10")
    repo.write("b.py", "def h():\n" + "".join(f"    x{i} = {i}\n" for i in range(12)) + "    return 3\n")
    bob = by("Bob", "add h")
    repo.git("mv", "b.py", "moved.py")
    by("Cid", "b.py is moved.py")
    repo.git("checkout", "-q", "-b", "side")
    repo.write("a.py", "def f():\n    return 10\n\n\ndef g():\n    return 20\n")
    dan = by("Dan", "g returns 20")
    repo.git("checkout", "-q", "main")
    monkeypatch.setenv("GIT_AUTHOR_NAME", "Eve")
    repo.git("merge", "-q", "--no-ff", "-m", "merge side", "side")
    repo.write("c.py", "def k():\n    return 4\n")
    fay = by("Fay", "add k")
    result = harness.sync(repo)
    assert result.tasks_added == 6
    found = {key: (p.payload["valid_from_commit"], p.payload["task_id"], author_name(p.payload))
             for key, p in structural(harness).items()}  # fmt: skip
    made_by = {"Ann": ann, "Bob": bob, "Dan": dan, "Fay": fay}
    at = {who: (fay, task_memory_id(SCOPE, c), who) for who, c in made_by.items()}
    assert found == {
        ("a.py", "<module>"): at["Dan"], ("a.py", "f"): at["Ann"], ("a.py", "g"): at["Dan"],
        ("moved.py", "<module>"): at["Bob"], ("moved.py", "h"): at["Bob"],
        ("c.py", "<module>"): at["Fay"], ("c.py", "k"): at["Fay"],
        ("keep.py", "<module>"): (zed, task_memory_id(SCOPE, zed), "Zed"),
        ("keep.py", "kept"): (zed, task_memory_id(SCOPE, zed), "Zed")}  # fmt: skip
    written_in_its_authors_commit(harness, repo)


def test_a_sync_to_a_merge_gives_what_it_brought_in_to_the_merged_branchs_commits(
    harness, git_repo, monkeypatch, tmp_path
):
    """The post-merge hook's sync: its target is the merge, whose diff from its first
    parent holds all it brought in. What the merged branch's commits wrote is theirs; what
    the merge alone made is its own, by the merger (as git blame has it); the same after a
    reset back and forward again, and where the window holds every commit just at its
    limit. Where the window stopped at its limit, what none of its commits made may be
    an older commit's: the merge's task alone, its writer found by the history read the
    sync owes, as a first index finds it (Bob's f through the merge, bb the merge's)."""
    repo = git_repo
    by = partial(commit_by, repo, monkeypatch)
    repo.write("a.py", "def f():\n    return 1\n")
    repo.write("b.py", "def b():\n    return 1\n")
    by("Ann", "f and b")
    repo.git("checkout", "-q", "-b", "feat")
    repo.write("a.py", "def f():\n    return 2\n")
    bob = by("Bob", "f returns 2")
    repo.write("c.py", "def c():\n    return 3\n")
    cid = by("Cid", "c")
    repo.git("checkout", "-q", "main")
    repo.write("b.py", "def b():\n    return 2\n")
    gus = by("Gus", "b returns 2")
    short = Harness("edge", tmp_path / "short", IndexOptions(backfill_commits=2))
    exact = Harness("edge", tmp_path / "exact", IndexOptions(backfill_commits=3))
    try:
        for h in (harness, short, exact):
            h.sync(repo)
        monkeypatch.setenv("GIT_AUTHOR_NAME", "Mia")
        repo.git("merge", "-q", "--no-ff", "-m", "merge feat", "feat")
        repo.write("b.py", "def b():\n    return 2\n\n\ndef bb():\n    return 5\n")
        repo.git("commit", "-q", "--amend", "--no-edit", "-a")  # an evil merge: bb is its own
        merge = repo.head()
        by_bob, by_merge = (task_memory_id(SCOPE, bob), "Bob"), (task_memory_id(SCOPE, merge), "Mia")
        wanted = {("a.py", "f"), ("b.py", "bb"), ("b.py", "b"), ("c.py", "c")}

        def writers(h: Harness) -> dict[tuple[str, str], tuple[str, str]]:
            return {key: (p.payload["task_id"], author_name(p.payload)) for key, p in structural(h).items()
                    if key in wanted}  # fmt: skip

        expected = {("a.py", "f"): by_bob, ("b.py", "bb"): by_merge, ("b.py", "b"): (task_memory_id(SCOPE, gus), "Gus"),
                    ("c.py", "c"): (task_memory_id(SCOPE, cid), "Cid")}  # fmt: skip
        for h in (harness, short, exact):
            h.sync(repo)
        assert writers(harness) == expected
        assert writers(exact) == expected  # [merge, Cid, Bob]: all it brought in, at the limit
        # [merge, Cid]: Bob's f is left with the merge's task, as is bb (an older commit's?), for the history read
        assert writers(short) == {**expected, ("a.py", "f"): (by_merge[0], "Bob")}
        fresh = Harness("edge", tmp_path / "fresh", IndexOptions(backfill_commits=2))
        try:
            fresh.sync(repo)  # the same author and commit (a task: that of the commit it read, here the merge's)
            wrote = [{k: (author_name(p.payload), p.payload["written_in"]) for k, p in structural(h).items()}
                     for h in (fresh, short)]  # fmt: skip
            assert wrote[0] == wrote[1]
        finally:
            fresh.close()
        repo.git("reset", "-q", "--hard", gus)
        harness.sync(repo)
        repo.git("reset", "-q", "--hard", merge)
        harness.sync(repo)  # reopened, its task memories' links read again
        assert writers(harness) == expected
        for h in (harness, short, exact):
            written_in_its_authors_commit(h, repo)
    finally:
        short.close()
        exact.close()


def test_after_the_indexed_commit_went_from_git_the_history_read_finds_the_writers(harness, git_repo, monkeypatch):
    """The branch is rewritten and its old commits collected: the sync cannot tell which
    commit wrote what changed (``f`` modified, ``h`` new: no author), and the history
    read of the new branch gives each its commit; ``g``, unchanged, keeps its own."""
    repo = git_repo
    repo.write("a.py", "def f():\n    return 1\n\n\ndef g():\n    return 2\n")
    ann = commit_by(repo, monkeypatch, "Ann", "f and g")
    harness.sync(repo)
    repo.git("checkout", "-q", "--orphan", "rewritten")
    repo.write("a.py", "def f():\n    return 10\n\n\ndef g():\n    return 2\n\n\ndef h():\n    return 3\n")
    bob = commit_by(repo, monkeypatch, "Bob", "f, g and h, rewritten")
    repo.git("branch", "-M", "rewritten", "main")
    repo.git("reflog", "expire", "--expire=now", "--all")
    repo.git("gc", "-q", "--prune=now")
    harness.sync(repo)
    found = {key: (p.payload["change"], p.payload.get("task_id"), author_name(p.payload))
             for key, p in structural(harness).items()}  # fmt: skip
    assert found[("a.py", "f")] == ("modified", task_memory_id(SCOPE, bob), "Bob")
    assert found[("a.py", "h")] == ("indexed", task_memory_id(SCOPE, bob), "Bob")
    assert found[("a.py", "g")][0::2] == ("indexed", "Ann")
    assert structural(harness)[("a.py", "g")].payload["written_in"] == ann  # gone from git, as its interval's commit
    written_in_its_authors_commit(harness, repo, gone=(ann,))


class WriteLog(StoreWrapper):
    """Wraps a harness's store and records what each write held: the checkpoint's
    state, or the commits of the task memories written."""

    def __init__(self, h: Harness) -> None:
        super().__init__(h.store)
        self.writes: list[tuple[str, object]] = []
        h.indexer.store = self  # type: ignore[assignment]

    def before_write(self, name: str, args: tuple) -> None:  # type: ignore[type-arg]
        for p in args[0] if name == "upsert" else ():
            if p.payload.get("record") == "checkpoint":
                self.writes.append(("checkpoint", (p.payload["pending"], p.payload["history_owed"])))
            elif p.payload.get("type") == "task":
                self.writes.append(("task", p.payload["commit"]))


def test_the_code_is_searchable_before_the_history_is_written(harness, git_repo):
    """A first sync writes its target's task memory and a clean checkpoint that owes
    the history, and only then the older commits' task memories, then clears the mark."""
    made = linear_history(git_repo, 5)
    log = WriteLog(harness)
    result = harness.sync(git_repo)
    assert (result.tasks_added, result.history_added, result.history_owed) == (1, 4, False)
    assert result.embedded > 0 and result.history_embedded == 4
    clean = log.writes.index(("checkpoint", (None, 1)))
    assert [w for w in log.writes[:clean] if w[0] == "task"] == [("task", made[-1])]
    assert {c for kind, c in log.writes[clean:] if kind == "task"} == set(made[:-1])
    assert log.writes[-1] == ("checkpoint", (None, 0))
    assert set(tasks(harness)) == set(made)
    assert harness.sync(git_repo).history_added == 0  # nothing owed any more


def test_a_backfill_asked_to_stop_is_finished_by_the_next_sync(harness, git_repo, monkeypatch):
    """The daemon stops a backfill between chunks when a newer event waits; the next
    sync, whatever it brings, goes on with it, and a reset meanwhile is respected:
    only ancestors of the branch's new tip are written."""
    monkeypatch.setattr(tasks_module, "HISTORY_CHUNK", 2)
    made = linear_history(git_repo, 9)
    asked = []
    first = harness.sync(git_repo, stop_history=lambda: not asked.append(1))
    assert (first.history_added, first.history_owed, len(asked)) == (2, True, 1)
    assert set(tasks(harness)) == {made[-1], made[-2], made[-3]}
    assert harness.checkpoint()["history_owed"] == 1
    git_repo.git("reset", "-q", "--hard", made[-5])  # before what was written
    second = harness.sync(git_repo, stop_history=lambda: False)
    assert (second.tasks_deprecated, second.history_owed) == (3, False)
    assert set(tasks(harness)) == set(made[:-4])
    assert set(tasks(harness, deprecated=1)) == set(made[-3:])
    assert harness.checkpoint()["history_owed"] == 0


def test_backfill_zero_turns_task_memory_off(git_repo, tmp_path):
    linear_history(git_repo, 3)
    h = Harness("edge", tmp_path / "state", IndexOptions(backfill_commits=0))
    try:
        result = h.sync(git_repo)
        assert result.tasks_added == 0 and result.added > 0 and tasks(h) == {}
    finally:
        h.close()


def test_backfill_follows_first_parents_and_new_merges_bring_their_commits(harness, git_repo):
    h, repo = harness, git_repo
    linear_history(repo, 1)
    repo.git("checkout", "-q", "-b", "side")
    side = linear_history(repo, 2)
    repo.git("checkout", "-q", "main")
    repo.write("main.py", "def main():\n    return 0\n")
    repo.commit("main work")
    repo.git("merge", "-q", "--no-ff", "side", "-m", "Merge side")
    h.sync(repo)
    first = tasks(h)
    assert len(first) == 3 and not set(side) & set(first)
    assert len(first[repo.head()]["parents"]) == 2

    repo.git("checkout", "-q", "-b", "side2")
    side2 = linear_history(repo, 2)
    repo.git("checkout", "-q", "main")
    repo.git("merge", "-q", "--no-ff", "side2", "-m", "Merge side2")
    assert h.sync(repo).tasks_added == 3
    assert set(side2) | {repo.head()} <= set(tasks(h))


def test_reset_back_deprecates_and_reset_forward_reopens(harness, git_repo):
    h, repo = harness, git_repo
    made = linear_history(repo, 4)
    h.sync(repo)
    repo.git("reset", "-q", "--hard", made[1])
    back = h.sync(repo)
    assert (back.tasks_added, back.tasks_deprecated) == (0, 2)
    assert set(tasks(h)) == set(made[:2])
    closed = tasks(h, deprecated=1)
    assert set(closed) == set(made[2:])
    for payload in closed.values():
        assert payload["deprecated_reason"] == "removed" and payload.get("superseded_by") is None
        assert payload["valid_to_commit"] == made[1] and payload["valid_to_time"] > 0

    repo.git("reset", "-q", "--hard", made[3])
    forward = h.sync(repo)
    assert (forward.tasks_added, forward.tasks_deprecated, forward.embedded) == (2, 0, 0)
    again = tasks(h)
    assert set(again) == set(made) and tasks(h, deprecated=1) == {}
    assert [e["deprecated_reason"] for e in again[made[3]]["history"]] == ["removed"]
    assert h.store.count(MemoryFilter(repo="r", types=("task",), deprecated=None)) == 4


def test_a_reset_forward_credits_what_comes_back_as_the_way_forward_did(harness, git_repo, monkeypatch):
    """Reset back and forward again: the versions that come back are reopened without
    reading their commits, and each goes to the commit whose task memory links it, as
    the first sync over those commits credited it."""
    h, repo = harness, git_repo
    made = linear_history(repo, 2)
    h.sync(repo)
    for n, who in ((7, "Ann"), (8, "Bob"), (9, "Cid")):
        repo.write(f"m{n}.py", f"def f{n}():\n    return {n}\n")
        made.append(commit_by(repo, monkeypatch, who, f"add f{n}"))
    h.sync(repo)  # one sync over three commits

    def credited() -> dict[tuple[str, str], tuple[object, object]]:
        return {key: (p.payload["task_id"], p.payload["author"]) for key, p in structural(h).items()}

    forward = credited()
    assert forward[("m7.py", "f7")] == (task_memory_id(SCOPE, made[2]), "Ann <author@example.invalid>")
    repo.git("reset", "-q", "--hard", made[1])
    h.sync(repo)
    repo.git("reset", "-q", "--hard", made[4])
    read = commits_read(monkeypatch)
    h.sync(repo)
    assert read == [made[4]] and credited() == forward
    written_in_its_authors_commit(h, repo)


def test_a_reset_forward_gives_what_a_commit_moved_without_edits_to_who_wrote_it(harness, git_repo, monkeypatch):
    """A commit's links leave out the files it renamed without edits (it did not write
    them); the way forward gave their versions to the commit that wrote them, and so does
    the way back to it, through the renames its task memory keeps."""
    h, repo = harness, git_repo
    made = linear_history(repo, 2)
    h.sync(repo)
    repo.write("m7.py", "def f7():\n    return 7\n")
    made.append(commit_by(repo, monkeypatch, "Ann", "add f7"))
    (repo.path / "pkg").mkdir()
    repo.git("mv", "m0.py", "pkg/m0.py")
    made.append(commit_by(repo, monkeypatch, "Dan", "move m0 into pkg"))
    repo.write("m9.py", "def f9():\n    return 9\n")
    made.append(commit_by(repo, monkeypatch, "Cid", "add f9"))
    h.sync(repo)  # one sync over the three

    def credited() -> dict[tuple[str, str], tuple[object, str]]:
        return {key: (p.payload["task_id"], author_name(p.payload)) for key, p in structural(h).items()}

    forward = credited()
    assert forward[("pkg/m0.py", "f0")] == (task_memory_id(SCOPE, made[0]), "Test Author")
    assert forward[("m7.py", "f7")][1] == "Ann" and forward[("m9.py", "f9")][1] == "Cid"
    repo.git("reset", "-q", "--hard", made[1])
    h.sync(repo)
    repo.git("reset", "-q", "--hard", made[4])
    h.sync(repo)
    assert credited() == forward
    written_in_its_authors_commit(h, repo)


def test_reset_forward_reopens_as_written_without_reading_the_commits(harness, git_repo, monkeypatch):
    h, repo = harness, git_repo
    made = linear_history(repo, 4)
    h.sync(repo)
    written = tasks(h)
    repo.git("reset", "-q", "--hard", made[1])
    h.sync(repo)
    read = commits_read(monkeypatch)
    repo.git("reset", "-q", "--hard", made[3])
    forward = h.sync(repo)
    assert (forward.tasks_added, forward.embedded, read) == (2, 0, [made[3]])  # the target alone is read
    assert [e["deprecated_reason"] for e in tasks(h)[made[2]]["history"]] == ["removed"]
    state = {"history", "indexed_at"}
    for commit, payload in tasks(h).items():  # an update may drop a null key: None either way
        assert {k: v for k, v in payload.items() if k not in state and v is not None} == {
            k: v for k, v in written[commit].items() if k not in state and v is not None
        }
    # a commit never seen before is still read and written in full
    repo.write("m9.py", "def f9():\n    return 9\n")
    newest = repo.commit("add f9")
    assert h.sync(repo).tasks_added == 1 and read == [made[3], newest]
    assert tasks(h)[newest]["symbols"] == [{"path": "m9.py", "added": ["f9"], "modified": [], "removed": []}]


def test_a_target_that_comes_back_is_written_whole_with_a_targets_links(harness, git_repo):
    h, repo = harness, git_repo
    repo.write("m.py", "def f():\n    return 0\n")
    a = repo.commit("a")
    repo.write("m.py", "def f():\n    return 1\n")
    b = repo.commit("b")
    repo.write("m.py", "def f():\n    return 2\n")
    repo.commit("c")
    h.sync(repo)  # f as b left it was never a sync target's: b links nothing
    assert tasks(h)[b]["symbol_ids"] == []
    repo.git("reset", "-q", "--hard", a)
    h.sync(repo)
    repo.git("reset", "-q", "--hard", b)
    h.sync(repo)
    live = [p.id for p in h.store.scroll(MemoryFilter(repo="r", types=("structural",), paths=("m.py",)))]
    again = tasks(h)[b]
    assert sorted(again["symbol_ids"]) == sorted(live) and len(live) == 2  # the module and f, as b left them
    assert [e["deprecated_reason"] for e in again["history"]] == ["removed"]


def test_patch_ids_only_for_commits_whose_paths_the_other_side_shares(harness, git_repo, monkeypatch):
    h, repo = harness, git_repo
    made = linear_history(repo, 4)
    h.sync(repo)
    computed: list[str] = []
    patch_id = GitRepository.patch_id
    monkeypatch.setattr(GitRepository, "patch_id", lambda self, c: computed.append(c) or patch_id(self, c))
    repo.git("reset", "-q", "--hard", made[1])
    repo.git("cherry-pick", made[3])  # the same patch again: m3.py on both sides, m2.py on one
    picked = repo.head()
    assert h.sync(repo).tasks_deprecated == 2
    assert sorted(computed) == sorted([picked, made[3]])
    closed = tasks(h, deprecated=1)
    assert closed[made[3]]["superseded_by"] == task_memory_id(SCOPE, picked)
    assert closed[made[2]].get("superseded_by") is None
    computed.clear()
    repo.git("reset", "-q", "--hard", made[0])  # the window is made[0] alone: m0.py, no removed commit's path
    assert h.sync(repo).tasks_deprecated == 2 and computed == []


def test_amend_and_rebase_link_superseded_by(harness, git_repo):
    h, repo = harness, git_repo
    made = linear_history(repo, 2)
    h.sync(repo)

    # same patch, new message: matched by patch id
    repo.git("commit", "-q", "--amend", "-m", "add f1, reworded")
    reworded = repo.head()
    r = h.sync(repo)
    assert (r.tasks_added, r.tasks_deprecated) == (1, 1)
    old = tasks(h, deprecated=1)[made[1]]
    assert old["superseded_by"] == task_memory_id(SCOPE, reworded) and old["deprecated_reason"] == "removed"

    # new content, same subject and author: matched by subject
    repo.write("m1.py", "def f1():\n    return 'changed'\n")
    repo.git("add", "-A")
    repo.git("commit", "-q", "--amend", "--no-edit")
    edited = repo.head()
    h.sync(repo)
    assert tasks(h, deprecated=1)[reworded]["superseded_by"] == task_memory_id(SCOPE, edited)

    # rebase onto a side branch: every rewritten commit points at its new self
    repo.git("checkout", "-q", "-b", "side", made[0])
    linear_history(repo, 1)  # touches m0.py only
    repo.git("checkout", "-q", "main")
    repo.git("rebase", "-q", "side")
    rebased = repo.head()
    h.sync(repo)
    assert tasks(h, deprecated=1)[edited]["superseded_by"] == task_memory_id(SCOPE, rebased)
    assert set(tasks(h)) == {made[0], repo.git("rev-parse", "side"), rebased}


def test_a_subject_line_or_an_author_past_their_bound_is_cut(harness, git_repo, tmp_path):
    """A first line that is a pasted 3 MB log made a task memory of 6 MB (its subject and
    its name); a rewrite of it is still matched by subject and author, cut alike."""
    from recalld.ingest.gitnames import PERSON_CHARS, SUBJECT_CHARS

    git_repo.write("a.py", "def a():\n    return 1\n")
    pasted = tmp_path / "message"
    pasted.write_text("x" * 3_000_000 + "\n")
    git_repo.git("add", "-A")
    author = f"{'N' * 1000} <n@example.invalid>"
    git_repo.git("commit", "-q", "-F", str(pasted), f"--author={author}")
    first = git_repo.head()
    harness.sync(git_repo)
    payload = tasks(harness)[first]
    assert len(payload["subject"]) == len(payload["name"]) == SUBJECT_CHARS and payload["subject"].endswith("…")
    assert len(payload["author"]) == PERSON_CHARS
    git_repo.write("a.py", "def a():\n    return 2\n")  # same subject and author, another patch
    git_repo.git("add", "-A")
    git_repo.git("commit", "-q", "--amend", "--no-edit", f"--author={author}")
    harness.sync(git_repo)
    assert tasks(harness, deprecated=1)[first]["superseded_by"] == task_memory_id(SCOPE, git_repo.head())


def test_giant_commit_marks_symbols_truncated(harness, git_repo, monkeypatch):
    monkeypatch.setattr(commits_module, "MAX_PARSED_FILES", 2)
    for i in range(4):
        git_repo.write(f"pkg/m{i}.py", f"def f{i}():\n    return {i}\n")
    c = git_repo.commit("many files")
    harness.sync(git_repo)
    payload = tasks(harness)[c]
    assert payload["symbols_truncated"] is True and payload["files_count"] == 4
    assert [s["path"] for s in payload["symbols"]] == ["pkg/m0.py", "pkg/m1.py"]


def test_commit_texts_go_through_the_cache(harness, git_repo, tmp_path):
    linear_history(git_repo, 3)
    harness.sync(git_repo)
    other = Harness("edge", tmp_path / "second", None)
    other.cache.close()
    other.cache = harness.cache
    other.embeddings = harness.embeddings
    other.indexer.embeddings = harness.embeddings
    try:
        again = other.sync(git_repo)
        assert again.tasks_added + again.history_added == 3 and again.embedded + again.history_embedded == 0
    finally:
        other.store.close()


def test_root_commit_of_an_empty_file(harness, git_repo):
    Path(git_repo.path / "empty.py").write_text("")
    c = git_repo.commit("empty file")
    harness.sync(git_repo)
    assert tasks(harness)[c]["files_added"] == ["empty.py"]


def test_a_target_that_only_moves_a_file_links_the_moved_versions(harness, git_repo):
    h, repo = harness, git_repo
    repo.write("a.py", "def f():\n    return 1\n")
    repo.commit("add f")
    h.sync(repo)
    repo.git("mv", "a.py", "b.py")
    moved = repo.commit("move a to b")
    h.sync(repo)
    at_b = {p.id for (path, _q), p in structural(h).items() if path == "b.py"}
    assert len(at_b) == 2 and set(tasks(h)[moved]["symbol_ids"]) == at_b


def test_export_shape_of_a_task_memory(harness, git_repo):
    from recalld.daemon.query import memory_record

    git_repo.write("a.py", "def f():\n    return 1\n")
    c = git_repo.commit("add f")
    harness.sync(git_repo)
    (point,) = harness.memories(types=("task",))
    record = memory_record(point)
    assert (record["id"], record["type"], record["kind"], record["commit"]) == (point.id, "task", "commit", c)
    assert record["subject"] == "add f" and record["files_added"] == ["a.py"] and record["deprecated"] is False
    assert record["symbols"] == [{"path": "a.py", "added": ["f"], "modified": [], "removed": []}]
    assert len(record["symbol_ids"]) == 2
    (structural_record,) = [memory_record(m) for m in harness.memories() if m.payload["kind"] == "function"]
    assert "commit" not in structural_record and structural_record["task_id"] == point.id


def test_a_merges_task_memory_lists_the_subjects_of_the_commits_it_brought_in(harness, git_repo, monkeypatch):
    """A history read makes task memories of first-parent commits: where pull requests
    are merged with merge commits, the merges. Each lists the subjects of the commits it
    brought in (newest first, merges among them left out, the first few alone), so
    their words are searchable."""
    monkeypatch.setattr(commits_module, "MERGED_SUBJECTS", 3)
    repo = git_repo
    repo.write("a.py", "def f():\n    return 1\n")
    repo.commit("start")
    repo.git("checkout", "-q", "-b", "feat")
    for n in range(4):
        repo.write("a.py", f"def f():\n    return {n + 2}\n")
        repo.commit(f"f returns {n + 2}")
    repo.git("checkout", "-q", "-b", "inner")
    repo.write("i.py", "x = 1\n")
    repo.commit("an inner branch's commit")
    repo.git("checkout", "-q", "feat")
    repo.git("merge", "-q", "--no-ff", "-m", "inner into feat", "inner")
    repo.git("checkout", "-q", "main")
    repo.git("merge", "-q", "--no-ff", "-m", "Merge pull request #7 from someone/feat\n\nf counts up", "feat")
    merge = repo.head()
    harness.sync(repo)
    text = tasks(harness)[merge]["text"].splitlines()
    assert text[:2] == ["Merge pull request #7 from someone/feat", "f counts up"]
    merged = text[2]
    assert merged.startswith("merged: ") and merged.endswith(" (+3 more commits)"), text
    listed = merged.removeprefix("merged: ").removesuffix(" (+3 more commits)").split("; ")
    assert "inner into feat" not in listed and len(listed) == 2  # of the first three, one the inner merge
    assert set(listed) <= {"f returns 5", "an inner branch's commit", "f returns 4"}


def test_files_the_sync_parsed_are_not_parsed_again_for_their_commit(git_repo, monkeypatch):
    from recalld.ingest.collect import FileCollector
    from recalld.ingest.gitrepo import GitRepository

    repo = git_repo
    repo.write("app.py", "class A:\n    def m(self):\n        return 1\n\n\ndef f():\n    return 2\n")
    repo.write("README.md", "# Title\n\nSome words.\n")
    first = repo.commit("first")
    repo.write("app.py", "class A:\n    def m(self):\n        return 10\n\n\ndef g():\n    return 3\n")
    tip = repo.commit("second")
    git = GitRepository(str(repo.path))
    collector = FileCollector(git, tip, IndexOptions(), check_attributes=False)
    for entry in git.walk_tree(tip):
        collector.add(entry)
    expected = [commits_module.CommitReader(git, IndexOptions()).read(c) for c in (first, tip)]

    parsed: list[int] = []
    real_parse = collect_module.parse_file
    monkeypatch.setattr(collect_module, "parse_file", lambda *a, **k: parsed.append(1) or real_parse(*a, **k))
    reader = commits_module.CommitReader(git, IndexOptions())
    reader.know(collector.result.files.values())
    assert reader.read(tip) == expected[1]
    assert parsed == [1]  # the old blob of app.py only: the new one is the collector's
    assert reader.read(first) == expected[0]


def test_a_commit_read_takes_what_a_sync_parsed_from_the_parse_memo_and_keeps_nothing(harness, git_repo, monkeypatch):
    """A sync whose commit changed many files compares each file's old blob, which the
    sync before parsed: it comes from the parse memo (packed there while the daemon
    idled), not parsed again. What a commit's read parses itself is not kept there: the
    memo holds what syncs read."""
    from recalld.ingest.parse_memo import PARSED
    from recalld.ingest.sync import forget_memos

    for name in ("a", "b", "c"):
        git_repo.write(f"{name}.py", f"def {name}():\n    return 1\n")
    git_repo.commit("three")
    harness.sync(git_repo)
    forget_memos()  # as a daemon does when it goes idle: the parses packed, not dropped
    assert PARSED.packed() == 3
    for name in ("a", "b", "c"):
        git_repo.write(f"{name}.py", f"def {name}():\n    return  2\n")
    tip = git_repo.commit("reformat")
    parsed: list[int] = []
    real_parse = collect_module.parse
    monkeypatch.setattr(collect_module, "parse", lambda *a, **k: parsed.append(1) or real_parse(*a, **k))
    result = harness.sync(git_repo)
    assert (result.modified, result.tasks_added) == (6, 1)
    assert len(parsed) == 3  # the new blobs, by the sync; the old ones came from the memo
    task = harness.store.retrieve([task_memory_id(Scope("r", "main"), tip)])[0]
    assert [(f["path"], f["modified"]) for f in task.payload["symbols"]] == [("a.py", ["a"]), ("b.py", ["b"]),
                                                                            ("c.py", ["c"])]  # fmt: skip
    PARSED.trim(0)
    parsed.clear()
    commits_module.CommitReader(GitRepository(str(git_repo.path)), IndexOptions()).read(tip)
    assert len(parsed) == 6 and len(PARSED) == 0  # both sides parsed, neither kept


def test_the_history_does_not_parse_again_what_the_sync_parsed(harness, git_repo, monkeypatch):
    """A first sync's history follows the index in the same call and knows its files:
    a commit whose file is still as the tip has it compares without a parse."""
    git_repo.write("a.py", "def a():\n    return 1\n")
    git_repo.commit("add a")
    git_repo.write("b.py", "def b():\n    return 2\n")
    git_repo.commit("add b")
    parsed: list[int] = []  # what the commits' reads read, from the memo or not
    real_read = commits_module.read_parsed
    monkeypatch.setattr(commits_module, "read_parsed", lambda *a, **k: parsed.append(1) or real_read(*a, **k))
    result = harness.sync(git_repo)
    assert (result.tasks_added, result.history_added) == (1, 1)
    assert parsed == []
