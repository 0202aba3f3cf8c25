"""C and C++ on the real grammars: which language a header is, what macros hide from the
grammar, prototypes beside their definitions, overloads, namespaces, tests written by
macros, and what is no symbol (locals, friends, function pointers, macro calls)."""

from __future__ import annotations

import pytest

from recalld.ingest.records import is_test_path
from recalld.parsers import parse
from recalld.parsers.macros import readable
from recalld.parsers.registry import language_for_path


def symbols(path: str, source: str) -> dict[str, tuple[str, str, str]]:
    """qualname -> (kind, signature, docstring) of what ``path`` holding ``source`` defines."""
    result = parse(language_for_path(path), source.encode(), path=path)
    return {s.qualname: (s.kind, s.signature, s.docstring) for s in result.symbols[1:]}


def test_a_header_is_c_unless_it_holds_what_only_cpp_writes():
    c_header = "#ifdef __cplusplus\nextern \"C\" {\n#endif\nint add(int a, int b);\n#ifdef __cplusplus\n}\n#endif\n"
    cpp_header = "namespace geo {\nclass Point {\n public:\n  double x() const;\n};\n}  // namespace geo\n"
    assert parse("c", c_header.encode(), path="include/add.h").language == "c"
    assert parse("c", cpp_header.encode(), path="include/point.h").language == "cpp"
    assert symbols("include/point.h", cpp_header) == {
        "geo.Point": ("class", "class Point", ""),
        "geo.Point.x": ("method", "double x() const", ""),
    }
    # a .c file is C whichever grammar reads it better
    assert parse("c", cpp_header.encode(), path="src/point.c").language == "c"


def test_macros_the_grammar_misreads_are_blanked_in_place():
    source = (
        b"namespace absl {\nABSL_NAMESPACE_BEGIN\n\nclass Mutex {\n public:\n  Q_OBJECT\n"
        b"  void Lock() ABSL_EXCLUSIVE_LOCK_FUNCTION();\n  ABSL_MUST_USE_RESULT bool TryLock();\n};\n\n"
        b"void Mutex::Lock()\n    ABSL_EXCLUSIVE_LOCK_FUNCTION() {\n}\n\nABSL_NAMESPACE_END\n}  // namespace absl\n"
    )
    masked = readable(source)
    assert len(masked) == len(source) and masked.count(b"\n") == source.count(b"\n")
    assert b"ABSL_NAMESPACE_BEGIN" not in masked and b"Q_OBJECT" not in masked and b"TryLock" in masked
    result = parse("cpp", source, path="absl/mutex.h")
    assert result.syntax_errors == 0
    found = {s.qualname: (s.kind, s.signature) for s in result.symbols[1:]}
    assert found == {
        "absl.Mutex": ("class", "class Mutex"),
        "absl.Mutex.TryLock": ("method", "bool TryLock()"),  # an export or attribute macro is no part of it
        "absl.Mutex.Lock": ("method", "void Mutex::Lock() ABSL_EXCLUSIVE_LOCK_FUNCTION()"),
    }


PYBIND = """namespace pybind11 {
class module_ : public object {
public:
    PYBIND11_OBJECT_DEFAULT(module_, object, PyModule_Check)

    /// Create a new top-level Python module.
    PYBIND11_DEPRECATED("Use PYBIND11_MODULE or module_::create_extension_module instead")
    explicit module_(const char *name, const char *doc = nullptr) {}

    template <typename Func,
              typename... Extra>
    PYBIND11_DEPRECATED("call(...) was deprecated in favor of operator()(...)")
    object call(Func &&f) const;

    PYBIND11_DEPRECATED(
        "def_submodule() is kept for 'old' code")
    module_ def_submodule(const char *name) { return *this; }

    PYBIND11_INPLACE_OP(operator/=)
    PYBIND11_INPLACE_OP(operator|=)
    void reload() {}
};
}  // namespace pybind11
"""


