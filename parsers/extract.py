"""Generic symbol extraction from query captures: nesting, qualnames, signatures (the
definitions the captures name are ``definitions.py``'s, the docstrings ``docstrings.py``'s).

Per-language differences live in the query files and the LanguageSpec; this module
only knows tree shapes every grammar shares (parents, siblings, fields, comments).
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Mapping

from recalld.parsers.base import ParseResult, Symbol, content_hash, module_symbol
from recalld.parsers.block_impls import lifted_place
from recalld.parsers.debt import MARKER_BYTES, Comment, Span, debt_entries
from recalld.parsers.definitions import Definition, collect_definitions
from recalld.parsers.docstrings import (
    COMMENT_TYPES,
    doc_outside,
    docstring_of,
    is_trailing,
    module_docstring,
)
from recalld.parsers.extents import Extent, definition_extent
from recalld.parsers.namesakes import (
    FUNCTION_KINDS,
    Placed,
    merges,
    name_impl_arguments,
    name_overloads,
    name_singletons,
    name_registrations,
    name_typing_overloads,
)
from recalld.parsers.parameter_types import parameter_key
from recalld.parsers.pod_sections import pod_sections
from recalld.parsers.readings import best_reading
from recalld.parsers.registry import LanguageSpec
from recalld.parsers.signatures import signature
from recalld.parsers.treesitter import Node, comment_nodes, node_text
from recalld.parsers.type_members import literal_member

CONTAINER_KINDS = frozenset({"class", "object", "interface", "struct", "enum", "trait"})
# A Java enum constant with a body of its own (a Kotlin enum entry): what it defines is the
# constant's, named by it (guava's ``BloomFilterStrategies.MURMUR128_MITZ_64.put``).
ENUM_CONSTANTS = frozenset({"enum_constant", "enum_entry"})


def extract(spec: LanguageSpec, data: bytes, path: str = "") -> ParseResult:
    """Structural symbols, and the debt comments among them as derived entries."""
    spec, tree, errors = best_reading(spec, data, path)
    root = tree.root_node
    defs, context, outer = collect_definitions(spec, root, data)
    inner = {d.node.id for d in defs.values() if _captured_twice(d, defs)}
    symbols = [module_symbol(data, module_docstring(spec, root, data, (d.node for d in defs.values())))]
    qualnames: dict[int, str] = {}
    placed: list[Placed] = []
    seen: Counter[tuple[str, str]] = Counter()
    # C's and C++'s functions declared without a body: a symbol only where the file does
    # not define them (a header's API), or a forward declaration would number the
    # definition (``node_new#2``).
    declared: list[Placed] = []
    namespaces: set[str] = set()
    # A function whose prototype the file uses (gives methods, a base: ``Foo.prototype =
    # Object.create(Base.prototype)``), or that gives ``this`` methods in its body, is a
    # class, as ``class`` writes it since ES2015 (three.js r100's ``function Vector3(x, y,
    # z)``, r130's ``class Vector3``).
    constructors = context.prototyped | {d.receiver for d in defs.values() if d.prototype}
    constructing = {around.id for d in defs.values() if d.on_this and (around := outer.around(d.node))}
    enclosures = Enclosures(defs, inner, context.local, data, spec.local_bodies, spec.lifted)
    for d in sorted(defs.values(), key=lambda d: (d.node.start_byte, -d.node.end_byte)):
        if d.node.id in inner:
            continue
        where = _place(d, defs, qualnames, enclosures)
        if where is None:
            continue
        kind, qualname = where
        if kind == "function" and (qualname in constructors or d.node.id in constructing):
            kind = "class"
        if d.kind == "namespace":
            namespaces.add(qualname)
        elif kind == "method" and d.receiver and qualname[: -len(d.name) - 1] in namespaces:
            kind = "function"  # C++'s ``int detail::Count(…) {…}`` in a file that opens ``namespace detail``
        if d.declaration_only:
            declared.append(Placed(d, kind, qualname, qualname))
            qualnames[d.node.id] = qualname  # what an Objective-C interface declares is its class's
            continue
        _number(Placed(d, kind, qualname, qualname), seen, qualnames, placed)
        if spec.reopens or merges(d.node, data, spec.merges):
            qualnames[d.node.id] = qualname  # its members are the class's, however often it is opened
    if declared:
        _place_declarations(spec, declared, placed, qualnames, seen, data)
    if spec.singletons:
        name_singletons(placed, data, spec.singletons)
    name_impl_arguments(placed, data)
    if spec.overloads:
        name_overloads(placed, data)
    if spec.overload_decorator:
        name_typing_overloads(placed, data, spec.overload_decorator)
    if spec.dispatch_decorators:
        name_registrations(placed, data, spec.dispatch_decorators)
    documented, sections = pod_sections(root, data) if spec.packages else ("", {})  # Perl's POD by its sub
    extents = [definition_extent(p.d.node, data) for p in placed]
    symbols.extend(
        _symbol(spec, p, extent, data, sections if p.d.package == documented else {})
        for p, extent in zip(placed, extents, strict=True)
    )
    spans = [
        Span(extent.start_byte, max(p.d.node.end_byte, extent.end_byte), p.qualname)
        for p, extent in zip(placed, extents, strict=True)
    ]
    debt = debt_entries(spec.name, _comments(spec, root, data), spans) if MARKER_BYTES.search(data) else ()
    return ParseResult(spec.name, tuple(symbols), syntax_errors=errors, derived=debt, notes=context.notes)


def _captured_twice(d: Definition, defs: dict[int, Definition]) -> bool:
    """Whether ``d`` is a definition's own node under the one its other capture names (C's
    ``struct point {…}`` of ``typedef struct point {…} point_t``, a decorated function):
    it is the outer's. A definition of another kind directly under a type's node is what
    the type holds (Objective-C's ``@interface`` holds its methods' declarations, and C's
    functions, without a body between)."""
    parent = d.node.parent
    if parent is None or parent.id not in defs:
        return False
    outer = defs[parent.id]
    return d.kind == outer.kind or not (outer.kind in CONTAINER_KINDS or outer.extends)


def _place_declarations(
    spec: LanguageSpec,
    declared: list[Placed],
    placed: list[Placed],
    qualnames: dict[int, str],
    seen: Counter[tuple[str, str]],
    data: bytes,
) -> None:
    """C's and C++'s functions declared without a body, placed where the file does not
    define them (of C++'s, one of the same parameter types: an overload declared beside
    another's definition is its own). The definition of one has the declaration's doc
    where it has none of its own: a header's class documents a method declared in it, and
    defined inline below it. A declaration placed is numbered on from the definitions'
    ``seen``: one beside a definition of its name whose parameters do not parse (broken
    code), so that no overload naming follows, took the definition's own name."""
    defined: dict[tuple[str, str, str], Placed] = {}
    for p in placed:
        defined.setdefault((p.kind, p.base, _overload_key(spec, p, data)), p)
    for p in declared:
        definition = defined.get((p.kind, p.base, _overload_key(spec, p, data)))
        if definition is None:
            _number(p, seen, qualnames, placed)
        elif definition.d.documented_by is None:
            definition.d.documented_by = p.d.node
    placed.sort(key=lambda p: p.d.node.start_byte)


def _overload_key(spec: LanguageSpec, p: Placed, data: bytes) -> str:
    return parameter_key(p.d.node, data) if spec.overloads else ""


def _number(p: Placed, seen: Counter[tuple[str, str]], qualnames: dict[int, str], placed: list[Placed]) -> None:
    """Places ``p``, a repeat of its kind and qualname numbered (``#2``) in source order;
    a namespace is one however often it is opened (C++'s ``namespace testing {…}``)."""
    seen[(p.kind, p.base)] += 1
    count = seen[(p.kind, p.base)] if p.d.kind != "namespace" else 1
    p.qualname = qualnames[p.d.node.id] = f"{p.base}#{count}" if count > 1 else p.base
    if p.d.kind != "namespace":
        placed.append(p)


def _comments(spec: LanguageSpec, root: Node, data: bytes) -> list[Comment]:
    return [
        Comment(n.start_byte, n.start_point[0] + 1, n.start_point[1], node_text(data, n), is_trailing(n, data))
        for n in comment_nodes(spec, root, COMMENT_TYPES)
    ]


@dataclasses.dataclass(frozen=True, slots=True)
class Enclosure:
    """What lies around a node, up to the nearest definition that is placed (``outer``; None
    at the top level): whether a body whose definitions are local (``local_body``) or a
    callback whose definitions are its own (``local``) stands between, and the enum
    constants whose bodies hold it, innermost first."""

    outer: Node | None = None
    local_body: bool = False
    local: bool = False
    constants: tuple[str, ...] = ()


class Enclosures:
    """Each node's ``Enclosure``, found once per node of a file: the definitions of one
    block share the walk up from it (a step up costs tree-sitter the node's depth)."""

    def __init__(
        self, defs: dict[int, Definition], inner: set[int], local: set[int], data: bytes, local_bodies: frozenset[str],
        lifted: frozenset[str] = frozenset(),
    ) -> None:
        self._defs, self._inner, self._local, self._data = defs, inner, local, data
        self._local_bodies, self._lifted = local_bodies, lifted
        # A suite's function (PHP's Pest: ``describe("sum", function () {…})``) holds its
        # members, whatever a closure's definitions are elsewhere.
        self._suites = {d.wrapped.id for d in defs.values() if d.wrapped is not None and d.kind == "class"}
        self._known: dict[int, Enclosure] = {}

    def of(self, node: Node | None) -> Enclosure:
        """The enclosure of ``node`` itself and what holds it."""
        path: list[Node] = []
        found = Enclosure()
        while node is not None:
            known = self._known.get(node.id)
            if known is not None:
                found = known
                break
            path.append(node)
            if node.id in self._defs and node.id not in self._inner:
                break
            node = node.parent
        for step in reversed(path):
            if step.id in self._defs and step.id not in self._inner:
                found = Enclosure(step)
            elif step.type in self._lifted and found.local_body:
                place = lifted_place(step, self._data)  # an impl in a block: as if in its item's module
                found = found if place is None else self.of(place)
            constant = _constant_name(step) if step.type in ENUM_CONSTANTS else None
            found = Enclosure(
                found.outer, found.local_body or (step.type in self._local_bodies and step.id not in self._suites),
                found.local or step.id in self._local,
                (node_text(self._data, constant), *found.constants) if constant is not None else found.constants,
            )  # fmt: skip
            self._known[step.id] = found
        return found


def _constant_name(node: Node) -> Node | None:
    """An enum constant's name: its ``name`` (Java's), else its first name (Kotlin's entry)."""
    named = node.child_by_field_name("name")
    return named if named is not None else next((c for c in node.named_children if c.type == "identifier"), None)


def _place(
    d: Definition, defs: dict[int, Definition], qualnames: dict[int, str], enclosures: Enclosures
) -> tuple[str, str] | None:
    """(kind, qualname) for a definition, or None when it lives inside a function body
    (or a callback whose definitions are its own: ``local``), or is given to a callback's
    parameter."""
    if d.on_parameter:
        return None
    around = enclosures.of(d.node.parent)
    if around.local_body or (around.local and not (d.published or d.on_this)):
        return None
    if d.file_scoped:
        return d.kind, d.name  # Objective-C's C function in a class's ``@implementation``
    container: str | None = None
    outer_kind: str | None = None
    if around.outer is not None:
        outer = defs[around.outer.id]
        if outer.kind in FUNCTION_KINDS:
            return _function_member(d, outer, qualnames.get(around.outer.id))
        if around.outer.id not in qualnames:
            return None  # its container was itself dropped
        container, outer_kind = qualnames[around.outer.id], ("class" if outer.extends else outer.kind)
    if d.package is not None:  # Perl's: ``Foo::Bar::new``
        return d.kind, f"{d.package}::{d.name}" if d.package else d.name
    kind = d.kind
    in_type = d.receiver is not None or outer_kind in CONTAINER_KINDS or literal_member(d.node, around.outer)
    if kind == "function" and in_type:
        kind = "method"
    elif kind == "method" and not in_type:
        return None  # a method of an object literal or similar: not a named member
    written = [p for p in (d.receiver, d.name) if p]
    if d.absolute:
        return kind, ".".join(written)
    enclosing = ".".join(p for p in (container, *reversed(around.constants)) if p)
    if d.scoped and enclosing:
        return kind, _in_scope(enclosing, ".".join(written))
    return kind, ".".join(p for p in (enclosing, *written) if p)


def _in_scope(enclosing: str, written: str) -> str:
    """A name written with its scope, inside ``enclosing``: the scope is the innermost
    enclosing one of its name where there is one, as Ruby and C++ look a scope's name up
    from the inside out (``module Shapes; class Shapes::Circle`` is ``Shapes.Circle``);
    otherwise one inside ``enclosing`` (``module Shapes; class Net::Socket``:
    ``Shapes.Net.Socket``, as the file alone can tell)."""
    scopes = enclosing.split(".")
    first, _, rest = written.partition(".")
    for depth in range(len(scopes), 0, -1):
        if scopes[depth - 1] == first:
            return ".".join([*scopes[:depth], rest] if rest else scopes[:depth])
    return f"{enclosing}.{written}"


def _function_member(d: Definition, function: Definition, qualname: str | None) -> tuple[str, str] | None:
    """What a function gives ``this`` in its own body (``d``: the queries find no other)
    is a method of the function's class: the function itself, or the class whose
    ``constructor`` it is. What a factory's returned object publishes is a method of the
    factory. Anything else inside a function body is no member of anything."""
    if qualname is None:
        return None
    if d.on_this:
        scope = qualname if function.kind == "function" else qualname.rpartition(".")[0]
        return ("method", f"{scope}.{d.name}") if scope else None
    if d.published:
        return "method", f"{qualname}.{d.name}"
    return None


def _symbol(spec: LanguageSpec, p: Placed, over: Extent, data: bytes, sections: Mapping[str, str]) -> Symbol:
    """The symbol of ``p`` over ``over``; its doc its own, else the section of ``sections`` of its name."""
    d, node = p.d, p.d.node
    source = data[over.start_byte : over.end_byte]
    docstring = docstring_of(spec, node, data, d.name)
    if not docstring and d.documented_by is not None:
        docstring = docstring_of(spec, d.documented_by, data, d.name)
    if not docstring and sections:
        docstring = sections.get(d.name, "")
    # Where its parse holds a syntax error, the same text beside other code can recover
    # differently (``def test6 (): <`` or ``def test6 ()``): the tree the parse made of it
    # (its signature, docstring and inner symbols come from it) counts then, or a memory
    # whose text did not change would keep what the first reading made of it.
    recovered = node.has_error
    return Symbol(
        kind=p.kind,
        name=d.name,
        qualname=p.qualname,
        signature=signature(node, data, d.wrapped),
        docstring=docstring,
        start_line=over.start_line,
        end_line=over.end_line,
        content_hash=content_hash(
            source,
            docstring=docstring if doc_outside(spec, node) else "",
            extra=(("parse", str(node)),) if recovered else (),
        ),
        source=source.decode("utf-8", "replace"),
    )
