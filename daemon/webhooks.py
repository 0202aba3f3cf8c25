"""CI webhooks: authenticity checks and mapping a payload to a *configured* repository.

A webhook never names a path to touch: it is matched to a registered repo by the
remote URL or the name, and all the daemon then does is fetch that repo's own remote.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import subprocess
import time
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from recalld.daemon.logs import get_logger
from recalld.ingest.errors import RecalldError
from recalld.ingest.gitenv import git_env

if TYPE_CHECKING:
    from recalld.daemon.journal import Claim, Journal

FETCH_TIMEOUT = 120
FETCH_TRIES = 8  # a failed fetch is tried again after 30 s, 1, 2, 4, 8, 16 and 30 min, then given up
FETCH_BACKOFF = 30.0
FETCH_BACKOFF_MAX = 1800.0
REMOTES_TIMEOUT = 5.0  # seconds git may take to list a registered repository's remotes
GITLAB_PUSHES = ("Push Hook", "Tag Push Hook")  # X-Gitlab-Event of a push; a system hook's says it in its body
GITLAB_SYSTEM_PUSHES = ("push", "tag_push", "repository_update")

log = get_logger("recalld.webhooks")


def github_signature_ok(secret: str, body: bytes, header: str | None) -> bool:
    if not secret or not header or not header.startswith("sha256="):
        return False
    expected = "sha256=" + hmac.new(secret.encode("utf-8"), body, hashlib.sha256).hexdigest()
    # as bytes: compare_digest refuses a str with a character past ASCII (a 500 on such a header)
    return hmac.compare_digest(expected.encode("ascii"), header.encode("utf-8", "replace"))


def token_ok(expected: str, given: str | None) -> bool:
    if not expected or given is None:
        return False
    return hmac.compare_digest(expected.encode("utf-8"), given.encode("utf-8"))


def normalise_url(url: str) -> str:
    """git@host:owner/repo.git, https://host/owner/repo, ssh://git@host/owner/repo → host/owner/repo"""
    text = url.strip().lower()
    text = re.sub(r"^[a-z+]+://", "", text)
    text = re.sub(r"^[^@/]+@", "", text)
    text = text.replace(":", "/", 1) if re.match(r"^[^/]+:[^/0-9]", text) else text
    text = re.sub(r":\d+/", "/", text)
    return text.removesuffix("/").removesuffix(".git")


@dataclass(frozen=True, slots=True)
class PushInfo:
    urls: tuple[str, ...]
    name: str | None
    ref: str | None
    commit: str | None


def github_push(payload: dict[str, Any]) -> PushInfo:
    repository = _object(payload, "repository")
    urls = _urls(repository, ("clone_url", "ssh_url", "html_url", "git_url"), "repository")
    return PushInfo(urls, _text(repository, "name", "repository"), _text(payload, "ref"), _text(payload, "after"))


def gitlab_push(payload: dict[str, Any]) -> PushInfo:
    key = "project" if payload.get("project") else "repository"
    project = _object(payload, key)
    urls = _urls(project, ("git_http_url", "git_ssh_url", "web_url", "url", "homepage"), key)
    commit = _text(payload, "checkout_sha") or _text(payload, "after")
    return PushInfo(urls, _text(project, "name", key), _text(payload, "ref"), commit)


GENERIC_KEYS = ("repo", "ref", "commit")


def generic_push(payload: dict[str, Any]) -> PushInfo:
    """The generic webhook's body: ``GENERIC_KEYS`` and no other (a misspelt ``sha`` or
    ``branch`` was dropped without a word, and the push taken for one of no ref)."""
    repo = payload.get("repo")
    if not isinstance(repo, str) or not repo:
        raise ValueError("body must name the repo: {\"repo\": NAME or remote URL, \"ref\"?, \"commit\"?}")
    if unknown := sorted(set(payload).difference(GENERIC_KEYS)):
        raise ValueError(f"body's {', '.join(map(repr, unknown))}: no such key (it takes {', '.join(GENERIC_KEYS)})")
    url = (repo,) if "/" in repo or ":" in repo else ()
    return PushInfo(url, None if url else repo, _text(payload, "ref"), _text(payload, "commit"))


# A payload's fields of the wrong type (a signed body a proxy or a script mangled) are a
# 400 that names the field, where ``.get`` on a list was a 500.
def _object(payload: dict[str, Any], key: str) -> dict[str, Any]:
    value = payload.get(key)
    if value in (None, ""):
        return {}
    if not isinstance(value, dict):
        raise ValueError(f"body's {key} must be a JSON object")
    return value


def _text(payload: dict[str, Any], key: str, within: str = "") -> str | None:
    value = payload.get(key)
    if value in (None, ""):
        return None
    if not isinstance(value, str):
        raise ValueError(f"body's {f'{within}.' if within else ''}{key} must be a string")
    return value


def _urls(holder: dict[str, Any], keys: tuple[str, ...], within: str) -> tuple[str, ...]:
    return tuple(url for key in keys if (url := _text(holder, key, within)) is not None)


def gitlab_is_push(event: str | None, payload: dict[str, Any]) -> bool:
    """Whether a GitLab webhook tells of a push: its ``X-Gitlab-Event`` (none: taken for
    one), or a system hook's ``event_name``. An issue's, a merge request's or a pipeline's
    hook names the project too, and was taken for a push of it (a fetch and a sync each)."""
    if event is None or event in GITLAB_PUSHES:
        return True
    return event == "System Hook" and payload.get("event_name", payload.get("object_kind")) in GITLAB_SYSTEM_PUSHES