def test_a_macros_call_alone_with_strings_over_lines_or_after_a_template_head_is_blanked():
    """An attribute macro whose arguments hold a string (``PYBIND11_DEPRECATED("Use …")``)
    or a slash, runs over two lines, or follows a template's head broke the class it
    stands in: its members were read as functions of the file (pybind11 2.13's headers:
    162 members so, 22 after). The doc above such a call is the declaration's."""
    masked = readable(PYBIND.encode())
    assert len(masked) == len(PYBIND.encode()) and b"PYBIND11_" not in masked and b"Create a new" in masked
    found = symbols("include/pybind11/pybind11.h", PYBIND)
    assert found == {
        "pybind11.module_": ("class", "class module_ : public object", ""),
        "pybind11.module_.module_": ("method", "explicit module_(const char *name, const char *doc = nullptr)",
                                     "Create a new top-level Python module."),
        "pybind11.module_.call": ("method", "template <typename Func, typename... Extra> PYBIND11_DEPRECATED("
                                  '"call(...) was deprecated in favor of operator()(...)") object call(Func &&f) const',
                                  ""),  # signed as written
        "pybind11.module_.def_submodule": ("method", "module_ def_submodule(const char *name)", ""),
        "pybind11.module_.reload": ("method", "void reload()", ""),
    }  # fmt: skip
    # a call over lines that a block follows is code (a test's title: its name split, a type and a function's
    # name to the grammar), as is one with brackets on a line between
    kept = "TEST_CASE(\n    \"parses\")\n{\n}\nOTHER_MACRO(a,\n    f(b),\n    c)\nint x;\n"
    assert readable(kept.encode()) == kept.replace("TEST_CASE(", "TEST CASE(").encode()


GLIBC = """__BEGIN_DECLS

/* Compare N bytes of S1 and S2.  */
extern int memcmp (const void *__s1, const void *__s2, size_t __n)
     __THROW __attribute_pure__ __nonnull ((1, 2));

/* Allocate SIZE bytes of memory.  */
extern void *malloc (size_t __size) __THROW __attribute_malloc__
     __attribute_alloc_size__ ((1)) __wur;
extern void *rawmemchr (const void *__s, int __c)
     __THROW __asm ("rawmemchr") __attribute_pure__ __nonnull ((1));

__END_DECLS

void __asan_poison_memory_region(void const volatile *addr, size_t size);

static int
__init_module(void)
{
	return 0;
}

static int __init driver_init(void)
{
	return __init_module();
}
"""


def test_the_attribute_macros_of_system_headers_hide_no_prototype():
    """glibc writes its attributes as names reserved to the implementation (``__THROW``,
    ``__wur``, ``__nonnull ((1))``, ``__BEGIN_DECLS``), after the parameters and on the
    lines after them: the prototype was lost (stdlib.h gave 38 symbols, 170 now). A
    function named so is still one (``__init_module``, ``__asan_poison_memory_region``),
    and the kernel's ``__init`` is no name, read around as before."""
    found = symbols("include/string.h", GLIBC)
    assert {name: kind for name, (kind, _sig, _doc) in found.items()} == {
        "memcmp": "function", "malloc": "function", "rawmemchr": "function", "__asan_poison_memory_region": "function",
        "__init_module": "function", "driver_init": "function",
    }  # fmt: skip
    assert found["memcmp"][1:] == (
        "extern int memcmp (const void *__s1, const void *__s2, size_t __n)"
        " __THROW __attribute_pure__ __nonnull ((1, 2))",
        "Compare N bytes of S1 and S2.",
    )
    assert found["malloc"][2] == "Allocate SIZE bytes of memory."
    code = "void f(int __n)\n{\n  if (__n) __x = 0;\n  if (__n)\n    __y += 1;\n}\n"  # reserved names as code
    assert readable(code.encode()) == code.encode()
    header = GLIBC.split("static int __init")[0]  # the kernel's __init is read around: a syntax error
    assert parse("c", header.encode(), path="include/string.h").syntax_errors == 0


