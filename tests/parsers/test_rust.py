"""Rust on its real grammar: the items a macro's call wraps (tokio's ``cfg_rt! {…}``,
``pin_project! {…}``, syn's ``ast_struct! {…}``), which the grammar leaves unparsed; its docs;
an impl's members named by their trait and the type it is for."""

from __future__ import annotations

from recalld.parsers import parse
from recalld.parsers.item_macros import unwrapped
from recalld.parsers.registry import get_language


def symbols(source: str) -> dict[str, tuple[str, int, str]]:
    """qualname -> (kind, first line, docstring)."""
    result = parse("rust", source.encode(), path="src/lib.rs")
    return {s.qualname: (s.kind, s.start_line, s.docstring) for s in result.symbols[1:]}


def test_the_items_a_macro_call_wraps_are_read_where_they_stand():
    source = (
        "cfg_rt! {\n    /// A runtime.\n    pub struct Runtime { x: u8 }\n\n    impl Runtime {\n"
        "        pub fn new() -> Self { Runtime { x: 0 } }\n    }\n}\n"
        "pin_project! {\n    pub struct Sleep {\n        #[pin]\n        deadline: u64,\n    }\n}\n"
        "mod net {\n    cfg_net! {\n        cfg_tcp!\n        {\n            pub fn connect() {}\n        }\n    }\n}\n"
        "impl Sleep {\n    delegate! { fn reset(&mut self) {} }\n}\n"
        "pub fn after() {}\n"
    )
    assert symbols(source) == {
        "Runtime": ("struct", 3, "A runtime."),
        "Runtime.new": ("method", 6, ""),
        "Sleep": ("struct", 10, ""),
        "net.connect": ("function", 19, ""),
        "Sleep.reset": ("method", 24, ""),
        "after": ("function", 26, ""),
    }


def test_a_macro_body_that_is_no_items_is_left_as_written():
    source = (
        b"lazy_static! {\n    static ref TABLE: Vec<u8> = vec![];\n}\n"
        b"bitflags! {\n    pub struct Flags: u32 {\n        const A = 1;\n    }\n}\n"
        b"thread_local! { static DEPTH: u8 = 0; }\n"
        b"vec_of!(fn not_an_item() {});\n"
    )
    assert unwrapped(get_language("rust"), source)[0] == source
    assert set(symbols(source.decode())) == set()


def test_a_macro_by_example_is_signed_by_its_name_whatever_its_rules_are_written_in():
    source = (
        "macro_rules! assert_parse(\n  ($left: expr) => { assert!($left); };\n);\n"
        "macro_rules! braced {\n  () => {};\n}\n"
    )
    result = parse("rust", source.encode(), path="src/lib.rs")
    assert [s.signature for s in result.symbols[1:]] == ["macro_rules! assert_parse", "macro_rules! braced"]


def test_a_traits_associated_types_are_its_types_signed_with_their_bounds():
    source = (
        "/// An iterator.\npub trait Iterator {\n    /// What it yields.\n    type Item: Clone + Send;\n"
        "    type Error = std::io::Error;\n    type Window<'a>: AsRef<[u8]>\n    where\n        Self: 'a;\n"
        "    const N: usize;\n    fn next(&mut self) -> Option<Self::Item>;\n}\n"
        "impl Iterator for Counter {\n    type Item = u32;\n}\n"
        "extern \"C\" {\n    /// A handle C keeps.\n    type Opaque;\n}\n"
    )
    result = parse("rust", source.encode(), path="src/lib.rs")
    assert [(s.kind, s.qualname, s.signature, s.docstring, s.start_line, s.end_line) for s in result.symbols[1:]] == [
        ("trait", "Iterator", "pub trait Iterator", "An iterator.", 2, 11),
        ("type", "Iterator.Item", "type Item: Clone + Send", "What it yields.", 4, 4),
        ("type", "Iterator.Error", "type Error = std::io::Error", "", 5, 5),
        ("type", "Iterator.Window", "type Window<'a>: AsRef<[u8]> where Self: 'a", "", 6, 8),
        ("method", "Iterator.next", "fn next(&mut self) -> Option<Self::Item>", "", 10, 10),
        ("type", "<Counter as Iterator>.Item", "type Item = u32", "", 13, 13),
        ("type", "Opaque", "type Opaque", "A handle C keeps.", 17, 17),
    ]


