"""What C's prototypes write around a function's return type, name and parameters that a
grammar which cannot expand macros misreads, given to it the same length, byte for byte
(``macros.readable`` asks; the symbols read the source as written):

- a macro that wraps a parameter list, as headers portable to compilers before ANSI C
  write one (zlib's ``ZEXTERN int ZEXPORT deflate OF((z_streamp strm, int flush));``, its
  ``Z_ARG((…))``, BSD's ``__P((…))``, binutils' ``PARAMS((…))``): its name and outer brackets
  blanked, over however many lines the list goes on, where the grammar read a function
  named ``OF`` (``wrapped_parameters``);
- an attribute between ``typedef`` and its declarator (zstd's ``typedef
  __attribute__((aligned(1))) U16 unalign16;``), where C's grammar takes none and read a
  type named ``aligned`` (``typedef_attributes``);
- export and attribute macros before a declaration (``SQLITE_API int sqlite3_open(…)``,
  ``ABSL_MUST_USE_RESULT inline std::string AsciiStrToLower(…)``), between its type and its
  name (``int WINAPI_EXPORT main(…)``, zlib's ``gzFile ZEXPORT gzopen(…)``, ``const char *
  ZEXPORT zlibVersion(…)``) or beside a type keyword (git's ``static NORETURN void die(…)``,
  ``int WINAPI WinMain(…)``): blanked, but for a macro that is the return type, the last
  before the name where no other type stands (brotli's ``BROTLI_INTERNAL BROTLI_BOOL
  BrotliSetDepth(…)``, where ``BROTLI_BOOL`` is ``int``). A return type may end its line and
  the name open the next (brotli's ``BROTLI_ENC_API BrotliEncoderPreparedDictionary*`` then
  ``BrotliEncoderPrepareDictionary(…``, ``static BrotliDecoderErrorCode BROTLI_NOINLINE``
  then ``SkipMetadataBlock(…``): the two lines are read as one (``declaration_head``).
"""

from __future__ import annotations

import re

from recalld.parsers.c_tokens import ARGUMENTS, MACRO, PLAIN, TYPE_WORDS, blank_group, blank_match, blank_second

_CALLS = rb"((?:" + MACRO + rb"(?:[ \t]*" + ARGUMENTS + rb")?[ \t]+)+)"
_SPECIFIERS = rb"(?:(?:static|inline|extern|virtual|explicit|constexpr|friend|template[ \t]*<[^<>\n]*>)[ \t]+)*"
_BEFORE_DECLARATION = re.compile(rb"^([ \t]*" + _SPECIFIERS + rb")" + _CALLS + rb"(?=[A-Za-z_:~][^\n]*\()")
# What follows the last of them where it is the return type: a declarator's name alone, not a
# constructor's (``FMT_CONSTEXPR rgb() : r(0) {}``, ``FMT_API file::file(…)``), which names a class,
# nor a type before a pointer's declarator (epoxy's ``EPOXY_PUBLIC GLuint (EPOXY_CALLSPEC *epoxy_f)(…)``).
_NAME_FOLLOWS = re.compile(
    rb"[ \t*&]*(?:([A-Za-z_]\w*)::)*([A-Za-z_]\w*)[ \t]*"
    rb"\((?![ \t]*(?:[A-Z][A-Z0-9_]*[ \t]+)?[*&^]+[ \t]*\w+[ \t]*\)[ \t]*\()"
)
_CLASS_NAMES = re.compile(rb"\b(?:class|struct|union)[ \t]+(?:" + MACRO + rb"[ \t]+)*([A-Za-z_]\w*)")
_LAST_CALL = re.compile(MACRO + rb"[ \t]+$")
_BEFORE_NAME = re.compile(
    rb"(?<=[\w*&>][ \t])(" + MACRO + rb"(?:[ \t]*" + ARGUMENTS + rb")?)[ \t]+(?=[A-Za-z_~][\w:]*[ \t]*\()"
)
# An attribute macro without an underscore beside a type keyword, where no type can stand:
# before one (git's ``static NORETURN void die(…)``) or between one and a function's name
# (``void NORETURN die(…)``, Windows' ``int WINAPI WinMain(…)``).
_BEFORE_TYPE_WORD = re.compile(
    rb"^([ \t]*(?:(?:static|inline|extern)[ \t]+)*)([A-Z][A-Z0-9_]{2,}[ \t]+)"
    rb"(?=(?:" + TYPE_WORDS + rb"|static|inline|extern|const|struct)\b|\w*[a-z]\w*[ \t*&]+[A-Za-z_]\w*[ \t]*\()"
)  # or before a type written with a small letter and a function's name (zlib's ``ZEXTERN uLong crc32(…)``)
# What follows it is a function's name, not what follows a declarator's (libffi's ``typedef
# unsigned int UINT8 __attribute__((__mode__(__QI__)));`` names ``UINT8``).
_FUNCTION_NAME = rb"(?!(?:__attribute__|__asm__|__asm|asm|__declspec)\b)[A-Za-z_]\w*[ \t]*\("
_AFTER_TYPE_WORD = re.compile(
    rb"\b(?:" + TYPE_WORDS + rb")[ \t]+([A-Z][A-Z0-9_]{2,})(?=[ \t]+\**[ \t]*" + _FUNCTION_NAME + rb"|[ \t]*$)"
)  # the name may open the next line (jemalloc's ``void JEMALLOC_NOTHROW`` then ``je_free(void *ptr) {``)
# The same after a type's name written with a small letter, or after a pointer's ``*``
# (zlib's ``gzFile ZEXPORT gzopen``, ``const char * ZEXPORT zlibVersion``): three names in a
# row before a bracket, of which the one in capitals is no type. Not after a word a type
# follows (``const DWORD f(``, ``struct TAG f(``) nor a statement's.
_TYPE_FOLLOWS = (
    rb"typedef|return|case|else|do|goto|sizeof|new|delete|throw|struct|union|enum|class|typename|using|operator"
    rb"|const|volatile|static|extern|inline|register|virtual|explicit|friend|constexpr|mutable|signed|unsigned"
    rb"|long|short"
)
_AFTER_TYPE_NAME = re.compile(
    rb"(?:(?<![\w])(?!(?:" + _TYPE_FOLLOWS + rb")\b)[A-Za-z_]\w*[a-z]\w*|[*&])"
    rb"[ \t]+([A-Z][A-Z0-9_]{2,})(?=[ \t]+[*&]*[ \t]*" + _FUNCTION_NAME + rb")"
)
_LAST_WORD = re.compile(rb"(?:^|\W)(\w+)[ \t]+$")
# A declaration's name that opens its line, after its return type's line.
_NAME_OPENS = re.compile(rb"[*&]*[ \t]*[A-Za-z_~][\w:]*[ \t]*\(")

