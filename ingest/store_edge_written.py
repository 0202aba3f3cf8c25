"""What the embedded store writes, as engine operations made from plain values, and what
it wrote while a copy of its shard was built, kept on the disk to be written to the copy.

Every write of ``QdrantEdgeStore`` is a *recipe* first, a tuple of plain values (ids,
vectors, payloads), which ``operation`` turns into the engine's operation: the same
function makes it when the write is applied to the shard and when it is applied again
to a built copy (``store_edge_builds.CatchUp``), so the two cannot differ.

While a child builds a copy of the shard, others' writes land in the shard at once and
their recipes go to ``Written``: pickled into a file beside the shard (vectors as
float32 bytes), nothing of them held in memory. The engine's operations themselves, kept
until stop 84, took ~7 KB of heap a point, so writes during one build stopped at 10k
points; the file takes ~2.5 KB a point of a sync's memories (``WRITES_DURING_BUILD``). A
recipe that cannot be pickled (``ENGINE``: an operation made elsewhere) is kept as it is.
A write to the file that fails (a full disk) fails the catch-up, never the write: the
copy is then dropped and the shard, which has every write, stays.
"""

from __future__ import annotations

import os
import pickle
from array import array
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import qdrant_edge as qe

from recalld.ingest.store import DENSE, SPARSE

# Recipes: ("points", [(id, dense | None, (indices, values) | None, payload)]),
# ("payload", ids, payload), ("delete", ids), ("vectors", [(id, dense)]),
# (ENGINE, operation) for an operation made elsewhere (kept in memory, not pickled).
ENGINE = "engine"
Recipe = tuple[Any, ...]
Sparse = tuple[Sequence[int], Sequence[float]]


def operation(recipe: Recipe) -> Any:
    """The engine's operation that ``recipe`` describes."""
    kind = recipe[0]
    if kind == "points":
        return qe.UpdateOperation.upsert_points(
            [qe.Point(i, vectors(dense, sparse), payload) for i, dense, sparse, payload in recipe[1]]
        )
    if kind == "payload":
        return qe.UpdateOperation.set_payload(recipe[1], recipe[2])
    if kind == "delete":
        return qe.UpdateOperation.delete_points(recipe[1])
    if kind == "vectors":
        return qe.UpdateOperation.update_vectors([qe.PointVectors(i, {DENSE: dense}) for i, dense in recipe[1]])
    if kind == ENGINE:
        return recipe[1]
    raise ValueError(f"unknown store write {kind!r}")


def vectors(dense: Sequence[float] | None, sparse: Sparse | None) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if dense is not None:
        out[DENSE] = dense
    if sparse is not None:
        out[SPARSE] = qe.SparseVector(list(sparse[0]), list(sparse[1]))
    return out


def _packed(recipe: Recipe) -> Recipe:
    """``recipe`` with its numbers as arrays: a float32 vector of 384 is 1.5 KB packed
    and 3.5 KB pickled as a list of floats. The engine stores float32, so nothing is lost."""
    kind = recipe[0]
    if kind == "points":
        return kind, [(i, _floats(dense), _sparse(sparse), payload) for i, dense, sparse, payload in recipe[1]]
    if kind == "vectors":
        return kind, [(i, _floats(dense)) for i, dense in recipe[1]]
    return recipe


def _unpacked(recipe: Recipe) -> Recipe:
    kind = recipe[0]
    if kind == "points":
        return kind, [(i, _listed(dense), _unsparse(sparse), payload) for i, dense, sparse, payload in recipe[1]]
    if kind == "vectors":
        return kind, [(i, _listed(dense)) for i, dense in recipe[1]]
    return recipe


def _floats(values: Sequence[float] | None) -> array[float] | None:
    return None if values is None else array("f", values)


def _sparse(sparse: Sparse | None) -> tuple[array[int], array[float]] | None:
    return None if sparse is None else (array("I", sparse[0]), array("f", sparse[1]))


def _listed(values: array[float] | None) -> list[float] | None:
    return None if values is None else values.tolist()


def _unsparse(sparse: tuple[array[int], array[float]] | None) -> Sparse | None:
    return None if sparse is None else (sparse[0].tolist(), sparse[1].tolist())


class Written:
    """The recipes of what was written to the shard while its copy is built, in order, in
    a file at ``path`` (made anew, removed by ``close``); ``operation(i)`` the engine's
    operation of the i-th. One thread adds at a time (the store's writer); another may
    read those already added meanwhile (the catch-up's first round)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._fd: int | None = os.open(path, os.O_RDWR | os.O_CREAT | os.O_TRUNC, 0o600)
        self._entries: list[tuple[int, int] | Any] = []  # (offset, length) in the file, or an operation
        self._end = 0
        self.failed: str | None = None  # why a recipe could not be kept: the copy cannot have every write

    def __len__(self) -> int:
        return len(self._entries)

    @property
    def size(self) -> int:
        """Bytes in the file."""
        return self._end

    def add(self, recipe: Recipe) -> None:
        if self.failed is not None:
            return
        if recipe[0] == ENGINE:
            self._entries.append(recipe[1])
            return
        try:
            data = pickle.dumps(_packed(recipe), protocol=pickle.HIGHEST_PROTOCOL)
            self._write(data, self._end)
        except (OSError, pickle.PicklingError, TypeError, ValueError) as exc:
            self.failed = f"cannot keep what was written during the build in {self.path}: {exc}"
            return
        self._entries.append((self._end, len(data)))  # once whole in the file: a reader may take it now
        self._end += len(data)

    def _write(self, data: bytes, offset: int) -> None:
        if self._fd is None:
            raise OSError(f"{self.path} is closed")
        view = memoryview(data)
        while view:
            count = os.pwrite(self._fd, view, offset)
            view, offset = view[count:], offset + count

    def operation(self, index: int) -> Any:
        entry = self._entries[index]
        if not isinstance(entry, tuple):
            return entry
        if self._fd is None:
            raise OSError(f"{self.path} is closed")
        offset, length = entry
        data = os.pread(self._fd, length, offset)
        if len(data) != length:
            raise OSError(f"{self.path} ends before its record at {offset}")
        return operation(_unpacked(pickle.loads(data)))

    def close(self) -> None:
        """The file closed and removed."""
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None
        self.path.unlink(missing_ok=True)
