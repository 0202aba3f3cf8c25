"""Store upkeep: flush and index only when the daemon is idle, never per sync."""

from __future__ import annotations

import uuid

from recalld.daemon.upkeep import StoreUpkeep as Upkeep
from recalld.ingest.errors import BusyError
from recalld.ingest.store import MemoryFilter, StoredPoint
from tests.ingest.conftest import open_test_store


class StoreUpkeep(Upkeep):
    """The upkeep, each look waiting for the index build it may start (on a thread)."""

    def tick(self, now: float | None = None) -> None:
        super().tick(now)
        assert self.wait(10)


class CountingStore:
    def __init__(self, unindexed: int, upgrade_steps: int = 0, relayout: bool = False) -> None:
        self.calls: list[str] = []
        self._unindexed = unindexed
        self._upgrade_steps = upgrade_steps
        self.upgrade_asks = 0
        self.relayout = relayout

    def relayout_due(self) -> bool:
        return self.relayout

    def flush(self) -> None:
        self.calls.append("flush")

    def unindexed(self) -> int:
        return self._unindexed

    def optimize(self) -> None:
        self.calls.append("optimize")
        self._unindexed = 0

    def upgrade(self) -> bool:
        self.upgrade_asks += 1
        if self._upgrade_steps == 0:
            return False
        self.calls.append("upgrade")
        self._upgrade_steps -= 1
        return True


def test_upkeep_waits_for_idle_and_its_interval():
    store = CountingStore(unindexed=5)
    idle = [False]
    upkeep = StoreUpkeep(store, idle=lambda: idle[0], every=30, check_every=5, optimize_over=10)  # type: ignore[arg-type]
    upkeep.tick(now=100)
    assert store.calls == []  # busy
    idle[0] = True
    upkeep.tick(now=103)
    assert store.calls == []  # not due to look yet
    upkeep.tick(now=106)
    assert store.calls == ["flush"]  # few unindexed points: no index build
    upkeep.tick(now=112)
    assert store.calls == ["flush"]  # flushed less often than it looks
    upkeep.tick(now=137)
    assert store.calls == ["flush", "flush"]


def test_a_daemon_never_idle_still_flushes_now_and_then_but_builds_no_index():
    """Syncs queued back to back: the engine reuses rewritten points' space only after a
    flush, so a store never flushed kept growing."""
    store = CountingStore(unindexed=50)
    idle = [False]
    upkeep = StoreUpkeep(store, idle=lambda: idle[0], every=30, busy_every=600, check_every=5, optimize_over=10)  # type: ignore[arg-type]
    for now in range(100, 700, 5):
        upkeep.tick(now=now)
    assert store.calls == []  # less than busy_every since it started looking
    upkeep.tick(now=700)
    assert store.calls == ["flush"]  # no index build, no upgrade: those wait for idle
    for now in range(705, 1300, 5):
        upkeep.tick(now=now)
    assert store.calls == ["flush"]
    idle[0] = True
    upkeep.tick(now=1300)
    assert store.calls == ["flush", "flush", "optimize"]
    idle[0] = False
    upkeep.tick(now=1305)
    upkeep.tick(now=1895)
    assert store.calls == ["flush", "flush", "optimize"]  # counted from the idle flush
    upkeep.tick(now=1900)
    assert store.calls == ["flush", "flush", "optimize", "flush"]


def test_a_flush_while_a_sync_seals_is_passed_over():
    """A sync seals what it wrote (``Store.seal``) while the daemon is busy: the store
    refuses other threads meanwhile, the upkeep's busy flush among them."""
    store = CountingStore(unindexed=50)
    sealing = [True]

    def flush() -> None:
        if sealing[0]:
            raise BusyError("recalld serve is sealing the memories it wrote (3 s so far)")
        store.calls.append("flush")

    store.flush = flush  # type: ignore[method-assign]
    upkeep = StoreUpkeep(store, idle=lambda: False, busy_every=600, check_every=5)  # type: ignore[arg-type]
    upkeep.tick(now=100)
    upkeep.tick(now=700)  # due, refused: no error out of the daemon's main loop
    sealing[0] = False
    upkeep.tick(now=1295)
    assert store.calls == []  # the next one counted from the refused one
    upkeep.tick(now=1300)
    assert store.calls == ["flush"]


