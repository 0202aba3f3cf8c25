"""Functions of one name in one scope, told apart by what they are rather than by their
order: overloads by their parameters' types, Python's typings (``@typing.overload``) by
as many of theirs as tell them apart. What is left the same is numbered (``#2``) in
source order."""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass

from recalld.parsers import declarators
from recalld.parsers.definitions import Definition
from recalld.parsers.parameter_types import (
    SCALA_FUNCTIONS,
    parameter_type_list,
    parameter_types,
    parameterless,
    type_bounds,
)
from recalld.parsers.treesitter import Node, node_text, unwrapped
from recalld.parsers.written_names import decorator_expression, decorator_text, impl_arguments, objc_method

FUNCTION_KINDS = frozenset({"function", "method"})
# A TypeScript overload's declaration: a signature without a body, beside its implementation.
OVERLOAD_SIGNATURES = frozenset({"function_signature", "method_signature"})
# Methods of a class itself, beside its instances' (``name_singletons``): Ruby's, and
# JavaScript's and TypeScript's (``static``, or assigned to the class: ``Title.exists = …``).
SINGLETON_METHOD, SINGLETON_CLASS, RUBY_SCOPES = "singleton_method", "singleton_class", frozenset({"class", "module"})
CLASS_METHODS_BLOCK = "class_methods"
MODIFIER, PARTIAL = "modifier", "partial"  # C#'s ``partial class``: one class declared in parts
CONSTRUCTORS = frozenset({"constructor_declaration", "compact_constructor_declaration"})  # Java's
CLASS_MEMBERS = frozenset({"method_definition", "method_signature", "abstract_method_signature"})
ASSIGNED, STATIC, CLASS_METHOD = "expression_statement", "static", "+"
SCALA_TEMPLATE_BODY = "template_body"
SCALA_OBJECTS = frozenset({"object_definition", "package_object"})
REGISTER = "register"  # ``functools.singledispatch``'s: dispatched on the first argument alone
_SETTER = re.compile(r"(?<=\w)=$")  # a setter's name, ``count=`` (``written_names.accessor_name``)


@dataclass(slots=True)
class Placed:
    """A definition with its kind and qualname, as ``extract`` places it."""

    d: Definition
    kind: str
    base: str  # its qualname before repeats are told apart
    qualname: str


def name_overloads(placed: list[Placed], data: bytes) -> None:
    """Functions that share a name in one scope are named by their parameters' types
    (``Parser.parse(String)``, ``Parser.parse(Reader, int)``) rather than by their order
    (``#2``), so that an overload added above another leaves the other's name, lineage and
    history alone. Where the types as written are the same (``notEmpty(T, String)`` for both
    ``<T extends Collection<?>>`` and ``<T extends Map<?, ?>>``), a type variable reads as
    its bound (``notEmpty(Collection, String)``, ``notEmpty(Map, String)``), as Java erases
    it. Those the types do not tell apart even so are numbered in source order among
    themselves. A TypeScript function declared by overloads and implemented once is named
    as Python's typings are (``name_typing_overloads``): the implementation, with the code,
    by its plain name (``noop``: it was ``noop()#3`` beside ``noop(): void`` and ``noop():
    undefined``, and renamed whenever an overload was added, which widens its types), each
    overload by its types."""
    for base, members in _same_name_functions(placed):
        if members[0].d.by_macro:
            continue  # named by its arguments already: a repeat is one in another ``#if`` branch
        implementations = [p for p in members if p.d.node.type not in OVERLOAD_SIGNATURES]
        if len(implementations) == 1 < len(members):
            implementations[0].qualname = base
            members = [p for p in members if p is not implementations[0]]
        # Scala's ``def fullName: String`` beside ``def fullName(separator: Char)``, Kotlin's and
        # Swift's property of a function's name: the one of no parameter list keeps the plain
        # name, as a getter would (several are numbered among themselves), and the others are
        # named by their types still (they were all numbered by order beside a property)
        bare, members, types = _by_parameter_types(members, data)
        _number_repeats(bare, [base] * len(bare))
        repeated = {listed for listed, count in Counter(types).items() if count > 1}
        types = [
            parameter_types(p.d.node, data, bounds=type_bounds(p.d.node, data)) if listed in repeated else listed
            for p, listed in zip(members, types, strict=True)
        ]
        # still alike: with an array's element type (Scala's ``Array[Int]`` beside ``Array[Double]``)
        repeated = {listed for listed, count in Counter(types).items() if count > 1}
        types = [
            parameter_types(p.d.node, data, bounds=type_bounds(p.d.node, data), arrays=True)
            if listed in repeated else listed
            for p, listed in zip(members, types, strict=True)
        ]  # fmt: skip
        suffixes = [declarators.qualifiers(data, p.d.node) for p in members]  # C++'s ``get() const``
        names = [f"{base}({listed}){suffix}" for listed, suffix in zip(types, suffixes, strict=True)]
        _number_repeats(members, _beside_constructors(members, names, data))


