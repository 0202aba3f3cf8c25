"""Webhooks of pushes that cannot move a registration's followed branch (a tag, another
branch, another branch deleted) are answered and queue nothing, where each was a fetch and
a sync that changed nothing; a push of the followed branch, a remote's or deleted, and one
whose ref says too little to tell are queued as before. Real API app, real repositories."""

from __future__ import annotations

import hashlib
import hmac
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from recalld.daemon.api import create_api
from recalld.daemon.config import load_config
from recalld.daemon.service import Service
from recalld.daemon.webhooks import PushInfo, ignored_because
from tests.conftest import GitRepo
from tests.service.conftest import DocumentedClient

SECRET = "refs-secret"
WIDGETS = "https://github.com/example-org/widgets.git"  # followed: main, and dev by widgets-dev
GADGETS = "https://gitlab.example/acme/gadgets.git"  # followed: origin/main, a clone's
ZEROS = "0" * 40


@pytest.mark.parametrize(
    ("ref", "branch", "commit", "reason"),
    [("refs/heads/main", "main", "1" * 40, None),
     ("refs/heads/main", "main", ZEROS, None),  # the followed branch deleted: its sync says it is gone
     ("refs/heads/main", "origin/main", "1" * 40, None),
     ("refs/heads/feature/x", "upstream/feature/x", None, None),
     (None, "main", None, None),  # a generic webhook without a ref: as before
     ("main", "dev", None, None),  # not a full ref: a branch or a tag, who knows
     ("refs/pull/7/head", "origin/pr/7", None, None),  # a refspec may fetch it into the followed branch
     ("refs/tags/v1", "main", "1" * 40, "push of refs/tags/v1: the repository follows main"),
     ("refs/tags/main", "main", None, "push of refs/tags/main: the repository follows main"),
     ("refs/heads/dev", "main", "1" * 40, "push of refs/heads/dev: the repository follows main"),
     ("refs/heads/dev", "main", ZEROS, "deletion of refs/heads/dev: the repository follows main"),
     ("refs/heads/main", "origin/main-next", None, "push of refs/heads/main: the repository follows origin/main-next"),
     ("refs/heads/x/main", "origin/main", None, "push of refs/heads/x/main: the repository follows origin/main")],
)  # fmt: skip
def test_a_push_is_ignored_only_when_its_ref_cannot_move_the_followed_branch(ref, branch, commit, reason):
    assert ignored_because(PushInfo((), "r", ref, commit), branch) == reason


@pytest.fixture
def service(tmp_path: Path) -> Iterator[Service]:
    home = Path(load_config().home)
    home.mkdir(parents=True, exist_ok=True)
    (home / "config.toml").write_text(f'[webhooks]\ngithub_secret = "{SECRET}"\ngitlab_token = "gl-token"\n')
    widgets = GitRepo(tmp_path / "widgets")
    widgets.commit("one")
    widgets.git("remote", "add", "origin", WIDGETS)
    dev = GitRepo(tmp_path / "widgets-dev")  # another clone of widgets, following its dev
    dev.git("checkout", "-q", "-b", "dev")
    dev.commit("dev")
    dev.git("remote", "add", "origin", WIDGETS)
    upstream = GitRepo(tmp_path / "upstream")
    upstream.commit("one")
    gadgets = GitRepo(tmp_path / "gadgets")
    gadgets.git("remote", "add", "origin", str(upstream.path))
    gadgets.git("fetch", "-q", "origin")
    gadgets.git("remote", "set-url", "origin", GADGETS)  # where pushes land, as webhooks name it
    other = GitRepo(tmp_path / "other")
    other.commit("x")
    svc = Service(load_config())
    svc.app.registry.add("widgets", str(widgets.path), "main")
    svc.app.registry.add("widgets-dev", str(dev.path), "dev")
    svc.app.registry.add("gadgets", str(gadgets.path), "origin/main")
    svc.app.registry.add("other", str(other.path), "main")
    yield svc
    svc.close()


def github(client: DocumentedClient, delivery: str, **payload: Any) -> Any:
    body = json.dumps({**payload, "repository": {"name": "widgets", "clone_url": WIDGETS}}).encode()
    signature = "sha256=" + hmac.new(SECRET.encode(), body, hashlib.sha256).hexdigest()
    headers = {"X-Hub-Signature-256": signature, "X-GitHub-Event": "push", "X-GitHub-Delivery": delivery}
    answer = client.post("/v1/webhooks/github", content=body, headers=headers)
    assert answer.status_code == 202, answer.text
    return answer.json()