def test_upkeep_upgrades_an_old_store_one_step_per_idle_look_between_flushes():
    store = CountingStore(unindexed=0, upgrade_steps=2)
    idle = [True]
    upkeep = StoreUpkeep(store, idle=lambda: idle[0], every=30, check_every=5)  # type: ignore[arg-type]
    upkeep.tick(now=0)
    assert store.calls == ["flush"]  # a flush look does nothing else
    upkeep.tick(now=5)
    idle[0] = False
    upkeep.tick(now=10)
    assert store.calls == ["flush", "upgrade"]  # not while busy
    idle[0] = True
    for now in range(15, 60, 5):
        upkeep.tick(now=now)
    assert store.calls == ["flush", "upgrade", "upgrade", "flush"]
    assert store.upgrade_asks == 3  # once told nothing is left, it asks no more


def test_upkeep_releases_memory_once_after_each_burst_of_syncs(monkeypatch):
    from recalld.daemon import upkeep as upkeep_module

    trims: list[str] = []
    monkeypatch.setattr(upkeep_module, "release_memory", lambda: trims.append("heap") or True)
    syncs = [0]
    upkeep = StoreUpkeep(CountingStore(0), idle=lambda: True, activity=lambda: syncs[0], check_every=1,  # type: ignore[arg-type]
                         release_model=lambda: trims.append("model"), released=lambda: trims.append("told"))  # fmt: skip
    for now in range(5):
        upkeep.tick(now=now)
    # the model's arena first: what it frees, the heap trim gives back; then the daemon may
    # weigh a restart on what is left
    assert trims == ["model", "heap", "told"]
    syncs[0] = 3
    for now in range(5, 10):
        upkeep.tick(now=now)
    assert trims == ["model", "heap", "told"] * 2


def test_upkeep_reads_ahead_for_queries_on_a_thread_after_each_burst_of_syncs(monkeypatch):
    """``warm`` runs once a burst of syncs is over (after the memory is released), on a
    thread of its own while the loop goes on, never twice at once (syncs that ran
    meanwhile get theirs once it ended), never while busy or stopping; the daemon's stop
    waits for it, and a crash in it is logged, not raised."""
    import threading

    from recalld.daemon import upkeep as upkeep_module

    monkeypatch.setattr(upkeep_module, "release_memory", lambda: True)
    go, calls, busy, stopping = threading.Event(), [], [False], [False]

    def warm() -> None:
        calls.append(threading.current_thread().name)
        assert go.wait(10)
        if len(calls) == 3:
            raise RuntimeError("a store that went away")

    syncs = [1]
    upkeep = Upkeep(CountingStore(0), idle=lambda: not busy[0], activity=lambda: syncs[0], check_every=1,  # type: ignore[arg-type]
                    stopping=lambda: stopping[0], warm=warm)  # fmt: skip
    upkeep.tick(now=0)
    upkeep.tick(now=2)  # the loop went on; nothing new to read ahead
    syncs[0] = 2
    upkeep.tick(now=4)  # the first still runs: not started twice
    go.set()
    assert upkeep.end(10) and calls == ["recalld-warm"]
    upkeep.tick(now=5)  # the syncs that ran meanwhile
    assert upkeep.end(10) and len(calls) == 2
    upkeep.tick(now=6)
    syncs[0], busy[0] = 3, True
    upkeep.tick(now=7)
    assert upkeep.end(10) and len(calls) == 2
    busy[0] = False
    upkeep.tick(now=8)  # it raises: logged on its thread
    assert upkeep.end(10) and len(calls) == 3
    syncs[0], stopping[0] = 4, True
    upkeep.tick(now=12)
    assert upkeep.end(10) and len(calls) == 3


def test_upkeep_builds_the_index_over_the_threshold_once():
    store = CountingStore(unindexed=50)
    upkeep = StoreUpkeep(store, idle=lambda: True, every=1, check_every=1, optimize_over=10)  # type: ignore[arg-type]
    upkeep.tick(now=0)
    upkeep.tick(now=2)
    assert store.calls == ["flush", "optimize", "flush"]


