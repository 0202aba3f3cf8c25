"""Python's docstrings read as ``__doc__`` holds them (escapes, raw strings, literals side
by side; no f-string's or bytes'; a ``type`` statement's, the string after it), and a
signature without the text of a body its parse could not read, on the real grammars."""

from __future__ import annotations

import ast
import inspect

import pytest

from recalld.parsers import parse
from tests.parsers.test_attached_source import symbols

ALIASES = r'''"""The module\u2019s """ "doc."

type Vector = list[float]
"Floats,\none a line."

type Matrix = list[Vector]
"Not " f"its {doc}."
'''


def python_doc(source: str) -> str:
    """What Python makes of ``source``'s first definition's doc, as ``inspect.getdoc`` cleans it."""
    definition = ast.parse(source).body[0]
    assert isinstance(definition, (ast.FunctionDef, ast.ClassDef))
    return ast.get_docstring(definition) or ""


@pytest.mark.parametrize(
    "doc",
    [
        r'"""Tab\there"""',
        r'"""Line\nbreak"""',
        r"'\u00e9t\xe9 \N{BULLET} \101'",
        r'"""A quote \""" and a backslash \\."""',
        '"""Continued \\\n    on."""',
        r'u"""Unicode\tprefixed."""',
        r'Rb"""Raw bytes\n."""',
        r'f"""An f-string\n."""',
        r'b"""Bytes."""',
        r'"""First part """ "second part"',
        '("""First part,\n    """  # a comment between\n    r"second\\n part")',
        r'r"""Raw\nstays \d as written, """ "beside\tone read."',
        '("Parenthesized\\talone.")',
        '"A tuple", "of two"',
        '"""Indented\n\n        as usual\\tso.\n    """',
    ],
)
def test_a_python_docstring_is_what_its___doc___holds(doc: str):
    source = f"def f():\n    {doc}\n    return 1\n"
    assert symbols("python", source, "m.py")["f"].docstring == python_doc(source)


def test_an_escape_python_does_not_know_stays_as_written_without_a_warning():
    """``\\d`` warns in Python (an error under pytest's filters) and stays as written; a
    name or code Python refuses stays as written too."""
    source = 'class K:\n    """Matches \\d+ and \\N{NO SUCH NAME} \\U00110000, then\\ttabs."""\n'
    assert symbols("python", source, "m.py")["K"].docstring == inspect.cleandoc(
        "Matches \\d+ and \\N{NO SUCH NAME} \\U00110000, then\ttabs."
    )


def test_a_module_and_an_alias_docstring_read_escapes_and_concatenation():
    found = symbols("python", ALIASES, "m.py")
    assert found["<module>"].docstring == "The module\u2019s doc."
    assert (found["Vector"].docstring, found["Matrix"].docstring) == ("Floats,\none a line.", "")


@pytest.mark.parametrize(
    ("language", "path", "source", "qualname", "expected"),
    [
        ("python", "m.py", "def f(a, b):\n    return (a +\n", "f", "def f(a, b)"),
        ("python", "m.py", "def f(a, b) -> int:\n    x = [1, 2\n    return x\n", "f", "def f(a, b) -> int"),
        ("python", "m.py", "async def f(a):\n    return a\n\ndef g(a, b):\n    return {a:\n", "g", "def g(a, b)"),
        ("python", "m.py", "def f(a, b):  # note\n    return (a +\n    return b\n", "f", "def f(a, b)"),
        ("python", "m.py", "@cache\ndef f(a,\n      b):\n    return [a,\n\nx = 1\n", "f", "def f(a, b)"),
        ("python", "m.py", "class K:\n    def f(self, a):\n        return {a: \n\n    def g(self):\n        pass\n",
         "K.f", "def f(self, a)"),
        ("csharp", "A.cs", "class A {\n  int F(int a) => (a +\n  ;\n  void G() {}\n}\n", "A.F", "int F(int a)"),
    ],
)  # fmt: skip
def test_a_signature_holds_none_of_a_body_its_parse_could_not_read(
    language: str, path: str, source: str, qualname: str, expected: str
):
    assert symbols(language, source, path)[qualname].signature == expected


def test_a_syntax_error_in_a_head_stays_in_its_signature_one_in_its_body_does_not():
    """What error recovery leaves before the ``:`` is written in the head; after it, the body's."""
    found = symbols("python", "def f(a) -> int garbage:\n    return a\n\ndef g(a) -> int:\n    (a +\n", "m.py")
    assert (found["f"].signature, found["g"].signature) == ("def f(a) -> int garbage", "def g(a) -> int")
    java = symbols("java", "class A {\n  void f() blah {\n  }\n}\n", "A.java")
    assert java["A.f"].signature == "void f() blah"


def test_python_type_statements_are_types_documented_by_the_string_after_them():
    """PEP 695's ``type`` statement (Python 3.12) is a definition like TypeScript's type
    alias; its doc is the string right after it (PEP 257's attribute docstring), which
    lies outside its text and so counts in its hash."""
    source = (b'type Vector = list[float]\n"""Coordinates."""\n\nclass Grid:\n    type Cell[T: int] = tuple[T, T]\n'
              b"\n    def f(self):\n        type Local = int\n")  # fmt: skip
    symbols = {s.qualname: s for s in parse("python", source).symbols}
    assert [(s.kind, q, s.signature, s.docstring, s.start_line) for q, s in symbols.items()] == [
        ("module", "<module>", "", "", 1),
        ("type", "Vector", "type Vector = list[float]", "Coordinates.", 1),
        ("class", "Grid", "class Grid", "", 4),
        ("type", "Grid.Cell", "type Cell[T: int] = tuple[T, T]", "", 5),
        ("method", "Grid.f", "def f(self)", "", 7),
    ]
    reworded = {s.qualname: s for s in parse("python", source.replace(b"Coordinates", b"Points")).symbols}
    assert reworded["Vector"].docstring == "Points."
    assert reworded["Vector"].content_hash != symbols["Vector"].content_hash
    assert reworded["Grid"].content_hash == symbols["Grid"].content_hash
