"""C as the Linux kernel and PHP write it, on the real grammar: functions a macro defines
(``SYSCALL_DEFINE3(setpriority, …)``, ``PHP_FUNCTION(strlen)``), attributes written as
reserved names (``char __user *buf``, ``__aligned(8)``, ``__printf(2, 3)``), loop macros
after a ``do`` block and types given to macros (``container_of(p, struct x, m)``)."""

from __future__ import annotations

from recalld.parsers import parse
from recalld.parsers.macros import readable

SYSCALLS = """\
/*
 * Set the priority of a process, a process group or a user's processes.
 */
SYSCALL_DEFINE3(setpriority, int, which, int, who, int, niceval)
{
\treturn 0;
}

SYSCALL_DEFINE0(getpid)
{
\treturn task_tgid_vnr(current);
}

SYSCALL_DEFINE2(setpgid, pid_t, pid, pid_t, pgid)
{
\treturn 0;
}

#ifdef CONFIG_COMPAT
COMPAT_SYSCALL_DEFINE2(getrlimit, unsigned int, resource,
\t\t       struct compat_rlimit __user *, rlim)
{
\treturn 0;
}
#endif

#define BPF_FIB_LOOKUP_MASK (BPF_FIB_LOOKUP_DIRECT | \\
\t\t\t     BPF_FIB_LOOKUP_OUTPUT)

BPF_CALL_4(bpf_xdp_fib_lookup, struct xdp_buff *, ctx,
\t   struct bpf_fib_lookup *, params, int, plen, u32, flags)
{
\treturn 0;
}

static CLOSURE_CALLBACK(closure_sync_fn)
{
}

EXPORT_SYMBOL(closure_sync_fn);

CATALOG(pg_am,2601,AccessMethodRelationId)
{
\tOid oid;
} FormData_pg_am;

/* {{{ Get string length */
PHP_FUNCTION(strlen) /* {{{ */
{
}
/* }}} */

PHPAPI ZEND_COLD PHP_METHOD(SplFileObject, fgetcsv)
{
}
"""


def test_a_function_a_macro_defines_is_named_by_the_macro_and_its_name():
    """C's grammar read ``SYSCALL_DEFINE3(setpriority, …)`` then a block as a call and a
    block: no function (kernel 7.2's ``kernel/sys.c`` showed none of its 46 system calls,
    PHP 8.2's C none of its 820 ``PHP_FUNCTION``s). A macro's definition is named by the
    macro and its arguments where they are at most two names (``PHP_METHOD(SplFileObject,
    fgetcsv)``), by its first where more follow (the parameters' types and names), and
    signed as written; a block that closes a type's (``} FormData_pg_am;``) is no function."""
    result = parse("c", SYSCALLS.encode(), path="kernel/sys.c")
    found = {s.qualname: (s.kind, s.signature, s.docstring) for s in result.symbols[1:]}
    assert found == {
        "SYSCALL_DEFINE3(setpriority)": (
            "function", "SYSCALL_DEFINE3(setpriority, int, which, int, who, int, niceval)",
            "Set the priority of a process, a process group or a user's processes.",
        ),
        "SYSCALL_DEFINE0(getpid)": ("function", "SYSCALL_DEFINE0(getpid)", ""),
        "SYSCALL_DEFINE2(setpgid)": ("function", "SYSCALL_DEFINE2(setpgid, pid_t, pid, pid_t, pgid)", ""),
        "COMPAT_SYSCALL_DEFINE2(getrlimit)": (
            "function",
            "COMPAT_SYSCALL_DEFINE2(getrlimit, unsigned int, resource, struct compat_rlimit __user *, rlim)", "",
        ),
        "BPF_CALL_4(bpf_xdp_fib_lookup)": (
            "function", "BPF_CALL_4(bpf_xdp_fib_lookup, struct xdp_buff *, ctx, struct bpf_fib_lookup *, params, int,"
            " plen, u32, flags)", "",
        ),
        "CLOSURE_CALLBACK(closure_sync_fn)": ("function", "static CLOSURE_CALLBACK(closure_sync_fn)", ""),
        "PHP_FUNCTION(strlen)": ("function", "PHP_FUNCTION(strlen)", "{{{ Get string length"),
        "PHP_METHOD(SplFileObject, fgetcsv)": ("function", "PHPAPI ZEND_COLD PHP_METHOD(SplFileObject, fgetcsv)", ""),
    }  # fmt: skip
    lines = {s.qualname: (s.start_line, s.end_line) for s in result.symbols}
    assert lines["SYSCALL_DEFINE3(setpriority)"] == (4, 7) and lines["COMPAT_SYSCALL_DEFINE2(getrlimit)"] == (20, 24)
    assert result.syntax_errors == 1  # the catalog's ``} FormData_pg_am;``, read around


def test_a_test_macros_arguments_name_it_at_most_two_and_a_matchers_by_its_name():
    source = (
        "TEST(ShapeTest, Draws) {\n}\n\n"
        'MATCHER_P(HasArea, area, "has the area") {\n  return arg.area() == area;\n}\n\n'
        'MATCHER_P2(Between, low, high, "") {\n  return low <= arg && arg <= high;\n}\n'
    )
    found = {s.qualname for s in parse("cpp", source.encode(), path="shape_test.cc").symbols[1:]}
    assert found == {"TEST(ShapeTest, Draws)", "MATCHER_P(HasArea)", "MATCHER_P2(Between)"}


