"""JavaScript's and TypeScript's tests named by their titles, suites as classes, what each
declares its own."""

from __future__ import annotations

from recalld.parsers import parse


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
