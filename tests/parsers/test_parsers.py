"""Real grammars on per-language fixtures, on the standard library (checked against
Python's own ast), on bad input, and from several threads at once."""

from __future__ import annotations

import ast
import json
import sysconfig
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from recalld.parsers import LANGUAGES, LanguageSpec, UnknownLanguageError, language_for_path, parse, register_language
from recalld.parsers.extract import extract

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


def ast_listing(source: str) -> set[tuple[str, str, int, int]]:
    """The same rules written independently on Python's ast: classes, functions and
    methods not inside a function body; a property's setter (``@value.setter``) named
    ``value=``, its deleter (``@value.deleter``) ``del value``; a repeated qualname gets
    #2, #3 in source order and a repeated class's members are named under its suffixed name."""
    found: set[tuple[str, str, int, int]] = set()
    seen: Counter[tuple[str, str]] = Counter()

    def record(kind: str, qualname: str, node: ast.AST) -> str:
        seen[(kind, qualname)] += 1
        if seen[(kind, qualname)] > 1:
            qualname = f"{qualname}#{seen[(kind, qualname)]}"
        decorators = getattr(node, "decorator_list", [])
        start = min([node.lineno, *(d.lineno for d in decorators)])  # type: ignore[attr-defined]
        found.add((kind, qualname, start, node.end_lineno or node.lineno))  # type: ignore[attr-defined]
        return qualname

    def visit(body: list[ast.stmt], prefix: str, in_class: bool) -> None:
        for node in body:
            if isinstance(node, ast.ClassDef):
                qualname = record("class", prefix + node.name, node)
                visit(node.body, qualname + ".", True)
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                accessors = {
                    d.attr for d in node.decorator_list
                    if isinstance(d, ast.Attribute) and isinstance(d.value, ast.Name) and d.value.id == node.name
                }  # fmt: skip
                name = f"{node.name}=" if "setter" in accessors else node.name
                name = f"del {node.name}" if "deleter" in accessors else name
                record("method" if in_class else "function", prefix + name, node)
            else:
                for block in ("body", "orelse", "finalbody"):
                    inner = getattr(node, block, None)
                    if isinstance(inner, list):
                        visit(inner, prefix, in_class)
                for handler in getattr(node, "handlers", []):
                    visit(handler.body, prefix, in_class)
                for case in getattr(node, "cases", []):
                    visit(case.body, prefix, in_class)

    visit(ast.parse(source).body, "", False)
    return found


STDLIB = Path(sysconfig.get_paths()["stdlib"])
STDLIB_PACKAGES = ["json", "email", "asyncio", "logging", "unittest", "http", "importlib", "concurrent", "xml", "multiprocessing", "urllib"]


def test_python_matches_ast_on_the_standard_library():
    files = [p for pkg in STDLIB_PACKAGES for p in sorted((STDLIB / pkg).rglob("*.py"))]
    assert len(files) > 150
    compared = 0
    for path in files:
        source = path.read_bytes()
        try:
            expected = ast_listing(source.decode("utf-8"))
        except SyntaxError:
            continue
        result = parse("python", source)
        got = {(s.kind, s.qualname, s.start_line, s.end_line) for s in result.symbols if s.kind != "module"}
        assert got == expected, f"{path}: only parser {sorted(got - expected)[:5]}, only ast {sorted(expected - got)[:5]}"
        compared += len(got)
    assert compared > 5000


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


FLOW = b"""/* @flow */
import type { Component } from 'types/component'

// TODO: warn once per component
export function observe (value: any, asRootData: ?boolean): Observer | void {
  return new Observer(value)
}

export class Observer {
  value: any;
  vmCount: number;

  walk (obj: Object) {
    defineReactive(obj)
  }
}
"""


def test_flow_typed_javascript_is_read_by_the_typescript_grammar():
    """Vue 2.6, React: JavaScript with Flow's type annotations, which JavaScript's grammar
    reads with errors, losing symbols: read by TSX's, it is still JavaScript. A file that
    TSX's grammar reads no better keeps JavaScript's reading."""
    result = parse("javascript", FLOW)
    assert (result.language, result.syntax_errors) == ("javascript", 0)
    assert [s.qualname for s in result.symbols] == ["<module>", "observe", "Observer", "Observer.walk"]
    assert result.symbols[1].signature == "function observe (value: any, asRootData: ?boolean): Observer | void"
    (todo,) = result.derived
    assert "[javascript todo" in todo.source
    broken = b"function good() { return 1 }\nfunction bad( { \nfunction after() {}\n"
    parsed, extracted = parse("javascript", broken), extract(LANGUAGES["javascript"], broken)
    assert (parsed.symbols[1:], parsed.syntax_errors, parsed.language) == (
        extracted.symbols[1:], extracted.syntax_errors, extracted.language)  # its module says it was read in part
    assert parsed.syntax_errors and dict(parsed.symbols[0].extra)["read_partly"].startswith("2 syntax error(s)")


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


DOC_COMMENTS = {
    "javascript": (b"// Adds.\nfunction add(a, b) { return a + b; }\n", b"// Adds two numbers.\n", "add"),
    "typescript": (b"/** Adds. */\nexport function add(a: number): number { return a; }\n", b"/** Adds one. */\n", "add"),
    "go": (b"package m\n\n// Add adds.\nfunc Add(a int) int { return a }\n", b"// Add adds one.\n", "Add"),
    "rust": (b"/// Adds.\npub fn add(a: i32) -> i32 { a }\n", b"/// Adds one.\n", "add"),
    "java": (b"class M {\n    /** Adds. */\n    int add(int a) { return a; }\n}\n", b"    /** Adds one. */\n", "M.add"),
    "kotlin": (b"class M {\n    /** Adds. */\n    fun add(a: Int) = a\n}\n", b"    /** Adds one. */\n", "M.add"),
    "swift": (b"struct M {\n    /// Adds.\n    func add(_ a: Int) -> Int { a }\n}\n", b"    /// Adds one.\n", "M.add"),
}  # fmt: skip