def test_the_associated_types_a_macro_call_in_a_trait_wraps_are_the_traits():
    source = "pub trait Io {\n    cfg_io! {\n        /// Reads.\n        type Reader;\n    }\n}\n"
    assert symbols(source) == {"Io": ("trait", 1, ""), "Io.Reader": ("type", 4, "Reads.")}


def test_members_of_one_name_in_impls_for_other_type_arguments_are_named_by_them():
    """``impl Point<f32>`` and ``impl Point<f64>`` each define ``norm``: Rust names them
    ``<Point<f32>>::norm`` and ``<Point<f64>>::norm``; they were ``Point.norm`` and
    ``Point.norm#2`` by their order (syn's ``<Lite as Debug>.fmt#185``). A name no other
    member shares keeps its plain form."""
    source = (
        "struct Point<T>(T);\nimpl Point<f32> { fn norm(&self) -> f32 { 0.0 } }\n"
        "impl Point<f64> { fn norm(&self) -> f64 { 0.0 } }\nimpl<'a, T> Point<T> { fn new(t: T) -> Self { todo!() } }\n"
        "impl<T> Point<&T> { fn new(&self) {} }\nimpl Point<u8> { fn first(&self) {} }\n"
        "impl AsyncWrite for io::Cursor<&mut [u8]> { fn poll_write(&self) {} }\n"
        "impl AsyncWrite for io::Cursor<Vec<u8>> { fn poll_write(&self) {} }\n"
        "impl<'a> Iterator for Point<&'a u8> { type Item = u8; }\nimpl Iterator for Point<i8> { type Item = i8; }\n"
    )
    assert list(symbols(source)) == [
        "Point", "<Point<f32>>.norm", "<Point<f64>>.norm", "Point.new", "<Point<&T>>.new", "Point.first",
        "<Cursor<&mut [u8]> as AsyncWrite>.poll_write", "<Cursor<Vec<u8>> as AsyncWrite>.poll_write",
        "<Point<&u8> as Iterator>.Item", "<Point<i8> as Iterator>.Item",
    ]  # fmt: skip


def test_a_doc_an_attribute_parts_is_one_doc_and_not_the_files():
    """clap writes ``#[cfg_attr(feature = "…", doc = " ```")]`` inside its items' docs:
    the doc was the part below the attribute, and the part above it the file's doc."""
    source = (
        '/// Foo doc.\n///\n/// # Examples\n///\n#[cfg_attr(feature = "x", doc = " ```")]\n/// let x = 1;\n'
        "pub fn foo() {}\n\n/// a\n#[inline]\n/// b\npub fn bar() {}\n"
    )
    result = parse("rust", source.encode(), path="src/lib.rs")
    assert result.symbols[0].docstring == ""
    assert {s.qualname: s.docstring for s in result.symbols[1:]} == {
        "foo": "Foo doc.\n\n# Examples\n\nlet x = 1;", "bar": "a\nb"}  # fmt: skip


