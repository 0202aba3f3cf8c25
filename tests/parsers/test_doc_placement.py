"""Docs where real projects put them, and names a chain of assignments gives: Express's
and Commander's JSDoc parted from its method by a blank line, a Rust attribute with a
comment on its line, a section's title over a definition, ``req.get = req.header =
function header(…)``. Each was a doc lost, a doc given to the wrong symbol or the file,
or a function missing."""

from __future__ import annotations

from recalld.parsers import parse


def docs(language: str, source: str, path: str) -> dict[str, str]:
    return {s.qualname: s.docstring for s in parse(language, source.encode(), path=path).symbols}


def test_a_doc_block_parted_from_its_definition_by_a_blank_line_is_its_doc():
    found = docs("typescript", '''/**
 * Documented, then a blank line.
 */

export function spaced(): void {}

/**
 * Module dependencies.
 */

var x = require('y');

/**
 * Initialize the server.
 */

app.init = function init() {
};

// a line comment, then a blank line

function apart() {}
''', "app.ts")
    assert found == {"<module>": "", "spaced": "Documented, then a blank line.", "app.init": "Initialize the server.",
                     "apart": ""}  # fmt: skip
    java_source = "/**\n * A bag.\n */\n\npublic class Bag {\n  /** Adds one. */\n\n  void add() {}\n}\n"
    java = docs("java", java_source, "Bag.java")
    assert (java["Bag"], java["Bag.add"]) == ("A bag.", "Adds one.")


def test_a_files_own_doc_block_stays_the_files():
    found = docs("javascript", "/**\n * @file Helpers for dates.\n */\n\nfunction first() {}\n", "dates.js")
    assert (found["<module>"], found["first"]) == ("@file Helpers for dates.", "")
    licensed = docs("javascript", "/**\n * @license MIT\n */\n\nfunction first() {}\n", "x.js")
    assert licensed == {"<module>": "", "first": ""}


def test_a_comment_on_an_attributes_line_hides_no_doc():
    source = "/// Documented.\n#[inline] // fast path\npub fn attr_trailing() {}\n\nfn other() {}\n"
    found = docs("rust", source, "a.rs")
    assert found == {"<module>": "", "attr_trailing": "Documented.", "other": ""}


def test_a_sections_title_is_no_doc():
    found = docs("typescript", '''// TYPES
export type TransformerFn = (data: any) => any

//
// Preact helpers
// -----------------------------------
export function createRef(): void {}

// -----------------------------------
// Framed doc.
// -----------------------------------
export function framed(): void {}

// HTTP client for the API.
export function http(): void {}
''', "index.ts")
    assert found == {"<module>": "", "TransformerFn": "", "createRef": "", "framed": "Framed doc.",
                     "http": "HTTP client for the API."}  # fmt: skip


def test_a_function_named_by_a_chain_of_assignments_is_the_first_names():
    parsed = parse("javascript", b'''/** Make a router. */
var proto = module.exports = function (options) {
  function router(req, res, next) { return next }
  return router
}
const app = {}
/** Get it. */
app.get = app.header = function header(name) { return name }
''', path="router.js")
    found = {(s.kind, s.qualname): (s.start_line, s.end_line, s.docstring) for s in parsed.symbols}
    assert found == {("module", "<module>"): (1, 8, ""), ("function", "proto"): (2, 5, "Make a router."),
                     ("method", "app.get"): (8, 8, "Get it.")}  # fmt: skip