@pytest.mark.parametrize("language", sorted(DOC_COMMENTS))
def test_a_reworded_doc_comment_changes_the_hash_of_the_code_below(language: str):
    """The comment lies outside the definition's node; unchanged code under a new comment
    is new content (its docstring and embedded text changed), and must hash so."""
    data, comment, qualname = DOC_COMMENTS[language]
    lines = data.splitlines(keepends=True)
    doc_line = next(i for i, line in enumerate(lines) if line.lstrip().startswith((b"//", b"/**", b"///")))
    edited = b"".join([*lines[:doc_line], comment, *lines[doc_line + 1 :]])
    before = {s.qualname: s for s in parse(language, data).symbols}[qualname]
    after = {s.qualname: s for s in parse(language, edited).symbols}[qualname]
    assert before.source == after.source and before.docstring != after.docstring
    assert before.content_hash != after.content_hash


LICENCE_HEADERS = {
    "javascript": b"/*\n MIT License http://www.opensource.org/licenses/mit-license.php\n*/\n\n/** Renders pages. */\n\nconst a = 1;\n",
    "go": b"// Copyright 2009 The Go Authors. All rights reserved.\n// license that can be found in the LICENSE file.\n\n"
    b"// Renders pages.\npackage render\n",
    "java": b"/*\n * Licensed to the Apache Software Foundation (ASF).\n */\n\n/** Renders pages. */\npackage render;\n",
    "rust": b"// SPDX-License-Identifier: MIT\n\n// Renders pages.\n\nfn a() {}\n",
    "kotlin": b"/*\n * Copyright (c) Meta Platforms, Inc. and affiliates.\n */\n\n/** Renders pages. */\npackage render\n",
    # Xcode's template: the file's name, its project, who created it and when.
    "swift": b"//\n//  Render.swift\n//  Pages\n//\n//  Created by a contributor on 20.01.26.\n//\n\n"
    b"// Renders pages.\n\nimport Foundation\n",
    "typescript": b"/* This Source Code Form is subject to the terms of the Mozilla Public\n * License, v. 2.0. */\n\n"
    b"/** Renders pages. */\n\nexport const a = 1;\n",
}  # fmt: skip


@pytest.mark.parametrize("language", sorted(LICENCE_HEADERS))
def test_a_licence_notice_is_no_module_docstring(language: str):
    """Most files start with their licence; the file's description is the block after it."""
    data = LICENCE_HEADERS[language]
    assert parse(language, data).symbols[0].docstring == "Renders pages."
    assert parse(language, data.split(b"\n\n")[0] + b"\n").symbols[0].docstring == ""  # the notice alone


def test_a_gpl_notice_and_a_public_domain_dedication_are_no_module_docstring():
    """The JDK's java.util.concurrent files: the vendor's notice, then the original
    author's, each a block of its own, before the package."""
    vendor = b"/*\n * DO NOT ALTER OR REMOVE COPYRIGHT NOTICES OR THIS FILE HEADER.\n */\n\n"
    author = (b"/*\n * This file is available under and governed by the GNU General Public\n"
              b" * License version 2 only, as published by the Free Software Foundation.\n"
              b" * Written by a team and released to the public domain, as explained at\n"
              b" * http://creativecommons.org/publicdomain/zero/1.0/\n */\n\n")  # fmt: skip
    assert parse("java", vendor + author + b"package render;\n").symbols[0].docstring == ""
    described = vendor + author + b"/** Renders pages. */\npackage render;\n"
    assert parse("java", described).symbols[0].docstring == "Renders pages."


def test_a_description_that_speaks_of_licences_stays_the_docstring():
    data = b"// Checks the licences of a project's dependencies.\n\npackage licences\n"
    assert parse("go", data).symbols[0].docstring == "Checks the licences of a project's dependencies."


def test_tool_directives_and_type_declarations_are_no_documentation():
    """webpack: ``/* istanbul ignore next */`` above a method, ``@typedef`` blocks stacked
    above a class's doc; Go: ``//go:build`` before the package comment."""
    js = (b"/**\n * @typedef {object} Opts\n */\n/**\n * Represents the plugin.\n */\nclass P {\n"
          b"  /* istanbul ignore next */\n  parse() {}\n  // eslint-disable-next-line no-unused-vars\n  // Runs it.\n"
          b"  run() {}\n}\n")  # fmt: skip
    docs = {s.qualname: s.docstring for s in parse("javascript", js).symbols}
    assert docs == {"<module>": "", "P": "Represents the plugin.", "P.parse": "", "P.run": "Runs it."}
    go = b"//go:build linux\n\n// Package sys calls the kernel.\npackage sys\n\n//go:noinline\n// Fast adds.\nfunc Fast() {}\n"
    docs = {s.qualname: s.docstring for s in parse("go", go).symbols}
    assert docs == {"<module>": "Package sys calls the kernel.", "Fast": "Fast adds."}


@pytest.mark.parametrize(
    ("language", "imports"),
    [("c", b"#include <stdio.h>\n"), ("javascript", b"import fs from 'fs';\n"), ("rust", b"use std::io;\n"),
     ("swift", b"import Foundation\n"), ("csharp", b"using System;\n"),
     ("objc", b"#import <Foundation/Foundation.h>\n")],
)  # fmt: skip
def test_a_comment_right_above_a_files_imports_describes_the_file(language: str, imports: bytes):
    """Git's ``hashmap.c``: ``/* Generic implementation of hash-based key value mappings. */``
    then its ``#include``; the same comment above a definition is the definition's."""
    doc = "Generic implementation of hash-based key value mappings."
    assert parse(language, f"/* {doc} */\n".encode() + imports).symbols[0].docstring == doc
    assert parse(language, b"/* clang-format off */\n" + imports).symbols[0].docstring == ""


