"""What JavaScript defines and how it is named: Flow read by TSX's grammar, each function of a
declaration of several, what jQuery's and Backbone's ``extend`` make, a module's own export."""

from __future__ import annotations

from recalld.parsers import LANGUAGES, parse
from recalld.parsers.extract import extract

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
    assert listed("typescript", b"export default class Page { m() {} }") == [
        ("class", "Page", ""), ("method", "Page.m", ""),
    ]  # fmt: skip
    assert listed("javascript", b"module.exports = { a: 1 };\nexport default 42;") == []
