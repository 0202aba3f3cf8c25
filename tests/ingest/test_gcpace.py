"""The collector's pace while syncs run (ingest/gcpace.py): raised for their length,
put back after, whatever the overlap of syncs and however one ends."""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from recalld.ingest.gcpace import SYNC_THRESHOLDS, sync_pace
from tests.conftest import GitRepo
from tests.ingest.conftest import Harness

DEFAULT = (700, 10, 10)


@pytest.fixture(autouse=True)
def default_thresholds() -> Iterator[None]:
    before = gc.get_threshold()
    gc.set_threshold(*DEFAULT)
    yield
    gc.set_threshold(*before)


def test_a_sync_runs_at_the_raised_pace_and_puts_the_old_one_back(tmp_path: Path, git_repo: GitRepo) -> None:
    git_repo.write("app.py", "def handler(event):\n    return event\n\n\nclass Worker:\n    def run(self):\n        pass\n")
    git_repo.commit("first")
    h = Harness("edge", tmp_path / "state")
    seen: list[tuple[int, int, int]] = []
    encode = h.embedder.encode

    def watching(texts):  # type: ignore[no-untyped-def]
        seen.append(gc.get_threshold())
        return encode(texts)

    h.embedder.encode = watching  # type: ignore[method-assign]
    try:
        result = h.sync(git_repo)
    finally:
        h.close()
    assert result.added > 0 and seen
    assert set(seen) == {SYNC_THRESHOLDS}
    assert gc.get_threshold() == DEFAULT


def test_a_failed_sync_puts_the_old_pace_back_too(tmp_path: Path) -> None:
    h = Harness("edge", tmp_path / "state")
    try:
        with pytest.raises(Exception):
            h.indexer.sync(repo="r", path=str(tmp_path / "not-a-repo"), branch="main")
    finally:
        h.close()
    assert gc.get_threshold() == DEFAULT


def test_overlapping_syncs_keep_the_pace_until_the_last_one_ends() -> None:
    first_in, first_may_leave = threading.Event(), threading.Event()
    during: list[tuple[int, int, int]] = []

    def first() -> None:
        with sync_pace():
            first_in.set()
            first_may_leave.wait(5)
            during.append(gc.get_threshold())

    thread = threading.Thread(target=first)
    thread.start()
    assert first_in.wait(5)
    with sync_pace():
        assert gc.get_threshold() == SYNC_THRESHOLDS
    assert gc.get_threshold() == SYNC_THRESHOLDS  # the first sync still runs
    first_may_leave.set()
    thread.join(5)
    assert during == [SYNC_THRESHOLDS]
    assert gc.get_threshold() == DEFAULT


def test_a_collector_switched_off_or_already_slower_is_left_alone() -> None:
    gc.set_threshold(0, 10, 10)
    with sync_pace():
        assert gc.get_threshold() == (0, 10, 10)
    assert gc.get_threshold() == (0, 10, 10)
    gc.set_threshold(50_000, 20, 20)
    with sync_pace():
        assert gc.get_threshold() == (50_000, 20, 20)
    assert gc.get_threshold() == (50_000, 20, 20)