# ``OF((``: a name or a function pointer's declarator, a macro's name and two brackets.
_WRAPPER = re.compile(
    rb"(?:\b([A-Za-z_]\w*)|\([ \t]*\*+[ \t]*[A-Za-z_]\w*[ \t]*\))[ \t]+([A-Z_][A-Z0-9_]*[ \t]*\()[ \t]*\("
)
_TYPE_FOLLOWS_WORDS = frozenset(_TYPE_FOLLOWS.split(b"|"))
_NO_FUNCTION = _TYPE_FOLLOWS_WORDS | frozenset(TYPE_WORDS.split(b"|"))  # no wrapped function's name
# The tokens a parameter list is scanned by: strings and comments skipped whole.
_TOKENS = re.compile(rb'"(?:[^"\\\n]|\\.)*"|\'(?:[^\'\\\n]|\\.)*\'|/\*.*?\*/|//[^\n]*|[(),;{}]', re.DOTALL)
_WRAPPED_SPAN = 2000  # bytes a wrapped list may take
_PARAMETER = re.compile(rb"(?:/\*.*?\*/|\s)*(?:[A-Za-z_]|\.\.\.)", re.DOTALL)
_AFTER_LIST = re.compile(rb"[ \t]*(?:[;{,)\n]|/[/*]|[A-Za-z_]|$)")
_AROUND_CLOSE = re.compile(rb"\s*\)")
_NESTED = rb"\(" + PLAIN + rb"(?:" + ARGUMENTS + PLAIN + rb")*\)"  # two levels: ``((aligned(1)))``
_TYPEDEF_ATTRIBUTES = re.compile(
    rb"(?m)^([ \t]*typedef\b[^;{}()\n]*?[ \t])((?:__attribute__|__attribute|__declspec)[ \t]*" + _NESTED + rb")"
    rb"(?=[ \t]*[\w*(])"
)


def class_names(data: bytes) -> frozenset[bytes]:
    """The names of the classes, structs and unions ``data`` declares: a function so named is a
    constructor, after no return type."""
    return frozenset(_CLASS_NAMES.findall(data)) if b"class" in data or b"struct" in data else frozenset()


def declaration_head(line: bytes, following: bytes = b"", classes: frozenset[bytes] = frozenset()) -> bytes:
    """``line`` with the export and attribute macros about a declaration's type and name
    blanked; read with ``following``, the next line, where that opens with the name.
    ``classes``: the names of the file's classes (``class_names``)."""
    if following and b"(" not in line and opens_with_name(following):
        return _head(line + b" " + following, classes)[: len(line)]
    return _head(line, classes)


