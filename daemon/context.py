"""What a command runs with: the configuration, and the app, the registry or the running
daemon's client, each opened only when used (the client path stays light)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from typing import Any

from recalld.daemon.config import Config
from recalld.daemon.terminal import one_line
from recalld.ingest.errors import DaemonStartedError

# Seconds a command waits for a daemon busy building its vector index (100k memories:
# ~2 min on 2 cores) before giving up with an error.
BUSY_WAIT = 600.0


def run_command(config: Config, handler: Callable[[Context, argparse.Namespace], int], args: argparse.Namespace) -> int:
    """``handler``'s exit code. A daemon that took the store after the command looked for
    one (started in between) is asked instead, by the command run again, where it has
    printed nothing yet: the command failed, to be run again by hand (a hook's, a script's
    command run just after ``recalld serve &``)."""
    try:
        return _once(config, handler, args)
    except DaemonStartedError:
        if getattr(sys.stdout, "written", True):
            raise
        return _once(config, handler, args)


def _once(config: Config, handler: Callable[[Context, argparse.Namespace], int], args: argparse.Namespace) -> int:
    ctx = Context(config)
    try:
        return handler(ctx, args)
    finally:
        ctx.close()


def _notice(message: str) -> None:
    """A line for the person at the command: work they wait for that logs nothing by default."""
    print(f"recalld: {one_line(message)}", file=sys.stderr, flush=True)


class Context:
    """What a command needs, opened only when used: the client path stays light."""

    def __init__(self, config: Config) -> None:
        self.config = config
        self._app: Any = None
        self._registry: Any = None

    @property
    def app(self) -> Any:
        if self._app is None:
            from recalld.daemon.app import App

            self._app = App(self.config, notice=_notice)
        return self._app

    @property
    def registry(self) -> Any:
        """The registered repositories, read without the app (its store, its model and
        the sync's modules: ~0.45 s of imports a command through the daemon does without)."""
        if self._app is not None:
            return self._app.registry
        if self._registry is None:
            from recalld.daemon.registry import RepoRegistry

            self._registry = RepoRegistry(self.config.state_db)
        return self._registry

    def daemon(self) -> Any:
        """A client of the running daemon that owns the store, or None. A request it
        refuses while its store is busy is made again for up to BUSY_WAIT seconds, which
        stderr is told."""
        from recalld.daemon.client import DaemonClient

        return DaemonClient.discover(self.config.runtime_file, self.config.token_file, wait=BUSY_WAIT, notice=_notice)

    def close(self) -> None:
        if self._registry is not None:
            self._registry.close()
        if self._app is not None:
            self._app.close()