def _beside_constructors(members: list[Placed], names: list[str], data: bytes) -> list[str]:
    """``names``, a method's that is a constructor's too with its return type, as an IDE's
    outline writes it: Java's ``public void EditorContainer()`` beside the constructor
    ``public EditorContainer()`` of its class (the JDK's ``DefaultTreeCellEditor``) is
    ``EditorContainer(): void``, and the constructor ``EditorContainer()``; the later of
    the two was numbered (``EditorContainer()#2``), whichever it was."""
    built = {name for p, name in zip(members, names, strict=True) if p.d.node.type in CONSTRUCTORS}
    renamed: list[str] = []
    for p, name in zip(members, names, strict=True):
        returns = p.d.node.child_by_field_name("type") if name in built else None
        renamed.append(f"{name}: {node_text(data, returns)}" if returns is not None else name)
    return renamed


def name_impl_arguments(placed: list[Placed], data: bytes) -> None:
    """Rust's members of one name in impls of one type for other type arguments (``impl
    Point<f32>`` and ``impl Point<f64>``, each with a ``norm``) are named by those arguments,
    as Rust names them (``<Point<f32>>::norm``): ``<Point<f32>>.norm``, ``<Cursor<Vec<u8>> as
    AsyncWrite>.poll_write``. They were numbered by their order (``Point.norm#2``; syn's
    ``<Lite as Debug>.fmt#185``), so that an impl added above renamed the others. A name
    no other member shares keeps its plain form."""
    groups: dict[tuple[str, str], list[Placed]] = {}
    for p in placed:
        if p.d.receiver and p.d.node.parent is not None and p.d.node.parent.type == "declaration_list":
            groups.setdefault((p.kind, p.base), []).append(p)
    for members in groups.values():
        arguments = [impl_arguments(data, p.d.node) for p in members] if len(members) > 1 else []
        if len(set(arguments)) > 1:
            _number_repeats(members, [_with_arguments(p, found) for p, found in zip(members, arguments, strict=True)])


def _with_arguments(p: Placed, arguments: str) -> str:
    """``p``'s name with its impl's type ``arguments`` (``impl_arguments``), its receiver
    ``Point`` written ``<Point<f32>>``, ``<Cursor as AsyncWrite>`` ``<Cursor<Vec<u8>> as AsyncWrite>``."""
    receiver = p.d.receiver or ""
    if not arguments or not p.base.endswith(f"{receiver}.{p.d.name}"):
        return p.base
    implementer, as_, trait = receiver.partition(" as ")
    written = f"{implementer}{arguments}{as_}{trait}" if as_ else f"<{receiver}{arguments}>"
    return p.base[: len(p.base) - len(receiver) - len(p.d.name) - 1] + f"{written}.{p.d.name}"


def _by_parameter_types(members: list[Placed], data: bytes) -> tuple[list[Placed], list[Placed], list[str | None]]:
    """Of ``members``, those of no parameter list, and the others with their parameters' types
    (none None: a list of them is renamed with bounds and arrays by ``name_overloads``)."""
    bare: list[Placed] = []
    typed: list[Placed] = []
    types: list[str | None] = []
    for p in members:
        listed = parameter_types(p.d.node, data)
        if listed is None or parameterless(p.d.node):
            bare.append(p)
        else:
            typed.append(p)
            types.append(listed)
    return bare, typed, types


