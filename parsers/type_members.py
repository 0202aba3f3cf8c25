"""Which methods of a TypeScript type alias's object types are the alias's own, as the
compiler's checker counts the declarations of the alias type's properties.

An object type gives its members to the type it stands in where that type is made of it:
an intersection (``{ then(cb): void } & Base``), parentheses, a conditional type's branches
(its ``extends`` pattern is matched against, not made: ``S extends { asEffect(): infer A } ?
A : never``), a mapped type over its keys (``{ [K in keyof T]: T[K] }``, whose members the
checker declares where ``T``'s are), and a generic alias of the same file that gives the
members of its type parameter so (``type Merge<A, B> = A & B``: ``Merge<{ a(): void }, B>``),
and TypeScript's own generics that map a type's members one to one (``Readonly<{ w(): void }>``,
``Partial``, ``Required``, ``NonNullable``), unless the file declares one of that name.
Not a union's variants (each is one variant's), a mapped type's values (each property's
type), nor the type arguments of a type read elsewhere (``Promise<{ close(): void }>``:
the checker's ``close`` is no member of the alias).
"""

from __future__ import annotations

from recalld.parsers.treesitter import Node

# what gives a type the members of any type within it: ``A & B``, ``(A)``
_HOLDING_MEMBERS = frozenset({"intersection_type", "parenthesized_type"})
# a conditional type's ``left extends right``, which its branches' members are not
_MATCHED = ("left", "right")
# an alias's declaration, in the file or exported from it
_ALIAS = "type_alias_declaration"
# TypeScript's own generic types (lib.es5.d.ts) whose first argument's members are theirs: mapped
# types over its keys and ``T & {}``; ``Pick`` and ``Omit`` keep some alone, and are left out
_LIBRARY_GIVING = frozenset({b"Readonly", b"Partial", b"Required", b"NonNullable"})


def literal_member(node: Node, outer: Node | None) -> bool:
    """Whether ``node`` is a method of an object type ``outer``, a type alias, is made of
    (``type Api = { then(cb): void }``: ``Api.then``), as an interface's is."""
    literal = node.parent if node.type == "method_signature" else None
    if literal is None or literal.type != "object_type" or outer is None:
        return False
    holder = _taker(literal, frozenset())
    return holder is not None and holder.id == outer.id


def _taker(held: Node, resolving: frozenset[int]) -> Node | None:
    """The first node up from ``held`` that gives its members on to none: the alias they
    are the members of, or a type that holds ``held`` otherwise. ``resolving``: the generic aliases whose type
    parameters are being followed (``type Rec<T> = T & Rec<T>`` ends)."""
    holder = held.parent
    while holder is not None and _gives_members(holder, held, resolving):
        holder, held = holder.parent, holder
    return holder


def _gives_members(holder: Node, held: Node, resolving: frozenset[int]) -> bool:
    """Whether the members of ``held``, a node in ``holder``, are those of the type ``holder`` is."""
    kind = holder.type
    if kind == "conditional_type":
        return all(side is None or side.id != held.id for side in map(holder.child_by_field_name, _MATCHED))
    if kind == "type_arguments":
        return _argument_given(holder, held, resolving)
    if kind == "generic_type":  # through its arguments: its name holds no type
        return held.type == "type_arguments"
    return kind in _HOLDING_MEMBERS or _mapped_over(holder, held)


def _mapped_over(holder: Node, held: Node) -> bool:
    """Whether ``holder`` is a step of a mapped type over ``held``'s keys, which has its
    members: ``keyof T``, the clause ``K in keyof T``, its signature, the object type."""
    kind = holder.type
    if kind == "index_type_query":
        return True
    if kind == "mapped_type_clause":
        keys = holder.child_by_field_name("type")
        return held.type == "index_type_query" and keys is not None and keys.id == held.id
    if kind == "index_signature":
        return held.type == "mapped_type_clause"
    return kind == "object_type" and held.type == "index_signature" and holder.named_child_count == 1


def _argument_given(arguments: Node, argument: Node, resolving: frozenset[int]) -> bool:
    """Whether a generic alias of this file gives the members of ``argument``, one of its
    type ``arguments``: where the type parameter it stands for gives its own to the alias;
    where the file declares none of its name, whether TypeScript's own generic of that name
    gives its first argument's (``_LIBRARY_GIVING``)."""
    generic = arguments.parent
    name = generic.child_by_field_name("name") if generic is not None else None
    if name is None or name.type != "type_identifier":
        return False
    given = [child for child in arguments.named_children if child.type != "comment"]
    position = next((i for i, child in enumerate(given) if child.id == argument.id), None)
    if position is None:
        return False
    written = _written(name)
    declared = [alias for alias in _aliases(arguments) if _written(alias.child_by_field_name("name")) == written]
    if not declared:
        return position == 0 and written in _LIBRARY_GIVING
    for alias in declared:
        if alias.id in resolving:
            continue
        parameters = alias.child_by_field_name("type_parameters")
        named = [p for p in parameters.named_children if p.type == "type_parameter"] if parameters else []
        if position < len(named) and _parameter_given(alias, named[position], resolving | {alias.id}):
            return True
    return False


def _parameter_given(alias: Node, parameter: Node, resolving: frozenset[int]) -> bool:
    """Whether ``alias`` gives the members of its type ``parameter``: a use of it stands where
    the alias takes them."""
    name = _written(parameter.child_by_field_name("name"))
    value = alias.child_by_field_name("value")
    uses: list[Node] = [value] if value is not None else []
    while uses:
        use = uses.pop()
        if use.type == "type_identifier" and use.text == name:
            taker = _taker(use, resolving)
            if taker is not None and taker.id == alias.id:
                return True
        uses.extend(use.named_children)
    return False


def _aliases(node: Node) -> list[Node]:
    """The type aliases of the file ``node`` is in, at its top level or exported there."""
    root = node
    while root.parent is not None:
        root = root.parent
    found: list[Node] = []
    for statement in root.named_children:
        declared = statement.child_by_field_name("declaration") if statement.type == "export_statement" else statement
        if declared is not None and declared.type == _ALIAS:
            found.append(declared)
    return found


def _written(node: Node | None) -> bytes | None:
    """A name as the tree read it (its text: one reading of the file), or None for no node."""
    return node.text if node is not None else None
