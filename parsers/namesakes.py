"""Functions of one name in one scope, told apart by what they are rather than by their
order: overloads by their parameters' types, Python's typings (``@typing.overload``) by
as many of theirs as tell them apart. What is left the same is numbered (``#2``) in
source order."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass

from recalld.parsers import declarators
from recalld.parsers.definitions import Definition
from recalld.parsers.docstrings import COMMENT_TYPES
from recalld.parsers.treesitter import Node, node_text, unwrapped
from recalld.parsers.written_names import objc_method

FUNCTION_KINDS = frozenset({"function", "method"})
# A TypeScript overload's declaration: a signature without a body, beside its implementation.
OVERLOAD_SIGNATURES = frozenset({"function_signature", "method_signature"})
# What an overload's name leaves out of its parameters' types: generic arguments (Java
# cannot overload on them) and annotations.
TYPE_ARGUMENTS, ARRAY = "type_arguments", "Array"
ERASED = frozenset({TYPE_ARGUMENTS, "marker_annotation", "annotation"})
MAX_PARAMETER_TYPE = 60
SPREAD_NOT_TYPE = frozenset({"modifiers", "variable_declarator"})
# Parameter list entries that are no parameter: Java's receiver, Python's ``*`` and ``/``.
NO_PARAMETER = COMMENT_TYPES | {"receiver_parameter", "keyword_separator", "positional_separator"}
# Methods of a class itself, beside its instances' (``name_singletons``): Ruby's, and
# JavaScript's and TypeScript's (``static``, or assigned to the class: ``Title.exists = …``).
SINGLETON_METHOD, SINGLETON_CLASS, RUBY_SCOPES = "singleton_method", "singleton_class", frozenset({"class", "module"})
CLASS_METHODS_BLOCK = "class_methods"
MODIFIER, PARTIAL = "modifier", "partial"  # C#'s ``partial class``: one class declared in parts
CLASS_MEMBERS = frozenset({"method_definition", "method_signature", "abstract_method_signature"})
ASSIGNED, STATIC, CLASS_METHOD = "expression_statement", "static", "+"
_SPLATS = {"list_splat_pattern": "*", "dictionary_splat_pattern": "**"}
# Kotlin's parameter list, and Swift's functions, whose parameters are their own children.
KOTLIN_PARAMETERS = "function_value_parameters"
SCALA_FUNCTIONS = frozenset({"function_definition", "function_declaration"})
SCALA_TYPE_PARAMETERS = "type_parameters"
SCALA_TEMPLATE_BODY = "template_body"
COMPACT_CONSTRUCTOR = "compact_constructor_declaration"
SCALA_OBJECTS = frozenset({"object_definition", "package_object"})
SWIFT_FUNCTIONS = frozenset({"function_declaration", "protocol_function_declaration", "init_declaration",
                             "subscript_declaration"})
PARAMETER, PARAMETER_MODIFIERS = "parameter", "parameter_modifiers"
TYPING_MODIFIERS = frozenset({"vararg", "inout"})
# What stands beside a Swift parameter's type: its modifiers, its attributes, the type's
# attributes (``@escaping``, ``@MainActor``, ``@Sendable``).
NOT_TYPE = frozenset({PARAMETER_MODIFIERS, "type_modifiers", "attribute"})
PARAMETER_NAMES = frozenset({"identifier", "simple_identifier"})  # Kotlin's name, Swift's label and name
_WORD_START, _WORD_END = re.compile(r"\w"), re.compile(r"\w$")
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
            _parameter_types(p.d.node, data, bounds=_type_bounds(p.d.node, data)) if listed in repeated else listed
            for p, listed in zip(members, types, strict=True)
        ]
        # still alike: with an array's element type (Scala's ``Array[Int]`` beside ``Array[Double]``)
        repeated = {listed for listed, count in Counter(types).items() if count > 1}
        types = [
            _parameter_types(p.d.node, data, bounds=_type_bounds(p.d.node, data), arrays=True)
            if listed in repeated else listed
            for p, listed in zip(members, types, strict=True)
        ]  # fmt: skip
        suffixes = [declarators.qualifiers(data, p.d.node) for p in members]  # C++'s ``get() const``
        _number_repeats(members, [f"{base}({listed}){suffix}" for listed, suffix in zip(types, suffixes, strict=True)])


def _by_parameter_types(members: list[Placed], data: bytes) -> tuple[list[Placed], list[Placed], list[str | None]]:
    """Of ``members``, those of no parameter list, and the others with their parameters' types
    (none None: a list of them is renamed with bounds and arrays by ``name_overloads``)."""
    bare: list[Placed] = []
    typed: list[Placed] = []
    types: list[str | None] = []
    for p in members:
        listed = _parameter_types(p.d.node, data)
        if listed is None or _parameterless(p.d.node):
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
            listed = [_parameter_type_list(unwrapped(p.d.node), data) or [] for p in typings]
            _number_repeats(typings, [f"{base}({shown})" for shown in _telling_apart(listed)])


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


def parameter_key(node: Node, data: bytes) -> str:
    """What tells a function from its overloads: its parameters' types and C++'s qualifiers
    (``int, const char*`` and `` const``)."""
    return f"{_parameter_types(node, data)}{declarators.qualifiers(data, node)}"


def _parameter_types(
    node: Node, data: bytes, *, bounds: Mapping[str, str] | None = None, arrays: bool = False
) -> str | None:
    listed = _parameter_type_list(node, data, bounds=bounds, arrays=arrays)
    return None if listed is None else ", ".join(listed)


def _parameter_type_list(
    node: Node, data: bytes, *, bounds: Mapping[str, str] | None = None, arrays: bool = False
) -> list[str] | None:
    """``String, int[], Object...`` for Java's ``(final String s, int[] a, Object... rest)``;
    TypeScript's optional and rest parameters are marked (``number?``, ``...string[]``)
    and its ``this`` parameter left out, as are Java's receiver parameter and Python's
    ``self`` and ``cls``; Python's ``int, *str, **_`` for ``(self, a: int, *args: str,
    **kw)``, an untyped parameter ``_``. ``bounds``: type variables read as their bounds
    (``_type_bounds``); ``arrays``: an array's element type kept (``_erased``)."""
    declarator = declarators.function_declarator(node)  # C++'s parameters are its declarator's
    lists = _parameter_lists(declarator or node)
    if not lists:
        return _unfielded_parameters(node, data, bounds, arrays)
    if len(lists) > 1:  # Scala's ``(name: String, x: T)(implicit tag: ClassTag[T])``: ``String, T)(ClassTag``
        return [")(".join(", ".join(_list_types(one, data, bounds, arrays)) for one in lists)]
    return _list_types(lists[0], data, bounds, arrays)


