"""A store that holds other branches of a registered repository — a Qdrant server's
collection another writer shares (a CI runner indexing a feature branch under the same
repository name), or a renamed branch's points a stopped ``repo set`` left — answers
searches, exports and recent changes with the branch the registration follows, manual
memories and repositories registered elsewhere (both store adapters, fake embedder)."""

from __future__ import annotations

import pytest

from recalld.daemon.memories import recent_changes, remember
from recalld.daemon.exports import export_noted
from recalld.daemon.query import SearchRequest, search
from recalld.ingest.manual import ManualMemory
from tests.conftest import GitRepo
from tests.daemon.test_search import SearchApp
from tests.ingest.conftest import harness  # noqa: F401 - the fixture, on both store adapters


@pytest.fixture
def app(harness, tmp_path):  # noqa: F811
    a = SearchApp(harness, tmp_path)
    yield a
    a.registry.close()


@pytest.fixture
def shared(git_repo: GitRepo, harness, app, tmp_path):  # noqa: F811
    """Repository r registered on main, its branch feature indexed too (another writer's:
    r on feature), and repository elsewhere indexed by another writer only."""
    app.registry.add("r", str(git_repo.path), "main")
    git_repo.write("pay.py", "def charge_card(amount):\n    return amount\n")
    git_repo.commit("charge")
    harness.sync(git_repo)
    git_repo.git("checkout", "-q", "-b", "feature")
    git_repo.write("pay.py", "def charge_card(amount):\n    return amount\n\n\ndef refund_card(amount):\n"
                             "    return -amount\n")  # fmt: skip
    git_repo.commit("refund")
    harness.indexer.sync(repo="r", path=str(git_repo.path), branch="feature")
    git_repo.git("checkout", "-q", "main")
    other = GitRepo(tmp_path / "elsewhere")
    other.write("ship.py", "def ship_parcel(box):\n    return box\n")
    other.commit("ship")
    harness.indexer.sync(repo="elsewhere", path=str(other.path), branch="main")
    return git_repo


def found(app, query: str, **kw) -> list[tuple[str | None, str | None]]:  # type: ignore[no-untyped-def]
    return [(r["repo"], r["qualname"]) for r in search(app, SearchRequest(query, mode="keyword", **kw))]


def test_a_search_reads_the_followed_branch_and_what_no_branch_holds(shared, app):
    assert ("r", "refund_card") not in found(app, "refund_card", limit=20)
    assert ("r", "refund_card") not in found(app, "refund_card", repo="r", limit=20)
    charges = [hit for hit in found(app, "charge_card", limit=20) if hit[1] == "charge_card"]
    assert charges == [("r", "charge_card")]  # once: main's, not feature's version too
    assert ("elsewhere", "ship_parcel") in found(app, "ship_parcel", limit=5)  # a repository registered elsewhere
    made = remember(app, ManualMemory("Card refunds go through the payments team", repo="r"))
    assert made["id"] in {r["id"] for r in search(app, SearchRequest("refunds payments team", repo="r"))}


def test_export_and_recent_changes_read_the_followed_branch(shared, app):
    exported = list(export_noted(app, repo="r", include_deprecated=True)[0])
    assert exported and {r["branch"] for r in exported} == {"main"}
    assert "refund_card" not in {r["qualname"] for r in export_noted(app, repo=None, include_deprecated=True)[0]}
    changes = recent_changes(app, "r")["changes"]
    assert [c["text"].splitlines()[0] for c in changes] == ["charge"]  # feature's commit is another branch's
