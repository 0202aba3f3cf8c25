"""The parse memo: a file read again (a reset and its way back) is not parsed again, and
what the sync writes is the same as with every file parsed afresh."""

from __future__ import annotations

from pathlib import Path

import pytest

from recalld.ingest import collect
from recalld.ingest.parse_memo import ENTRY_BYTES, PARSED, ParseMemo, ReadFile
from recalld.ingest.sync import forget_memos
from recalld.parsers.base import ParseResult
from tests.ingest.conftest import Harness


def _write_side(repo, side: str) -> None:  # type: ignore[no-untyped-def]
    for n in range(4):
        repo.write(f"pkg/mod{n}.py", f"def shared_{n}():\n    return {n}\n\n\ndef {side}_{n}():\n    return '{side}'\n")
    repo.write("web/ui.js", f"function {side}Widget() {{\n  return 1;\n}}\n")
    repo.write("pkg/latin.py", b"def latin():\n    return '\xe9t\xe9'  # " + side.encode() + b"\n")
    repo.write("assets/blob.py", b"\x00\x01binary " + side.encode())


def _live(harness: Harness) -> dict[str, tuple[str, str]]:
    return {
        m.id: (m.payload["qualname"], m.payload["content_hash"]) for m in harness.memories()
    }


@pytest.mark.parametrize("kind", ["edge", "server"])
def test_a_reset_back_and_forward_parses_no_file_again(kind: str, git_repo, tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    _write_side(git_repo, "alpha")
    a = git_repo.commit("a")
    _write_side(git_repo, "beta")
    b = git_repo.commit("b")

    parses: list[str] = []  # by the file reader (the commit reader keeps a cache of its own)
    real_parse = collect.parse_file

    def counting_parse(language: str, data: bytes, path: str, *, generated: bool = False) -> ReadFile:
        parses.append(path)
        return real_parse(language, data, path, generated=generated)

    monkeypatch.setattr(collect, "parse_file", counting_parse)
    harness = Harness(kind, tmp_path / "memo")
    check = Harness(kind, tmp_path / "fresh")
    try:
        harness.sync(git_repo)  # b
        git_repo.git("reset", "-q", "--hard", a)
        harness.sync(git_repo)  # back to a: a's files parsed
        git_repo.git("reset", "-q", "--hard", b)
        harness.sync(git_repo)
        parses.clear()
        forget_memos()  # the daemon went idle: what it keeps is packed
        assert PARSED.packed() == len(PARSED) > 0
        git_repo.git("reset", "-q", "--hard", a)
        back = harness.sync(git_repo)
        git_repo.git("reset", "-q", "--hard", b)
        forward = harness.sync(git_repo)
        assert parses == [], "a file read before was parsed again"
        assert back.files_changed == forward.files_changed > 0
        assert back.skips == forward.skips == {"binary": 1}
        assert back.invalid_utf8 == forward.invalid_utf8 == 1

        # the same store contents as a sync that parses every file afresh
        monkeypatch.setattr(collect, "PARSED", ParseMemo(0))
        check.sync(git_repo)
        assert parses, "the check harness parsed nothing"
        assert _live(harness) == _live(check)
        assert {q for q, _ in _live(harness).values()} >= {"beta_0", "betaWidget", "latin"}
    finally:
        harness.close()
        check.close()


def _read(n: int) -> ReadFile:
    return ReadFile(ParseResult(language="python", symbols=(), undecodable=bool(n % 2)))


def test_the_memo_keeps_the_most_recently_used_files_within_its_budget() -> None:
    kib = 1024
    memo = ParseMemo(100 * kib)
    for n in range(4):
        memo.put((f"blob{n}", "python", f"f{n}.py"), _read(n), 30 * kib)
    assert len(memo) == 3 and memo.size == 90 * kib
    assert memo.get(("blob0", "python", "f0.py")) is None  # the oldest went
    assert memo.get(("blob1", "python", "f1.py")) is not None  # now the most recent
    memo.put(("blob4", "python", "f4.py"), _read(4), 30 * kib)
    assert memo.get(("blob2", "python", "f2.py")) is None
    assert memo.get(("blob1", "python", "f1.py")) is not None
    memo.put(("blob1", "python", "f1.py"), _read(1), 30 * kib)  # the same file again counts once
    assert memo.size == 90 * kib
    memo.put(("huge", "python", "huge.py"), _read(5), 101 * kib)  # larger than the budget: not kept
    assert memo.get(("huge", "python", "huge.py")) is None and memo.size == 90 * kib
    memo.trim(30 * kib)
    assert len(memo) == 1 and memo.get(("blob1", "python", "f1.py")) is not None
    memo.trim(0)
    assert len(memo) == 0 and memo.size == 0


def test_empty_files_count_against_the_budget_too() -> None:
    memo = ParseMemo(100 * ENTRY_BYTES)
    for n in range(10_000):  # a tree of empty __init__.py files: one blob, many paths
        memo.put(("e69de29bb2d1d6434b8b29ae775ad8c2e48c5391", "python", f"pkg{n}/__init__.py"), _read(0), 0)
    assert len(memo) == 100 and memo.size == 100 * ENTRY_BYTES


def test_an_idle_daemon_packs_the_memo_and_a_packed_file_reads_back_the_same(git_repo) -> None:  # type: ignore[no-untyped-def]
    from recalld.parsers import parse

    source = b'"""Doc."""\n\n\nclass Engine:\n    """Runs."""\n\n    def start(self):\n        return 1\n'
    read = ReadFile(parse("python", source, path="core.py"))
    for n in range(3):
        PARSED.put((f"blob{n}", "python", "core.py"), read, len(source))
    forget_memos()  # what the daemon's upkeep calls once idle
    assert PARSED.packed() == len(PARSED) == 3 and PARSED.size == 3 * max(len(source), ENTRY_BYTES)
    back = PARSED.get(("blob1", "python", "core.py"))
    assert back == read and back is not read
    assert [s.qualname for s in back.parsed.symbols] == ["<module>", "Engine", "Engine.start"]
    PARSED.put(("blob3", "python", "core.py"), read, len(source))
    assert PARSED.packed() == 3 and PARSED.pack() == 1 and PARSED.packed() == 4
    forget_memos(parses=True)  # as a new process: the benchmark's full indexes start so
    assert len(PARSED) == 0 and PARSED.size == 0 and PARSED.get(("blob1", "python", "core.py")) is None


def test_the_reset_benchmark_runs_both_variants_and_checks_them(git_repo) -> None:  # type: ignore[no-untyped-def]
    import subprocess
    import sys

    for side in ("alpha", "beta", "gamma"):
        _write_side(git_repo, side)
        git_repo.commit(side)
    script = Path(__file__).resolve().parents[1] / "bench" / "bench_reset.py"
    done = subprocess.run([sys.executable, str(script), "--repo", str(git_repo.path), "--history", "2", "--check"],
                          capture_output=True, text=True, timeout=300)  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stdout.count("exact: ") == 2 and "DIFFERS" not in done.stdout
    table = done.stdout.split("seconds per move")[1].splitlines()[2:]
    assert [row.split()[0] for row in table] == ["back", "forward", "back", "forward"]


def test_a_binary_file_takes_no_more_of_the_budget_than_an_empty_one(git_repo, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    git_repo.write("assets/blob.py", b"\x00" + bytes(range(256)) * 3000)  # ~768 KB, NUL bytes: binary
    git_repo.write("pkg/small.py", "def small():\n    return 1\n")
    git_repo.commit("files")
    harness = Harness("edge", tmp_path / "state")
    try:
        result = harness.sync(git_repo)
    finally:
        harness.close()
    assert result.skips == {"binary": 1}
    assert len(PARSED) == 2 and PARSED.size == 2 * ENTRY_BYTES
