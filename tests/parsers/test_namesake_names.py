"""Definitions of one name in one scope named by what they are, not by their order: a
property beside a function's overloads, a record's compact constructor, a setter beside its
getter, a class method beside an instance method, Python's deleter, and the parts of one
declaration (TypeScript's merged interfaces, C#'s partial classes)."""

from __future__ import annotations

import pytest

from recalld.ingest.qualnames import parent_scope, short_name
from recalld.parsers import parse


def qualnames(language: str, source: str) -> list[str]:
    return [s.qualname for s in parse(language, source.encode()).symbols if s.kind != "module"]


OVERLOADS = {
    "kotlin": "class Shape {\n    fun size(scale: Int): Int = scale\n    fun size(scale: Double): Int = 1\n}\n",
    "swift": "class Shape {\n    func size(scale: Int) -> Int { return scale }\n"
             "    func size(scale: Double) -> Int { return 1 }\n}\n",
}  # fmt: skip
PROPERTY = {"kotlin": "    val size: Int get() = 1\n", "swift": "    var size: Int { return 1 }\n"}


@pytest.mark.parametrize("language", sorted(OVERLOADS))
def test_a_property_of_an_overloaded_functions_name_leaves_the_overloads_their_types(language: str):
    alone = qualnames(language, OVERLOADS[language])
    head, _, rest = OVERLOADS[language].partition("\n")
    beside = qualnames(language, f"{head}\n{PROPERTY[language]}{rest}")
    assert beside == ["Shape", "Shape.size", *alone[1:]]
    assert all("#" not in name for name in beside)
    assert len(alone) == 3 and alone[1] != alone[2]


def test_a_records_compact_constructor_is_named_by_the_records_components():
    record = "record Point(int x, int y) {\n    Point {\n        if (x < 0) throw new IllegalStateException();\n    }\n"
    overloads = "    Point(int x) { this(x, 0); }\n    Point(String s) { this(1, 0); }\n}\n"
    assert qualnames("java", record + overloads) == [
        "Point", "Point.Point(int, int)", "Point.Point(int)", "Point.Point(String)",
    ]  # fmt: skip
    canonical = "record Point(int x, int y) {\n    Point(int x, int y) { this.x = x; this.y = y; }\n"
    assert qualnames("java", canonical + overloads)[1] == "Point.Point(int, int)"  # written out, the same name



def test_a_comment_after_a_python_decorator_leaves_it_what_it_names():
    """``@overload  # int case`` is an overload, ``@x.setter  # validates`` a setter (pydantic's
    ``Field``, whose implementation was ``Field#6``)."""
    source = (
        "@overload  # int case\ndef get(key: int) -> int: ...\n@typing.overload  # str\ndef get(key: str) -> str: ...\n"
        "def get(key):\n    return key\n\n\nclass A:\n    @property  # read\n    def x(self):\n        return 1\n\n"
        "    @x.setter  # validates\n    def x(self, v):\n        pass\n"
    )
    assert qualnames("python", source) == ["get(int)", "get(str)", "get", "A", "A.x", "A.x="]


@pytest.mark.parametrize(
    ("language", "source", "expected"),
    [
        (
            "typescript",
            "class Btn {\n  get count(): number { return 1; }\n  static get count(): number { return 2; }\n"
            "  static set count(v: number) {}\n}\n",
            ["Btn", "Btn.count", "Btn.static.count", "Btn.static.count="],
        ),
        (
            "ruby",
            "class Base\n  def self.x; end\n  def self.x=(v); end\n  def x; end\nend\n",
            ["Base", "Base.self.x", "Base.self.x=", "Base.x"],
        ),
    ],
)
def test_a_class_setter_is_named_as_the_class_getter_of_its_property(
    language: str, source: str, expected: list[str]
):
    assert qualnames(language, source) == expected


def test_a_python_deleter_is_named_as_python_deletes_the_property():
    source = (
        "class A:\n    @property\n    def x(self):\n        return self._x\n\n    @x.setter\n    def x(self, v):\n"
        "        self._x = v\n\n    @x.deleter\n    def x(self):\n        del self._x\n"
    )
    assert qualnames("python", source) == ["A", "A.x", "A.x=", "A.del x"]
    getter_and_deleter = source.replace("    @x.setter\n    def x(self, v):\n        self._x = v\n\n", "")
    assert qualnames("python", getter_and_deleter) == ["A", "A.x", "A.del x"]


