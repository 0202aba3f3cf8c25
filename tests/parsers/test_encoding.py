"""Python files that declare another encoding (PEP 263) are read as they declare."""

from __future__ import annotations

import pytest

from recalld.parsers import parse
from recalld.parsers.encoding import as_utf8, declared_encoding

BODY = "def na\xefve():\n    '''R\xe9sum\xe9 \u201cquoted\u201d.'''\n    return '\xe9'\n"


def functions(data: bytes) -> list[tuple[str, str, int, int]]:
    symbols = parse("python", data).symbols
    return [(s.qualname, s.docstring, s.start_line, s.end_line) for s in symbols if s.kind == "function"]


@pytest.mark.parametrize(
    "head",
    [
        "# -*- coding: cp1252 -*-\n",
        "#!/usr/bin/env python\n# vim: set fileencoding=cp1252 :\n",
        "\n# coding=windows-1252\n",
    ],
)
def test_declared_encoding_is_read(head: str) -> None:
    data = (head + BODY).encode("cp1252")
    first = head.count("\n") + 1
    assert functions(data) == [("na\xefve", "R\xe9sum\xe9 \u201cquoted\u201d.", first, first + 2)]
    assert not parse("python", data).undecodable


@pytest.mark.parametrize(
    "head",
    [
        "x = 1\n# coding: latin-1\n",  # line 2 below code: no declaration
        "# coding: no-such-codec\n",
        "# coding: hex\n",  # a codec, but no text encoding
        "# coding: utf-8\n",  # declares what it is not
        "# coding: utf-16\n",  # would move the line breaks
    ],
)
def test_no_usable_declaration_reads_utf8_with_replacements(head: str) -> None:
    data = head.encode("ascii") + BODY.encode("cp1252")
    assert parse("python", data).undecodable
    assert "na\xefve" not in [name for name, *_ in functions(data)]  # bytes as before: no guess


def test_utf8_is_read_as_utf8_whatever_it_declares() -> None:
    data = ("# -*- coding: latin-1 -*-\n" + BODY).encode("utf-8")
    assert as_utf8(data, declares=True) == (data, True)
    assert functions(data)[0][:2] == ("na\xefve", "R\xe9sum\xe9 \u201cquoted\u201d.")


def test_only_languages_that_declare_are_transcoded() -> None:
    data = "// coding: latin-1\nfunction caf\xe9() {}\n".encode("latin-1")
    assert as_utf8(data, declares=False) == ("// coding: latin-1\nfunction caf\ufffd() {}\n".encode(), False)
    assert parse("javascript", data).undecodable


@pytest.mark.parametrize("language", ["javascript", "typescript", "tsx"])
def test_bytes_that_do_not_decode_are_parsed_as_replacements_and_never_raise(language: str) -> None:
    """Tree-sitter was given them as they were: a query's predicate on a node holding one
    read its text strictly as UTF-8 and raised (``({\xd1}(function(){})``, found by
    mutating real files: a sync failed on the file at every retry), and a name was cut at
    one (``Se\xf1or.hablar`` read as ``or.hablar``)."""
    assert parse(language, b"({\xd1}(function(){})\n").undecodable
    data = "Se\xf1or.hablar = function () {};\nvar x = 1;\n".encode("latin-1")
    result = parse(language, data)
    assert [(s.qualname, s.start_line, s.end_line) for s in result.symbols if s.kind != "module"] == [
        ("Se\ufffdor.hablar", 1, 1)
    ]


def test_declaration_names() -> None:
    assert declared_encoding(b"# -*- coding: Latin-1 -*-\n") == "iso8859-1"
    assert declared_encoding(b"\xef\xbb\xbf# coding: cp1252\n") is None  # a BOM says UTF-8
    assert declared_encoding(b"#!/bin/python\n#coding:euc-jp\n") == "euc_jp"
    assert declared_encoding(b"import os\n# coding: latin-1\n") is None
    assert declared_encoding(b"#!/bin/python\n\n# coding: latin-1\n") is None  # line 3
