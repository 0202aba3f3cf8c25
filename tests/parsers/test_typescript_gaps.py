"""TypeScript that its grammar cannot read, read again (``parsers/typescript_gaps.py``):
each of these lost the rest of its file."""

from __future__ import annotations

from recalld.parsers import parse
from recalld.parsers.typescript_gaps import readable, readable_tsx

MOBX = b"""export interface IActionFactory extends Annotation {
    // nameless actions
    <T extends Function | undefined | null>(fn: T): T
    // named actions
    <T extends Function | undefined | null>(name: string, fn: T): T
    (customName: string): D<C>
}
export function runInAction<T>(fn: () => T): T {
    return fn()
}
"""


def test_a_generic_call_signature_after_a_member_with_no_semicolon_leaves_the_rest_of_the_file():
    symbols = [(s.kind, s.qualname, s.start_line, s.end_line) for s in parse("typescript", MOBX).symbols]
    assert symbols == [("module", "<module>", 1, 10), ("interface", "IActionFactory", 1, 7),
                       ("function", "runInAction", 8, 10)]  # fmt: skip
    runs = next(s for s in parse("typescript", MOBX).symbols if s.qualname == "runInAction")
    assert runs.signature == "function runInAction<T>(fn: () => T): T"  # read from the source as written


def test_the_second_reading_keeps_lengths_and_lines_and_leaves_other_code():
    assert len(readable(MOBX)) == len(MOBX) and readable(MOBX).count(b"\n") == MOBX.count(b"\n")
    code = b"const a = b < c\nif (x) {\n  <any>(y)\n}\nlet m = new Map<string, number>()\n"
    assert readable(code) == code.replace(b"  <any>", b" ;<any>")  # an empty statement before it


# effect's ``Array.ts``: a function's overloads typed as an object's call signatures, with no
# semicolons, and its implementation a generic arrow function given to ``dual`` after them
DUAL = b"""export const append: {
  <B>(last: B): <A>(self: Iterable<A>) => Array<A | B>
  /** Both at once. */
  <A, B>(self: Iterable<A>, last: B): Array<A | B>
} = dual(
  2,
  <A, B>(self: Iterable<A>, last: B): Array<A | B> => [...self, last]
)
export const wrap = (
  <A>(a: A) => [a]
)
"""


def test_a_generic_arrow_function_the_code_above_goes_on_into_is_no_call_signature():
    """The second reading parted it from what it was given to (``dual(2,``, ``= (``): Array.ts
    was read with an error there whose first reading had none, a file with a call signature
    to part lost the rest where the arrow function's was the greater error."""
    assert readable(DUAL) == DUAL.replace(b"  <B>(last", b" ;<B>(last").replace(b"  <A, B>(self", b" ;<A, B>(self", 1)
    assert parse("typescript", MOBX + DUAL).syntax_errors == 0


# effect's ``Effect.ts``: an overload's type parameters broken over lines as prettier breaks a long list
CATCH_TAG = b"""export const catchTag: {
  <K extends string, E>(k: K): <A>(self: A) => A | E
  <
    A,
    const K extends string,
    E = never
  >(self: A, k: K): A | E
} = internal.catchTag

export const catchTags: {
  <E, Cases>(cases: Cases): <A>(self: A) => A | E
  <
    A,
    E
  >(self: A, cases: E): A
} = internal.catchTags

export class Transaction {
  run(): void {}
}
export const tx = <A>(effect: A): A => effect
"""


def test_a_generic_call_signature_with_its_type_parameters_on_lines_of_their_own_leaves_the_rest():
    symbols = [(s.kind, s.qualname, s.start_line) for s in parse("typescript", CATCH_TAG).symbols]
    assert symbols == [("module", "<module>", 1), ("class", "Transaction", 18), ("method", "Transaction.run", 19),
                       ("function", "tx", 21)]  # fmt: skip
    assert readable(CATCH_TAG) == CATCH_TAG.replace(b"\n  <", b"\n ;<")  # each signature parted


