"""A repository's blobs, read from its object database (the pygit2 repository
``gitrepo.GitRepository`` opened: this module asks it by duck type, and imports no
pygit2), and, in a partial clone (``git clone --filter=blob:none``), the blobs it lacks
fetched from its promisor remotes as git itself fetches them (``promisor-remote.c``): one
``git fetch`` of their ids, no negotiation, no refs moved. A treeless clone's
(``--filter=tree:0``) trees are fetched the same way (``fetch_trees``)."""

from __future__ import annotations

import copy
import subprocess
from collections.abc import Iterable
from typing import Any

from recalld.daemon.logs import get_logger
from recalld.ingest.errors import MissingBlobError
from recalld.ingest.gitenv import git_env

FETCH_OPTIONS = ("--no-tags", "--no-write-fetch-head", "--recurse-submodules=no", "--filter=blob:none", "--stdin")
FETCH_TIMEOUT = 600.0  # seconds: a first index of a large tree's blobs

log = get_logger("recalld.sync")


class Blobs:
    """The blobs of the repository at ``git_dir``. ``remotes``: the partial clone's promisor
    remotes (``promisor_remotes``; none in a complete repository): a blob it lacks is
    fetched from them when read, unless this is a ``local_only`` view or a fetch failed."""

    def __init__(self, repo: Any, git_dir: str, remotes: list[str]) -> None:
        self._repo, self._git_dir, self._remotes = repo, git_dir, remotes
        self.fetching = bool(remotes)
        self.partial = bool(remotes)  # a partial clone: what it lacks may be fetched (trees even by a local-only view)
        self._failure = ""  # why a fetch failed: every later one is the same error

    def local_only(self) -> Blobs:
        """These blobs, reading only those the repository holds: a partial clone's history
        (the blobs of every old commit) is not worth a fetch a blob."""
        view = copy.copy(self)
        view.fetching = False
        return view

    def holds(self, blob_id: str) -> bool:
        """Whether the object database has ``blob_id`` (a partial clone may not)."""
        return bool(self._repo.odb.exists(blob_id))

    def size(self, blob_id: str) -> int:
        try:
            _kind, size = self._repo.odb.read_header(blob_id)
        except KeyError:  # pygit2's NotFoundError
            self._fetch([blob_id])
            _kind, size = self._repo.odb.read_header(blob_id)
        return int(size)

    def read(self, blob_id: str) -> bytes:
        blob = self._repo.get(blob_id)
        if blob is None:
            self._fetch([blob_id])
            blob = self._repo.get(blob_id)
        return bytes(blob.data) if blob.type_str == "blob" else b""

    def prefetch(self, blob_ids: Iterable[str]) -> None:
        """Fetch, in one go, the blobs of ``blob_ids`` that a partial clone lacks: those a
        sync is about to read (a tree fetched but never checked out: a remote-tracking
        branch). Nothing to do in a complete repository."""
        if self.fetching:
            missing = [b for b in dict.fromkeys(blob_ids) if not self.holds(b)]
            if missing:
                self._fetch(missing)

    def fetch_trees(self, tree_ids: Iterable[str]) -> None:
        """Fetch, in one go, the trees of ``tree_ids`` that a treeless clone lacks, each with
        the trees under it (the fetch leaves out blobs only). A ``local_only`` view fetches
        them too: without its trees a commit of the history has no files to list, and
        trees are what a blobless clone holds anyway."""
        missing = [t for t in dict.fromkeys(tree_ids) if not self.holds(t)]
        if missing:
            self._fetch(missing, kind="tree")

    def _fetch(self, object_ids: list[str], *, kind: str = "blob") -> None:
        """Have git fetch ``object_ids`` (of ``kind``) from the promisor remotes;
        MissingBlobError when this repository does not (a complete one, a local-only
        view's blobs) or could not (offline, or a remote without them: once, then every
        object it lacks is missing, with the reason, for the rest of this object's life)."""
        if self.fetching or (kind == "tree" and self._remotes and not self._failure):
            fetching, self.fetching = self.fetching, False
            log.info(f"fetching {kind}s a partial clone lacks", repo=self._git_dir, objects=len(object_ids))
            for remote in self._remotes:
                self._failure = self._fetch_from(remote, object_ids)
                if not self._failure:
                    break
            lacking = next((b for b in object_ids if not self.holds(b)), None)
            if not self._failure and lacking is not None:
                self._failure = f"the remote sent no {kind} {lacking}"
            if not self._failure:
                self.fetching = fetching
                return
            log.warning(f"could not fetch {kind}s a partial clone lacks", repo=self._git_dir,
                        objects=len(object_ids), error=self._failure)  # fmt: skip
        first = object_ids[0]
        where = f"the partial clone at {self._git_dir}" if self._remotes else f"the repository at {self._git_dir}"
        failed = f", and fetching it failed: {self._failure}" if self._failure else ""
        raise MissingBlobError(f"{kind} {first} is not in {where}{failed}", first)

    def _fetch_from(self, remote: str, object_ids: list[str]) -> str:
        """"" once ``remote`` sent ``object_ids``; else why not (``fetch_error``)."""
        command = ["git", "--git-dir", self._git_dir, "-c", "fetch.negotiationAlgorithm=noop", "fetch", remote,
                   *FETCH_OPTIONS]  # fmt: skip
        try:
            done = subprocess.run(command, input="\n".join(object_ids) + "\n", capture_output=True, text=True,
                                  env=git_env(), timeout=FETCH_TIMEOUT)  # fmt: skip
        except (OSError, subprocess.TimeoutExpired) as exc:
            return str(exc)
        if done.returncode == 0:
            return ""
        return fetch_error(done.stderr) or f"git fetch exited with {done.returncode}"


def fetch_error(stderr: str) -> str:
    """What a failed ``git fetch`` says went wrong: its lines up to the advice git adds
    after a blank line ("Please make sure you have the correct access rights / and the
    repository exists.", whose last line was all a failure said), joined."""
    said = stderr.strip().split("\n\n", 1)[0]
    return "; ".join(line.strip() for line in said.splitlines() if line.strip())


def promisor_remotes(config: Iterable[tuple[str, str | None]]) -> list[str]:
    """The remotes a partial clone fetches what it lacks from, of its config's (name,
    value) entries: ``remote.<name>.promisor`` set (git 2.20+), or the one
    ``extensions.partialclone`` names (older clones)."""
    remotes: list[str] = []
    for name, value in config:
        promisor = (value or "").lower() in ("true", "yes", "on", "1")
        if name.startswith("remote.") and name.endswith(".promisor") and promisor:
            remotes.append(name[len("remote.") : -len(".promisor")])
        elif name == "extensions.partialclone" and value:
            remotes.append(value)
    return list(dict.fromkeys(remotes))
