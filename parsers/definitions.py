"""The definitions a file's query captures name, and what the file says of them beyond
their nodes: JavaScript's factories, whose returned object publishes functions as their
methods, its functions called at once and bound to a name (a module), and the names
whose ``.prototype`` it uses (constructors, read as classes).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from recalld.parsers import declarators, written_names
from recalld.parsers.base import DEFAULT_EXPORT
from recalld.parsers.docstrings import COMMENT_TYPES
from recalld.parsers.perl_packages import Packages, split_name, takes_invocant
from recalld.parsers.registry import LanguageSpec
from recalld.parsers.treesitter import Nearest, Node, deeper_than, node_text, run_query

# Statements that may declare several names, each its own definition when it is one
# (``var a = 1, jQuery = function (…) {…}, isWindow = function (…) {…}``).
DECLARATIONS = frozenset({"lexical_declaration", "variable_declaration"})
# Statements whose definitions may follow their keyword (those, and Go's ``type ( A
# struct {…}; B int )``).
STATEMENTS = DECLARATIONS | {"type_declaration"}
# A JavaScript function's nodes that are expressions (a callback, a module's wrapper).
FUNCTION_NODES = frozenset({"function_expression", "arrow_function", "generator_function", "function"})
NAMESPACE_PATH = "nested_namespace_specifier"  # C++'s ``namespace a::b {…}``
# C++'s and Ruby's names of several tokens, read the same however they are spaced; those
# of a scope and a name read dotted (C++'s ``class net::Socket {…}``, Ruby's ``class
# Net::Socket``: ``net.Socket``, ``Net.Socket``).
SCOPED_NAMES = frozenset({NAMESPACE_PATH, "qualified_identifier", "scope_resolution"})
WRITTEN_NAMES = SCOPED_NAMES | {"template_type"}
FRIEND = "friend_declaration"  # C++: a function a class befriends is no member of it
DESTRUCTOR = "destructor_declaration"  # C#'s: its name is its class's
RUBY_CONSTANT = "constant"
EXTENSION = "extension"  # the capture of a type's extension (Swift's): a namespace of the type's name
# Kotlin's bodies, no field of their definitions: a class's, an enum's, a function's (its
# ``= expression`` too), a property's accessors (``val size: Int`` of ``val size: Int get()
# = n``), a secondary constructor's block.
UNFIELDED_BODIES = frozenset({"class_body", "enum_class_body", "function_body", "getter", "setter"})
KOTLIN_CONSTRUCTOR = "secondary_constructor"
OBJC_METHOD = "method_definition"  # its block is no field of it: ``- (void)draw {…}``
# Syntax levels below the file's top past which a definition is read as part of what holds
# it, not as a symbol of its own. Real code's lie within 60 (webpack, LLVM's headers, the
# standard library); a file nested thousands deep (made to, or generated) took its
# extraction minutes, every step up from a node costing tree-sitter the node's depth.
MAX_DEPTH = 256


@dataclass(slots=True)
class Definition:
    node: Node
    kind: str  # a symbol kind, or "namespace" (qualname prefix only)
    name: str
    receiver: str | None
    captures: int = 0  # how many nodes its pattern named: the most specific pattern wins
    prototype: bool = False  # a method given to its receiver's prototype (JavaScript)
    on_this: bool = False  # a method a constructor gives ``this`` in its body (JavaScript)
    published: bool = False  # a function its factory's returned object publishes (JavaScript)
    wrapped: Node | None = None  # the function a call makes it of (``forwardRef((props, ref) => …)``)
    returned: Node | None = None  # the ``return { … }`` it is written in (JavaScript)
    on_parameter: bool = False  # given to a callback's parameter: no name of the file's (JavaScript)
    file_scoped: bool = False  # the file's wherever it stands outside a body (``LanguageSpec.file_scoped``)
    # a C or C++ function declared without its body (a prototype), an Objective-C class's
    # ``@interface`` or a method's declaration (``LanguageSpec.declarations``)
    declaration_only: bool = False
    documented_by: Node | None = None  # the declaration whose doc is its own (C, C++)
    by_macro: bool = False  # a macro's definition, named with its arguments (``TEST(Suite, Name)``)
    # Written with its scope (Ruby's ``class Shapes::Circle``, C++'s ``class net::Socket``,
    # ``void net::Socket::send()``): the scope is looked up among the enclosing ones first.
    scoped: bool = False
    absolute: bool = False  # written from the top level (``class ::Widget``): no enclosing scope
    # A namespace that is a type's extension (Swift's ``extension Shape {…}``): what it
    # declares is the type's, its functions methods.
    extends: bool = False
    # The package a Perl sub is in (``Foo::Bar`` of ``sub new`` after ``package Foo::Bar;``,
    # or of ``sub Foo::Bar::new``; "" for ``main``'s): named ``Foo::Bar::new``.
    package: str | None = None


@dataclass(slots=True)
class FileContext:
    """By function body, what its ``return { … }`` publishes (name → property), the
    name a function called at once is bound to (``var M = (function () {…})()``) and the
    name it returns (``return create``); the
    names whose ``.prototype`` the file uses; the functions whose definitions are their
    own, no name of the file's (a test's callback)."""

    names: dict[int, dict[str, str]] = field(default_factory=dict)
    modules: dict[int, str] = field(default_factory=dict)
    returned: dict[int, str] = field(default_factory=dict)  # by such a function's body: the name it returns
    prototyped: set[str] = field(default_factory=set)
    local: set[int] = field(default_factory=set)
    too_deep: int = 0  # definitions nested deeper than MAX_DEPTH: read as part of what holds them

    @property
    def notes(self) -> tuple[str, ...]:
        """What the extraction left out, said in the parse's notes (the sync logs them)."""
        if not self.too_deep:
            return ()
        return (f"{self.too_deep} definition(s) nested over {MAX_DEPTH} levels deep read as part of what holds them",)