def remote_urls(repo_path: str) -> dict[str, list[str]]:
    """remote name → URLs of a registered repository (read by git, never from the payload):
    each as git fetches from it, after ``url.<base>.insteadOf`` rewriting (``git remote -v``),
    and as configured (``remote.<name>.url``). A push names the URL the repository was
    cloned from; one whose remote a user's ``insteadOf`` sends to a mirror matched none.
    A repository whose remotes git does not list within ``REMOTES_TIMEOUT`` (its config
    includes a file on a mount that hangs) has none here: it matches no push, and the
    others are still matched (the timeout was a 500 for every webhook)."""
    listed = _git_output(repo_path, "remote", "-v")
    configured = _git_output(repo_path, "config", "-z", "--get-regexp", r"^remote\..+\.url$") if listed else None
    pairs = [tuple(line.split()[:2]) for line in (listed or "").splitlines()]
    for entry in (configured or "").split("\0"):
        key, _, url = entry.partition("\n")  # remote.<name>.url, the name as written (it may hold dots)
        pairs.append((key.removeprefix("remote.").removesuffix(".url"), url))
    remotes: dict[str, list[str]] = {}
    for name, url in (pair for pair in pairs if len(pair) == 2 and pair[1]):
        if url not in remotes.setdefault(name, []):
            remotes[name].append(url)
    return remotes


def _git_output(repo_path: str, *args: str) -> str | None:
    """What git prints, or None when it did not answer within ``REMOTES_TIMEOUT``."""
    try:
        done = subprocess.run(
            ["git", "-C", repo_path, *args], capture_output=True, text=True, check=False,
            timeout=REMOTES_TIMEOUT, stdin=subprocess.DEVNULL, env=git_env(),
        )  # fmt: skip
    except subprocess.TimeoutExpired:
        log.warning("git did not list the remotes of a registered repository", path=repo_path, seconds=REMOTES_TIMEOUT)
        return None
    return done.stdout


def match_repos(push: PushInfo, registered: Iterable[tuple[str, str]]) -> list[tuple[str, str | None]]:
    """(repo name, remote to fetch) of every registered repo the push is for."""
    wanted = {normalise_url(u) for u in push.urls}
    found: list[tuple[str, str | None]] = []
    for name, path in registered:
        known = remote_urls(path).items()
        remote = next((r for r, urls in known if any(normalise_url(u) in wanted for u in urls)), None)
        if remote is not None:
            found.append((name, remote))
        elif push.name is not None and push.name == name and not wanted:
            found.append((name, None))
    return found


def ignored_because(push: PushInfo, branch: str) -> str | None:
    """Why ``push`` cannot move ``branch``, the branch a registration follows (``main``, or
    a remote's: ``origin/main``), or None when it may. A tag moves no branch; a branch moves
    one of its name, local or a remote's (``main``, ``origin/main``, ``upstream/main``). A
    push whose ref says too little to tell (none, or not a tag's or a branch's full ref:
    ``main``, ``refs/pull/7/head``, which a refspec may fetch into a followed branch) may.
    A deletion is a push too: of the followed branch, its sync reports the branch gone."""
    ref = push.ref
    if ref is None or not ref.startswith(("refs/heads/", "refs/tags/")):
        return None
    pushed = ref.removeprefix("refs/heads/")
    if pushed != ref and (branch == pushed or branch.endswith("/" + pushed)):
        return None
    what = "deletion" if push.commit is not None and not push.commit.strip("0") else "push"
    return f"{what} of {ref}: the repository follows {branch}"


def fetch(repo_path: str, remote: str) -> None:
    """Fetch the configured remote with its own refspecs (a mirror updates its branches)."""
    try:
        done = subprocess.run(
            ["git", "-C", repo_path, "fetch", "--quiet", "--prune", remote],
            capture_output=True, text=True, timeout=FETCH_TIMEOUT, check=False,
            env=git_env(),
        )  # fmt: skip
    except subprocess.TimeoutExpired as exc:
        raise RecalldError(f"git fetch {remote} timed out after {FETCH_TIMEOUT} s") from exc
    if done.returncode != 0:
        raise RecalldError(f"git fetch {remote} failed: {done.stderr.strip()[:300]}")


def fetch_claimed(journal: Journal, claim: Claim, repo_path: str) -> str | None:
    """Fetch each remote the claim's webhook events ask for. A fetch that fails holds up
    no sync (the repository's own commits are synced: a remote gone had blocked every
    later sync of it): its events are deferred, to be fetched again later, up to
    ``FETCH_TRIES`` tries in all. What failed, or None."""
    asked: dict[str, list[tuple[int, dict[str, Any]]]] = {}
    for event_id, event in zip(claim.ids, claim.events, strict=True):
        if event.detail.get("fetch"):
            asked.setdefault(str(event.detail["fetch"]), []).append((event_id, event.detail))
    failed = []
    for remote, events in asked.items():
        try:
            fetch(repo_path, remote)
        except RecalldError as exc:
            tries = 1 + max(int(detail.get("tries") or 0) for _, detail in events)
            if tries >= FETCH_TRIES:
                failed.append(f"{exc.message} (given up after {tries} tries; the next push's webhook fetches again)")
                continue
            wait = min(FETCH_BACKOFF_MAX, FETCH_BACKOFF * 2 ** (tries - 1))
            details = [{**detail, "tries": tries} for _, detail in events]
            journal.defer([i for i, _ in events], details, time.time() + wait)
            failed.append(f"{exc.message} (try {tries} of {FETCH_TRIES}; again in {wait:.0f} s)")
    return "; ".join(failed) or None
