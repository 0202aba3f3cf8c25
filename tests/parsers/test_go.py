"""Go on its real grammar: a function a package-level variable holds is a function."""

from __future__ import annotations

from recalld.parsers import parse


def test_a_function_a_package_variable_holds_is_a_function_and_a_local_one_is_not():
    """net's ``var testHookDialChannel = func() {}``, cmd/go's ``var AllowInstall =
    func(*load.Package) error {…}``."""
    source = (
        "package p\n\nvar handler = func(x int) int {\n\treturn x\n}\n\nvar (\n\t// Doc of a.\n\ta = func() {}\n"
        "\tb = 1\n\tc, d = func() {}, func() {}\n)\n\nfunc main() {\n\tvar local = func() {}\n\tlocal()\n}\n"
    )
    found = [(s.kind, s.qualname, s.start_line, s.end_line, s.docstring) for s in parse("go", source.encode()).symbols]
    assert found == [("module", "<module>", 1, 17, ""), ("function", "handler", 3, 5, ""),
                     ("function", "a", 9, 9, "Doc of a."), ("function", "main", 14, 17, "")]  # fmt: skip


def test_a_documented_package_variable_function_has_its_doc_and_only_directives_leave_a_doc():
    """database/sql's ``var rowsCloseHook = func() …`` out of a ``var (…)`` group had no doc;
    runtime's ``// go:notinheap types (which pollDesc is) must be stored`` lost its line (with
    a space it is text: only ``//go:`` is a directive); gccgo's ``//extern`` lines were doc."""
    source = (
        "package p\n\n// rowsCloseHook returns a function so tests may install the hook.\n"
        "var rowsCloseHook = func() func(int) { return nil }\n\n"
        "// makeArg converts pd to an interface{}. Pointers to\n// go:notinheap types must be stored\n"
        "// in interfaces indirectly.\n//go:nosplit\nfunc makeArg() {}\n\n"
        "// realSyscall calls the C library.\n//extern syscall\nfunc realSyscall(trap int64) int64\n"
    )
    assert {s.qualname: s.docstring for s in parse("go", source.encode()).symbols[1:]} == {
        "rowsCloseHook": "rowsCloseHook returns a function so tests may install the hook.",
        "makeArg": "makeArg converts pd to an interface{}. Pointers to\ngo:notinheap types must be stored\n"
        "in interfaces indirectly.",
        "realSyscall": "realSyscall calls the C library.",
    }


def test_an_anonymous_interfaces_methods_are_no_members():
    """runtime's test ``type IfaceKey struct { i interface { F() } }`` had a method ``IfaceKey.F``."""
    source = "package p\n\ntype IfaceKey struct {\n\ti interface {\n\t\tF()\n\t}\n}\n\ntype A interface {\n\tG()\n}\n"
    assert [(s.kind, s.qualname) for s in parse("go", source.encode()).symbols[1:]] == [
        ("struct", "IfaceKey"), ("interface", "A"), ("method", "A.G")]  # fmt: skip


def test_a_docs_lines_keep_their_indentation_past_the_comments_punctuation():
    """Go's tab-indented example, a JSDoc tag's continued line and a Rust doc's nested list
    read as written, less what every line shares (each line was stripped)."""
    go = ("package p\n\n// An Errno is an error number:\n//\n//\terr = nil\n//\tif errno != 0 {\n//\t\terr = errno\n"
          "//\t}\ntype Errno int\n")
    (errno,) = [s for s in parse("go", go.encode()).symbols if s.qualname == "Errno"]
    assert errno.docstring == "An Errno is an error number:\n\n\terr = nil\n\tif errno != 0 {\n\t\terr = errno\n\t}"
    js = ("/**\n * Copies the names.\n *\n * @param {Node} element - the button; its siblings\n"
          " *   hold the table.\n */\nfunction copy(element) {}\n")
    (copy,) = [s for s in parse("javascript", js.encode()).symbols if s.qualname == "copy"]
    assert copy.docstring == "Copies the names.\n\n@param {Node} element - the button; its siblings\n  hold the table."
    rust = "///   Steps:\n///   1. read\n///      then parse\nfn run() {}\n"
    (run,) = [s for s in parse("rust", rust.encode()).symbols if s.qualname == "run"]
    assert run.docstring == "Steps:\n1. read\n   then parse"


def test_the_doc_above_a_group_documents_the_group_not_its_first_member():
    """runtime's ``// The specialized routines need a type descriptor`` above ``type ( … )``
    was its first type's doc alone; go/doc gives it to none of them. A group of one is that
    one's, and a member's own comment its doc."""
    grouped = "package p\n\n// Shared by both.\ntype (\n\tA uint16\n\t// B is the other.\n\tB uint32\n)\n"
    assert [(s.qualname, s.docstring) for s in parse("go", grouped.encode()).symbols][1:] == [
        ("A", ""), ("B", "B is the other.")]
    alone = "package p\n\n// A is alone.\ntype (\n\tA uint16\n)\n"
    assert [(s.qualname, s.docstring) for s in parse("go", alone.encode()).symbols][1:] == [("A", "A is alone.")]


def test_a_block_comments_hash_and_slashes_are_its_text_and_a_line_comments_close_mark_too():
    """In a ``/* … */`` doc a line's ``#`` or ``//`` is text (Go's ``# Introduction`` heading
    and ``// handle error`` in an example, a Rust ``/** */`` doc's ``# Safety``, C's
    ``#include``): they were read as comment marks and cut. A ``///`` line's ``*/`` is its text."""
    go = "/*\nPackage p does things.\n\n# Introduction\n\n\tif err != nil {\n\t\t// handle error\n\t}\n*/\npackage p\n"
    assert parse("go", go.encode()).symbols[0].docstring == (
        "Package p does things.\n\n# Introduction\n\n\tif err != nil {\n\t\t// handle error\n\t}")
    rust = "/**\n Reads it.\n\n # Safety\n */\nunsafe fn read() {}\n/// let x = 1; /* one */\nfn one() {}\n"
    assert [s.docstring for s in parse("rust", rust.encode()).symbols[1:]] == ["Reads it.\n\n# Safety",
                                                                               "let x = 1; /* one */"]  # fmt: skip
