"""A symbol asked for as an agent copies it from elsewhere, read as recalld names it: a
Python import path or a traceback's (``requests.sessions.Session``, ``flask.Flask``: a
module's dotted path, then the qualname within it) and a call (``Session.request()``);
and the other symbols of a plain name, which its answer names (``also_named``)."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import replace

from recalld.ingest.store import MemoryFilter, StoredPoint

# A file's stem that stands for its directory, the package (``pkg/__init__.py`` is ``pkg``).
PACKAGE_STEMS = ("__init__",)
ALSO_NAMED = 5  # other symbols of a plain name a symbol's answer names
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


def read_in_module(
    found: Callable[..., Iterator[StoredPoint]], base: MemoryFilter, qualname: str
) -> tuple[list[StoredPoint], str] | None:
    """The symbols ``qualname`` names as an agent copies it from a call (``Session.request()``)
    or an import path (``requests.sessions.Session``: ``Session`` of a module at
    ``requests/sessions``, or within package ``requests``), with how it was read; None."""
    if (bare := uncalled(qualname)) is not None:
        points = list(found(replace(base, qualnames=(bare,))))
        return (points, repr(bare)) if points else None
    for module, rest in module_readings(qualname):
        points = [p for p in found(replace(base, qualnames=(rest,))) if in_module(str(p.payload.get("path")), module)]
        if points:
            return points, f"{rest!r} of module {module.replace('/', '.')}"
    return None


def also_named(
    found: Callable[..., Iterator[StoredPoint]], base: MemoryFilter, name: str, given: list[StoredPoint]
) -> list[str]:
    """A note naming the other symbols of the plain ``name`` (``request`` found
    ``api.request`` by its qualname, and ``Session.request`` has that name too)."""
    ids = {p.id for p in given}
    others = [p for p in found(replace(base, names=(name,)), ("qualname", "path")) if p.id not in ids]
    if not others:
        return []
    listed = ", ".join(f"{p.payload.get('qualname')} ({p.payload.get('path')})" for p in others[:ALSO_NAMED])
    more = f" and {len(others) - ALSO_NAMED} more" if len(others) > ALSO_NAMED else ""
    return [f"also named {name!r}: {listed}{more} (ask with the qualified name)"]
