"""Attributes C writes as names reserved to the implementation, as the Linux kernel's
headers define them (``__user``, ``__init``, ``__rcu``, ``__bitwise``, ``__aligned(8)``,
``__printf(2, 3)``), blanked where a grammar that cannot expand them reads one as a type or
a declarator's name (``macros.readable`` asks, for a line holding ``__``).

The kernel 7.2's ``kernel/ mm/ lib/ block/ ipc/ net/core/ net/ipv4/ fs/ext4/ fs/proc/`` and
``include/linux/`` (4,812 files): 2,142 read with syntax errors before these and the
definer, loop and type-argument rewrites of ``macros.py``, 1,341 after; of its 58,838
functions whose body opens a line, 199 were not found before, 66 after.
"""

from __future__ import annotations

import re

from recalld.parsers.c_tokens import ARGUMENTS, TYPE_WORDS, blank

# A reserved name is a type's too (``__u32``, ``__be16``) or a function's (``__do_wait``): one
# is blanked only where neither stands; the grammar's own keywords stay (``__attribute__``).
_RESERVED_NAME = rb"__[a-z][A-Za-z0-9_]*"
_GRAMMAR_WORDS = frozenset({
    b"__alignof", b"__alignof__", b"__asm", b"__asm__", b"__attribute", b"__attribute__", b"__based", b"__cdecl",
    b"__clrcall", b"__declspec", b"__except", b"__extension__", b"__fastcall", b"__finally", b"__forceinline",
    b"__inline", b"__inline__", b"__leave", b"__restrict__", b"__stdcall", b"__thiscall", b"__thread", b"__try",
    b"__unaligned", b"__vectorcall", b"__volatile__",
})  # fmt: skip
# Between a type and a declarator (``char __user *buf``, ``static int __init setup(void)``,
# ``(void __user *)arg``, ``typedef unsigned int __bitwise gfp_t``).
_RESERVED_BETWEEN = re.compile(
    rb"\b([A-Za-z_]\w*)[ \t]+((?:" + _RESERVED_NAME + rb"[ \t]+)*" + _RESERVED_NAME + rb")"
    rb"(?=[ \t]+(?:\*+[ \t]*(?:[A-Za-z_]\w*)?|[A-Za-z_]\w*)[ \t]*[(;,=\[)])"
)
# Before them, the word whose run of reserved names keeps its first, a type (``const __u32
# __user *``, ``struct __kernel_timespec __user *``), and those after which a reserved name may
# be the type (``static __u64 f(``) or the code's (``return __x``): all kept.
_TYPE_FOLLOWS = frozenset({b"struct", b"union", b"enum", b"const", b"volatile", b"typedef"})
_KEEP_AFTER = frozenset({
    b"static", b"extern", b"inline", b"register", b"auto", b"signed", b"unsigned", b"return", b"case", b"goto",
    b"else", b"do", b"sizeof", b"typeof", b"restrict",
})  # fmt: skip
# With arguments after a declarator or a body (``uid_t uid __aligned(8);``, ``void *records[]
# __counted_by(nr);``, ``} __aligned(PAGE_SIZE);``): a function's declaration, as the grammar
# read it, if a type and a name do not stand before it (``_DECLARED``), or a ``}``.
_RESERVED_AFTER_NAME = re.compile(
    rb"(?<=[\w\]}])([ \t]+" + _RESERVED_NAME + rb"[ \t]*" + ARGUMENTS + rb")(?=[ \t]*[;=,])"
)
_DECLARED = re.compile(
    rb"(?:\b([A-Za-z_]\w*)[ \t*]+[A-Za-z_]\w*(?:[ \t]*\[[^\]\n]*\])*|\}(?:[ \t]+" + _RESERVED_NAME + rb")*)$"
)
# Alone on a line but for specifiers, before the declaration on the next (``static inline
# __printf(2, 3)``), or between specifiers and a type (``static __always_inline
# __realloc_size(2) void *``).
_RESERVED_RUN = rb"((?:" + _RESERVED_NAME + rb"(?:[ \t]*" + ARGUMENTS + rb")?[ \t]*)+)"
_RESERVED_ALONE = re.compile(rb"^([ \t]*(?:(?:static|inline|extern)[ \t]+)*)" + _RESERVED_RUN + rb"$")
_RESERVED_BEFORE_TYPE = re.compile(
    rb"^([ \t]*(?:(?:static|inline|extern)[ \t]+)*)" + _RESERVED_RUN
    + rb"(?=(?:" + TYPE_WORDS + rb"|struct|union|enum|const|static|inline|extern)\b)"
)  # fmt: skip
# A reserved name where an attribute may be: opening the line or after a blank.
_STANDS_ALONE = re.compile(rb"(?:^|[ \t])__[a-z]")
_RESERVED_CALL = re.compile(rb"(" + _RESERVED_NAME + rb")[ \t]*(" + ARGUMENTS + rb")?")
# A parameter: a type and a name (``bool little_endian``, ``const void *p``), or ``...``.
_PARAMETER = re.compile(rb"[ \t]*(?:(?:[A-Za-z_]\w*[ \t*]+)+\**[ \t]*[A-Za-z_]\w*(?:[ \t]*\[[^\]]*\])*|\.\.\.)[ \t]*")