def test_a_files_inner_doc_is_its_doc_wherever_its_inner_attributes_and_comments_put_it():
    """scopeguard's ``//!`` doc after its ``#![…]`` attributes was no doc, tokio's ``// Currently,
    rust warns…`` above ``#![allow(unused_unsafe)]`` took the place of ``//! Time driver.``;
    a ``///`` doc parted by an attribute or a comment among its item's attributes was the file's."""
    module = lambda source: parse("rust", source.encode(), path="src/lib.rs").symbols[0].docstring  # noqa: E731
    assert module('#![cfg_attr(not(feature = "std"), no_std)]\n\n//! A scope guard.\n\npub fn guard() {}\n') == (
        "A scope guard.")  # fmt: skip
    assert module("// Rust warns.\n// Allowed.\n#![allow(unused_unsafe)]\n\n//! Time driver.\n\nstruct D;\n") == (
        "Time driver.")  # fmt: skip
    assert module('//! One.\n#![doc = " x"]\n//! Two.\n#![deny(missing_docs)]\n\nfn f() {}\n') == "One.\nx\nTwo."
    for source in (
        '/// Tokens.\n///\n#[cfg_attr(feature = "net", doc = "```")]\n/// use mio::Token;\n/// ```\nstruct Token;\n',
        "/// A borrowed fd.\n#[derive(Copy)]\n// every platform has a c_int.\n#[repr(transparent)]\nstruct Fd;\n",
        '/// Tokens.\n///\n#[cfg_attr(a, doc = "```")]\n#[cfg_attr(b, doc = "```ignore")]\n/// let t = 0;\nstruct T;\n',
    ):
        assert module(source) == "", source
    assert module("// Helpers.\n#[cfg(test)]\n\n// misc\n\nmod tests {}\n") == "Helpers."


def test_an_items_outer_doc_is_all_its_doc_lines_whatever_stands_among_them():
    """mio's ``Token`` doc parted by two ``#[cfg_attr(…, doc = "```")]`` was its part below
    them; rustix's ``// libstd/os/raw/mod.rs assures me…`` among ``BorrowedFd``'s attributes
    was its doc; a ``// TODO:`` above a ``///`` doc ate the doc's first paragraph. Plain
    comments are the doc where there is no ``///``."""
    source = (
        '/// Tokens.\n///\n/// # Example\n///\n#[cfg_attr(a, doc = "```")]\n#[cfg_attr(b, doc = "```ignore")]\n'
        "/// let t = Token(0);\n/// ```\npub struct Token(pub usize);\n\n"
        "/// A borrowed fd.\n#[derive(Copy)]\n#[repr(transparent)]\n// every platform has a 32-bit c_int.\n"
        "#[cfg_attr(rustc_attrs, valid_range_end(0xFF))]\npub struct Fd(i32);\n\n"
        "// TODO: multiples of 4 should inherit this\n/// Four words.\npub trait Words4 {}\n\n"
        "// FIXME the name makes it sound like you might pass in a path to a\n// file.\n/// Parse a file.\n"
        "///\n/// Not a path.\npub fn parse_file() {}\n\n"
        "/// Above.\n// internal note\n/// Below.\nfn joined() {}\n\nstruct A; // A's note\n/// Own.\nfn own() {}\n\n"
        "// A plain doc.\n#[inline]\nfn plain() {}\n"
    )
    assert {name: doc for name, (_kind, _line, doc) in symbols(source).items()} == {
        "Token": "Tokens.\n\n# Example\n\nlet t = Token(0);\n```", "Fd": "A borrowed fd.", "Words4": "Four words.",
        "parse_file": "Parse a file.\n\nNot a path.", "joined": "Above.\nBelow.", "A": "", "own": "Own.",
        "plain": "A plain doc.",
    }  # fmt: skip


def test_doc_attributes_are_doc_lines_where_they_stand():
    """``#[doc = "…"]`` and ``#![doc = …]`` are docs as rustdoc reads them, beside ``///`` and
    ``//!``: they were left out (clap's ``#![doc = include_str!(…)]`` between its tutorial's
    ``//!`` lines), and an item documented by them alone had the plain comment above for its
    doc. A value that is no string is its note, as written; the file it names is not read."""
    source = (
        '// Contributing notes.\n#![doc = include_str!("../README.md")]\n//! ```\n'
        '#![doc = "Tab\\there, \\u{e9}\\x41 and \\\n    one line.\\nTwo."]\n//! ```\n#![doc(html_root_url = "x")]\n\n'
        '/// One.\n#[doc = " Two."]\n#[doc = r#" Raw "three"."#]\n#[doc(hidden)]\n#[derive(Debug)]\npub struct S;\n\n'
        '// A plain comment.\n#[doc = " Its doc."]\nfn f() {}\n\n'
        'trait T {\n    #[doc = r#"\n        Raw, indented.\n\n          Example.\n    "#]\n    fn g(&self);\n}\n'
    )
    result = parse("rust", source.encode(), path="src/lib.rs")
    assert [(s.qualname, s.docstring) for s in result.symbols] == [
        ("<module>", 'include_str!("../README.md")\n```\nTab\there, éA and one line.\nTwo.\n```'),
        ("S", 'One.\nTwo.\nRaw "three".'), ("f", "Its doc."), ("T", ""), ("T.g", "Raw, indented.\n\n  Example."),
    ]  # fmt: skip


