"""structlog set up once: JSON lines when stderr is not a terminal, readable otherwise.

structlog is imported on the first ``get_logger`` call, not by ``configure_logging``:
CLI commands that only talk to the daemon never log and start faster without it.
"""

from __future__ import annotations

import logging
import sys
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import structlog

_pending: dict[str, str] | None = None  # settings not applied yet


def configure_logging(*, level: str = "info", fmt: str = "auto") -> None:
    global _pending
    _pending = {"level": level, "fmt": fmt}
    if "structlog" in sys.modules:
        _apply()


def get_logger(name: str) -> structlog.typing.FilteringBoundLogger:
    import structlog

    _apply()
    logger: Any = structlog.get_logger(name)
    return logger


def _apply() -> None:
    global _pending
    if _pending is None:
        return
    import structlog

    level, fmt = _pending["level"], _pending["fmt"]
    _pending = None
    as_json = fmt == "json" or (fmt == "auto" and not sys.stderr.isatty())
    renderer: structlog.typing.Processor = (
        structlog.processors.JSONRenderer() if as_json else structlog.dev.ConsoleRenderer(colors=False)
    )
    structlog.configure(
        processors=[
            structlog.contextvars.merge_contextvars,
            structlog.processors.add_log_level,
            structlog.processors.TimeStamper(fmt="iso", utc=True),
            structlog.processors.format_exc_info,
            renderer,
        ],
        wrapper_class=structlog.make_filtering_bound_logger(getattr(logging, level.upper())),
        logger_factory=structlog.PrintLoggerFactory(file=sys.stderr),
        cache_logger_on_first_use=False,
    )
