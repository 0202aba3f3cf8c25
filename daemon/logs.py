"""structlog set up once: JSON lines when stderr is not a terminal, readable otherwise;
the libraries' own stdlib logging (uvicorn, watchdog, apscheduler) in the same form."""

from __future__ import annotations

import logging
import sys
from typing import TYPE_CHECKING, Any, cast

from recalld.daemon.terminal import visible

if TYPE_CHECKING:
    import structlog


# What a deferred ``configure_logging`` was asked, applied when a logger first logs
_pending: tuple[str, str] | None = None


def configure_logging(*, level: str = "info", fmt: str = "auto", deferred: bool = False) -> None:
    """structlog (and the libraries' stdlib logging) set to ``level`` in ``fmt``; when
    ``deferred``, at a logger's first use (``_Deferred``), if structlog is not imported yet:
    a command that logs nothing imports none of it."""
    global _pending
    _pending = (level, fmt)
    if not deferred or "structlog" in sys.modules:
        _structlog()


def _structlog() -> Any:
    """structlog, configured as ``configure_logging`` last asked where that is not done yet."""
    import structlog

    global _pending
    if _pending is not None:
        level, fmt = _pending
        _pending = None
        _configure(level, fmt)
    return structlog


def _configure(level: str, fmt: str) -> None:
    import structlog

    as_json = fmt == "json" or (fmt == "auto" and not sys.stderr.isatty())
    renderer: structlog.typing.Processor = (
        structlog.processors.JSONRenderer() if as_json else _visible(structlog.dev.ConsoleRenderer(colors=False))
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
    _route_stdlib(renderer)


def _visible(renderer: structlog.typing.Processor) -> structlog.typing.Processor:
    """A terminal's lines with the control characters of what they name (a hostile path)
    escaped (``terminal.visible``); JSON lines escape them already."""

    def render(logger: Any, name: str, event: Any) -> Any:
        line = renderer(logger, name, event)
        return visible(line) if isinstance(line, str) else line

    return render


STDLIB_HANDLER = "recalld"  # the name of the root logger's handler set here


def _route_stdlib(renderer: structlog.typing.Processor) -> None:
    """Warnings and errors the libraries log through the standard library (uvicorn's
    "Invalid HTTP request received.", a traceback of the ASGI app), rendered as recalld's
    own lines with the logger's name: Python's last-resort handler printed their bare
    message, a line that is no JSON amid the JSON lines of a journal. Below warning they
    stay out, as before."""
    import structlog

    handler = logging.StreamHandler(sys.stderr)
    handler.set_name(STDLIB_HANDLER)
    handler.setFormatter(structlog.stdlib.ProcessorFormatter(
        foreign_pre_chain=[
            structlog.stdlib.add_log_level,
            structlog.stdlib.add_logger_name,
            structlog.processors.TimeStamper(fmt="iso", utc=True),
            structlog.processors.format_exc_info,
        ],
        processors=[structlog.stdlib.ProcessorFormatter.remove_processors_meta, renderer],
    ))  # fmt: skip
    root = logging.getLogger()
    root.handlers = [h for h in root.handlers if h.get_name() != STDLIB_HANDLER] + [handler]


def get_logger(name: str) -> structlog.typing.FilteringBoundLogger:
    """Logger ``name``, structlog imported at its first use (``_Deferred``)."""
    return cast("structlog.typing.FilteringBoundLogger", _Deferred(name))


class _Deferred:
    """A module's logger that imports structlog when it first logs: structlog imports rich
    (installed for transformers' CLI), 0.12-0.15 s of every `recalld` command's start-up,
    most of which log nothing (`recalld search` through the daemon, `repo list`, `status`).
    Without slots: a method set on it (a test's ``monkeypatch``) stands before the logger's."""

    def __init__(self, name: str) -> None:
        self._name = name
        self._logger: Any = None

    def __getattr__(self, attribute: str) -> Any:
        if self._logger is None:
            self._logger = _structlog().get_logger(self._name)
        return getattr(self._logger, attribute)
