"""Extraction of deeply nested code against flat code of the same size, in one run.

    python tests/bench/bench_nesting.py [--kib 64] [--depths 60,120,1000,5000]

Each shape nests its definitions ``depth`` levels deep (inside ``if`` blocks, modules,
classes) and fills the rest of ``--kib`` with definitions at the bottom; the flat file
of the same language holds as many bytes of top-level definitions. It prints the
seconds of each and their ratio: extraction should cost about what the same bytes cost
flat, however deep they nest (past ``parsers.definitions.MAX_DEPTH`` syntax levels the
definitions are read as part of what holds them).
"""

from __future__ import annotations

import argparse
import time
from dataclasses import dataclass

from recalld.parsers import parse

@dataclass(frozen=True, slots=True)
class Shape:
    """Definitions (``unit``; ``{i}`` its number, ``{pad}`` the bottom's indentation) at the
    bottom of ``depth`` levels (each opened by ``level``, ``{pad}`` its indentation, and
    closed by ``close``), between ``bottom`` (opened, closed); all between ``before`` and
    ``after``. ``flat`` is a definition at the top, for the flat file."""

    language: str
    level: str
    close: str
    unit: str
    flat: str
    before: str = ""
    after: str = ""
    bottom: tuple[str, str] = ("", "")

    def nested(self, depth: int, size: int) -> str:
        head = self.before + "".join(self.level.replace("{pad}", " " * i) for i in range(depth)) + self.bottom[0]
        tail = self.bottom[1] + self.close * depth + self.after
        return _fill(head, tail, self.unit.replace("{pad}", " " * depth), size)

    def flat_file(self, size: int) -> str:
        return _fill("", "", self.flat, size)


def _fill(head: str, tail: str, unit: str, size: int) -> str:
    body: list[str] = []
    total = len(head) + len(tail)
    while total < size:
        body.append(unit.replace("{i}", str(len(body))))
        total += len(body[-1])
    return head + "".join(body) + tail


SHAPES = {
    # a function's local functions inside nested ifs (none is a symbol; each was placed)
    "js: ifs around local functions": Shape("javascript", "if(x){", "}", "function g{i}(){}\n", "function f{i}(){}\n",
                                            before="function outer(){", after="}"),
    "js: ifs around a.b.m = function": Shape("javascript", "if(x){", "}", "a.b.m{i} = function(){};\n",
                                             "a.b.m{i} = function(){};\n"),
    "js: a factory's returned object": Shape("javascript", "if(x){", "}", "m{i}: function(){},\n",
                                             "function f{i}(){}\n", before="function f(){", after="}",
                                             bottom=("return {", "};")),
    "ruby: modules": Shape("ruby", "module M\n", "end\n", "def m{i}; end\n", "def m{i}; end\n"),
    "java: classes": Shape("java", "class A {", "}", "void m{i}() {}\n", "class A{i} {}\n"),
    "python: classes": Shape("python", "{pad}class C:\n", "", "{pad}def m{i}(s): pass\n", "def m{i}(s): pass\n"),
}  # fmt: skip


def _seconds(language: str, source: str) -> tuple[float, int, tuple[str, ...]]:
    data = source.encode()
    started = time.perf_counter()
    result = parse(language, data, path="bench")
    return time.perf_counter() - started, len(result.symbols), result.notes


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--kib", type=int, default=64, help="size of each file in KiB (default 64)")
    parser.add_argument("--depths", default="60,120,1000,5000", help="nesting depths, comma-separated")
    args = parser.parse_args()
    size = args.kib * 1024
    depths = [int(d) for d in args.depths.split(",")]
    print("| shape | depth | KiB | symbols | nested s | flat s | ratio |\n| --- | --- | --- | --- | --- | --- | --- |")
    for name, shape in SHAPES.items():
        _seconds(shape.language, shape.flat_file(1024))  # the grammar and its queries loaded first
        flat, _, _ = _seconds(shape.language, shape.flat_file(size))
        for depth in depths:
            source = shape.nested(depth, size)
            if len(source) > 2 * size:  # Python's indentation alone outgrows the size
                print(f"| {name} | {depth} | {len(source) / 1024:.0f} | (left out: over twice --kib) | | | |")
                continue
            nested, symbols, notes = _seconds(shape.language, source)
            mark = " (capped)" if notes else ""
            print(f"| {name} | {depth} | {len(source) / 1024:.0f} | {symbols}{mark} | {nested:.2f} | {flat:.2f} "
                  f"| {nested / flat:.1f}× |", flush=True)  # fmt: skip


if __name__ == "__main__":
    main()
