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


def test_a_doc_comment_above_the_value_a_file_declares_first_is_not_the_files():
    """``/** Maximum retries. */`` above ``const MAX = 5`` documents the constant (no symbol),
    not the file, whose memory read "Maximum retries."; a plain comment there, a doc block
    parted from it by a blank line, saying it is the file's or above an import written as a
    declaration still is the file's."""
    module = lambda language, source, path: docs(language, source, path)["<module>"]  # noqa: E731
    for language, source in (
        ("javascript", "/** Maximum retries. */\nconst MAX = 5;\n\nfunction f() {}\n"),
        ("javascript", "/**\n * Maximum retries.\n */\nlet max = 5, min = require('m');\n"),
        ("typescript", "/** The default timeout, in ms. */\nexport const TIMEOUT: number = 30;\n"),
        ("rust", "/// The answer.\npub const ANSWER: u32 = 42;\npub fn f() {}\n"),
        ("rust", "/// The answer.\n#[allow(unused)]\nconst ANSWER: u32 = 42;\n"),
        ("kotlin", "/** The most. */\nval MAX = 3\nfun f() {}\n"),
    ):
        assert module(language, source, "f." + language[:2]) == "", source
    for language, source, doc in (
        ("javascript", "// Retry helpers.\nconst MAX = 5;\n", "Retry helpers."),
        ("javascript", "/** Retry helpers. */\n\nconst MAX = 5;\n", "Retry helpers."),
        ("javascript", "/** Routes. */\nconst { Router } = require('express');\n", "Routes."),
        ("javascript", "/** Routes. */\nconst express = require('express').Router;\n", "Routes."),
        ("typescript", "/** Routes. */\nconst m = await import('m');\n", "Routes."),
        ("javascript", "/** Routes. */\nimport express from 'express';\n", "Routes."),
        ("typescript", "/**\n * Timeouts.\n * @module t\n */\nexport const T = 30;\n", "Timeouts.\n@module t"),
        ("rust", "//! The crate.\n/// The answer.\npub const ANSWER: u32 = 42;\n", "The crate."),
        ("rust", "// Helpers for answers.\nuse std::fmt;\n", "Helpers for answers."),
        ("rust", "/// Definitions, written as outer docs.\nuse std::fmt;\n", "Definitions, written as outer docs."),
    ):
        assert module(language, source, "f." + language[:2]) == doc, source


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
function E() {}
/** Stop listening. */
E.prototype.off = E.prototype.removeListener = function (name) { return name }
''', path="router.js")
    found = {(s.kind, s.qualname): (s.start_line, s.end_line, s.docstring) for s in parsed.symbols}
    assert found == {("module", "<module>"): (1, 11, ""), ("function", "proto"): (2, 5, "Make a router."),
                     ("method", "app.get"): (8, 8, "Get it."), ("class", "E"): (9, 9, ""),
                     ("method", "E.off"): (11, 11, "Stop listening.")}  # fmt: skip


def test_what_stands_above_a_doc_block_is_no_part_of_its_doc():
    """Only the ``/** … */`` right above a definition is its doc, as TypeScript and Javadoc
    read it: not a licence block above it (lit's ``ReactiveControllerHost`` read "@license"),
    nor javac's ``// where``, nor an editor's fold; those and a bundle's ``//#region`` marks
    are no doc even alone."""
    ts = docs("typescript", "/**\n * @license MIT\n */\n/** Foo doc. */\nexport function foo() {}\n\n"
              "//#endregion\n//#region src/slice.d.ts\n/** An entry. */\nexport type Entry = number;\n\n"
              "//#region src/other.d.ts\nexport type Other = string;\n", "index.d.ts")  # fmt: skip
    assert (ts["foo"], ts["Entry"], ts["Other"]) == ("Foo doc.", "An entry.", "")
    java = docs("java", 'class T {\n    // where\n    /** Adds vars. */\n    void addVars() {}\n\n'
                '    // <editor-fold defaultstate="collapsed" desc="getBounds">\n    /** Bounds. */\n'
                '    int getBounds() { return 1; }\n    // </editor-fold>\n}\n', "T.java")  # fmt: skip
    assert (java["T.addVars"], java["T.getBounds"]) == ("Adds vars.", "Bounds.")


def test_the_comments_under_a_doc_block_are_no_part_of_its_doc():
    """javac's doc of a method under ``/** Adds. */`` then ``// not thread-safe`` is the doc
    block alone, as TypeScript's is: the note was the doc's last line (223 of the JDK's:
    ``// REMIND: deprecate?``, checkstyle's ``// DontCheck(…)``, JML's ``/*@ requires … @*/``).
    Alone, such a comment is the doc. A banner of stars (``/***** String Literals *****/``) is no
    doc block to Doxygen: in C, the comment under it is still the doc's (CPython's ``_Py_Identifier``)."""
    java = docs("java", "class T {\n    /** Adds. */\n    // not thread-safe\n    void add() {}\n\n"
                "    /**\n     * Counts.\n     */\n    /* an aside */\n    // and a note\n"
                "    int count() { return 1; }\n\n    // Removes.\n    void remove() {}\n}\n", "T.java")  # fmt: skip
    assert (java["T.add"], java["T.count"], java["T.remove"]) == ("Adds.", "Counts.", "Removes.")
    ts = docs("typescript", "/** Parses. */\n// eslint-disable-next-line no-console\n// a note\n"
              "export function parse(): void {}\n", "p.ts")  # fmt: skip
    assert ts["parse"] == "Parses."
    c = docs("c", "/***** String Literals *****/\n/* Helps managing static strings. */\n"
             "typedef struct _Py_Identifier { const char* string; } _Py_Identifier;\n", "object.h")  # fmt: skip
    assert c["_Py_Identifier"] == "String Literals\nHelps managing static strings."  # a banner is no doc block in C


def test_a_note_after_a_doc_blocks_end_on_its_line_hides_no_doc():
    """The JDK's ``X509CertImpl.cloneAltNames``: ``*/ // only partially generified`` after
    its Javadoc. The note, read as one that ends a line of code, parted the doc from the
    method: it had none. The note is the line's, as any other after code is."""
    java = docs("java", "class X {\n    /**\n     * Clones names.\n     */ // only partially generified\n"
                "    static void cloneAltNames() {}\n    int x = 1; // a field's note\n    void after() {}\n}\n",
                "X.java")  # fmt: skip
    assert (java["X.cloneAltNames"], java["X.after"]) == ("Clones names.", "")
    ts = docs("typescript", "/** Parses. */ // eslint-disable-line\nexport function parse(): void {}\n", "p.ts")
    assert ts["parse"] == "Parses."


def test_a_doc_block_above_notes_parted_from_its_definition_is_its_doc():
    """The JDK's ``SerializablePermission``: its Javadoc, a blank line, ``/* code was borrowed
    originally from java.lang.RuntimePermission. */``, a blank line, the class; its
    ``AuthenticationInfo`` and ``SunDropTargetContextPeer.getTransferDataFlavors`` have line
    comments there. Javadoc's and TypeScript's readers take the doc block as the class's: it
    had none. Not a file's block, a banner, nor one code parts from the definition."""
    java = docs("java", "/**\n * Serializable permissions.\n */\n\n/* code was borrowed. */\n\n"
                "public final class P {\n    /**\n     * @return flavors\n     */\n    // NOTE: privileged\n\n"
                "    Object[] flavors() { return null; }\n    int x; // a field\n\n    void plain() {}\n}\n",
                "P.java")  # fmt: skip
    assert (java["P"], java["P.flavors"], java["P.plain"]) == ("Serializable permissions.", "@return flavors", "")
    ts = docs("typescript", "/** @module app */\n\n// helpers\n\nexport function help(): void {}\n", "app.ts")
    assert ts["help"] == ""
    c = docs("c", "int x;\n/****************\n * REQUESTS\n ****************/\n\n/* Request structure */\n\n"
             "typedef struct _xReq { int t; } xReq;\n", "Xproto.h")  # fmt: skip
    assert c["xReq"] == ""  # a section's banner of stars, which X11's headers write


def test_a_one_word_block_comment_under_a_doc_block_is_no_part_of_it():
    """The JDK's ``/*non-public*/`` (301 between a Javadoc and its definition, as in
    ``BoundMethodHandle``), ``/* package-private */``, ``/*pp*/``: a modifier written as a
    comment. It was the doc's last line (``Binds.\\nnon-public``), or hid the Javadoc above
    it (``/*package*/ class HttpConnectSocketImpl``). Alone, it is what it was."""
    java = docs("java", "class M {\n    /**\n     * Binds.\n     */\n    /*non-public*/\n"
                "    static void bind() {}\n\n    /*non-public*/\n    void arg() {}\n\n"
                "    /** Copies. */\n    /* package-private */ void copy() {}\n"
                "    /* Compares two. */ void two() {}\n}\n\n/**\n * Basic impl.\n */\n\n/*package*/ class H {}\n",
                "M.java")  # fmt: skip
    found = (java["M.bind"], java["M.arg"], java["M.copy"], java["H"])
    assert found == ("Binds.", "non-public", "Copies.", "Basic impl.")
    assert java["M.two"] == "Compares two."
    c = docs("c", "int x;\n/* Signature */\nint sign(void);\n", "der.h")
    assert c["sign"] == "Signature"  # no doc block above: OpenSSL's label over a group of functions


def test_go_directives_and_linters_notes_are_no_doc():
    found = docs("go", "package p\n\n//go:nosplit\n//go:cgo_unsafe_args\nfunc fcntl(fd int32) int32 { return 0 }\n\n"
                 "// Real doc.\n//lint:ignore SA1019 kept for callers\nfunc g() {}\n", "sys.go")  # fmt: skip
    assert (found["fcntl"], found["g"]) == ("", "Real doc.")


def test_a_function_a_call_in_parentheses_makes_is_the_names_not_its_locals():
    """three.js's ``export const cameraFar = /*@__PURE__*/ ( Fn( … ) )``: the function is
    ``cameraFar``, and the ``const`` inside its body is no function of the file."""
    source = ("export const cameraFar = /*@__PURE__*/ ( Fn( ( { camera } ) => {\n"
              "\tconst far = uniformArray( camera, 'far', ( c ) => { return c.far; } );\n\treturn far;\n} ) );\n"
              "const Row = ( memo( function Row( props ) { return props.x; } ) );\n")  # fmt: skip
    symbols = [(s.kind, s.qualname, s.start_line) for s in parse("javascript", source.encode()).symbols]
    assert symbols == [("module", "<module>", 1), ("function", "cameraFar", 1), ("function", "Row", 5)]


def test_the_functions_of_an_object_within_a_named_object_are_named_by_both():
    source = b"export const api = { users: { list() {}, get: (id) => id }, ping() {} };\n"
    assert [s.qualname for s in parse("javascript", source).symbols] == [
        "<module>", "api.users.list", "api.users.get", "api.ping"]  # fmt: skip


def test_the_stars_that_open_a_doc_blocks_first_line_are_no_part_of_its_text():
    """The JDK's ``/************ ConvolveOp support ************/`` above a method: javac's
    doc is ``ConvolveOp support``; recalld's kept all but one of the stars (``***********
    ConvolveOp support``). A rule of stars alone on that line is still a rule."""
    java = docs("java", "class B {\n    /****** Color support ******/\n\n    void setColor() {}\n\n"
                "    /************\n     * Framed.\n     ************/\n    void framed() {}\n}\n",
                "B.java")  # fmt: skip
    assert (java["B.setColor"], java["B.framed"]) == ("Color support", "Framed.")


def test_a_java_docs_unicode_escapes_read_as_their_characters():
    """javac reads ``\\u00e4`` as ``ä`` anywhere in a file, its docs too (the JDK's
    ``CollationElementIterator``: ``"\\u00e4b"``); recalld kept 160 of the JDK's docs as
    written. A backslash written so starts no escape (``Character``'s ``'\\u005Cu0000'``
    reads ``'\\u0000'``), nor does one after a backslash (``\\\\u2014``); a control's and a
    lone surrogate's stay as written. Another language's comment is as written."""
    java = docs("java", "/**\n * Caf\\u00e9, \\uuu00e4b, \\ud83d\\ude00, \\u005Cu0000, \\\\u2014, \\u0000, \\ud83d.\n"
                " */\nclass T {}\n", "T.java")  # fmt: skip
    assert java["T"] == "Café, äb, \U0001f600, \\u0000, \\\\u2014, \\u0000, \\ud83d."
    assert docs("javascript", "/** Caf\\u00e9. */\nfunction f() {}\n", "f.js")["f"] == "Caf\\u00e9."


def test_a_java_doc_block_of_stars_above_notes_is_its_doc():
    """javac's ``Flow.FlowAnalyzer.visitClassDef``: a ``/*****…`` framed Javadoc, a blank line,
    ``/* ---- Visitor methods for various sorts of trees ---- */``, a blank line, the
    method. javac takes the framed block for its doc, as it takes any ``/**``; recalld read
    it as a section's banner, as C's headers write one, and the method had none. A C
    header's is a banner still (``test_a_doc_block_above_notes_parted_from_its_definition_is_its_doc``)."""
    java = docs("java", "class F {\n    /*************\n     * Visitor methods.\n     *************/\n\n"
                "    /* ------ for trees ------*/\n\n    void visitClassDef() {}\n}\n", "F.java")  # fmt: skip
    assert java["F.visitClassDef"] == "Visitor methods."


def test_a_java_doc_block_above_notes_right_above_the_definition_is_its_doc():
    """The JDK's ``Logger.getLogger``: its Javadoc, a blank line, then ``// Synchronization is
    not required here. …`` right above the method; ``Class.ReflectionData`` and 39 others of
    JDK 17's. javac takes the last doc block before a declaration whatever comments or blank
    lines part them; the note read as the doc. A C++ header's group (``/** @addtogroup
    exceptions @{ */``) above a ``///`` doc is no class's doc, as Doxygen reads it."""
    java = docs("java", "class L {\n    /**\n     * Finds a logger.\n     */\n\n    // Synchronization is not required.\n"
                "    @CallerSensitive\n    static L getLogger() { return null; }\n\n    /** Reflection support. */\n"
                "    // caches names\n\n    /* may be invalidated */\n    static class Data {}\n\n"
                "    int x; // a field\n    // plain\n    void plain() {}\n}\n", "L.java")  # fmt: skip
    assert (java["L.getLogger"], java["L.Data"], java["L.plain"]) == ("Finds a logger.", "Reflection support.", "plain")
    cpp = docs("cpp", "namespace std {\n  /**\n   * @addtogroup exceptions\n   * @{\n   */\n\n"
               "  /// Exception class with exception_ptr data member.\n  class nested_exception {};\n}\n", "n.h")  # fmt: skip
    assert cpp["std.nested_exception"] == "Exception class with exception_ptr data member."


def test_a_jsdoc_block_that_declares_a_type_set_apart_above_a_function_is_not_its_doc():
    """``/** @typedef … */`` or ``@callback`` over a blank line declares a type of its own,
    as it already did above notes: it was read as the doc of the function below it."""
    found = docs("javascript", '''/**
 * Options of a widget.
 * @typedef {Object} Options
 * @property {number} size
 */

function make(options) { return options; }

/**
 * Called once a widget is ready.
 * @callback Ready
 * @param {Error} err
 */

function start(ready) { ready(null); }

/**
 * Makes a widget, set apart.
 */

function widget() {}
''', "lib/widget.js")
    assert found == {"make": "", "start": "", "widget": "Makes a widget, set apart.", "<module>": ""}, found
