"""A shared store — a Qdrant server's collection several writers use (qdrant-client's
local mode stands in for it) — keeps what other writers may follow: the old branch of a
rename or a `repo set --branch`, and an unregistered repository's memories unless
`--purge` says otherwise; a rename onto a branch another writer indexed carries nothing
over its memories. The embedded store, the daemon's alone, deletes them as before."""

from __future__ import annotations

import argparse
from types import SimpleNamespace

import pytest
from recalld.daemon.query import SearchRequest, search
from recalld.daemon.repos import follow_renamed, repo_remove, repo_set
from recalld.ingest.errors import NotFoundError, RecalldError
from recalld.ingest.plan import Scope
from recalld.ingest.records import stored_checkpoint
from recalld.ingest.result import NoProgress
from recalld.ingest.store import MemoryFilter

from tests.conftest import GitRepo
from tests.daemon.test_search import SearchApp
from tests.ingest.conftest import harness  # noqa: F401 - the fixture, on both store adapters


@pytest.fixture
def ctx(harness, tmp_path):  # noqa: F811
    app = SearchApp(harness, tmp_path)
    app.indexer = harness.indexer  # type: ignore[attr-defined]
    yield SimpleNamespace(app=app, registry=app.registry, daemon=lambda: False)
    app.registry.close()


@pytest.fixture
def master(git_repo: GitRepo, harness, ctx):  # noqa: F811
    """Repository r registered on master and synced there."""
    git_repo.git("branch", "-m", "main", "master")
    git_repo.write("pay.py", "def charge_card(amount):\n    return amount\n")
    git_repo.commit("charge")
    ctx.registry.add("r", str(git_repo.path), "master")
    harness.indexer.sync(repo="r", path=str(git_repo.path), branch="master")
    return git_repo


def on(store, branch: str) -> int:  # type: ignore[no-untyped-def]
    return store.count(MemoryFilter(repo="r", branch=branch, deprecated=None))


def test_a_renamed_branch_leaves_its_old_name_to_other_writers_of_a_shared_store(master, harness, ctx, capsys):  # noqa: F811
    shared = harness.store.shared
    before = on(harness.store, "master")
    master.git("branch", "-m", "master", "main")
    repo_set(ctx, argparse.Namespace(name="r", path=None, branch="main"))
    said = capsys.readouterr().out
    assert on(harness.store, "main") == before
    assert on(harness.store, "master") == (before if shared else 0)
    assert ("those of master stay in the shared collection" in said) == shared, said
    hits = search(ctx.app, SearchRequest("charge_card", mode="keyword", types=("structural",)))
    assert [h["branch"] for h in hits if h["qualname"] == "charge_card"] == ["main"]  # not master's copy too


def test_a_rename_onto_a_branch_another_writer_indexed_carries_nothing_over_it(master, harness, ctx):  # noqa: F811
    master.git("branch", "main")
    master.write("pay.py", "def charge_card(amount):\n    return amount\n\n\ndef refund(amount):\n    return 0\n")
    master.git("checkout", "-q", "main")
    theirs = master.commit("refund")
    harness.indexer.sync(repo="r", path=str(master.path), branch="main")  # another writer, on main
    master.git("checkout", "-q", "master")
    master.git("branch", "-D", "-q", "main")
    master.git("branch", "-m", "master", "main")  # here, master's rename: main's commit is another clone's
    moved = follow_renamed(ctx.app, ctx.registry.get("r"), progress=NoProgress())
    assert moved.branch == "main"
    assert stored_checkpoint(harness.store, Scope("r", "main"))["commit"] == theirs  # not master's, carried over it
    assert harness.store.count(MemoryFilter(repo="r", branch="main", qualnames=("refund",))) == 1


def test_repo_remove_keeps_a_shared_stores_memories_unless_purged(master, harness, ctx, capsys):  # noqa: F811
    shared = harness.store.shared
    held = on(harness.store, "master")
    repo_remove(ctx, argparse.Namespace(name="r", branch=None, purge=False))
    said = capsys.readouterr().out
    assert ctx.registry.find("r") is None
    assert on(harness.store, "master") == (held if shared else 0)
    assert ("stay in the shared collection" in said) == shared, said
    if shared:  # a name no longer registered: purged all the same
        repo_remove(ctx, argparse.Namespace(name="r", branch=None, purge=True))
        assert on(harness.store, "master") == 0 and f"removed r and its {held} memories" in capsys.readouterr().out
    with pytest.raises(NotFoundError):  # nothing of it left: an unknown name
        repo_remove(ctx, argparse.Namespace(name="r", branch=None, purge=True))


