"""The one module importing tree_sitter: grammars, compiled queries, per-thread parsers.

tree-sitter's Parser is not thread-safe, so each thread gets its own; Language and
Query objects are compiled once per language and shared.

A file's parse is given up past a deadline (``parse_deadline``): tree-sitter's error
recovery can take far longer than the file is long, on input its grammar reads as no
code of its own (285 kB of Python with bytes flipped, read as Lua: 15 s; its first 64 kB
0.5 s, 128 kB 2.6 s). A file under ``WATCHED_BYTES`` is parsed without the clock.
"""

from __future__ import annotations

import ctypes
import importlib
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources

import tree_sitter as ts

from recalld.parsers.base import ParseTimeout
from recalld.parsers.registry import LanguageSpec

Node = ts.Node
Tree = ts.Tree


@dataclass(frozen=True, slots=True)
class Capture:
    """One query match: the captured nodes by capture name."""

    nodes: dict[str, list[Node]]


def _language(spec: LanguageSpec) -> ts.Language:
    return _grammar(spec.grammar_module, spec.grammar_function)


LANGUAGE_CAPSULE = b"tree_sitter.Language"  # the name py-tree-sitter reads a grammar's capsule by


@lru_cache(maxsize=None)
def _grammar(module_name: str, function: str) -> ts.Language:
    """A grammar wheel's language, one object per grammar (one grammar may read several
    languages: JavaScript's fallback is TSX's)."""
    language = getattr(importlib.import_module(module_name), function)()
    if isinstance(language, int):  # a wheel built before its binding gave a capsule (tree-sitter-perl 2.0)
        language = _capsule(language)
    return ts.Language(language)


def _capsule(pointer: int) -> object:
    """The capsule tree-sitter takes a grammar's pointer in (its bare address is deprecated)."""
    new = ctypes.pythonapi.PyCapsule_New
    new.restype, new.argtypes = ctypes.py_object, (ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p)
    return new(pointer, LANGUAGE_CAPSULE, None)


@lru_cache(maxsize=None)
def _query(spec: LanguageSpec) -> ts.Query:
    queries = resources.files("recalld.parsers").joinpath("queries")
    source = "\n".join(queries.joinpath(name).read_text("utf-8") for name in spec.query_names)
    return ts.Query(_language(spec), source)


_local = threading.local()


def _parser(spec: LanguageSpec) -> ts.Parser:
    """This thread's parser of ``spec``'s grammar (one grammar may read several languages)."""
    parsers: dict[tuple[str, str], ts.Parser] = getattr(_local, "parsers", None) or {}
    _local.parsers = parsers
    grammar = (spec.grammar_module, spec.grammar_function)
    if grammar not in parsers:
        parsers[grammar] = ts.Parser(_language(spec))
    return parsers[grammar]


WATCHED_BYTES = 16_384  # smaller files are parsed without the deadline's clock (~1 % slower with it)
READ_CHUNK = 1 << 16  # bytes handed to a parse that watches the clock at a time


@contextmanager
def parse_deadline(seconds: float) -> Iterator[None]:
    """Every ``parse_tree`` of this thread within gives up once ``seconds`` have passed
    since it began (one file's readings share them): ``ParseTimeout``."""
    before = getattr(_local, "deadline", None)
    _local.deadline = time.perf_counter() + seconds
    try:
        yield
    finally:
        _local.deadline = before


def parse_tree(spec: LanguageSpec, data: bytes) -> Tree:
    parser = _parser(spec)
    deadline: float | None = getattr(_local, "deadline", None)
    if deadline is None or len(data) < WATCHED_BYTES:
        return parser.parse(data)
    # tree-sitter asks a progress callback only of a parse that reads through a callback
    try:
        return parser.parse(
            lambda offset, _point: data[offset : offset + READ_CHUNK],
            progress_callback=lambda _offset, _errors: time.perf_counter() > deadline,
        )
    except ValueError:  # "Parsing failed": the callback stopped it
        parser.reset()  # a stopped parse would be resumed by the next
        if time.perf_counter() <= deadline:
            raise
        raise ParseTimeout(f"gave up parsing {len(data)} bytes as {spec.name} at the deadline") from None


def run_query(spec: LanguageSpec, root: Node) -> list[Capture]:
    cursor = ts.QueryCursor(_query(spec))
    return [Capture(nodes) for _pattern, nodes in cursor.matches(root)]


class Nearest:
    """The nearest node around a node that passes ``test``, each node's answer found once
    for a tree: the definitions of one block share the walk up from it, where each asked
    ``parent`` alone (tree-sitter finds it from the root down) costs the depth each step."""

    def __init__(self, test: Callable[[Node], bool]) -> None:
        self._test = test
        self._known: dict[int, Node | None] = {}  # by node: itself if it passes, else its nearest

    def around(self, node: Node) -> Node | None:
        path: list[Node] = []
        found: Node | None = None
        ancestor = node.parent
        while ancestor is not None:
            if ancestor.id in self._known:
                found = self._known[ancestor.id]
                break
            path.append(ancestor)
            if self._test(ancestor):
                found = ancestor
                break
            ancestor = ancestor.parent
        for step in path:
            self._known[step.id] = found
        return found


