"""TypeScript functions and classes bound to a name through an assertion of their type with no
parentheses around them (``parsers/queries/typescript.scm``): effect's way of typing a
function's overloads and a class's constructor."""

from __future__ import annotations

from recalld.parsers import parse

# effect's ``Layer.ts``: ``succeed`` is one of effect's APIs, its implementation asserted to its overloads
LAYER = b"""/** Constructs a layer. */
export const succeed: {
  <A>(value: A): Layer<A>
} = function() {
  return make(arguments[0])
} as any
const DeferredImpl = function(this: any) {
  this.resumes = undefined
} as unknown as { new<A>(): Deferred<A> }
export const numbers = function* count(n: number) {
  yield n
} satisfies Generator
export const value = compute() as any
"""


def test_a_function_expression_asserted_to_a_type_is_its_names_function():
    symbols = [(s.kind, s.qualname, s.start_line, s.end_line, s.signature, s.docstring)
               for s in parse("typescript", LAYER).symbols[1:]]  # fmt: skip
    assert symbols == [
        ("function", "succeed", 2, 6, "const succeed: { <A>(value: A): Layer<A> } = function()", "Constructs a layer."),
        ("function", "DeferredImpl", 7, 9, "const DeferredImpl = function(this: any)", ""),
        ("function", "numbers", 10, 12, "const numbers = function* count(n: number)", ""),
    ]


# effect's ``Data.ts``: a class whose constructor is typed by an assertion of the class
DATA = b"""export const Class: new<A extends Record<string, any> = {}>(
  args: Types.VoidIfEmpty<A>
) => Readonly<A> & Pipeable.Pipeable = class extends Pipeable.Class {
  constructor(props: object | undefined) {
    super()
  }
} as any
const Checked = class { run() {} } satisfies Runner
var Twice = class { run() {} } as unknown as Runner
export const plain = make() as any
"""


def test_a_class_expression_asserted_to_a_type_is_its_names_class():
    symbols = [(s.kind, s.qualname, s.start_line, s.end_line, s.signature)
               for s in parse("typescript", DATA).symbols[1:]]  # fmt: skip
    assert symbols == [
        ("class", "Class", 1, 7, "const Class: new<A extends Record<string, any> = {}>(args: Types.VoidIfEmpty<A>) "
                                 "=> Readonly<A> & Pipeable.Pipeable = class extends Pipeable.Class"),
        ("method", "Class.constructor", 4, 6, "constructor(props: object | undefined)"),
        ("class", "Checked", 8, 8, "const Checked = class"),
        ("method", "Checked.run", 8, 8, "run()"),
        ("class", "Twice", 9, 9, "var Twice = class"),
        ("method", "Twice.run", 9, 9, "run()"),
    ]  # fmt: skip