@pytest.mark.parametrize(
    ("language", "statement"),
    [("bash", b"set -euo pipefail\n"), ("lua", b"local M = {}\n"), ("javascript", b"'use strict';\n"),
     ("c", b"#ifndef HASHMAP_H\n#define HASHMAP_H\n#endif\n")],
)  # fmt: skip
def test_a_comment_right_above_a_statement_describes_the_file(language: str, statement: bytes):
    """No definition's doc, the comment block a file opens with is the file's, above its
    first statement as above its imports: a script's ``set -e``, Lua's module table, a
    header's include guard."""
    doc = "Window helpers."
    opener = b"--" if language == "lua" else b"#" if language == "bash" else b"//"
    assert parse(language, opener + f" {doc}\n".encode() + statement).symbols[0].docstring == doc


def test_python_hashes_its_source_alone():
    """A Python docstring is inside the code: the hash stays sha256 of the source, so
    stores of Python code keep their point ids across the hash's change for doc comments."""
    import hashlib

    data = b'def f():\n    """Doc."""\n    return 1\n'
    [f] = [s for s in parse("python", data).symbols if s.qualname == "f"]
    assert f.content_hash == hashlib.sha256(f.source.encode()).hexdigest()


def test_python_type_statements_are_types_documented_by_the_string_after_them():
    """PEP 695's ``type`` statement (Python 3.12) is a definition like TypeScript's type
    alias; its doc is the string right after it (PEP 257's attribute docstring), which
    lies outside its text and so counts in its hash."""
    source = (b'type Vector = list[float]\n"""Coordinates."""\n\nclass Grid:\n    type Cell[T: int] = tuple[T, T]\n'
              b"\n    def f(self):\n        type Local = int\n")  # fmt: skip
    symbols = {s.qualname: s for s in parse("python", source).symbols}
    assert [(s.kind, q, s.signature, s.docstring, s.start_line) for q, s in symbols.items()] == [
        ("module", "<module>", "", "", 1),
        ("type", "Vector", "type Vector = list[float]", "Coordinates.", 1),
        ("class", "Grid", "class Grid", "", 4),
        ("type", "Grid.Cell", "type Cell[T: int] = tuple[T, T]", "", 5),
        ("method", "Grid.f", "def f(self)", "", 7),
    ]
    reworded = {s.qualname: s for s in parse("python", source.replace(b"Coordinates", b"Points")).symbols}
    assert reworded["Vector"].docstring == "Points."
    assert reworded["Vector"].content_hash != symbols["Vector"].content_hash
    assert reworded["Grid"].content_hash == symbols["Grid"].content_hash


def test_overloads_are_named_by_their_types_however_the_source_is_formatted():
    def names(language: str, source: bytes) -> list[str]:
        return [s.qualname for s in parse(language, source).symbols if s.kind in ("function", "method")]

    tight = b"class C { void f(Map<String,List<Integer>> m,int[] a){} void f(java.util.List<? extends Number> l){} }"
    loose = (b"class C {\n  void f(\n    @NonNull final Map< String, List<Integer> > m,\n    int [] a) {}\n\n"
             b"  void f(java.util . List<?> l) {}\n}\n")  # fmt: skip
    assert names("java", tight) == names("java", loose) == ["C.f(Map, int[])", "C.f(java.util.List)"]
    tight = b"function f(cb:(a:T,b:number)=>R):void;\nfunction f(x?:string):void;\nfunction f(x){}\n"
    loose = b"function f(cb: (a: T, b: number) => R): void;\nfunction f(x?: string): void;\nfunction f(x) {}\n"
    assert names("typescript", tight) == names("typescript", loose) == ["f((a:T,b:number)=>R)", "f(string?)", "f"]
    # a name used once keeps its plain qualname; JavaScript's repeats are numbered in order
    assert names("java", b"class C { void g(int a) {} }") == ["C.g"]
    assert names("javascript", b"class K { m(a) {} m(a, b) {} }") == ["K.m", "K.m#2"]


def test_python_typings_are_named_by_their_types_and_the_implementation_by_its_name():
    """sqlalchemy 2.0's ``inspect``: three ``@overload`` typings above the function with
    the code and the docstring, which was ``inspect#4`` (and ``inspect`` the first typing)."""
    source = (b"from typing import overload\nimport typing\n\n"
              b"@overload\ndef inspect(subject: Type[_T], raiseerr: bool = True) -> _T: ...\n"
              b"@typing.overload\ndef inspect(subject: Any, raiseerr: Literal[False] = ...) -> None: ...\n"
              b"def inspect(subject, raiseerr=True):\n    \"\"\"The real one.\"\"\"\n    return subject\n\n"
              b"class Session:\n    @overload\n    def get(self, key: str, *rest: int, **kw: Any) -> str: ...\n"
              b"    @overload\n    def get(self, key, /, *, strict: bool) -> None: ...\n"
              b"    def get(self, key, *rest, **kw):\n        return key\n"
              b"    @property\n    def bind(self): return 1\n    @bind.setter\n    def bind(self, value): pass\n")  # fmt: skip
    symbols = parse("python", source).symbols[1:]
    assert [s.qualname for s in symbols] == [
        "inspect(Type[_T], …)", "inspect(Any, …)", "inspect", "Session",  # the types that tell them apart
        "Session.get(str, …)", "Session.get(_, …)", "Session.get",
        "Session.bind", "Session.bind=",  # no typings: a property's setter named as Ruby names one
    ]  # fmt: skip
    assert symbols[2].docstring == "The real one."
    alike = (b"@overload\ndef f(a: int, b: str, *args: int, **kw) -> int: ...\n"
             b"@overload\ndef f(a: int, b: bytes, *, c: bool = ...) -> int: ...\ndef f(a, b, *args, **kw): pass\n")  # fmt: skip
    assert [s.qualname for s in parse("python", alike).symbols[1:]] == ["f(int, str, …)", "f(int, bytes, …)", "f"]