def collect_definitions(
    spec: LanguageSpec, root: Node, data: bytes
) -> tuple[dict[int, Definition], FileContext, Nearest]:
    """The definitions by node, the published ones renamed and marked, the file's context,
    and the nearest definition around a node."""
    defs: dict[int, Definition] = {}
    context = FileContext()
    captures = run_query(spec, root)
    first = [min((n for ns in c.nodes.values() for n in ns), key=lambda n: (n.start_byte, -n.end_byte), default=root)
             for c in captures]  # fmt: skip
    deep = deeper_than(root, first, MAX_DEPTH)
    for capture, node in zip(captures, first, strict=True):
        if node.id in deep:
            context.too_deep += any(name.startswith("definition.") for name in capture.nodes)
        elif not _note_context(capture.nodes, context, data):
            _note_definition(spec, capture.nodes, defs, data)
    if spec.packages:
        _name_by_packages(defs, data)
    outer = Nearest(lambda node: node.id in defs)
    _mark_published(defs, context, outer)
    _mark_given_to_parameters(defs, data)
    return defs, context, outer


def _name_by_packages(defs: dict[int, Definition], data: bytes) -> None:
    """Each sub's package and its name within it, and whether it is the package's method
    (``perl_packages``)."""
    packages = Packages(data)
    for d in defs.values():
        d.package, d.name = split_name(d.name, packages.of(d.node))
        if d.package and d.kind == "function" and takes_invocant(d.node, data):
            d.kind = "method"