def test_a_doc_comment_is_its_items_across_blank_lines_as_rustdoc_reads_it():
    """A ``///`` doc parted from its item by two blank lines was no doc of it (the plain
    comment right above the item was, if any), and at a file's top it was the file's; rustdoc
    gives it to the item below whatever blank lines or plain comments part them. A plain
    comment right above an item with no doc stays its doc."""
    source = (
        "/// Doc of f.\n\n\nfn f() {}\n\n"
        "/// Doc of g.\n\n\n// A note on g.\n#[inline]\n\nfn g() {}\n\n"
        "// Only a note.\nfn h() {}\n"
    )
    result = parse("rust", source.encode(), path="src/lib.rs")
    assert [(s.qualname, s.docstring) for s in result.symbols] == [
        ("<module>", ""), ("f", "Doc of f."), ("g", "Doc of g."), ("h", "Only a note.")]  # fmt: skip
    # above no definition (a ``use``), a file's first comments are still its doc
    assert parse("rust", b"/// The file.\n\n\nuse std::fmt;\n\nfn f() {}\n").symbols[0].docstring == "The file."


def test_a_tuples_impl_is_named_by_the_tuple_whole():
    """nom's ``impl<'a> InputLength for (&'a [u8], usize)`` named its method ``<(&'a as
    InputLength>.input_len``; futures' ``&'a mut (dyn Future<Output = T> + Unpin + 'a)`` left
    a parenthesis open."""
    source = (
        "impl<'a> InputLength for (&'a [u8], usize) { fn input_len(&self) -> usize { 0 } }\n"
        "impl<I: Iterator> HasCombination<I> for (I::Item,) { type Combination = (); }\n"
        "impl<'a, T> UnsafeFutureObj<T> for &'a mut (dyn Future<Output = T> + Unpin + 'a) { fn into_raw(self) {} }\n"
    )
    assert list(symbols(source)) == [
        "<(&[u8], usize) as InputLength>.input_len", "<(I::Item,) as HasCombination<I>>.Combination",
        "<&mut (dyn Future<Output = T> + Unpin) as UnsafeFutureObj<T>>.into_raw",
    ]  # fmt: skip


def test_the_items_of_a_consts_block_are_local_as_a_functions_are():
    """crossbeam-epoch's ``const NO_OP: Self = { fn no_op_call(…) {} … }`` had ``no_op_call``
    as a file's function."""
    source = (
        "pub struct Deferred { call: fn(*mut u8) }\n\nimpl Deferred {\n    pub const NO_OP: Self = {\n"
        "        fn no_op_call(_raw: *mut u8) {}\n        Self { call: no_op_call }\n    };\n}\n\n"
        "static TABLE: [u8; 1] = { struct Row; [0] };\n\npub fn outer() {\n    fn helper() {}\n    helper();\n}\n"
    )
    assert list(symbols(source)) == ["Deferred", "outer"]


