"""Real grammars' contract: every built-in language's fixture yields exactly its listing; bad
input never raises and keeps what parses; unknown languages, extensions registered as built-ins,
several threads at once, and a parse given up past its deadline."""

from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from recalld.parsers import LANGUAGES, LanguageSpec, UnknownLanguageError, language_for_path, parse, register_language

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "parsers"
SOURCES = sorted(p for p in FIXTURES.iterdir() if not p.name.endswith(".json"))


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: p.name)
def test_fixture_yields_exactly_its_listing(path: Path):
    expected = json.loads(Path(f"{path}.expected.json").read_text())
    result = parse(language_for_path(path.name), path.read_bytes())
    module, *symbols = result.symbols
    assert result.syntax_errors == 0
    assert (module.kind, module.qualname, module.docstring) == ("module", "<module>", expected["module_docstring"])
    got = [
        {"kind": s.kind, "qualname": s.qualname, "lines": [s.start_line, s.end_line], "signature": s.signature,
         "docstring": s.docstring}  # fmt: skip
        for s in symbols
    ]
    assert got == expected["symbols"]


def test_every_builtin_language_has_a_fixture():
    tree_sitter = {name for name, spec in LANGUAGES.items() if spec.extractor == "treesitter"}
    assert {language_for_path(p.name) for p in SOURCES} == tree_sitter


@pytest.mark.parametrize(
    ("language", "data"),
    [
        ("python", b"def ok():\n    pass\n\ndef broken(:\n"),
        ("python", b"\xff\xfe\x00\x00def x(): pass\n"),
        ("javascript", b"function f( {\n"),
        ("go", b"package x\nfunc (\n"),
        ("rust", b"fn f( {\n"),
        ("java", b"class A { void m( }\n"),
        ("typescript", b"\x00\x00\x00"),
        ("tsx", b"export const A = () => <div>;\n"),
        ("go", b"//go:build linux\n\n" * 3000 + b"package x\n"),  # thousands of header blocks passed over
        ("bash", b"f() {\n  case $1 in\n?*' '?*) ;;\n"),  # a pattern the scanner reads to the end
        ("bash", b"#!/bin/sh\n" + b"x=$((" * 2000 + b"\n"),
        ("lua", b"function M.f(\n--[==[ unclosed\n"),
        ("lua", b"local t = " + b"{" * 5000 + b"\n"),
    ],
)
def test_bad_input_never_raises(language: str, data: bytes):
    result = parse(language, data)
    assert result.symbols[0].kind == "module"
    assert result.syntax_errors >= 0


def test_syntax_errors_keep_what_parses():
    result = parse("python", b"def good():\n    return 1\n\ndef bad(:\n    pass\n\nclass After:\n    pass\n")
    assert result.syntax_errors >= 1
    assert {"good", "After"} <= {s.qualname for s in result.symbols}


def test_empty_and_huge_files():
    (module,) = parse("python", b"").symbols
    assert (module.start_line, module.end_line) == (1, 1)
    huge = b"".join(b"def f%d(x):\n    return x\n\n" % i for i in range(40_000))
    assert len(huge) > 1_000_000
    assert len(parse("python", huge).symbols) == 40_001


def test_unknown_language_and_extensions():
    with pytest.raises(UnknownLanguageError):
        parse("cobol", b"")
    assert language_for_path("a/b.PY") == "python"
    assert language_for_path("x.tsx") == "tsx" and language_for_path("x.mts") == "typescript"
    assert language_for_path("x.cjs") == "javascript" and language_for_path("Main.java") == "java"
    assert language_for_path("Makefile") is None and language_for_path("README.md") is None


def test_an_extension_registers_like_a_builtin():
    spec = LanguageSpec("python-stub", (".pyx-test",), "tree_sitter_python", query_file="python.scm",
                        docstrings="strings")  # fmt: skip
    register_language(spec)
    try:
        assert language_for_path("m.pyx-test") == "python-stub"
        assert [s.qualname for s in parse("python-stub", b"def f():\n    pass\n").symbols] == ["<module>", "f"]
    finally:
        LANGUAGES.pop("python-stub")


def test_parsing_from_threads_gives_identical_results():
    inputs = [(language_for_path(p.name), p.read_bytes()) for p in SOURCES] * 8
    expected = [parse(lang, data) for lang, data in inputs]
    with ThreadPoolExecutor(max_workers=4) as pool:
        got = list(pool.map(lambda item: parse(*item), inputs))
    assert got == expected


def test_a_parse_past_its_deadline_is_given_up_and_the_parser_reads_on():
    """``parse`` raises ParseTimeout for a file whose parse runs past ``seconds`` (a
    deadline already passed here); a file under ``WATCHED_BYTES`` is parsed without the
    clock; the thread's parser, stopped mid-parse, reads the next file whole."""
    from recalld.parsers import ParseTimeout
    from recalld.parsers.treesitter import WATCHED_BYTES

    big = "".join(f"def f{n}(x):\n    return x + {n}\n\n\n" for n in range(1000)).encode()
    assert len(big) > WATCHED_BYTES
    with pytest.raises(ParseTimeout, match="gave up parsing"):
        parse("python", big, seconds=0)
    small = parse("python", b"def small():\n    pass\n", seconds=0)
    assert [s.qualname for s in small.symbols] == ["<module>", "small"]
    names = [s.qualname for s in parse("python", big).symbols]
    assert names == ["<module>"] + [f"f{n}" for n in range(1000)]