KERNEL_STYLE = """\
typedef unsigned int __bitwise gfp_t;
typedef __u32 __bitwise __le32;

struct swsusp_info {
\tint pages;
} __aligned(PAGE_SIZE);

struct bpf_iter__udp {
\tuid_t uid __aligned(8);
\tvoid *records[] __counted_by(nr_records);
\t__u32 __pad;
};

static int __init init_overflow_sysctl(void)
{
\treturn 0;
}

static int override_release(char __user *release, size_t len)
{
\treturn copy_to_user(release, (const void __user *) buf, len);
}

static inline __printf(2, 3)
void trace_seq_printf(struct trace_seq *s, const char *fmt, ...)
{
}

static __always_inline __realloc_size(2) void *
__do_krealloc(const void *p, size_t new_size)
{
\treturn NULL;
}

static __always_inline __u64 read_ts(const __u32 __user *p, struct __kernel_timespec __user *ts)
{
\treturn 0;
}

static inline __virtio16 __cpu_to_virtio16(bool little_endian, u16 val)
{
\treturn val;
}

extern unsigned long long __rt_udiv(unsigned int denominator, unsigned int numerator);

static void put_cred_rcu(struct rcu_head *rcu)
{
\tstruct cred *cred = container_of(rcu, struct cred, rcu);
\tdo {
\t\tcred = next_cred(cred);
\t} while_each_thread(current, cred);
\tzend_try {
\t\tshutdown();
\t} zend_end_try();
}

long __do_wait(struct wait_opts *wo)
{
\treturn 0;
}
"""


def test_attributes_written_as_reserved_names_name_nothing_and_hide_nothing():
    """The kernel's attributes are macros with reserved names, which the grammar read as
    types or names: ``typedef unsigned int __bitwise gfp_t`` was the type ``__bitwise``,
    ``} __aligned(PAGE_SIZE);`` a function ``__aligned`` in the struct's place, a member
    ``uid __aligned(8)`` a method, and after ``static inline __printf(2, 3)`` no function of
    the file was found. A reserved type (``__u64``, ``__virtio16``) or function's name
    (``__cpu_to_virtio16``, ``__do_wait``, ``__rt_udiv``) stays. A loop's macro after a
    ``do`` block (``} while_each_thread(…);``) took the rest of the file; ``zend_end_try()``
    is none (no arguments)."""
    masked = readable(KERNEL_STYLE.encode())
    assert b"__bitwise" not in masked and b"__aligned" not in masked and b"__user" not in masked
    assert b"__u64 read_ts" in masked and b"__virtio16 __cpu_to_virtio16" in masked and b"zend_end_try()" in masked
    result = parse("c", KERNEL_STYLE.encode(), path="kernel/cred.c")
    found = {s.qualname: (s.kind, s.signature) for s in result.symbols[1:]}
    assert found == {
        "gfp_t": ("type", "typedef unsigned int __bitwise gfp_t"),
        "__le32": ("type", "typedef __u32 __bitwise __le32"),
        "swsusp_info": ("struct", "struct swsusp_info"),
        "bpf_iter__udp": ("struct", "struct bpf_iter__udp"),
        "init_overflow_sysctl": ("function", "static int __init init_overflow_sysctl(void)"),
        "override_release": ("function", "static int override_release(char __user *release, size_t len)"),
        "trace_seq_printf": ("function", "static inline __printf(2, 3) void trace_seq_printf(struct trace_seq *s,"
                             " const char *fmt, ...)"),
        "__do_krealloc": ("function", "static __always_inline __realloc_size(2) void * __do_krealloc(const void *p,"
                          " size_t new_size)"),
        "read_ts": ("function", "static __always_inline __u64 read_ts(const __u32 __user *p,"
                    " struct __kernel_timespec __user *ts)"),
        "__cpu_to_virtio16": ("function", "static inline __virtio16 __cpu_to_virtio16(bool little_endian, u16 val)"),
        "__rt_udiv": ("function", "extern unsigned long long __rt_udiv(unsigned int denominator,"
                      " unsigned int numerator)"),
        "put_cred_rcu": ("function", "static void put_cred_rcu(struct rcu_head *rcu)"),
        "__do_wait": ("function", "long __do_wait(struct wait_opts *wo)"),
    }  # fmt: skip
    assert result.syntax_errors == 1  # ``zend_try``'s block: read around
    assert {s.qualname: s.end_line for s in result.symbols}["put_cred_rcu"] == 56


TEMPLATE = b"""\
/**begin repeat
 * #TYPE = BYTE, SHORT#
 * #type = npy_byte, npy_short#
 */
NPY_NO_EXPORT void
@TYPE@_@kind@_indexed(char **args, npy_intp const *dimensions)
{
    @type@ in1 = *(@type@ *)args[0];
}
/**end repeat**/

static int
simd_@sfx@@x@(int x)
{
    return x; /* mail: a@b.org, @ref@ */
}
"""


def test_a_templates_placeholders_are_read_as_names_and_name_its_functions_as_written():
    """NumPy's ``.c.src`` (C a generator fills in for each type, read as C where the
    repository's ``linguist-language`` says so) names functions with placeholders: read
    as names, the same length, they name the functions as written, where the grammar
    read ``@TYPE@_@kind@_indexed`` as errors and a function ``_indexed``."""
    result = parse("c", TEMPLATE, path="umath/loops.c.src")
    assert result.syntax_errors == 0
    functions = {s.qualname: s for s in result.symbols if s.kind == "function"}
    assert set(functions) == {"@TYPE@_@kind@_indexed", "simd_@sfx@@x@"}
    assert functions["@TYPE@_@kind@_indexed"].signature.startswith("void @TYPE@_@kind@_indexed(char **args")
    assert "@ref@" in functions["simd_@sfx@@x@"].source
    assert len(readable(TEMPLATE)) == len(TEMPLATE) and b"@" not in readable(TEMPLATE).split(b"*/", 1)[1][:200]
