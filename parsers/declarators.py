"""C's and C++'s declarators: the name a declaration gives, which its type does not hold
(``static struct node *node_new(int value)``: a ``*`` and the parameters stand around
it), the scope a qualified name writes (``void inner::Widget<T>::draw()``), and a
function's parameter types, by which its overloads are told apart.

A declarator is a function's when its name is what a function declarator declares: in
``int (*compare)(int)`` the name is a pointer's (a variable of function type), in
``void (*signal(int, void (*)(int)))(int)`` a function's returning such a pointer.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from recalld.parsers.docstrings import COMMENT_TYPES
from recalld.parsers.treesitter import Node, node_text

FUNCTION_DECLARATOR = "function_declarator"
# What stands around a declarator's name: ``*``, ``&``, ``&&``, brackets, an attribute.
_AROUND = frozenset({
    "pointer_declarator", "reference_declarator", "parenthesized_declarator", "attributed_declarator",
    "array_declarator", "init_declarator", FUNCTION_DECLARATOR,
})  # fmt: skip
# What names a function: a plain or a member's name, a qualified one (``Widget::draw``), a
# destructor (``~Widget``), an operator (``operator==``, ``operator bool``), a template's
# specialization (``max_of<int>``).
_NAMES = frozenset({
    "identifier", "field_identifier", "qualified_identifier", "destructor_name", "operator_name",
    "operator_cast", "template_function", "template_method",
})  # fmt: skip
# A type's name as a typedef declares it (``typedef int (*compare_fn)(const void *, …)``).
_TYPE_NAMES = frozenset({"type_identifier", "primitive_type", "identifier"})
_DECLARATORS = _AROUND | _NAMES | _TYPE_NAMES
# Parameter list entries, and what of theirs is no part of the type.
_PARAMETERS = frozenset({
    "parameter_declaration", "optional_parameter_declaration", "variadic_parameter_declaration",
    "variadic_parameter",
})  # fmt: skip
# A function's qualifiers its overloads may differ by alone (``get() const`` beside ``get()``).
_QUALIFIERS = frozenset({"type_qualifier", "ref_qualifier"})
# A definition a macro makes: ``TEST(WidgetTest, Draws) {…}`` (googletest), ``PHP_FUNCTION(strlen)``.
# Its "parameters" are the macro's arguments, bare names without a declarator of their own.
_MACRO_NAME = re.compile(r"[A-Z][A-Z0-9_]*\Z")
TEMPLATE_DECLARATION = "template_declaration"
# A specialisation's arguments longer than this are left out of its members' scope: such a
# scope is mostly a return type the grammar misread (``std::enable_if_t<…>``).
MAX_SPECIALISATION = 60
_PARAMETER_NAMES = frozenset({"type_identifier", "identifier"})  # ``typename T``, ``typename... Ts``
_WORD_START, _WORD_END = re.compile(r"\w"), re.compile(r"\w$")
# A name the grammar reads from within a word: a definer's (``SYSCALL_DEFINE3``) that
# ``macros.readable`` split in two (``SYSCALL DEFINE3(…)``), read here as written.
_SPLIT_NAME = re.compile(rb"\w+(?=\w\Z)")
_WORD_BYTE = re.compile(rb"\w")


class Declared(NamedTuple):
    name: str
    scope: str | None
    by_macro: bool  # a macro's definition, named with its arguments


def function_name(data: bytes, declarator: Node, *, body: bool) -> Declared | None:
    """(name, scope) of the function ``declarator`` declares (the scope its qualified name
    writes, dotted: ``inner.Widget`` of ``inner::Widget<T>::draw``), or None where it
    declares no function (a variable, a function pointer). A macro's definition (with a
    ``body``) is named with its arguments: ``TEST(WidgetTest, Draws)``; a macro's call
    without one declares nothing the grammar can tell (curl's ``BIT(ctl_valid);`` in a
    struct, ``ABSL_DECLARE_FLAG(…);``)."""
    found = _function_declarator(declarator)
    if found is None:
        return None
    found, name_node = found
    name, scope = _qualified(data, name_node)
    start = name_node.start_byte
    if name_node.type == "identifier" and start and _WORD_BYTE.match(data, start - 1):  # a definer ``readable`` split
        split = _SPLIT_NAME.search(data, max(0, start - 64), start + 1)
        name = split.group().decode() + name if split is not None else name
    if name_node.type in ("identifier", "field_identifier") and _MACRO_NAME.match(name):
        arguments = _macro_arguments(data, found)
        if arguments and not body:
            return None
        if arguments:
            return Declared(f"{name}({', '.join(arguments)})", scope, True)
    return Declared(name, scope, False)


def type_name(data: bytes, declarator: Node) -> str | None:
    """The name a typedef's declarator gives (``compare_fn`` of ``(*compare_fn)(const void *)``)."""
    current: Node | None = declarator
    while current is not None and current.type in _AROUND:
        current = _inner(current)
    return node_text(data, current) if current is not None and current.type in _TYPE_NAMES else None


