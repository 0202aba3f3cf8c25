"""Python's docstrings: the string a body opens with, as ``__doc__`` holds it (for
``docstrings.docstring_of``)."""

from __future__ import annotations

import inspect
import re
import sys
import unicodedata

from recalld.parsers.treesitter import Node, node_text

# Python's strings: what wraps one or several (``("a" "b")``), and the prefix letters of an
# f-string, a bytes or a template literal, whose ``__doc__`` is None.
PARENTHESIZED, STRINGS, STRING = "parenthesized_expression", "concatenated_string", "string"
_NO_DOC_PREFIXES = frozenset("fbt")
# Python's escape sequences; one it does not know (``\d``) stays as written, as Python keeps it.
_ESCAPE = re.compile(r"\\(\n|[\\'\"abfnrtv]|[0-7]{1,3}|x[0-9a-fA-F]{2}|u[0-9a-fA-F]{4}|U[0-9a-fA-F]{8}|N\{[^}\n]*\})")
_CHARACTER_ESCAPES = {"\n": "", "\\": "\\", "'": "'", '"': '"', "a": "\a", "b": "\b", "f": "\f", "n": "\n",
                      "r": "\r", "t": "\t", "v": "\v"}  # fmt: skip


def body_string(block: Node, data: bytes) -> str:
    """The docstring of a Python body ``block``: its first statement's string (``string_statement``)."""
    return string_statement(next((c for c in block.named_children if c.type != "comment"), None), data)


def string_statement(statement: Node | None, data: bytes) -> str:
    """What Python's ``__doc__`` holds for a statement that is a string literal alone
    (several side by side, ``"a" "b"``, in parentheses or not), as ``inspect.cleandoc``
    cleans it, else "" (an f-string's, a bytes literal's, a tuple's ``"a", "b"``)."""
    if statement is None or statement.type != "expression_statement":
        return ""
    literal = _alone(statement)
    if literal is not None and literal.type == PARENTHESIZED:
        literal = _alone(literal)
    if literal is None or literal.type not in (STRING, STRINGS):
        return ""
    parts = [literal] if literal.type == STRING else [c for c in literal.named_children if c.type == STRING]
    values = [_string_value(node_text(data, part)) for part in parts]
    texts = [value for value in values if value is not None]
    return inspect.cleandoc("".join(texts)) if texts and len(texts) == len(values) else ""


def _alone(node: Node) -> Node | None:
    """``node``'s one child but comments, else None."""
    children = [c for c in node.named_children if c.type != "comment"]
    return children[0] if len(children) == 1 else None


def _string_value(text: str) -> str | None:
    """The value of Python string literal ``text`` (its escapes read but a raw string's),
    None for a literal whose value is no ``str``."""
    start = next((i for i, ch in enumerate(text) if ch in "'\""), 0)
    prefix = text[:start].lower()
    if not _NO_DOC_PREFIXES.isdisjoint(prefix):
        return None
    quote = text[start : start + 3] if text[start : start + 3] in ('"""', "'''") else text[start : start + 1]
    body = text[start + len(quote) :]
    body = body[: -len(quote)] if quote and body.endswith(quote) else body
    return body if "r" in prefix or "\\" not in body else _ESCAPE.sub(_unescaped, body)


def _unescaped(escape: re.Match[str]) -> str:
    """What an escape sequence stands for; one Python refuses (``\\N{NO SUCH NAME}``) as written."""
    code = escape.group(1)
    if code in _CHARACTER_ESCAPES:
        return _CHARACTER_ESCAPES[code]
    if code[0] == "N":
        try:
            character = unicodedata.lookup(code[2:-1])
        except KeyError:
            return escape.group(0)
        return character if len(character) == 1 else escape.group(0)  # a named sequence is no character
    value = int(code, 8) if code[0].isdigit() else int(code[1:], 16)
    return chr(value) if value <= sys.maxunicode else escape.group(0)
