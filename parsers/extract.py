"""Generic symbol extraction from query captures: nesting, qualnames, signatures (the
definitions the captures name are ``definitions.py``'s, the docstrings ``docstrings.py``'s).

Per-language differences live in the query files and the LanguageSpec; this module
only knows tree shapes every grammar shares (parents, siblings, fields, comments).
"""

from __future__ import annotations

import dataclasses
import re
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache

from recalld.parsers.base import ParseResult, Symbol, content_hash
from recalld.parsers.debt import MARKER_BYTES, Comment, Span, debt_entries
from recalld.parsers.definitions import (
    Definition,
    collect_definitions,
    outer_definition,
)
from recalld.parsers.docstrings import COMMENT_TYPES, doc_outside, docstring_of, is_trailing, module_docstring
from recalld.parsers.registry import LanguageSpec, get_language
from recalld.parsers.signatures import signature
from recalld.parsers.treesitter import Node, Tree, comment_nodes, count_errors, node_text, parse_tree, unwrapped

CONTAINER_KINDS = frozenset({"class", "interface", "struct", "enum", "trait"})
FUNCTION_KINDS = frozenset({"function", "method"})
# Nodes whose definitions are no named member of the type around them: a Java anonymous
# class (``new Runnable() { … }`` in a field's initialiser) and an enum constant's own body.
ANONYMOUS_BODIES = frozenset({"object_creation_expression", "enum_constant"})
# What an overload's name leaves out of its parameters' types: generic arguments (Java
# cannot overload on them) and annotations.
ERASED = frozenset({"type_arguments", "marker_annotation", "annotation"})
MAX_PARAMETER_TYPE = 60
SPREAD_NOT_TYPE = frozenset({"modifiers", "variable_declarator"})
# Parameter list entries that are no parameter: Java's receiver, Python's ``*`` and ``/``.
NO_PARAMETER = COMMENT_TYPES | {"receiver_parameter", "keyword_separator", "positional_separator"}
_SPLATS = {"list_splat_pattern": "*", "dictionary_splat_pattern": "**"}
_WORD_START, _WORD_END = re.compile(r"\w"), re.compile(r"\w$")


@dataclass(slots=True)
class _Placed:
    d: Definition
    kind: str
    base: str  # its qualname before repeats are told apart
    qualname: str


def extract(spec: LanguageSpec, data: bytes, path: str = "") -> ParseResult:
    """Structural symbols, and the debt comments among them as derived entries."""
    spec, tree, errors = _best_reading(spec, data)
    root = tree.root_node
    defs, context = collect_definitions(spec, root, data)
    inner = {d.node.id for d in defs.values() if d.node.parent is not None and d.node.parent.id in defs}
    symbols = [_module_symbol(spec, root, data)]
    qualnames: dict[int, str] = {}
    placed: list[_Placed] = []
    seen: Counter[tuple[str, str]] = Counter()
    # A function whose prototype the file uses (gives methods, a base: ``Foo.prototype =
    # Object.create(Base.prototype)``), or that gives ``this`` methods in its body, is a
    # class, as ``class`` writes it since ES2015 (three.js r100's ``function Vector3(x, y,
    # z)``, r130's ``class Vector3``).
    constructors = context.prototyped | {d.receiver for d in defs.values() if d.prototype}
    constructing = {outer.id for d in defs.values() if d.on_this and (outer := outer_definition(d.node, defs))}
    for d in sorted(defs.values(), key=lambda d: (d.node.start_byte, -d.node.end_byte)):
        if d.node.id in inner:
            continue
        where = _place(d, defs, inner, qualnames)
        if where is None:
            continue
        kind, qualname = where
        if kind == "function" and (qualname in constructors or d.node.id in constructing):
            kind = "class"
        seen[(kind, qualname)] += 1
        count = seen[(kind, qualname)]
        qualnames[d.node.id] = f"{qualname}#{count}" if count > 1 else qualname
        if d.kind != "namespace":
            placed.append(_Placed(d, kind, qualname, qualnames[d.node.id]))
    if spec.overloads:
        _name_overloads(placed, data)
    if spec.overload_decorator:
        _name_typing_overloads(placed, data, spec.overload_decorator)
    symbols.extend(_symbol(spec, p.d, p.kind, p.qualname, data) for p in placed)
    spans = [Span(p.d.node.start_byte, p.d.node.end_byte, p.qualname) for p in placed]
    debt = debt_entries(spec.name, _comments(spec, root, data), spans) if MARKER_BYTES.search(data) else ()
    return ParseResult(spec.name, tuple(symbols), syntax_errors=errors, derived=debt)