def function_declarator(node: Node) -> Node | None:
    """The function declarator of a definition's node (a function's, a declaration's, one
    a template declares), or None."""
    current: Node | None = node
    for _ in range(3):  # a template's declaration holds the function's
        if current is None:
            return None
        declarator = current.child_by_field_name("declarator")
        if declarator is not None:
            found = _function_declarator(declarator)
            return found[0] if found is not None else None
        current = next((c for c in current.named_children if c.child_by_field_name("declarator")), None)
    return None


def parameter_type(data: bytes, parameter: Node) -> str | None:
    """A C or C++ parameter's type as written, its name and default value left out
    (``const std::string&`` of ``const std::string &name``, ``char*[]`` of ``char *argv[]``,
    ``void(*)(int)`` of ``void (*callback)(int)``); None for what is no such parameter."""
    if parameter.type not in _PARAMETERS:
        return None
    if parameter.type == "variadic_parameter":
        return "..."
    declarator = parameter.child_by_field_name("declarator")
    name = _declared(declarator) if declarator is not None else None
    default = parameter.child_by_field_name("default_value")
    return written(data, parameter, {n.id for n in (name, default) if n is not None}).removesuffix("=")


def written(data: bytes, node: Node, left_out: frozenset[int] | set[int] = frozenset()) -> str:
    """``node``'s tokens but its comments and ``left_out``, a space only between two words:
    the same however it is formatted (``Stack<T, N>`` of ``Stack< T,N >``)."""
    tokens: list[str] = []
    stack = [node]
    while stack:
        current = stack.pop()
        if current.id in left_out or current.type in COMMENT_TYPES:
            continue
        if current.child_count:
            stack.extend(reversed(current.children))
        elif token := node_text(data, current).strip():
            if tokens and _WORD_END.search(tokens[-1]) and _WORD_START.match(token):
                tokens.append(" ")
            tokens.append(token)
    return "".join(tokens)


def qualifiers(data: bytes, node: Node) -> str:
    """A C++ member function's qualifiers after its parameters (`` const``, `` &&``), which
    tell overloads apart as much as their parameters do; "" for anything else."""
    found = function_declarator(node)
    if found is None:
        return ""
    return "".join(f" {node_text(data, c)}" for c in found.named_children if c.type in _QUALIFIERS)


def _function_declarator(declarator: Node) -> tuple[Node, Node] | None:
    """The function declarator whose own declarator is the name ``declarator`` declares,
    and that name. A name in parentheses is a function's (Lua's ``int (lua_absindex)
    (lua_State *L, int idx)``, which no macro can expand), unless a ``*`` stands with it
    there (a function pointer's). Behind a macro (``LUA_API int (lua_absindex) (…)``) the
    grammar reads the type as the name and the name as its one parameter, a function
    declarator in another: no function returns a function, so the name is that one."""
    cast = _cast(declarator)
    if cast is not None:
        function = _cast_function(cast)
        return (function, declarator) if function is not None else None
    current: Node | None = declarator
    while current is not None and current.type in _AROUND:
        inner = _inner(current)
        if current.type == FUNCTION_DECLARATOR and inner is not None:
            if inner.type in _NAMES:
                return current, inner
            if inner.type == "parenthesized_declarator" and (name := _parenthesized_name(inner)) is not None:
                return current, name
            if inner.type == FUNCTION_DECLARATOR and (name := _macro_hidden_name(inner)) is not None:
                return current, name
        current = inner
    return None


def _cast(declarator: Node) -> Node | None:
    """The conversion operator ``declarator`` names (``operator bool() const``, or
    ``Handle::operator bool() const`` qualified), or None. The grammar reads one as an
    ``operator_cast`` that holds its own function declarator (an abstract one: no name
    of its own), where any other function's declarator holds its name."""
    current: Node | None = declarator
    while current is not None and current.type == "qualified_identifier":
        current = current.child_by_field_name("name")
    return current if current is not None and current.type == "operator_cast" else None


def _cast_function(cast: Node) -> Node | None:
    """A conversion operator's function declarator: its parameters and qualifiers, under
    what its type's declarator adds (``operator int*() const``: a ``*`` around it)."""
    current = cast.child_by_field_name("declarator")
    while current is not None and current.type in ("abstract_pointer_declarator", "abstract_reference_declarator"):
        current = current.child_by_field_name("declarator") or next(iter(current.named_children), None)
    return current if current is not None and current.type == "abstract_function_declarator" else None


def _parenthesized_name(node: Node) -> Node | None:
    while node.type == "parenthesized_declarator" and node.named_child_count == 1:
        node = node.named_children[0]
    return node if node.type in _NAMES else None