def test_upkeep_releases_memory_after_building_the_index(monkeypatch):
    from recalld.daemon import upkeep as upkeep_module

    store = CountingStore(unindexed=50)
    monkeypatch.setattr(upkeep_module, "release_memory", lambda: store.calls.append("release") or True)
    upkeep = StoreUpkeep(store, idle=lambda: True, every=1, check_every=1, optimize_over=10)  # type: ignore[arg-type]
    upkeep.tick(now=0)
    assert store.calls == ["release", "flush", "optimize", "release"]  # the first: the sync's memory


def test_a_failed_index_build_is_logged_and_tried_again_only_once_more_points_need_it(monkeypatch):
    from recalld.daemon import upkeep as upkeep_module
    from recalld.ingest.errors import RecalldError

    store = CountingStore(unindexed=50)
    failing = [True]

    def optimize() -> None:
        store.calls.append("optimize")
        if failing[0]:
            raise RecalldError("cannot build the vector index of store s: Killed")
        store._unindexed = 0

    store.optimize = optimize  # type: ignore[method-assign]
    logged: list[tuple[str, dict[str, object]]] = []
    monkeypatch.setattr(upkeep_module.log, "error", lambda event, **kw: logged.append((event, kw)))
    upkeep = StoreUpkeep(store, idle=lambda: True, every=1, check_every=1, optimize_over=10)  # type: ignore[arg-type]
    upkeep.tick(now=0)
    assert logged and logged[0][1]["error"] == "cannot build the vector index of store s: Killed"
    upkeep.tick(now=2)  # no new points: not tried again at every look
    assert store.calls == ["flush", "optimize", "flush"]
    failing[0] = False
    store._unindexed = 65
    upkeep.tick(now=4)
    assert store.calls[-2:] == ["flush", "optimize"] and store._unindexed == 0


def test_an_older_stores_layout_is_built_anew_once_with_nothing_unindexed(monkeypatch):
    from recalld.daemon import upkeep as upkeep_module
    from recalld.ingest.errors import RecalldError

    store = CountingStore(unindexed=0, relayout=True)
    upkeep = StoreUpkeep(store, idle=lambda: True, every=1, check_every=1, optimize_over=10)  # type: ignore[arg-type]
    upkeep.tick(now=0)
    assert store.calls == ["flush", "optimize"]
    store.relayout = False  # what the build leaves
    upkeep.tick(now=2)
    assert store.calls == ["flush", "optimize", "flush"]

    failing = CountingStore(unindexed=0, relayout=True)

    def optimize() -> None:
        failing.calls.append("optimize")
        raise RecalldError("cannot build the vector index of store s: no space left on device")

    failing.optimize = optimize  # type: ignore[method-assign]
    monkeypatch.setattr(upkeep_module.log, "error", lambda event, **kw: None)
    upkeep = StoreUpkeep(failing, idle=lambda: True, every=1, check_every=1, optimize_over=10)  # type: ignore[arg-type]
    upkeep.tick(now=0)
    upkeep.tick(now=2)
    upkeep.tick(now=4)  # still due, but tried once a process: the daemon's next start tries again
    assert failing.calls == ["flush", "optimize", "flush", "flush"]


def test_a_build_ended_by_the_daemons_stop_is_no_error(monkeypatch):
    from recalld.daemon import upkeep as upkeep_module
    from recalld.ingest.errors import RecalldError

    store = CountingStore(unindexed=50)
    stopping = [False]

    def optimize() -> None:  # what the stop does to the child building the index
        stopping[0] = True
        raise RecalldError("cannot build the vector index of store s: killed by SIGTERM")

    store.optimize = optimize  # type: ignore[method-assign]
    said: list[tuple[str, str]] = []
    monkeypatch.setattr(upkeep_module.log, "error", lambda event, **_kw: said.append(("error", event)))
    monkeypatch.setattr(upkeep_module.log, "info", lambda event, **_kw: said.append(("info", event)))
    upkeep = StoreUpkeep(store, idle=lambda: True, stopping=lambda: stopping[0], every=1, check_every=1,
                         optimize_over=10)  # type: ignore[arg-type]  # fmt: skip
    upkeep.tick(now=0)
    assert said == [("info", "building the vector index"),
                    ("info", "vector index build left for the next start: the daemon stops")]  # fmt: skip


