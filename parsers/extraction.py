"""The extractor's version: what a parse yields for the same bytes, and the history of
what each version changed."""

from __future__ import annotations

# What a parse yields for the same bytes (content hashes, names, kinds) changes with this
# number; a branch indexed under an earlier one is compared whole on its next sync, so
# no memory keeps what an older extractor made of its file. 2: a doc comment above a
# definition, and a derived entry's own fields, count in the content hash (version 1
# left a reworded doc comment's docstring and a changed test command's evidence stale).
# 3: Java and TypeScript overloads are named by their parameters' types, not by their
# order; methods of Java anonymous classes and enum constants' bodies are no members of
# the type around them; Java annotation elements are methods. 4: CRLF line endings read
# as LF (a line-ending flip re-embedded every symbol of the files it touched: pip 10's
# CRLF sdists, 4,718 texts, against 2 for the same move with LF). 5: JavaScript and
# TypeScript definitions by assignment (``module.exports = class``, ``exports.f =``,
# ``Foo.prototype.m =``) and the functions of an object literal bound to a name or
# exported; a file's licence notice is no module docstring (the comment after it may be);
# tool directives (``istanbul ignore``, ``eslint-disable``, ``//go:build``) are no doc text,
# nor is a JSDoc ``@typedef`` block above a definition's own doc. 6: a JavaScript or
# TypeScript module's own export that is a class or function (``module.exports = function
# (results) {…}``, ``export default class {…}``), ``default`` when it has no name, and a
# class assigned to an exported name (``exports.Parser = class {…}``). 7: a definition whose
# parse holds a syntax error hashes the tree made of it too (the same text beside other
# code can recover differently: a signature of ruff's range-formatting fixtures). 8: a
# file of long lines that are mostly string literals is read, no longer skipped as
# minified (the JDK's resource bundles: ``files.unreadable``); a header block in the GPL's
# words or dedicating the file to the public domain is a licence notice, no module
# docstring (98 files of the JDK's java.base). 9: a Python file that is not UTF-8 and
# declares its encoding (PEP 263) is read in it, no longer with U+FFFD for each byte
# that is not UTF-8 (parsers/encoding.py). 10: JavaScript and TypeScript methods given to a
# prototype in one object (``Object.assign(Foo.prototype, {…})``, ``Foo.prototype = {…}``)
# or to a constructor (``Object.assign(Foo, {…})``), and those a constructor gives ``this``
# in its own body (``this.render = function``) are ``Foo``'s methods; a function whose
# prototype or ``this`` is given methods is a class: three.js r100's ``Vector3.js`` had 2
# symbols, now 69, and its rewrite into ES2015 classes (r117–r130) modifies them in place.
# 11: the functions a JavaScript or TypeScript factory publishes in the object it returns
# (``function WebGLState(gl) { function enable(id) {…} … return { enable }; }``) are its
# methods: three.js r170's ``WebGLState.js`` had 2 symbols, now 32. A JavaScript file that
# its grammar reads with syntax errors is read by TSX's too, the reading with fewer errors
# kept (``LanguageSpec.fallback``): Flow-typed code, react-native 0.76's ``Libraries/``
# 6,531 symbols, not 4,716. 12: a JavaScript or TypeScript name of a capital bound to a
# call that wraps a function (React's ``const Button = forwardRef((props, ref) => {…})``,
# ``memo(…)``) is a function: react-native's ``View`` and ``Text`` were not symbols.
# 13: so is a lower-case name bound to a call that makes a function of a block of code
# (``export const fetchUser = createAsyncThunk(…, async (id) => {…})``, three.js TSL's
# ``const getRoughness = Fn(…)``, vue's ``const camelize = cached((str) => {…})``), and
# a module's export a call makes of a function (``export default memo(function Card…)``),
# and a class's field a call makes of a block of code (``onScroll = throttle(() => {…})``).
# A function whose prototype the file uses at all (``Foo.prototype = Object.create(Base.
# prototype)``) is a class: three.js r110's ``TorusBufferGeometry`` was a function. A
# function called at once and bound to a name publishes its returned object's functions
# under that name (``var Cache = (function () {…; return { get: get }; })()``: ``Cache.get``).
# The functions written in a factory's returned object are its methods too (an eslint rule's
# ``create(context) { return { Program(node) {…} }; }``: ``create.Program``).
# 14: a signature is read without its comments, and as if written on one line (``def f(\n
# a,\n)``: ``def f(a)``; guava 31.1: 6,707 of 63,147 read otherwise, as ``@GwtIncompatible
# // NullPointerTester public void testNulls()``); the memories of code that did not change
# take the new reading (``Relocation``). Each declarator of a JavaScript or TypeScript
# declaration of several is its own definition (``var a = 1, f = function () {…}, g =
# function () {…}``: ``g`` was lost, and the methods of ``D`` in ``const C = class {}, D =
# class {…}`` were ``C``'s): django 5.1's vendored jQuery gains 32 symbols. Overloads whose
# parameters are the same as written are named by their type variables' bounds
# (commons-lang 3's ``Validate.notEmpty(Collection, String, Object...)``, not ``#2``).
# A Rust impl's associated types are its type's (clap 4.0's ``arg_matches.rs``: twelve
# ``type Item``, read as the file's ``Item`` … ``Item#12``, are ``Values.Item``, …), and a
# method given to a reference is its type's without the lifetime (``'s FlatSet.into_iter``:
# ``FlatSet.into_iter``). A line of one mark repeated that frames a doc comment
# (``//////////``) is no part of the doc. A Go type's signature starts with ``type``
# (``type Point struct``, not ``Point struct``), as a function's does with ``func``.
# 15: what a definition without a body says is its signature whole, not its text up to
# its first ``{`` (zod 4's TypeScript: 279 of 4,205 signatures read otherwise, as ``type
# MutationScope`` for ``type MutationScope = { id: string }`` and ``function _function<
# const In extends …>(params:`` for an overload's declaration); a signature longer than
# ``MAX_SIGNATURE`` keeps the end of its parameters (sqlalchemy 2.0: 119 of 12,606). A
# union written one member a line reads without its leading ``|`` (``type Id = string |
# number``). Marks around a section's title frame no doc (zod's ``//////////   ZodNumber
# //////////`` was the docstring of the 87 symbols under such banners).
# A Rust method given to a trait object is its trait's (serde's ``Expected + 'a.fmt``:
# ``Expected.fmt``), one given to a slice the slice's (``[u8].first_byte``, not a function).
# Python's typings of a function (``@typing.overload``) are named by as many of their
# parameters' types as tell them apart (``inspect(Any, …)``), the implementation by its
# name: sqlalchemy 2.0's ``inspect`` was ``inspect#4`` and its first typing ``inspect``
# (727 of its 12,606 symbols are named otherwise).
# 16: Python's ``type`` statement (PEP 695, Python 3.12) is a definition of kind ``type``,
# as TypeScript's and Go's type aliases are; its doc is the string after it. A line
# comment's leading ``*`` is its text, only a block comment's is a margin (clap 4.0's
# ``/// **NOTE:**`` read ``*NOTE:**``, a ``//!`` list lost its bullets: 94 of its docs).
# 17: code whose opening comments say a generator wrote it is skipped as "generated"
# (``ingest.files.says_generated``; etcd 3.4's gRPC gateways, stringer's and goyacc's
# output), so the sync after an upgrade lets go of what an earlier release kept of it.
# A Rust trait impl's members are named as Rust's ``<Arg as Display>::fmt`` names them:
# ``<Arg as Display>.fmt``, ``<Arg as PartialEq<&str>>.eq``, ``<Values as Iterator>.Item``
# (they were ``Arg.fmt``, ``Arg.fmt#2`` by their order: 123 of clap 4.0's 1,721 symbols).
# What a Java enum constant's body defines is the constant's (``Strategy.FAST.put``; left
# out before: guava 31.1 implements 102 methods so). The default excludes take in what
# linguist counts as vendored besides ``vendor/`` (pip's and setuptools' ``_vendor/``).
# 18: what a JavaScript or TypeScript test's callback declares (``test("…", () => { type
# inp = … })``, ``describe``, ``it.each(…)``, ``beforeEach``) is the test's own, as what a
# function's body declares: zod 4's tests gave 813 such names as the file's (``inp#5``).
# Tests are named by their titles (a suite a class, a test a function). What jQuery
# extends itself with is its (``jQuery.ajax``, ``jQuery.fn.show``, ``$.fn.tooltip``), and
# what an ``extend`` of a class makes of one object a class (Backbone's ``View.render``);
# what an object's function declares, or a callback gives its parameter, is no name of
# the file's (ajax's ``done``, zod's ``inst.min#4``). A TypeScript function's overloads are
# named by their types and its one implementation by its plain name (``noop``, not
# ``noop()#3``), as Python's typings are. A Rust trait implemented for a reference names
# it (``<&FlatSet as IntoIterator>.into_iter``, which was ``<FlatSet as …>.into_iter#2``).
# A debt note a comment opens with is no doc (guava's ``// TODO(kevinb): …``). Vue's,
# Svelte's and Astro's components are read (parsers/components.py), and a Vue options object's
# ``methods``, ``computed`` and ``watch`` functions (in ``.js`` too).
# 19: C and C++ are read (``.c``, ``.h``, ``.cc``, ``.cpp``, …; a header is C++'s where
# C++'s grammar reads it better and finds a class, a namespace or a template in it), with
# the macros their grammars misread blanked (parsers/macros.py). A namespace opened twice
# in a file is one (Rust's ``mod imp`` under two ``#[cfg]``\s: its members were
# ``imp#2.f``, now ``imp.f#2``). ``//!`` and ``/*!`` document what follows them but in
# Rust. C# is read (``.cs``): its namespaces are no part of a name, as Java's packages
# are not; an interface member implemented explicitly is named by its interface
# (``IEnumerable.GetEnumerator``), a doc comment's XML read as text. Ruby is read: a
# class or module opened again names its members under its own name; RSpec's titles.
# PHP is read, its namespaces no part of a name.
# 20: a definition nested more than 256 syntax levels deep is read as part of what holds
# it (``parsers.definitions.MAX_DEPTH``; real code's lie within 60). 21: a file that is not
# UTF-8 (nor in an encoding it declares) is parsed with each byte that does not decode as
# U+FFFD, no longer as it was (``parsers.encoding.as_utf8``): a name is no longer cut at
# such a byte, and a query's predicate on a node holding one no longer raises. Broken code
# no longer gives two definitions of one kind and qualname (``extract._place_declarations``),
# nor one of no name (``int a::::(int)``). 22: what PHP defines in braces at the top level
# (a namespace's ``namespace A { … }``, an ``if (!function_exists(…)) { … }``) is read,
# as global as the rest: it was taken for a function's locals. A C++ class with an export
# macro before its name (``class V8_EXPORT Message {``) is read, members and all (it was a
# function); a conversion operator (``operator bool() const``) is a method; ``f(void)``
# declared is the ``f()`` defined. The items a Rust macro's call wraps (``cfg_rt! {…}``)
# are read (``parsers.item_macros``). Ruby's ``Point = Struct.new(…) do … end`` (and
# ``Class.new``, ``Data.define``, ``Module.new``) is a class named by its constant, what its
# block defines its members (they were the class around it's, numbered ``Outer.to_s#2``).
# C#'s ``record struct`` is a struct. A C macro whose body, on the line its ``#define``
# continues onto, is another macro's call is read whole (it ran on into the next one, which
# was lost); a signature leaves a line's continuation (``\``) out. An editor's file
# variables (``-*- coding: utf-8 -*-``) are no doc; a PHP file's doc is the comment after
# ``<?php``; ``macro_rules! m(…)`` and Ruby's ``class Error < StandardError; end`` are signed
# without their rules and ``end``. A section's banner right above a doc (a title between two
# rules alike, LLVM's ``//===---===//``) is no part of it.
# 23: a C or C++ macro's call alone may hold strings and a slash (``PYBIND11_DEPRECATED("Use
# …")``, ``PYBIND11_INPLACE_OP(operator/=)``), run over a few lines, or follow a template's
# head, and is blanked as the others; the doc above it is the declaration's (pybind11
# 2.13's class members read as the file's functions 162 → 22). So are the attribute macros of
# system headers, named as the implementation's (glibc's ``__THROW``, ``__wur``, ``__nonnull
# ((1))``, ``__BEGIN_DECLS``), which hid the prototypes they follow (stdlib.h: 38 → 170).
# 24: Ruby's ``test "…" do`` (Rails') and ``should "…" do`` (shoulda's) are tests named
# by their titles, as RSpec's examples are (Rails 7.2's 6,403 made no memory); a class's own
# method beside an instance method of its name is ``Base.self.controller_path`` (it was
# numbered by order, ``#2``). A token's prefix inside a name is no token cut short
# (``def test_npm_tag…``): re-read, a memory whose field the old rule redacted is rewritten.
# A property's setter is ``value=`` beside its getter's ``value`` (JavaScript's and
# TypeScript's ``set value(v)``, Python's ``@value.setter``), as Ruby names one: it was
# ``value#2`` by order (TypeScript's ``value(number)``). So was JavaScript's and
# TypeScript's ``static formatDate()`` beside ``formatDate()``: ``DateFormatter.static.formatDate``.
# PHP's Pest tests (``describe``, ``it``, ``test`` with a closure) are named by their titles.
# Ruby's ``def Group.generate!`` is ``Group``'s, looked up from the inside out (Redmine's
# helpers: ``ObjectHelpers.Group.generate!``, not ``ObjectHelpers.generate!#3``).
# 25: C's attribute macros after a parameter's name (git's ``const char *var UNUSED``) and
# a file-level ``static MACRO(…)`` line (git's ``static GIT_PATH_FUNC(…)``, which hid the
# struct after it) are read around; a name ending a ternary's line (``? A :``, then ``B;``)
# is no macro's call; nor is ``NORETURN`` beside a type's keyword a type. A header whose
# C++ reading holds what only C++ writes because the grammar supposed a missing token (a
# ``::``) is C (git's ``parse-options.h``, jemalloc's and CPython's threading headers).
# A ``/*`` inside a ``#define``'s string opens no comment (git's ``"refs/tags/*:refs/tags/*"``
# hid the doc of the struct below it), and a struct declared with its variable (``static
# struct used_atom {…} *used_atom;``) has the comment above the declaration for its doc, as
# has a definition after a ``#define`` whose comment ends its line in blanks (redis's ``entryIsKey``).
# A C++ specialisation's out-of-line member is its specialisation's
# (``binary_format<double>.max_digits``: it was ``max_digits()#2`` beside ``<float>``'s).
# 26: C's functions a macro defines (the kernel's ``SYSCALL_DEFINE3(setpriority, …)``, PHP's
# ``PHP_FUNCTION(strlen)``) are found, named by the macro and its name
# (``SYSCALL_DEFINE3(setpriority)``), as are a test's (``TEST(Suite, Name)``, googletest's
# ``MATCHER_P(HasArea, area, "…")``: ``MATCHER_P(HasArea)``); attributes written as reserved
# names (``char __user *buf``, ``typedef unsigned int __bitwise gfp_t``, ``} __aligned(8);``,
# ``static inline __printf(2, 3)``) name nothing and hide nothing, nor do a loop's macro after
# a ``do`` block (``} while_each_thread(g, t);``) and a type given to a macro
# (``container_of(p, struct cred, rcu)``).
# 27: a C# file its grammar reads with syntax errors is read again with its pointer
# indirections of a bracket given to the grammar as it reads them (``*(int*)src``), its
# directive lines blanked (``#pragma warning suppress 56500``) and the ``#if`` groups its
# errors fall in reduced to one branch (``public Decimal(int value)`` then ``#if __MonoCS__``
# ``: this()`` ``#endif``, which cost Mono's ``Decimal.cs`` all but 3 of its 185 symbols).
# 28: Kotlin (``.kt``, ``.kts``) and Swift (``.swift``) are read: files a sync skipped as of
# no language before; and a header an IDE's template wrote (Xcode's ``Created by … on …``)
# is no file's docstring.
# 29: Objective-C (``.m``, ``.mm``, and a ``.h`` holding ``@interface``, ``@protocol`` or
# ``@class`` that its grammar reads as well as C's or C++'s) is read: the headers were C's
# or C++'s, read with an error at each class; and a method directly under the node of the
# type that declares it is the type's member, not a second capture of it. Kotlin's
# ``annotation class Required`` under annotations, which its grammar read as an infix call
# with no error, is a class.
# 30: shell scripts (``.sh``, ``.bash``), Lua (``.lua``) and Scala (``.scala``, ``.sc``; its
# objects of a kind of their own, ``object``) are read, files a sync skipped as of no
# language before (a script Bash's grammar reads with errors read again as it reads it:
# ``parsers/shell_gaps.py``); a script's interpreter line (``#!/usr/bin/env ruby``),
# ShellCheck's directives and an editor's modeline are no part of a doc; a comment a file
# opens with right above what is no definition (an import, an include, a statement) is
# the file's doc (Git's ``hashmap.c``), where it was nobody's.
# 31: Perl (``.pl``, ``.pm``, ``.t``, ``.perl``) is read, its subs named by their packages
# (``Git::command``); a file whose name has no extension is read in the language its
# opening lines name (``bin/deploy`` of ``#!/usr/bin/env bash``, bash-completion's ``completions/tar`` of
# ``-*- shell-script -*-``, libstdc++'s ``vector`` of ``-*- C++ -*-``): files a sync
# skipped as of no language before (``parsers.script_heads``); a shell script's extended
# globs, variable offsets and operators a variable holds are read again as its grammar
# reads them; Autoconf's ``configure`` is generated.
# 32: a Perl file its grammar reads with syntax errors is read again with its
# ``$``-delimited patterns, blank prototypes, ``@#`` in a pattern and shifts it took for a
# here-document as its grammar reads them (``parsers/perl_gaps.py``: Linux's
# ``get_maintainer.pl`` lost 59 subs after ``m$…$g``, YAML::Tiny 26 after ``[~!@#%…]``).
# Lua's functions in a table within a table given to a name (nmap's ``LCP = { ConfigOption
# = { new = function … } }``: ``LCP.ConfigOption.new``) and in the table a file returns are
# found, and nmap's scripts (``.nse``) are Lua. A Perl sub without a doc of its own takes
# its module's POD section of its name (``=head2 build_tx`` after ``__END__``).
# 33: a Git LFS pointer is skipped (``lfs_pointer``), where it was read as code (a module
# of syntax errors), and a file that opens with a UTF-16 byte order mark is read as UTF-16,
# where its NUL bytes had it skipped as binary; a file is read in the language its
# ``linguist-language`` attribute names (``*.h linguist-language=C++``), and skipped where
# that is one recalld does not read (``*.pl linguist-language=Prolog``); C's, C++'s and
# Objective-C's template placeholders (NumPy's ``@TYPE@_@kind@_indexed``) are names. A store an
# earlier version left is read again file by file, where it kept each as it was until
# the file changed.
# 34: a path's attributes are worked out as git works them out, from the commit's own
# ``.gitattributes`` files (``ingest/gitattributes.py``), where libgit2 read the index's
# first (a checkout elsewhere than the tracked branch decided for it) and read some lines
# otherwise than git (``-name=value``, quoted patterns, ``**`` after a literal start, lines
# with a bad name or over 2,048 bytes, macros). A store an earlier version left is read
# again file by file, so files read under another branch's attributes are read anew.
# 35: a definition's text (its first line, source and content hash) holds the decorators
# and attributes written before it beside its node, as Python's decorated definition held
# its own (TypeScript's and JavaScript's ``@Component(…) export class``, a TypeScript
# class member's ``@HostListener(…)``, Rust's ``#[derive(…)]``, ``#[test]``,
# ``#[cfg(…)]``): an edit of one alone changed no memory. So does a comment that ends its
# last line (``return x  # note``), which was cut off; a debt note in either is the
# definition's. The doc comment above a decorated export is its class's (it was the
# file's, and the class had none), the one above a Rust item's attributes no longer the
# file's too, and one on a file's first line after a UTF-8 byte order mark is read (the
# mark was taken for code before a trailing comment).
# A property of a function's name (Kotlin's, Swift's) no longer has the function's
# overloads numbered by order (``size#2``): it is ``size`` beside their ``size(Int)``; a
# Java record's compact constructor is named by the record's components (``Point(int,
# int)``), a class's setter as its getter (``Btn.static.count=``, Ruby's ``Base.self.x=``:
# it was ``Btn.count=``), Python's deleter ``del x`` (it was ``x#2``), and the members of
# TypeScript's merged interfaces and C#'s partial classes under their one name
# (``Shape.perimeter``: it was ``Shape#2.perimeter``).
# A Python docstring is what its ``__doc__`` holds: its escapes read (``\t``, ``\u00e9``;
# a raw string's as written), strings side by side joined (``"""First part """ "second
# part"``: it was empty), an f-string, a bytes literal or a tuple none. A signature holds
# none of a body its parse could not read (``def f(a, b):\n    return (a +`` took the
# ``return (a +`` in, C#'s ``int F(int a) => (a +`` its ``=> (a +``).
# 36: a JavaScript or TypeScript function written in parentheses and bound to a name is that
# name's, as it is without them (``export const isArrayLike = (<T>(x: any): x is
# ArrayLike<T> => …)``, ``var wrap = (function (a) {…})``, ``exports.isArrayLike =
# (function (x) {…})``), so is a TypeScript one whose type is checked or asserted there
# (``export const load = (async (…) => {…}) satisfies PageServerLoad``, ``as Handler``),
# and the functions of an object literal so checked (``export default { async fetch(…) {…} }
# satisfies ExportedHandler<Env>``): they were no symbol.
# The functions of one options object a call makes the module's export of are the export's,
# as those of ``export default {…}`` are: Vue's ``export default defineComponent({ setup() {…},
# methods: { save() {…} } })`` (``setup``, ``save``) had none.
# 37: the one function an immediately called function returns by name is the name the
# call is bound to (rxjs's ``export const ajax = (() => { const create = (…) => {…}; …
# return create; })()`` is ``ajax``: it was ``create``), but for a constructor, whose
# prototype's methods keep its name; TypeScript's ``export = function parse(…)``, ``export =
# class Cursor`` and ``export = {…}`` are read as ``module.exports = …`` is (no symbol before).
# 38: a doc block (``/** … */``) parted from its definition by blank lines is its doc (Express's
# and Commander's every method's was lost, or the file's); a comment on an attribute's line
# (``#[inline] // fast path``) hides no doc; a section's title (``// TYPES``, a title over a
# rule) is no doc; a function a chain of assignments names is the first name's (``req.get =
# req.header = function header(…)``, ``var proto = module.exports = function (…)``: none before);
# a signature too long elides its type parameters and its return type's arguments before any
# parameter (``useQuery<…>(options: …, queryClient?: QueryClient)``, where it kept ``(…)``);
# one cut at the body of a function a call holds is closed as written (``test('adds', async
# () => {…})``, ``memo(function Row(props) {…})``), where it ended on an open bracket.
# 39: a Rust trait's associated types are its members of kind ``type`` (``trait Iterator { type
# Item: Clone; }``: ``Iterator.Item``, signed with its bounds), as is an ``extern`` block's
# ``type Opaque;``: only one with a default (``type Error = io::Error;``) was a symbol.
# 40: a doc comment a file opens with on the line above a value it declares (``/** Maximum
# retries. */`` over ``export const MAX = 5``, ``///`` over Rust's ``const``) is that value's,
# not the file's doc: the file's memory read "Maximum retries." (``parsers/value_docs.py``).
# 41: a comment after a Python decorator leaves it what it names (``@overload  # int case``:
# pydantic's ``Field`` implementation was ``Field#6``, a setter ``x#2``); what stands above a
# ``/** … */`` doc block is no part of its doc (a licence, javac's ``// where``, a fold's mark);
# Go's ``//go:cgo_unsafe_args``, staticcheck's ``//lint:ignore`` and ``//#region`` are no doc.
# 42: members of one name in Rust impls of one type for other type arguments are named by them
# (``<Point<f32>>.norm``, ``<Cursor<Vec<u8>> as AsyncWrite>.poll_write``), not by order (``#2``);
# a function a call makes in parentheses (three.js's ``= /*@__PURE__*/ ( Fn(…) )``) is the name's,
# where its body's locals were read as the file's functions.
# 43: a doc an attribute parts (clap's ``/// …`` ``#[cfg_attr(…, doc = "```")]`` ``/// …``) is one
# doc, its upper part no longer the file's; TypeScript's generic call signature after a member
# with no semicolon is read again (``typescript_gaps.py``): mobx's ``action.ts`` lost the rest;
# a prototype's chain of names (``E.prototype.off = E.prototype.removeListener = function``) is ``E.off``;
# the functions of an object within a named object are named by both (``api.users.list``); the
# methods of the object type a TypeScript type alias is are its members (``type Api = { then(): void }``:
# ``Api.then``); a parameter's type cut at 60 characters has the brackets it leaves open closed;
# a function a Go package-level variable holds is a function (``var testHookDialChannel = func() {}``).
# 44: Python functions of one name that register implementations of a function dispatched on
# types (``@process.register`` above each ``def _(arg: int)``, plum's ``@dispatch``) are named by
# those types (``_(int)``), not numbered (``_#2``): 516 names in this venv's site-packages (sympy's).
# A Rust file's doc is its ``//!`` lines wherever they stand among the comments and ``#![…]``
# attributes it opens with, and all of them (clap's split by ``#![doc = include_str!(…)]``):
# scopeguard's after ``#![doc(html_root_url = …)]`` was none, tokio's ``// Currently, rust
# warns…`` above ``#![allow(unused_unsafe)]`` and serde_json's ``// Adapted from …`` were it;
# a ``///`` doc an attribute parts is its item's, not the file's (mio's ``Token``): 96 files
# of 4,145 in Debian's 145 crates (56 had none, 23 a plain comment's, 15 half of it).
# A Rust item's doc is its ``///`` lines however many attributes or plain comments part them
# (mio's ``Token`` doc parted by two ``#[cfg_attr(…, doc = "```")]`` was its tail; rustix's
# ``// libstd/os/raw/mod.rs assures me…`` among ``BorrowedFd``'s attributes was its doc) and
# without the plain comments above them (``// TODO: multiples of 4…`` over ppv-lite86's
# ``Words4`` doc made it none): 183 docs in those crates (51 whole, 3 had none, 13 a comment's).
# Go's documented ``var rowsCloseHook = func() …`` out of a ``var (…)`` group has its doc (13
# of 13 in Go 1.19's source had none); a directive is a line comment with no space after ``//``,
# as go/ast reads one: ``// go:notinheap types (which pollDesc is) must be stored`` is doc text,
# cgo's ``//export GoNop`` and gccgo's ``//extern gettimeofday`` are none (26 docs held one, 21 no more).
# A Rust impl for a tuple or a parenthesised type is named by it whole, lifetimes left out (nom's
# ``<(&'a as InputLength>.input_len``: ``<(&[u8], usize) as InputLength>.input_len``): 17 names in
# those crates. A Go interface's methods are its own only where it is a named type: runtime's
# ``IfaceKey.F`` of ``struct { i interface { F() } }`` and 8 such in Go's testdata are no symbols.
# A Rust block's items are local wherever the block is, a ``const``'s as a function body's:
# crossbeam-epoch's ``const NO_OP: Self = { fn no_op_call(…) {} … }`` has no ``no_op_call``, nor
# pin-project-lite's expansions' ``const _: () = { struct Projection … }`` their 83 items.
# A doc comment's lines keep their indentation past the space after the comment's punctuation,
# less what all share (Go's tab-indented examples, clap's nested lists): every line was stripped.
# The comment above a Go group of several (``type ( … )``) documents none of them, as go/doc reads
# it (it was the first's: runtime's ``uint16InterfacePtr``; 5 docs in Go 1.19's source). In a doc's
# ``/* … */`` block a line's ``#`` or ``//`` is its text (Go's ``# Introduction``, a Rust ``# Safety``,
# C's ``#include``), its lines of no margin keep their indentation, and a ``///`` line's ``*/`` is text.
# 45: a file read in part (syntax errors, undecodable bytes, a part left out) says so in its
# module's ``read_partly`` (``ParseResult.read_partly``), which its content hash covers: an outline
# of it notes that symbols may be missing; the file read whole again is a new version of its module.
# TypeScript, against the TypeScript 5 compiler's parse of 1,464 source files (effect, rxjs, zod,
# TanStack Query, trpc, redux-toolkit, mobx): its second reading leaves a generic arrow function an
# argument or a value (effect's ``dual(2, <A>(self) => …)``), parts a generic call signature whose
# ``<`` stands alone on its line, blanks a type parameter's variance (``<out A, in out R>``) and an
# escaped backtick in a template literal type: files read with errors 170 → 10, symbols 23,106 →
# 23,552 (effect's Effect.ts kept none below line 2,404 of 28,773); a function expression asserted
# to a type (``= function () {…} as any``) is its name's; an intersected object type's methods are
# its alias's; ``// @effect-diagnostics`` is no doc. Java, against javac's parse of 9,730 JDK files:
# a parameter's ``[]`` after its name is its type's (``read(byte b[])`` was ``read(byte)``: 165
# names); a class in an initializer's or a lambda's block is local; a note after a doc's ``*/``
# hides it not; a ``**/`` close leaves no ``*`` (also 27 docs in /usr/include); a doc block parted
# from its definition by a blank line and a plain comment is its doc; ``/*non-public*/`` under a
# doc is no part of it (125 JDK docs).
# 46: Java, against javac's docs of 9,719 JDK files (88,007 → 88,392 of 88,460 alike): comments
# under a doc block are no part of it (222 docs); a block's opening stars go whole (``/****** Color
# support``); ``\uXXXX`` escapes in a doc read as javac reads them (160); a framed ``/*****`` block
# above notes is a doc; a method named as its class with a constructor's parameters is
# ``EditorContainer(): void`` (was ``EditorContainer()#2``); 18 C headers' docs follow (Doxygen's
# reading). Rust, against rustdoc's JSON of 30 crates (10,098 → 10,115 of 10,257 alike): doc
# attributes (``#[doc = "…"]``, ``#![doc = include_str!(…)]`` as written) are docs (12,319 item
# docs in Debian's 932 crates, web-sys's 12,039); a ``///`` doc is its item's across blank lines;
# an impl in a const's block is its type's (211 symbols: serde's derives, pin-project); a block
# doc's ``*`` is a margin only where every line has it. TypeScript and TSX (1,532 and 439 files
# against the TypeScript 5.9 compiler): files read with errors 10 → 0 and 14 → 0; methods of an
# object type a conditional type gives an alias are its; ``const C = class … as any`` is a class;
# a member named ``in``, a tagged template's type arguments, ``export type *`` and ``let as`` read.
# 47: a Rust impl in a function's body is its type's, as one in a const's block (4 symbols in
# Debian's 932 crates: bincode's, async-process's), unless a block around it declares its type,
# trait or a trait's type argument (also by a macro's call), as rustdoc strips those. TypeScript: an
# object type given as a type argument gives its methods to the alias where the generic is one of the
# same file that gives its parameter's members (``Merge<A, B> = A & B``; a mapped type over its
# keys), and TypeScript's own ``Readonly``, ``Partial``, ``Required``, ``NonNullable`` (none of
# 2,043 .ts files of npm packages changed). An editor's mode line is one of a file's first two
# lines whose ``-*- … -*-`` holds a mode or ``var: value`` pairs: a Javadoc's ``-*-%d-*-`` pattern
# is its doc's (2 JDK docs). Swift files read
# with errors are read again with their ``#if`` groups reduced (expo-modules-core's 852 versions:
# 66 → 16 with errors). A ``linguist-language`` naming a language no kin of the extension's own is
# unheeded (vision-camera's ``*.kt linguist-language=Swift``).
# 48: Ruby: a method a call or a condition wraps is documented by the comments above them, what
# ``class << Const`` defines is the constant's; a doubled ``##`` mark is no doc text (143 Ruby, 41
# Perl docs); PHP_CodeSniffer's and PHPStan's directives are no doc. C/C++: a block comment on a
# ``#define``'s continued line no longer ends it (brotli's decode.h, libuv's tree.h), a capitalised
# declarator before ``__attribute__`` is the name (libffi's ``UINT8``). Components: a writable
# computed and a watcher with options are functions, names two blocks repeat numbered apart, debt
# notes in markup and styles the module's.
# 49: C/C++: a macro wrapping a parameter list (zlib's ``OF((…))``) is no name, a return type that
# is a macro or ends its line is kept (brotli), typedef attributes blanked (zstd), ``_CFFI_…`` macros.
# Ruby: a scoped constant's ``Struct.new`` is a class, ``def self.x`` in ``class << Const`` the
# constant's. Docs: a one-word section title, a slashed title and a star banner apart are no doc;
# Java's last ``/**`` above plain comments is the doc (javac). Vue: props with functions are
# functions; Sass/Less/Stylus ``//`` debt notes. Ruby: RDoc's ``##`` block is a doc across blank
# lines (2,449 definitions gain one), what ``#--`` hides is none of it, hyphenated magic comments no doc.
# A JSDoc ``@typedef``/``@callback`` block set apart is no function's doc, nor the file's.
# 50: C: an old-style (K&R) definition that returns a pointer is read whole (its ``*`` blanked).
EXTRACTION_VERSION = 50
