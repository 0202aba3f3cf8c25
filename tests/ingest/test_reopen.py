"""A closed memory that comes back (a reset, a revert, a branch switched back) is reopened
by a state update: it must end up exactly as a whole rewrite would leave it."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from recalld.ingest import ahead, writer
from recalld.ingest.records import PAYLOAD_VERSION
from tests.ingest.conftest import Harness, without_write_times

A = {
    "a.py": '"""Module a."""\n\n\ndef f():\n    """Eff."""\n    return 1\n\n\ndef g():\n    return 0\n',
    "b.py": "def h():\n    # TODO: tidy this up\n    return 2\n",
    "web/w.js": "// Greets.\nfunction greet(name) {\n  return name;\n}\n",
    # a signature that alone ends in what looks like a token cut short (``npm_…``), in a
    # clean text: reopened, it was redacted, where a rewrite kept it whole
    "tools/releaser.rb": "class Releaser\n  def npm_version\n    1\n  end\nend\n",
}
B = {
    **A, "a.py": A["a.py"].replace("return 1", "return 2"), "tools/releaser.rb": A["tools/releaser.rb"].replace("1", "2"),
}
# f as in A again, but two lines further down: its closed point comes back at new lines
C = {**A, "a.py": A["a.py"].replace('"""Module a."""\n', '"""Module a."""\n\n\ndef zero():\n    return 0\n')}


def write_tree(repo, files: dict[str, str]) -> str:
    for path, text in files.items():
        repo.write(path, text)
    return repo.commit("step")


def comparable(h: Harness) -> dict[str, dict]:
    """Every memory of the store by id: its payload without the write times (a key the
    embedded engine drops when it is set to None counts as None) and its vector, to the
    precision a rewrite keeps (the engine normalises a float32 vector again)."""
    points = h.memories(deprecated=None, types=())
    vectors = h.store.get_vectors([p.id for p in points])
    return {
        p.id: {
            "payload": {k: v for k, v in without_write_times(p.payload).items() if v is not None},
            "vector": [round(x, 5) for x in vectors[p.id]],
        }
        for p in points
    }


class Counted:
    """Counts what goes through ``module.name``: ``weigh`` of each call's arguments
    (one a call by default)."""

    def __init__(
        self, monkeypatch: pytest.MonkeyPatch, module: object, name: str, weigh: Callable[..., int] = lambda *_a, **_k: 1
    ) -> None:
        self.count = 0
        inner = getattr(module, name)

        def counting(*args: Any, **kwargs: Any) -> Any:
            self.count += weigh(*args, **kwargs)
            return inner(*args, **kwargs)

        monkeypatch.setattr(module, name, counting)


def planned_drafts(_embeddings: object, drafts: list[Any], **_kwargs: Any) -> int:
    """Drafts of planned memories (not task memories) in a call of ``writer.vectorise``."""
    return sum(d.payload.get("type") != "task" for d in drafts)


@pytest.mark.parametrize("kind", ["edge", "server"])
def test_a_reopened_memory_is_what_a_rewrite_would_leave(kind, git_repo, tmp_path: Path, monkeypatch):
    """History A → B → C (f back as in A, at other lines), then reset to A and forward
    to C again. One store reopens by state updates, the other is made to rewrite every
    new version whole: every memory, live and closed, ends up the same in both."""
    reopening, rewriting = Harness(kind, tmp_path / "reopen"), Harness(kind, tmp_path / "rewrite")
    drafts = Counted(monkeypatch, writer, "vectorise", planned_drafts)  # drafts that reach the embedder
    queued = Counted(monkeypatch, ahead, "redacted_text")  # texts queued ahead of the writer
    reopen = writer._reopenable
    try:
        a, b = write_tree(git_repo, A), write_tree(git_repo, B)
        monkeypatch.setenv("GIT_AUTHOR_NAME", "Another Author")  # C's commit fields differ from A's
        c = write_tree(git_repo, C)

        def sync_both() -> tuple[int, int]:
            """Syncs both stores and compares them; how many drafts the reopening store
            made, and how many texts it queued ahead of them."""
            before, queued_before = drafts.count, queued.count
            reopening.sync(git_repo)
            made = drafts.count - before, queued.count - queued_before
            monkeypatch.setattr(writer, "_reopenable", lambda old, version=None: False)
            rewriting.sync(git_repo)
            monkeypatch.setattr(writer, "_reopenable", reopen)
            mine, theirs = comparable(reopening), comparable(rewriting)
            assert mine.keys() == theirs.keys()
            for memory, stored in mine.items():
                assert stored == theirs[memory], stored["payload"]
            return made

        for rev in (a, b):
            git_repo.git("reset", "-q", "--hard", rev)
            sync_both()
        git_repo.git("reset", "-q", "--hard", c)  # f's point, closed at B, comes back two lines down
        sync_both()
        f = [m.payload for m in reopening.memories() if m.payload["qualname"] == "f"]
        assert [(p["start_line"], p["end_line"], len(p["history"])) for p in f] == [(8, 10, 1)]
        git_repo.git("reset", "-q", "--hard", a)
        # every version of A is stored: all reopened, nothing drafted, no text queued
        assert sync_both() == (0, 0)
        git_repo.git("reset", "-q", "--hard", c)
        assert sync_both() == (0, 0)
        reopened = [m.payload for m in reopening.memories() if m.payload.get("history")]
        assert {(p["path"], p["qualname"]) for p in reopened} >= {("a.py", "<module>"), ("a.py", "zero")}
        (npm,) = [m.payload for m in reopening.memories() if m.payload["qualname"] == "Releaser.npm_version"]
        assert npm["signature"] == "def npm_version" and npm["history"]
    finally:
        reopening.close()
        rewriting.close()


@pytest.mark.parametrize("kind", ["edge", "server"])
def test_a_closed_memory_an_older_version_wrote_is_rewritten_whole(kind, git_repo, tmp_path: Path):
    """A closed point without this version's payload_version (a field missing, as from an
    older recalld) is written whole when it comes back, not patched."""
    h = Harness(kind, tmp_path / "state")
    try:
        a = write_tree(git_repo, A)
        h.sync(git_repo)
        write_tree(git_repo, B)
        h.sync(git_repo)
        (closed,) = [m for m in h.memories(deprecated=1) if m.payload["qualname"] == "f"]
        h.store.set_payload([closed.id], {"dirs": None, "payload_version": None})
        git_repo.git("reset", "-q", "--hard", a)
        h.sync(git_repo)
        (back,) = [m for m in h.memories() if m.payload["qualname"] == "f"]
        assert back.id == closed.id
        assert back.payload["dirs"] == [] and back.payload["payload_version"] == PAYLOAD_VERSION
        assert [e["deprecated_reason"] for e in back.payload["history"]] == ["modified"]
    finally:
        h.close()