def test_repo_remove_branch_deletes_a_branch_followed_no_more_on_a_shared_store_with_purge(master, harness, ctx,  # noqa: F811
                                                                                          capsys):  # fmt: skip
    shared = harness.store.shared
    before = on(harness.store, "master")
    master.git("branch", "-m", "master", "main")
    repo_set(ctx, argparse.Namespace(name="r", path=None, branch="main"))
    said = capsys.readouterr().out
    assert ("`recalld repo remove r --branch master --purge` deletes them" in said) == shared, said
    with pytest.raises(RecalldError, match="r follows 'main'"):  # never the followed branch's
        repo_remove(ctx, argparse.Namespace(name="r", branch="main", purge=True))
    if shared:
        with pytest.raises(RecalldError, match=f"the {before} memories of r at master are in a shared collection"):
            repo_remove(ctx, argparse.Namespace(name="r", branch="master", purge=False))
        assert on(harness.store, "master") == before
        repo_remove(ctx, argparse.Namespace(name="r", branch="master", purge=True))
        assert f"removed the {before} memories of r at master" in capsys.readouterr().out
    assert on(harness.store, "master") == 0 and not stored_checkpoint(harness.store, Scope("r", "master"))
    assert on(harness.store, "main") == before and ctx.registry.get("r").branch == "main"
    with pytest.raises(RecalldError, match=rf"holds nothing of r at 'master' \(its branches there: main \({before}"):
        repo_remove(ctx, argparse.Namespace(name="r", branch="master", purge=True))
    with pytest.raises(NotFoundError):
        repo_remove(ctx, argparse.Namespace(name="nope", branch="master", purge=True))


def test_a_sync_deletes_what_a_stopped_repo_set_left_of_the_old_branch_on_a_store_of_its_own(master, harness, ctx):  # noqa: F811
    """A `repo set --branch` to a branch git still has re-points the registration, then drops
    the old branch's points: killed in between, they stay. The next sync deletes them from
    the daemon's own store, never from a shared one, and keeps the manual memories."""
    from recalld.daemon.branch_points import followed
    from recalld.daemon.memories import remember
    from recalld.ingest.manual import ManualMemory

    remember(ctx.app, ManualMemory("Card refunds go through the payments team", repo="r"))
    before = on(harness.store, "master")
    master.git("branch", "develop")
    ctx.registry.update("r", path=str(master.path), branch="develop")  # as a repo set killed before its drop leaves it
    entry = followed(ctx.app, ctx.registry.get("r"), progress=NoProgress())
    assert entry.branch == "develop"
    assert on(harness.store, "master") == (before if harness.store.shared else 0)
    assert bool(stored_checkpoint(harness.store, Scope("r", "master"))) == harness.store.shared
    assert harness.store.count(MemoryFilter(repo="r", kinds=("manual",))) == 1


def test_status_names_the_other_branches_the_store_holds_of_a_repository(master, harness, ctx, capsys):  # noqa: F811
    """A CI runner's feature branch on a shared server, and the old name a rename left there,
    show in status beside the followed branch: what a search leaves out, and what
    `repo remove --branch` may delete."""
    from recalld.daemon.query import repo_status
    from recalld.daemon.status import _print

    before = on(harness.store, "master")
    master.git("branch", "feature")
    harness.indexer.sync(repo="r", path=str(master.path), branch="feature")  # another writer's
    master.git("branch", "-m", "master", "main")
    repo_set(ctx, argparse.Namespace(name="r", path=None, branch="main"))
    status = repo_status(ctx.app, "r")
    kept = {"master": before} if harness.store.shared else {}
    assert status["other_branches"] == {"feature": before, **kept}
    capsys.readouterr()
    _print({"daemon": {"state": "stopped"}, "repos": [{**status, "error": None}]})
    line = capsys.readouterr().out
    assert f"other branches held: feature ({before} memories)" in line, line


def test_repo_remove_branch_counts_a_branchs_live_memories_as_status_does(master, harness, ctx, capsys):  # noqa: F811
    """`repo remove --branch`'s error counted the versions a branch's history closed too,
    where status counts its live memories: one branch, two numbers. The removal says both."""
    from recalld.daemon.query import repo_status

    master.git("checkout", "-q", "-b", "feature")
    harness.indexer.sync(repo="r", path=str(master.path), branch="feature")
    master.write("pay.py", "def charge_card(amount):\n    return amount * 2\n")
    master.commit("double")
    harness.indexer.sync(repo="r", path=str(master.path), branch="feature")  # charge_card's first version closed
    master.git("checkout", "-q", "master")
    live = repo_status(ctx.app, "r")["other_branches"]["feature"]
    closed = on(harness.store, "feature") - live
    assert closed > 0
    with pytest.raises(RecalldError, match=rf"its branches there: feature \({live} memories\), master"):
        repo_remove(ctx, argparse.Namespace(name="r", branch="gone", purge=True))
    repo_remove(ctx, argparse.Namespace(name="r", branch="feature", purge=True))
    said = capsys.readouterr().out
    assert f"removed the {live} memories of r at feature and {closed} closed versions" in said, said
    assert on(harness.store, "feature") == 0