@pytest.mark.parametrize("language", ["javascript", "typescript"])
def test_a_setter_is_named_as_ruby_names_one_beside_its_getter(language: str):
    """``get value()`` and ``set value(v)`` were ``value`` and ``value#2`` by order (and
    TypeScript's ``value()`` and ``value(number)``, by its parameters): the setter is
    ``value=``, whichever comes first; a method named ``set`` is no setter."""
    typed = ": number" if language == "typescript" else ""
    source = (
        f"class Box {{\n  set value(v{typed}) {{}}\n  get value() {{ return 1; }}\n  static set now(n{typed}) {{}}\n"
        f"  static get now() {{ return 0; }}\n  set(key{typed}) {{}}\n}}\n"
        f"const o = {{\n  get size() {{ return 1; }},\n  set size(v{typed}) {{}},\n}};\n"
    )
    assert [s.qualname for s in parse(language, source.encode()).symbols[1:]] == [
        "Box", "Box.value=", "Box.value", "Box.now=", "Box.now", "Box.set", "o.size", "o.size=",
    ]  # fmt: skip
    if language == "typescript":
        declared = b"interface Sized {\n  get size(): number;\n  set size(v: number);\n}\n"
        assert [s.qualname for s in parse(language, declared).symbols[1:]] == ["Sized", "Sized.size", "Sized.size="]


@pytest.mark.parametrize("language", ["javascript", "typescript"])
def test_a_class_method_beside_an_instance_method_of_its_name_is_named_static(language: str):
    """MediaWiki's ``DateFormatter`` has ``static formatDate(date)`` and ``formatDate(date)``,
    its ``Title`` ``Title.exists = function`` and ``exists`` in its prototype: the second of
    each was ``#2`` (TypeScript's ``formatDate(_)#2``), whichever came first."""
    typed = ": Date" if language == "typescript" else ""
    source = (
        f"class DateFormatter {{\n  formatDate(d{typed}) {{}}\n  static formatDate(d{typed}) {{}}\n"
        f"  static zone() {{}}\n}}\n"
        "function Title(a) { this.a = a; }\nTitle.exists = function (t) {};\n"
        "Title.prototype = {\n  exists: function () {},\n};\n"
    )
    assert [s.qualname for s in parse(language, source.encode()).symbols[1:]] == [
        "DateFormatter", "DateFormatter.formatDate", "DateFormatter.static.formatDate", "DateFormatter.zone",
        "Title", "Title.static.exists", "Title.exists",
    ]  # fmt: skip


def test_a_typescript_implementation_keeps_its_name_when_an_overload_is_added():
    """query-core's ``noop(): void``, ``noop(): undefined`` and ``noop() {}``: the one with
    the code was ``noop()#3``, and an implementation's types widen with each overload
    added (``f(string|number)`` → ``f(string|number|boolean)``), renaming it. Named by its
    plain name, as Python's typings' implementation is; a class's overloads alike; an
    interface's, all declarations, by their types; Java's, all implemented, too."""
    before = (b"export function f(a: string): void;\nexport function f(a: number): void;\n"
              b"export function f(a: string | number) { return a; }\n"
              b"class A {\n  m(a: string): void;\n  m(a: number): void;\n  m(a: any) {}\n}\n"
              b"interface I {\n  h(a: string): void;\n  h(a: number): void;\n}\n")  # fmt: skip
    after = before.replace(b"export function f(a: number): void;\n",
                           b"export function f(a: number): void;\nexport function f(a: boolean): void;\n")
    after = after.replace(b"f(a: string | number)", b"f(a: string | number | boolean)")
    names = [s.qualname for s in parse("typescript", before).symbols[1:]]
    assert names == ["f(string)", "f(number)", "f", "A", "A.m(string)", "A.m(number)", "A.m", "I", "I.h(string)",
                     "I.h(number)"]  # fmt: skip
    assert [s.qualname for s in parse("typescript", after).symbols[1:]] == names[:2] + ["f(boolean)"] + names[2:]
    java = b"abstract class J {\n  abstract void g(int a);\n  void g(String s) {}\n}\n"
    assert [s.qualname for s in parse("java", java).symbols[1:]] == ["J", "J.g(int)", "J.g(String)"]


def test_overloads_alike_as_written_are_named_by_their_bounds():
    """commons-lang 3's ``Validate.notEmpty(T, String, Object...)``, once for each of
    ``<T extends Collection<?>>``, ``<T extends Map<?, ?>>`` and ``<T extends CharSequence>``:
    numbered by their order, an overload added above another renamed it."""
    source = (b"class V {\n"
              b"  static <T extends Collection<?>> T notEmpty(T c, String m) { return c; }\n"
              b"  static <T extends Map<?, ?>> T notEmpty(T c, String m) { return c; }\n"
              b"  static <T extends CharSequence & Comparable<T>> T notEmpty(T c, String m) { return c; }\n"
              b"  static <T> T[] notEmpty(T[] c, String m) { return c; }\n"
              b"  static <E extends Enum<E>> void of(E e) {}\n  static void of(int e) {}\n}\n")  # fmt: skip
    assert [s.qualname for s in parse("java", source).symbols if s.kind == "method"] == [
        "V.notEmpty(Collection, String)", "V.notEmpty(Map, String)", "V.notEmpty(CharSequence, String)",
        "V.notEmpty(T[], String)", "V.of(E)", "V.of(int)",  # what tells them apart as written stays as written
    ]  # fmt: skip
    source = b"function f<T extends string>(x: T): T;\nfunction f<T extends number>(x: T): T;\nfunction f(x) {}\n"
    assert [s.qualname for s in parse("typescript", source).symbols[1:]] == ["f(string)", "f(number)", "f"]


def test_each_function_of_a_declaration_of_several_is_its_own():
    """jQuery's ``var version = "3.7.1", …, jQuery = function( selector, context ) {…}``:
    keyed by the statement, the declaration's second function was lost, and the second
    class's methods went to the first one."""
    source = (b"var version = \"1\",\n  // Build one.\n  make = function (a) {\n    return a;\n  },\n"
              b"  other = function () { return 2; };\n"
              b"/** Two classes. */\nconst C = class {}, D = class { m() {} };\n")  # fmt: skip
    got = [(s.kind, s.qualname, s.start_line, s.end_line, s.signature, s.docstring)
           for s in parse("javascript", source).symbols[1:]]  # fmt: skip
    assert got == [
        ("function", "make", 3, 5, "var make = function (a)", "Build one."),
        ("function", "other", 6, 6, "var other = function ()", ""),
        ("class", "C", 8, 8, "const C = class", "Two classes."),
        ("class", "D", 8, 8, "const D = class", ""),
        ("method", "D.m", 8, 8, "m()", ""),
    ]
    factory = (b"function Store(db) {\n  var get = function (k) { return db[k]; }, put = function (k, v) {};\n"
               b"  return { get: get, put: put };\n}\n")  # fmt: skip
    assert [s.qualname for s in parse("javascript", factory).symbols[1:]] == ["Store", "Store.get", "Store.put"]
    single = parse("typescript", b"/** Doc. */\nexport const f = (x: number) => x;\n").symbols[1]
    assert (single.qualname, single.signature, single.docstring) == ("f", "const f = (x: number)", "Doc.")


