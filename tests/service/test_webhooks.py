"""CI webhooks on the real API app: authenticity, mapping to configured repos only,
dedup of deliveries, limits and malformed bodies. Nothing is queued unless accepted."""

from __future__ import annotations

import hashlib
import hmac
import json
import time
from collections.abc import Iterator
from contextlib import contextmanager, nullcontext
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from recalld.daemon.api import create_api
from recalld.daemon.config import load_config
from recalld.daemon.journal import Event, Journal
from recalld.daemon.service import Service
from recalld.daemon.webhooks import github_signature_ok, normalise_url
from recalld.ingest.diskspace import DiskFullError
from tests.conftest import GitRepo
from tests.service.conftest import DocumentedClient, recalld

SECRET = "It's a Secret to Everybody"
REMOTE = "https://github.com/example-org/widgets.git"


def test_githubs_published_vector_verifies():
    signature = "sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17"
    assert github_signature_ok(SECRET, b"Hello, World!", signature)
    assert not github_signature_ok(SECRET, b"Hello, World!?", signature)
    assert not github_signature_ok(SECRET, b"Hello, World!", signature.replace("7571", "7572"))
    assert not github_signature_ok(SECRET, b"Hello, World!", None)
    assert not github_signature_ok("", b"Hello, World!", signature)  # no secret configured: refuse all


@pytest.mark.parametrize(
    "url",
    ["git@github.com:Example-Org/widgets.git", "https://github.com/example-org/widgets",
     "ssh://git@github.com:22/example-org/widgets.git", "https://github.com/example-org/widgets/"],
)  # fmt: skip
def test_remote_urls_normalise_to_one_form(url):
    assert normalise_url(url) == "github.com/example-org/widgets"


@pytest.fixture
def service(tmp_path: Path) -> Iterator[Service]:
    home = Path(load_config().home)
    home.mkdir(parents=True, exist_ok=True)
    (home / "config.toml").write_text(
        f'[webhooks]\ngithub_secret = "{SECRET}"\ngitlab_token = "gl-token"\nmax_body_bytes = 4096\n'
    )
    repo = GitRepo(tmp_path / "widgets")
    repo.write("a.py", "def a():\n    return 1\n")
    repo.commit("one")
    repo.git("remote", "add", "origin", REMOTE)
    other = GitRepo(tmp_path / "other")
    other.commit("x")
    svc = Service(load_config())
    svc.app.registry.add("widgets", str(repo.path), "main")
    svc.app.registry.add("other", str(other.path), "main")
    yield svc
    svc.close()


def queued(service: Service) -> dict[str, int]:
    return service.journal.depth()


def github_post(client: TestClient, body: bytes, *, secret: str = SECRET, delivery: str = "d-1", event: str = "push"):
    signature = "sha256=" + hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()
    headers = {"X-Hub-Signature-256": signature, "X-GitHub-Event": event, "X-GitHub-Delivery": delivery,
               "Content-Type": "application/json"}  # fmt: skip
    return client.post("/v1/webhooks/github", content=body, headers=headers)


def push_body(url: str = REMOTE) -> bytes:
    return json.dumps({"ref": "refs/heads/main", "after": "0" * 40,
                       "repository": {"name": "widgets", "clone_url": url}}).encode()  # fmt: skip


def test_github_push_is_accepted_once_per_delivery(service):
    client = DocumentedClient(create_api(service))
    first = github_post(client, push_body())
    assert first.status_code == 202, first.text
    assert queued(service) == {"widgets": 1}
    event = service.journal.claim("widgets")
    assert event is not None and event.events[0].detail["fetch"] == "origin"  # fetched from config, not payload
    again = github_post(client, push_body())
    assert again.status_code == 202 and "duplicate" in again.json()
    assert queued(service) == {"widgets": 1}
    assert github_post(client, push_body(), delivery="d-2").status_code == 202
    assert queued(service) == {"widgets": 2}


def test_a_remote_rewritten_by_insteadof_matches_the_url_it_was_cloned_from(service, tmp_path):
    """``url.<base>.insteadOf`` sends a remote to a mirror, and ``git remote -v`` shows the
    mirror's URL: a push naming GitHub's own (the remote as configured) was a 404, "no
    registered repository matches this push". Both are matched, and the remote is fetched."""
    mirror = GitRepo(tmp_path / "mirrored")
    mirror.commit("x")
    mirror.git("remote", "add", "upstream", "https://github.com/qa/repo.git")
    mirror.git("config", "url.https://mirror.example.com/qa/.insteadOf", "https://github.com/qa/")
    assert "mirror.example.com/qa/repo.git" in mirror.git("remote", "-v")
    service.app.registry.add("mirrored", str(mirror.path), "main")
    client = DocumentedClient(create_api(service))
    for number, url in enumerate(("https://github.com/qa/repo.git", "git@github.com:qa/repo.git",
                                  "https://mirror.example.com/qa/repo")):  # fmt: skip
        answer = github_post(client, push_body(url), delivery=f"m-{number}")
        assert answer.status_code == 202 and answer.json()["queued"][0]["repo"] == "mirrored", (url, answer.text)
    claimed = service.journal.claim("mirrored")
    assert claimed is not None and {e.detail["fetch"] for e in claimed.events} == {"upstream"}


