"""Expected failures: one exception type with a human message and an exit code."""

from __future__ import annotations


class RecalldError(Exception):
    """An expected failure (bad config, unknown repo, locked store...).

    The CLI prints ``message`` on one line and exits with ``exit_code``.
    """

    def __init__(self, message: str, *, exit_code: int = 1) -> None:
        super().__init__(message)
        self.message = message
        self.exit_code = exit_code


class NotFoundError(RecalldError):
    """An expected failure naming something that does not exist (HTTP: 404)."""


class BusyError(RecalldError):
    """An expected failure for now: the store is taken by work that lasts (building its
    vector index), and the call is better made again afterwards (HTTP: 503)."""


class StoreServerError(RecalldError):
    """The Qdrant server did not answer, or refused a call (HTTP: 502, the daemon being
    the gateway to it)."""


class StoreUnansweredError(StoreServerError):
    """The Qdrant server did not answer at all (down, unreachable, timed out), as against
    an answer that refuses (a wrong API key): what a starting daemon waits out."""


class AmbiguousRevisionError(RecalldError):
    """A short commit id that begins the ids of several commits: which one is meant is
    not known (HTTP: 400)."""


class DaemonStartedError(RecalldError):
    """The store is held by a daemon that started after the command looked for one: the
    command asks it when run again."""


class MissingBlobError(RecalldError):
    """A blob the repository's object database lacks: a partial clone's
    (``--filter=blob:none``) that git could not fetch, or one a rewritten history let
    git's garbage collection remove."""

    def __init__(self, message: str, blob_id: str) -> None:
        super().__init__(message)
        self.blob_id = blob_id
