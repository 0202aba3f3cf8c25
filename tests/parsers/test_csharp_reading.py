"""C# as Mono's class libraries write it, on the real grammar: ``#if`` groups that cut
through a construct (``parsers/conditionals.py``), pointer indirections the grammar
cannot read (``parsers/pointers.py``), and a ``#pragma`` it does not know."""

from __future__ import annotations

from recalld.parsers import parse
from recalld.parsers.conditionals import Conditionals
from recalld.parsers.pointers import readable

# Mono's ``corert/Decimal.cs``: a constructor's initializer written for one compiler only,
# and an ``else`` whose statement follows an ``#endif`` (``FileStream.cs``)
CUT_BY_DIRECTIVES = """\
using System;

namespace System
{
    public readonly partial struct Decimal : IFormattable
    {
        private readonly int flags;

        // Constructs a Decimal from an integer value.
        public Decimal(int value)
#if __MonoCS__
        : this()
#endif
        {
            flags = value;
        }

        public Decimal(long value)
#if __MonoCS__
        : this()
#endif
        {
            flags = (int)value;
        }

        public static int Compare(decimal d1, decimal d2)
        {
            if (d1.flags < 0) {
#if MOBILE
                if (d2.flags < 0)
                    throw new ArgumentException ("mode");
                else
#endif
                throw new ArgumentOutOfRangeException ("mode");
            }
            return 0;
        }

        public override int GetHashCode() => flags;
    }

    public sealed class DecimalFormatter
    {
        public string Format(decimal value) => value.ToString();
    }
}
"""


def names(source: str) -> list[str]:
    return [s.qualname for s in parse("csharp", source.encode()).symbols]


def test_a_group_cutting_through_a_constructor_costs_no_symbol() -> None:
    result = parse("csharp", CUT_BY_DIRECTIVES.encode())
    assert result.syntax_errors == 0
    assert [s.qualname for s in result.symbols] == [
        "<module>",
        "Decimal",
        "Decimal.Decimal(int)",
        "Decimal.Decimal(long)",
        "Decimal.Compare",
        "Decimal.GetHashCode",
        "DecimalFormatter",
        "DecimalFormatter.Format",
    ]
    constructor = next(s for s in result.symbols if s.qualname == "Decimal.Decimal(int)")
    assert (constructor.start_line, constructor.end_line) == (10, 16)
    assert constructor.docstring == "Constructs a Decimal from an integer value."
    assert "#if __MonoCS__" in constructor.source  # the text as written, directives too


# A class written twice, one for each platform; an error in a group nested in one
# (an ``} else {`` cut by ``#endif``) reduces that group, not the class's
TWO_PLATFORMS = """\
namespace System.Diagnostics
{
    public static class Debug
    {
#if !SILVERLIGHT
        public static void Flush() {
            TraceInternal.Flush();
        }

        static void WriteAssert(string message) {
#if !FEATURE_PAL
            if (UiPermission) {
                Show(message);
            } else {
#endif
                Write(message);
            }
        }
#else
        static readonly object s_ForLock = new Object();

        public static void Flush() {
        }

        static string StackTraceToString(int skip) {
            return "";
        }
#endif

        public static void Indent() {
        }
    }
}
"""


def test_an_error_in_a_nested_group_keeps_both_platforms_branches() -> None:
    result = parse("csharp", TWO_PLATFORMS.encode())
    assert result.syntax_errors == 0
    assert [s.qualname for s in result.symbols] == [
        "<module>",
        "Debug",
        "Debug.Flush()",
        "Debug.WriteAssert",
        "Debug.Flush()#2",  # the same overload in the other branch
        "Debug.StackTraceToString",
        "Debug.Indent",
    ]


def test_a_build_keeps_one_branch_of_each_group_it_reduces() -> None:
    source = b"""\
#define TRACE
#undef DEBUG
#if DEBUG || !TRACE
int a;
#elif (NET_4_0 || MOBILE) == !DEBUG
int b;
#else
int c;
#endif
#if false
int d;
#endif
#if MONO
int e;
#endif
"""
    conditionals = Conditionals(source)
    every_group = frozenset(conditionals.spans)
    defined = conditionals.build(every_group, undefined_is=True)
    undefined = conditionals.build(every_group, undefined_is=False)
    assert len(defined) == len(undefined) == len(source)
    kept = [line.strip() for line in defined.split(b"\n") if line.strip()]
    assert kept == [b"int b;", b"int d;", b"int e;"]  # a group of one branch keeps it
    kept = [line.strip() for line in undefined.split(b"\n") if line.strip()]
    assert kept == [b"int c;", b"int d;", b"int e;"]
    assert conditionals.build(frozenset(), undefined_is=True).count(b"int") == 5


def test_pointer_indirections_of_a_bracket_are_read() -> None:
    source = """\
namespace System.Net
{
    internal sealed class SafeFreeContextBuffer
    {
        unsafe void Set(byte* buffer, SafeFreeContextBuffer refHandle)
        {
            if (refHandle is SafeFreeContextBuffer) {
                ((SafeFreeContextBuffer)refHandle).Set(*(IntPtr*)buffer);
            }
        }

        static unsafe void Copy(byte* dest, byte* src, int len)
        {
            *(int*)dest = *(int*)src;
            *(int*)(dest + 4) = *(int*)(src + 4);
            if (len > 8) *(bytes++) = (byte)(len >> 8);
            *dest++ = *src++;
            uint low = (byte)(*(uint*)&len >> 23);
            int product = len *(len + 1);
        }
    }

    internal sealed class SafeCloseSocket
    {
        internal void Close()
        {
        }
    }
}
"""
    assert names(source) == [
        "<module>",
        "SafeFreeContextBuffer",
        "SafeFreeContextBuffer.Set",
        "SafeFreeContextBuffer.Copy",
        "SafeCloseSocket",
        "SafeCloseSocket.Close",
    ]
    assert parse("csharp", source.encode()).syntax_errors == 0
    rewritten = readable(source.encode()).decode()
    assert len(rewritten) == len(source)
    assert "_           = -(int*)src;" in rewritten
    assert "int product = len *(len + 1);" in rewritten  # a multiplication stays
    assert ".Set(-(IntPtr*)buffer)" in rewritten


def test_an_unknown_pragma_is_no_error() -> None:
    source = """\
namespace System.Web
{
    public class Handler
    {
        public void Process()
        {
#pragma warning suppress 56500 // covered by FxCOP
            try {
                Run();
            }
            catch (Exception) {
            }
        }

        public void Run()
        {
        }
    }
}
"""
    result = parse("csharp", source.encode())
    assert result.syntax_errors == 0
    assert [s.qualname for s in result.symbols] == ["<module>", "Handler", "Handler.Process", "Handler.Run"]