def test_bad_or_missing_signature_is_401_and_nothing_queued(service):
    client = DocumentedClient(create_api(service))
    assert github_post(client, push_body(), secret="wrong").status_code == 401
    unsigned = client.post("/v1/webhooks/github", content=push_body(), headers={"X-GitHub-Event": "push"})
    assert unsigned.status_code == 401
    assert queued(service) == {}


def test_unknown_repo_malformed_and_oversized_bodies(service):
    client = DocumentedClient(create_api(service))
    assert github_post(client, push_body("https://github.com/someone/else.git")).status_code == 404
    assert github_post(client, b"{not json", delivery="d-3").status_code == 400
    assert github_post(client, b"[1, 2]", delivery="d-4").status_code == 400
    assert github_post(client, b"x" * 5000, delivery="d-5").status_code == 413
    assert github_post(client, push_body(), event="ping", delivery="d-6").status_code == 200
    assert queued(service) == {}


def test_a_signed_body_of_the_wrong_shape_is_a_400_that_names_the_field(service):
    """Fields of the wrong type in an authentic body (a proxy or a script mangled it):
    ``.get`` on a list was a 500; nothing is queued."""
    client = DocumentedClient(create_api(service))
    bearer = {"Authorization": f"Bearer {service.token}"}
    for body, detail in ((b'{"repository": ["widgets"]}', "body's repository must be a JSON object"),
                         (b'{"repository": {"clone_url": 5}}', "body's repository.clone_url must be a string"),
                         (b'{"ref": 5, "repository": {}}', "body's ref must be a string")):  # fmt: skip
        answer = github_post(client, body, delivery=f"d-{len(body)}")
        assert answer.status_code == 400 and answer.json()["detail"] == detail, answer.text
    token = {"X-Gitlab-Token": "gl-token"}
    gitlab = client.post("/v1/webhooks/gitlab", content=b'{"project": "widgets"}', headers=token)
    assert gitlab.status_code == 400 and gitlab.json()["detail"] == "body's project must be a JSON object"
    generic = client.post("/v1/webhooks/generic", content=b'{"repo": "other", "commit": ["x"]}', headers=bearer)
    assert generic.status_code == 400 and generic.json()["detail"] == "body's commit must be a string"
    assert queued(service) == {}


def test_a_lone_surrogate_escape_in_a_body_is_refused_with_a_reason_not_a_500(service):
    """JSON may spell "\\ud800", which no UTF-8 text holds: FastAPI's 422 echoing it failed
    to render, and a repo, user or author field of a manual memory reached the registry's
    lookup with it; a webhook's ref or repo would have reached the journal."""
    client = DocumentedClient(create_api(service))
    bearer = {"Authorization": f"Bearer {service.token}", "Content-Type": "application/json"}
    for body in (rb'{"text": "\ud800", "repo": "widgets"}', rb'{"text": "a note", "repo": "\ud800"}',
                 rb'{"text": "a note", "user": "x\udc00"}'):  # fmt: skip
        answer = client.post("/v1/memories", content=body, headers=bearer)
        assert answer.status_code == 422, answer.text
        (error,) = answer.json()["detail"]  # rendered: the refused input as JSON's escape
        assert "unicode" in error["msg"].lower(), error
    for body in (rb'{"repo": "\ud800"}', rb'{"repo": "widgets", "ref": "refs/heads/\udc00"}'):
        answer = client.post("/v1/webhooks/generic", content=body, headers=bearer)
        assert (answer.status_code, answer.json()["detail"]) == (
            400, "body is not Unicode text: it holds a lone surrogate escape")
    assert queued(service) == {}


def test_a_body_nested_too_deep_or_a_signature_past_ascii_is_refused_not_a_500(service):
    """json.loads raises RecursionError on '[' nested a few thousand deep, and
    hmac.compare_digest a TypeError on a str past ASCII: both were 500s."""
    client = DocumentedClient(create_api(service))
    deep = b"[" * 4000
    bearer = {"Authorization": f"Bearer {service.token}"}
    answer = client.post("/v1/webhooks/generic", content=deep, headers=bearer)
    assert (answer.status_code, answer.json()["detail"]) == (400, "body is not JSON a server reads: nested too deep")
    assert github_post(client, deep, delivery="d-deep").status_code == 400
    headers = {"X-Hub-Signature-256": b"sha256=\xe9\xe9", "X-GitHub-Event": b"push"}  # latin-1 on the wire
    assert client.post("/v1/webhooks/github", content=push_body(), headers=headers).status_code == 401
    outline = client.get("/v1/repos/widgets/outline", params={"path": "a.py\x00"}, headers=bearer)
    assert (outline.status_code, outline.json()["detail"]) == (400, "a path cannot hold a NUL character")
    assert queued(service) == {}


