"""How the embedded engine's shard is laid out: its payload indexes as this version makes
them, and its segments rebuilt by a child process (``python -m`` this module), since the
engine holds the GIL through a rebuild and what one allocates goes with the child. With
``store_edge``, its filters, its builds and its writes (``store_edge_written``), the only
modules importing ``qdrant_edge``.

- **build** (``QdrantEdgeStore.optimize``, when the daemon is idle, on a copy of the
  shard when there is room for one: ``store_edge_copy``): a vector index for every
  segment big enough to need one, segments merged up to the engine's default largest
  size (which rebuilds a merged segment's index whole).
- **seal** (``QdrantEdgeStore.seal``, between the writes of a long sync): the same build
  with nothing merged, so that the segment the engine appends to becomes a read-only,
  indexed one. The engine keeps an appendable segment's payload indexes on the heap,
  ~4 KB a point with recalld's eighteen indexes (a shard of 100k points loaded: 255 MB,
  built: 25–51 MB), which made the Linux kernel's first index (1.1M memories) peak at
  11.8 GB resident. A seal costs what the idle build would have spent on its points.

The engine persists the settings a shard was last loaded with, so each child passes its
own optimizer settings; the daemon's process never optimizes.

The keyword (sparse) vectors' index of an indexed segment is mapped (``Memory.Cold``): the
engine's default kept it on the heap, 0.63 KB a point of kernel code, two thirds of what a
built store of its 296k memories held on the heap when opened (+261 against +72 MB). Its
placement is part of the segments: a store an older version made (``LAYOUT`` in the store's
``layout`` file tells) keeps its segments until the next build, which rebuilds them all with
it (``Store.relayout_due``); a seal leaves them as they are, so as not to hold up a sync.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import qdrant_edge as qe

from recalld.ingest.child import child_main, run_module
from recalld.ingest.cores import available_cores
from recalld.ingest.store import DENSE, INTEGER_FIELDS, KEYWORD_FIELDS, SPARSE

# The payload indexes every search filters on stay on the heap: the vector search checks
# them for each candidate it visits (all on disk, filtered searches took ~2x as long),
# and with few distinct values they load fast (~15 ms each at 100k points).
HEAP_INDEXED = frozenset({"record", "repo", "deprecated", "untrusted"})
# 0/1 flags are only matched by value (a range index's heap copy took ~80 ms to load); times
# only compared, "still valid" (0) as ``lte=0`` (a lookup index cost ~4 % of every write).
FLAGS = frozenset({"deprecated", "untrusted"})
INDEX_PARAMS = ("memory", "lookup", "range")  # compared to find the indexes an older version made
# The engine's defaults, which every store was built with before seals existed.
INDEXING_THRESHOLD_KB = 10_000  # a plain segment with fewer KB of vectors stays without an index
MAX_SEGMENT_PER_CPU_KB = 200_000  # the largest segment a build merges into: this per CPU
# What a store's ``layout`` file holds once its segments are as this version makes them
# (none: the keyword index on the heap, as every store before stop 81 had it).
LAYOUT = "2: keyword index mapped"


def index_params(name: str) -> Any:
    memory = qe.Memory.Pinned if name in HEAP_INDEXED else qe.Memory.Cold  # Cold: mapped, nothing read at load
    if name in INTEGER_FIELDS:  # flags are matched by value, times only compared
        return qe.IntegerIndexParams(lookup=name in FLAGS, range=name not in FLAGS, memory=memory)
    return qe.KeywordIndexParams(memory=memory)


def unused_indexes(schema: dict[str, Any]) -> list[str]:
    """Indexed fields that no filter uses any more (older versions indexed more)."""
    return sorted(set(schema) - {*KEYWORD_FIELDS, *INTEGER_FIELDS})


def stale_indexes(schema: dict[str, Any]) -> list[str]:
    """Filtered fields without an index, or with one this version would make otherwise
    (earlier versions left placement to the engine: their indexes report no ``params``)."""
    stale = []
    for name in (*KEYWORD_FIELDS, *INTEGER_FIELDS):
        index, wanted = schema.get(name), index_params(name)
        have = index.params if index is not None else None
        if have is None or any(getattr(have, key, None) != getattr(wanted, key, None) for key in INDEX_PARAMS):
            stale.append(name)
    return stale


@dataclass(frozen=True, slots=True)
class Upgrade:
    operation: Any  # the engine's update
    done: str  # what it does, for the log
    field: str
    left: int  # steps after this one


def next_upgrade(schema: dict[str, Any]) -> Upgrade | None:
    """The next step that brings a store's payload indexes to what this version makes:
    drop one an older version made on a field no filter uses, or rebuild one that it made
    otherwise (or never made); one field a step. None: nothing left."""
    unused, stale = unused_indexes(schema), stale_indexes(schema)
    left = len(unused) + len(stale) - 1
    if unused:
        return Upgrade(qe.UpdateOperation.delete_field_index(unused[0]), "dropped a payload index no filter uses",
                       unused[0], left)  # fmt: skip
    if stale:
        operation = qe.UpdateOperation.create_field_index(stale[0], index_params(stale[0]))
        return Upgrade(operation, "rebuilt a payload index", stale[0], left)
    return None


def sparse_params() -> Any:
    """The keyword vector as this version makes it: IDF from the store, its index mapped."""
    return qe.EdgeSparseVectorParams(modifier=qe.Modifier.Idf, memory=qe.Memory.Cold)


def run_child(
    action: str, shard_dir: Path, dim: int, *, keyword: bool, failed: str, unless_stopped_since: int | None = None
) -> None:
    """``action`` ("build" or "seal") on the shard at ``shard_dir``, in a child: the shard
    closed in this process, or a copy of it that only the child opens;
    ``keyword``: the shard has keyword vectors (stores made before them have not);
    ``unless_stopped_since``: see ``child.run_module``."""
    args = [action, str(shard_dir), str(dim), str(INDEXING_THRESHOLD_KB), str(int(keyword))]
    run_module(__name__, args, failed=failed, unless_stopped_since=unless_stopped_since)


def _config(dim: str, indexing_kb: str, *, max_segment_kb: int, keyword: bool = False) -> Any:
    return qe.EdgeConfig(
        vectors={DENSE: qe.EdgeVectorParams(size=int(dim), distance=qe.Distance.Cosine)},
        sparse_vectors={SPARSE: sparse_params()} if keyword else None,  # None: kept as the shard has it
        optimizers=qe.EdgeOptimizersConfig(indexing_threshold=int(indexing_kb), max_segment_size=max_segment_kb),
    )


def _build(shard_dir: str, dim: str, indexing_kb: str, keyword: str) -> None:
    # The keyword index placed as this version places it: segments placed otherwise are rebuilt.
    max_segment = MAX_SEGMENT_PER_CPU_KB * available_cores()
    _optimize(shard_dir, _config(dim, indexing_kb, max_segment_kb=max_segment, keyword=keyword == "1"))


def _seal(shard_dir: str, dim: str, indexing_kb: str, keyword: str) -> None:
    # A largest segment of 1 KB merges nothing into the appendable segment's index. Merged,
    # each build of a growing store rebuilt the index of every point before it too
    # (8k points written and built five times: 6.0, 16.3, 20.7, 20.0, 23.1 s). The keyword
    # index is placed as the shard has it: an older layout's segments wait for the build.
    _optimize(shard_dir, _config(dim, indexing_kb, max_segment_kb=1))


def _optimize(shard_dir: str, config: Any) -> None:
    shard = qe.EdgeShard.load(shard_dir, config)
    try:
        shard.optimize()
        shard.flush()
    finally:
        shard.close()


ACTIONS = {"build": _build, "seal": _seal}


def _main(action: str, shard_dir: str, dim: str, indexing_kb: str, keyword: str) -> None:
    ACTIONS[action](shard_dir, dim, indexing_kb, keyword)


if __name__ == "__main__":  # run_child's child: ACTION SHARD_DIR DIM INDEXING_KB KEYWORD
    sys.exit(child_main(_main, sys.argv[1:]))