def _best_reading(spec: LanguageSpec, data: bytes) -> tuple[LanguageSpec, Tree, int]:
    """The tree of ``data`` under ``spec``'s grammar, or under its fallback's when that
    reads it with fewer syntax errors (Flow-typed JavaScript reads as TSX), with the
    spec that made it and its error count. Only the better tree is extracted: 383 of
    react-native 0.76's 494 JavaScript files read better as TSX."""
    tree = parse_tree(spec, data)
    errors = count_errors(tree.root_node)
    if errors and spec.fallback:
        other = _read_as(spec)
        other_tree = parse_tree(other, data)
        if (other_errors := count_errors(other_tree.root_node)) < errors:
            return other, other_tree, other_errors
    return spec, tree, errors


@lru_cache(maxsize=None)
def _read_as(spec: LanguageSpec) -> LanguageSpec:
    """``spec``'s fallback grammar and queries under ``spec``'s name: its symbols, debt
    entries and result are the file's language's."""
    fallback = get_language(spec.fallback)
    return dataclasses.replace(fallback, name=spec.name, query_file=fallback.query_names[-1], fallback="")


def _comments(spec: LanguageSpec, root: Node, data: bytes) -> list[Comment]:
    return [
        Comment(n.start_byte, n.start_point[0] + 1, n.start_point[1], node_text(data, n), is_trailing(n, data))
        for n in comment_nodes(spec, root, COMMENT_TYPES)
    ]


def _place(
    d: Definition, defs: dict[int, Definition], inner: set[int], qualnames: dict[int, str]
) -> tuple[str, str] | None:
    """(kind, qualname) for a definition, or None when it lives inside a function body."""
    container: str | None = None
    ancestor = d.node.parent
    while ancestor is not None:
        if ancestor.type in ANONYMOUS_BODIES:
            return None
        outer = defs.get(ancestor.id)
        if outer is not None and ancestor.id not in inner:
            if outer.kind in FUNCTION_KINDS:
                return _function_member(d, outer, qualnames.get(ancestor.id))
            if ancestor.id not in qualnames:
                return None  # its container was itself dropped
            container = qualnames[ancestor.id]
            break
        ancestor = ancestor.parent
    outer_kind = defs[ancestor.id].kind if ancestor is not None else None
    prefix = [p for p in (container, d.receiver) if p]
    kind = d.kind
    in_type = d.receiver is not None or outer_kind in CONTAINER_KINDS
    if kind == "function" and in_type:
        kind = "method"
    elif kind == "method" and not in_type:
        return None  # a method of an object literal or similar: not a named member
    return kind, ".".join([*prefix, d.name])


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


def _name_overloads(placed: list[_Placed], data: bytes) -> None:
    """Functions that share a name in one scope are named by their parameters' types
    (``Parser.parse(String)``, ``Parser.parse(Reader, int)``) rather than by their order
    (``#2``), so that an overload added above another leaves the other's name, lineage and
    history alone. Where the types as written are the same (``notEmpty(T, String)`` for both
    ``<T extends Collection<?>>`` and ``<T extends Map<?, ?>>``), a type variable reads as
    its bound (``notEmpty(Collection, String)``, ``notEmpty(Map, String)``), as Java erases
    it. Those the types do not tell apart even so (a TypeScript implementation whose
    parameters repeat its last overload's) are numbered in source order among themselves."""
    for base, members in _same_name_functions(placed):
        types = [_parameter_types(p.d.node, data) for p in members]
        if None in types:
            continue
        repeated = {listed for listed, count in Counter(types).items() if count > 1}
        types = [
            _parameter_types(p.d.node, data, bounds=_type_bounds(p.d.node, data)) if listed in repeated else listed
            for p, listed in zip(members, types, strict=True)
        ]
        _number_repeats(members, [f"{base}({listed})" for listed in types])