def _note_context(nodes: dict[str, list[Node]], context: FileContext, data: bytes) -> bool:
    """Records a capture that says something of definitions (not one itself); whether it was."""
    if "_published" in nodes:
        published, block = nodes["_published"][0], nodes["_returns"][0].parent
        key = nodes.get("_key", [published])[0]
        if block is not None:
            context.names.setdefault(block.id, {}).setdefault(node_text(data, published), node_text(data, key))
    elif "_local" in nodes:
        context.local.add(nodes["_local"][0].id)
    elif "_prototyped" in nodes:
        context.prototyped.add(node_text(data, nodes["_prototyped"][0]))
    elif "_returned_name" in nodes:
        body = nodes["_returning"][0].child_by_field_name("body")
        if body is not None:
            context.returned[body.id] = node_text(data, nodes["_returned_name"][0])
    elif "_called" in nodes:
        body = nodes["_called"][0].child_by_field_name("body")
        if body is not None:
            context.modules[body.id] = node_text(data, nodes["_module"][0])
    else:
        return False
    return True


def _note_definition(
    spec: LanguageSpec, nodes: dict[str, list[Node]], defs: dict[int, Definition], data: bytes
) -> None:
    names = nodes.get("name") or nodes.get("title")  # a title: a test's, as written (RSpec's ``Shapes::Shape``)
    by_macro = absolute = False
    receiver = nodes.get("receiver")
    receiver_name = written_names.receiver_name(data, receiver[0]) if receiver else None
    if receiver_name and "_field" in nodes:  # Lua's tables within a table: the fields on the way
        receiver_name = ".".join([receiver_name, *(node_text(data, f) for f in nodes["_field"])])
    # Ruby's ``def Group.generate!``: the class is looked up from the inside out, as a
    # scope written before a name is (``def Base.build`` in ``class Base`` is ``Base.build``)
    scoped = receiver is not None and receiver[0].type == RUBY_CONSTANT
    if names:
        name = node_text(data, names[0])
        if names[0].type in written_names.STRING_NAMES:
            name = written_names.string_name(name)
        elif names[0].type == written_names.TYPE_PATH:  # Swift's ``extension Array<Int>.Sub``
            name = written_names.type_path(data, names[0])
        elif names[0].type in WRITTEN_NAMES and "title" not in nodes:  # C++'s ``hash<Point>``, ``namespace a::b``
            name = declarators.written(data, names[0])
            if names[0].type in SCOPED_NAMES:  # ``class ::Foo`` is the top level's ``Foo``
                absolute = name.startswith("::")
                name = name.replace("::", ".").lstrip(".")
                scoped = "." in name or absolute
    elif "_declarator" in nodes:  # C's and C++'s: the name is the declarator's
        declared = _declared_name(nodes, data)
        if declared is None:
            return
        name, receiver_name, by_macro = declared
        scoped = receiver_name is not None
    elif "default" in nodes:  # a module's export with no name of its own
        name = DEFAULT_EXPORT
    elif (member := written_names.operator_name(_definition_node(nodes), data)) is not None:
        name = member
    else:
        return
    if not name.rpartition(".")[2].strip():
        return  # a name of nothing: broken code's ``int a::::(int)``
    if names and (defined := _definition_node(nodes)) is not None and defined.type == DESTRUCTOR:
        name = f"~{name}"  # C#'s ``~Shape()``, named as C++'s is
    elif names and defined is not None:
        name = written_names.accessor_name(defined, names[0], name, data)  # a setter's ``value=``
    if receiver_name and "_trait" in nodes:
        reference = written_names.reference(data, receiver[0]) if receiver else ""
        receiver_name = f"<{reference}{receiver_name} as {written_names.trait_name(data, nodes['_trait'][0])}>"
    for capture_name, captured in nodes.items():
        if capture_name.startswith("definition."):
            kind = capture_name.split(".", 1)[1]
        elif capture_name in ("namespace", EXTENSION):
            kind = "namespace"
        else:
            continue
        node = _own_declarator(captured[0], names[0]) if names else captured[0]
        found = Definition(node, kind, name, receiver_name, len(nodes),
                           "_prototype" in nodes, "_this" in nodes,
                           wrapped=nodes["_wrapped"][0] if "_wrapped" in nodes else None,
                           returned=nodes["_returned"][0] if "_returned" in nodes else None)  # fmt: skip
        found.declaration_only = (
            "_declarator" in nodes and kind == "function" and find_body(node) is None
        ) or (node.type in spec.declarations and kind != "namespace")
        found.by_macro, found.scoped, found.absolute = by_macro, scoped, absolute
        found.file_scoped = node.type in spec.file_scoped
        found.extends = capture_name == EXTENSION
        existing = defs.get(node.id)
        if existing is None or found.captures > existing.captures:
            defs[node.id] = found


