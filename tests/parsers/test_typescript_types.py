"""The methods of the object types a TypeScript type alias is made of (``parsers/extract.py``)."""

from __future__ import annotations

from recalld.parsers import parse

# redux-toolkit's ``createAsyncThunk.ts`` and ``query/core/buildInitiate.ts``: an object type
# intersected with others
THUNK = b"""export type AsyncThunkOptions<ThunkArg = void> = {
  /** Whether the thunk runs. */
  condition?(arg: ThunkArg): boolean
} & IsUnknown<ThunkArg, { idGenerator?: () => string }>
type AnyActionCreatorResult = SafePromise<any> &
  QueryActionCreatorFields & {
    unwrap(): Promise<any>
  }
type Variants = { left(): void } | { right(): void }
"""


def test_the_methods_of_an_object_type_intersected_with_others_are_the_aliases():
    symbols = [(s.kind, s.qualname, s.start_line, s.docstring) for s in parse("typescript", THUNK).symbols[1:]]
    assert symbols == [
        ("type", "AsyncThunkOptions", 1, ""),
        ("method", "AsyncThunkOptions.condition", 3, "Whether the thunk runs."),
        ("type", "AnyActionCreatorResult", 5, ""),
        ("method", "AnyActionCreatorResult.unwrap", 7, ""),
        ("type", "Variants", 9, ""),  # a union's: each member's methods are one variant's
    ]


# effect's ``reactivity/AsyncResult.ts``: a builder whose methods conditional types give it
BUILDER = b"""export type Builder<Out, A, I> = {
  orElse<B>(orElse: LazyArg<B>): Out | B
}
  & ([A | I] extends [never] ? {
      exhaustive(): Out
    } :
    unknown)
  & ([I] extends [never] ? unknown :
    I extends string ? { onText(f: (i: I) => Out): Out } : {
      onInitial<B>(f: (result: I) => B): Builder<Out | B, A, never>
    })
type AsEffectReturn<Self> = Self extends {
  asEffect(): infer A
} ? A : never
"""


def test_the_methods_a_conditional_type_gives_an_alias_are_the_aliases():
    symbols = [(s.kind, s.qualname, s.start_line) for s in parse("typescript", BUILDER).symbols[1:]]
    assert symbols == [
        ("type", "Builder", 1),
        ("method", "Builder.orElse", 2),
        ("method", "Builder.exhaustive", 5),
        ("method", "Builder.onText", 9),
        ("method", "Builder.onInitial", 10),
        ("type", "AsEffectReturn", 12),  # what its extends matches against is no member
    ]


# redux-toolkit's ``createAsyncThunk.ts`` (its ``IsUnknown`` of ``tsHelpers.ts`` written here),
# and the object types an alias is given as type arguments otherwise
ARGUMENTS = b"""type IsUnknown<T, True, False = never> = unknown extends T ? True : False
type Merge<A, B> = A & B
type Mapped<T> = { [K in keyof T]: T[K] }
export type AsyncThunkOptions<Meta> = { condition?(): boolean } & IsUnknown<
  Meta,
  { getPendingMeta?(base: string): Meta },
  { getPendingMeta(base: string, api: Api): Meta }
>
type Client = Merge<{ open(): void }, Mapped<{ close(): void }>>
type Closing = Promise<{ close(): void }>
type Handlers<T> = { [K in keyof T]: { handle(): void } }
type Frozen = Readonly<{ freeze(): void }> & Partial<{ thaw(): void }>
type Picked = Pick<{ pick(): void }, "pick">
"""


def test_the_methods_of_a_type_argument_are_the_aliases_where_the_generic_gives_them():
    symbols = [(s.kind, s.qualname, s.start_line) for s in parse("typescript", ARGUMENTS).symbols[1:]]
    assert symbols == [
        ("type", "IsUnknown", 1),
        ("type", "Merge", 2),
        ("type", "Mapped", 3),
        ("type", "AsyncThunkOptions", 4),
        ("method", "AsyncThunkOptions.condition", 4),
        ("method", "AsyncThunkOptions.getPendingMeta(string)", 6),  # a conditional type's branches: the alias's
        ("method", "AsyncThunkOptions.getPendingMeta(string, Api)", 7),
        ("type", "Client", 9),
        ("method", "Client.open", 9),  # an intersection's part
        ("method", "Client.close", 9),  # a mapped type over its keys has its members
        ("type", "Closing", 10),  # a type read elsewhere: its argument's members are none of the alias's
        ("type", "Handlers", 11),  # a mapped type's values: each property's type
        ("type", "Frozen", 12),
        ("method", "Frozen.freeze", 12),  # TypeScript's own mapped types over its keys
        ("method", "Frozen.thaw", 12),
        ("type", "Picked", 13),  # some of its members alone: left out
    ]
    shadowed = b"type Readonly<T> = string\ntype Named = Readonly<{ name(): void }>\n"
    assert [s.qualname for s in parse("typescript", shadowed).symbols[1:]] == ["Readonly", "Named"]