LISTINGS = {
    # a prototype is a symbol only where its function is not defined; a definition that
    # says nothing of itself has its declaration's doc
    "prototypes": ("src/words.c", (
        "/* Counts the words. */\nstatic int count_words(const char *text);\n/* Frees it. */\nvoid list_free(void);\n\n"
        "static int count_words(const char *text)\n{\n    return 0;\n}\n"
    ), {
        "list_free": ("function", "void list_free(void)", "Frees it."),
        "count_words": ("function", "static int count_words(const char *text)", "Counts the words."),
    }),
    # a namespace opened twice is one, and a function qualified by one it opens no method
    "namespaces": ("net.cc", (
        "namespace net {\nint Open();\n}\nnamespace net {\nint Close();\nnamespace detail { int Count(); }\n"
        "int detail::Count() { return 1; }\n}\n"
    ), {
        "net.Open": ("function", "int Open()", ""),
        "net.Close": ("function", "int Close()", ""),
        "net.detail.Count": ("function", "int detail::Count()", ""),
    }),
    # a scope written inside itself is the enclosing one (not ``net.net.Socket``); ``::`` is the top level's
    "scoped names": ("socket.cc", (
        "namespace net {\nclass net::Socket {\n  void Send();\n};\nvoid net::Socket::Close() {}\n"
        "void Socket::Send() {}\n}\nclass ::Top {};\n"
    ), {
        "net.Socket": ("class", "class net::Socket", ""),
        "net.Socket.Close": ("method", "void net::Socket::Close()", ""),
        "net.Socket.Send": ("method", "void Socket::Send()", ""),
        "Top": ("class", "class ::Top", ""),
    }),
    # test macros are named by their arguments, and what they declare is their own
    "tests": ("shape_test.cc", (
        "TEST(ShapeTest, Draws) {\n  Shape s;\n}\n\nTEST_F(ShapeTest, Scales) {}\n\n"
        'TEST_CASE("a stack pops what it pushed")\n{\n    SECTION("one value")\n    {\n        json j(n);\n    }\n}\n'
    ), {
        "TEST(ShapeTest, Draws)": ("function", "TEST(ShapeTest, Draws)", ""),
        "TEST_F(ShapeTest, Scales)": ("function", "TEST_F(ShapeTest, Scales)", ""),
        'TEST_CASE("a stack pops what it pushed")': ("function", 'TEST_CASE("a stack pops what it pushed")', ""),
    }),
}  # fmt: skip


@pytest.mark.parametrize("case", LISTINGS)
def test_listing(case):
    path, source, expected = LISTINGS[case]
    assert symbols(path, source) == expected


def test_overloads_are_named_by_their_parameters_and_a_declared_one_is_its_own():
    source = (
        "class Shape {\n public:\n  void Scale(double factor);\n  void Scale(double x, double y);\n"
        "  const char* name() const;\n  char* name();\n};\n\nvoid Shape::Scale(double f) {}\n"
    )
    assert set(symbols("shape.cc", source)) == {
        "Shape", "Shape.Scale(double, double)", "Shape.name() const", "Shape.name()", "Shape.Scale(double)",
    }  # fmt: skip


def test_what_declares_no_function_is_no_symbol():
    source = (
        "struct conn {\n  unsigned int BIT(closed);\n  int (*on_read)(int fd);\n};\n"
        "static int (*handler)(int);\nABSL_DECLARE_FLAG(verbose);\n"
        "class Shape { friend void swap(Shape& a, Shape& b); };\n"
        "void (*signal_of(int sig))(int) { return 0; }\n"
    )
    assert set(symbols("conn.cc", source)) == {"conn", "Shape", "signal_of"}


