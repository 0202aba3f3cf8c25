"""TypeScript that its grammar cannot read, read again (``parsers/typescript_gaps.py``):
each of these lost the rest of its file."""

from __future__ import annotations

from recalld.parsers import parse
from recalld.parsers.typescript_gaps import readable

MOBX = b"""export interface IActionFactory extends Annotation {
    // nameless actions
    <T extends Function | undefined | null>(fn: T): T
    // named actions
    <T extends Function | undefined | null>(name: string, fn: T): T
    (customName: string): D<C>
}
export function runInAction<T>(fn: () => T): T {
    return fn()
}
"""


def test_a_generic_call_signature_after_a_member_with_no_semicolon_leaves_the_rest_of_the_file():
    symbols = [(s.kind, s.qualname, s.start_line, s.end_line) for s in parse("typescript", MOBX).symbols]
    assert symbols == [("module", "<module>", 1, 10), ("interface", "IActionFactory", 1, 7),
                       ("function", "runInAction", 8, 10)]  # fmt: skip
    runs = next(s for s in parse("typescript", MOBX).symbols if s.qualname == "runInAction")
    assert runs.signature == "function runInAction<T>(fn: () => T): T"  # read from the source as written


def test_the_second_reading_keeps_lengths_and_lines_and_leaves_other_code():
    assert len(readable(MOBX)) == len(MOBX) and readable(MOBX).count(b"\n") == MOBX.count(b"\n")
    code = b"const a = b < c\nif (x) {\n  <any>(y)\n}\nlet m = new Map<string, number>()\n"
    assert readable(code) == code.replace(b"  <any>", b" ;<any>")  # an empty statement before it
