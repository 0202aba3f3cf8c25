"""Python's symbols on the standard library, checked against the same rules written on Python's
own ``ast``."""

from __future__ import annotations

import ast
import sysconfig
from collections import Counter
from pathlib import Path

from recalld.parsers import parse


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
STDLIB_PACKAGES = [
    "json", "email", "asyncio", "logging", "unittest", "http", "importlib", "concurrent", "xml", "multiprocessing",
    "urllib",
]  # fmt: skip


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
        only_ours, only_ast = sorted(got - expected)[:5], sorted(expected - got)[:5]
        assert got == expected, f"{path}: only parser {only_ours}, only ast {only_ast}"
        compared += len(got)
    assert compared > 5000