def test_names_a_macro_or_parentheses_hide():
    source = (
        "LUA_API int (lua_gettop) (lua_State *L);\n"
        "LUALIB_API lua_Number (luaL_checknumber) (lua_State *L, int arg);\n"
    )
    assert set(symbols("lauxlib.h", source)) == {"lua_gettop", "luaL_checknumber"}


def test_a_doxygen_comment_documents_what_follows_it_in_cpp_but_not_in_rust():
    cpp = "//! Parses a number.\nint parse(const char* text);\n"
    rust = "//! The crate's parser.\n\n/// Parses a number.\nfn parse(text: &str) -> i32 { 0 }\n"
    assert symbols("parse.h", cpp)["parse"][2] == "Parses a number."
    result = parse("rust", rust.encode())
    assert result.symbols[0].docstring == "The crate's parser."
    assert result.symbols[1].docstring == "Parses a number."


def test_c_cpp_and_csharp_test_files_are_test_code():
    tests = ("absl/strings/str_split_test.cc", "googletest/test/gtest_unittest.cc", "src/test_util.c",
             "src/Newtonsoft.Json.Tests/JsonReaderTest.cs", "src/App.Tests/ShapeTests.cs")  # fmt: skip
    for path in tests:
        assert is_test_path(path)
    for path in ("src/contest.c", "util/testutil.cc", "src/attest.cpp", "src/Latest.cs", "src/Contest.cs"):
        assert not is_test_path(path)


@pytest.mark.parametrize("language", ["c", "cpp"])
def test_broken_code_never_gives_two_symbols_one_name_nor_one_of_no_name(language):
    """Found by mutating real headers. A declaration whose parameters do not parse, beside
    a macro of its name, was numbered among declarations alone: two ``function F`` of one
    file, which a store keeps as one memory. ``a::::(int)`` named a method of nothing."""
    symbols = parse(language, b"e u,F(),T#define F()\n").symbols
    keys = [(s.kind, s.qualname) for s in symbols]
    assert len(keys) == len(set(keys)) and ("function", "F") in keys
    assert all(s.name.strip() for s in parse(language, b"int a::::(int);\nint b::c::::(void) { return 0; }\n").symbols)


def test_an_export_macro_between_a_class_keyword_and_its_name_hides_nothing():
    """``class V8_EXPORT Message {`` read as written was a function (the class its return
    type) whose body held the members: the class and every member were lost, no syntax
    error said so. C's ``struct MY_TAG value;`` is a variable of a struct type: kept."""
    source = (
        "namespace v8 {\nclass V8_EXPORT Message {\n public:\n  int Get() const;\n  void Run() {}\n};\n"
        "struct BOOST_SYMBOL_VISIBLE bad_cast : public std::exception {};\n"
        "template <> struct LLVM_ABI Traits<int> { int x; };\n}\n"
        "class Q_CORE_EXPORT QObject\n{\n  void f();\n};\nstruct MY_TAG value;\n"
    )
    assert {q: k for q, (k, _sig, _doc) in symbols("include/v8.h", source).items()} == {
        "v8.Message": "class", "v8.Message.Get": "method", "v8.Message.Run": "method",
        "v8.bad_cast": "struct", "v8.Traits<int>": "struct", "QObject": "class", "QObject.f": "method",
    }  # fmt: skip
    assert readable(b"struct MY_TAG value;\n") == b"struct MY_TAG value;\n"


def test_conversion_operators_are_methods_named_by_their_type():
    source = (
        "class Handle {\n public:\n  explicit operator bool() const { return p != 0; }\n  operator int*() const;\n"
        "  operator const std::string&() const;\n  int length(void) const;\n  int* p;\n};\n"
        "Handle::operator int*() const { return p; }\nint Handle::length() const { return 0; }\n"
    )
    found = symbols("src/handle.cc", source)
    assert {q: (k, sig) for q, (k, sig, _doc) in found.items()} == {
        "Handle": ("class", "class Handle"),
        "Handle.operator bool": ("method", "explicit operator bool() const"),
        "Handle.operator int*": ("method", "Handle::operator int*() const"),  # declared, then defined
        "Handle.operator const std::string&": ("method", "operator const std::string&() const"),
        "Handle.length": ("method", "int Handle::length() const"),  # ``(void)`` declared is ``()`` defined
    }


