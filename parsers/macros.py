"""What C's and C++'s macros hide from a grammar that cannot expand them: the source as
the grammar is given it, the same length, byte for byte, with the macro calls that
stand where no code can blanked out, so that every node keeps its offsets and the
symbols read their text from the source as written.

Blanked, on a line that is no preprocessor directive nor a line one continues onto (``#define
F(x) \\`` then ``    OTHER_MACRO(x)``: a macro call alone there is the definition's body):
- a line that is a macro call alone (``ABSL_NAMESPACE_BEGIN``, Qt's ``Q_OBJECT``,
  ``GTEST_DISABLE_MSC_WARNINGS_PUSH_(4251)``, an access specifier's ``JSON_PRIVATE_UNLESS_TESTED:``,
  ``PYBIND11_DEPRECATED("Use …")``, glibc's ``__BEGIN_DECLS``), or a call alone over a few
  lines, after a line that ends a statement, a block or a template's head or is such a
  line itself (not an enumerator after a ``,``), and not before a block;
- attribute macros after a parameter list (``void Lock() ABSL_EXCLUSIVE_LOCK_FUNCTION();``,
  ``void Foo() GTEST_LOCK_EXCLUDED_(mutex_) {``, or on the line after it; there, names
  reserved to the implementation too: glibc's ``) __THROW __nonnull ((1)) __wur;``), which
  split a definition in two, and after a variable's name (``int count_ ABSL_GUARDED_BY(mu_);``);
- export and attribute macros before a declaration (``SQLITE_API int sqlite3_open(…)``,
  ``ABSL_MUST_USE_RESULT inline std::string AsciiStrToLower(…)``) or between its type
  and its name (``int WINAPI_EXPORT main(…)``), but for one that is the return type
  (``prototypes.py``, with a macro that wraps a parameter list, zlib's ``OF((…))``, and an
  attribute after ``typedef``), or between a class's keyword and its name (``class V8_EXPORT
  Message {``): a macro's name has an underscore, so that a type written in capitals
  (``DWORD``, ``TEST(…)``) stays;
- the ``struct`` of a type given to a macro (``container_of(rcu, struct cred, rcu)``);
- attributes written as reserved names (the kernel's ``char __user *buf``: ``reserved.py``).

Rewritten, the same length:
- a macro that defines a function, called at a line's start before the function's block
  (the kernel's ``SYSCALL_DEFINE3(setpriority, int, which, …)``, PHP's ``PHP_FUNCTION(strlen)``,
  googletest's ``TEST(Suite, Name)``), its name split in two: C's grammar read a call and a
  block, and now a type and a function, which ``declarators`` names by the macro and its
  arguments (``SYSCALL_DEFINE3(setpriority)``);
- a loop's macro after a ``do`` block (``} while_each_thread(g, t);``) made ``while``.
- a template's placeholder (NumPy's ``.c.src``: ``void @TYPE@_@kind@(char **args, …)``,
  which a generator fills in for each type) made a name, ``_TYPE___kind_``: the
  function is named as written, ``@TYPE@_@kind@``.

A test macro's titles (doctest's and Catch2's ``TEST_CASE("parses a number")`` before
its block) are given to the grammar as names, so that it reads the test as a function,
named by the title as written (``TEST_CASE("parses a number")``).

Abseil 20220623's 658 C and C++ files: 534 read with syntax errors without this, 222 with
it (what is left is mostly ``#if`` inside an expression or a signature).
"""

from __future__ import annotations

import re

from recalld.parsers import objc_macros, prototypes
from recalld.parsers.c_tokens import ARGUMENTS, BLOCK_COMMENT, MACRO, PLAIN, STRING, blank, blank_group, blank_match
from recalld.parsers.reserved import reserved_attributes

