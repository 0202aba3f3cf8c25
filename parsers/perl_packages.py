"""Perl's packages: ``package Foo::Bar;`` names the subs that follow it, to the end of the
block it stands in or of the file, ``package Foo::Bar { … }`` those its block holds, and
Perl 5.38's ``class`` statements alike. A sub's name is its package's and its own, as
Perl names it and as ``sub Foo::Bar::new {…}`` writes it: ``Foo::Bar::new`` either way;
``main``'s are the file's own (``helper``). A package's sub that takes its invocant first
(``my ($self, %args) = @_;``, ``my $class = shift;``, ``shift->``, ``sub area ($self)``) is
its method, the others its functions: Git 2.47.3's 466 subs in a package are 252 and 214.
"""

from __future__ import annotations

import re

from recalld.parsers.treesitter import Node, node_text

PACKAGES = frozenset({"package_statement", "class_statement"})
SEPARATOR = "::"
MAIN = "main"
# A sub's body that opens by taking its invocant, past comments; a signature that opens with it.
_TAKES_INVOCANT = re.compile(
    rb"\{\s*(?:#[^\n]*\n\s*)*(?:my\s*(?:\(\s*)?\$(?:self|class|this|proto)\b|(?:return\s+)?shift\s*->)"
)
_INVOCANT_FIRST = re.compile(rb"\(\s*\$(?:self|class|this|proto)\b")


class Packages:
    """The package each node is in, read once per block: a statement's package is the
    last block-less package statement before it in its block."""

    def __init__(self, data: bytes) -> None:
        self._data = data
        self._blocks: dict[int, dict[int, str]] = {}  # block -> statement -> its package ("" for main)

    def of(self, node: Node) -> str:
        """The package ``node`` is in, "" for ``main``."""
        while (parent := node.parent) is not None:
            package = self._statements(parent).get(node.id)
            if package is not None:
                return package
            if parent.type in PACKAGES:
                return self._name(parent)
            node = parent
        return ""

    def _statements(self, block: Node) -> dict[int, str]:
        known = self._blocks.get(block.id)
        if known is None:
            known = self._blocks[block.id] = {}
            current: str | None = None
            for child in block.named_children:
                if current is not None:
                    known[child.id] = current
                if child.type in PACKAGES and not any(c.type == "block" for c in child.named_children):
                    current = self._name(child)
        return known

    def _name(self, statement: Node) -> str:
        return package_name(statement, self._data)


def package_name(statement: Node, data: bytes) -> str:
    """The package a ``package`` or ``class`` statement names, "" for ``main``."""
    name = statement.child_by_field_name("name")
    written = node_text(data, name) if name is not None else ""
    return "" if written == MAIN else written


def split_name(written: str, package: str) -> tuple[str, str]:
    """(package, name) of a sub named ``written`` in ``package``: a name written with its
    package (``Foo::Bar::new``, ``::helper``) is that package's."""
    scope, separator, name = written.rpartition(SEPARATOR)
    if not separator:
        return package, written
    return ("" if scope == MAIN else scope), name


def takes_invocant(sub: Node, data: bytes) -> bool:
    """Whether a sub's signature or body's first statement takes its invocant."""
    body = sub.child_by_field_name("body")
    signature = next((c for c in sub.named_children if c.type == "signature"), None)
    if signature is not None and _INVOCANT_FIRST.match(data, signature.start_byte):
        return True
    return body is not None and _TAKES_INVOCANT.match(data, body.start_byte) is not None