def test_a_macro_defined_over_several_lines_is_read_whole_and_signed_without_its_backslashes():
    """A ``#define`` whose body, on the line it continues onto, is a macro's call alone was
    taken for a call to blank (OpenSSL's ``asn1t.h``): the definition ran on into the next
    one, which was lost. A signature leaves a line's continuation out."""
    source = (
        "int x;\n\n#define ASN1_EXP_SEQ(stname, field) \\\n    ASN1_EXP_EX(stname, field, ASN1_TFLG_SEQUENCE_OF)\n\n"
        "#define ASN1_EXP_SEQ_OPT(stname, field) \\\n    ASN1_EXP_EX(stname, field, ASN1_TFLG_OPTIONAL)\n\n"
        "#define PACK(a, \\\n             b) \\\n    (((a) << 8) | (b))\n"
    )
    result = parse("c", source.encode(), path="include/asn1t.h")
    assert [(s.qualname, s.start_line, s.end_line, s.signature) for s in result.symbols[1:]] == [
        ("ASN1_EXP_SEQ", 3, 4, "#define ASN1_EXP_SEQ(stname, field)"),
        ("ASN1_EXP_SEQ_OPT", 6, 7, "#define ASN1_EXP_SEQ_OPT(stname, field)"),
        ("PACK", 9, 11, "#define PACK(a, b)"),
    ]


def test_an_editors_modeline_hides_no_licence_and_is_no_doc():
    """``/* -*- Mode: C++ -*- */`` above the MPL notice made the notice the file's doc (its
    first line was the modeline, not the notice's); libstdc++'s ``// Iterators -*- C++ -*-``
    was every header's doc, where its ``@file`` block is."""
    source = (
        "/* -*- Mode: C++; tab-width: 4 -*- */\n/* This Source Code Form is subject to the terms of the Mozilla Public\n"
        " * License, v. 2.0. */\n\n/** Reads and writes files. */\n\n#ifndef X\n#define X\nint f(void);\n#endif\n"
    )
    assert parse("c", source.encode(), path="include/prio.h").symbols[0].docstring == "Reads and writes files."


GIT_STYLE = """static GIT_PATH_FUNC(git_path_seq_dir, "sequencer")
static DEFINE_MUTEX(lock);

/* What one replay holds. */
struct replay_ctx {
	int count;
};

static HCERTSTORE
collect_certificates(const char *store_name)
{
	return NULL;
}

static int cleanup_mode(int use_editor, void *data UNUSED)
{
	return use_editor ? COMMIT_MSG_CLEANUP_ALL :
			    COMMIT_MSG_CLEANUP_SPACE;
}

static NORETURN void die_usage(const char *msg)
{
	exit(129);
}

void NORETURN die_conflict(void)
{
	exit(128);
}

static char *noop_value MAYBE_UNUSED;

static void each_ref(const char *refname UNUSED,
		     const struct object_id *oid MAYBE_UNUSED, int flags)
{
	size_t size = sizeof(struct NAMED);
	switch (flags) {
	case 1:
		RESET_ALL;
	}
}
"""