# After a declaration's parameters, a name reserved to the implementation too, as system
# headers write their attributes (glibc's ``__THROW``, ``__wur``, ``__nonnull ((1))``);
# elsewhere such a name is code (libstdc++'s ``__shared_count(_Ptr __p)``, ``namespace
# __gnu_cxx``), but for one in capitals alone on its line (``__BEGIN_DECLS``).
_TRAILING = rb"(?:" + MACRO + rb"|__[A-Za-z][A-Za-z0-9_]*)"
_CALL = rb"(?:" + MACRO + rb"|[A-Z][A-Z0-9_]{2,}|__[A-Z][A-Z0-9_]*)(?:[ \t]*" + ARGUMENTS + rb")?"
# ``:``: an access specifier's; ``static``: a macro that defines something at the file's level
# (git's ``static GIT_PATH_FUNC(git_path_seq_dir, "sequencer")``, the kernel's ``static DEFINE_MUTEX(lock);``)
_DEFINES = rb"(?:static|extern)[ \t]+(?:" + MACRO + rb"|[A-Z][A-Z0-9_]{2,})[ \t]*" + ARGUMENTS  # not ``static DWORD``
_ALONE = re.compile(rb"^[ \t]*((?:" + _DEFINES + rb"|" + _CALL + rb")[ \t]*:?)[ \t]*(;?)[ \t]*(?://[^\n]*)?$")
# Attribute macros before it (xxHash's ``XXH_FORCE_INLINE XXH_TARGET_AVX2 XXH3_ACCUMULATE_TEMPLATE(avx2)``,
# which writes a function), unless a name opens the next line: the last is its return type.
_ATTRIBUTED_ALONE = re.compile(rb"^[ \t]*((?:" + MACRO + rb"[ \t]+)+" + _CALL + rb")[ \t]*(;?)[ \t]*(?://[^\n]*)?$")
# Where Objective-C's class members begin and end: a ``;`` is no member of one, so a
# macro's call alone there goes with its ``;`` (``RCT_EXPORT_VIEW_PROPERTY(color, UIColor);``).
_MEMBERS = re.compile(rb"^[ \t]*@(implementation|interface|protocol|end)\b")
_QUALIFIERS = rb"((?:[ \t]+(?:const|noexcept|override|final|&&?))*)"
_AFTER_PARAMETERS = re.compile(
    rb"\)" + _QUALIFIERS + rb"((?:[ \t]+" + MACRO + rb"(?:[ \t]*" + ARGUMENTS
    + rb")?)+)(?=[ \t]*(?:[{;:=]|$|//|/\*|->|override\b|final\b|const\b|noexcept\b))"
)  # fmt: skip
# Reserved names there, before a body, the declaration's end or the line's: not before an
# ``=`` (``if (__n) __x = 0;`` is code).
_RESERVED_AFTER_PARAMETERS = re.compile(
    rb"\)" + _QUALIFIERS + rb"((?:[ \t]+" + _TRAILING + rb"(?:[ \t]*" + ARGUMENTS + rb")?)+)"
    rb"(?=[ \t]*(?:[{;]|$|//|/\*))"
)
# The same on a line of their own, after the parameters' line (``void Mock::AllowLeak(…)\n
# GTEST_LOCK_EXCLUDED_(internal::g_gmock_mutex) {``).
_CONTINUING = re.compile(
    rb"^[ \t]*((?:" + MACRO + rb"(?:[ \t]*" + ARGUMENTS + rb")?[ \t]*)+)"
    rb"(?=(?:[{;:=]|$|//|/\*|->|override\b|final\b|const\b|noexcept\b))"
)
_RESERVED_CONTINUING = re.compile(
    rb"^[ \t]*((?:" + _TRAILING + rb"(?:[ \t]*" + ARGUMENTS + rb")?[ \t]*)+)(?=(?:[{;]|$|//|/\*))"
)
_ENDS_PARAMETERS = re.compile(rb"\)(?:[ \t]+(?:const|noexcept|override|final|&&?))*[ \t]*$")
# An export or attribute macro between a class's keyword and its name (``class V8_EXPORT
# Message``, Qt's ``class Q_CORE_EXPORT QObject``, ``struct BOOST_SYMBOL_VISIBLE bad_cast :``):
# the grammar took the class for a function's return type, its body for the function's.
# Before a base list, a body or the line's end only: C's ``struct MY_TAG value;`` stays.
_IN_CLASS_HEAD = re.compile(
    rb"\b(?:class|struct|union)[ \t]+((?:" + MACRO + rb"(?:[ \t]*" + ARGUMENTS + rb")?[ \t]+)+)"
    rb"(?=[A-Za-z_]\w*(?:[ \t]*<[^\n]*>)?[ \t]*(?:[:{]|final\b|$|//|/\*))"
)
# An attribute macro after a variable's name (``Mutex mu_; int count_ ABSL_GUARDED_BY(mu_);``), not
# one with a reserved name, which names a function there (cffi's ``PyMODINIT_FUNC _CFFI_PYTHON_STARTUP_FUNC(void);``).
_AFTER_NAME = re.compile(rb"(?<=\w)([ \t]+(?!_)" + MACRO + rb"[ \t]*" + ARGUMENTS + rb")(?=[ \t]*[;=,])")
_TITLED = re.compile(
    rb"\b[A-Z][A-Z0-9_]*\([ \t]*((?:" + STRING + rb"|\w+)(?:[ \t]*,[ \t]*(?:" + STRING + rb"|\w+))*)[ \t]*\)"
    rb"(?=[ \t]*(\{|$))"
)
# A macro's call alone that goes on past its line (``PYBIND11_DEPRECATED(`` then ``"Use …")``):
# its first line, and what may close it on a later one, at most ``_SPAN`` lines on.
_OPENS = re.compile(rb"^[ \t]*(" + MACRO + rb"[ \t]*\()" + PLAIN + rb"(?:\(" + PLAIN + rb"\)" + PLAIN + rb")*$")
_CLOSES = re.compile(rb"^(" + PLAIN + rb"(?:\(" + PLAIN + rb"\)" + PLAIN + rb")*\)[ \t]*;?)[ \t]*(?://[^\n]*)?$")
_SPAN = 6
# A macro that defines a function, called at a line's start before the function's block
# (the kernel's ``SYSCALL_DEFINE3(setpriority, int, which, …)`` then ``{``, PHP's
# ``PHP_FUNCTION(strlen) {``, googletest's ``TEST(Suite, Name) {``), where C's grammar reads
# a call and then a block: one character of its name is blanked (``_split_definer``).
_DEFINER = re.compile(
    rb"^(?:(?:static|inline|extern)[ \t]+)*((?:[A-Z][A-Z0-9_]{2,}[ \t]+)*)([A-Z][A-Z0-9_]{2,})[ \t]*\("
)
# What may follow a definer's arguments on their line: its block's ``{``, or a comment (PHP's
# ``PHP_FUNCTION(strlen) /* {{{ */``) before it opens the next.
_BEFORE_BLOCK = re.compile(rb"[ \t]*(?:" + BLOCK_COMMENT + rb"[ \t]*|//[^\n]*)?")
# A type as a macro's argument (the kernel's ``container_of(rcu, struct cred, rcu)``,
# ``offsetof(struct page, lru)``): its keyword is blanked, the grammar reads a name.
_TYPE_ARGUMENT = re.compile(rb"([(,][ \t]*)(struct|union|enum)(?=[ \t]+[A-Za-z_]\w*[ \t]*[,)])")
# A comment that ends a line, blanks after it (``_directive_comments``).
_TRAILING_COMMENT = re.compile(rb"(" + BLOCK_COMMENT + rb")([ \t]+)$")
_CLOSED_COMMENT = re.compile(BLOCK_COMMENT)
_NOT_NAME = re.compile(rb"[^A-Za-z0-9_]")
# A loop's macro after the block of a ``do`` (the kernel's ``do {…} while_each_thread(g, t);``,
# ``} for_each_vma_range(vmi, vma, end);``), where the grammar wants ``while``: its name is
# made one (``while            (vmi, vma, end);``), or it took the rest of the file for the loop.
_LOOP_END = re.compile(
    rb"^[ \t]*\}[ \t]*((?!while\b)[a-z][a-z0-9_]{4,})(?=[ \t]*(?!\([ \t]*\))" + ARGUMENTS + rb"[ \t]*;[ \t]*$)"
)  # not ``zend_end_try();``
# A line that may hold a macro's call: a name in capitals, or a reserved name (``__``).
_CANDIDATE = re.compile(rb"[A-Z][A-Z0-9_]{2}")
# A line after which a macro's call alone is one: it ends a statement, a block or an access
# specifier's label (``public:``), or is a comment or a directive.
# A template's head too (``template <typename... Args>``, whose declaration an attribute macro
# may open). An Objective-C directive's line (``@implementation RCTSwitchManager``, ``@end``).
_ENDS_STATEMENT = re.compile(
    rb"(?:[;{}>]|\*/|^)[ \t]*(?://[^\n]*)?$|^[ \t]*(?://|#)"
    rb"|^[ \t]*@(?:implementation|interface|protocol|end|optional|required)\b"
)
# A label (``public:``, ``public slots:``, ``case KIND_A:``, ``default:``, ``retry:``), where a
# line that ends in ``:`` may be an operand's too (``return editor ? CLEANUP_ALL :``, then
# ``CLEANUP_SPACE;``: no macro's call).
_LABEL = re.compile(rb"^[ \t]*(?:case\b[^\n]*|(?:[A-Za-z_]\w*[ \t]+)*[A-Za-z_]\w*)[ \t]*(?<!:):[ \t]*(?://[^\n]*)?$")
# An attribute macro after a parameter's name (git's ``const char *var UNUSED,``), where
# ``_PARAMETER_BEFORE`` finds a type and a name before it (not ``sizeof(struct FOO)``).
_AFTER_PARAMETER = re.compile(rb"(?<=[\w\]])[ \t]+([A-Z][A-Z0-9_]{2,})(?=[ \t]*[,)])")
_PARAMETER_BEFORE = re.compile(rb"[\w*&][ \t*&]*?\b([A-Za-z_]\w*)(?:\[[^\]\n]*\])?$")
# A template's placeholder, which a generator replaces before the compiler reads the file:
# NumPy's and SciPy's ``.c.src`` (``@TYPE@_@kind@_indexed``), Autoconf's and CMake's
# ``config.h.in`` (``@VERSION@``). ``@`` is no C or C++ token; Objective-C's keywords
# (``@interface``) are not closed by another.
_PLACEHOLDER = re.compile(rb"@([A-Za-z_][A-Za-z0-9_]*)@")
# Words before a name in capitals that make it the parameter's name (``unsigned int LEN``).
_NO_NAME = frozenset({
    b"struct", b"union", b"enum", b"class", b"typename", b"const", b"volatile", b"unsigned", b"signed", b"long",
    b"short", b"int", b"char", b"float", b"double", b"void", b"bool",
})  # fmt: skip


