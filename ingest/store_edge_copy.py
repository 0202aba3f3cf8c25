"""The embedded engine's shard copied, so that its vector index is built on the copy.

A child builds the index (an idle build, or a sync's seal) while the shard is closed in
the daemon (``store_edge``): for the build's length, minutes at 100k points and more,
every search was refused (HTTP 503) — right after a first index too, when an agent starts
asking. Built on a copy instead, the daemon keeps the shard it has open and answers reads
from it, and writes, which it writes to the copy too before the swap
(``store_edge_builds.CatchUp``, which loads the copy to write them).

The shard lives in a numbered directory (``shard.1``, ``shard.2``, …) that the link
``shard`` points at (a symbolic link, or a file naming it where the filesystem has no
symbolic links); a copy is made in the next number. The engine keeps the paths it
loaded, so a loaded shard is never renamed: the swap repoints the link (``repoint``, one
atomic rename), and the copy the catch-up loaded serves from then on, where the swap
used to close the shard and the copy and load the copy again in the shard's place
(~1.3 s with 30k points written during a 100k-point build, every call waiting). The
directory the link left is removed, on a thread, once its shard is closed (``drop_later``).

The copy keeps the holes of the engine's preallocated files (a shard of 40k points:
111 MB on the disk, 345 MB apparent; copied byte for byte it took the 345). A crash at
any point leaves the store as one of the two (``recover``, on open): the link names the
shard, and a numbered directory it does not name is a copy whose build did not end or a
shard replaced. A store made before the link (its shard a plain ``shard`` directory) has
it moved into ``shard.1`` on open. Never imports the engine.
"""

from __future__ import annotations

import errno
import os
import shutil
import threading
from pathlib import Path

from recalld.ingest.errors import RecalldError

LINK_SUFFIX = ".link"  # a new link to the shard, before it takes the name of the one it replaces
WRITTEN_SUFFIX = ".written"  # what was written during the build, for the copy (``store_edge_written``)
DROPPED_PREFIX = "dropped-"  # a replaced shard's directory, renamed to be removed on a thread (``drop_later``)
# Before stop 86 a build's copy was ``shard.next`` and the swap renamed the shard to
# ``shard.old``: ``recover`` still finishes or drops what such a build cut short left.
OLD_COPY_SUFFIX, OLD_SHARD_SUFFIX = ".next", ".old"
CHUNK = 1 << 24  # bytes per copy call
# What ``os.symlink`` fails with where the filesystem has no symbolic links: the link is a file then.
NO_SYMLINKS = frozenset({errno.EPERM, errno.ENOSYS, errno.ENOTSUP, errno.EOPNOTSUPP})
LINK_FILE_BYTES = 256  # what is read of a link file


def beside(shard_dir: Path, suffix: str) -> Path:
    return shard_dir.with_name(shard_dir.name + suffix)


def allocated_bytes(root: Path) -> int:
    """What the files under ``root`` take on the disk (holes not counted)."""
    total = 0
    for folder, _dirs, files in os.walk(root):
        for name in files:
            total += os.lstat(os.path.join(folder, name)).st_blocks * 512
    return total


def numbered(shard_dir: Path) -> dict[int, Path]:
    """The numbered directories beside the link ``shard_dir`` (``shard.1``, …), by number."""
    found = {}
    for entry in shard_dir.parent.iterdir():
        number = _number(shard_dir, entry.name)
        if number is not None and entry.is_dir() and not entry.is_symlink():
            found[number] = entry
    return found


def _number(shard_dir: Path, name: str) -> int | None:
    """The number of ``name`` if it names one of ``shard_dir``'s numbered directories."""
    prefix = shard_dir.name + "."
    number = name[len(prefix) :] if name.startswith(prefix) else ""
    return int(number) if number.isdigit() else None


def is_link(shard_dir: Path) -> bool:
    """Whether ``shard_dir`` is the link to the shard: a symbolic link, or where the
    filesystem has none (``repoint``) a small file naming the directory. A directory
    there is a store made before the link."""
    return shard_dir.is_symlink() or shard_dir.is_file()


def live_dir(shard_dir: Path) -> Path:
    """The directory the link ``shard_dir`` points at (``recover`` saw that it does)."""
    if shard_dir.is_symlink():
        return shard_dir.parent / os.readlink(shard_dir)
    with open(shard_dir, "rb") as link:  # a name: a few bytes, whatever else was put there
        name = link.read(LINK_FILE_BYTES).decode("utf-8", "replace").strip()
    if _number(shard_dir, name) is None:
        raise RecalldError(f"the store's shard link {shard_dir} names {name[:80]!r}, not one of its shard "
                           "directories: move the store away and sync again")  # fmt: skip
    return shard_dir.parent / name


def copy_shard(shard_dir: Path) -> Path:
    """A copy of the (flushed) shard in the next numbered directory, holes kept; none is
    left where the copy fails."""
    copy = beside(shard_dir, f".{max(numbered(shard_dir), default=0) + 1}")
    try:
        shutil.copytree(live_dir(shard_dir), copy, copy_function=copy_file)
    except BaseException:
        drop(copy)
        raise
    return copy