def test_upkeep_does_not_rebuild_for_what_the_engine_leaves_unindexed():
    store = CountingStore(unindexed=50)
    store.optimize = lambda: store.calls.append("optimize")  # type: ignore[method-assign]
    upkeep = StoreUpkeep(store, idle=lambda: True, every=1, check_every=1, optimize_over=10)  # type: ignore[arg-type]
    upkeep.tick(now=0)
    upkeep.tick(now=2)
    store._unindexed = 65
    upkeep.tick(now=4)
    assert store.calls == ["flush", "optimize", "flush", "flush", "optimize"]


def test_edge_store_upkeep_persists(tmp_path):
    store = open_test_store("edge", tmp_path, 4)
    points = [StoredPoint(str(uuid.uuid4()), {"record": "memory", "deprecated": 0}, [1.0, 0.0, 0.0, i]) for i in range(30)]
    store.upsert(points)
    assert store.unindexed() == 30  # far below the engine's indexing threshold: stays plain
    upkeep = StoreUpkeep(store, idle=lambda: True, optimize_over=10)
    upkeep.tick(now=0)
    assert store.count(MemoryFilter()) == 30
    store.close()
    reopened = open_test_store("edge", tmp_path, 4)
    assert reopened.count(MemoryFilter()) == 30
    reopened.close()


def test_idle_upkeep_forgets_what_the_syncs_memoised(monkeypatch):
    """Identifier terms, strings found clean and point ids are memoised for a sync; an idle
    daemon drops them before handing memory back."""
    from recalld.daemon import upkeep as upkeep_module
    from recalld.ingest import plan, secrets, sparse

    monkeypatch.setattr(upkeep_module, "release_memory", lambda: True)
    sparse.document_vector("def parse_config(self):\n    return self.value\n")
    secrets.redact("a string with nothing secret in it")
    plan.memory_id(plan.Scope("r", "main"), "a.py", "function", "f", "0" * 64)
    memos = lambda: (  # noqa: E731
        sparse.memoised(),
        plan.memory_id.cache_info().currsize,
        "a string with nothing secret in it" in secrets._CLEAN,
    )
    assert all(memos())
    busy = [True]
    upkeep = StoreUpkeep(CountingStore(0), idle=lambda: not busy[0], activity=lambda: 1, check_every=1)  # type: ignore[arg-type]
    upkeep.tick(now=0)
    assert all(memos())  # not while a sync may use them
    busy[0] = False
    upkeep.tick(now=1)
    assert memos() == (0, 0, False)


def test_a_restart_is_due_only_after_work_and_past_the_growth_allowed(monkeypatch):
    from recalld.daemon import restart

    heap = [300 << 20]
    monkeypatch.setattr(restart, "anonymous_bytes", lambda: heap[0])
    recycler = restart.Recycler(over_mb=128)
    recycler.mark_baseline()
    heap[0] += 200 << 20
    assert recycler.due() is None  # grown, but by nothing this program synced (a restart's own start)
    recycler.worked = True
    assert recycler.due() == 200
    heap[0] -= 100 << 20
    assert recycler.due() is None  # 100 MB: within what is allowed
    assert restart.Recycler(over_mb=0, baseline=0, worked=True).due() is None  # 0: never
    monkeypatch.setattr(restart, "anonymous_bytes", lambda: None)
    assert recycler.due() is None  # not Linux: never


def test_anonymous_memory_is_read_from_the_process_status():
    from recalld.daemon.restart import anonymous_bytes

    before = anonymous_bytes()
    assert before is not None and before > 0
    block = bytearray(64 << 20)
    block[:: 4096] = b"x" * len(block[:: 4096])  # touched: resident
    assert anonymous_bytes() - before >= 60 << 20  # type: ignore[operator]
    del block