def name_typing_overloads(placed: list[Placed], data: bytes, decorator: str) -> None:
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
            listed = [parameter_type_list(unwrapped(p.d.node), data) or [] for p in typings]
            _number_repeats(typings, [f"{base}({shown})" for shown in _telling_apart(listed)])


def name_registrations(placed: list[Placed], data: bytes, decorators: tuple[str, ...]) -> None:
    """Where functions of one name in one scope register implementations of a function
    dispatched on its arguments' types (``functools.singledispatch``'s ``@process.register``
    above each ``def _(arg: int)``, plum's ``@dispatch def f(x: str)``), each is named by the
    types it is registered for, as the decorator's arguments give them (``register(str)``)
    or else as its parameters are annotated (``register`` reads the first, ``dispatch``
    all), as many as tell them apart: ``_(int)``, ``_(list[int])``. They were numbered by order (``_#2``), so that one
    registered above another renamed it. A repeat of one type is numbered (``_(int)#2``);
    a group that also holds typings (``@overload``) is left as ``name_typing_overloads``
    named it."""
    for base, members in _same_name_functions(placed):
        registered = {id(p): types for p in members if (types := _registered_for(p, data, decorators)) is not None}
        if not registered or any("(" in p.qualname[len(base):] for p in members):
            continue
        others = [p for p in members if id(p) not in registered]
        _number_repeats(others, [base] * len(others))
        ordered = [p for p in members if id(p) in registered]
        _number_repeats(ordered, [f"{base}({shown})" for shown in _telling_apart([registered[id(p)] for p in ordered])])


def _registered_for(p: Placed, data: bytes, decorators: tuple[str, ...]) -> list[str] | None:
    """The types a decorator of one of ``decorators`` registers ``p`` for; None where none
    decorates it, or it names none. ``register`` is only a function's (``@process.register``:
    a plain ``@register`` is a registry's, Django's template filters)."""
    for decorator in _decorators(p.d.node):
        written = decorator_expression(decorator)
        if written is None:
            continue
        called = written.child_by_field_name("function") if written.type == "call" else written
        name = node_text(data, called).rsplit(".", 1)[-1] if called is not None else ""
        if name not in decorators or (name == REGISTER and called.type != "attribute"):
            continue
        arguments = written.child_by_field_name("arguments") if written.type == "call" else None
        given = [" ".join(node_text(data, a).split()) for a in arguments.named_children] if arguments else []
        listed = given or parameter_type_list(unwrapped(p.d.node), data) or []
        return (listed[:1] if name == REGISTER and not given else listed) or None
    return None


def name_singletons(placed: list[Placed], data: bytes, word: str) -> None:
    """Where a class defines a method of one name for itself and for its instances (Ruby's
    ``def self.controller_path`` or one in ``class << self``, beside ``def
    controller_path``; JavaScript's ``static formatDate(date)`` beside ``formatDate(date)``,
    or ``Title.exists = function`` beside ``Title.prototype.exists``), the instances' keeps
    the plain name and the class's is named with ``word`` as written,
    ``Base.self.controller_path``, ``DateFormatter.static.formatDate``: it was numbered by
    order (``#2``), so that one added above the other took the other's name, lineage and
    history. A property's getter and setter are one name here: the class's setter is
    ``Btn.static.count=`` beside its getter ``Btn.static.count`` where the instances have a
    ``count`` (it was ``Btn.count=`` where they had no setter). Runs before
    ``name_overloads``, which then tells each side's overloads apart."""
    for _property, members in _same_name_functions(placed, accessors=True):
        singletons = [p for p in members if _on_the_class(p, data)]
        if singletons and len(singletons) < len(members):
            instances = [p for p in members if p not in singletons]
            for p in singletons:
                scope, _, name = p.base.rpartition(".")
                p.base = f"{scope}.{word}.{name}" if scope else f"{word}.{name}"
            for side in (instances, singletons):
                _number_repeats(side, [p.base for p in side])