def test_rust_associated_types_and_references_belong_to_their_type():
    """clap 4.0's ``arg_matches.rs`` had twelve ``type Item`` of as many iterators, read as
    the file's own types ``Item`` … ``Item#12`` (named by their order), and ``impl<'s>
    IntoIterator for &'s FlatSet<T>`` gave ``'s FlatSet.into_iter``."""
    source = (b"struct Values<T>(Vec<T>);\nimpl<T> Iterator for Values<T> {\n    type Item = T;\n"
              b"    fn next(&mut self) -> Option<T> { None }\n}\n"
              b"impl<'s, T> IntoIterator for &'s mut Values<T> {\n    type Item = &'s T;\n"
              b"    fn into_iter(self) -> Self::IntoIter { todo!() }\n}\n"
              b"impl PartialEq<Values<u8>> for &'_ str {\n    fn eq(&self, other: &Values<u8>) -> bool { true }\n}\n"
              b"type Alias = u8;\n"
              b"impl<'a> fmt::Display for dyn Expected + 'a {\n    fn fmt(&self) {}\n}\n"
              b"impl [u8] {\n    fn first_byte(&self) {}\n}\n")  # fmt: skip
    assert [(s.kind, s.qualname) for s in parse("rust", source).symbols[1:]] == [
        ("struct", "Values"), ("type", "<Values as Iterator>.Item"), ("method", "<Values as Iterator>.next"),
        ("type", "<&mut Values as IntoIterator>.Item"), ("method", "<&mut Values as IntoIterator>.into_iter"),
        ("method", "<&str as PartialEq<Values<u8>>>.eq"), ("type", "Alias"),
        # serde's ``Expected + 'a.fmt``; a free ``first_byte``
        ("method", "<Expected as Display>.fmt"), ("method", "[u8].first_byte"),
    ]  # fmt: skip


RUST_TRAIT_IMPLS = (
    b"impl fmt::Display for Arg {\n    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result { write!(f, \"a\") }\n}\n",
    b"impl fmt::Debug for Arg {\n    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result { Ok(()) }\n}\n",
    b"impl<'a> PartialEq<&'a str> for Arg {\n    fn eq(&self, other: &&'a str) -> bool { true }\n}\n",
    b"impl PartialEq<str> for Arg {\n    fn eq(&self, other: &str) -> bool { true }\n}\n",
    b"impl<'de> serde::de::Visitor<'de> for Arg {\n    type Value = Arg;\n    fn visit_str(self) {}\n}\n",
)


def test_rust_trait_impl_members_are_named_by_their_trait():
    """clap 4.0's ``impl Display for Arg`` and ``impl Debug for Arg`` each have a ``fmt``,
    read as ``Arg.fmt`` and ``Arg.fmt#2`` by their order: which trait a method implements
    was nowhere in its memory, and swapping the impls swapped their names (123 of clap's
    1,721 symbols were numbered so). Named as Rust's ``<Arg as Display>::fmt`` names them,
    the trait's path and lifetimes left out; an impl's order changes no name."""
    source = b"pub struct Arg;\nimpl Arg {\n    pub fn new() -> Self { Arg }\n}\n" + b"".join(RUST_TRAIT_IMPLS)
    named = [(s.kind, s.qualname) for s in parse("rust", source).symbols[1:]]
    assert named == [
        ("struct", "Arg"), ("method", "Arg.new"), ("method", "<Arg as Display>.fmt"), ("method", "<Arg as Debug>.fmt"),
        ("method", "<Arg as PartialEq<&str>>.eq"), ("method", "<Arg as PartialEq<str>>.eq"),
        ("type", "<Arg as Visitor>.Value"), ("method", "<Arg as Visitor>.visit_str"),
    ]  # fmt: skip
    by_reference = (b"impl IntoIterator for FlatSet {\n    fn into_iter(self) {}\n}\n"
                    b"impl<'s> IntoIterator for &'s FlatSet {\n    fn into_iter(self) {}\n}\n"
                    b"impl<'s> IntoIterator for &'s mut FlatSet {\n    fn into_iter(self) {}\n}\n")  # fmt: skip
    assert [s.qualname for s in parse("rust", by_reference).symbols[1:]] == [  # were ``#2``, ``#3``
        "<FlatSet as IntoIterator>.into_iter", "<&FlatSet as IntoIterator>.into_iter",
        "<&mut FlatSet as IntoIterator>.into_iter",
    ]  # fmt: skip
    swapped = b"".join(reversed(RUST_TRAIT_IMPLS))
    assert sorted(s.qualname for s in parse("rust", swapped).symbols[1:]) == sorted(q for _, q in named[2:])


