"""What a doc comment's text is: no tool directive or type declaration above it, no rule or
banner framing it, a line comment's stars its own and a block comment's margin not."""

from __future__ import annotations

from recalld.parsers import parse


def test_tool_directives_and_type_declarations_are_no_documentation():
    """webpack: ``/* istanbul ignore next */`` above a method, ``@typedef`` blocks stacked
    above a class's doc; Go: ``//go:build`` before the package comment."""
    js = (b"/**\n * @typedef {object} Opts\n */\n/**\n * Represents the plugin.\n */\nclass P {\n"
          b"  /* istanbul ignore next */\n  parse() {}\n  // eslint-disable-next-line no-unused-vars\n  // Runs it.\n"
          b"  run() {}\n}\n")  # fmt: skip
    docs = {s.qualname: s.docstring for s in parse("javascript", js).symbols}
    assert docs == {"<module>": "", "P": "Represents the plugin.", "P.parse": "", "P.run": "Runs it."}
    go = (b"//go:build linux\n\n// Package sys calls the kernel.\npackage sys\n\n"
          b"//go:noinline\n// Fast adds.\nfunc Fast() {}\n")  # fmt: skip
    docs = {s.qualname: s.docstring for s in parse("go", go).symbols}
    assert docs == {"<module>": "Package sys calls the kernel.", "Fast": "Fast adds."}


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
              b"// ===== Parsing =====\n// Parses the input.\nfunction p() {}\n"
              b"// *** Slow *** on big input.\nfunction q() {}\n")  # fmt: skip
    assert [s.docstring for s in parse("typescript", banner).symbols[1:]] == [
        "", "Parses the input.", "*** Slow *** on big input.",
    ]  # fmt: skip


def test_a_line_comments_stars_are_its_text_and_a_block_comments_margin_is_not():
    """clap's ``/// **NOTE:** …`` read ``*NOTE:** …`` (94 of its docs), and a ``//!``
    list's ``* item`` lost its bullet; jackson's margins without a space (`` *<p>``) go."""
    rust = b"/// **NOTE:** slow.\n///\n/// * first\n/// *emphasis*\nfn f() {}\n"
    assert parse("rust", rust).symbols[1].docstring == "**NOTE:** slow.\n\n* first\n*emphasis*"
    java = b"class A {\n  /**\n   * Reads.\n   *<p>\n   * ** Bold ** text.\n   */\n  void r() {}\n}\n"
    assert parse("java", java).symbols[2].docstring == "Reads.\n<p>\n** Bold ** text."


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