@pytest.mark.parametrize(
    ("language", "source", "expected"),
    [
        (
            "typescript",
            "interface Shape {\n  area(): number;\n}\ninterface Shape {\n  perimeter(): number;\n"
            "  area(scale: number): number;\n}\nclass Box {\n  open(): void {}\n}\nclass Box {\n  open(): void {}\n}\n",
            ["Shape", "Shape.area()", "Shape#2", "Shape.perimeter", "Shape.area(number)",
             "Box", "Box.open", "Box#2", "Box#2.open"],
        ),
        (
            "csharp",
            "partial class Shape {\n    void Area() {}\n}\npublic partial class Shape {\n    void Perimeter() {}\n"
            "    void Area(int scale) {}\n    partial struct Part {}\n}\n"
            "partial class Shape {\n    void Perimeter() {}\n    partial struct Part { void Hide() {} }\n}\n",
            ["Shape", "Shape.Area()", "Shape#2", "Shape.Perimeter()", "Shape.Area(int)", "Shape.Part",
             "Shape#3", "Shape.Perimeter()#2", "Shape.Part#2", "Shape.Part.Hide"],
        ),
    ],
)  # fmt: skip
def test_the_parts_of_one_declaration_name_their_members_under_its_name(
    language: str, source: str, expected: list[str]
):
    """A redefinition that is no part (TypeScript's ``class Box`` twice) is numbered still."""
    assert qualnames(language, source) == expected
    symbols = parse(language, source.encode()).symbols
    assert len({(s.kind, s.qualname) for s in symbols}) == len(symbols)


def test_a_long_parameter_type_is_cut_with_its_brackets_closed():
    """pytest's ``RaisesExc.__init__`` was named ``__init__((type[BaseExcT_co_default]|tuple[type[…,.,
    …)``: a type cut mid-bracket. Its brackets are closed after the ``…`` now, the name's
    scope and parameters read as ever."""
    long = "tuple[type[BaseExceptionGroupType], type[BaseExceptionGroupType], type[{}]]"
    source = (f"class R:\n    @overload\n    def f(self, e: {long.format('A')}) -> None: ...\n"
              f"    @overload\n    def f(self, e: {long.format('B')}, m: int) -> None: ...\n"
              "    def f(self, e, m=0): pass\n")
    typed = qualnames("python", source)[1]
    assert typed == "R.f(tuple[type[BaseExceptionGroupType],type[BaseExceptionGroupTy…]])"
    assert (parent_scope(typed), short_name(typed)) == ("R", "f")


def test_the_methods_of_the_object_type_a_type_alias_is_are_its_members():
    source = "export type Api = {\n  then(cb: () => void): void;\n  name: string;\n};\n"
    assert qualnames("typescript", source) == ["Api", "Api.then"]


def test_dispatch_registrations_are_named_by_the_types_they_register():
    """``@process.register`` above each ``def _``: by the decorator's type or the first
    parameter's annotation, so that one registered above another renames neither; plum's
    ``@dispatch`` by as many parameters as tell them apart; a plain ``@register`` (a registry's) is no dispatch."""
    registrations = (
        "@process.register\ndef _(arg: int): ...\n@process.register(str)\ndef _(arg): ...\n"
        "@dispatch\ndef add(a: str, b: int): ...\n@dispatch(int, int)\ndef add(a, b): ...\n"
        "@register\ndef lower(v: str): ...\n@register\ndef lower(v: int): ...\n"
    )
    assert qualnames("python", registrations) == ["_(int)", "_(str)", "add(str, …)", "add(int, …)", "lower",
                                                  "lower#2"]  # fmt: skip
    above = "@process.register(bytes)\ndef _(arg): ...\n" + registrations
    assert qualnames("python", above)[:3] == ["_(bytes)", "_(int)", "_(str)"]


