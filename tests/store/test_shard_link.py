"""The link to the shard where the filesystem makes no symbolic links (vfat, some network
and FUSE mounts): a file naming the shard's directory, replaced by the same one rename."""

from __future__ import annotations

import errno
import os
from pathlib import Path

import pytest

from recalld.ingest import store_edge_layout
from recalld.ingest.errors import RecalldError
from recalld.ingest.store import MemoryFilter, StoreConfig
from recalld.ingest.store_edge import QdrantEdgeStore
from recalld.ingest.store_edge_copy import recover, repoint
from tests.store.test_index_build import DIM, filled_store, point

SMALL = 1200


def refuse_symlinks(monkeypatch, code: int = errno.EPERM) -> None:  # type: ignore[no-untyped-def]
    def refused(*args, **kwargs):  # type: ignore[no-untyped-def]
        raise OSError(code, os.strerror(code))

    monkeypatch.setattr(os, "symlink", refused)


def entries(root: Path) -> list[str]:
    """The shard's link ("shard -> x" symbolic, "shard => x" a file) and directories."""
    def entry(p: Path) -> str:
        if p.is_symlink():
            return f"{p.name} -> {os.readlink(p)}"
        return f"{p.name} => {p.read_text().strip()}" if p.is_file() else p.name

    return sorted(entry(p) for p in root.iterdir() if p.name.startswith("shard"))


def test_without_symbolic_links_the_shard_is_linked_by_a_file_and_built_on_copies(tmp_path, monkeypatch):
    refuse_symlinks(monkeypatch)
    monkeypatch.setattr(store_edge_layout, "INDEXING_THRESHOLD_KB", 64)  # the small store's build indexes it
    edge = tmp_path / "edge"
    store = filled_store(tmp_path, SMALL)
    assert entries(edge) == ["shard => shard.1", "shard.1"]
    store.optimize()
    store.dropped()
    assert entries(edge) == ["shard => shard.2", "shard.2"] and store.unindexed() == 0
    store.upsert([point(SMALL + 1, [1.0] * DIM)])
    store.close()
    reopened = QdrantEdgeStore(StoreConfig(dim=DIM, path=str(edge)))
    assert reopened.count(MemoryFilter(repo="r")) == SMALL + 1 and reopened.unindexed() == 1
    assert entries(edge) == ["shard => shard.2", "shard.2"]
    reopened.close()


def test_recover_keeps_a_file_link_at_one_shard_and_refuses_one_naming_anything_else(tmp_path, monkeypatch):
    refuse_symlinks(monkeypatch, errno.EOPNOTSUPP)
    here = tmp_path / "shard"
    for name in ("shard.1", "shard.2"):
        (tmp_path / name).mkdir()
    repoint(here, tmp_path / "shard.2")  # cut after a swap, before the shard it replaced was removed
    assert recover(here) == ["shard.1 removed"] and entries(tmp_path) == ["shard => shard.2", "shard.2"]
    (tmp_path / "shard.link").write_text("shard.1\n")  # cut inside a swap, before its one rename
    assert recover(here) == ["shard.link removed"] and entries(tmp_path) == ["shard => shard.2", "shard.2"]
    here.write_text("../elsewhere\n")
    with pytest.raises(RecalldError, match="names '../elsewhere', not one of its shard directories"):
        recover(here)
    here.write_bytes(b"\xff\xfe" + bytes(1 << 20))  # not a name at all
    with pytest.raises(RecalldError, match="not one of its shard directories"):
        recover(here)
    here.write_text("shard.7\n")
    with pytest.raises(RecalldError, match="points at .*shard.7, which is not there"):
        recover(here)


def test_a_link_refused_for_another_reason_is_an_error_and_leaves_the_link_as_it_was(tmp_path, monkeypatch):
    here = tmp_path / "shard"
    for name in ("shard.1", "shard.2"):
        (tmp_path / name).mkdir()
    repoint(here, tmp_path / "shard.1")
    refuse_symlinks(monkeypatch, errno.ENOSPC)
    with pytest.raises(OSError, match="No space left"):
        repoint(here, tmp_path / "shard.2")
    assert os.readlink(here) == "shard.1"
