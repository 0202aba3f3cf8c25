"""``LockedStore.stream``: a long read of the daemon's store (an export of every memory)
a page at a time, the store taken for each page alone."""

from __future__ import annotations

import threading
import time
import uuid
from collections.abc import Iterator, Sequence

import pytest

from recalld.ingest.errors import BusyError
from recalld.ingest.locked import STREAM_PAGE, LockedStore
from recalld.ingest.store import MemoryFilter, StoreConfig, StoredPoint
from recalld.ingest.store_edge import QdrantEdgeStore
from tests.ingest.conftest import StoreWrapper

N = 2 * STREAM_PAGE + 500


class Counted(StoreWrapper):
    """Counts the points its scrolls have read; ``optimize`` holds the store until released."""

    def __init__(self, inner: QdrantEdgeStore) -> None:
        super().__init__(inner)
        self.read = 0
        self.release = threading.Event()

    def scroll(self, flt: MemoryFilter, *, fields: Sequence[str] | None = None) -> Iterator[StoredPoint]:
        for point in self._inner.scroll(flt, fields=fields):
            self.read += 1
            yield point

    def optimize(self, *, reads=None, writes=None) -> None:  # built in place: no reads
        assert self.release.wait(30)


@pytest.fixture
def store(tmp_path) -> Iterator[tuple[LockedStore, Counted]]:
    edge = QdrantEdgeStore(StoreConfig(dim=4, path=str(tmp_path / "edge")))
    edge.upsert([StoredPoint(str(uuid.UUID(int=i + 1)), {"record": "memory", "repo": "r", "deprecated": 0, "n": i},
                             [1.0, 0.0, 0.0, float(i)]) for i in range(N)])  # fmt: skip
    counted = Counted(edge)
    locked = LockedStore(counted)
    yield locked, counted
    counted.release.set()
    locked.close()


def test_a_stream_reads_one_page_at_a_time_and_every_point_once(store):
    locked, counted = store
    stream = locked.stream(MemoryFilter(repo="r"))
    first = next(stream)
    assert counted.read == STREAM_PAGE  # not every point before the first is given
    rest = list(stream)
    assert counted.read == N
    assert sorted(p.payload["n"] for p in [first, *rest]) == list(range(N))


def test_a_stream_lets_the_store_be_used_between_its_pages_and_waits_out_a_long_hold(store):
    """Between two pages the store is another thread's: here an index build, which holds
    it for long. A stream begun is not cut off by it (its next page waits); one that
    would begin meanwhile is refused at once, as any call."""
    locked, counted = store
    stream = locked.stream(MemoryFilter(repo="r"))
    got = [next(stream) for _ in range(STREAM_PAGE)]  # the first page, given whole
    builder = threading.Thread(target=locked.optimize)
    builder.start()
    while locked.busy is None:
        time.sleep(0.001)
    with pytest.raises(BusyError, match="building the vector index"):
        next(locked.stream(MemoryFilter(repo="r")))
    started = time.monotonic()  # before the timer that ends the build starts: 0.3 s after it at the earliest
    threading.Timer(0.3, counted.release.set).start()
    got += list(stream)
    assert time.monotonic() - started >= 0.25  # its next page waited for the build to end
    builder.join()
    assert sorted(p.payload["n"] for p in got) == list(range(N))