def _macro_hidden_name(declarator: Node) -> Node | None:
    """``luaL_callmeta`` of what the grammar reads as ``int(luaL_callmeta)``: a parameter
    list of one type's name, without a declarator."""
    parameters = declarator.child_by_field_name("parameters")
    if parameters is None or parameters.named_child_count != 1:
        return None
    only = parameters.named_children[0]
    kind = only.child_by_field_name("type")
    if only.type != "parameter_declaration" or only.named_child_count != 1 or kind is None:
        return None
    return kind if kind.type == "type_identifier" else None


def _declared(declarator: Node) -> Node | None:
    """The name node a parameter's declarator declares (innermost)."""
    current: Node | None = declarator
    while current is not None and current.type in _AROUND:
        current = _inner(current)
    return current if current is not None and current.type in _NAMES else None


def _inner(node: Node) -> Node | None:
    """The declarator ``node`` holds: its ``declarator`` field, or (a reference's, a
    parenthesized one's, which have none) its first named child that is no qualifier."""
    inner = node.child_by_field_name("declarator")
    if inner is not None:
        return inner
    return next((c for c in node.named_children if c.type in _DECLARATORS), None)


def _qualified(data: bytes, node: Node) -> tuple[str, str | None]:
    """A name and the scope it is qualified by (``::`` read as ``.``). A template's
    arguments are left out of a scope where they are the parameters of the templates
    around it (``template <typename T> void Widget<T>::draw()`` is ``Widget``'s) and kept
    where they specialise it, as a specialisation's class is named: fast_float's
    ``template <> int binary_format<double>::max_digits()`` is ``binary_format<double>``'s,
    beside ``binary_format<float>``'s (they were ``max_digits()`` and ``max_digits()#2``),
    but for arguments longer than ``MAX_SPECIALISATION``."""
    scopes: list[str] = []
    own: set[str] | None = None
    current: Node | None = node
    while current is not None and current.type == "qualified_identifier":
        scope = current.child_by_field_name("scope")
        if scope is not None and scope.type == "template_type":
            own = _template_parameters(data, node) if own is None else own
            named = scope.child_by_field_name("name")
            specialised = written(data, scope)
            if named is not None and (len(specialised) > MAX_SPECIALISATION or _arguments_are(data, scope, own)):
                specialised = node_text(data, named)
            scopes.append(specialised)
        elif scope is not None:
            scopes.append(node_text(data, scope))
        current = current.child_by_field_name("name")
    if current is None:
        return node_text(data, node), None
    function = _cast_function(current) if current.type == "operator_cast" else None
    left_out = {function.id} if function is not None else set()  # ``operator int*`` of ``operator int*() const``
    return written(data, current, left_out), ".".join(scopes) or None  # ``operator==`` of ``operator ==``


def _arguments_are(data: bytes, scope: Node, names: set[str]) -> bool:
    """Whether a template's arguments in ``scope`` (``Widget<T, Ts...>``) are each one of
    ``names``, and none twice."""
    arguments = scope.child_by_field_name("arguments")
    if arguments is None:
        return True
    written_ = [written(data, a).removesuffix("...") for a in arguments.named_children if a.type not in COMMENT_TYPES]
    return all(a in names for a in written_) and len(set(written_)) == len(written_)


def _template_parameters(data: bytes, node: Node) -> set[str]:
    """The names the templates around ``node`` declare (``T``, ``N``, ``Ts`` of ``template
    <typename T, int N, typename... Ts>``)."""
    names: set[str] = set()
    current = node.parent
    while current is not None:
        if current.type == TEMPLATE_DECLARATION and (parameters := current.child_by_field_name("parameters")):
            for parameter in parameters.named_children:
                name = parameter.child_by_field_name("name") or parameter.child_by_field_name("declarator")
                if name is None:
                    name = next((c for c in parameter.named_children if c.type in _PARAMETER_NAMES), None)
                if name is not None:
                    names.add(written(data, _declared(name) or name).lstrip("."))  # ``int... Ns``
        current = current.parent
    return names


def _macro_arguments(data: bytes, declarator: Node) -> list[str]:
    """The arguments a macro's definition is named by: its "parameters" where each is a
    bare name, at most two (``WidgetTest``, ``Draws``); the first alone where it is one
    and more follow, or names in a macro's own way (the kernel's ``SYSCALL_DEFINE2(setpgid,
    pid_t, pid, pid_t, pgid)``, ``BPF_CALL_2(bpf_map_lookup_elem, struct bpf_map *, map, …)``:
    the name, then parameters' types and names); [] where the first declares something (a
    constructor's own parameters)."""
    parameters = declarator.child_by_field_name("parameters")
    bare: list[str | None] = []
    for parameter in parameters.named_children if parameters is not None else ():
        if parameter.type in COMMENT_TYPES:
            continue
        kind = parameter.child_by_field_name("type")
        alone = parameter.type == "parameter_declaration" and parameter.named_child_count == 1
        bare.append(node_text(data, kind) if alone and kind is not None and kind.type == "type_identifier" else None)
    if len(bare) <= 2 and all(bare):
        return [a for a in bare if a]
    return [bare[0]] if bare[0] else []
