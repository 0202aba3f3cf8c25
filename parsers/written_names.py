"""The name a definition is written with, read from the nodes that write it (``parsers.
definitions``): a title written as a string, C#'s operators and indexers, a property's
setter, a Rust impl's trait and the reference it is for, the type a method is given to.
"""

from __future__ import annotations

import re

from recalld.parsers import declarators
from recalld.parsers.treesitter import Node, node_text

_LIFETIME = re.compile(r"^'\w+\s+")  # a Rust reference's lifetime: ``'s`` of ``&'s FlatSet``
_LIFETIME_BOUND = re.compile(r"\s*\+\s*'\w+")  # a trait object's: ``+ 'a`` of ``Expected + 'a``
_LIFETIME_ARGUMENT = re.compile(r"'\w+\s*,?\s*")  # ``'de`` of ``Visitor<'de>``, ``'a`` of ``&'a str``
# Names written as a string: a test's title, an eslint rule's visitor (``"CallExpression:exit"``).
STRING_NAMES = frozenset({"string", "template_string", "encapsed_string"})  # PHP's "…": encapsed
# A property's setter is named as Ruby names one, ``value=``, beside its getter's ``value``
# (JavaScript's and TypeScript's ``set value(v)``, Python's ``@value.setter``): the second
# of the two was numbered by order (``value#2``), whichever it was. Python's deleter
# (``@value.deleter``) is named as Python deletes it, ``del value`` (it was ``value#2``).
ACCESSORS = frozenset({"method_definition", "method_signature", "abstract_method_signature"})
SETTER_KEYWORD, DECORATED = "set", "decorated_definition"
ACCESSOR_NAMES = {"setter": "{}=", "deleter": "del {}"}  # by the word Python decorates one with
TYPE_PATH = "user_type"  # Swift's written type: its names, with generic arguments between them
# Swift's members named by their keyword, and by an operator (``static func ==``).
SWIFT_KEYWORD_MEMBERS = {
    "init_declaration": "init", "deinit_declaration": "deinit", "subscript_declaration": "subscript",
}  # fmt: skip
SWIFT_FUNCTION = "function_declaration"
# Objective-C's methods, named by their selectors (``moveTo:animated:``, ``init``).
OBJC_METHODS = frozenset({"method_declaration", "method_definition"})
OBJC_PARAMETER = "method_parameter"


def string_name(text: str) -> str:
    """A name written as a string, on one line and in double quotes where the quotes it was
    written in say nothing more: a change of quote style (prettier's ``singleQuote``)
    renames no test. A title holding a double quote, an escape or a substitution keeps
    its own (`` `adds ${a}` ``)."""
    text = re.sub(r"\s+", " ", text)
    inner = text[1:-1]
    if len(text) > 1 and text[0] == text[-1] and text[0] in "'`" and not re.search(r'["\\]|\$\{', inner):
        return f'"{inner}"'
    return text


def accessor_name(node: Node, named: Node, name: str, data: bytes) -> str:
    """``name`` as the accessor ``node`` is named: a property's setter ``name=`` (``ACCESSORS``:
    the keyword ``set`` before its name; Python's decorator ``@name.setter``), Python's
    deleter ``del name`` (``@name.deleter``); ``name`` itself for anything else."""
    if node.type in ACCESSORS:
        before = (c for c in node.children if c.start_byte < named.start_byte)
        sets = any(not c.is_named and c.type == SETTER_KEYWORD for c in before)
        return ACCESSOR_NAMES["setter"].format(name) if sets else name
    if node.type != DECORATED:
        return name
    for child in node.named_children:
        if child.type == "decorator":
            owner, _, accessor = decorator_text(child, data).replace(" ", "").rpartition(".")
            if owner == name and accessor in ACCESSOR_NAMES:
                return ACCESSOR_NAMES[accessor].format(name)
    return name


def decorator_text(decorator: Node, data: bytes) -> str:
    """A Python decorator as written, without its ``@`` and a comment after it
    (``@overload  # int case``: ``overload``)."""
    written = decorator_expression(decorator)
    return node_text(data, written).strip() if written is not None else ""


def decorator_expression(decorator: Node) -> Node | None:
    """What a Python decorator calls or names, a comment after it left out."""
    return next((c for c in decorator.named_children if c.type != "comment"), None)


def operator_name(node: Node | None, data: bytes) -> str | None:
    """The name C# gives a member without one of its own: an indexer's ``this[]``, an
    operator's ``operator+``, a conversion's ``operator string`` (``implicit operator
    string(Shape s)``) for its definition ``node``; Swift's, its keyword or operator
    (``init``, ``subscript``, ``==``); an Objective-C method's, its selector; None for
    any other node."""
    if node is None:
        return None
    if objc_method(node):
        return selector(node, data)
    if node.type == "indexer_declaration":
        return "this[]"
    if node.type == "operator_declaration" and (symbol := node.child_by_field_name("operator")) is not None:
        return f"operator{node_text(data, symbol)}"
    if node.type == "conversion_operator_declaration" and (target := node.child_by_field_name("type")) is not None:
        return f"operator {declarators.written(data, target)}"
    if node.type in SWIFT_KEYWORD_MEMBERS:
        return SWIFT_KEYWORD_MEMBERS[node.type]
    if node.type == SWIFT_FUNCTION and (symbol := node.child_by_field_name("name")) is not None and not symbol.is_named:
        return node_text(data, symbol)  # ``==`` of ``static func == (lhs: Shape, rhs: Shape)``
    return None


def objc_method(node: Node) -> bool:
    """Whether ``node`` is an Objective-C method's (JavaScript's ``method_definition`` has a name)."""
    return node.type in OBJC_METHODS and node.child_by_field_name("name") is None