def _list_types(parameters: Node, data: bytes, bounds: Mapping[str, str] | None, arrays: bool) -> list[str]:
    """The types of one parameter list's parameters, as ``_parameter_type_list`` lists them."""
    listed: list[str] = []
    declared = False  # C's and C++'s parameters (declarators.parameter_type)
    for parameter in parameters.named_children:
        if (written := declarators.parameter_type(data, parameter)) is not None:
            listed.append(written)
            declared = True
            continue
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
        text = _erased(type_node, data, bounds, arrays)[:MAX_PARAMETER_TYPE] if type_node is not None else "_"
        if parameter.type == "spread_parameter":
            text += "..."
        elif pattern is not None and pattern.type == "rest_pattern":
            text = "..." + text
        elif parameter.type == "optional_parameter":
            text += "?"
        elif splat := _SPLATS.get(parameter.type) or _SPLATS.get(_first_type(parameter)):
            text = splat + text  # Python's ``*args: int``, ``**kw``: ``*int``, ``**_``
        listed.append(text)
    if declared and listed == ["void"]:
        return []  # C++'s ``length(void) const`` declared is the ``length() const`` defined
    return listed


def _of_array(arguments: Node, data: bytes) -> bool:
    """Whether ``arguments`` are the type arguments of ``Array`` (``scala.Array``)."""
    if arguments.type != TYPE_ARGUMENTS or (generic := arguments.parent) is None:
        return False
    named = generic.child_by_field_name("type") or generic.named_child(0)
    return named is not None and named is not arguments and node_text(data, named).rpartition(".")[2] == ARRAY