def _name_typing_overloads(placed: list[_Placed], data: bytes, decorator: str) -> None:
    """Where functions of one name in one scope include typings under ``decorator``
    (sqlalchemy's three ``@overload def inspect(…)`` above ``def inspect(subject: Any,
    raiseerr: bool = True) -> Any``), the implementation, with its code and docstring, is
    ``inspect`` (it was ``inspect#4``) and each typing is named by its parameters' types,
    as many as tell the typings apart (``inspect(Type[_T], …)``, ``inspect(Any, …)``): an
    overload added above another renames neither, nor does a parameter added at the end
    (attrs' typings of twenty parameters gained one a release)."""
    for base, members in _same_name_functions(placed):
        typings = [p for p in members if _decorated_with(p.d.node, data, decorator)]
        if typings:
            _number_repeats([p for p in members if p not in typings], [base] * (len(members) - len(typings)))
            listed = [_parameter_type_list(unwrapped(p.d.node), data) or [] for p in typings]
            _number_repeats(typings, [f"{base}({shown})" for shown in _telling_apart(listed)])


def _telling_apart(listed: list[list[str]]) -> list[str]:
    """Each list of types cut to the fewest leading ones that tell all of them apart
    (whole where none do: numbered then), ``…`` standing for those left out."""
    longest = max(map(len, listed))
    count = next((n for n in range(1, longest + 1) if len({tuple(t[:n]) for t in listed}) == len(listed)), longest)
    return [", ".join(t[:count] + (["…"] if len(t) > count else [])) for t in listed]


def _same_name_functions(placed: list[_Placed]) -> list[tuple[str, list[_Placed]]]:
    """Functions that share a name in one scope, by that name, in source order."""
    groups: dict[tuple[str, str], list[_Placed]] = {}
    for p in placed:
        if p.kind in FUNCTION_KINDS:
            groups.setdefault((p.kind, p.base), []).append(p)
    return [(base, members) for (_kind, base), members in groups.items() if len(members) > 1]


def _number_repeats(members: list[_Placed], names: list[str]) -> None:
    """Each of ``members`` named its name in ``names``, a repeat of one ``#2``, ``#3``."""
    seen: Counter[str] = Counter()
    for p, name in zip(members, names, strict=True):
        seen[name] += 1
        p.qualname = f"{name}#{seen[name]}" if seen[name] > 1 else name


def _decorated_with(node: Node, data: bytes, decorator: str) -> bool:
    """Whether a decorator of ``node`` is ``decorator``, plain or an attribute of a module
    (``@overload``, ``@typing.overload``)."""
    decorated = node if node.type == "decorated_definition" else node.parent
    if decorated is None or decorated.type != "decorated_definition":
        return False
    for child in decorated.named_children:
        if child.type == "decorator":
            name = node_text(data, child).lstrip("@").strip().split("(", 1)[0]
            if name.rsplit(".", 1)[-1].strip() == decorator:
                return True
    return False


def _type_bounds(node: Node, data: bytes) -> dict[str, str]:
    """A generic function's type variables that have a bound, each read as its first
    bound's erasure (Java's ``<T extends Comparable<? super T>>``, TypeScript's ``<T
    extends string>``)."""
    parameters = node.child_by_field_name("type_parameters")
    bounds: dict[str, str] = {}
    for parameter in parameters.named_children if parameters is not None else ():
        name = parameter.child_by_field_name("name") or next(
            (c for c in parameter.named_children if c.type == "type_identifier"), None
        )
        bound = parameter.child_by_field_name("constraint") or next(
            (c for c in parameter.named_children if c.type == "type_bound"), None
        )
        first = next((c for c in bound.named_children if c.type not in COMMENT_TYPES), None) if bound else None
        if name is not None and first is not None:
            bounds[node_text(data, name)] = _erased(first, data)
    return bounds


def _parameter_types(node: Node, data: bytes, *, bounds: Mapping[str, str] | None = None) -> str | None:
    listed = _parameter_type_list(node, data, bounds=bounds)
    return None if listed is None else ", ".join(listed)


