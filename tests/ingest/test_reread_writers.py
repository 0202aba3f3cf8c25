"""Code a new extractor reads otherwise, in files whose bytes did not change, was written
by no commit the upgrade's sync brings in: it gets the writer a first index finds, not
the target's author."""

from __future__ import annotations

import hashlib
from dataclasses import replace
from functools import partial

import pytest

from recalld.ingest.files import IndexOptions
from recalld.ingest.keyed import cut_after
from recalld.ingest.parse_memo import PARSED
from recalld.ingest.records import checkpoint_id, task_memory_id
from recalld.parsers import extract
from recalld.parsers.base import ParseResult
from recalld.parsers.extraction import EXTRACTION_VERSION
from tests.ingest.conftest import Harness
from tests.ingest.test_tasks import (
    SCOPE, author_name, commit_by, commits_read, structural, tasks, written_in_its_authors_commit,
)


CODE = "def f():\n    return 1\n\n\ndef hidden():\n    return 2\n\n\nclass K:\n    def m(self):\n        return 3\n"


def history(repo, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """Ann writes f, hidden and K.m; Bob changes f; Cat adds b.py."""
    by = partial(commit_by, repo, monkeypatch)
    repo.write("a.py", CODE)
    by("Ann", "a")
    repo.write("a.py", CODE.replace("return 1", "return 10"))
    by("Bob", "f returns 10")
    repo.write("b.py", "def g():\n    return 4\n")
    by("Cat", "b")


def earlier_extractor(real):  # type: ignore[no-untyped-def]
    """One that did not see ``hidden`` and hashed every symbol's code otherwise."""

    def extract_(spec, data, path=""):  # type: ignore[no-untyped-def]
        result: ParseResult = real(spec, data, path)
        old = tuple(replace(s, content_hash=hashlib.sha256(b"old" + s.content_hash.encode()).hexdigest())
                    for s in result.symbols if s.name != "hidden")  # fmt: skip
        return replace(result, symbols=old)

    return extract_


def as_an_earlier_extractor_left_it(h: Harness) -> None:
    """Its checkpoint and task memories say the extractor version before this one."""
    ids = [checkpoint_id(SCOPE), *(task_memory_id(SCOPE, c) for c in tasks(h))]
    h.store.set_payload(ids, {"extraction": EXTRACTION_VERSION - 1})
    PARSED.trim(0)  # a new process, as after an upgrade


def writers(h: Harness) -> dict[tuple[str, str], tuple[str, str | None, str]]:
    """(path, qualname) → author, task id and change of each live structural version."""
    return {key: (author_name(p.payload), p.payload.get("task_id"), p.payload["change"])
            for key, p in structural(h).items() if not p.payload["deprecated"]}  # fmt: skip


@pytest.mark.parametrize("kind", ["edge", "server"])
def test_code_an_earlier_extractor_read_otherwise_keeps_the_writer_a_first_index_finds(
    git_repo, tmp_path, monkeypatch, kind
):
    history(git_repo, monkeypatch)
    h = Harness(kind, tmp_path / "state")
    try:
        with monkeypatch.context() as earlier:
            earlier.setattr(extract, "extract", earlier_extractor(extract.extract))
            h.sync(git_repo)
            assert ("a.py", "hidden") not in structural(h)
        as_an_earlier_extractor_left_it(h)
        # Dan adds c.py and changes K.m: what else a.py holds he did not write, nor b.py's
        git_repo.write("c.py", "def c():\n    return 5\n")
        git_repo.write("a.py", CODE.replace("return 1", "return 10").replace("return 3", "return 30"))
        commit_by(git_repo, monkeypatch, "Dan", "c")
        upgraded = h.sync(git_repo)
        assert upgraded.mode == "full" and upgraded.modified >= 5 and upgraded.added >= 2
        assert not upgraded.history_owed and h.checkpoint()["history_owed"] == 0
        after = writers(h)
        assert after[("a.py", "hidden")][0] == "Ann" and after[("a.py", "f")][0] == "Bob"
        assert after[("a.py", "K.m")][0] == "Dan" and after[("b.py", "g")][0] == "Cat"
        assert after[("c.py", "c")][0] == "Dan" and after[("a.py", "K")][0] == "Dan"
        assert after[("a.py", "hidden")][2] == "indexed"  # no commit of the sync added it
        assert after[("a.py", "f")][2] == "modified"  # the lineage it continues
        listed = commits_listed(h)
    finally:
        h.close()
    fresh = Harness(kind, tmp_path / "fresh")
    try:
        fresh.sync(git_repo)
        first = writers(fresh)
        assert listed == commits_listed(fresh)  # each commit's symbols as this extractor reads them
    finally:
        fresh.close()
    assert {k: v[:2] for k, v in after.items()} == {k: v[:2] for k, v in first.items()}


def test_code_an_upgrade_reads_in_a_file_its_target_moved_keeps_its_writer(git_repo, tmp_path, monkeypatch):
    """The upgrade's sync brings in Dan's move of a.py to src/ (K.m edited on the way):
    what an earlier extractor read otherwise there was moved, not written, by Dan, and
    gets the writer a first index finds."""
    history(git_repo, monkeypatch)
    h = Harness("edge", tmp_path / "state")
    try:
        with monkeypatch.context() as earlier:
            earlier.setattr(extract, "extract", earlier_extractor(extract.extract))
            h.sync(git_repo)
        as_an_earlier_extractor_left_it(h)
        git_repo.git("mv", "a.py", "src.py")
        git_repo.write("src.py", CODE.replace("return 1", "return 10").replace("return 3", "return 30"))
        commit_by(git_repo, monkeypatch, "Dan", "a.py is src.py; K.m returns 30")
        h.sync(git_repo)
        after = writers(h)
        moved = {q: after[("src.py", q)][0] for q in ("f", "hidden", "K.m")}
        assert moved == {"f": "Bob", "hidden": "Ann", "K.m": "Dan"}
        written_in_its_authors_commit(h, git_repo)
    finally:
        h.close()
    fresh = Harness("edge", tmp_path / "fresh")
    try:
        fresh.sync(git_repo)
        assert {k: v[:2] for k, v in after.items()} == {k: v[:2] for k, v in writers(fresh).items()}
    finally:
        fresh.close()


def commits_listed(h: Harness) -> dict[str, tuple[str, list[str]]]:
    """commit → the text of its task memory and the versions it links."""
    return {c: (p["text"], sorted(p["symbol_ids"])) for c, p in tasks(h).items()}


def test_an_upgrade_that_reads_every_file_alike_reads_no_commit_again(git_repo, tmp_path, monkeypatch):
    """The sync after an extractor's upgrade owes the history read, which has nothing to
    do where every task memory is of this extractor already and the new extractor reads
    every file as the old one did: no commit is read."""
    history(git_repo, monkeypatch)
    h = Harness("edge", tmp_path / "state")
    try:
        h.sync(git_repo)
        before = writers(h)
        point = h.store.retrieve([checkpoint_id(SCOPE)])[0]
        h.store.set_payload([point.id], {"extraction": EXTRACTION_VERSION - 1})
        read = commits_read(monkeypatch)
        upgraded = h.sync(git_repo)
        assert upgraded.mode == "full" and upgraded.added == upgraded.modified == 0
        assert read == [] and not upgraded.history_owed and writers(h) == before
    finally:
        h.close()


def test_a_history_read_only_again_is_cut_into_chunks_a_stop_is_heeded_between():
    """Cut after every n-th commit to write, and every n-th past the last of them: a read
    stopped after its first chunk still wrote some, and one with nothing left to write
    (writers sought again) is stopped between chunks too."""
    commits = list("abcdefgh")
    assert cut_after(commits, {"c", "d"}, 1) == [["a", "b", "c"], ["d"], ["e"], ["f"], ["g"], ["h"]]
    assert cut_after(commits, set(), 3) == [["a", "b", "c"], ["d", "e", "f"], ["g", "h"]]
    assert cut_after(commits, {"a", "b", "c"}, 2) == [["a", "b"], ["c", "d"], ["e", "f"], ["g", "h"]]
    assert cut_after([], set(), 2) == []


@pytest.mark.parametrize("kind", ["edge", "server"])
def test_code_an_attributes_change_reads_otherwise_is_given_to_whoever_wrote_its_lines(
    git_repo, tmp_path, monkeypatch, kind
):
    """A commit that only names languages (``.gitattributes``) wrote none of the code read
    otherwise since: a header made C++ (its overloads then named by their types) and a
    file it made readable. No commit produced that code as it is read now, each commit
    being read under its own attributes; git blame names who wrote its lines (``blamed``),
    after the sync as in a first index. Until stop 110 the header kept no writer, and the
    newly read file got the attributes' commit, Cal, after the sync (none in a first index)."""
    by = partial(commit_by, git_repo, monkeypatch)
    code = "static int scale(int v) { return v * 2; }\nstatic double scale(double v) { return v * 2; }\n"
    git_repo.write("include/codec.h", code)
    git_repo.write("tool.inc", "def helper():\n    return 1\n")
    ann = by("Ann", "codec")
    git_repo.write("tool.inc", "def helper():\n    return 1\n\n\ndef other():\n    return 2\n")
    git_repo.write("main.py", "def main():\n    return 0\n")
    bob = by("Bob", "main, other")
    h = Harness(kind, tmp_path / "state")
    try:
        h.sync(git_repo)
        before = writers(h)
        git_repo.write(".gitattributes", "*.h linguist-language=C++\n*.inc linguist-language=Python\n")
        by("Cal", "headers are C++, .inc files Python")
        synced = h.sync(git_repo)
        after = written(h)
        assert written_in_its_authors_commit(h, git_repo) == 10  # the C reading's closed two too
    finally:
        h.close()
    opened = {k for k in after if k[0] in ("include/codec.h", "tool.inc") and k not in before}
    assert synced.mode == "incremental" and opened >= {("include/codec.h", "scale(int)"), ("tool.inc", "helper")}
    fresh = Harness(kind, tmp_path / "fresh")
    try:
        fresh.sync(git_repo)
        first = written(fresh)
    finally:
        fresh.close()
    assert {k: after[k] for k in opened} == {k: first[k] for k in opened} == {
        ("include/codec.h", "scale(int)"): ("Ann", ann), ("include/codec.h", "scale(double)"): ("Ann", ann),
        ("tool.inc", "<module>"): ("Bob", bob), ("tool.inc", "helper"): ("Ann", ann), ("tool.inc", "other"): ("Bob", bob)}


def written(h: Harness) -> dict[tuple[str, str], tuple[str, str | None]]:
    """(path, qualname) → author and ``written_in`` of each live structural version."""
    return {key: (author_name(p.payload), p.payload.get("written_in"))
            for key, p in structural(h).items() if not p.payload["deprecated"]}  # fmt: skip


@pytest.mark.parametrize("kind", ["edge", "server"])
@pytest.mark.parametrize("backfill", [0, 5])
def test_code_written_again_whole_keeps_its_writer_or_its_lack_of_one(git_repo, tmp_path, monkeypatch, kind, backfill):
    """A header made C++ by a class added to it has its unchanged function written again
    whole (``writer._rewrite``), keeping how it got there as stored. The stores drop a
    field set to null: with task memory off (``backfill`` 0), a writer cleared (as a
    crediting clears one) stays unknown, not the class's commit's. A store of an earlier
    release, which named the author alone: the history read gives Ann's function her
    commit, not the class's."""
    by = partial(commit_by, git_repo, monkeypatch)
    git_repo.write("include/util.h", "/* Adds. */\nint add(int a, int b);\n")
    ann = by("Ann", "c header")
    git_repo.write("main.py", "def main():\n    return 0\n")
    by("Bob", "main")
    h = Harness(kind, tmp_path / "state", IndexOptions(backfill_commits=backfill))
    try:
        h.sync(git_repo)
        before = structural(h)[("include/util.h", "add")]
        if backfill:  # as an earlier release left it
            h.store.set_payload([p.id for p in structural(h).values()], {"written_in": None})
            h.store.set_payload([checkpoint_id(SCOPE), *(task_memory_id(SCOPE, c) for c in tasks(h))],
                                {"provenance": 2})  # fmt: skip
        else:
            h.store.set_payload([before.id], {"author": None, "task_id": None, "written_in": None})
        classed = "/* Adds. */\nint add(int a, int b);\nclass Clock {\n public:\n  long Now();\n};\n"
        git_repo.write("include/util.h", classed)
        by("Cal", "a class")
        h.sync(git_repo)
        after = structural(h)[("include/util.h", "add")].payload
        assert after["language"] == "cpp" and after["lineage"] == before.payload["lineage"]
        writer = (author_name(after), after.get("task_id"), after.get("written_in"))
        assert writer == (("Ann", task_memory_id(SCOPE, ann), ann) if backfill else ("", None, None))
    finally:
        h.close()
