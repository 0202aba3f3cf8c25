"""Languages as plain data: a spec per language, looked up by name, path glob or
file extension.

A spec names its extractor: tree-sitter for source languages, "markdown" for decision
documents and architecture notes, "tooling" for build and tool configuration files.
Document specs are selected by path globs (which config may override per spec name)
before extensions are looked at. Built-ins are registered exactly the way an
extension would register its own.
"""

from __future__ import annotations

import posixpath
from collections.abc import Mapping
from dataclasses import dataclass

from recalld.parsers.globs import match_any
from recalld.parsers.tooling_rules import TOOLING_GLOBS

# Nodes whose definitions are no named member of what is around them: a Java anonymous
# class (``new Runnable() { … }`` in a field's initialiser), C's and C++'s blocks (a
# function's locals, where ``json j(n);`` reads as a function's declaration).
LOCAL_BODIES = frozenset({"object_creation_expression", "compound_statement"})


@dataclass(frozen=True, slots=True)
class LanguageSpec:
    name: str
    extensions: tuple[str, ...]
    grammar_module: str = ""  # the grammar wheel's module (tree-sitter extractor)
    grammar_function: str = "language"  # its function returning the language pointer
    query_file: str = ""  # in parsers/queries/, default "<name>.scm"
    shared_queries: tuple[str, ...] = ()  # query files read before query_file, shared with kin languages
    docstrings: str = "comments"  # "comments": leading comments; "strings": first string in the body
    extractor: str = "treesitter"  # a key of EXTRACTORS
    globs: tuple[str, ...] = ()  # paths this spec claims whatever their extension
    overloads: bool = False  # functions of one name tell apart by their parameter types
    # A function under this decorator declares one typing of a function of its name
    # (Python's ``@typing.overload``): named by its parameters' types, so that the
    # implementation keeps the plain name.
    overload_decorator: str = ""
    # A function under a decorator of one of these names registers one implementation of a
    # function dispatched on its arguments' types (``functools.singledispatch``'s
    # ``@process.register``, plum's ``@dispatch``): named by the types it registers for.
    dispatch_decorators: tuple[str, ...] = ()
    declares_encoding: bool = False  # a file may name its encoding in a comment (parsers/encoding.py)
    directory_namespace: bool = False  # a directory's files share one namespace (Go's packages)
    # A kin language whose grammar reads what this one's cannot: a file this grammar reads
    # with syntax errors is read by that one's too, the reading with fewer kept (``parse``).
    fallback: str = ""
    # Extensions this language shares with its fallback (C's ``.h``, which C++ headers use
    # too): a file of one that the fallback's grammar reads with fewer syntax errors, and
    # finds its own constructs in (``marks``), is the fallback's language.
    shared_extensions: tuple[str, ...] = ()
    marks: frozenset[str] = frozenset()  # node kinds only this language's grammar reads
    # Other languages that write this one's shared extensions with a grammar of their own
    # (Objective-C's ``.h``): a file holding ``sniff`` of one is read as it, and is its
    # language where that reading has no more errors and holds its ``marks``.
    shared_with: tuple[str, ...] = ()
    sniff: bytes = b""  # a pattern (``re.MULTILINE``) only this language's files hold
    macros: bool = False  # C's, C++'s, Objective-C's: the grammar reads the source with macros it misreads blanked
    # A class or module opened again is the same one (Ruby's): what it defines is named
    # under its name, not its repeat's (``ActiveRecord.Migration``, not ``ActiveRecord#2.…``).
    reopens: bool = False
    # Node kinds of which one declared again in its scope is the same one (TypeScript's
    # interfaces, which merge): named as ``reopens`` names them. A ``partial`` one (C#'s
    # ``partial class``) is in any language (``namesakes.merges``).
    merges: frozenset[str] = frozenset()
    # A class's own methods and its instances' may share a name (Ruby's ``def self.x``
    # beside ``def x``, JavaScript's ``static x()`` beside ``x()``): the class's is named
    # with this word, ``Class.self.x``, ``Class.static.x`` (``namesakes.name_singletons``).
    singletons: str = ""
    # "xml": a doc comment's XML tags read as text (C#'s ``<summary>``); "rdoc": docs as RDoc reads
    # Ruby's: a ``##`` block is one across blank lines (``doc_blocks.doc_block_apart``), and what
    # ``#--`` hides up to ``#++`` is none of one (``doc_blocks.shown_by_rdoc``).
    doc_markup: str = ""
    inner_docs: bool = False  # ``//!`` and ``/*!`` document what they are in (Rust), not what follows
    unicode_escapes: bool = False  # Java's: a doc's ``\u00e4`` reads as ``ä`` (parsers/unicode_escapes.py)
    # Java's: a doc block opened by a row of stars (``/*****``) is a doc as any other, as javac
    # reads it; Doxygen, JSDoc and rustdoc take it for a plain comment, a section's banner.
    banner_docs: bool = False
    # Java's: a doc block is the definition's whatever plain comments stand between them, right
    # above it too (``/** Finds. */``, a blank line, ``// note``, the method), as javac takes the
    # last ``/**`` before a declaration (a C header's ``/** @{ */`` group stands there: not C's).
    docs_over_notes: bool = False
    local_bodies: frozenset[str] = LOCAL_BODIES  # node kinds whose definitions are local
    item_macros: bool = False  # Rust's: the items a macro's call wraps are read (parsers/item_macros.py)
    # Node kinds that a block holds as if they stood in the module the block's item stands in, and
    # that are no local of it (Rust's impl of a type the block does not declare: parsers/block_impls.py).
    lifted: frozenset[str] = frozenset()
    # C#'s and Swift's (a key of ``conditionals.DIRECTIVES``): a file read with syntax errors is
    # read again with its directive lines blanked and the ``#if`` groups its errors fall in
    # reduced to one branch (parsers/conditionals.py),
    # and, C#'s, Kotlin's, Swift's and Objective-C's, as ``rewrite`` gives it to the grammar (a key of
    # ``rereading.REWRITES``: C#'s ``*(…)``, parsers/pointers.py; Kotlin's annotations it
    # cannot place and ``dynamic``, parsers/kotlin_gaps.py; Swift's ``__owned``, ``()``, ``try? x {``,
    # parsers/swift_gaps.py; Objective-C++'s ``::``, ``using namespace`` and references,
    # parsers/objcpp_gaps.py; C's old-style definitions of a pointer, parsers/old_style.py):
    # the reading with fewer errors is kept (parsers/rereading.py)
    conditionals: str = ""
    rewrite: str = ""
    # Node kinds that declare what the file may define elsewhere (Objective-C's ``@interface``
    # and its methods, which the ``@implementation`` defines): each a symbol only where the
    # file does not define it, as a C prototype is.
    declarations: frozenset[str] = frozenset()
    # Node kinds whose definitions are the file's wherever they stand outside a body
    # (Objective-C's C: a function, a struct or a typedef inside a class's ``@interface``
    # or ``@implementation`` is no member of the class).
    file_scoped: frozenset[str] = frozenset()
    # Interpreters a script without an extension names in its ``#!`` line (``bin/deploy``
    # of ``#!/usr/bin/env bash``), any version they are named with taken off (``python3.11``).
    interpreters: tuple[str, ...] = ()
    # A pattern (``re.MULTILINE``) of what a file of this language's extensions holds when
    # it is in another format no language here reads: such a file, holding none of its
    # ``sniff``, is not read (cram's shell transcripts, ``  $ hg init``, in the ``.t`` files
    # of Mercurial's and dune's tests; a Perl script's POD shows a session so too).
    foreign: bytes = b""
    # A statement naming the package of what follows it (Perl's ``package Foo::Bar;``):
    # read by ``parsers/perl_packages.py``.
    packages: bool = False

    @property
    def query_names(self) -> tuple[str, ...]:
        return (*self.shared_queries, self.query_file or f"{self.name}.scm")


