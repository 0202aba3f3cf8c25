"""The embedded engine's shard copied, so that its vector index is built on the copy.

A child builds the index (an idle build, or a sync's seal) while the shard is closed in
the daemon (``store_edge``): for the build's length, minutes at 100k points and more,
every search was refused (HTTP 503) — right after a first index too, when an agent starts
asking. Built on a copy instead, the daemon keeps the shard it has open and answers reads
from it, and writes, which it writes to the copy too before the swap
(``store_edge_builds.CatchUp``). Then the built copy takes the shard's place
(``swap_in``), a pause of a reload; the shard it replaced is kept until the copy is
loaded (``put_back`` if it is not).

The copy keeps the holes of the engine's preallocated files (a shard of 40k points:
111 MB on the disk, 345 MB apparent; copied byte for byte it took the 345). A crash at
any point leaves the store as one of the two: ``recover`` (on open) finishes a swap
that was under way, or drops a copy whose build did not end. Never imports the engine.
"""

from __future__ import annotations

import errno
import os
import shutil
from pathlib import Path

COPY_SUFFIX = ".next"  # the copy being built; it replaces the shard only once its build ended
OLD_SUFFIX = ".old"  # the shard replaced, removed once the copy is in its place
WRITTEN_SUFFIX = ".written"  # what was written during the build, for the copy (``store_edge_written``)
CHUNK = 1 << 24  # bytes per copy call


def beside(shard_dir: Path, suffix: str) -> Path:
    return shard_dir.with_name(shard_dir.name + suffix)


def allocated_bytes(root: Path) -> int:
    """What the files under ``root`` take on the disk (holes not counted)."""
    total = 0
    for folder, _dirs, files in os.walk(root):
        for name in files:
            total += os.lstat(os.path.join(folder, name)).st_blocks * 512
    return total


def copy_shard(shard_dir: Path) -> Path:
    """A copy of the (flushed) shard beside it, holes kept; an earlier copy is dropped."""
    copy = drop_copy(shard_dir)
    shutil.copytree(shard_dir, copy, copy_function=copy_file)
    return copy


def drop_copy(shard_dir: Path) -> Path:
    """The shard's copy removed (a build that failed or was cut short); its path."""
    copy = beside(shard_dir, COPY_SUFFIX)
    shutil.rmtree(copy, ignore_errors=True)
    return copy


def swap_in(shard_dir: Path) -> None:
    """The built copy in the shard's place (the shard closed), the shard kept aside until
    ``drop_old`` or ``put_back``. The shard is renamed away before the copy is renamed in:
    a crash between the two leaves no shard and a whole copy, which ``recover`` renames in."""
    copy, old = beside(shard_dir, COPY_SUFFIX), beside(shard_dir, OLD_SUFFIX)
    shutil.rmtree(old, ignore_errors=True)
    os.rename(shard_dir, old)
    os.rename(copy, shard_dir)


def drop_old(shard_dir: Path) -> None:
    """The shard that a built copy replaced removed, once the copy is loaded."""
    shutil.rmtree(beside(shard_dir, OLD_SUFFIX), ignore_errors=True)


def put_back(shard_dir: Path) -> None:
    """The shard as it was before ``swap_in``, the built copy dropped (it did not load)."""
    copy, old = beside(shard_dir, COPY_SUFFIX), beside(shard_dir, OLD_SUFFIX)
    if old.exists():
        shutil.rmtree(shard_dir, ignore_errors=True)
        os.rename(old, shard_dir)
    shutil.rmtree(copy, ignore_errors=True)


def recover(shard_dir: Path) -> list[str]:
    """Leave the shard as a build on a copy left it once it ended or failed; what was
    done, for the log. A copy is renamed in only where the shard is gone, which
    ``swap_in`` does only once the copy's build ended."""
    copy, old = beside(shard_dir, COPY_SUFFIX), beside(shard_dir, OLD_SUFFIX)
    done = []
    if not shard_dir.exists():
        for source in (copy, old):  # the built copy, else the shard it was to replace
            if source.exists():
                os.rename(source, shard_dir)
                done.append(f"{source.name} taken as {shard_dir.name}")
                break
    for leftover in (copy, old):
        if leftover.exists():
            shutil.rmtree(leftover)
            done.append(f"{leftover.name} removed")
    written = beside(shard_dir, WRITTEN_SUFFIX)
    if written.exists():
        written.unlink()
        done.append(f"{written.name} removed")
    return done


def copy_file(source: str, target: str) -> None:
    """``source``'s bytes and mode at ``target``, its holes left holes (``SEEK_DATA``)."""
    with open(source, "rb") as src, open(target, "wb") as dst:
        size = os.fstat(src.fileno()).st_size
        dst.truncate(size)  # a file of holes, its data written into it
        for start, end in _data_runs(src.fileno(), size):
            _copy_range(src.fileno(), dst.fileno(), start, end)
    shutil.copymode(source, target)


def _data_runs(fd: int, size: int) -> list[tuple[int, int]]:
    if not hasattr(os, "SEEK_DATA"):  # a system that cannot tell: every byte is data
        return [(0, size)]
    runs, offset = [], 0
    while offset < size:
        try:
            start = os.lseek(fd, offset, os.SEEK_DATA)
        except OSError as exc:
            if exc.errno == errno.ENXIO:  # only a hole from offset to the end
                break
            return [(0, size)]  # a filesystem that cannot tell: every byte is data
        end = os.lseek(fd, start, os.SEEK_HOLE)
        runs.append((start, end))
        offset = end
    return runs


def _copy_range(src: int, dst: int, start: int, end: int) -> None:
    offset = start
    while offset < end:
        count = min(CHUNK, end - offset)
        copied = _in_kernel(src, dst, count, offset)
        if copied is None:
            copied = os.pwrite(dst, os.pread(src, count, offset), offset)
        if copied == 0:  # the source ended early (it was shortened meanwhile)
            return
        offset += copied


def _in_kernel(src: int, dst: int, count: int, offset: int) -> int | None:
    """Bytes copied by ``copy_file_range`` (Linux: not through this process, and shared
    extents where the filesystem can); None where the system or the filesystems cannot."""
    copy = getattr(os, "copy_file_range", None)
    if copy is None:
        return None
    try:
        return int(copy(src, dst, count, offset, offset))
    except OSError:
        return None