def readable(data: bytes) -> bytes:
    """``data`` with the macros a grammar misreads blanked, its test titles made names
    (Objective-C's enum and method macros read as what they declare: ``objc_macros.py``),
    a template's placeholders made names."""
    if b"@" in data:
        data = _PLACEHOLDER.sub(lambda m: b"_" + m.group(1) + b"_", data)
    if b"_" not in data and b"(" not in data:
        return data
    data = prototypes.typedef_attributes(prototypes.wrapped_parameters(objc_macros.readable(data)))
    lines = data.split(b"\n")
    previous = b""
    directive = False  # the line goes on a directive's (``#define F(x) \``): never blanked
    members = False  # among an Objective-C class's members
    classes = prototypes.class_names(data)
    for index, line in enumerate(lines):
        if b"@" in line and (opened := _MEMBERS.match(line)):
            members = opened.group(1) != b"end"
        if directive or line.lstrip().startswith(b"#"):
            in_value = directive  # a line the directive goes on onto: its value, past its name and parameters
            directive = line.rstrip().endswith(b"\\")
            previous = b"#"  # a directive, over all its lines, ends what came before it
            if b"/*" in line:
                lines[index] = _directive_comments(line, continues=in_value and directive)
            continue
        if not line.strip():
            continue
        if b"}" in line and (loop := _LOOP_END.match(line)):
            lines[index] = line[: loop.start(1)] + b"while".ljust(loop.end(1) - loop.start(1)) + line[loop.end(1) :]
            previous = line
            continue
        if b"(" in line and (b"struct" in line or b"union" in line or b"enum" in line):
            line = lines[index] = _TYPE_ARGUMENT.sub(lambda m: m.group(1) + b" " * len(m.group(2)), line)
        capitals = _CANDIDATE.search(line) is not None
        if not capitals:  # no macro's name in it (most lines), or a reserved name alone
            if b"__" in line:
                lines[index] = _without_reserved(line, previous)
            previous = line
            continue
        original = line
        following = lines[index + 1].lstrip() if index + 1 < len(lines) else b""
        definer = _DEFINER.match(line) if not line.rstrip().endswith(b";") else None  # not ``EXPORT_SYMBOL(f);``
        if definer and _ends_statement(previous) and _opens_block(lines, index, definer.end()):
            lines[index] = _TITLED.sub(_as_names, _split_definer(line, definer))  # a test's title as a name
            previous = original
            continue
        alone = _ALONE.match(line)
        if alone is None and not prototypes.opens_with_name(following):
            alone = _ATTRIBUTED_ALONE.match(line)
        if alone and _ends_statement(previous) and not following.startswith(b"{"):
            line = original = blank(line, alone.start(1), alone.end(2 if members else 1))  # one may follow another
        elif (
            not alone and _OPENS.match(line) and _ends_statement(previous)
            and (closing := _closing_line(lines, index)) is not None
        ):  # fmt: skip
            last, end = closing
            for inner in range(index + 1, last):
                lines[inner] = b" " * len(lines[inner])
            lines[last] = blank(lines[last], 0, end)
            line = original = blank(line, len(line) - len(line.lstrip()), len(line))
        elif _ENDS_PARAMETERS.search(previous) and (
            continuing := _CONTINUING.match(line) or _RESERVED_CONTINUING.match(line)
        ):
            line = blank(line, continuing.start(1), continuing.end(1))
        else:
            line = _AFTER_PARAMETERS.sub(_without_attributes, line)
            if b"__" in line:
                line = _RESERVED_AFTER_PARAMETERS.sub(_without_attributes, line)
            line = prototypes.declaration_head(line, following if _ends_statement(previous) else b"", classes)
            line = _AFTER_NAME.sub(blank_match, line)
            if b"__" in line:
                line = reserved_attributes(line, _ends_statement(previous))
            line = _AFTER_PARAMETER.sub(lambda m: _unless_no_parameter(m, line), line)
            line = _IN_CLASS_HEAD.sub(blank_group, line)
            line = _TITLED.sub(lambda m: _as_names(m) if m.group(2) or following.startswith(b"{") else m.group(0), line)
        lines[index] = line
        previous = original
    return b"\n".join(lines)


