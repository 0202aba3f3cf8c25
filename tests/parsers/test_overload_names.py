"""Overloads named by their types (Java's, TypeScript's, Python's typings), however the source
is formatted, by their bounds where their types read alike, and an implementation by its plain
name."""

from __future__ import annotations

from recalld.parsers import parse


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
              b"    @property\n    def bind(self): return 1\n"
              b"    @bind.setter\n    def bind(self, value): pass\n")  # fmt: skip
    symbols = parse("python", source).symbols[1:]
    assert [s.qualname for s in symbols] == [
        "inspect(Type[_T], …)", "inspect(Any, …)", "inspect", "Session",  # the types that tell them apart
        "Session.get(str, …)", "Session.get(_, …)", "Session.get",
        "Session.bind", "Session.bind=",  # no typings: a property's setter named as Ruby names one
    ]  # fmt: skip
    assert symbols[2].docstring == "The real one."
    alike = (b"@overload\ndef f(a: int, b: str, *args: int, **kw) -> int: ...\n"
             b"@overload\ndef f(a: int, b: bytes, *, c: bool = ...) -> int: ...\n"
             b"def f(a, b, *args, **kw): pass\n")  # fmt: skip
    assert [s.qualname for s in parse("python", alike).symbols[1:]] == ["f(int, str, …)", "f(int, bytes, …)", "f"]


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
