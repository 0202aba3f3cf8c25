"""C prototypes whose macros hide their names from the grammar (``parsers/prototypes.py``):
a wrapper around the parameter list (zlib's ``OF((…))``), export macros before a return type
that is a macro or ends its line (brotli's), an attribute after ``typedef`` (zstd's), and an
attribute macro with a reserved name (cffi's ``_CFFI_UNUSED_FN``). The names are clang's."""

from __future__ import annotations

from recalld.parsers import parse
from recalld.parsers.macros import readable


def functions(path: str, source: str) -> dict[str, tuple[str, str]]:
    """qualname -> (kind, signature) of what ``path`` holding ``source`` defines."""
    result = parse("c", source.encode(), path=path)
    return {s.qualname: (s.kind, s.signature) for s in result.symbols[1:]}


ZLIB = """typedef voidpf (*alloc_func) OF((voidpf opaque, uInt items, uInt size));

ZEXTERN const char * ZEXPORT zlibVersion OF((void));
ZEXTERN int ZEXPORT deflate OF((z_streamp strm, int flush));
ZEXTERN int ZEXPORT deflateSetDictionary OF((z_streamp strm,
                                             const Bytef *dictionary,
                                             uInt  dictLength));
ZEXTERN gzFile ZEXPORT gzdopen OF((int fd, const char *mode));
ZEXTERN z_size_t ZEXPORT gzfread OF((voidp buf, z_size_t size, z_size_t nitems,
                                     gzFile file));
ZEXTERN z_off_t ZEXPORT gzseek OF((gzFile, z_off_t, int));
ZEXTERN int ZEXPORTVA gzprintf Z_ARG((gzFile file, const char *format, ...));
extern int PAM_NONNULL((1,3))
pam_start(const char *service_name, const char *user);
"""


def test_a_macro_that_wraps_a_parameter_list_is_read_as_the_list():
    """zlib 1.2.13's ``zlib.h`` gave 61 functions named ``OF``, ``OF#2``…: the grammar read
    ``deflate OF((…))`` as a function ``OF`` of one parameter. Its name and outer brackets are
    blanked, over the lines the list goes on; an attribute's doubled brackets (Linux-PAM's
    ``PAM_NONNULL((1,3))``: numbers, no parameters) are none."""
    masked = readable(ZLIB.encode())
    assert len(masked) == len(ZLIB) and masked.count(b"\n") == ZLIB.count("\n")
    assert b"deflate    (z_streamp strm, int flush) ;" in masked
    assert b"uInt  dictLength) ;" in masked
    found = functions("zlib.h", ZLIB)
    assert list(found) == [
        "alloc_func", "zlibVersion", "deflate", "deflateSetDictionary", "gzdopen", "gzfread", "gzseek", "gzprintf",
        "pam_start",
    ]
    assert found["deflate"] == ("function", "int ZEXPORT deflate OF((z_streamp strm, int flush))")
    assert found["alloc_func"] == ("type", "typedef voidpf (*alloc_func) OF((voidpf opaque, uInt items, uInt size))")


BROTLI = """BROTLI_ENC_API BROTLI_BOOL BrotliEncoderSetParameter(
    BrotliEncoderState* state, BrotliEncoderParameter param, uint32_t value);

/** Prepares a shared dictionary. */
BROTLI_ENC_API BrotliEncoderPreparedDictionary*
BrotliEncoderPrepareDictionary(BrotliSharedDictionaryType type,
    size_t data_size, const uint8_t data[BROTLI_ARRAY_PARAM(data_size)],
    int quality, void* opaque);

static PY_LONG_LONG
_my_PyLong_AsLongLong(PyObject *ob)
{
    return 0;
}

static BROTLI_NOINLINE BrotliDecoderErrorCode
DecodeCommandBlockSwitch(BrotliDecoderState* s) {
  return DecodeCommandBlockSwitchInternal(0, s);
}

static BrotliDecoderErrorCode BROTLI_NOINLINE
SkipMetadataBlock(BrotliDecoderState* s) {
  return BROTLI_DECODER_SUCCESS;
}
"""


def test_an_export_macro_before_a_return_type_that_is_a_macro_or_ends_its_line():
    """Brotli 1.2.1: ``BROTLI_ENC_API BROTLI_BOOL f(…);`` had both macros blanked, the type
    too, and was read as a call (lost); a return type that ends its line, the name opening
    the next, left the macros before it or after it in place (``BrotliEncoderPrepareDictionary``
    lost, ``DecodeCommandBlockSwitch`` a method of ``BrotliDecoderErrorCode``)."""
    found = functions("encode.h", BROTLI)
    assert found == {
        "BrotliEncoderSetParameter": (
            "function",
            "BROTLI_BOOL BrotliEncoderSetParameter(BrotliEncoderState* state, BrotliEncoderParameter param, "
            "uint32_t value)",
        ),
        "BrotliEncoderPrepareDictionary": (
            "function",
            "BrotliEncoderPreparedDictionary* BrotliEncoderPrepareDictionary(BrotliSharedDictionaryType type, "
            "size_t data_size, const uint8_t data[BROTLI_ARRAY_PARAM(data_size)], int quality, void* opaque)",
        ),
        "_my_PyLong_AsLongLong": ("function", "static PY_LONG_LONG _my_PyLong_AsLongLong(PyObject *ob)"),
        "DecodeCommandBlockSwitch": (
            "function",
            "static BROTLI_NOINLINE BrotliDecoderErrorCode DecodeCommandBlockSwitch(BrotliDecoderState* s)",
        ),
        "SkipMetadataBlock": (
            "function", "static BrotliDecoderErrorCode BROTLI_NOINLINE SkipMetadataBlock(BrotliDecoderState* s)",
        ),
    }