class UnknownLanguageError(ValueError):
    """No language of that name is registered."""


# extractor name -> module with ``extract(spec, data, path) -> ParseResult``
EXTRACTORS: dict[str, str] = {
    "treesitter": "recalld.parsers.extract",
    "markdown": "recalld.parsers.documents",
    "tooling": "recalld.parsers.tooling",
    "component": "recalld.parsers.components",
}
LANGUAGES: dict[str, LanguageSpec] = {}
_BY_EXTENSION: dict[str, str] = {}
_BY_INTERPRETER: dict[str, str] = {}


def register_language(spec: LanguageSpec) -> None:
    LANGUAGES[spec.name] = spec
    for extension in spec.extensions:
        _BY_EXTENSION[extension.lower()] = spec.name
    for interpreter in spec.interpreters:
        _BY_INTERPRETER[interpreter] = spec.name


def language_for_path(path: str, globs: Mapping[str, tuple[str, ...]] | None = None) -> str | None:
    """The spec claiming ``path``: the first whose globs match (``globs`` overrides a
    spec's own by name), else the one registered for its extension."""
    return claimed_language(path, globs) or extension_language(path)


def claimed_language(path: str, globs: Mapping[str, tuple[str, ...]] | None = None) -> str | None:
    """The first spec whose globs match ``path`` (``globs`` overrides a spec's own by name), or None."""
    for spec in LANGUAGES.values():
        patterns = globs.get(spec.name, spec.globs) if globs else spec.globs
        if match_any(path, patterns):
            return spec.name
    return None