def test_a_java_parameters_dimensions_after_its_name_are_its_types():
    """``byte b[]`` is a ``byte[]`` as ``byte[] b`` is (the JDK's ``InputStream.read(byte b[])``,
    ``String.valueOf(char data[])``): the overload was named ``read(byte)``, and beside
    ``print(char c)`` numbered ``print(char)#2``."""
    source = (
        "class Out {\n    void print(char c) {}\n    void print(char s[]) {}\n    void print(final char @A [] s[]) {}\n"
        "    int read() { return 0; }\n    int read(byte b[], int off, int len) { return 0; }\n}\n"
    )
    assert qualnames("java", source) == [
        "Out", "Out.print(char)", "Out.print(char[])", "Out.print(char[][])",
        "Out.read()", "Out.read(byte[], int, int)",
    ]  # fmt: skip


@pytest.mark.parametrize("language", ["javascript", "typescript"])
def test_a_setter_is_named_as_ruby_names_one_beside_its_getter(language: str):
    """``get value()`` and ``set value(v)`` were ``value`` and ``value#2`` by order (and
    TypeScript's ``value()`` and ``value(number)``, by its parameters): the setter is
    ``value=``, whichever comes first; a method named ``set`` is no setter."""
    typed = ": number" if language == "typescript" else ""
    source = (
        f"class Box {{\n  set value(v{typed}) {{}}\n  get value() {{ return 1; }}\n  static set now(n{typed}) {{}}\n"
        f"  static get now() {{ return 0; }}\n  set(key{typed}) {{}}\n}}\n"
        f"const o = {{\n  get size() {{ return 1; }},\n  set size(v{typed}) {{}},\n}};\n"
    )
    assert [s.qualname for s in parse(language, source.encode()).symbols[1:]] == [
        "Box", "Box.value=", "Box.value", "Box.now=", "Box.now", "Box.set", "o.size", "o.size=",
    ]  # fmt: skip
    if language == "typescript":
        declared = b"interface Sized {\n  get size(): number;\n  set size(v: number);\n}\n"
        assert [s.qualname for s in parse(language, declared).symbols[1:]] == ["Sized", "Sized.size", "Sized.size="]


@pytest.mark.parametrize("language", ["javascript", "typescript"])
def test_a_class_method_beside_an_instance_method_of_its_name_is_named_static(language: str):
    """MediaWiki's ``DateFormatter`` has ``static formatDate(date)`` and ``formatDate(date)``,
    its ``Title`` ``Title.exists = function`` and ``exists`` in its prototype: the second of
    each was ``#2`` (TypeScript's ``formatDate(_)#2``), whichever came first."""
    typed = ": Date" if language == "typescript" else ""
    source = (
        f"class DateFormatter {{\n  formatDate(d{typed}) {{}}\n  static formatDate(d{typed}) {{}}\n"
        f"  static zone() {{}}\n}}\n"
        "function Title(a) { this.a = a; }\nTitle.exists = function (t) {};\n"
        "Title.prototype = {\n  exists: function () {},\n};\n"
    )
    assert [s.qualname for s in parse(language, source.encode()).symbols[1:]] == [
        "DateFormatter", "DateFormatter.formatDate", "DateFormatter.static.formatDate", "DateFormatter.zone",
        "Title", "Title.static.exists", "Title.exists",
    ]  # fmt: skip


def test_a_java_method_named_as_its_class_beside_its_constructor_is_named_with_its_return_type():
    """The JDK's ``DefaultTreeCellEditor.EditorContainer`` declares ``public EditorContainer()``
    and ``public void EditorContainer()``: the later was numbered ``EditorContainer()#2``,
    whichever it was. The method is named with its return type, as an IDE's outline writes
    it, and the constructor keeps its name; read back, the method is ``EditorContainer`` of
    its class. One of other parameters' types is an overload as before."""
    source = "class E {\n    void E() {}\n    E() {}\n    E(int x) {}\n    int E(String s) { return 1; }\n}\n"
    found = qualnames("java", source)
    assert found == ["E", "E.E(): void", "E.E()", "E.E(int)", "E.E(String)"]
    assert (parent_scope(found[1]), short_name(found[1])) == ("E", "E")