def test_javascript_tests_are_named_by_their_titles_and_declare_their_own_names():
    """A JavaScript or TypeScript test file was one memory, its module: ``describe("Router",
    …)`` and ``it("routes", …)`` were no symbols, and what each test's callback declared was
    read as the file's own (zod's ``type inp = z.input<typeof schema>`` in each test:
    ``inp``, ``inp#2``, … by their order; 813 of zod 4's 11,788 symbols, 262 of its 291
    numbered names). A suite is a class, its tests and helpers its members, as a Python
    test class's; a test is a function, named by its title on one line, in double quotes
    when its own say nothing more; what a test or a hook declares is its own. What a
    module's wrapper holds (a function called at once, UMD's factory, AMD's ``define``)
    stays the file's."""
    source = (b"import { z } from 'zod';\ntype inp = string;\nconst helper = (x: number) => x;\n"
              b"/** Defaults. */\ndescribe('defaults', () => {\n  function make() { return 1; }\n"
              b"  test('one', () => {\n    type inp = z.input<typeof s>;\n    class Fixture { run() {} }\n  });\n"
              b"  it.each([1, 2])('two %d', function (n) {\n    const check = () => n;\n  });\n"
              b"  beforeEach(async () => { function reset() {} });\n"
              b"  describe(\"v1.2\", () => {\n    it(`adds\n      ${x}`, async () => {});\n"
              b"    it('says \"hi\"', () => {});\n    it('one', () => {});\n  });\n});\n"
              b"test.describe('e2e', () => { interface Page { url: string } });\n"
              b"Deno.test('deno', () => { function local() {} });\n"
              b"test(title, () => { function untitled() {} });\n"
              b"testing(() => { function kept() {} });\n")  # fmt: skip
    got = [(s.kind, s.qualname, s.signature, s.docstring) for s in parse("typescript", source).symbols[1:]]
    assert got == [
        ("type", "inp", "type inp = string", ""),
        ("function", "helper", "const helper = (x: number)", ""),
        ("class", '"defaults"', "describe('defaults', () => {…})", "Defaults."),
        ("method", '"defaults".make', "function make()", ""),
        ("method", '"defaults"."one"', "test('one', () => {…})", ""),
        ("method", '"defaults"."two %d"', "it.each([1, 2])('two %d', function (n) {…})", ""),
        ("class", '"defaults"."v1.2"', 'describe("v1.2", () => {…})', ""),
        ("method", '"defaults"."v1.2".`adds ${x}`', "it(`adds ${x}`, async () => {…})", ""),
        ("method", "\"defaults\".\"v1.2\".'says \"hi\"'", "it('says \"hi\"', () => {…})", ""),
        ("method", '"defaults"."v1.2"."one"', "it('one', () => {…})", ""),
        ("class", '"e2e"', "test.describe('e2e', () => {…})", ""),
        ("interface", '"e2e".Page', "interface Page", ""),
        ("function", '"deno"', "Deno.test('deno', () => {…})", ""),
        ("function", "kept", "function kept()", ""),
    ]  # fmt: skip
    wrappers = (b"(function (root, factory) {\n  function attach() {}\n})(this, function () {\n"
                b"  function Observable() {}\n  Observable.prototype.pipe = function () {};\n});\n"
                b"define(['./core'], function (jQuery) {\n  function isWindow(obj) { return obj; }\n});\n")  # fmt: skip
    assert [s.qualname for s in parse("javascript", wrappers).symbols[1:]] == [
        "attach", "Observable", "Observable.pipe", "isWindow",
    ]  # fmt: skip


def test_a_test_renamed_by_its_quotes_alone_keeps_its_name():
    """prettier's ``singleQuote`` turned over: every title's quotes change, no name."""
    double = b'describe("Router", () => {\n  it("routes", () => {});\n});\n'
    single = double.replace(b'"', b"'")
    assert [s.qualname for s in parse("javascript", single).symbols[1:]] == ['"Router"', '"Router"."routes"']
    assert [s.qualname for s in parse("javascript", double).symbols[1:]] == ['"Router"', '"Router"."routes"']


def test_what_jquery_and_backbone_extend_is_named_by_what_it_extends():
    """jQuery 3.7's API was none of its symbols: ``jQuery.extend({ ajax: function (…) {…} })``
    and ``jQuery.fn.extend({ attr: … })`` read as objects, and ajax's locals (``done``,
    ``jqXHR.abort``) as the file's; a plugin's ``$.fn.tooltip = function`` and Backbone's
    ``var View = Backbone.View.extend({ render: … })`` neither. A method given to a
    callback's parameter (zod's ``core.$constructor("ZodString", (inst, def) => { inst.min
    = … })``: ``inst.min#4``) is no name of the file's; one given to a module's wrapper's
    (``$`` of ``(function ($) {…})(jQuery)``) is."""
    source = (b"jQuery.extend({\n  /** Performs a request. */\n  ajax: function (url, options) {\n"
              b"    var jqXHR = { abort: function () {} };\n    function done() {}\n  },\n  ajaxSetup(target) {}\n});\n"
              b"jQuery.fn.extend({ show: function () {}, hide() {} });\n"
              b"jQuery.extend(true, {}, { notMine: function () {} });\n"
              b"_.extend(Model.prototype, Events, { get: function (attr) {} });\n"
              b"(function ($) {\n  $.fn.tooltip = function (options) { return this; };\n})(jQuery);\n"
              b"define(['jquery'], function ($) { $.fn.picker = function () {}; });\n"
              b"var View = Backbone.View.extend({ tagName: 'li', render: function () {}, close() {} });\n"
              b"var settings = $.extend({}, defaults, { onClick: function () {} });\n"
              b"exports.ZodString = core.$constructor('ZodString', (inst, def) => {\n"
              b"  inst.min = () => 1;\n  inst._zod.parse = (p) => p;\n});\n")  # fmt: skip
    got = [(s.kind, s.qualname, s.signature, s.docstring) for s in parse("javascript", source).symbols[1:]]
    assert got == [
        ("method", "jQuery.ajax", "ajax: function (url, options)", "Performs a request."),
        ("method", "jQuery.ajaxSetup", "ajaxSetup(target)", ""),
        ("method", "jQuery.fn.show", "show: function ()", ""),
        ("method", "jQuery.fn.hide", "hide()", ""),
        ("method", "Model.get", "get: function (attr)", ""),
        ("method", "$.fn.tooltip", "$.fn.tooltip = function (options)", ""),
        ("method", "$.fn.picker", "$.fn.picker = function ()", ""),
        ("class", "View", "var View = Backbone.View.extend", ""),
        ("method", "View.render", "render: function ()", ""),
        ("method", "View.close", "close()", ""),
    ]  # fmt: skip


