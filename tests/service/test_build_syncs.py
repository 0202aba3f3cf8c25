"""The daemon's loop while the upkeep builds the vector index: its dispatcher and upkeep
around the real store, the real model and the API. The build's child is held back (a
first index of 20k memories would be needed to make a real build last), so a commit is
made, synced and searched for while the build is certainly under way."""

from __future__ import annotations

import time

from recalld.daemon.api import create_api
from recalld.daemon.config import load_config
from recalld.daemon.service import Service
from recalld.daemon.upkeep import StoreUpkeep
from recalld.ingest import store_edge_layout
from recalld.ingest.locked import LockedStore
from tests.conftest import GitRepo
from tests.service.conftest import DocumentedClient
from tests.store.test_seal import HeldChild


def synced(service: Service, event: int, timeout: float = 60) -> None:
    """The daemon's loop turned, as its main loop does, until ``event`` was synced."""
    deadline = time.monotonic() + timeout
    while not service.journal.is_done(event):
        assert time.monotonic() < deadline, service.dispatcher.state("widgets").last_error
        service.dispatcher.tick()
        service.journal.wait(0.05)


def test_a_commit_made_during_the_idle_index_build_is_synced_and_searchable_before_it_ends(tmp_path, monkeypatch):
    held = HeldChild(monkeypatch)
    repo = GitRepo(tmp_path / "widgets")
    repo.write("a.py", "def parse_widget_alpha(text):\n    '''Parse a widget.'''\n    return text\n")
    repo.commit("one")
    service = Service(load_config())
    service.app.store = store = LockedStore(service.app.store)
    upkeep = StoreUpkeep(store, idle=service.dispatcher.idle, optimize_over=1, check_every=0)
    client = DocumentedClient(create_api(service))
    bearer = {"Authorization": f"Bearer {service.token}"}

    def found(name: str) -> bool:
        answer = client.get("/v1/search", params={"q": name, "repo": "widgets"}, headers=bearer)
        assert answer.status_code == 200, answer.text
        return name in {hit.get("qualname") for hit in answer.json()}

    try:
        service.app.registry.add("widgets", str(repo.path), "main")
        service.dispatcher.start()
        service._register_repos()
        synced(service, service.enqueue("widgets", "registered"))  # the first index
        deadline = time.monotonic() + 60  # once idle (the first index's history read done), with unindexed
        while not held.started.is_set():  # points: the build begins, on a thread of its own
            assert time.monotonic() < deadline, "the daemon never went idle to build the index"
            service.dispatcher.tick()
            upkeep.tick()
            held.started.wait(0.1)
        assert upkeep.building() and store.sharing == "write"
        repo.write("b.py", "def render_widget_during_build(widget):\n    '''Render a widget.'''\n    return widget\n")
        repo.commit("two")
        synced(service, service.enqueue("widgets", "hook"))
        assert upkeep.building() and store.busy == "building the vector index"  # the build still held
        assert found("render_widget_during_build") and found("parse_widget_alpha")
        assert store._inner._dirty  # type: ignore[attr-defined]  # the commit's memories, in the shard
        upkeep.tick(time.monotonic() + upkeep.every)  # a flush due: done while the build lets others write
        assert not store._inner._dirty and upkeep.building()  # type: ignore[attr-defined]
    finally:
        held.release.set()
        upkeep.wait(60)
        service.dispatcher.stop()
    try:
        assert not upkeep.building() and store.busy is None
        assert found("render_widget_during_build") and found("parse_widget_alpha")  # in the copy that took over
    finally:
        service.close()


def test_while_a_sync_seals_what_it_wrote_the_api_searches_and_reports_it(tmp_path, monkeypatch):
    """A sync past ``store.seal_over`` memories has them indexed by a child, a seal, and
    waits for it; searches are answered meanwhile, from the shard the daemon keeps open."""
    monkeypatch.setattr(store_edge_layout, "INDEXING_THRESHOLD_KB", 1)  # the engine indexes a segment of any size
    held = HeldChild(monkeypatch)
    repo = GitRepo(tmp_path / "widgets")
    repo.write("a.py", "def parse_widget_alpha(text):\n    '''Parse a widget.'''\n    return text\n")
    repo.commit("one")
    service = Service(load_config())
    inner = service.app.store
    service.app.store = LockedStore(inner)
    client = DocumentedClient(create_api(service))
    bearer = {"Authorization": f"Bearer {service.token}"}
    try:
        service.app.registry.add("widgets", str(repo.path), "main")
        service.dispatcher.start()
        service._register_repos()
        synced(service, service.enqueue("widgets", "registered"))
        inner.seal_over = 5  # type: ignore[attr-defined]  # the next sync's writes are sealed
        repo.write("b.py", "".join(f"def step_{i}(x):\n    return x + {i}\n\n" for i in range(12)))
        repo.commit("two")
        event = service.enqueue("widgets", "hook")
        deadline = time.monotonic() + 60
        while not held.started.is_set():
            assert time.monotonic() < deadline and not service.journal.is_done(event)
            service.dispatcher.tick()
            time.sleep(0.05)
        status = client.get("/v1/status", headers=bearer).json()
        assert status["daemon"]["busy"].startswith("recalld serve is sealing the memories it wrote (")
        assert status["daemon"]["busy"].endswith("; searches and writes go on meanwhile")
        answer = client.get("/v1/search", params={"q": "parse_widget_alpha", "repo": "widgets"}, headers=bearer)
        assert answer.status_code == 200 and "parse_widget_alpha" in {h.get("qualname") for h in answer.json()}
        assert not service.journal.is_done(event)  # the sync waits for its seal
        held.release.set()
        synced(service, event)
        answer = client.get("/v1/search", params={"q": "step_7", "repo": "widgets"}, headers=bearer)
        assert "step_7" in {h.get("qualname") for h in answer.json()}
        assert inner.unindexed() == 0  # type: ignore[attr-defined]  # 19 without the seal
    finally:
        held.release.set()
        service.close()