def test_git_s_macros_hide_no_struct_and_break_no_parameter_list():
    """Git's ``UNUSED`` after a parameter's name read as its name, the name as its type
    (``compile_pcre2_pattern(struct grep_pat*p, …)``); a file-level ``static
    GIT_PATH_FUNC(…)`` line hid the struct after it; a name ending a ternary's line (``?
    A :``, then ``B;``) was blanked as a macro's call after a label (git 2.55's C: 386 of
    977 files read with syntax errors, 215 now). What is no attribute stays: a return type
    in capitals (``static HCERTSTORE``), ``sizeof(struct NAMED)``, a call after a ``case``.
    ``NORETURN`` beside a type's keyword is no type. A header is C where C++'s grammar
    read what only it writes by supposing a token (``noop_value MAYBE_UNUSED`` a qualified
    name, its ``::`` missing): git's ``parse-options.h`` was C++ in 2.55."""
    masked = readable(GIT_STYLE.encode())
    assert b"COMMIT_MSG_CLEANUP_SPACE;" in masked and b"(       NAMED)" in masked and b"HCERTSTORE" in masked
    assert b"RESET_ALL" not in masked and b"GIT_PATH_FUNC" not in masked and b"NORETURN" not in masked
    result = parse("c", GIT_STYLE.encode(), path="sequencer.c")
    assert result.syntax_errors == 1  # ``MAYBE_UNUSED`` after a variable's name: read around
    assert parse("c", GIT_STYLE.encode(), path="sequencer.h").language == "c"
    found = {s.qualname: (s.kind, s.signature, s.docstring) for s in result.symbols[1:]}
    assert found == {
        "replay_ctx": ("struct", "struct replay_ctx", "What one replay holds."),
        "collect_certificates": ("function", "static HCERTSTORE collect_certificates(const char *store_name)", ""),
        "cleanup_mode": ("function", "static int cleanup_mode(int use_editor, void *data UNUSED)", ""),
        "die_usage": ("function", "static NORETURN void die_usage(const char *msg)", ""),
        "die_conflict": ("function", "void NORETURN die_conflict(void)", ""),
        "each_ref": ("function", "static void each_ref(const char *refname UNUSED, const struct object_id *oid"
                     " MAYBE_UNUSED, int flags)", ""),
    }  # fmt: skip


def test_a_specialisations_members_are_its_own():
    """fast_float's ``template <> int binary_format<double>::max_digits()`` beside
    ``<float>``'s were ``max_digits()`` and ``max_digits()#2``, by order: a member defined
    for a specialisation is named by it, as its class is; one of the template itself (its
    arguments its own parameters) by the template's name."""
    source = (
        "template <typename T> struct binary_format { static int max_digits(); void draw(); };\n"
        "template <> inline int binary_format<double>::max_digits() { return 769; }\n"
        "template <> inline int binary_format<float>::max_digits() { return 114; }\n"
        "template <typename T> void binary_format<T>::draw() {}\n"
        "template <class T, int... Ns> void Grid<T, Ns...>::fill() {}\n"
        "template <class T> void Grid<T*>::fill() {}\n"
        "template <typename T> template <typename U> void Outer<T>::Inner<U>::run() {}\n"
    )
    assert set(symbols("fast_float.h", source)) == {
        "binary_format", "binary_format.max_digits", "binary_format.draw",  # the template's own declaration
        "binary_format<double>.max_digits", "binary_format<float>.max_digits", "Grid.fill", "Grid<T*>.fill", "Outer.Inner.run",
    }  # fmt: skip


def test_a_structs_doc_stands_above_its_declaration_and_after_a_define_of_a_glob():
    """Git's ``#define TAG_REFSPEC "refs/tags/*:refs/tags/*"``: the grammar opened a comment
    at the string's ``/*`` that ran to the end of the doc below it, so ``struct
    refspec_item`` had none; a struct declared with its variable (``static struct used_atom
    {…} *used_atom;``) had the comment above the declaration read as no one's; a comment
    that ends a ``#define``'s line, blanks after it, took the doc below for its own (redis's
    ``entryIsKey``)."""
    source = (
        '#define TAG_REFSPEC "refs/tags/*:refs/tags/*"\n\n/**\n * A parsed refspec.\n */\n'
        "struct refspec_item {\n\tunsigned force : 1;\n};\n\n"
        "/* The atoms in use. */\nstatic struct used_atom {\n\tint type;\n} *used_atom;\n\n"
        "/* Notes tree object */\nextern struct notes_tree {\n\tint root;\n} default_notes_tree;\n\n"
        "#define ENTRY_NO_VALUE 4 /* an entry without value */ \n\n/* Whether it is a key. */\n"
        "static inline int entry_is_key(const void *de) {\n\treturn 0;\n}\n"
    )
    found = symbols("refspec.h", source)
    assert {name: doc for name, (_kind, _sig, doc) in found.items()} == {
        "refspec_item": "A parsed refspec.", "used_atom": "The atoms in use.",
        "notes_tree": "Notes tree object", "entry_is_key": "Whether it is a key.",
    }  # fmt: skip