def test_a_user_or_org_that_is_no_name_is_refused_with_a_reason(service):
    """A manual memory's user and org are names, as a repository's is: printable, not
    blank. A control character in one reached every line that shows the memory."""
    client = DocumentedClient(create_api(service))
    bearer = {"Authorization": f"Bearer {service.token}"}
    for scope, name in (("user", "u\x1b[2Jv\rw"), ("org", "o\no"), ("org", " "), ("user", "")):
        answer = client.post("/v1/memories", json={"text": "a note", "repo": "widgets", scope: name}, headers=bearer)
        assert (answer.status_code, answer.json()["detail"]) == (
            400, f"{name!r} cannot name a memory's {scope}: a name is printable, not blank")


def test_gitlab_token_and_generic_bearer(service):
    client = DocumentedClient(create_api(service))
    body = json.dumps({"ref": "refs/heads/main", "checkout_sha": "1" * 40,
                       "project": {"name": "widgets", "git_http_url": REMOTE}}).encode()  # fmt: skip
    assert client.post("/v1/webhooks/gitlab", content=body, headers={"X-Gitlab-Token": "nope"}).status_code == 401
    assert client.post("/v1/webhooks/gitlab", content=body).status_code == 401
    assert queued(service) == {}
    assert client.post("/v1/webhooks/gitlab", content=body, headers={"X-Gitlab-Token": "gl-token"}).status_code == 202
    assert queued(service) == {"widgets": 1}

    generic = json.dumps({"repo": "other"}).encode()
    assert client.post("/v1/webhooks/generic", content=generic).status_code == 401
    bearer = {"Authorization": f"Bearer {service.token}"}
    assert client.post("/v1/webhooks/generic", content=generic, headers=bearer).status_code == 202
    assert client.post("/v1/webhooks/generic", content=b'{"ref": "x"}', headers=bearer).status_code == 400
    misspelt = client.post("/v1/webhooks/generic", json={"repo": "other", "branch": "main", "sha": "1"}, headers=bearer)
    assert (misspelt.status_code, misspelt.json()["detail"]) == (
        400, "body's 'branch', 'sha': no such key (it takes repo, ref, commit)")
    nowhere = json.dumps({"repo": "/etc"}).encode()  # a path in the payload is never touched
    assert client.post("/v1/webhooks/generic", content=nowhere, headers=bearer).status_code == 404
    assert queued(service) == {"widgets": 1, "other": 1}


def test_api_routes_need_the_token(service):
    client = DocumentedClient(create_api(service))
    assert client.get("/v1/status").status_code == 401
    assert client.get("/v1/status", headers={"Authorization": "Bearer wrong"}).status_code == 401
    assert client.get("/healthz").json() == {"state": "starting"}
    token_file = load_config().token_file
    assert token_file.stat().st_mode & 0o777 == 0o600


def test_journal_survives_reopen(tmp_path):
    journal = Journal(tmp_path / "j.db")
    journal.append(Event("r", "hook", {"hook": "post-commit"}))
    journal.append(Event("r", "watcher", {}))
    journal.close()
    reopened = Journal(tmp_path / "j.db")
    claim = reopened.claim("r")
    assert claim is not None and [e.source for e in claim.events] == ["hook", "watcher"]
    reopened.complete(claim)
    assert reopened.pending() == {}
    reopened.close()