def _parameter_lists(node: Node) -> list[Node]:
    """A function's parameter lists: one, or Scala's several (its grammar's field holds its
    type parameters too, ``[T: ClassTag]``, which are no parameters). A Java record's compact
    constructor (``Point { … }``) takes its record's components (``Point(int, int)``, as the
    canonical constructor written out is named: it was numbered by order)."""
    if node.type == COMPACT_CONSTRUCTOR and (body := node.parent) is not None and body.parent is not None:
        node = body.parent
    return [c for c in node.children_by_field_name("parameters") if c.type != SCALA_TYPE_PARAMETERS]


def _parameterless(node: Node) -> bool:
    """Scala's ``def name: T``, of no parameter list (Python's ``def`` always has one)."""
    return (
        node.type in SCALA_FUNCTIONS and any(c.type == "def" for c in node.children) and not _parameter_lists(node)
    )


def _unfielded_parameters(
    node: Node, data: bytes, bounds: Mapping[str, str] | None, arrays: bool = False
) -> list[str] | None:
    """Kotlin's parameters (``String, vararg Int`` of ``(s: String, vararg xs: Int)``), in a
    list that is no field of their function, and Swift's, its function's own children,
    each with its argument label as Swift names a function by them (``to: CGPoint`` of
    ``to point: CGPoint``, ``CGPoint`` of ``_ point: CGPoint``, ``inout [T]``, ``Int...``);
    None for a definition of neither (a Kotlin property, broken code)."""
    listed = next((c for c in node.children if c.type == KOTLIN_PARAMETERS), None)
    if listed is None and node.type not in SWIFT_FUNCTIONS:
        return None
    types: list[str] = []
    modifiers = ""
    for parameter in (listed or node).named_children:
        if parameter.type == PARAMETER_MODIFIERS:
            modifiers = _typing_modifiers(parameter, data)  # Kotlin's, before the parameter
            continue
        if parameter.type != PARAMETER:
            continue
        own = [c for c in parameter.named_children if c.type not in COMMENT_TYPES]
        names = [c for c in own if c.type in PARAMETER_NAMES]
        typed = next((c for c in own if c.type not in PARAMETER_NAMES and c.type not in NOT_TYPE), None)
        modifiers += "".join(_typing_modifiers(c, data) for c in own if c.type == PARAMETER_MODIFIERS)  # Swift's
        text = modifiers + (_erased(typed, data, bounds, arrays)[:MAX_PARAMETER_TYPE] if typed is not None else "_")
        if any(not c.is_named and c.type == "..." for c in parameter.children):
            text += "..."
        label = node_text(data, names[0]) if listed is None and names else "_"  # Swift's first name is its label
        types.append(text if label == "_" else f"{label}: {text}")
        modifiers = ""
    return types


def _typing_modifiers(modifiers: Node, data: bytes) -> str:
    """Of a parameter's modifiers, those that are part of its type (``vararg ``, ``inout ``),
    not its annotations (``@Suppress(…)``, ``@escaping``)."""
    words = (node_text(data, c) for c in modifiers.named_children)
    return "".join(f"{word} " for word in words if word in TYPING_MODIFIERS)


def _first_type(node: Node) -> str:
    return node.named_children[0].type if node.named_children else ""


def _erased(node: Node, data: bytes, bounds: Mapping[str, str] | None = None, arrays: bool = False) -> str:
    """A type's tokens without its generic arguments and annotations, joined with a space
    only between two words (``java.io.Reader``, ``int[]``, ``(value:T,index:number)=>R``):
    the same name however the source is formatted. A type variable in ``bounds`` reads as
    its bound. ``arrays``: an array's element type is kept, as Java's ``int[]`` keeps it
    (Scala's ``Array[Int]`` and ``Array[Double]``, which the JVM tells apart: Scala's
    ``Sorting.quickSort`` of each were ``#2``, ``#3``)."""
    tokens: list[str] = []
    stack = [node]
    while stack:
        current = stack.pop()
        erased = current is not node and current.type in ERASED and not (arrays and _of_array(current, data))
        if current.type in COMMENT_TYPES or erased:
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
