"""Paths as people, agents and globs write them, read against a repository: whether a
place lies under a work tree (as written or with symbolic links resolved), and the
directory a glob's files are found under. No store, no git library: the CLI's client
path reads them too (``here``).
"""

from __future__ import annotations

import os
import re

WILDCARD = re.compile(r"[*?\[]")  # a glob's first wildcard


def within(root: str, place: str) -> tuple[str, str] | None:
    """Where ``place`` lies under ``root``, either as written or with symbolic links
    resolved (``root``'s first, then ``place``'s): the rest of ``place`` after the top
    ("" at the top itself) and that top; None where it lies elsewhere."""
    for top in dict.fromkeys((root, os.path.realpath(root))):
        top = top.rstrip("/")
        for where in dict.fromkeys((place, os.path.realpath(place))):
            if where.rstrip("/") == top:
                return "", top or "/"
            if where.startswith(top + "/"):
                return where[len(top) + 1 :], top or "/"
    return None


def literal_dir(glob: str | None) -> str | None:
    """The longest directory prefix of a glob without wildcards ("src/a" for "src/a/*.py")."""
    if not glob:
        return None
    parts = glob.strip("/").split("/")
    literal: list[str] = []
    for part in parts[:-1]:
        if WILDCARD.search(part) or part == "**":
            break
        literal.append(part)
    return "/".join(literal) or None


def walked_dir(pattern: str) -> str:
    """Where the files of ``pattern`` are found: a glob's ``literal_dir`` ("" for
    ``**/a.py``), else the path itself (a file, or a directory of them)."""
    return (literal_dir(pattern) or "") if WILDCARD.search(pattern) else pattern.strip("/")
