"""A definition's text on real grammars: the decorators and attributes written before it as
its siblings (TypeScript's, JavaScript's, Rust's), the comments that end its last line,
and a doc comment on a file's first line after a UTF-8 byte order mark."""

from __future__ import annotations

import pytest

from recalld.parsers import Symbol, parse

BOM = b"\xef\xbb\xbf"

ANGULAR = """/** The greeting card. */
@Component({selector: 'app-card'})
export class Card {
  @HostListener('click') onClick() {}
}
"""

RUST = """/// A point.
#[derive(Debug)]
struct Point { x: i32 }

#[cfg(test)]
/// The test below its attribute.
fn checks() {}

impl Point {
    #[inline]
    fn x(&self) -> i32 { self.x }
}
"""


def symbols(language: str, source: str | bytes, path: str) -> dict[str, Symbol]:
    data = source.encode() if isinstance(source, str) else source
    return {s.qualname: s for s in parse(language, data, path=path).symbols}


@pytest.mark.parametrize(
    ("language", "path", "source", "edit", "qualname"),
    [
        ("typescript", "src/card.ts", ANGULAR, ("'app-card'", "'app-tile'"), "Card"),
        ("typescript", "src/card.ts", ANGULAR, ("'click'", "'dblclick'"), "Card.onClick"),
        ("javascript", "src/card.js", ANGULAR, ("'app-card'", "'app-tile'"), "Card"),
        ("rust", "src/lib.rs", RUST, ("derive(Debug)", "derive(Debug, Clone)"), "Point"),
        ("rust", "src/lib.rs", RUST, ("cfg(test)", "cfg(unix)"), "checks"),
        ("rust", "src/lib.rs", RUST, ("#[inline]", "#[inline(always)]"), "Point.x"),
    ],
)
def test_an_edit_of_a_decorator_or_attribute_alone_changes_its_definition(
    language: str, path: str, source: str, edit: tuple[str, str], qualname: str
):
    before = symbols(language, source, path)[qualname]
    after = symbols(language, source.replace(*edit), path)[qualname]
    assert edit[1] in after.source
    assert after.content_hash != before.content_hash


def test_a_definition_starts_at_its_first_decorator_or_attribute():
    card = symbols("typescript", ANGULAR, "src/card.ts")
    assert (card["Card"].start_line, card["Card"].end_line) == (2, 5)
    assert card["Card"].source.startswith("@Component({selector: 'app-card'})\nexport class Card {")
    assert (card["Card.onClick"].start_line, card["Card.onClick"].source) == (4, "@HostListener('click') onClick() {}")
    rust = symbols("rust", RUST, "src/lib.rs")
    lines = {q: (rust[q].start_line, rust[q].end_line) for q in ("Point", "checks", "Point.x")}
    assert lines == {"Point": (2, 3), "checks": (5, 7), "Point.x": (10, 11)}
    assert rust["checks"].source == "#[cfg(test)]\n/// The test below its attribute.\nfn checks() {}"


def test_the_doc_above_a_decorated_export_is_its_class_s_not_the_file_s():
    for language, path in (("typescript", "src/card.ts"), ("javascript", "src/card.js")):
        found = symbols(language, ANGULAR, path)
        assert (found["<module>"].docstring, found["Card"].docstring) == ("", "The greeting card.")
        reworded = symbols(language, ANGULAR.replace("greeting", "welcome"), path)["Card"]
        assert reworded.content_hash != found["Card"].content_hash


def test_the_doc_above_a_rust_item_s_attributes_is_the_item_s_not_the_file_s():
    found = symbols("rust", RUST, "src/lib.rs")
    assert (found["<module>"].docstring, found["Point"].docstring) == ("", "A point.")
    assert found["checks"].docstring == "The test below its attribute."


def test_a_comment_ending_a_definition_s_last_line_is_its_own():
    source = (
        "class Totals:\n    def add(self, x):\n        return x + 1  # one more\n    # the next method's\n"
        "    def sub(self, x):\n        if x:\n            return x - 1  # one less\n"
        "# the module's\nVALUE = 1\n"
    )
    found = symbols("python", source, "totals.py")
    assert found["Totals.add"].source == "def add(self, x):\n        return x + 1  # one more"
    assert found["Totals.sub"].source.endswith("return x - 1  # one less")
    assert (found["Totals.sub"].end_line, found["Totals"].end_line) == (7, 7)
    assert "the module's" not in found["Totals"].source
    edited = symbols("python", source.replace("# one more", "# add one"), "totals.py")
    assert edited["Totals.add"].content_hash != found["Totals.add"].content_hash
    assert edited["Totals.sub"].content_hash == found["Totals.sub"].content_hash


def test_a_comment_on_the_line_after_a_definition_stays_out_of_it():
    source = "fn first() {} // first's\n/// The second.\nfn second() {}\n"
    found = symbols("rust", source, "src/lib.rs")
    assert (found["first"].source, found["first"].end_line) == ("fn first() {} // first's", 1)
    assert (found["second"].source, found["second"].docstring) == ("fn second() {}", "The second.")


@pytest.mark.parametrize(
    ("language", "path", "source", "qualname"),
    [
        ("go", "main.go", "// Run starts it.\nfunc Run() {}\n", "Run"),
        ("typescript", "src/run.ts", "/** Run starts it. */\nexport function run() {}\n", "run"),
        ("java", "Run.java", "/** Run starts it. */\npublic class Run {}\n", "Run"),
        ("c", "run.c", "/* Run starts it. */\nint run(void) { return 0; }\n", "run"),
        ("csharp", "Run.cs", "/// Run starts it.\npublic class Run {}\n", "Run"),
        ("ruby", "run.rb", "# Run starts it.\nclass Run\nend\n", "Run"),
        ("lua", "run.lua", "-- Run starts it.\nfunction run() end\n", "run"),
        ("kotlin", "Run.kt", "/** Run starts it. */\nclass Run\n", "Run"),
    ],
)
def test_a_byte_order_mark_keeps_the_doc_comment_on_the_first_line(
    language: str, path: str, source: str, qualname: str
):
    plain = symbols(language, source, path)[qualname]
    marked = symbols(language, BOM + source.encode(), path)[qualname]
    assert (plain.docstring, marked.docstring) == ("Run starts it.", "Run starts it.")
    assert marked.content_hash == plain.content_hash