def merges(node: Node, data: bytes, kinds: frozenset[str]) -> bool:
    """Whether a declaration declared again in its scope is the same one rather than a
    redefinition: one of ``kinds`` (TypeScript's interfaces, which merge), or a partial one
    (C#'s ``partial class``). Its members are then named under its plain name, beside the
    other parts' (``Shape.perimeter``: it was ``Shape#2.perimeter``), one of a name in two
    parts told apart as overloads are."""
    return node.type in kinds or any(c.type == MODIFIER and node_text(data, c) == PARTIAL for c in node.children)


def _on_the_class(p: Placed, data: bytes) -> bool:
    """Whether a method is defined on its class rather than for the class's instances:
    Ruby's ``def self.build`` (any ``def object.name``), any ``def`` in ``class << self``
    or in an ``ActiveSupport::Concern``'s ``class_methods do … end`` (the class methods of
    what includes it); JavaScript's and TypeScript's ``static`` members and functions
    assigned to the class itself (``Title.exists = function``); Objective-C's ``+`` methods;
    a Scala companion object's (``object Shape { def apply(…) }`` beside ``class Shape``)."""
    node = p.d.node
    if node.type == SINGLETON_METHOD:
        return True
    if node.type in SCALA_FUNCTIONS and (body := node.parent) is not None and body.type == SCALA_TEMPLATE_BODY:
        return body.parent is not None and body.parent.type in SCALA_OBJECTS
    if objc_method(node):
        return node.child_count > 0 and node.children[0].type == CLASS_METHOD  # ``+ (instancetype)shape``
    if node.type == ASSIGNED:
        return p.d.receiver is not None and not (p.d.prototype or p.d.on_this)
    if node.type in CLASS_MEMBERS:
        named = node.child_by_field_name("name")
        before = (c for c in node.children if named is None or c.start_byte < named.start_byte)
        return any(not c.is_named and c.type == STATIC for c in before)
    current = node.parent
    while current is not None and current.type not in RUBY_SCOPES:
        if current.type == SINGLETON_CLASS:
            return True
        if current.type == "call" and (method := current.child_by_field_name("method")) is not None:
            return node_text(data, method) == CLASS_METHODS_BLOCK
        current = current.parent
    return False


def _telling_apart(listed: list[list[str]]) -> list[str]:
    """Each list of types cut to the fewest leading ones that tell all of them apart
    (whole where none do: numbered then), ``…`` standing for those left out."""
    longest = max(map(len, listed))
    count = next((n for n in range(1, longest + 1) if len({tuple(t[:n]) for t in listed}) == len(listed)), longest)
    return [", ".join(t[:count] + (["…"] if len(t) > count else [])) for t in listed]


def _same_name_functions(placed: list[Placed], *, accessors: bool = False) -> list[tuple[str, list[Placed]]]:
    """Functions that share a name in one scope, by that name, in source order; ``accessors``:
    a setter's name (``count=``) is its getter's."""
    groups: dict[tuple[str, str], list[Placed]] = {}
    for p in placed:
        if p.kind in FUNCTION_KINDS:
            groups.setdefault((p.kind, _SETTER.sub("", p.base) if accessors else p.base), []).append(p)
    return [(base, members) for (_kind, base), members in groups.items() if len(members) > 1]


def _number_repeats(members: list[Placed], names: list[str]) -> None:
    """Each of ``members`` named its name in ``names``, a repeat of one ``#2``, ``#3``."""
    seen: Counter[str] = Counter()
    for p, name in zip(members, names, strict=True):
        seen[name] += 1
        p.qualname = f"{name}#{seen[name]}" if seen[name] > 1 else name


def _decorated_with(node: Node, data: bytes, decorator: str) -> bool:
    """Whether a decorator of ``node`` is ``decorator``, plain or an attribute of a module
    (``@overload``, ``@typing.overload``)."""
    for child in _decorators(node):
        name = decorator_text(child, data).split("(", 1)[0]
        if name.rsplit(".", 1)[-1].strip() == decorator:
            return True
    return False


def _decorators(node: Node) -> list[Node]:
    """The decorators of a Python definition ``node`` (or of its ``decorated_definition``)."""
    decorated = node if node.type == "decorated_definition" else node.parent
    if decorated is None or decorated.type != "decorated_definition":
        return []
    return [child for child in decorated.named_children if child.type == "decorator"]
