"""An editor's file variables on a file's first lines, as Emacs reads them: ``-*- … -*-``
holding a mode's name alone (``-*- C++ -*-``, ``-*-shell-script-*-``) or ``var: value``
pairs (``-*- mode: sh; tab-width: 4 -*-``, ``-*- coding: utf-8 -*-``), on the first line
or the second. Text that only looks like one is none: a format pattern in a Javadoc
(``-*-%d-*-`` numbering log files), a line far down the file."""

from __future__ import annotations

import re

MODE_LINE_ROWS = 2  # Emacs reads the first line, the second after a ``#!`` line
_NAME = r"[\w+.-]+"  # a mode's name: ``c++``, ``shell-script``, ``js2``
_VARIABLE = r"[\w-]+[ \t]*:[^;\n]*?"  # a variable and its value: ``tab-width: 4``
_SETTINGS = rf"[ \t]*({_NAME}|{_VARIABLE}(?:;[ \t]*{_VARIABLE})*;?)[ \t]*"
MODE_LINE = re.compile(rf"-\*-{_SETTINGS}-\*-")
MODE_LINE_BYTES = re.compile(MODE_LINE.pattern.encode())


def is_mode_line(line: str, row: int) -> bool:
    """Whether ``line``, on the file's ``row`` (0 its first), holds an editor's file variables."""
    return row < MODE_LINE_ROWS and MODE_LINE.search(line) is not None