def _parameter_type_list(node: Node, data: bytes, *, bounds: Mapping[str, str] | None = None) -> list[str] | None:
    """``String, int[], Object...`` for Java's ``(final String s, int[] a, Object... rest)``;
    TypeScript's optional and rest parameters are marked (``number?``, ``...string[]``)
    and its ``this`` parameter left out, as are Java's receiver parameter and Python's
    ``self`` and ``cls``; Python's ``int, *str, **_`` for ``(self, a: int, *args: str,
    **kw)``, an untyped parameter ``_``. ``bounds``:
    type variables read as their bounds (``_type_bounds``)."""
    parameters = node.child_by_field_name("parameters")
    if parameters is None:
        return None
    listed: list[str] = []
    for parameter in parameters.named_children:
        pattern = parameter.child_by_field_name("pattern")
        if parameter.type in NO_PARAMETER or (pattern is not None and pattern.type == "this") or (
            parameter.type == "identifier" and node_text(data, parameter) in ("self", "cls")
        ):
            continue
        type_node = parameter.child_by_field_name("type")
        if type_node is not None and type_node.type == "type_annotation" and type_node.named_children:
            type_node = type_node.named_children[0]
        if type_node is None and parameter.type == "spread_parameter":  # Java's has no type field
            type_node = next((c for c in parameter.named_children if c.type not in SPREAD_NOT_TYPE), None)
        text = _erased(type_node, data, bounds)[:MAX_PARAMETER_TYPE] if type_node is not None else "_"
        if parameter.type == "spread_parameter":
            text += "..."
        elif pattern is not None and pattern.type == "rest_pattern":
            text = "..." + text
        elif parameter.type == "optional_parameter":
            text += "?"
        elif splat := _SPLATS.get(parameter.type) or _SPLATS.get(_first_type(parameter)):
            text = splat + text  # Python's ``*args: int``, ``**kw``: ``*int``, ``**_``
        listed.append(text)
    return listed


def _first_type(node: Node) -> str:
    return node.named_children[0].type if node.named_children else ""


def _erased(node: Node, data: bytes, bounds: Mapping[str, str] | None = None) -> str:
    """A type's tokens without its generic arguments and annotations, joined with a space
    only between two words (``java.io.Reader``, ``int[]``, ``(value:T,index:number)=>R``):
    the same name however the source is formatted. A type variable in ``bounds`` reads as
    its bound."""
    tokens: list[str] = []
    stack = [node]
    while stack:
        current = stack.pop()
        if current.type in COMMENT_TYPES or (current is not node and current.type in ERASED):
            continue
        if current.child_count:
            stack.extend(reversed(current.children))
        elif token := node_text(data, current).strip():
            if bounds and current.type == "type_identifier":
                token = bounds.get(token, token)
            if tokens and _WORD_END.search(tokens[-1]) and _WORD_START.match(token):
                tokens.append(" ")
            tokens.append(token)
    return "".join(tokens)


def _symbol(spec: LanguageSpec, d: Definition, kind: str, qualname: str, data: bytes) -> Symbol:
    node = d.node
    last = _last_code_node(node)
    source = data[node.start_byte : last.end_byte]
    docstring = docstring_of(spec, node, data)
    # Where its parse holds a syntax error, the same text beside other code can recover
    # differently (``def test6 (): <`` or ``def test6 ()``): the tree the parse made of it
    # (its signature, docstring and inner symbols come from it) counts then, or a memory
    # whose text did not change would keep what the first reading made of it.
    recovered = node.has_error
    return Symbol(
        kind=kind,
        name=d.name,
        qualname=qualname,
        signature=signature(node, data, d.wrapped),
        docstring=docstring,
        start_line=node.start_point[0] + 1,
        end_line=last.end_point[0] + 1,
        content_hash=content_hash(
            source,
            docstring=docstring if doc_outside(spec, node) else "",
            extra=(("parse", str(node)),) if recovered else (),
        ),
        source=source.decode("utf-8", "replace"),
    )


def _last_code_node(node: Node) -> Node:
    """The last token that is not a comment: a definition ends with its code, not with
    comments that trail its body (which belong to what follows). Children are looked at
    from the last one back: ``children`` made a node object of every child on the way
    down (each statement of a class's or a function's body) to use the last."""
    current = node
    while True:
        index = current.child_count - 1
        while index >= 0:
            child = current.child(index)
            if child is not None and child.type not in COMMENT_TYPES:
                break
            index -= 1
        else:
            return current
        current = child


def _module_symbol(spec: LanguageSpec, root: Node, data: bytes) -> Symbol:
    doc = module_docstring(spec, root, data)
    return Symbol(
        kind="module",
        name="<module>",
        qualname="<module>",
        signature="",
        docstring=doc,
        start_line=1,
        end_line=max(1, data.count(b"\n") + (0 if data.endswith(b"\n") or not data else 1)),
        content_hash=content_hash(data),
        source=data.decode("utf-8", "replace"),
    )