def test_an_impl_in_a_consts_block_is_its_types_unless_the_block_declares_it():
    """serde's derives and pin-project's expansions write ``const _: () = { impl Serialize for
    Point {…} };``: the impl's methods were dropped with the block's locals, though the impl is
    ``Point``'s wherever it is written, and rustdoc documents it so; an impl of a type or a
    trait that the block declares stays local."""
    source = (
        "pub struct Point;\n"
        "const _: () = {\n    struct Projection;\n    impl Projection { fn local(&self) {} }\n"
        "    impl Point { pub fn project(&self) {} }\n"
        "    impl serde::Serialize for Point { fn serialize(&self) {} }\n};\n"
    )
    assert list(symbols(source)) == ["Point", "Point.project", "<Point as Serialize>.serialize"]


def test_an_impl_in_a_functions_body_is_its_types_in_the_functions_module():
    """bincode's ``deserialize_enum`` implements ``EnumAccess`` for ``&mut Deserializer`` in its
    body, async-process's ``Drop`` for ``ChildGuard`` in ``Child::new``'s: rustdoc documents their
    methods as the type's, which were dropped with the body's locals. Named in the module the
    function stands in, not under a trait or an impl whose method it is (a const's block in a
    trait made ``Shape.<Point as Clone>.clone``); the body's own functions stay local."""
    source = (
        "pub struct Point;\npub trait Shape {\n    fn area(&self) {\n"
        "        impl Clone for Point { fn clone(&self) -> Self { Point } }\n    }\n}\n"
        "mod geo {\n    pub struct Q;\n    fn f() {\n        impl Q { pub fn from_f(&self) {} }\n"
        "        let _ = || { impl Default for Q { fn default() -> Self { Q } } };\n        fn helper() {}\n    }\n}\n"
    )
    assert list(symbols(source)) == [
        "Point", "Shape", "Shape.area", "<Point as Clone>.clone",
        "geo.Q", "geo.f", "geo.Q.from_f", "geo.<Q as Default>.default",
    ]  # fmt: skip


def test_an_impl_of_what_a_functions_body_declares_is_local():
    """As rustdoc keeps no impl of a type or a trait it does not document: of one the body
    declares, by a macro's call too (futures-lite's ``pin_project! { struct CopyFuture … }``
    in ``copy``), or whose trait's type argument it declares (``From<&Local>``, not
    ``From<Vec<Local>>``, the ``Vec``'s)."""
    source = (
        "pub struct Point;\nfn f() {\n    struct Local;\n"
        "    impl Clone for Local { fn clone(&self) -> Self { Local } }\n"
        "    trait Inner { fn inner(&self); }\n    impl Inner for Point { fn inner(&self) {} }\n"
        "    impl From<&Local> for u64 { fn from(_: &Local) -> u64 { 0 } }\n"
        "    impl From<Vec<Local>> for Point { fn from(_: Vec<Local>) -> Point { Point } }\n"
        "    pin_project! {\n        struct CopyFuture<R> { #[pin] reader: R }\n    }\n"
        "    impl<R> Future for CopyFuture<R> { fn poll(&self) {} }\n}\n"
    )
    assert list(symbols(source)) == ["Point", "f", "<Point as From<Vec<Local>>>.from"]


def test_a_doc_blocks_star_margin_is_one_only_where_every_line_has_it():
    """memchr's and regex-syntax's ``/*!`` docs write Markdown with no margin: their ``* ``
    bullets and ``**NOTE:**`` lost a star as a margin's; rustdoc takes a margin off only where
    every line of the block has one, at one column."""
    source = (
        "/*!\nRoutines.\n\n* The top-level module\n  in both directions.\n* The `memmem` module.\n\n"
        "**NOTE:** no double ended iterators.\n*/\n\n/**\n * Margined.\n *\n *   indented.\n */\nfn f() {}\n"
    )
    result = parse("rust", source.encode(), path="src/lib.rs")
    assert [s.docstring for s in result.symbols] == [
        "Routines.\n\n* The top-level module\n  in both directions.\n* The `memmem` module.\n\n"
        "**NOTE:** no double ended iterators.",
        "Margined.\n\n  indented.",
    ]
