"""A search for pasted code: a long query reaches the daemon (its HTTP server reset the
connection of a request line over ~128 KiB, which the CLI and MCP took for a dead daemon),
and one past what it reads is refused by the client with a message."""

from __future__ import annotations

import pytest

from recalld.daemon.client import MAX_TARGET, DaemonClient
from recalld.ingest.errors import RecalldError
from tests.service.conftest import recalld


def test_a_search_for_pasted_code_is_answered(daemon, repo):
    recalld("repo", "add", str(repo.path))
    daemon.start()
    pasted = "def alpha():\n    return 1\n" * 4600  # 120 kB (an argument holds 128 at most), ~180 kB of URL
    found = recalld("search", pasted, "--limit", "3", check=False)
    assert found.returncode == 0, found.stderr + daemon.logs()
    assert "alpha" in found.stdout
    assert daemon.stop() == 0


def test_a_request_past_what_the_daemon_reads_is_refused_before_it_is_sent():
    client = DaemonClient("http://127.0.0.1:9", "token")  # nothing listens: the refusal comes first
    with pytest.raises(RecalldError, match=r"the request is too long for recalld serve .* shorten the query"):
        client.request("GET", "/v1/search", {"q": "x" * MAX_TARGET})