def drop(directory: Path) -> None:
    """A copy whose build failed, or a shard the copy replaced, removed."""
    shutil.rmtree(directory, ignore_errors=True)


def drop_later(directory: Path) -> threading.Thread:
    """``directory`` renamed out of the shard's names at once, and removed on a thread: the
    kernel frees its files' blocks (~0.1 s for a 100k-point shard) without the GIL, so
    that calls need not wait for it; the thread, for a caller to join. Removed here where
    it cannot be renamed."""
    doomed = directory.with_name(DROPPED_PREFIX + directory.name)
    try:
        drop(doomed)  # one a crash left, though ``recover`` removes those
        os.rename(directory, doomed)
    except OSError:
        doomed = directory
    thread = threading.Thread(target=drop, args=(doomed,), name="recalld-drop-shard", daemon=True)
    thread.start()
    return thread


def repoint(shard_dir: Path, target: Path) -> None:
    """The link ``shard_dir`` pointed at ``target`` (beside it) by one rename, made lasting
    where the system can: a crash leaves it at the one or the other. An ``OSError`` means
    it still points where it did. A symbolic link; a file naming ``target`` where the
    filesystem makes no symbolic links (vfat, some network and FUSE mounts)."""
    new = beside(shard_dir, LINK_SUFFIX)
    if os.path.lexists(new):
        os.unlink(new)
    try:
        os.symlink(target.name, new)
    except OSError as exc:
        if exc.errno not in NO_SYMLINKS:
            raise
        _write_name(new, target.name)
    os.replace(new, shard_dir)
    try:  # the rename made lasting; once it is done, a failure here must not undo the swap
        folder = os.open(shard_dir.parent, os.O_RDONLY)
        try:
            os.fsync(folder)
        finally:
            os.close(folder)
    except OSError:
        pass


def _write_name(path: Path, name: str) -> None:
    """A link file: ``name``, on the disk before it is renamed into the link's place."""
    with open(path, "w", encoding="utf-8") as out:
        out.write(name + "\n")
        out.flush()
        os.fsync(out.fileno())


def recover(shard_dir: Path) -> list[str]:
    """The link ``shard_dir`` pointing at the shard, whatever a crash left (the shard as a
    build on a copy left it once it ended or failed), and nothing else beside it; what was
    done, for the log. A store made before the link has its shard moved into ``shard.1``.
    A link to a directory that is gone (removed by hand) is a ``RecalldError``."""
    done = _recover_old_build(shard_dir)
    found = numbered(shard_dir)
    if is_link(shard_dir):
        live = live_dir(shard_dir)
        if not live.is_dir():
            raise RecalldError(f"the store's shard link {shard_dir} points at {live}, which is not there: "
                               "restore that directory, or move the store away and sync again")  # fmt: skip
    elif shard_dir.exists():  # a store made before the link: copies of another version's builds dropped
        for number in sorted(found):
            drop(found.pop(number))
            done.append(f"{shard_dir.name}.{number} removed")
        live = beside(shard_dir, ".1")
        os.rename(shard_dir, live)
        repoint(shard_dir, live)
        done.append(f"{shard_dir.name} moved into {live.name}, which {shard_dir.name} now links to")
    elif found:  # cut between the move into shard.1 and the link, or a new store's first link
        live = found[max(found)]
        repoint(shard_dir, live)
        done.append(f"{shard_dir.name} linked to {live.name}")
    else:
        return done  # a new store: no shard yet
    for directory in (found[number] for number in sorted(found)):
        if directory != live:  # a copy whose build did not end, or a shard that a copy replaced
            drop(directory)
            done.append(f"{directory.name} removed")
    for leftover in (beside(shard_dir, LINK_SUFFIX), beside(shard_dir, WRITTEN_SUFFIX)):
        if os.path.lexists(leftover):
            os.unlink(leftover)
            done.append(f"{leftover.name} removed")
    for doomed in sorted(shard_dir.parent.glob(f"{DROPPED_PREFIX}{shard_dir.name}.*")):  # its removal cut short
        drop(doomed)
        done.append(f"{doomed.name} removed")
    return done


def _recover_old_build(shard_dir: Path) -> list[str]:
    """What a build of a version before the link left: its copy renamed in where the shard
    is gone (its swap renamed the shard away only once the copy's build ended), else the
    shard it was to replace; what is left of either removed."""
    copy, old = beside(shard_dir, OLD_COPY_SUFFIX), beside(shard_dir, OLD_SHARD_SUFFIX)
    done = []
    if not os.path.lexists(shard_dir):
        for source in (copy, old):  # the built copy, else the shard it was to replace
            if source.is_dir() and not source.is_symlink():
                os.rename(source, shard_dir)
                done.append(f"{source.name} taken as {shard_dir.name}")
                break
    for leftover in (copy, old):
        if is_link(leftover):  # that version's swap renamed this version's link
            leftover.unlink()
            done.append(f"{leftover.name} removed")
        elif leftover.exists():
            shutil.rmtree(leftover)
            done.append(f"{leftover.name} removed")
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
