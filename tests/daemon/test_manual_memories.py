"""remember / forget on the store directly (no daemon): real repo, real model, embedded store."""

from __future__ import annotations

import json
import uuid

import pytest

from tests.conftest import GitRepo
from tests.daemon.test_cli import recalld

pytestmark = pytest.mark.model


def export(*flags: str) -> list[dict]:
    return [json.loads(line) for line in recalld("export", *flags).stdout.splitlines()]


@pytest.fixture
def shop(tmp_path) -> GitRepo:
    repo = GitRepo(tmp_path / "shop")
    repo.write("cart.py", "def total(items):\n    return sum(i.price for i in items)\n")
    repo.commit("cart")
    recalld("repo", "add", str(repo.path))
    recalld("sync")
    return repo


def test_remember_is_idempotent_searchable_and_survives_syncs(shop):
    text = "We deploy to production only on Thursdays, after the weekly release review."
    first = recalld("remember", text, "--repo", "shop", "--type", "decision")
    memory_id = first.stdout.strip()
    assert str(uuid.UUID(memory_id)) == memory_id and "remembered: decision (repo shop)" in first.stderr
    again = recalld("remember", "  We deploy to production only on Thursdays,\n after the weekly release review. ",
                    "--repo", "shop", "--type", "decision")  # fmt: skip
    assert again.stdout.strip() == memory_id and "already remembered" in again.stderr
    mine = recalld("remember", "I prefer small commits", "--user", "alice", "--type", "preference", "--json")
    alice = json.loads(mine.stdout)
    assert alice["status"] == "created" and alice["memory"]["scope"] == "user" and alice["memory"]["repo"] is None

    shop.write("cart.py", "def total(items):\n    return round(sum(i.price for i in items), 2)\n")
    shop.commit("round")
    recalld("sync", "--full")
    live = {m["id"]: m for m in export()}
    manual = live[memory_id]
    assert (manual["type"], manual["kind"], manual["repo"], manual["deprecated"]) == ("decision", "manual", "shop", False)
    assert manual["text"] == text and manual["path"] is None and manual["valid_to_time"] == 0

    hits = json.loads(recalld("search", "which weekday do releases go out", "--json", "--limit", "3").stdout)
    assert hits[0]["id"] == memory_id
    in_shop = json.loads(recalld("search", "preferences about commits", "--repo", "shop", "--json").stdout)
    assert alice["id"] not in {h["id"] for h in in_shop}  # user scope, not about repo shop
    assert "decision manual: We deploy" in recalld("search", "deploy day", "--limit", "1").stdout


def test_forget_closes_only_manual_memories_and_scope_rules(shop):
    memory_id = recalld("remember", "The cart never stores card numbers", "--repo", "shop").stdout.strip()
    structural = next(m for m in export() if m["qualname"] == "total")
    refused = recalld("forget", structural["id"], check=False)
    assert refused.returncode == 1 and "only manual memories can be forgotten" in refused.stderr
    for unknown in (str(uuid.uuid4()), "not-an-id"):
        missing = recalld("forget", unknown, check=False)
        assert missing.returncode == 1 and f"unknown memory '{unknown}'" in missing.stderr

    assert recalld("forget", memory_id).stdout.strip() == f"forgot {memory_id}"
    assert recalld("forget", memory_id).stdout.strip() == f"already forgotten {memory_id}"
    assert memory_id not in {m["id"] for m in export()}
    closed = next(m for m in export("--include-deprecated") if m["id"] == memory_id)
    assert closed["deprecated"] is True and closed["deprecated_reason"] == "forgotten" and closed["valid_to_time"] > 0

    back = json.loads(recalld("remember", "The cart never stores card numbers", "--repo", "shop", "--json").stdout)
    assert back["id"] == memory_id and back["status"] == "reopened"
    assert back["memory"]["history"][0]["deprecated_reason"] == "forgotten"
    # another type for it: the same memory, relabelled, since it came back, its history kept
    relabelled = json.loads(recalld("remember", "The cart never stores card numbers", "--repo", "shop",
                                    "--type", "decision", "--json").stdout)  # fmt: skip
    assert (relabelled["id"], relabelled["status"], relabelled["memory"]["type"]) == (memory_id, "updated", "decision")
    assert relabelled["memory"]["history"] == back["memory"]["history"]
    assert relabelled["memory"]["valid_from_time"] == back["memory"]["valid_from_time"]

    no_scope = recalld("remember", "floating", check=False)
    assert no_scope.returncode == 2 and "give a scope" in no_scope.stderr
    unknown = recalld("remember", "x", "--repo", "nope", check=False)
    assert unknown.returncode == 1 and "unknown repo 'nope'" in unknown.stderr
    assert recalld("remember", "x", "--repo", "shop", "--type", "rumour", check=False).returncode == 2
    # a user or an org is a name, as a repository's: an escape sequence or a line end in it
    # reached stderr raw and broke the line search prints it on
    for option, name, shown in (("--user", "u\x1b[2Jv\rw", "'u\\x1b[2Jv\\rw'"), ("--org", "o\no", "'o\\no'"),
                                ("--org", " ", "' '"), ("--user", "", "''")):  # fmt: skip
        bad = recalld("remember", "x", option, name, "--repo", "shop", check=False)
        scope = option[2:]
        assert bad.returncode == 2 and bad.stderr == (
            f"recalld: {shown} cannot name a memory's {scope}: a name is printable, not blank\n"), bad.stderr

    kept = recalld("remember", "Org-wide: Python 3.11+", "--org", "acme").stdout.strip()
    recalld("remember", "shop uses decimals for money", "--repo", "shop")
    assert "(2 manual)" in recalld("repo", "remove", "shop").stdout
    assert [m["id"] for m in export("--include-deprecated")] == [kept]