VUE_COMPONENT = b"""<template>
  <!-- <script>function commentedOut() {}</script> -->
  <button @click="increment">{{ count }}</button>
</template>

<script>
export default {
  data() { return { open: false }; },
  computed: { label() { return 'x'; } },
  methods: { reset() {}, toggle: function () {} },
  watch: { open(value) {}, 'label.size': function () {} },
};
</script>

<script setup lang="ts">
/** Counts. */
function increment(by: number = 1): void {
  // TODO: debounce
}
function reset() {}
</script>

<script src="./extra.ts"></script>
<script lang="coffee">
square = (x) -> x * x
</script>
<style scoped>button { color: red; }</style>
"""


def test_a_single_file_components_scripts_are_read_in_their_own_language():
    """A Vue or Svelte component was no source recalld read: element-ui 2.15's 116
    ``.vue`` files gave no symbol, now 1,374 (primevue 3.53's 292: 3,185). Its
    ``<script>`` blocks are read as their ``lang`` says, each symbol and debt note at its
    line in the file; a Vue options object's ``methods`` and ``computed`` are the file's
    functions, its watchers named by what they watch; the file is the module."""
    result = parse("vue", VUE_COMPONENT)
    assert (result.language, result.syntax_errors) == ("vue", 0)
    assert result.notes == ("<script lang='coffee'> left out: not a language recalld reads",)
    module, *symbols = result.symbols
    assert (module.qualname, module.start_line, module.end_line) == ("<module>", 1, 27)
    assert [(s.kind, s.qualname, s.start_line, s.end_line, s.signature, s.docstring) for s in symbols] == [
        ("function", "data", 8, 8, "data()", ""),
        ("function", "label", 9, 9, "label()", ""),
        ("function", "reset", 10, 10, "reset()", ""),
        ("function", "toggle", 10, 10, "toggle: function ()", ""),
        ("method", "watch.open", 11, 11, "open(value)", ""),
        ("method", 'watch."label.size"', 11, 11, "'label.size': function ()", ""),
        ("function", "increment", 17, 19, "function increment(by: number = 1): void", "Counts."),
        ("function", "reset#2", 20, 20, "function reset()", ""),  # both blocks define it
    ]  # fmt: skip
    assert [(d.kind, d.start_line, dict(d.extra)["enclosing"]) for d in result.derived] == [("todo", 18, "increment")]
    svelte = (b'<script context="module" lang="ts">\n  export function preload(page: string) { return page; }\n'
              b"</script>\n\n<script>\n  export let title;\n  const toggle = () => { open = !open; };\n</script>\n"
              b"\n<div on:click={toggle}>{title}</div>\n")  # fmt: skip
    assert [(s.qualname, s.start_line) for s in parse("svelte", svelte).symbols] == [
        ("<module>", 1), ("preload", 2), ("toggle", 7),
    ]  # fmt: skip
    assert [s.qualname for s in parse("vue", b"<template><p>no script</p></template>\n").symbols] == ["<module>"]
    astro = (b"---\nimport Layout from '../Layout.astro';\ninterface Props { title: string }\n"
             b"function formatDate(date: Date): string { return ''; }\n---\n<Layout><h1>{title}</h1></Layout>\n"
             b"<script>\n  function onClick(event: MouseEvent) {}\n</script>\n")  # fmt: skip
    astro_result = parse("astro", astro)  # its frontmatter and scripts are TypeScript
    assert [(s.qualname, s.start_line) for s in astro_result.symbols] == [
        ("<module>", 1), ("Props", 3), ("formatDate", 4), ("onClick", 8),
    ]  # fmt: skip
    assert astro_result.syntax_errors == 0


def test_rust_associated_types_and_references_belong_to_their_type():
    """clap 4.0's ``arg_matches.rs`` had twelve ``type Item`` of as many iterators, read as
    the file's own types ``Item`` … ``Item#12`` (named by their order), and ``impl<'s>
    IntoIterator for &'s FlatSet<T>`` gave ``'s FlatSet.into_iter``."""
    source = (b"struct Values<T>(Vec<T>);\nimpl<T> Iterator for Values<T> {\n    type Item = T;\n"
              b"    fn next(&mut self) -> Option<T> { None }\n}\n"
              b"impl<'s, T> IntoIterator for &'s mut Values<T> {\n    type Item = &'s T;\n"
              b"    fn into_iter(self) -> Self::IntoIter { todo!() }\n}\n"
              b"impl PartialEq<Values<u8>> for &'_ str {\n    fn eq(&self, other: &Values<u8>) -> bool { true }\n}\n"
              b"type Alias = u8;\n"
              b"impl<'a> fmt::Display for dyn Expected + 'a {\n    fn fmt(&self) {}\n}\n"
              b"impl [u8] {\n    fn first_byte(&self) {}\n}\n")  # fmt: skip
    assert [(s.kind, s.qualname) for s in parse("rust", source).symbols[1:]] == [
        ("struct", "Values"), ("type", "<Values as Iterator>.Item"), ("method", "<Values as Iterator>.next"),
        ("type", "<&mut Values as IntoIterator>.Item"), ("method", "<&mut Values as IntoIterator>.into_iter"),
        ("method", "<&str as PartialEq<Values<u8>>>.eq"), ("type", "Alias"),
        ("method", "<Expected as Display>.fmt"), ("method", "[u8].first_byte"),  # serde's ``Expected + 'a.fmt``; a free ``first_byte``
    ]  # fmt: skip