def deeper_than(root: Node, nodes: list[Node], limit: int) -> set[int]:
    """The ids of ``nodes`` that lie more than ``limit`` levels below ``root``. One cursor
    walks to them in source order, down to one and on to the next, never back to a node
    it passed: the walk costs the tree's size at most, where asking each node its
    ``parent`` costs its depth each time (tree-sitter finds a parent from the root down)."""
    deep: set[int] = set()
    cursor = root.walk()
    for target in sorted(nodes, key=lambda n: (n.start_byte, -n.end_byte)):
        start, end = target.start_byte, target.end_byte
        while True:  # up and on, to the first node that holds the target
            node = cursor.node
            if node is None or (node.start_byte <= start and end <= node.end_byte):
                break
            if node.end_byte <= start and cursor.goto_next_sibling():
                continue
            if not cursor.goto_parent():
                break
        while cursor.depth <= limit and cursor.node is not None and cursor.node.id != target.id:
            if cursor.goto_first_child_for_byte(start) is None:
                break
        node = cursor.node
        around = node is not None and start < end and (node.start_byte < start or end < node.end_byte)
        if node is not None and node.id == target.id:
            below = cursor.depth > limit
        elif around and cursor.depth > limit:
            below = True  # past the limit, at a node strictly around it: one of its ancestors
        else:  # of no width, or of the same bytes as the node the walk stopped at
            below = _deeper(target, limit)
        if below:
            deep.add(target.id)
    return deep


def _deeper(node: Node, limit: int) -> bool:
    """Whether ``node`` lies more than ``limit`` levels deep, counted up from it: for what a
    walk by bytes does not reach (a node of no width, one of the same bytes as its parent
    asked for after it)."""
    for _ in range(limit + 1):
        parent = node.parent
        if parent is None:
            return False
        node = parent
    return True


@lru_cache(maxsize=None)
def _comment_query(spec: LanguageSpec, kinds: frozenset[str]) -> ts.Query | None:
    language = _language(spec)
    present = sorted(k for k in kinds if language.id_for_node_kind(k, True))
    return ts.Query(language, " ".join(f"({k}) @comment" for k in present)) if present else None


def comment_nodes(spec: LanguageSpec, root: Node, kinds: frozenset[str]) -> list[Node]:
    """Every comment node of the tree (whichever of ``kinds`` the grammar has), in order."""
    query = _comment_query(spec, kinds)
    if query is None:
        return []
    nodes = ts.QueryCursor(query).captures(root).get("comment", [])
    return sorted(nodes, key=lambda n: n.start_byte)


def holds_any(root: Node, kinds: frozenset[str], depth: int = 4) -> bool:
    """Whether a node of one of ``kinds`` stands within ``depth`` levels of ``root`` (a C++
    header's class or namespace is at its top, or in its include guard's block), not one
    the grammar made up around a syntax error (git's ``static char *name MAYBE_UNUSED;``
    read as C++: ``name MAYBE_UNUSED`` a qualified name, its ``::`` missing)."""
    level = [root]
    for _ in range(depth):
        level = [child for node in level for child in node.named_children]
        if any(node.type in kinds and not _made_up(node) for node in level):
            return True
    return False


def _made_up(node: Node) -> bool:
    """Whether the grammar made ``node`` up of a token that is missing (a ``::`` it supposed)."""
    return node.has_error and any(child.is_missing for child in node.children)


def count_errors(root: Node) -> int:
    """ERROR and MISSING nodes, descending only into subtrees that contain one."""
    if not root.has_error:
        return 0
    errors = 0
    stack = [root]
    while stack:
        node = stack.pop()
        if node.is_error or node.is_missing:
            errors += 1
            if node.is_missing:
                continue
        stack.extend(child for child in node.children if child.has_error or child.is_missing)
    return errors


def error_spans(root: Node) -> list[tuple[int, int]]:
    """The byte spans of the outermost ERROR nodes and of the MISSING ones (empty)."""
    spans = []
    stack = [root] if root.has_error else []
    while stack:
        node = stack.pop()
        if node.is_error or node.is_missing:
            spans.append((node.start_byte, node.end_byte))
        else:
            stack.extend(child for child in node.children if child.has_error or child.is_missing)
    return spans


def unwrapped(node: Node) -> Node:
    """The definition a wrapper holds in its ``definition`` field (Python's decorated
    definition: its function or class), or ``node`` itself."""
    return node.child_by_field_name("definition") or node


def node_text(data: bytes, node: Node, *, end: int | None = None) -> str:
    """The source of ``node`` (up to ``end``), undecodable bytes as U+FFFD."""
    return data[node.start_byte : end if end is not None else node.end_byte].decode("utf-8", "replace")