def _without_reserved(line: bytes, previous: bytes) -> bytes:
    """A line with no name in capitals, its attributes written as reserved names blanked:
    after the parameters (``readable``'s ``_RESERVED_…``) and where ``reserved.py`` finds them."""
    if _ENDS_PARAMETERS.search(previous) and (continuing := _RESERVED_CONTINUING.match(line)):
        return blank(line, continuing.start(1), continuing.end(1))
    return reserved_attributes(_RESERVED_AFTER_PARAMETERS.sub(_without_attributes, line), _ends_statement(previous))


def _without_attributes(found: re.Match[bytes]) -> bytes:
    """The closing bracket and qualifiers of an ``_AFTER_PARAMETERS`` match, its macros blanked."""
    return b")" + found.group(1) + b" " * len(found.group(2))


def _ends_statement(line: bytes) -> bool:
    """Whether a macro's call alone may follow ``line`` (``_ENDS_STATEMENT``, ``_LABEL``)."""
    return _ENDS_STATEMENT.search(line) is not None or _LABEL.match(line) is not None


def _directive_comments(line: bytes, *, continues: bool) -> bytes:
    """A directive's line with a string's ``/*``, where the grammar opens a comment (git's
    ``#define TAG_REFSPEC "refs/tags/*:refs/tags/*"``), made ``/ ``; and the blanks after
    a comment that ends it moved before that comment: after them the grammar took the
    comment on the next lines, a doc, for the directive's (redis's ``#define
    ENTRY_PTR_NO_VALUE 4 /* … */ ``, then ``entryIsKey``'s doc). On a line inside its value
    that it goes on from (``\\`` at its end), its comments are blanked: the grammar ended the
    directive at one and read the lines after it as code (libuv's ``uv.h``, brotli's
    ``decode.h``: ``/* Errors caused by invalid input */ \\`` in a list of error codes); one
    on its first line, among its name and parameters, ends nothing."""
    if b'"' in line:
        line = re.sub(STRING, lambda m: m.group(0).replace(b"/*", b"/ "), line)
    if continues:
        return _CLOSED_COMMENT.sub(blank_match, line)
    trailing = _TRAILING_COMMENT.search(line)
    if trailing is not None:
        start, blanks = trailing.start(1), trailing.group(2)
        line = line[:start] + blanks + line[start : trailing.start(2)]
    return line


