"""A symbol asked for as an agent copies it from elsewhere, read as recalld names it: a
Python import path or a traceback's (``requests.sessions.Session``, ``flask.Flask``: a
module's dotted path, then the qualname within it) and a call (``Session.request()``)."""

from __future__ import annotations

import re

# A file's stem that stands for its directory, the package (``pkg/__init__.py`` is ``pkg``).
PACKAGE_STEMS = ("__init__",)
_CALLED = re.compile(r"\(\s*\)$")  # ``Session.request()``: a call of the symbol, not an overload's types


def uncalled(qualname: str) -> str | None:
    """``qualname`` without the empty call it is written with (``Session.request()``), or None."""
    bare = _CALLED.sub("", qualname)
    return bare if bare != qualname and bare else None


def module_readings(qualname: str) -> list[tuple[str, str]]:
    """Each way to read a dotted ``qualname`` as a module's path and a qualname within it,
    the longest module first: ``requests.sessions.Session`` is ``Session`` of module
    ``requests/sessions``, then ``sessions.Session`` of ``requests``."""
    parts = qualname.split(".")
    if len(parts) < 2 or not all(part.isidentifier() for part in parts):
        return []
    return [("/".join(parts[:k]), ".".join(parts[k:])) for k in range(len(parts) - 1, 0, -1)]


def in_module(path: str, module: str) -> bool:
    """Whether the file at ``path`` is module ``module`` (a path of names: ``requests/sessions``)
    or within its package: ``src/requests/sessions.py``, ``flask/__init__.py`` and
    ``src/flask/app.py`` (what a package exports is mostly defined in its modules) are."""
    stem = path.rsplit(".", 1)[0] if "." in path.rsplit("/", 1)[-1] else path
    directory, _, name = stem.rpartition("/")
    if name in PACKAGE_STEMS:
        stem = directory
    padded = f"/{stem}/"
    return padded.endswith(f"/{module}/") or f"/{module}/" in f"/{directory}/"
