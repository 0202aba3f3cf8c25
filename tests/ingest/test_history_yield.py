"""The daemon asks a history read to give way when a newer event for the repo waits:
each read that gives way goes further than the last, so the history of a repository
whose events come faster than a read still reaches its end; a stopping daemon is heeded
at once."""

from __future__ import annotations

from functools import partial

from recalld.ingest import authorship as authorship_module
from recalld.ingest.files import IndexOptions
from tests.ingest.conftest import Harness
from tests.ingest.test_tasks import author_name, commit_by, structural


def test_a_history_read_that_gives_way_every_time_still_reaches_its_end(git_repo, tmp_path, monkeypatch):
    """Only the last two commits are read for task memory; the writers of the older code
    are sought past them, one commit between asks (the search starts again from its top
    on each read): f's, Ann's, is the root commit."""
    monkeypatch.setattr(authorship_module, "WRITERS_CHUNK", 1)
    by = partial(commit_by, git_repo, monkeypatch)
    git_repo.write("a.py", "def f():\n    return 1\n")
    by("Ann", "f")
    for i in range(6):
        git_repo.write(f"m{i}.py", f"def m{i}():\n    return {i}\n")
        by("Bob", f"m{i}")
    h = Harness("edge", tmp_path / "state", IndexOptions(backfill_commits=2))
    try:
        busy = partial(h.sync, git_repo, yield_history=lambda: True)
        results = [busy()]
        assert results[0].history_owed and h.checkpoint()["history_asks"] == 1
        stopping = h.sync(git_repo, stop_history=lambda: True, yield_history=lambda: True)
        assert stopping.history_owed and h.checkpoint()["history_asks"] == 1  # stopped at once, as far as before
        while results[-1].history_owed and len(results) < 12:
            results.append(busy())
            assert results[-1].history_owed is False or h.checkpoint()["history_asks"] == len(results)
        assert results[-1].history_owed is False and len(results) > 2
        assert author_name(structural(h)[("a.py", "f")].payload) == "Ann"
        assert h.checkpoint()["history_asks"] == 0
    finally:
        h.close()