def test_a_macro_before_a_constructor_or_a_macros_call_is_no_return_type():
    """A constructor after an attribute macro (fmt's ``FMT_CONSTEXPR rgb() : r(0) {}``) has
    no return type: the macro is blanked, as before. So is one before a macro's call (all of
    them where the call ends its line, xxHash's, which writes a function), and one
    before a type and a pointer's declarator (epoxy's ``EPOXY_PUBLIC GLuint (EPOXY_CALLSPEC *f)(…)``)."""
    source = (
        "struct rgb {\n  FMT_CONSTEXPR rgb() : r(0) {}\n  FMT_CONSTEXPR rgb(uint32_t hex) : r(hex) {}\n  uint8_t r;\n};\n"
    )
    result = parse("cpp", source.encode(), path="color.h")
    assert result.syntax_errors == 0
    assert [s.qualname for s in result.symbols[1:]] == ["rgb", "rgb.rgb()", "rgb.rgb(uint32_t)"]
    xxhash = (
        "int x;\nXXH_FORCE_INLINE XXH_TARGET_AVX2 XXH3_ACCUMULATE_TEMPLATE(avx2)\n\n/* Scrambles. */\n\n"
        "XXH_FORCE_INLINE XXH_TARGET_AVX2 void\nXXH3_scrambleAcc_avx2(void* acc)\n{\n    return;\n}\n"
    )
    scramble = parse("c", xxhash.encode(), path="xxhash.h").symbols[-1]  # the macro's call alone is no return type
    assert (scramble.qualname, scramble.start_line, scramble.signature) == (
        "XXH3_scrambleAcc_avx2", 6, "void XXH3_scrambleAcc_avx2(void* acc)"
    )
    pointer = b"EPOXY_PUBLIC GLuint (EPOXY_CALLSPEC *epoxy_glBindParameterEXT)(GLenum value);\n"
    assert readable(pointer).lstrip().startswith(b"GLuint (")  # a type before a pointer's declarator


def test_an_attribute_between_typedef_and_its_declarator_is_blanked():
    """zstd 1.5.7's ``typedef __attribute__((aligned(1))) U16 unalign16;`` was a type named
    ``aligned`` (four of them: ``aligned#2``…): C's grammar takes no attribute there."""
    source = (
        "typedef __attribute__((aligned(1))) U16 unalign16;\n"
        "typedef __attribute__((aligned(1))) size_t unalignArch;\n"
        "typedef U32 __attribute__((aligned(1))) unalign32;\n"
        "typedef __declspec(align(16)) struct bar { int a; } bar_t;\n"
    )
    result = parse("c", source.encode(), path="mem.h")
    assert result.syntax_errors == 0
    assert [(s.kind, s.qualname) for s in result.symbols[1:]] == [
        ("type", "unalign16"), ("type", "unalignArch"), ("type", "unalign32"), ("struct", "bar_t"),
    ]
    assert result.symbols[1].signature == "typedef __attribute__((aligned(1))) U16 unalign16"


def test_an_attribute_macro_with_a_reserved_name():
    """cffi 2.1.1's ``_CFFI_UNUSED_FN`` (``__attribute__((unused))``) alone on its line before a
    function pointer's declaration made a function named ``void``; before a definition it
    was read as its return type. A name so written after a type is a function's, not an
    attribute (``PyMODINIT_FUNC _CFFI_PYTHON_STARTUP_FUNC(void);``)."""
    source = (
        "#ifdef PYPY_VERSION\n#else\n_CFFI_UNUSED_FN\n"
        "static void (*_cffi_call_python_org)(struct _cffi_externpy_s *, char *);\n#endif\n\n"
        "_CFFI_UNUSED_FN static int\n_cffi_convert_array_argument(PyObject *arg)\n{\n    return 0;\n}\n\n"
        "PyMODINIT_FUNC _CFFI_PYTHON_STARTUP_FUNC(void);   /* forward */\n"
    )
    assert functions("_cffi_include.h", source) == {
        "_cffi_convert_array_argument": ("function", "static int _cffi_convert_array_argument(PyObject *arg)"),
        "_CFFI_PYTHON_STARTUP_FUNC": ("function", "PyMODINIT_FUNC _CFFI_PYTHON_STARTUP_FUNC(void)"),
    }