@pytest.mark.model
def test_signed_push_fetches_the_configured_remote_and_syncs(daemon, tmp_path):
    """A real daemon: the push lands on the remote, the webhook makes it fetch and index."""

    upstream = GitRepo(tmp_path / "upstream")
    upstream.write("lib/core.py", "def first_function():\n    return 1\n")
    upstream.commit("one")
    remote = tmp_path / "remote.git"
    upstream.git("clone", "-q", "--bare", str(upstream.path), str(remote))
    upstream.git("remote", "add", "origin", str(remote))
    clone = tmp_path / "clone"
    upstream.git("clone", "-q", str(remote), str(clone))
    recalld("repo", "add", str(clone), "--name", "widgets", "--branch", "origin/main")
    (daemon.home / "config.toml").write_text(
        (daemon.home / "config.toml").read_text() + f'[webhooks]\ngithub_secret = "{SECRET}"\n'
    )
    daemon.start()

    upstream.write("lib/late.py", "def arrived_by_webhook_quokka():\n    return 2\n")
    upstream.commit("two")
    upstream.git("push", "-q", "origin", "main")
    body = json.dumps({"ref": "refs/heads/main", "after": upstream.head(),
                       "repository": {"name": "widgets", "clone_url": f"file://{remote}"}}).encode()  # fmt: skip
    signature = "sha256=" + hmac.new(SECRET.encode(), body, hashlib.sha256).hexdigest()
    code, answer = daemon.call("POST", "/v1/webhooks/github", body,
                               {"X-Hub-Signature-256": signature, "X-GitHub-Event": "push",
                                "X-GitHub-Delivery": "e2e-1"})  # fmt: skip
    assert code == 202, answer
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        hits = json.loads(recalld("search", "arrived_by_webhook_quokka", "--json", "--limit", "3").stdout)
        if any(h["qualname"] == "arrived_by_webhook_quokka" for h in hits):
            break
        time.sleep(0.2)
    else:
        raise AssertionError(daemon.logs())
    status = json.loads(recalld("status", "--json").stdout)["repos"][0]
    assert status["indexed_commit"] == upstream.head() and status["commits_behind"] == 0

    # the remote gone: the webhook's fetch fails, is said and deferred, and holds up no sync
    remote.rename(tmp_path / "away.git")
    code, _ = daemon.call("POST", "/v1/webhooks/github", body,
                          {"X-Hub-Signature-256": signature, "X-GitHub-Event": "push",
                           "X-GitHub-Delivery": "e2e-2"})  # fmt: skip
    assert code == 202
    deadline = time.monotonic() + 30
    while not (status := json.loads(recalld("status", "--json").stdout)["repos"][0])["fetch_error"]:
        assert time.monotonic() < deadline, daemon.logs()
        time.sleep(0.2)
    said = status["fetch_error"]
    assert "git fetch origin failed" in said and "(try 1 of 8; again in 30 s)" in said
    while status["queue_depth"] != 1:  # the deferred fetch (the failed fetch wrote FETCH_HEAD: a sync)
        assert time.monotonic() < deadline, status
        time.sleep(0.2)
        status = json.loads(recalld("status", "--json").stdout)["repos"][0]
    assert status["last_error"] is None
    assert "fetch_error git fetch origin failed" in recalld("status").stdout
    local = GitRepo(clone)
    local.write("lib/local.py", "def moved_here_without_the_remote():\n    return 3\n")
    local.commit("three")
    local.git("update-ref", "refs/remotes/origin/main", local.head())  # the tracked branch moves here
    code, answer = daemon.authed("POST", "/v1/repos/widgets/sync?wait=true&timeout=30")
    assert code == 200 and json.loads(answer)["to_commit"] == local.head(), answer
    hits = json.loads(recalld("search", "moved_here_without_the_remote", "--json", "--limit", "3").stdout)
    assert any(h["qualname"] == "moved_here_without_the_remote" for h in hits)
    for bad in ("-5", "nan", "0"):
        assert daemon.authed("POST", f"/v1/repos/widgets/sync?wait=true&timeout={bad}")[0] == 422


@contextmanager
def store_building(service, *, shares: str | None):  # type: ignore[no-untyped-def]
    """The daemon's store held by an index build until the block ends: on a copy of its
    shard, others reading meanwhile (``shares`` "read": ``Store.optimize``'s ``reads``,
    while the copy is made) or writing too ("write": its ``writes``, while it is built),
    or in place (None)."""
    import threading

    from recalld.ingest.locked import LockedStore
    from tests.ingest.conftest import StoreWrapper

    building, release = threading.Event(), threading.Event()

    class Building(StoreWrapper):
        def optimize(self, *, reads=None, writes=None) -> None:  # type: ignore[no-untyped-def]
            with {"read": reads, "write": writes}[shares]() if shares else nullcontext():
                building.set()
                release.wait(60)

    service.app.store = LockedStore(Building(service.app.store))
    builder = threading.Thread(target=service.app.store.optimize)
    builder.start()
    try:
        assert building.wait(10)
        yield DocumentedClient(create_api(service)), {"Authorization": f"Bearer {service.token}"}
    finally:
        release.set()
        builder.join()


