"""A function's parameters' types, as an overload's name lists them (``Codec.decode(String)``,
``size(Int)``): generic arguments and annotations erased, a type variable read as its bound
where two overloads read alike without it, arrays told from lists (``namesakes``), and the
key a definition's parameters give its content hash (``extract``)."""

from __future__ import annotations

import re
from collections.abc import Mapping

from recalld.parsers import declarators
from recalld.parsers.docstrings import COMMENT_TYPES
from recalld.parsers.treesitter import Node, node_text

# What an overload's name leaves out of its parameters' types: generic arguments (Java
# cannot overload on them) and annotations.
TYPE_ARGUMENTS, ARRAY = "type_arguments", "Array"
ERASED = frozenset({TYPE_ARGUMENTS, "marker_annotation", "annotation"})
MAX_PARAMETER_TYPE = 60
_CLOSING = {"(": ")", "[": "]", "{": "}", "<": ">"}
SPREAD_NOT_TYPE = frozenset({"modifiers", "variable_declarator"})
# Parameter list entries that are no parameter: Java's receiver, Python's ``*`` and ``/``.
NO_PARAMETER = COMMENT_TYPES | {"receiver_parameter", "keyword_separator", "positional_separator"}
_SPLATS = {"list_splat_pattern": "*", "dictionary_splat_pattern": "**"}
# Kotlin's parameter list, and Swift's functions, whose parameters are their own children.
KOTLIN_PARAMETERS = "function_value_parameters"
SCALA_TYPE_PARAMETERS = "type_parameters"
COMPACT_CONSTRUCTOR = "compact_constructor_declaration"
SWIFT_FUNCTIONS = frozenset({"function_declaration", "protocol_function_declaration", "init_declaration",
                             "subscript_declaration"})
PARAMETER, PARAMETER_MODIFIERS = "parameter", "parameter_modifiers"
TYPING_MODIFIERS = frozenset({"vararg", "inout"})
# What stands beside a Swift parameter's type: its modifiers, its attributes, the type's
# attributes (``@escaping``, ``@MainActor``, ``@Sendable``).
NOT_TYPE = frozenset({PARAMETER_MODIFIERS, "type_modifiers", "attribute"})
PARAMETER_NAMES = frozenset({"identifier", "simple_identifier"})  # Kotlin's name, Swift's label and name
_WORD_START, _WORD_END = re.compile(r"\w"), re.compile(r"\w$")
SCALA_FUNCTIONS = frozenset({"function_definition", "function_declaration"})


def type_bounds(node: Node, data: bytes) -> dict[str, str]:
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
    return f"{parameter_types(node, data)}{declarators.qualifiers(data, node)}"


def parameter_types(
    node: Node, data: bytes, *, bounds: Mapping[str, str] | None = None, arrays: bool = False
) -> str | None:
    listed = parameter_type_list(node, data, bounds=bounds, arrays=arrays)
    return None if listed is None else ", ".join(listed)


def parameter_type_list(
    node: Node, data: bytes, *, bounds: Mapping[str, str] | None = None, arrays: bool = False
) -> list[str] | None:
    """``String, int[], Object...`` for Java's ``(final String s, int[] a, Object... rest)``;
    TypeScript's optional and rest parameters are marked (``number?``, ``...string[]``)
    and its ``this`` parameter left out, as are Java's receiver parameter and Python's
    ``self`` and ``cls``; Python's ``int, *str, **_`` for ``(self, a: int, *args: str,
    **kw)``, an untyped parameter ``_``. ``bounds``: type variables read as their bounds
    (``type_bounds``); ``arrays``: an array's element type kept (``_erased``)."""
    declarator = declarators.function_declarator(node)  # C++'s parameters are its declarator's
    lists = _parameter_lists(declarator or node)
    if not lists:
        return _unfielded_parameters(node, data, bounds, arrays)
    if len(lists) > 1:  # Scala's ``(name: String, x: T)(implicit tag: ClassTag[T])``: ``String, T)(ClassTag``
        return [")(".join(", ".join(_list_types(one, data, bounds, arrays)) for one in lists)]
    return _list_types(lists[0], data, bounds, arrays)


def _list_types(parameters: Node, data: bytes, bounds: Mapping[str, str] | None, arrays: bool) -> list[str]:
    """The types of one parameter list's parameters, as ``parameter_type_list`` lists them."""
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
        text = "_"
        if type_node is not None:
            text = _cut(_erased(type_node, data, bounds, arrays) + _name_dimensions(parameter, data))
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


def _name_dimensions(parameter: Node, data: bytes) -> str:
    """The array dimensions Java lets a parameter write after its name, C's way (the JDK's
    ``read(byte b[])``, ``valueOf(char data[])``): its type's, ``[]`` (annotations erased).
    ``InputStream.read(byte b[])`` was ``read(byte)``."""
    dimensions = parameter.child_by_field_name("dimensions")
    return _erased(dimensions, data) if dimensions is not None else ""


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


def parameterless(node: Node) -> bool:
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
        text = modifiers + (_cut(_erased(typed, data, bounds, arrays)) if typed is not None else "_")
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


def _cut(text: str) -> str:
    """A parameter's type cut to ``MAX_PARAMETER_TYPE`` characters; where that leaves brackets
    open, ``…`` for the rest and those closed (``tuple[type[BaseExc…]]``): a name whose
    brackets do not close reads as no parameters (``qualnames``)."""
    if len(text) <= MAX_PARAMETER_TYPE:
        return text
    kept, opened = text[:MAX_PARAMETER_TYPE], []
    for index, char in enumerate(kept):
        if char in _CLOSING:
            opened.append(_CLOSING[char])
        elif opened and char == opened[-1] and not (char == ">" and kept[index - 1 : index] == "="):
            opened.pop()
    return kept + "…" + "".join(reversed(opened)) if opened else kept
