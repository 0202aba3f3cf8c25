"""Definitions nested past the depth cap are read as part of what holds them, with a note;
the cursor's depths and the memoised walks up answer as counting parents does, on real
grammars."""

from __future__ import annotations

from pathlib import Path

import pytest

from recalld.parsers import definitions, language_for_path, parse
from recalld.parsers.registry import get_language
from recalld.parsers.treesitter import Nearest, Node, deeper_than, parse_tree

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "parsers"
SOURCES = sorted(p for p in FIXTURES.iterdir() if not p.name.endswith(".json"))


def _every_node(root: Node) -> list[tuple[Node, int]]:
    found, stack = [], [(root, 0)]
    while stack:
        node, depth = stack.pop()
        found.append((node, depth))
        stack.extend((child, depth + 1) for child in node.children)
    return found


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: p.name)
def test_deeper_than_counts_the_levels_every_node_lies_below_the_root(path: Path):
    """Every node of a fixture's tree, named or not, zero-width or not, asked all at once
    and in no particular order: the walk's depth is the count of its parents."""
    tree = parse_tree(get_language(language_for_path(path.name)), path.read_bytes())
    nodes = _every_node(tree.root_node)
    deepest = max(depth for _, depth in nodes)
    for limit in (0, 1, 3, deepest // 2, deepest - 1, deepest):
        expected = {node.id for node, depth in nodes if depth > limit}
        assert deeper_than(tree.root_node, [node for node, _ in reversed(nodes)], limit) == expected


def test_nearest_answers_as_a_walk_up_each_time():
    path = FIXTURES / "sample.js"
    tree = parse_tree(get_language("javascript"), path.read_bytes())
    nodes = [node for node, _ in _every_node(tree.root_node)]
    kinds = {"class_declaration", "function_declaration", "method_definition"}
    nearest = Nearest(lambda node: node.type in kinds)
    for node in nodes:  # most answers from the cache (an earlier walk filled it for its ancestors)
        ancestor = node.parent
        while ancestor is not None and ancestor.type not in kinds:
            ancestor = ancestor.parent
        got = nearest.around(node)
        assert (got.id if got else None) == (ancestor.id if ancestor else None)


@pytest.mark.parametrize(
    ("language", "opening", "closing"),
    [("python", "{indent}class C:\n", ""), ("ruby", "module M\n", "end\n"), ("java", "class A {", "}")],
)
def test_definitions_nested_past_the_cap_belong_to_what_holds_them(language, opening, closing):
    """Nested 200 deep, two syntax levels a class (the class and its body): those within
    ``MAX_DEPTH`` levels are symbols, the deeper ones part of the innermost one kept (its
    text holds them), and the result says how many."""
    levels = 200
    source = "".join(opening.replace("{indent}", "  " * i) for i in range(levels)) + closing * levels
    if language == "python":
        source += "  " * levels + "pass\n"
    result = parse(language, source.encode(), path="deep")
    kept = [s for s in result.symbols if s.kind != "module"]
    assert len(kept) == (definitions.MAX_DEPTH - 1) // 2 + 1  # the first at depth 1
    assert [s.qualname.count(".") for s in kept] == list(range(len(kept)))
    assert result.notes == (f"{levels - len(kept)} definition(s) nested over {definitions.MAX_DEPTH} levels deep "
                            "read as part of what holds them",)  # fmt: skip
    assert kept[-1].source.count(opening.replace("{indent}", "").strip()) == levels - len(kept) + 1


def test_a_cap_within_real_nesting_changes_the_symbols_only_past_it(monkeypatch):
    """The cap applies where it is: lowered to 2 levels, a fixture's methods inside its
    classes go, its top-level functions stay; at the default nothing goes."""
    data = (FIXTURES / "sample.py").read_bytes()
    whole = parse("python", data)
    assert whole.notes == ()
    monkeypatch.setattr(definitions, "MAX_DEPTH", 2)
    capped = parse("python", data)
    assert capped.notes and set(capped.symbols[1:]) < set(whole.symbols[1:])
    assert dict(capped.symbols[0].extra) == {"read_partly": capped.notes[0]}  # its module says so
    assert {"Outer", "fetch"} <= {s.qualname for s in capped.symbols}
    assert not any("." in s.qualname for s in capped.symbols)  # methods lie three levels down