RUST_TRAIT_IMPLS = (
    b"impl fmt::Display for Arg {\n    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result { write!(f, \"a\") }\n}\n",
    b"impl fmt::Debug for Arg {\n    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result { Ok(()) }\n}\n",
    b"impl<'a> PartialEq<&'a str> for Arg {\n    fn eq(&self, other: &&'a str) -> bool { true }\n}\n",
    b"impl PartialEq<str> for Arg {\n    fn eq(&self, other: &str) -> bool { true }\n}\n",
    b"impl<'de> serde::de::Visitor<'de> for Arg {\n    type Value = Arg;\n    fn visit_str(self) {}\n}\n",
)


def test_rust_trait_impl_members_are_named_by_their_trait():
    """clap 4.0's ``impl Display for Arg`` and ``impl Debug for Arg`` each have a ``fmt``,
    read as ``Arg.fmt`` and ``Arg.fmt#2`` by their order: which trait a method implements
    was nowhere in its memory, and swapping the impls swapped their names (123 of clap's
    1,721 symbols were numbered so). Named as Rust's ``<Arg as Display>::fmt`` names them,
    the trait's path and lifetimes left out; an impl's order changes no name."""
    source = b"pub struct Arg;\nimpl Arg {\n    pub fn new() -> Self { Arg }\n}\n" + b"".join(RUST_TRAIT_IMPLS)
    named = [(s.kind, s.qualname) for s in parse("rust", source).symbols[1:]]
    assert named == [
        ("struct", "Arg"), ("method", "Arg.new"), ("method", "<Arg as Display>.fmt"), ("method", "<Arg as Debug>.fmt"),
        ("method", "<Arg as PartialEq<&str>>.eq"), ("method", "<Arg as PartialEq<str>>.eq"),
        ("type", "<Arg as Visitor>.Value"), ("method", "<Arg as Visitor>.visit_str"),
    ]  # fmt: skip
    by_reference = (b"impl IntoIterator for FlatSet {\n    fn into_iter(self) {}\n}\n"
                    b"impl<'s> IntoIterator for &'s FlatSet {\n    fn into_iter(self) {}\n}\n"
                    b"impl<'s> IntoIterator for &'s mut FlatSet {\n    fn into_iter(self) {}\n}\n")  # fmt: skip
    assert [s.qualname for s in parse("rust", by_reference).symbols[1:]] == [  # were ``#2``, ``#3``
        "<FlatSet as IntoIterator>.into_iter", "<&FlatSet as IntoIterator>.into_iter",
        "<&mut FlatSet as IntoIterator>.into_iter",
    ]  # fmt: skip
    swapped = b"".join(reversed(RUST_TRAIT_IMPLS))
    assert sorted(s.qualname for s in parse("rust", swapped).symbols[1:]) == sorted(q for _, q in named[2:])


def test_java_enum_constant_bodies_are_the_constants_members():
    """guava 31.1's strategy enums implement a method per constant (102 methods in 17
    files: ``BloomFilterStrategies.MURMUR128_MITZ_64.put``); they were left out, to keep
    the plain name for the enum's own method. Named by their constant, both are kept."""
    source = (b"enum Strategy {\n  /** The fast one. */\n  FAST {\n    /** Puts fast. */\n"
              b"    @Override boolean put(int x) { return true; }\n  },\n"
              b"  SLOW(2) {\n    @Override boolean put(int x) { return false; }\n"
              b"    final Runnable r = new Runnable() { public void run() {} };\n  },\n  PLAIN;\n"
              b"  Strategy() {}\n  Strategy(int n) {}\n  abstract boolean put(int x);\n}\n")  # fmt: skip
    named = [(s.kind, s.qualname, s.docstring) for s in parse("java", source).symbols[1:]]
    assert named == [
        ("enum", "Strategy", ""), ("method", "Strategy.FAST.put", "Puts fast."), ("method", "Strategy.SLOW.put", ""),
        ("method", "Strategy.Strategy()", ""), ("method", "Strategy.Strategy(int)", ""), ("method", "Strategy.put", ""),
    ]  # fmt: skip


def test_java_classes_local_to_a_block_are_no_members():
    """A class declared in an initializer, or in a lambda's or a switch rule's block in a
    field's value, is local as one in a method is: they were the class's members
    (``T.Holder``, ``T.Local.run``), and took a nested class's name."""
    source = (b"class T {\n  static { class Holder { void a() {} } }\n  { class Local { void run() {} } }\n"
              b"  static Runnable R = () -> { class InLambda { void b() {} } };\n"
              b"  static Object O = switch (1) { default -> { class InRule {} yield null; } };\n"
              b"  void m() { class InMethod {} }\n  static class Nested { void c() {} }\n}\n")  # fmt: skip
    assert [s.qualname for s in parse("java", source).symbols[1:]] == ["T", "T.m", "T.Nested", "T.Nested.c"]