# effect's and zod's type parameters with their variance (TypeScript 4.7)
VARIANCE = b"""export interface Effect<out A, in out R = never> extends Pipeable {
  readonly value: A
  map<B>(f: (a: A) => B): Effect<B, R>
}
export interface ZodObject<
  /** @ts-ignore Cast variance */
  out Shape extends object = {},
  // eslint-disable-next-line
  in out Config = never,
> extends ZodType<Shape, Config> {
  shape: Shape
  keyof(): Shape
}
export const succeed = <A>(value: A): Effect<A> => make(value)
"""


def test_a_type_parameters_variance_is_read_as_blanks():
    symbols = [(s.kind, s.qualname, s.start_line, s.end_line) for s in parse("typescript", VARIANCE).symbols]
    assert symbols == [("module", "<module>", 1, 14), ("interface", "Effect", 1, 4), ("method", "Effect.map", 3, 3),
                       ("interface", "ZodObject", 5, 13), ("method", "ZodObject.keyof", 12, 12),
                       ("function", "succeed", 14, 14)]  # fmt: skip
    assert readable(b"type F<in I, out O> = (i: I) => O\n") == b"type F<   I,     O> = (i: I) => O\n"
    code = b"for (const k in obj) {}\nif (a < out) f(a, out)\nconst x = f<out>(y)\n"
    assert readable(code) == code  # names and operators, no variance
    comments = b"f<" + b"// https://a // b\n" * 2000 + b"/* x */ " * 2000 + b"v>()\n"
    assert readable(comments) == comments  # at once: no comment is read two ways


# effect's ``Schema.ts``: a template literal type that escapes a backtick, then the rest of the file
SELF_GENERIC = rb"""type MissingSelfGeneric<Usage extends string> =
  `Missing \`Self\` generic - use \`class Self extends ${Usage}<Self>(...)\``
export function makeClass<Self>(options: Options<Self>): Class<Self> {
  return new Class(options)
}
export const quoted = `\\` + "\`"
"""


def test_a_backtick_escaped_in_a_template_literal_type_leaves_the_rest_of_the_file():
    symbols = [(s.kind, s.qualname, s.start_line, s.end_line) for s in parse("typescript", SELF_GENERIC).symbols]
    assert symbols == [("module", "<module>", 1, 6), ("type", "MissingSelfGeneric", 1, 2),
                       ("function", "makeClass", 3, 5)]  # fmt: skip
    assert readable(SELF_GENERIC).count(b"`") == SELF_GENERIC.count(b"`") - 5  # `\\` closes its template


# effect's ``http-api/OpenApi.ts``: a member named ``in`` after one with no semicolon, which the
# grammar read as the operator going on from ``string``
API_KEY = b"""export interface OpenAPIApiKeySecurityScheme {
  readonly type: "apiKey"
  name: string
  in: "query" | "header" | "cookie"
  description?: string
}
export class Range {
  start = 0
  in(value: number): boolean {
    return value >= this.start
  }
}
export const operators = {
  in: (a: string, b: object) => a in b,
  instanceof: 1
}
"""


def test_a_member_named_in_after_a_member_with_no_semicolon_leaves_the_rest_of_the_file():
    read = parse("typescript", API_KEY)
    assert read.syntax_errors == 0
    assert [(s.kind, s.qualname, s.start_line, s.end_line) for s in read.symbols[1:]] == [
        ("interface", "OpenAPIApiKeySecurityScheme", 1, 6), ("class", "Range", 7, 12),
        ("method", "Range.in", 9, 11), ("method", "operators.in", 14, 14),  # the first of an object's: as written
    ]  # fmt: skip
    assert readable(API_KEY) == API_KEY.replace(b"\n  in: \"q", b"\n ;in: \"q").replace(b"\n  in(", b"\n ;in(")