def test_a_daemon_that_decides_to_stop_when_told_of_the_released_memory_starts_no_build(monkeypatch):
    """The restart in place is decided in ``released``: the index build (minutes, in a
    child) is left to the next program instead of holding the restart back."""
    from recalld.daemon import upkeep as upkeep_module

    monkeypatch.setattr(upkeep_module, "release_memory", lambda: True)
    stopping = [False]
    store = CountingStore(50_000)
    upkeep = StoreUpkeep(store, idle=lambda: True, activity=lambda: 1, stopping=lambda: stopping[0],  # type: ignore[arg-type]
                         released=lambda: stopping.__setitem__(0, True))  # fmt: skip
    upkeep.tick(now=0)
    assert store.calls == []


def test_the_index_is_built_on_a_thread_of_its_own_while_the_daemons_loop_goes_on(monkeypatch):
    """The daemon's loop (which starts syncs and pings the watchdog) calls ``tick``: a
    build under way is not waited for there, and nothing else is done until it ends; the
    daemon's stop ends it (its child stopped) and waits for it."""
    import threading

    from recalld.daemon import upkeep as upkeep_module

    store = CountingStore(unindexed=50)
    release = threading.Event()

    def optimize() -> None:
        store.calls.append("optimize")
        assert release.wait(10)
        store._unindexed = 0

    store.optimize = optimize  # type: ignore[method-assign]
    upkeep = Upkeep(store, idle=lambda: True, every=1, check_every=1, optimize_over=10)  # type: ignore[arg-type]
    upkeep.tick(now=0)
    assert upkeep.building() and not upkeep.wait(0.05)
    upkeep.tick(now=2)
    upkeep.tick(now=4)
    assert store.calls == ["flush", "optimize", "flush", "flush"]  # flushes as due; no upgrade or second build
    monkeypatch.setattr(upkeep_module, "stop_children", lambda: store.calls.append("stop") or release.set())
    assert upkeep.end(10) and not upkeep.building()
    upkeep.tick(now=6)
    assert store.calls == ["flush", "optimize", "flush", "flush", "stop", "flush"]
    assert upkeep.end() and store.calls[-1] == "flush"  # nothing under way: no child stopped


def test_during_a_build_the_store_is_flushed_as_without_one_unless_the_build_has_it_alone():
    """Syncs write to the shard while a copy of it is built: flushed idle every ``every``,
    busy every ``busy_every``, so that the build's end does not flush all they wrote while
    every call waits. Refused while the build has the store alone: passed over, the next
    one counted from it; nothing else (an upgrade, another build) starts meanwhile."""
    import threading

    store = CountingStore(unindexed=50, upgrade_steps=3)
    release, alone, idle = threading.Event(), [False], [True]

    def optimize() -> None:
        store.calls.append("optimize")
        assert release.wait(10)
        store._unindexed = 0

    def flush() -> None:
        if alone[0]:
            raise BusyError("recalld serve is building the vector index (3 s so far)")
        store.calls.append("flush")

    store.optimize, store.flush = optimize, flush  # type: ignore[method-assign]
    upkeep = Upkeep(store, idle=lambda: idle[0], every=30, busy_every=600, check_every=5, optimize_over=10)  # type: ignore[arg-type]
    upkeep.tick(now=100)
    assert upkeep.building() and store.calls == ["flush", "optimize"]
    upkeep.tick(now=125)
    assert store.calls == ["flush", "optimize"]  # not due
    upkeep.tick(now=130)
    assert store.calls == ["flush", "optimize", "flush"]  # idle: every 30 s
    idle[0] = False
    upkeep.tick(now=160)
    upkeep.tick(now=725)
    assert store.calls == ["flush", "optimize", "flush"]  # busy: every 600 s
    alone[0] = True
    upkeep.tick(now=730)  # due, refused
    alone[0] = False
    upkeep.tick(now=1325)
    assert store.calls == ["flush", "optimize", "flush"]
    upkeep.tick(now=1330)
    assert store.calls == ["flush", "optimize", "flush", "flush"]
    assert store.upgrade_asks == 0
    release.set()
    assert upkeep.wait(10)