def extension_language(path: str) -> str | None:
    """The language registered for the path's extension alone (source files)."""
    _root, extension = posixpath.splitext(path)
    return _BY_EXTENSION.get(extension.lower()) if extension else None


def interpreted_language(interpreter: str) -> str | None:
    """The language a script whose ``#!`` line names ``interpreter`` is written in (``python``:
    Python; ``tclsh``: none read), by the specs' ``interpreters``."""
    return _BY_INTERPRETER.get(interpreter)


def linguist_language(value: str, path: str) -> str | None:
    """The language recalld reads the file at ``path`` in whose ``linguist-language``
    attribute is ``value`` (a name or an alias of GitHub Linguist's, any case: ``C++``,
    ``cpp``, ``Objective-C``, ``Shell``), or "" where it names one recalld does not read
    (``Prolog`` for a ``.pl``, ``PLpgSQL`` for a ``.sql``). None, the attribute unheeded,
    where it names another language recalld reads than the one the file's extension names,
    and not one of its kin (``KIN``): react-native-vision-camera's ``*.kt
    linguist-language=Swift``, written for GitHub's statistics, read its Kotlin as Swift."""
    named = LINGUIST_NAMES.get(value.strip().lower().replace(" ", "-"), "")
    own = extension_language(path)
    if named and own and named != own and not any(named in kin and own in kin for kin in KIN):
        return None
    return named


# Languages whose files go by one another's names, which a ``linguist-language`` tells apart: a
# ``.h`` of C, C++ or Objective-C; a ``.js`` of TypeScript's (``*.js linguist-language=TypeScript``).
KIN = (frozenset({"c", "cpp", "objc"}), frozenset({"javascript", "typescript", "tsx"}))


def get_language(name: str) -> LanguageSpec:
    try:
        return LANGUAGES[name]
    except KeyError:
        raise UnknownLanguageError(f"unknown language {name!r} (known: {', '.join(sorted(LANGUAGES))})") from None