def test_while_the_store_builds_its_index_webhooks_are_queued_status_answers_and_a_search_is_told_to_retry(service):
    """Building the vector index in place (no room for a copy) takes the store for minutes:
    what needs no store is answered as ever, what needs it is refused with 503 at once."""
    with store_building(service, shares=None) as (client, bearer):
        assert github_post(client, push_body()).status_code == 202
        assert queued(service) == {"widgets": 1}
        status = client.get("/v1/status", headers=bearer)
        assert status.status_code == 200
        report = status.json()
        assert report["daemon"]["busy"].startswith("recalld serve is building the vector index (")
        repos = {r["repo"]: r for r in report["repos"]}
        assert set(repos) == {"widgets", "other"} and "memories" not in repos["widgets"]
        assert repos["widgets"]["queue_depth"] == 1
        search = client.get("/v1/search", params={"q": "a"}, headers=bearer)
        assert search.status_code == 503 and search.headers["Retry-After"] == "5"
        assert "is building the vector index" in search.json()["detail"]
        export = client.get("/v1/export", headers=bearer)  # refused whole, not begun and cut off
        assert export.status_code == 503 and "is building the vector index" in export.json()["detail"]
        assert client.get("/v1/export", params={"repo": "nope"}, headers=bearer).status_code == 404
    report = client.get("/v1/status", headers=bearer).json()
    assert "busy" not in report["daemon"] and all(r["memories"] == 0 for r in report["repos"])


def test_while_the_store_builds_its_index_on_a_copy_searches_and_writes_go_on(service):
    """The embedded store builds its index on a copy of its shard while the daemon reads
    and writes on from the shard it has open (``Store.optimize``'s ``reads``, then
    ``writes``): searches, exports and status answer as ever; a write is told to retry
    while the copy is made (under a second at 100k memories), and taken while it is built."""
    memory = {"text": "we pin torch to its CPU build", "repo": "widgets"}
    with store_building(service, shares="read") as (client, bearer):
        status = client.get("/v1/status", headers=bearer).json()
        assert status["daemon"]["busy"].startswith("recalld serve is building the vector index (")
        assert status["daemon"]["busy"].endswith("; searches are answered meanwhile")
        assert {r["repo"]: r["memories"] for r in status["repos"]} == {"widgets": 0, "other": 0}
        assert client.get("/v1/search", params={"q": "a"}, headers=bearer).status_code == 200
        assert client.get("/v1/export", headers=bearer).status_code == 200
        written = client.post("/v1/memories", json=memory, headers=bearer)
        assert written.status_code == 503 and written.headers["Retry-After"] == "5"
        assert "is building the vector index" in written.json()["detail"]
    with store_building(service, shares="write") as (client, bearer):
        status = client.get("/v1/status", headers=bearer).json()
        assert status["daemon"]["busy"].endswith("; searches and writes go on meanwhile")
        assert client.post("/v1/memories", json=memory, headers=bearer).status_code == 201
        found = client.get("/v1/search", params={"q": "torch CPU build", "repo": "widgets"}, headers=bearer).json()
        assert memory["text"] in str(found)
        status = client.get("/v1/status", headers=bearer).json()
        said = "; searches and writes go on meanwhile (1 point written since it began)"
        assert status["daemon"]["busy"].endswith(said)


def test_status_says_when_writes_during_a_build_reached_their_bound_and_wait(service, monkeypatch):
    """Past ``WRITES_DURING_BUILD`` points written during one build on a copy, writes wait
    for its end: the API tells a writer to retry, and status says why."""
    from recalld.ingest import locked

    monkeypatch.setattr(locked, "WRITES_DURING_BUILD", 1)
    with store_building(service, shares="write") as (client, bearer):
        first = client.post("/v1/memories", json={"text": "one memory", "repo": "widgets"}, headers=bearer)
        second = client.post("/v1/memories", json={"text": "one more", "repo": "widgets"}, headers=bearer)
        status = client.get("/v1/status", headers=bearer).json()
    assert first.status_code == 201 and second.status_code == 503 and second.headers["Retry-After"] == "5"
    assert status["daemon"]["busy"].endswith(
        "; searches are answered meanwhile; writes wait for its end (1 point written since it began,"
        " the most one build keeps)"
    )


def test_query_parameters_given_empty_count_as_not_given(service):
    """The README's parameter list filled in as a form or a template fills it:
    ``repo=`` had searched a repo named '' (404), ``limit=`` failed to parse (422)."""
    client = DocumentedClient(create_api(service))
    bearer = {"Authorization": f"Bearer {service.token}"}
    empty = "&repo=&type=&kind=&lang=&path=&include_deprecated=&include_untrusted=&as_of=&format=&limit="
    for q in ("a", "%C3%A9t%C3%A9"):
        answer = client.get(f"/v1/search?q={q}{empty}", headers=bearer)
        assert answer.status_code == 200, answer.text
        assert answer.json() == client.get(f"/v1/search?q={q}", headers=bearer).json()
    assert client.get(f"/v1/search?q={empty}", headers=bearer).status_code == 422  # q itself is still needed
    assert client.get("/v1/export?repo=", headers=bearer).status_code == 200
    assert client.get("/v1/search?q=a&repo=nope", headers=bearer).status_code == 404