def gitlab(client: DocumentedClient, event: str, **payload: Any) -> Any:
    body = json.dumps({**payload, "project": {"name": "gadgets", "git_http_url": GADGETS}})
    answer = client.post("/v1/webhooks/gitlab", content=body, headers={"X-Gitlab-Token": "gl-token",
                                                                        "X-Gitlab-Event": event})  # fmt: skip
    assert answer.status_code == 202, answer.text
    return answer.json()


def repos(answer: Any) -> tuple[list[str], dict[str, str]]:
    return [q["repo"] for q in answer["queued"]], {i["repo"]: i["reason"] for i in answer["ignored"]}


def test_github_pushes_of_a_tag_or_another_branch_queue_nothing(service):
    client = DocumentedClient(create_api(service))
    tag = github(client, "t-1", ref="refs/tags/v1", after="1" * 40, created=True)
    assert tag == {"queued": [], "ignored": [
        {"repo": "widgets", "reason": "push of refs/tags/v1: the repository follows main"},
        {"repo": "widgets-dev", "reason": "push of refs/tags/v1: the repository follows dev"}]}
    assert service.journal.depth() == {}
    assert github(client, "t-1", ref="refs/tags/v1", after="1" * 40) == tag  # nothing recorded: not a duplicate
    feature = github(client, "t-2", ref="refs/heads/feature", after="1" * 40)
    assert repos(feature) == ([], {"widgets": "push of refs/heads/feature: the repository follows main",
                                   "widgets-dev": "push of refs/heads/feature: the repository follows dev"})
    gone = github(client, "t-3", ref="refs/heads/feature", after=ZEROS, deleted=True)
    assert repos(gone)[1]["widgets"] == "deletion of refs/heads/feature: the repository follows main"
    assert service.journal.depth() == {}

    dev = github(client, "t-4", ref="refs/heads/dev", after="2" * 40)  # one registration's branch, not the other's
    assert repos(dev) == (["widgets-dev"], {"widgets": "push of refs/heads/dev: the repository follows main"})
    main_deleted = github(client, "t-5", ref="refs/heads/main", after=ZEROS, deleted=True)
    assert repos(main_deleted) == (["widgets"], {"widgets-dev": "deletion of refs/heads/main: the repository"
                                                                " follows dev"})  # fmt: skip
    assert service.journal.depth() == {"widgets": 1, "widgets-dev": 1}
    claim = service.journal.claim("widgets")
    assert claim is not None and claim.events[0].detail == {"webhook": "github", "ref": "refs/heads/main",
                                                            "commit": ZEROS, "fetch": "origin"}  # fmt: skip


def test_gitlab_pushes_to_a_remote_tracking_branch_followed(service):
    """gadgets follows origin/main: a push of main to origin moves it, of a tag or dev not."""
    client = DocumentedClient(create_api(service))
    tag = gitlab(client, "Tag Push Hook", object_kind="tag_push", ref="refs/tags/v2", checkout_sha="3" * 40)
    assert tag == {"queued": [], "ignored": [{"repo": "gadgets", "reason": "push of refs/tags/v2: the repository"
                                                                           " follows origin/main"}]}  # fmt: skip
    system = gitlab(client, "System Hook", event_name="tag_push", ref="refs/tags/v3")
    dev = gitlab(client, "Push Hook", object_kind="push", ref="refs/heads/dev", after="3" * 40)
    assert repos(system)[0] == repos(dev)[0] == [] and service.journal.depth() == {}
    main = gitlab(client, "Push Hook", object_kind="push", ref="refs/heads/main", after="4" * 40)
    assert main["ignored"] == [] and repos(main)[0] == ["gadgets"]
    claim = service.journal.claim("gadgets")
    assert claim is not None and claim.events[0].detail["fetch"] == "origin"


def test_generic_pushes_without_a_ref_or_of_a_ref_it_cannot_tell_are_queued_as_before(service):
    client = DocumentedClient(create_api(service))
    bearer = {"Authorization": f"Bearer {service.token}"}

    def post(**payload: str) -> Any:
        answer = client.post("/v1/webhooks/generic", content=json.dumps({"repo": "other", **payload}), headers=bearer)
        assert answer.status_code == 202, answer.text
        return answer.json()

    assert post(ref="refs/tags/v1") == {"queued": [], "ignored": [
        {"repo": "other", "reason": "push of refs/tags/v1: the repository follows main"}]}
    assert post(ref="refs/heads/gh-pages", commit="5" * 40)["queued"] == []
    assert service.journal.depth() == {}
    for payload in ({}, {"ref": "main"}, {"ref": "refs/heads/main"}):
        answer = post(**payload)
        assert repos(answer) == (["other"], {}), payload
    assert service.journal.depth() == {"other": 3}