def selector(node: Node, data: bytes) -> str | None:
    """An Objective-C method's selector: its keywords, each with the colon of the parameter
    it takes (``moveTo:animated:``; ``:(id)a :(id)b``'s keywords are empty), or its one name
    (``init``), without a name after its parameters (an attribute's: ``initWithBridge:(id)b
    NS_DESIGNATED_INITIALIZER``); None where it has no name (broken code)."""
    keywords: list[str] = []
    first = keyword = ""
    for child in node.children:
        if child.type == "identifier":
            keyword = node_text(data, child)
            first = first or keyword
        elif child.type == OBJC_PARAMETER:
            keywords.append(f"{keyword}:")
            keyword = ""
    return "".join(keywords) if keywords else first or None


def type_path(data: bytes, node: Node) -> str:
    """A Swift type's names without its generic arguments: ``Array.Sub`` of ``Array<Int>.Sub``."""
    return ".".join(node_text(data, c) for c in node.named_children if c.type == "type_identifier")


def trait_name(data: bytes, node: Node) -> str:
    """The trait a Rust impl implements, as its members are named by, as Rust's own
    ``<Arg as Display>::fmt`` (``<Arg as Display>.fmt``, ``<Value as From<bool>>.from``,
    ``<Values as Iterator>.Item``): its own path left out (``fmt::Display``), its arguments
    as written without lifetimes and spaces (``PartialEq<&'a str>``: ``PartialEq<&str>``;
    ``Visitor<'de>``: ``Visitor``)."""
    text = _written_arguments(node_text(data, node)).replace("<>", "").strip()
    head, bracket, arguments = text.partition("<")
    return head.rsplit("::", 1)[-1].strip() + bracket + arguments


def impl_arguments(data: bytes, member: Node) -> str:
    """The type arguments of the Rust impl ``member`` is declared in, where they name more
    than the impl's own type parameters, as written without lifetimes: ``<f32>`` of ``impl
    Point<f32>``, ``<Vec<u8>>`` of ``impl AsyncWrite for io::Cursor<Vec<u8>>``, ``<&T>`` of
    ``impl<T> Point<&T>``; "" for ``impl<T> Point<T>``, ``impl Point`` or no impl's member."""
    impl = member.parent.parent if member.parent is not None else None
    node = impl.child_by_field_name("type") if impl is not None and impl.type == "impl_item" else None
    while node is not None and node.type == "reference_type":
        node = node.child_by_field_name("type")
    arguments = node.child_by_field_name("type_arguments") if node is not None and node.type == "generic_type" else None
    if impl is None or arguments is None:
        return ""
    parameters = impl.child_by_field_name("type_parameters")
    declared = parameters.named_children if parameters is not None else []
    own = {node_text(data, c.child_by_field_name("name") or c) for c in declared}
    if all(a.type == "lifetime" or node_text(data, a) in own for a in arguments.named_children):
        return ""
    return _written_arguments(node_text(data, arguments))


def _written_arguments(text: str) -> str:
    """Rust type arguments as a name writes them: without lifetimes, spaces in brackets and
    a trailing comma (``<'a, Vec< u8 >,>``: ``<Vec<u8>>``)."""
    text = _LIFETIME_ARGUMENT.sub("", text)
    return re.sub(r",?\s*>", ">", re.sub(r"<\s*", "<", re.sub(r"\s+", " ", text)))


def reference(data: bytes, node: Node) -> str:
    """``&`` or ``&mut `` when a Rust trait is implemented for a reference, as Rust names
    such an impl's members (``<&FlatSet as IntoIterator>::into_iter`` beside ``<FlatSet as
    IntoIterator>::into_iter``: both were ``<FlatSet as IntoIterator>.into_iter``, one
    ``#2``); its lifetime left out."""
    text = node_text(data, node).strip()
    if not text.startswith("&"):
        return ""
    return "&mut " if _LIFETIME.sub("", text[1:].lstrip()).startswith("mut ") else "&"


def receiver_name(data: bytes, node: Node) -> str:
    """The type a method is given to, bare: ``FlatSet`` of Rust's ``&'s mut FlatSet<T>``
    (its lifetime was read as the type's name: ``'s FlatSet.into_iter``), of Go's
    ``*pkg.FlatSet``; ``Expected`` of a trait object ``dyn Expected + 'a``, a slice's
    ``[u8]`` whole (its methods were read as free functions), a tuple's too, as written but
    lifetimes (``(&[u8], usize)`` of ``(&'a [u8], usize)``, ``(dyn Future<Output = T> +
    Unpin)`` of ``&'a mut (dyn Future<Output = T> + Unpin + 'a)``). A JavaScript namespace
    is its path whole (``jQuery.fn`` of ``jQuery.fn.extend({…})``), a Lua table too. A Kotlin extension's
    nullable type is the type's (``String`` of ``String?``)."""
    if node.type in ("member_expression", "dot_index_expression"):  # Lua's ``M.Client`` of ``M.Client:request``
        return node_text(data, node)
    text = node_text(data, node).strip().lstrip("*&").strip()
    text = _LIFETIME.sub("", text).removeprefix("mut ").removeprefix("dyn ").strip()
    text = _LIFETIME_BOUND.sub("", text)
    if text.startswith("("):  # a tuple, or a trait object in parentheses: whole (nom's ``(&'a [u8], usize)``)
        return _written_arguments(text)
    if text.startswith("["):
        return text.split("]", 1)[0] + "]"
    for bracket in ("[", "<"):
        text = text.split(bracket, 1)[0]
    return re.split(r"::|\.", text)[-1].strip().rstrip("?")