def test_a_write_refused_for_disk_space_is_507_with_the_reason_and_searches_go_on(service, monkeypatch):
    from recalld.ingest import diskspace

    from tests.ingest.test_disk_full import past_the_window

    client = DocumentedClient(create_api(service))
    bearer = {"Authorization": f"Bearer {service.token}"}
    assert service.app.store is not None  # opened while there is room
    monkeypatch.setattr(diskspace, "free_bytes", lambda _path: 10 * diskspace.MB)
    past_the_window(monkeypatch)
    refused = client.post("/v1/memories", json={"text": "we pin torch to its CPU build", "repo": "widgets"},
                          headers=bearer)  # fmt: skip
    assert refused.status_code == 507
    assert refused.json()["detail"].startswith("cannot write to the store: only 10 MB free on the disk holding")
    assert client.get("/v1/search", params={"q": "torch"}, headers=bearer).status_code == 200


def test_a_journal_on_a_full_disk_refuses_an_event_with_507_and_loses_none(service):
    """SQLite's own "database or disk is full" (its page limit reached, as a full disk
    reports it): the event is refused with recalld's error and 507, what was recorded
    stays, and once there is room events are recorded again."""
    client = DocumentedClient(create_api(service))
    bearer = {"Authorization": f"Bearer {service.token}"}
    journal = service.journal
    db = journal._db
    db.execute(f"PRAGMA max_page_count = {db.execute('PRAGMA page_count').fetchone()[0]}")
    recorded = 0
    with pytest.raises(DiskFullError, match=r"cannot record the cli event for other: the disk holding .* is full"):
        while recorded < 10_000:  # the pages' room left, then refused
            journal.append(Event("other", "cli", {"note": "x" * 200}))
            recorded += 1
    generic = json.dumps({"repo": "other"}).encode()
    answers = [client.post("/v1/webhooks/generic", content=generic, headers=bearer) for _ in range(200)]
    assert answers[-1].status_code == 507  # the room a smaller event still found, then none
    assert "is full (database or disk is full): free some space" in answers[-1].json()["detail"]
    depth = journal.depth()
    assert client.post("/v1/webhooks/generic", content=generic, headers=bearer).status_code == 507
    assert journal.depth() == depth  # nothing recorded, nothing lost
    refused = github_post(client, push_body(), delivery="d-full")
    assert refused.status_code == 507 and journal.depth() == depth
    db.execute("PRAGMA max_page_count = 1073741823")
    assert client.post("/v1/webhooks/generic", content=generic, headers=bearer).status_code == 202
    assert journal.depth()["other"] == depth["other"] + 1
    again = github_post(client, push_body(), delivery="d-full")  # its redelivery: taken, not a duplicate
    assert again.status_code == 202 and "duplicate" not in again.json(), again.text
    assert journal.depth()["widgets"] == depth.get("widgets", 0) + 1


def test_a_path_given_for_a_repository_name_is_told_unknown_with_the_names_known(service):
    """An agent or a script that names a repository by its path (``/src/widgets``, or
    ``../x``) is told the name is unknown and which are known, not the router's bare
    "Not Found": a name with "/" still reaches the handler."""
    client = DocumentedClient(create_api(service))
    bearer = {"Authorization": f"Bearer {service.token}"}
    for method, path in (("GET", "/v1/repos/..%2F..%2Fetc/symbols?qualname=x"),
                         ("GET", "/v1/repos/src/widgets/changes"),
                         ("POST", "/v1/repos/%2Fsrc%2Fwidgets/sync"),
                         ("GET", "/v1/repos/src/widgets/outline?path=a")):  # fmt: skip
        answer = client.request(method, path, headers=bearer)
        assert answer.status_code == 404, (path, answer.text)
        assert "unknown repo" in answer.json()["detail"] and "(known: other, widgets)" in answer.json()["detail"]
    documented = set(client.app.openapi()["paths"])  # type: ignore[attr-defined]
    assert {"/v1/repos/{name}/symbols", "/v1/repos/{name}/outline"} <= documented
    missing = client.get("/v1/repos/widgets/outline", headers=bearer)  # no path: a malformed request
    assert missing.status_code == 422 and "path" in missing.text, missing.text  # as FastAPI answers any
    for query, said in (("until=HEAD", "give since too"), ("path=src", "give since too"),
                        ("limit=501", "limit must be 1 to 500 without since")):  # fmt: skip
        answer = client.get(f"/v1/repos/widgets/changes?{query}", headers=bearer)
        assert answer.status_code == 400 and said in answer.json()["detail"], answer.text
    assert client.get("/v1/repos/widgets/changes?since=HEAD&limit=5001", headers=bearer).status_code == 422
    assert queued(service) == {}


