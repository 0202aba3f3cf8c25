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
