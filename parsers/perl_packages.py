"""Perl's packages: ``package Foo::Bar;`` names the subs that follow it, to the end of the
block it stands in or of the file, ``package Foo::Bar { … }`` those its block holds, and
Perl 5.38's ``class`` statements alike. A sub's name is its package's and its own, as
Perl names it and as ``sub Foo::Bar::new {…}`` writes it: ``Foo::Bar::new`` either way;
``main``'s are the file's own (``helper``).
"""

from __future__ import annotations

from recalld.parsers.treesitter import Node, node_text

PACKAGES = frozenset({"package_statement", "class_statement"})
SEPARATOR = "::"
MAIN = "main"


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
        name = statement.child_by_field_name("name")
        written = node_text(self._data, name) if name is not None else ""
        return "" if written == MAIN else written


def split_name(written: str, package: str) -> tuple[str, str]:
    """(package, name) of a sub named ``written`` in ``package``: a name written with its
    package (``Foo::Bar::new``, ``::helper``) is that package's."""
    scope, separator, name = written.rpartition(SEPARATOR)
    if not separator:
        return package, written
    return ("" if scope == MAIN else scope), name
