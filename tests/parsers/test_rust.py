"""Rust on its real grammar: the items a macro's call wraps (tokio's ``cfg_rt! {…}``,
``pin_project! {…}``, syn's ``ast_struct! {…}``), which the grammar leaves unparsed."""

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
    source = "macro_rules! assert_parse(\n  ($left: expr) => { assert!($left); };\n);\nmacro_rules! braced {\n  () => {};\n}\n"
    result = parse("rust", source.encode(), path="src/lib.rs")
    assert [s.signature for s in result.symbols[1:]] == ["macro_rules! assert_parse", "macro_rules! braced"]