@pytest.mark.filterwarnings("ignore")  # qdrant-client: the server's version not checked
def test_a_qdrant_server_gone_is_502_with_the_reason_and_status_says_so(service, tmp_path):
    """The daemon stores in a Qdrant server that stops answering: what needs the store is
    answered 502 (Bad Gateway: the daemon is the gateway to it) with the server, the call
    and the reason, where it was a 500 and a traceback; status answers, and says so."""
    import socket
    import uuid

    from qdrant_client import QdrantClient

    from recalld.ingest.locked import LockedStore
    from recalld.ingest.store import StoreConfig
    from recalld.ingest.store_server import QdrantServerStore

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        closed = f"http://127.0.0.1:{probe.getsockname()[1]}"
    local = QdrantClient(path=str(tmp_path / "q"))
    store = QdrantServerStore(StoreConfig(dim=service.app.dim, url=closed), client=local)
    service.app.store = LockedStore(store)
    client = DocumentedClient(create_api(service))
    bearer = {"Authorization": f"Bearer {service.token}"}
    assert client.get("/v1/export", headers=bearer).status_code == 200  # answering
    store._client._client = QdrantClient(url=closed, check_compatibility=False)  # type: ignore[attr-defined]
    note = {"text": "a note", "repo": "widgets"}
    for answer in (client.get("/v1/export", headers=bearer), client.get(f"/v1/memories/{uuid.uuid4()}", headers=bearer),
                   client.post("/v1/memories", json=note, headers=bearer)):  # fmt: skip
        assert answer.status_code == 502, answer.text
        assert answer.json()["detail"].startswith(f"Qdrant at {closed} did not answer (")
    status = client.get("/v1/status", headers=bearer)
    assert status.status_code == 200 and "did not answer" in status.json()["daemon"]["store_error"]
    assert {r["repo"] for r in status.json()["repos"]} == {"widgets", "other"}


def test_a_github_webhook_of_githubs_default_content_type_is_read_from_its_form(service):
    """GitHub's webhooks default to ``application/x-www-form-urlencoded``: the JSON is the
    form's ``payload`` field, the signature that of the whole form. Each such push was
    refused as "body is not JSON"."""
    from urllib.parse import urlencode

    client = DocumentedClient(create_api(service))
    form = {"Content-Type": "application/x-www-form-urlencoded"}

    def signed(body: bytes, delivery: str) -> dict[str, str]:
        signature = "sha256=" + hmac.new(SECRET.encode(), body, hashlib.sha256).hexdigest()
        return {**form, "X-Hub-Signature-256": signature, "X-GitHub-Event": "push", "X-GitHub-Delivery": delivery}

    body = urlencode({"payload": push_body().decode()}).encode()
    answer = client.post("/v1/webhooks/github", content=body, headers=signed(body, "f-1"))
    assert answer.status_code == 202 and answer.json()["queued"][0]["repo"] == "widgets", answer.text
    assert queued(service) == {"widgets": 1}
    empty = b"zen=keep+it+logically+awesome"
    answer = client.post("/v1/webhooks/github", content=empty, headers=signed(empty, "f-2"))
    assert answer.status_code == 400 and answer.json()["detail"] == (
        "a body sent as application/x-www-form-urlencoded must hold the JSON in its payload field, as GitHub sends it")
    forged = urlencode({"payload": push_body().decode()}).encode()  # signed as something else: refused
    assert client.post("/v1/webhooks/github", content=forged, headers=signed(body + b"x", "f-3")).status_code == 401
    labelled = client.post("/v1/webhooks/github", content=push_body(), headers=signed(push_body(), "f-4"))
    assert labelled.status_code == 202, labelled.text  # JSON labelled a form (curl -d): read as JSON
    assert queued(service) == {"widgets": 2}
    accented = json.dumps({**json.loads(push_body()), "head_commit": {"message": "Café ✓"}}, ensure_ascii=False)
    for number, sent in enumerate((urlencode({"payload": accented}).encode(), b"payload=" + accented.encode())):
        answer = client.post("/v1/webhooks/github", content=sent, headers=signed(sent, f"f-{5 + number}"))
        assert answer.status_code == 202, answer.text  # escaped as GitHub sends it, or raw: a 500 before
    assert queued(service) == {"widgets": 4}
    for bad in (b"payload=%ff%fe", b"payload=\xff"):  # no UTF-8: a 400 that says so
        answer = client.post("/v1/webhooks/github", content=bad, headers=signed(bad, f"f-{bad.hex()}"))
        assert answer.status_code == 400 and answer.json()["detail"].startswith("body is not JSON"), answer.text


