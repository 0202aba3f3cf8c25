"""Signatures as the parsers read them from real grammars: one line, no comments, what a
definition without a body says, and a long one cut where it tells the least."""

from __future__ import annotations

import re

import pytest

from recalld.parsers import parse
from recalld.parsers.signatures import ELIDED, MAX_SIGNATURE, shortened


@pytest.mark.parametrize(
    ("language", "source", "signature"),
    [
        ("python", b"def connect(\n    host: str,  # where\n    port: int = 5432,\n) -> tuple[\n    str, int\n]:  # fmt: skip\n"
         b"    return host, port\n", "def connect(host: str, port: int = 5432) -> tuple[str, int]"),
        ("python", b"class K(\n    Base,\n    metaclass=M,\n):\n    pass\n", "class K(Base, metaclass=M)"),
        ("python", b"def one(x=(1,), y=[\n    2,\n]):\n    pass\n", "def one(x=(1,), y=[2])"),
        ("javascript", b"function g(a, // the first\n  b /* the second */) { return a; }\n", "function g(a, b)"),
        ("typescript", b"class S {\n  constructor(\n    /** @deprecated internal */ public destination?: string,\n"
         b"  ) {}\n}\n", "constructor(public destination?: string)"),
        ("java", b"class T {\n  @GwtIncompatible // NullPointerTester\n  public void testNulls(\n      int a) {}\n}\n",
         "@GwtIncompatible public void testNulls(int a)"),
        ("rust", b"fn parse(\n    &mut self,\n    raw: &[u8], // bytes\n) -> Result<(), E> {\n    Ok(())\n}\n",
         "fn parse(&mut self, raw: &[u8]) -> Result<(), E>"),
        ("go", b"package p\n\nfunc Run(\n\tctx context.Context, /* done */\n\targs []string,\n) error {\n\treturn nil\n}\n",
         "func Run(ctx context.Context, args []string) error"),
        ("go", b"package p\n\ntype (\n\t// An ID.\n\tID string\n)\n", "type ID string"),  # no bare ``ID string``
        ("rust", b"impl V {\n    fn visit<E>(self) -> Result<(), E>\n    where\n        E: Error,\n    {\n        Ok(())\n    }\n}\n",
         "fn visit<E>(self) -> Result<(), E> where E: Error"),
    ],
    ids=["python", "python-class", "python-tuple", "javascript", "typescript", "java", "rust", "go", "go-type", "rust-where"],
)
def test_a_signature_reads_as_if_written_on_one_line_without_its_comments(language: str, source: bytes, signature: str):
    """black's and rustfmt's wrapped parameters, a comment between them (a line comment
    ran on over the code after it, and a Python signature kept the comment after its
    colon): as the code would be written if it were short."""
    assert parse(language, source).symbols[-1].signature == signature  # the innermost


@pytest.mark.parametrize(
    ("language", "source", "signature"),
    [
        ("typescript", b"type Point = {\n  x: number\n  y: number\n}\n", "type Point = { x: number; y: number }"),
        ("typescript", b"type Tags<E> = E extends { readonly _tag: string } ? E['_tag'] : never\n",
         "type Tags<E> = E extends { readonly _tag: string } ? E['_tag'] : never"),
        ("typescript", b"type Box<T extends { id: string }> = T[]\n", "type Box<T extends { id: string }> = T[]"),
        ("typescript", b"type Id =\n  | string\n  | number\nfunction f(v:\n  | undefined\n  | Id): void;\n",
         "function f(v: undefined | Id): void"),  # prettier's unions, one member a line
        ("typescript", b"export function pick(o: { a: string }, k: 'a'): string;\n", "function pick(o: { a: string }, k: 'a'): string"),
        ("typescript", b"interface Q {\n  clone(params?: { parent: boolean }): this\n}\n", "clone(params?: { parent: boolean }): this"),
        ("typescript", b"export const min = <A>(o: Order<A>): {\n  (that: A): (self: A) => A\n  (self: A, that: A): A\n} =>\n"
         b"  dual(2, (self: A, that: A) => (o(self, that) < 1 ? self : that))\n",
         "const min = <A>(o: Order<A>): { (that: A): (self: A) => A; (self: A, that: A): A }"),
        ("go", b"package p\n\ntype any = interface{}\n", "type any = interface{}"),
        ("go", b"package p\n\ntype Pair[K comparable, V any] struct {\n\tKey K\n\tValue V\n}\n", "type Pair[K comparable, V any] struct"),
        ("rust", b"macro_rules! forward {\n    ($t:ty) => { impl X for $t {} };\n}\n", "macro_rules! forward"),
        ("java", b"interface A {\n  @Values({1, 2}) int size();\n}\n", "@Values({1, 2}) int size()"),
    ],
    ids=["ts-object", "ts-conditional", "ts-bound", "ts-union", "ts-overload", "ts-interface-method", "ts-members-a-line",
         "go-alias", "go-struct", "rust-macro", "java-annotation"],
)
def test_what_a_definition_without_a_body_says_is_its_signature(language: str, source: bytes, signature: str):
    """Read up to the first ``{``, a type alias was ``type Point`` (or ``type Tags<E> = E
    extends``), an overload's declaration with an object parameter ``function pick(o:``;
    members written one a line ran into each other on one line."""
    assert parse(language, source).symbols[-1].signature == signature