def opens_with_name(line: bytes) -> bool:
    """Whether ``line`` opens with a declaration's name and its parameters' bracket."""
    return _NAME_OPENS.match(line) is not None


def _head(line: bytes, classes: frozenset[bytes]) -> bytes:
    line = _BEFORE_DECLARATION.sub(lambda m: _before_declaration(m, classes), line)
    line = _BEFORE_NAME.sub(_before_name, line)
    line = _AFTER_TYPE_NAME.sub(blank_group, line)
    line = _BEFORE_TYPE_WORD.sub(blank_second, line)
    return _AFTER_TYPE_WORD.sub(blank_group, line)


def _before_declaration(found: re.Match[bytes], classes: frozenset[bytes]) -> bytes:
    """A ``_BEFORE_DECLARATION`` match, its macros blanked but the last where that is the
    return type: no arguments, and nothing but a name after it that is no constructor's nor
    a macro's."""
    calls = found.group(2)
    kept = _LAST_CALL.search(calls)
    name = _NAME_FOLLOWS.match(found.string, found.end())
    if name is None or name.group(2).isupper():  # a macro's call (``XXH3_ACCUMULATE_TEMPLATE(avx2)``)
        kept = None
    elif name.group(2) in classes or name.group(1) == name.group(2):  # a constructor
        kept = None
    if kept is None:
        return found.group(1) + b" " * len(calls)
    return found.group(1) + b" " * kept.start() + calls[kept.start() :]


def _before_name(found: re.Match[bytes]) -> bytes:
    """A ``_BEFORE_NAME`` match blanked, but where a word a type follows stands before it
    (``static PY_LONG_LONG`` then ``_my_PyLong_AsLongLong(…)``: it is the return type)."""
    before = _LAST_WORD.search(found.string, 0, found.start())
    return found.group(0) if before is not None and before.group(1) in _TYPE_FOLLOWS_WORDS else blank_match(found)


def typedef_attributes(data: bytes) -> bytes:
    """``data`` with the attributes between a ``typedef`` and its declarator blanked."""
    return _TYPEDEF_ATTRIBUTES.sub(blank_second, data) if b"typedef" in data else data


def wrapped_parameters(data: bytes) -> bytes:
    """``data`` with the macros that wrap a parameter list (``OF((…))``) blanked, and the
    outer brackets of their calls."""
    if b"((" not in data and b"( (" not in data:
        return data
    out: bytearray | None = None
    for found in _WRAPPER.finditer(data):
        if found.group(1) in _NO_FUNCTION or _in_directive(data, found.start()):
            continue
        close = _wrapped_list(data, found.end(2))
        if close is not None:
            out = out if out is not None else bytearray(data)
            out[found.start(2) : found.end(2)] = b" " * (found.end(2) - found.start(2))
            out[close] = ord(" ")
    return bytes(out) if out is not None else data


def _in_directive(data: bytes, at: int) -> bool:
    """Whether ``at`` lies on a directive's line, or a line one goes on onto (``\\``)."""
    start = data.rfind(b"\n", 0, at) + 1
    if data[start:at].lstrip().startswith(b"#"):
        return True
    above = data[data.rfind(b"\n", 0, start - 1) + 1 : start - 1] if start > 1 else b""
    return above.rstrip(b" \t").endswith(b"\\")  # the line above goes on onto this one


def _wrapped_list(data: bytes, start: int) -> int | None:
    """Where the outer bracket of a wrapper's call that opens before ``start`` closes,
    where it holds a parameter list alone (the inner brackets, each entry opening with a
    name or ``...``) and a declaration's end, body or attributes follow; else None."""
    inner = data.index(b"(", start)
    close, entries = _closing(data, inner)
    if close is None:
        return None
    after = _AROUND_CLOSE.match(data, close + 1)
    if after is None or _AFTER_LIST.match(data, after.end()) is None:
        return None
    if any(_PARAMETER.match(entry) is None for entry in entries) and data[inner + 1 : close].strip():
        return None
    return after.end() - 1


def _closing(data: bytes, opening: int) -> tuple[int | None, list[bytes]]:
    """Where the bracket at ``opening`` closes, and the entries its commas part; None where a
    statement's end or a block comes first, or it goes on past ``_WRAPPED_SPAN``."""
    depth, entries, entry = 0, [], opening + 1
    for token in _TOKENS.finditer(data, opening, min(len(data), opening + _WRAPPED_SPAN)):
        text = token.group(0)
        if text == b"(":
            depth += 1
        elif text == b")":
            depth -= 1
            if depth == 0:
                entries.append(data[entry : token.start()])
                return token.start(), entries
        elif text == b"," and depth == 1:
            entries.append(data[entry : token.start()])
            entry = token.end()
        elif text in (b";", b"{", b"}"):
            return None, []
    return None, []