def test_gitlab_hooks_of_other_events_than_pushes_are_ignored(service):
    """A GitLab webhook may send merge requests, comments, pipelines: each names the
    project and was queued as a push of it (a fetch and a sync). A system hook says what
    it tells of in its body."""
    client = DocumentedClient(create_api(service))
    project = {"name": "widgets", "git_http_url": REMOTE}

    def post(event: str, **payload: object):  # type: ignore[no-untyped-def]
        headers = {"X-Gitlab-Token": "gl-token", "X-Gitlab-Event": event}
        return client.post("/v1/webhooks/gitlab", content=json.dumps({**payload, "project": project}), headers=headers)

    for event, kind in (("Merge Request Hook", "merge_request"), ("Note Hook", "note"), ("Pipeline Hook", "pipeline")):
        answer = post(event, object_kind=kind)
        assert (answer.status_code, answer.json()) == (202, {"ignored": event})
    answer = post("System Hook", event_name="merge_request", object_kind="merge_request")
    assert (answer.status_code, answer.json()) == (202, {"ignored": "System Hook"})
    assert queued(service) == {}
    for n, (event, payload) in enumerate((("Push Hook", {"object_kind": "push"}),
                                          ("Tag Push Hook", {"object_kind": "tag_push"}),
                                          ("System Hook", {"event_name": "push"}),
                                          ("System Hook", {"event_name": "repository_update"})), 1):  # fmt: skip
        answer = post(event, **payload)
        assert answer.status_code == 202 and "queued" in answer.json(), answer.text
        assert queued(service) == {"widgets": n}


def test_a_webhook_with_no_secret_configured_says_so(service):
    """No GitHub secret or GitLab token configured: every delivery is refused, and the
    answer says why, where it said the signature or the token was wrong."""
    client = DocumentedClient(create_api(service))
    service.config.values["webhooks"].update(github_secret="", gitlab_token="")
    answer = github_post(client, push_body(), secret="")
    assert (answer.status_code, answer.json()["detail"]) == (401, "no GitHub secret is configured (webhooks."
                                                             "github_secret or $RECALLD_GITHUB_SECRET): the daemon"
                                                             " takes none of these webhooks")  # fmt: skip
    answer = client.post("/v1/webhooks/gitlab", content=b"{}", headers={"X-Gitlab-Token": ""})
    assert answer.status_code == 401 and answer.json()["detail"].startswith(
        "no GitLab token is configured (webhooks.gitlab_token or $RECALLD_GITLAB_TOKEN)")
    assert queued(service) == {}


def test_a_repository_whose_remotes_git_cannot_list_holds_up_no_webhook(service, tmp_path, monkeypatch):
    """A registered repository whose config includes a file that hangs on reading (a
    FIFO here; a dead network mount): git's listing of its remotes timed out in the event
    loop, every other request waiting meanwhile, and the webhook was a 500. It now matches
    nothing, the others are matched, and the API answers meanwhile."""
    import os
    import threading

    from recalld.daemon import webhooks

    monkeypatch.setattr(webhooks, "REMOTES_TIMEOUT", 2.0, raising=False)
    hung = GitRepo(tmp_path / "hung")
    hung.commit("x")
    service.app.registry.add("hung", str(hung.path), "main")
    os.mkfifo(tmp_path / "never-written")
    hung.git("config", "include.path", str(tmp_path / "never-written"))
    answers: list[object] = []
    with DocumentedClient(create_api(service)) as client:
        pushed = threading.Thread(target=lambda: answers.append((github_post(client, push_body()), time.monotonic())))
        pushed.start()
        time.sleep(0.3)
        assert client.get("/healthz").status_code == 200
        answered_at = time.monotonic()
        pushed.join(30)
    ((answer, pushed_at),) = answers
    assert answered_at < pushed_at  # answered while git's listing still hung, not after its timeout
    assert answer.status_code == 202 and [q["repo"] for q in answer.json()["queued"]] == ["widgets"]


def test_syncs_waited_for_leave_the_other_routes_answered(service):
    """A sync waited for holds a thread until it is done: 45 clients waiting (``recalld
    sync``, an agent's sync tool) took every thread the other routes are answered on, and
    status, search and the rest waited as long (up to the wait's 600 s)."""
    import threading

    bearer = {"Authorization": f"Bearer {service.token}"}
    ended: list[float] = []  # when each wait was answered

    def wait_for_sync():
        client.post("/v1/repos/widgets/sync?wait=true&timeout=5", headers=bearer)
        ended.append(time.monotonic())

    with DocumentedClient(create_api(service)) as client:  # no dispatcher: the waits time out
        waiting = [threading.Thread(target=wait_for_sync) for _ in range(45)]
        for thread in waiting:
            thread.start()
        time.sleep(0.5)
        assert client.get("/v1/status", headers=bearer).status_code == 200
        answered_at = time.monotonic()
        for thread in waiting:
            thread.join(30)
    # answered while every wait still held its thread (a status queued behind them is answered only
    # once some wait times out); an order, not a time, so a loaded machine cannot fail it
    assert len(ended) == 45 and answered_at < min(ended)