def _unless_no_parameter(found: re.Match[bytes], line: bytes) -> bytes:
    """An ``_AFTER_PARAMETER`` match blanked where a parameter's type and name stand before it."""
    start = max(line.rfind(b"(", 0, found.start()), line.rfind(b",", 0, found.start())) + 1
    before = _PARAMETER_BEFORE.search(line, start, found.start())
    if before is None or before.group(1) in _NO_NAME:
        return found.group(0)
    return b" " * len(found.group(0))


def calls_alone(lines: list[bytes]) -> bool:
    """Whether ``lines`` (one or more) are macros' calls alone, each on its line or one over
    them all, as ``readable`` blanks them."""
    if not lines:
        return False
    if all(_ALONE.match(line) for line in lines):
        return True
    closing = _closing_line(lines, 0) if len(lines) > 1 else None
    return closing is not None and closing[0] == len(lines) - 1


def _closing_line(lines: list[bytes], index: int) -> tuple[int, int] | None:
    """Where a macro's call alone that opens on line ``index`` closes (the line, and the
    end of the call on it), when it closes on a later line with nothing but a comment
    after it, and no block follows; else None."""
    if _OPENS.match(lines[index]) is None:
        return None
    for last in range(index + 1, min(len(lines), index + 1 + _SPAN)):
        closing = _CLOSES.match(lines[last])
        if closing is not None:
            following = lines[last + 1].lstrip() if last + 1 < len(lines) else b""
            return None if following.startswith(b"{") else (last, closing.end(1))
        if re.fullmatch(PLAIN, lines[last]) is None or lines[last].lstrip().startswith(b"#"):
            return None  # brackets or a comment or a directive inside: no call of this kind
    return None


