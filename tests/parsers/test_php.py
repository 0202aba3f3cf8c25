"""PHP on its real grammar: what a braced block at the top level defines is as global as
what the file defines outside one; a closure's and an anonymous class's are not."""

from __future__ import annotations

from recalld.parsers import parse


def named(source: str) -> list[tuple[str, str]]:
    return [(s.kind, s.qualname) for s in parse("php", source.encode(), path="src/a.php").symbols[1:]]


def test_a_braced_namespace_defines_what_it_holds():
    source = (
        "<?php\nnamespace App\\Shapes {\n    class Circle {\n        public function area() { return 1; }\n    }\n}\n"
        "namespace {\n    function boot() {}\n}\n"
    )
    assert named(source) == [("class", "Circle"), ("method", "Circle.area"), ("function", "boot")]


def test_a_function_or_class_declared_under_a_condition_is_global():
    # Laravel's helpers.php and Symfony's polyfills declare every function this way
    source = (
        "<?php\nif (! function_exists('app')) {\n    function app($abstract = null) { return $abstract; }\n}\n"
        "if (\\PHP_VERSION_ID >= 80000) {\n    class Stringable {}\n} else {\n    class Stringable {}\n}\n"
    )
    assert named(source) == [("function", "app"), ("class", "Stringable"), ("class", "Stringable#2")]


def test_what_a_function_a_closure_or_an_anonymous_class_holds_stays_local():
    source = (
        "<?php\nfunction outer() {\n    function inner() {}\n    if (true) { class Hidden {} }\n}\n"
        "$make = function () { function made() {} };\n"
        "$object = new class { public function hidden() {} };\n"
        "class Kept { public function run() { function nested() {} } }\n"
    )
    assert named(source) == [("function", "outer"), ("class", "Kept"), ("method", "Kept.run")]


def test_the_comment_after_the_opening_tag_is_the_files_doc():
    source = "<?php\n/**\n * Helpers for the cache layer.\n */\n\nnamespace App;\n\nfunction remember() {}\n"
    result = parse("php", source.encode(), path="src/cache.php")
    assert result.symbols[0].docstring == "Helpers for the cache layer."


def test_pest_tests_are_named_by_their_titles_and_a_suite_holds_its_tests():
    """Pest (Laravel's default test runner since 11) writes tests as calls with closures:
    they made no memory, and a ``describe``'s closure held them as its locals."""
    source = (
        "<?php\nuses(Tests\\TestCase::class);\n\ndescribe('sum', function () {\n"
        "    beforeEach(function () { $this->total = 0; });\n"
        "    it(\"adds numbers\", function () {\n        function helper() {}\n        expect(sum(1, 2))->toBe(3);\n"
        "    });\n});\n\ntest('the app responds', function () {\n    $this->get('/');\n})->group('smoke');\n\n"
        "it('is fast', fn () => true);\n$x = test('no closure');\n"
        "class Page { public function test() { it('inside a method', fn () => 1); } }\n"
    )
    assert named(source) == [
        ("class", '"sum"'), ("method", '"sum"."adds numbers"'), ("function", '"the app responds"'),
        ("function", '"is fast"'), ("class", "Page"), ("method", "Page.test"),
    ]  # fmt: skip


def test_php_codesniffers_and_phpstans_directives_are_no_doc():
    """MediaWiki 1.39 writes ``// phpcs:ignore PSR2.Methods.MethodDeclaration.Underscore``
    above a method and ``@phpcs:ignore Generic.Files.LineLength`` among a doc's tags: 37 of
    its docs held such a line, 13 were nothing else."""
    source = (
        "<?php\nclass Title {\n    // phpcs:ignore PSR2.Methods.MethodDeclaration.Underscore\n"
        "    public function __newObject() {}\n\n    /**\n     * Builds the page info.\n"
        "     * @phpcs:ignore Generic.Files.LineLength\n     * @phan-return array{int:string}\n"
        "     * @phpstan-ignore-next-line\n     * @codingStandardsIgnoreStart\n     */\n"
        "    public function pageInfo() {}\n}\n"
    )
    result = parse("php", source.encode(), path="src/Title.php")
    assert [(s.qualname, s.docstring) for s in result.symbols[1:]] == [
        ("Title", ""), ("Title.__newObject", ""),
        ("Title.pageInfo", "Builds the page info.\n@phan-return array{int:string}"),
    ]  # fmt: skip


def test_a_sections_title_or_banner_is_no_doc_of_the_method_below():
    """Parsoid's grammar (wikipeg's) writes ``// actions`` above ``a0`` and ``// generated``
    above its first rule, MediaWiki's AutoLoader ``///// Methods used during testing /////``,
    Composer's ``AliasPackage`` a box of stars (``/*****``: no doc comment to PHP's lexer)
    then a blank line: each was the doc of the method below. A word right under the member
    before it notes the one below; a doc block of one word is its doc, set apart or not."""
    source = (
        "<?php\nclass Grammar {\n    private $expectations = [];\n\n    // actions\n    private function a0() {}\n"
        "    private function a1() {}\n    // sibling\n    private function a2() {}\n\n"
        "    ///// Methods used during testing ////////////////////\n    private static function assertTesting() {}\n\n"
        "    /***************************************\n     * Wrappers around the aliased package *\n"
        "     ***************************************/\n\n    public function getType() {}\n\n"
        "    /**\n     * Compiling\n     */\n\n    private function compile() {}\n\n"
        "    // Default to main slot\n    function slot() {}\n}\n"
    )
    result = parse("php", source.encode(), path="src/Grammar.php")
    assert {s.qualname: s.docstring for s in result.symbols[1:]} == {
        "Grammar": "", "Grammar.a0": "", "Grammar.a1": "", "Grammar.a2": "sibling", "Grammar.assertTesting": "",
        "Grammar.getType": "", "Grammar.compile": "Compiling", "Grammar.slot": "Default to main slot",
    }  # fmt: skip