def test_a_long_signature_keeps_its_start_and_its_end():
    """sqlalchemy's and fastapi's functions of twenty parameters lost their return type to
    the cut, and were cut inside a word with nothing to say so."""
    params = ", ".join(f"option_{i}: Optional[Mapping[str, int]] = None" for i in range(20))
    source = f"def configure(self, {params}) -> Result[Any]:\n    pass\n".encode()
    sig = parse("python", source).symbols[-1].signature
    assert len(sig) <= MAX_SIGNATURE and sig.endswith(f", {ELIDED}) -> Result[Any]")
    assert sig.startswith("def configure(self, option_0: Optional[Mapping[str, int]] = None, option_1:")
    java = "class C {\n  void load(" + ", ".join(f"Map<String, Integer> m{i}" for i in range(30)) + ") throws IOException {}\n}\n"
    sig = parse("java", java.encode()).symbols[-1].signature
    assert re.fullmatch(rf"void load\((Map<String, Integer> m\d+, )+{ELIDED}\) throws IOException", sig)  # whole ones
    assert len(sig) <= MAX_SIGNATURE


@pytest.mark.parametrize(
    ("text", "cut"),
    [
        ("f(" + "a, " * 200 + "b)", r"f\((a, )+…\)"),
        ("f(" + "x" * 400 + ") -> R", r"f\(…\) -> R"),
        ("type T = " + "A | " * 100 + "B", r"type T = (A \| )+…"),
        ("f(a) -> " + "R" * 400, r"f\(a\) -> …"),
        ("g(x: Map<K, V>, " + "y, " * 100 + "z) -> R", r"g\(x: Map<K, V>, (y, )+…\) -> R"),  # no cut inside Map<K, V>
        # the type parameters and a return type's arguments go before any parameter (react-query's
        # hooks kept every type parameter and no parameter, ``(…)``; sccache's return type was cut in it)
        ("function useQuery<" + ", ".join(f"T{i} = Default{i}" for i in range(20)) + ">(options: Options<T0>,"
         " client?: Client): Result<T0, T1>",
         r"function useQuery<…>\(options: Options<T0>, client\?: Client\): Result<…>"),
        ("fn run(a: &Path, b: bool) -> Result<(" + ", ".join(f"Part{i}" for i in range(40)) + ")>",
         r"fn run\(a: &Path, b: bool\) -> Result<…>"),
    ],
    ids=["commas", "one-parameter", "no-parameters", "long-end", "generic-comma", "type-parameters", "return-type"],
)
def test_shortened_cuts_between_whole_parameters_or_words(text: str, cut: str):
    got = shortened(text)
    assert re.fullmatch(cut, got) and len(got) <= MAX_SIGNATURE, got
    assert shortened(text[:MAX_SIGNATURE]) == text[:MAX_SIGNATURE]  # what fits stays whole