ECMASCRIPT = ("ecmascript.scm",)  # JavaScript's patterns TypeScript's grammar matches too
# What only C++'s grammar reads: a header holding one is C++'s.
CPP_MARKS = frozenset({
    "class_specifier", "namespace_definition", "template_declaration", "access_specifier", "alias_declaration",
    "reference_declarator", "qualified_identifier", "using_declaration",
})  # fmt: skip
OBJC_MARKS = frozenset({
    "class_interface", "class_implementation", "protocol_declaration", "protocol_forward_declaration",
    "class_declaration",
})  # fmt: skip
TYPESCRIPT_MERGES = frozenset({"interface_declaration"})  # declaration merging: ``LanguageSpec.merges``
BUILTIN_LANGUAGES = (
    LanguageSpec("python", (".py", ".pyi"), "tree_sitter_python", docstrings="strings", declares_encoding=True,
                 overload_decorator="overload", dispatch_decorators=("register", "dispatch"),
                 interpreters=("python", "pypy")),
    # Flow-typed JavaScript (React, React Native, Vue 2) is read by TSX's grammar, which
    # knows type annotations: of Vue 2.6's 161 Flow files, JavaScript's grammar reads 152
    # with errors (538 symbols), TSX's 4 (821).
    LanguageSpec("javascript", (".js", ".mjs", ".cjs", ".jsx"), "tree_sitter_javascript", shared_queries=ECMASCRIPT,
                 fallback="tsx", singletons="static", interpreters=("node", "nodejs")),
    LanguageSpec("typescript", (".ts", ".mts", ".cts"), "tree_sitter_typescript", "language_typescript",
                 shared_queries=ECMASCRIPT, overloads=True, singletons="static", merges=TYPESCRIPT_MERGES,
                 interpreters=("ts-node", "tsx", "deno", "bun"), rewrite="typescript"),
    LanguageSpec("tsx", (".tsx",), "tree_sitter_typescript", "language_tsx", query_file="typescript.scm",
                 shared_queries=ECMASCRIPT, overloads=True, singletons="static", merges=TYPESCRIPT_MERGES,
                 rewrite="tsx"),
    LanguageSpec("go", (".go",), "tree_sitter_go", directory_namespace=True),
    # A block's items are its own, a function's body's as a ``const``'s (``const NO_OP: Self = { fn
    # no_op_call(…) {} … }``: ``no_op_call`` was a file's function)
    LanguageSpec("rust", (".rs",), "tree_sitter_rust", inner_docs=True, item_macros=True,
                 local_bodies=LOCAL_BODIES | {"block"}, lifted=frozenset({"impl_item"})),
    # A Java block's classes are local, as a method's are: an initializer's (``static { class
    # Holder … }``), a lambda's or a switch rule's in a field's value (they were the class's members)
    LanguageSpec("java", (".java",), "tree_sitter_java", overloads=True, local_bodies=LOCAL_BODIES | {"block"},
                 unicode_escapes=True, banner_docs=True, docs_over_notes=True),
    LanguageSpec("csharp", (".cs", ".csx"), "tree_sitter_c_sharp", overloads=True, doc_markup="xml",
                 conditionals="csharp", rewrite="pointers"),
    # Kotlin's anonymous objects (``object : Runnable {…}``), lambdas and blocks (an ``init``'s)
    # hold what is theirs, as a Java anonymous class does; so do Swift's closures and
    # statements (a ``didSet``'s, an ``if``'s).
    LanguageSpec("kotlin", (".kt", ".kts"), "tree_sitter_kotlin", overloads=True,
                 local_bodies=LOCAL_BODIES | {"object_literal", "lambda_literal", "block"}, rewrite="kotlin"),
    LanguageSpec("swift", (".swift",), "tree_sitter_swift", overloads=True,
                 local_bodies=LOCAL_BODIES | {"lambda_literal", "statements"}, rewrite="swift", conditionals="swift",
                 interpreters=("swift",)),
    # Shell scripts, by Bash's grammar (POSIX ``sh`` is its subset): their functions; a
    # function defined in another's body is the caller's text, as a nested one is anywhere,
    # but braces around a script's functions are a group, no body (nvm's ``{ … }`` around
    # all of ``nvm.sh``, so that it runs only once downloaded whole); a script read with
    # errors is read again as the grammar reads it (``shell_gaps.py``).
    LanguageSpec("bash", (".sh", ".bash"), "tree_sitter_bash", rewrite="shell", local_bodies=frozenset(),
                 interpreters=("sh", "bash", "dash", "ash", "ksh", "mksh")),
    # Lua: functions named as written (``M.setup``, ``M.Client:request`` as ``M.Client.request``),
    # one given to a name or a table's field (``M.on_exit = function(code) … end``) too, and
    # a table's in braces or a metatable's as its table's (``M.handlers = { show = … }``), a
    # table's within it by the fields on the way (``LCP.ConfigOption.new``); nmap's scripts too.
    LanguageSpec("lua", (".lua", ".nse"), "tree_sitter_lua", interpreters=("lua", "luajit")),
    # Scala: an anonymous class's members (``new Runnable { def run() … }``) and what a block
    # defines (``val x = { def helper … }``) are local, as a Java anonymous class's are; a
    # companion object's method beside its class's of a name is ``Shape.object.area``.
    LanguageSpec("scala", (".scala", ".sc"), "tree_sitter_scala", overloads=True, singletons="object",
                 local_bodies=LOCAL_BODIES | {"instance_expression", "block", "lambda_expression"},
                 interpreters=("scala", "scala-cli", "amm")),
    # Perl: subs and methods named by their packages (``Foo::Bar::new``), whatever braces a
    # package statement stands in (``{ package Inner; sub x … }``); a sub's named subs are
    # its text; a sub's doc, where it has none of its own, its module's POD section of its name.
    LanguageSpec("perl", (".pl", ".pm", ".t", ".perl"), "tree_sitter_perl", local_bodies=frozenset(), packages=True,
                 rewrite="perl", interpreters=("perl",), foreign=rb"^  \$ \S",
                 sniff=rb"^(?:use|no|require)[ \t]+[\w:]+[^\n]*;|^(?:sub|package)[ \t]+[\w:]+|^(?:my|our)[ \t]+[$@%(]"),
    LanguageSpec("ruby", (".rb", ".rake"), "tree_sitter_ruby", reopens=True, singletons="self",
                 doc_markup="rdoc", interpreters=("ruby", "jruby", "truffleruby")),
    # PHP with the HTML around it. Its braces are a ``compound_statement`` around a function's
    # body and a namespace's alike, and around an ``if`` at the top level, where a
    # function or class is as global as any (``if (!function_exists('app')) { function
    # app() … }``: Laravel's helpers, Symfony's polyfills): only an anonymous class's or
    # a closure's definitions are local (a function's own are, as its members).
    LanguageSpec(
        "php", (".php",), "tree_sitter_php", "language_php",
        local_bodies=frozenset({"object_creation_expression", "anonymous_function", "arrow_function"}),
        interpreters=("php",),
    ),
    # A header (``.h``) is C unless C++'s grammar reads it better and finds a class, a
    # namespace or a template in it. Of abseil's 291 headers C's grammar reads 14 without
    # an error, C++'s 253 better; of redis' 61, C's 57, C++'s one better (a macro's).
    # A header holding ``@interface``, ``@protocol`` or ``@class`` is Objective-C's where its
    # grammar reads it as well as C's or C++'s and finds one.
    LanguageSpec("c", (".c", ".h"), "tree_sitter_c", fallback="cpp", shared_extensions=(".h",), macros=True,
                 shared_with=("objc",), rewrite="old_style"),
    # Objective-C: its C is C's (c.scm); a class's ``+`` methods beside its instances' of a
    # name are ``Shape.class.new``. Objective-C++ (``.mm``) is read by Objective-C's grammar,
    # or by C++'s where that reads it with fewer errors: React Native 0.81's 255 ``.mm`` files
    # read so give 3,349 symbols, by C++'s alone 550.
    LanguageSpec("objc", (".m", ".mm"), "tree_sitter_objc", shared_queries=("c.scm",), macros=True, fallback="cpp",
                 singletons="class", rewrite="objcpp",
                 declarations=frozenset({"class_interface", "method_declaration"}), marks=OBJC_MARKS,
                 file_scoped=frozenset({"declaration", "function_definition", "struct_specifier", "union_specifier",
                                        "enum_specifier", "type_definition"}),
                 sniff=rb"^[ \t]*@(?:interface|protocol|class|end)\b"),
    LanguageSpec("cpp", (".cc", ".cpp", ".cxx", ".c++", ".hh", ".hpp", ".hxx", ".h++", ".ipp", ".tpp", ".inl"),
                 "tree_sitter_cpp", shared_queries=("c.scm",), overloads=True, marks=CPP_MARKS, macros=True),
    # Single-file components: their ``<script>`` blocks' code, read as JavaScript or TypeScript.
    LanguageSpec("vue", (".vue",), extractor="component"),
    LanguageSpec("svelte", (".svelte",), extractor="component"),
    LanguageSpec("astro", (".astro",), extractor="component"),
)
# GitHub Linguist's names and aliases of the languages recalld reads (its ``languages.yml``,
# lower case, spaces as hyphens), as a repository's ``.gitattributes`` may name them; not
# ``zsh``, Shell's alias, whose syntax Bash's grammar misreads.
LINGUIST_NAMES = {
    alias: name
    for name, aliases in {
        "python": ("python", "python3", "rusthon"), "javascript": ("javascript", "js", "node"),
        "typescript": ("typescript", "ts"), "tsx": ("tsx",), "go": ("go", "golang"), "rust": ("rust", "rs"),
        "java": ("java",), "kotlin": ("kotlin",), "scala": ("scala",), "swift": ("swift",), "c": ("c",),
        "cpp": ("c++", "cpp"), "csharp": ("c#", "csharp", "cake", "cakescript"),
        "objc": ("objective-c", "obj-c", "objc", "objectivec", "objective-c++", "obj-c++", "objc++", "objectivec++"),
        "ruby": ("ruby", "jruby", "macruby", "rake", "rb", "rbx"), "php": ("php", "inc"), "lua": ("lua",),
        "perl": ("perl", "cperl"), "bash": ("shell", "sh", "shell-script", "bash", "envrc"),
        "vue": ("vue",), "svelte": ("svelte",), "astro": ("astro",),
    }.items()
    for alias in aliases
}  # fmt: skip
DEFAULT_DECISION_GLOBS = (
    "**/docs/adr/**/*.md",
    "**/docs/adr/**/*.rst",
    "**/doc/adr/**/*.md",
    "**/doc/adr/**/*.rst",
    "**/docs/decisions/**/*.md",
    "**/docs/decisions/**/*.rst",
    "**/doc/decisions/**/*.md",
    "**/doc/decisions/**/*.rst",
    "adr/**/*.md",
    "adr/**/*.rst",
    "*ADR*.md",
    "*adr-*.md",
)
DEFAULT_ARCHITECTURE_GLOBS = (
    "ARCHITECTURE.md",
    "ARCHITECTURE.rst",
    "DESIGN.md",
    "**/docs/architecture*.md",
    "**/doc/architecture*.md",
    "**/docs/architecture*.rst",
)
DOCUMENT_SPECS = (
    LanguageSpec("adr", (), extractor="markdown", globs=DEFAULT_DECISION_GLOBS),
    LanguageSpec("architecture", (), extractor="markdown", globs=DEFAULT_ARCHITECTURE_GLOBS),
    LanguageSpec("tooling", (), extractor="tooling", globs=TOOLING_GLOBS),
)
for _spec in (*DOCUMENT_SPECS, *BUILTIN_LANGUAGES):
    register_language(_spec)
