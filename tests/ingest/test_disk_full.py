"""A nearly full disk: the embedded engine writes nothing, says why, and the next sync
completes what the refused one began."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from recalld.ingest import diskspace
from recalld.ingest.diskspace import MB, DiskFullError, DiskRoom
from recalld.ingest.store import MemoryFilter, StoreConfig
from recalld.ingest.store_edge import QdrantEdgeStore
from tests.conftest import FakeEmbedder
from tests.ingest.conftest import Harness
from tests.ingest.test_crash import ROOT, snapshot


def write_package(repo, files: int) -> None:  # type: ignore[no-untyped-def]
    for i in range(files):
        repo.write(f"pkg/m{i}.py", "".join(
            f"def f{i}_{j}(a, b):\n    '''Adds {i} and {j}, {'word ' * 30}'''\n    return a + b + {j}\n\n"
            for j in range(20)
        ))  # fmt: skip
    repo.commit("many functions")


def test_no_room_refuses_and_zero_never_asks(tmp_path, monkeypatch):
    monkeypatch.setattr(diskspace, "free_bytes", lambda _path: 100 * MB)
    with pytest.raises(DiskFullError, match=r"cannot sync: only 100 MB free .* under the 256 MB .*store.min_free_mb"):
        DiskRoom(tmp_path, 256).ensure("sync")
    DiskRoom(tmp_path, 100).ensure("sync")

    def asked(_path: Path) -> int:
        raise AssertionError("asked the filesystem")

    monkeypatch.setattr(diskspace, "free_bytes", asked)
    DiskRoom(tmp_path, 0).ensure("sync")


def test_an_answer_with_room_to_spare_stands_a_moment_and_a_tight_one_never(tmp_path, monkeypatch):
    asked: list[int] = []
    free = {"bytes": 600 * MB}

    def counted(_path: Path) -> int:
        asked.append(free["bytes"])
        return free["bytes"]

    monkeypatch.setattr(diskspace, "free_bytes", counted)
    room = DiskRoom(tmp_path, 256)
    room.ensure("sync")
    room.ensure("sync")
    assert len(asked) == 1  # 600 MB: twice the minimum and more
    now = diskspace.time.monotonic()
    monkeypatch.setattr(diskspace.time, "monotonic", lambda: now + diskspace.RECHECK_SECONDS + 1)
    free["bytes"] = 300 * MB  # room, but under twice the minimum: asked before every write
    room.ensure("sync")
    room.ensure("sync")
    assert len(asked) == 3
    free["bytes"] = 200 * MB
    with pytest.raises(DiskFullError, match="only 200 MB free"):
        room.ensure("sync")


def test_free_bytes_of_a_path_not_made_yet_is_its_disks(tmp_path, monkeypatch):
    # the disk's free bytes move while other tests write: check which path is asked, then a real answer
    asked = []
    real_statvfs = diskspace.os.statvfs

    def statvfs(path):
        asked.append(Path(path))
        return real_statvfs(path)

    monkeypatch.setattr(diskspace.os, "statvfs", statvfs)
    assert diskspace.free_bytes(tmp_path / "not" / "yet") > 0
    assert asked == [tmp_path]


def past_the_window(monkeypatch: pytest.MonkeyPatch) -> None:
    """The clock moved past the answer with room to spare the store got as it opened,
    which stands ``RECHECK_SECONDS`` (a sync on a quick host writes within them)."""
    clock = diskspace.time.monotonic
    monkeypatch.setattr(diskspace.time, "monotonic", lambda: clock() + diskspace.RECHECK_SECONDS + 1)


def test_the_store_writes_nothing_without_room_and_goes_on_after(git_repo, tmp_path, monkeypatch):
    write_package(git_repo, 20)
    h = Harness("edge", tmp_path / "state")
    free = {"bytes": 10 * MB}
    monkeypatch.setattr(diskspace, "free_bytes", lambda _path: free["bytes"])
    past_the_window(monkeypatch)
    with pytest.raises(DiskFullError, match="cannot write to the store: only 10 MB free"):
        h.sync(git_repo)
    assert h.store.count(MemoryFilter()) == 0
    with pytest.raises(DiskFullError, match="cannot open the store"):
        QdrantEdgeStore(StoreConfig(dim=FakeEmbedder.dim, path=str(tmp_path / "other")))
    free["bytes"] = 10 << 30
    h.sync(git_repo)
    fresh = Harness("edge", tmp_path / "fresh")
    fresh.sync(git_repo)
    assert snapshot(h) == snapshot(fresh)
    assert len(h.memories()) == 20 * 21 + 1  # a module and 20 functions a file, the project
    h.close()
    fresh.close()


@pytest.fixture
def small_disk(tmp_path):  # type: ignore[no-untyped-def]
    """A 200 MB tmpfs (root only): the engine fills its pages there as it writes them."""
    mount = tmp_path / "disk"
    mount.mkdir()
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=200m", "tmpfs", str(mount)], capture_output=True)
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr.decode().strip()}")
    yield mount
    subprocess.run(["umount", str(mount)], check=True)


def test_a_sync_on_a_filling_disk_stops_before_it_is_full_and_the_next_completes_it(git_repo, tmp_path, small_disk):
    """Without the check the engine's writes end the process with SIGBUS once the
    filesystem is full (exit -7); with it, the sync stops with a message, keeps what it
    wrote, and once there is room the next sync reaches a fresh index's memories."""
    write_package(git_repo, 700)  # ~14k memories, ~60 MB of store on a tmpfs
    filler = small_disk / "filler"
    subprocess.run(["fallocate", "-l", "90m", str(filler)], check=True)  # 110 MB left
    done = subprocess.run(
        [sys.executable, "-m", "tests.ingest.disk_full_worker", str(git_repo.path), str(small_disk / "state"),
         str(filler), "48", str(tmp_path / "fresh")],
        capture_output=True, text=True, cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)}, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    refused, before, then, same = done.stdout.splitlines()
    assert refused.startswith("refused: cannot write to the store: only 4")  # 4x MB, under 48
    assert 0 < int(before.split()[-1]) < 700 * 21
    assert then.startswith("then: synced r@main")
    assert same == f"as a fresh index: True {700 * 21 + 1}"