def test_rules_that_frame_a_comment_are_no_part_of_its_doc():
    source = (b"//////////////\n// Why this file.\n//////////////\n\nexport const a = 1;\n"
              b"/* *****\n * Doc.\n * ---\n * More.\n ******/\nfunction f() {}\n")  # fmt: skip
    module, f = parse("typescript", source).symbols[:2]
    assert (module.docstring, f.docstring) == ("Why this file.", "Doc.\n---\nMore.")
    fenced = parse("rust", b"/// ```\n/// let a = 1;\n/// ```\nfn g() {}\n").symbols[1]
    assert fenced.docstring == "```\nlet a = 1;\n```"  # a code fence is the doc's
    # zod's section banners: marks around a title frame no doc either
    banner = (b"export const a = 1;\n//////////////////////////\n//////////   ZodNumber   //////////\n"
              b"//////////////////////////\nexport type Check = number;\n"
              b"// ===== Parsing =====\n// Parses the input.\nfunction p() {}\n// *** Slow *** on big input.\nfunction q() {}\n")  # fmt: skip
    assert [s.docstring for s in parse("typescript", banner).symbols[1:]] == ["", "Parses the input.", "*** Slow *** on big input."]


def test_a_line_comments_stars_are_its_text_and_a_block_comments_margin_is_not():
    """clap's ``/// **NOTE:** …`` read ``*NOTE:** …`` (94 of its docs), and a ``//!``
    list's ``* item`` lost its bullet; jackson's margins without a space (`` *<p>``) go."""
    rust = b"/// **NOTE:** slow.\n///\n/// * first\n/// *emphasis*\nfn f() {}\n"
    assert parse("rust", rust).symbols[1].docstring == "**NOTE:** slow.\n\n* first\n*emphasis*"
    java = b"class A {\n  /**\n   * Reads.\n   *<p>\n   * ** Bold ** text.\n   */\n  void r() {}\n}\n"
    assert parse("java", java).symbols[2].docstring == "Reads.\n<p>\n** Bold ** text."


def test_a_modules_own_export_is_a_symbol_named_default_when_it_has_no_name():
    """`module.exports = function (results) {…}` (every eslint formatter) and `export
    default class {…}` were kept only in the module memory: now a symbol of their own,
    named `default` as JavaScript names them, with their members and doc comments."""

    def listed(language: str, source: bytes) -> list[tuple[str, str, str]]:
        return [(s.kind, s.qualname, s.docstring) for s in parse(language, source).symbols[1:]]

    commonjs = (b"/** Formats. */\nmodule.exports = function (results) { return results.length; };\n"
                b"exports.Parser = class { parse(text) { return text; } };\n"
                b"module.exports.Lexer = class Scanner { next() {} };\n")  # fmt: skip
    assert listed("javascript", commonjs) == [
        ("function", "default", "Formats."), ("class", "Parser", ""), ("method", "Parser.parse", ""),
        ("class", "Lexer", ""), ("method", "Lexer.next", ""),
    ]  # fmt: skip
    assert listed("javascript", b"module.exports = class extends Base { apply(c) {} };") == [
        ("class", "default", ""), ("method", "default.apply", "")]  # fmt: skip
    assert listed("javascript", b"module.exports = (a, b) => a + b;") == [("function", "default", "")]
    assert listed("javascript", b"module.exports = function load(src) { return src; };") == [("function", "load", "")]
    es = b"/** The page. */\nexport default class {\n  render(): string { return ''; }\n}\n"
    assert listed("typescript", es) == [("class", "default", "The page."), ("method", "default.render", "")]
    assert listed("tsx", b"export default function (props: P) { return <div/>; }") == [("function", "default", "")]
    assert listed("javascript", b"export default async () => 42;") == [("function", "default", "")]
    # a named one keeps its name; a value that is no class or function is no symbol
    assert listed("typescript", b"export default class Page { m() {} }") == [("class", "Page", ""), ("method", "Page.m", "")]
    assert listed("javascript", b"module.exports = { a: 1 };\nexport default 42;") == []


RECOVERED = '''def test5 ():
    print(1)


def test6 ():
    <RANGE_START>
    print("Format" )
    print(3 +  4)<RANGE_END>
    print("Format to fix indentation" )
'''
RECOVERED_THEN_MORE = RECOVERED + '''

def test7 ():
    <RANGE_START>print("Format" )
    print(3 +  4)<RANGE_END>
    print("Format to fix indentation" )
'''


def test_one_hash_one_reading_where_a_syntax_error_recovers_differently():
    """ruff's range-formatting fixtures: the same text of ``test6``, its parse recovering
    from the same error differently with more code after it (its body's ``<`` an ERROR
    beside the body, then a MISSING name in it; its signature ``def test6 ()`` in both). A
    memory is kept while its hash is, so the two readings must hash apart; an error-free
    definition still hashes its text alone."""
    first = {s.qualname: s for s in parse("python", RECOVERED.encode()).symbols}
    then = {s.qualname: s for s in parse("python", RECOVERED_THEN_MORE.encode()).symbols}
    assert first["test6"].source == then["test6"].source
    assert first["test6"].signature == then["test6"].signature == "def test6 ()"
    assert first["test6"].content_hash != then["test6"].content_hash
    assert first["test5"].content_hash == then["test5"].content_hash
    for name in first.keys() & then.keys():
        if first[name].content_hash == then[name].content_hash:
            a, b = first[name], then[name]
            assert (a.signature, a.docstring, a.source) == (b.signature, b.docstring, b.source), name


def test_a_sections_banner_above_a_doc_is_no_part_of_it():
    """LLVM's ``//===---===//`` rules (their marks mixed) around a section's title, right
    above a definition's doc, were its doc's first lines; a rule inside a doc stays."""
    llvm = (b"//===----------------------------------------------------------------------===//\n"
            b"//  GlobalISel Hooks\n"
            b"//===----------------------------------------------------------------------===//\n"
            b"/// Check x.\nvoid check(void);\n")  # fmt: skip
    go = b"package p\n\n// ----------------\n// Helpers\n// ----------------\n// F adds.\nfunc F() {}\n"
    assert parse("cpp", llvm, path="include/llvm/Hooks.h").symbols[1].docstring == "Check x."
    assert parse("go", go, path="p/f.go").symbols[1].docstring == "F adds."


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
    assert [s.qualname for s in parse("python", b"def small():\n    pass\n", seconds=0).symbols] == ["<module>", "small"]
    names = [s.qualname for s in parse("python", big).symbols]
    assert names == ["<module>"] + [f"f{n}" for n in range(1000)]