def reserved_attributes(line: bytes, after_statement: bool) -> bytes:
    """``line`` with the attributes written as reserved names blanked (``_RESERVED_NAME``)."""
    if _STANDS_ALONE.search(line) is None:
        return line  # a reserved name within a word or after a bracket only (``f(__x)``): no attribute
    alone = _RESERVED_ALONE.match(line) if after_statement else None
    if alone is not None and _attributes(alone.group(2), alone=True):
        return blank(line, alone.start(2), alone.end(2))
    before = _RESERVED_BEFORE_TYPE.match(line)
    if before is not None and _attributes(before.group(2)):
        line = blank(line, before.start(2), before.end(2))
    line = _RESERVED_BETWEEN.sub(_between, line)
    return _RESERVED_AFTER_NAME.sub(lambda m: _after_name(m, line), line)


def _grammar_words(run: bytes) -> bool:
    return any(word in _GRAMMAR_WORDS for word in re.findall(_RESERVED_NAME, run))


def _attributes(run: bytes, *, alone: bool = False) -> bool:
    """Whether a run of reserved names (``_RESERVED_RUN``) is attributes: none the grammar's,
    no arguments that declare parameters (``__cpu_to_virtio16(bool little_endian, u16 val)``,
    a function's name), and, ``alone`` on a line, each with arguments (``__u32`` alone then
    ``__get_hash(…)`` is a type and a function)."""
    words = list(_RESERVED_CALL.finditer(run))
    if any(w.group(1) in _GRAMMAR_WORDS or (w.group(2) and _parameters(w.group(2))) for w in words):
        return False
    return not alone or all(w.group(2) for w in words)


def _parameters(arguments: bytes) -> bool:
    """Whether bracketed ``arguments`` are a function's parameters (``(bool little_endian,
    u16 val)``, ``(void)``), not an attribute's (``(2, 3)``, ``(4 * sizeof(unsigned long))``)."""
    inner = arguments[1:-1]
    return inner.strip() == b"void" or all(_PARAMETER.fullmatch(item) for item in inner.split(b","))


def _between(found: re.Match[bytes]) -> bytes:
    """A ``_RESERVED_BETWEEN`` match, the attributes in its run of reserved names blanked."""
    word, run = found.group(1), found.group(2)
    if word in _KEEP_AFTER or word.startswith(b"__") or _grammar_words(run):
        return found.group(0)
    names = list(re.finditer(_RESERVED_NAME, run))
    start = 0
    if word in _TYPE_FOLLOWS:  # the run's first is the type
        if len(names) == 1:
            return found.group(0)
        start = names[1].start()
    offset = found.start(2) - found.start()
    return blank(found.group(0), offset + start, offset + len(run))


def _after_name(found: re.Match[bytes], line: bytes) -> bytes:
    """A ``_RESERVED_AFTER_NAME`` match blanked where a declarator or a body stands before it."""
    before = _DECLARED.search(line, 0, found.start())
    if before is None or before.group(1) in _KEEP_AFTER or not _attributes(found.group(1)):
        return found.group(0)  # ``extern unsigned long long __rt_udiv(unsigned int d, unsigned int n);``
    return b" " * len(found.group(0))