# effect's SQL modules: type arguments given to a tagged template, here an object type
SQL = b"""export const layerSql = Effect.gen(function*() {
  const sql = yield* SqlClient
  const rows = yield* sql<{
    readonly id: string
  }>`SELECT id FROM users WHERE name = ${name}`
  return sql<{ count: number }>`SELECT COUNT(*) FROM t`.pipe(Effect.map((rows) => rows[0]))
})
export function makeStorage(table: string) {
  return sql<Array<{ id: (key: string) => number }>>`SELECT * FROM ${table}`
}
export const render = (name: string) =>`<b>${name}</b>`
"""


def test_a_tagged_templates_type_arguments_leave_the_rest_of_the_file():
    read = parse("typescript", SQL)
    assert read.syntax_errors == 0
    assert [(s.kind, s.qualname, s.start_line, s.end_line) for s in read.symbols[1:]] == [
        ("function", "layerSql", 1, 7), ("function", "makeStorage", 8, 10), ("function", "render", 11, 11),
    ]  # fmt: skip
    blanked = readable(SQL)
    assert len(blanked) == len(SQL) and blanked.count(b"\n") == SQL.count(b"\n")
    for arguments in (b"<{ count: number }>", b"<Array<{ id: (key: string) => number }>>"):
        assert SQL.count(b"sql" + arguments + b"`") == blanked.count(b"sql" + b" " * len(arguments) + b"`") == 1
    assert b"=>`<b>" in blanked  # an arrow's


# TanStack Router's ``link.tsx``, ``useBlocker.tsx`` and ``index.tsx``: TSX that TypeScript's gaps are in
# too, and JSX that opens a line as a generic call signature would (``<button ref={…}>(…``)
LINK = b"""export type * from './ssr/serializer'
export interface LinkComponentRoute<
  in out TDefaultFrom extends string = string,
> {
  defaultFrom: TDefaultFrom;
  <
    TRouter extends AnyRouter = RegisteredRouter,
  >(props: LinkProps<TRouter>): React.ReactElement
}
export function Overlay(props: { in: boolean }) {
  const buttonRef = null
  return (
    <div>
      <button ref={ref => (buttonRef = ref)} />
      <Label>(optional)</Label>
    </div>
  )
}
export const useBlocker = <out TRouter,>(opts: Opts<TRouter>) => opts
"""


def test_tsx_is_read_again_as_typescript_is_but_for_what_reads_as_jsx():
    read = parse("tsx", LINK)
    assert read.syntax_errors == 0
    assert [(s.kind, s.qualname, s.start_line, s.end_line) for s in read.symbols[1:]] == [
        ("interface", "LinkComponentRoute", 2, 9), ("function", "Overlay", 10, 18), ("function", "useBlocker", 19, 19),
    ]  # fmt: skip
    assert readable_tsx(LINK) == (
        LINK.replace(b"export type *", b"export      *").replace(b"  in out TDefault", b"         TDefault")
        .replace(b"<out TRouter", b"<    TRouter")  # the signature after a ';' as written, the JSX too
    )  # fmt: skip


# effect's ``PubSub.ts`` and mobx's ``mobx.ts``: names the grammar reads as keywords
KEYWORD_NAMES = b"""export class Renderer {
  mount() {
    let as = this.inline ? 'span' : 'div'
    as = options.as ?? as
  }
}
declare const HOOK: { injectMobx: (any) => void }
export function takeAll(self: PubSub) {
  const as = self.poll()
  return f(as as any)
}
"""


def test_a_name_read_as_a_keyword_leaves_the_rest_of_the_file():
    read = parse("typescript", KEYWORD_NAMES)
    assert read.syntax_errors == 0
    assert [(s.qualname, s.start_line, s.end_line) for s in read.symbols[1:]] == [
        ("Renderer", 1, 6), ("Renderer.mount", 2, 5), ("takeAll", 8, 11),
    ]  # fmt: skip
    assert readable(KEYWORD_NAMES) == KEYWORD_NAMES.replace(b"let as", b"let a$").replace(b"(any)", b"(an$)")