def _definition_node(nodes: dict[str, list[Node]]) -> Node | None:
    return next((captured[0] for key, captured in nodes.items() if key.startswith("definition.")), None)


def _declared_name(nodes: dict[str, list[Node]], data: bytes) -> declarators.Declared | None:
    """The name a C or C++ declarator declares: a function's (None where it declares none,
    or a friend's, which is no member of the class declaring it), a typedef's."""
    declarator = nodes["_declarator"][0]
    if "definition.function" not in nodes:
        name = declarators.type_name(data, declarator)
        return declarators.Declared(name, None, False) if name else None
    statement = declarator.parent
    if statement is not None and statement.parent is not None and statement.parent.type == FRIEND:
        return None
    body = statement is not None and find_body(statement) is not None
    return declarators.function_name(data, declarator, body=body)


def _own_declarator(node: Node, name: Node) -> Node:
    """In a declaration of several names, the declarator of ``name``; else ``node``. Keyed by
    the whole statement, the second function of ``const a = () => {…}, b = () => {…}`` was
    lost, and a class's methods went to the first one."""
    if node.type not in DECLARATIONS:
        return node
    declarators = [c for c in node.named_children if c.type == "variable_declarator"]
    if len(declarators) < 2:
        return node
    return next((c for c in declarators if c.start_byte <= name.start_byte < c.end_byte), node)


def declaring_statement(node: Node) -> Node | None:
    """The statement a definition is one of, after its keyword (a declarator's ``const a =
    1, f = () => {…}``, a Go type spec's ``type``); None where it is its statement."""
    parent = node.parent
    return parent if parent is not None and parent.type in STATEMENTS and node.start_byte > parent.start_byte else None


def _mark_published(defs: dict[int, Definition], context: FileContext, outer: Nearest) -> None:
    """A function declared in a function's own body and published by the object that
    body returns is a member of that function, under the property's name; of the name a
    function called at once is bound to, when that function is no definition's. The one
    function such a module returns by name is that name's."""
    for d in defs.values():
        if d.returned is not None:  # written in the object: the factory's, if the return is in its own body
            d.published = _factory_body(d.returned.parent, outer.around(d.node), defs)
            continue
        body = (declaring_statement(d.node) or d.node).parent
        if body is None or d.kind != "function" or d.wrapped is not None:
            continue  # what a call makes of a function there may be any value: ``kept = all.filter(…)``
        if context.returned.get(body.id) == d.name and body.id in context.modules and outer.around(d.node) is None:
            if d.name not in context.prototyped:  # a constructor: its methods are named by its own name
                d.name, d.receiver = context.modules[body.id], None
            continue
        names = context.names.get(body.id)
        if not names or d.name not in names:
            continue
        owner = outer.around(d.node)
        if owner is None:
            if body.id in context.modules:
                d.name, d.receiver = names.pop(d.name), context.modules[body.id]
        elif _factory_body(body, owner, defs):
            d.name, d.published = names.pop(d.name), True  # a name declared twice is published once