def test_a_name_in_capitals_before_an_attribute_is_the_declarators():
    """libffi's ``ffi_common.h`` (vendored by cffi): ``typedef unsigned int UINT8
    __attribute__((__mode__(__QI__)));`` was the type ``int`` (``UINT8`` blanked as an attribute
    macro before a function's name, ``__attribute__`` taken for that name); clang names it
    ``UINT8``. An attribute macro beside a type's keyword before a function's name stays blanked."""
    source = (
        "typedef unsigned int UINT8  __attribute__((__mode__(__QI__)));\n"
        "typedef signed int   SINT64 __attribute__((__mode__(__DI__)));\n"
        "extern int COUNTER __asm__(\"counter\");\n"
        "void NORETURN die(int code);\n"
    )
    assert symbols("ffi_common.h", source) == {
        "UINT8": ("type", "typedef unsigned int UINT8 __attribute__((__mode__(__QI__)))", ""),
        "SINT64": ("type", "typedef signed int SINT64 __attribute__((__mode__(__DI__)))", ""),
        "die": ("function", "void NORETURN die(int code)", ""),
    }


def test_a_comment_on_a_line_a_define_goes_on_from_is_no_end_of_it():
    """Brotli's ``decode.h`` (``/* Errors caused by invalid input */ \\`` in a macro's list of
    error codes) and libuv's ``uv.h``/``uv/tree.h``: the grammar ended the ``#define`` at such a
    comment and read the lines after it as code, so what followed was read with errors
    (``typedef void (*start_func)(…)`` a function ``void``, ``tree.h``'s ``SPLAY_HEAD`` lost, the
    functions its macros write found). Clang names the typedef and the macro, as recalld does now.
    A comment among a macro's name and parameters ends nothing; neither it nor one blanked
    in its value is part of its signature (``http_parser.h``'s ``HTTP_ERRNO_MAP(XX)``)."""
    source = (
        "#define FENCE(/*memory_order*/ ORDER) \\\n  /* a full fence */ \\\n  atomic_fence(ORDER)\n"
        "#define ERROR_CODES_LIST(CODE, SEP) \\\n"
        "  CODE(_, NO_ERROR, 0) SEP            \\\n"
        "  /* Errors caused by invalid input */ \\\n"
        "  CODE(_ERROR_, RESERVED, -2)\n\n"
        "#define SPLAY_HEAD(name, type) \\\n"
        "struct name { /* root */ \\\n"
        "  struct type *sph_root; \\\n"
        "}\n\n"
        "/** Fired on a metadata block's start. */\n"
        "typedef void (*start_func)(void* opaque, size_t size);\n"
    )
    result = parse("c", source.encode(), path="decode.h")
    assert result.syntax_errors == 0
    assert {s.qualname: (s.kind, s.start_line, s.docstring) for s in result.symbols[1:]} == {
        "FENCE": ("function", 1, ""),
        "ERROR_CODES_LIST": ("function", 4, ""),
        "SPLAY_HEAD": ("function", 9, ""),
        "start_func": ("type", 15, "Fired on a metadata block's start."),
    }
    assert result.symbols[1].signature == "#define FENCE(ORDER)"  # as before: its comment no part of it