def _opens_block(lines: list[bytes], index: int, start: int) -> bool:
    """Whether the brackets that open before ``start`` on line ``index`` close within
    ``_SPAN`` lines, with a block's ``{`` after them there or opening the next line, and
    the first line that opens with ``}`` after them closes a function's body, not a type's
    (PostgreSQL's ``CATALOG(pg_am,2601,AccessMethodRelationId)`` then ``{`` … ``}
    FormData_pg_am;``)."""
    depth = 1
    for number in range(index, min(len(lines), index + _SPAN)):
        line = re.sub(STRING, b'""', lines[number])
        for position in range(start if number == index else 0, len(line)):
            depth += {40: 1, 41: -1}.get(line[position], 0)  # ``(``, ``)``
            if depth == 0:
                rest = line[_past_comment(line, position + 1) :].rstrip()
                following = lines[number + 1].lstrip() if number + 1 < len(lines) else b""
                if not (rest.startswith(b"{") or (not rest and following.startswith(b"{"))):
                    return False
                closing = _closing_brace(lines, number + 1)
                return _past_comment(closing, 1) == len(closing.rstrip())
    return False


def _past_comment(line: bytes, start: int) -> int:
    """Where ``line`` goes on after the blanks and a comment from ``start`` (``_BEFORE_BLOCK``)."""
    found = _BEFORE_BLOCK.match(line, start)
    return found.end() if found is not None else start


def _closing_brace(lines: list[bytes], start: int) -> bytes:
    """The first line from ``start`` on that opens with ``}`` and goes on no directive (a
    ``#define``'s ``} while (0)``), or ``}``."""
    for number in range(start, len(lines)):
        if lines[number].startswith(b"}") and not lines[number - 1].rstrip().endswith(b"\\"):
            return lines[number]
    return b"}"


def _split_definer(line: bytes, definer: re.Match[bytes]) -> bytes:
    """``line`` with a definer's name (``_DEFINER``'s ``definer``) split in two by a
    blank where a name may follow it, the grammar then reads a type and a function's name:
    ``SYSCALL DEFINE3(…)``, ``T ST(Suite, Name)``; ``declarators`` joins them again."""
    begin, name = definer.start(2), definer.group(2)
    at = next((i for i in range(1, len(name) - 1) if name[i : i + 1] == b"_" and name[i + 1 : i + 2].isalpha()), None)
    if at is None and name[2:3].isalpha():
        at = 1
    if at is None:
        return line
    # attributes before it (``PHPAPI PHP_FUNCTION(dl)``) made one with it, the type
    attributes = re.sub(rb"[ \t]", b"_", line[definer.start(1) : begin])
    return blank(line[: definer.start(1)] + attributes + line[begin:], begin + at, begin + at + 1)


def _as_names(found: re.Match[bytes]) -> bytes:
    """``TEST_CASE(_parses_a_number_)`` of ``TEST_CASE("parses a number")``: each title's
    characters that no name holds (its quotes, spaces, each byte of a UTF-8 character)
    an underscore."""
    start, end = found.span(1)
    offset = found.start()
    text = found.group(0)
    inner = re.sub(STRING, lambda s: _NOT_NAME.sub(b"_", s.group(0)), text[start - offset : end - offset])
    return text[: start - offset] + inner + text[end - offset :]