def _mark_given_to_parameters(defs: dict[int, Definition], data: bytes) -> None:
    """A method given to a parameter of the callback it is written in is the object's that
    the callback is given, no name of the file's: zod's ``core.$constructor("ZodString",
    (inst, def) => { inst.min = (…) => …; })`` (``inst.min``, ``inst.min#2``, … in its
    CommonJS build), Backbone's ``options.success = function`` in a method. A module's
    wrapper's parameter is the module's: ``(function ($) { $.fn.tooltip = function (…)
    {…}; })(jQuery)``."""
    enclosing = Nearest(lambda node: node.type in FUNCTION_NODES)
    for d in defs.values():
        if d.receiver is None or d.prototype:
            continue
        function = enclosing.around(d.node)
        if function is not None and not _wraps_module(function, data):
            d.on_parameter = d.receiver.split(".", 1)[0] in _parameter_names(function, data)


def _wraps_module(function: Node, data: bytes) -> bool:
    """Whether a function is a module's wrapper: called at once (``(function ($) {…})(jQuery)``,
    ``!function () {…}()``, ``(function () {…}).call(this)``), the factory such a function
    is given (UMD's), or what AMD's ``define`` or ``require`` is given."""
    outer = _outside_parentheses(function)
    parent = outer.parent
    if parent is None:
        return False
    if parent.type == "call_expression":
        return parent.child_by_field_name("function") == outer
    if parent.type == "member_expression":  # ``.call(this)``, ``.apply(…)``
        called = parent.child_by_field_name("property")
        return (
            parent.parent is not None and parent.parent.type == "call_expression" and called is not None
            and node_text(data, called) in ("call", "apply")
        )  # fmt: skip
    if parent.type == "arguments" and (call := parent.parent) is not None:
        callee = call.child_by_field_name("function")
        if callee is None:
            return False
        callee = _inside_parentheses(callee)
        return callee.type in FUNCTION_NODES or node_text(data, callee) in ("define", "require")
    return False


def _outside_parentheses(node: Node) -> Node:
    while node.parent is not None and node.parent.type == "parenthesized_expression":
        node = node.parent
    return node


def _inside_parentheses(node: Node) -> Node:
    while node.type == "parenthesized_expression" and node.named_child_count:
        node = node.named_children[0]
    return node


def _parameter_names(function: Node, data: bytes) -> set[str]:
    """The names a function's parameters bind at their top (``inst`` of ``(inst, def)``,
    ``x`` of ``x => …``, of ``x = 1``, of ``x: T``)."""
    single = function.child_by_field_name("parameter")
    if single is not None:
        return {node_text(data, single)}
    parameters = function.child_by_field_name("parameters")
    names: set[str] = set()
    for parameter in parameters.named_children if parameters is not None else ():
        target = parameter.child_by_field_name("pattern") or parameter.child_by_field_name("left") or parameter
        if target.type == "identifier":
            names.add(node_text(data, target))
    return names


def _factory_body(block: Node | None, owner: Node | None, defs: dict[int, Definition]) -> bool:
    """Whether ``block`` is ``owner``'s own body, ``owner`` a function (not a callback in it)."""
    if block is None or owner is None or defs[owner.id].kind != "function":
        return False
    return (found := find_body(owner)) is not None and found.id == block.id


def find_body(node: Node, depth: int = 3) -> Node | None:
    """A definition's body: its own ``body`` field (or child: Kotlin's, ``UNFIELDED_BODIES``),
    or that of what it declares (a variable's function, a decorated definition, an export)
    up to ``depth`` levels down."""
    body = node.child_by_field_name("body")
    if body is None:
        bodies = UNFIELDED_BODIES
        if node.type == KOTLIN_CONSTRUCTOR:
            bodies = UNFIELDED_BODIES | {"block"}
        elif node.type == OBJC_METHOD:
            bodies = UNFIELDED_BODIES | {"compound_statement"}
        body = next((c for c in node.children if c.type in bodies), None)
    if body is not None or depth == 0:
        return body
    for child in node.named_children:
        if child.type in COMMENT_TYPES:
            continue
        found = find_body(child, depth - 1)
        if found is not None:
            return found
    return None
