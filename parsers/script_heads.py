"""The language a script whose name has no extension is written in, as its opening lines
name it: an editor's mode, its ``#!`` line's interpreter, the interpreter it runs itself
with again (``parsers.registry`` holds which interpreters each language's scripts name)."""

from __future__ import annotations

import posixpath
import re

from recalld.parsers.mode_lines import MODE_LINE_BYTES, MODE_LINE_ROWS
from recalld.parsers.registry import interpreted_language

# An interpreter's name and the version it may be named with: ``python3.11``, ``lua5.1``, ``luajit-2.1``.
_VERSIONED = re.compile(rb"([a-z][a-z_-]*?)-?[0-9.]*")
HEAD_BYTES = 512  # of a script: its ``#!`` line, an editor's mode and a restart are read within them
SCRIPT_LINES = 6  # of them
# An editor's mode on a script's first lines: Emacs' (``-*- mode: sh; … -*-``, ``-*- tcl -*-``;
# not ``-*- coding: utf-8 -*-``: ``parsers.mode_lines``) and Vim's (``vim: set ft=python :``).
_VIM = re.compile(rb"\b(?:vim?|ex):.*?\b(?:ft|filetype)=([\w+-]+)")
# A shell script's line that runs it again with another interpreter: ``exec wish "$0" -- "$@"``.
_RESTART = re.compile(rb'[ \t]*exec[ \t]+([^\s$"\']+)[^\n]*\$0')
# Editors' names for a language that are no interpreter's
# (libstdc++'s and libc++'s headers have no extension: ``// <vector> -*- C++ -*-``).
EDITOR_MODES = {b"shell-script": "bash", b"js": "javascript", b"js2": "javascript", b"javascript": "javascript",
                b"typescript": "typescript", b"rjsx": "javascript", b"c++": "cpp", b"c": "c",
                b"objc": "objc"}  # fmt: skip


def may_be_script(path: str) -> bool:
    """Whether ``path`` is of no language by its name but may be by its opening lines: a
    file whose name has no extension (``bin/rails``, ``git-sh-setup``, ``gradlew``)."""
    return not posixpath.splitext(path)[1]


def interpreter_language(head: bytes) -> str | None:
    """The language a script's opening lines name, or None: an editor's mode in its first
    two lines (``# -*- mode: python -*-``, ``-*- shell-script -*-``, ``# vim: ft=sh``) over
    all, else its ``#!`` line's interpreter (``#!/bin/sh -e``, ``#! /usr/bin/python3.11``,
    ``#!/usr/bin/env -S node --no-warnings``), else where that is a shell the interpreter
    it runs itself with again (``#!/bin/sh`` then ``exec scala "$0" "$@"``; Tcl's ``#!/bin/sh``,
    a comment ending in a backslash, then ``exec tclsh "$0"``: no language read)."""
    lines = head[:HEAD_BYTES].split(b"\n", SCRIPT_LINES)[:SCRIPT_LINES]
    for line in lines[:MODE_LINE_ROWS]:
        mode = _editor_mode(line)
        if mode is not None:
            return EDITOR_MODES.get(mode) or _interpreter(mode)
    if not head.startswith(b"#!"):
        return None
    command = _command(lines[0][2:].split())
    language = _interpreter(command) if command is not None else None
    if language != "bash":
        return language
    for line, after in zip(lines, lines[1:], strict=False):
        restart = _RESTART.match(after)
        if restart is not None and (line.rstrip().endswith(b"\\") or _interpreter(restart.group(1))):
            return _interpreter(restart.group(1))  # the lines after are the other interpreter's
    return language


def _editor_mode(line: bytes) -> bytes | None:
    """The mode an Emacs ``-*- … -*-`` line (``-*- tcl -*-``, ``-*- mode: sh; … -*-``, not
    ``-*- coding: utf-8 -*-``) or a Vim modeline names, lowercase."""
    emacs = MODE_LINE_BYTES.search(line)
    if emacs is not None:
        settings = emacs.group(1).strip()
        if b":" not in settings:
            return settings.lower() or None
        for setting in settings.split(b";"):
            name, _colon, value = setting.partition(b":")
            if name.strip().lower() == b"mode" and value.strip():
                return value.strip().lower()
    vim = _VIM.search(line)
    return vim.group(1).lower() if vim is not None else None


def _command(words: list[bytes]) -> bytes | None:
    """The interpreter a ``#!`` line runs: its first word, or the command ``env`` runs,
    past its options and the variables it sets."""
    if words and posixpath.basename(words[0]) == b"env":
        words = [word for word in words[1:] if not word.startswith(b"-") and b"=" not in word]
    return words[0] if words else None


def _interpreter(word: bytes) -> str | None:
    """The language of the interpreter ``word`` names or is the path of, any version taken
    off (``/usr/bin/python3.11``, ``luajit-2.1``)."""
    named = _VERSIONED.fullmatch(posixpath.basename(word))
    return interpreted_language(named.group(1).decode()) if named else None
