"""What Apple's and Objective-C libraries' macros hide from the grammar, given to it the
same length, byte for byte, before the macros ``macros.py`` blanks (``macros.readable``):

- an enum declared by a macro (``typedef NS_ENUM(NSInteger, Kind) {…}``, ``NS_OPTIONS``,
  ``NS_CLOSED_ENUM``, CoreFoundation's ``CF_ENUM``): read as ``enum Kind {…}``, its
  underlying type and the ``typedef`` blanked;
- a method a class's ``@implementation`` defines, or its ``@interface`` declares, through a
  macro that wraps its selector (React Native's ``RCT_EXPORT_METHOD(setValue:(NSNumber
  *)tag toValue:(BOOL)value) {…}``, ``RCT_REMAP_METHOD(jsName, selector)``, its
  ``RCT_EXTERN_METHOD(…);`` of a method written in Swift): read as the method ``-
  setValue:(NSNumber *)tag toValue:(BOOL)value {…}``, what stands before the selector
  blanked. A name alone is a selector only where it is the macro's one argument and a
  block follows (not ``RCT_EXPORT_VIEW_PROPERTY(color, UIColor);``);
- an attribute macro after a method's head, before its block (``+ (UIKeyboardType)
  UIKeyboardType:(id)json RCT_DYNAMIC {``): blanked, as a declaration's are read;
- attribute macros before a class's head on its line (GNUstep's ``GS_ROOT_CLASS
  @interface GSPlaceHolder``), and export macros before a declaration of an object's
  type (``GS_DECLARE NSString *const NSConnectionDidDieNotification = @"…";``), and after a
  typedef's name (``typedef NSString *RCTKey NS_TYPED_EXTENSIBLE_ENUM;``): blanked;
- a class's ``@interface`` whose head a macro writes, its name and superclass last among
  its arguments (``@interface RCT_EXTERN_MODULE(Calendar, NSObject)``, React Native's for
  a module written in Swift): read as ``@interface Calendar: NSObject``;
- any other macro's call among a class's members that ends its line, over however many
  lines (``RCT_ENUM_CONVERTER(…)`` of a dictionary written a key a line): blanked, its
  ``;`` too;
- the ``#if`` groups among a class's members (a method under ``#ifndef
  RCT_FIT_RM_OLD_RUNTIME``), which the grammar reads among statements only: reduced to
  their first branches, their directive lines blanked, as a build would see them where
  every first condition holds (a method only an ``#else`` defines is left out).

Definitions read their text from the source as written: only the tree sees this.
"""

from __future__ import annotations

import re

from recalld.parsers.c_tokens import ARGUMENTS, STRING, blank_group, blank_lines

_MACRO = rb"[A-Z][A-Z0-9]*_[A-Z0-9_]*"  # a macro's name: capitals, digits and underscores, with an underscore
_ENUM = re.compile(
    rb"^([ \t]*)(typedef)([ \t]+)([A-Z][A-Z0-9]*_(?:[A-Z0-9]+_)*(?:ENUM|OPTIONS)[ \t]*\()"
    rb"([^,()\n]*,[ \t]*)(\w+)([ \t]*\))",
    re.MULTILINE,
)
# A class's or a protocol's members (not ``@protocol Delegate;``, a forward declaration)
_CLASS = re.compile(
    rb"^[ \t]*@(?:implementation|interface|protocol(?![^\n{]*;))\b.*?^[ \t]*@end\b", re.MULTILINE | re.DOTALL
)
_HEAD = re.compile(
    rb"^([ \t]*@interface[ \t]+)(" + _MACRO + rb"[ \t]*\((?:[ \t]*\w+[ \t]*,)*?[ \t]*)(\w+)([ \t]*),"
    rb"([ \t]*\w+[ \t]*)\)",
    re.MULTILINE,
)
# What a wrapper's arguments hold before its selector (``jsName, ``), and the selector's
# start: a name alone, or a keyword and its parameter's type (``setValue:(``).
_BEFORE_SELECTOR = re.compile(rb"\A(?:[^,()]*,)?\s*")
_SELECTOR = re.compile(rb"\s*\w+\s*(?::\s*\(|\Z)")
_KEYWORD = re.compile(rb"\s*\w+\s*:\s*\(")  # a selector's first keyword and its parameter's type
_CHARACTER = rb"'(?:[^'\\\n]|\\.)*'"  # a character literal: ``'{'`` opens no block
_TOKENS = re.compile(rb"(?:" + STRING + rb")|" + _CHARACTER + rb"|//[^\n]*|/\*.*?\*/|[()]", re.DOTALL)
_MEMBER_TOKENS = re.compile(
    rb"(?:" + STRING + rb")|" + _CHARACTER + rb"|//[^\n]*|/\*.*?\*/|[{}]|^[ \t]*(" + _MACRO + rb"[ \t]*\()"
    rb"|^[ \t]*#[ \t]*(if|ifdef|ifndef|elif|else|endif)\b[^\n]*", re.DOTALL | re.MULTILINE
)
# Attribute macros after a method's head, before its block (``+ (UIKeyboardType)UIKeyboardType:(id)json
# RCT_DYNAMIC``), which its grammar reads in a declaration only.
_ATTRIBUTES = re.compile(
    rb"^([ \t]*[-+][ \t]*\([^\n;{]*?[\w)])((?:[ \t]+" + _MACRO + rb"(?:[ \t]*" + ARGUMENTS + rb")?)+)"
    rb"(?=[ \t]*(?:\{|//|/\*|$))",
    re.MULTILINE,
)
# Attribute macros before a class's head on its line (GNUstep's ``GS_ROOT_CLASS @interface
# GSPlaceHolder``, ``GS_EXPORT_CLASS @interface NSString``)
_BEFORE_CLASS = re.compile(
    rb"^[ \t]*((?:" + _MACRO + rb"(?:[ \t]*" + ARGUMENTS + rb")?[ \t]+)+)(?=@(?:interface|implementation|protocol)\b)",
    re.MULTILINE,
)
# Export macros before a declaration of an object's type on one line (GNUstep's ``GS_DECLARE
# NSString *const NSConnectionDidDieNotification = @"…";``, React Native's ``RCT_EXTERN
# NSString *const``); one whose name opens the next line is ``macros.py``'s to read
_BEFORE_OBJECT_TYPE = re.compile(
    rb"^[ \t]*((?:" + _MACRO + rb"[ \t]+)+)(?=(?:const[ \t]+)?[A-Z]\w*(?:<[^<>\n]*>)?[ \t]*\*[^\n]*[;=])", re.MULTILINE
)
# Attribute macros after a typedef's name (``typedef NSString *RCTKey NS_TYPED_EXTENSIBLE_ENUM;``,
# ``NS_SWIFT_NAME(Key)``), which the grammar read as the name
_AFTER_TYPEDEF_NAME = re.compile(
    rb"^[ \t]*typedef\b[^;{}\n]*?\w[ \t]+((?:" + _MACRO + rb"(?:[ \t]*" + ARGUMENTS + rb")?[ \t]*)+)(?=;)", re.MULTILINE
)
# Objective-C's own: a class's, a protocol's or a forward declaration's keyword, an ``#import``
_OBJECTIVE_C = re.compile(rb"^[ \t]*(?:@(?:interface|implementation|protocol|class)\b|#[ \t]*import\b)", re.MULTILINE)
_ENDS_LINE = re.compile(rb"[ \t]*(;?)[ \t]*(?://[^\n]*)?(?:\n|\Z)")
_AFTER = re.compile(rb"\s*(?://[^\n]*\n\s*|/\*.*?\*/\s*)*([{;])", re.DOTALL)  # a block or a ``;``, past comments


def readable(data: bytes) -> bytes:
    """``data`` with its enum macros and, in Objective-C, the macros around its classes,
    methods and declarations as the grammar reads them, the same length and lines."""
    if b"typedef" in data and b"(" in data:
        data = _ENUM.sub(_as_enum, data)
    if not _OBJECTIVE_C.search(data):
        return data
    data = _BEFORE_CLASS.sub(blank_group, data)
    data = _BEFORE_OBJECT_TYPE.sub(blank_group, data)
    if b"typedef" in data:
        data = _AFTER_TYPEDEF_NAME.sub(blank_group, data)
    if b"@interface" in data:
        data = _HEAD.sub(lambda m: m.group(1) + b" " * len(m.group(2)) + m.group(3) + m.group(4) + b":" + m.group(5)
                         + b" ", data)  # fmt: skip
    if b"@implementation" in data:
        data = _ATTRIBUTES.sub(lambda m: m.group(1) + b" " * len(m.group(2)), data)
    return _CLASS.sub(lambda m: _unwrapped_methods(m.group(0)), data)


def _as_enum(found: re.Match[bytes]) -> bytes:
    indent, typedef, space, macro, underlying, name, closing = found.groups()
    keyword = b"enum".ljust(len(macro))
    return indent + b" " * len(typedef) + space + keyword + b" " * len(underlying) + name + b" " * len(closing)


def _unwrapped_methods(block: bytes) -> bytes:
    """A class's ``@implementation`` or ``@interface`` with each macro among its members that
    wraps a method's selector, before the method's block or ``;``, read as the method
    itself, and each other call there that ends its line blanked, over all its lines (React
    Native's ``RCT_ENUM_CONVERTER(…)`` of a dictionary written a key a line)."""
    calls, directives = _member_calls(block)
    if directives:
        block = _one_build(block, directives)
    for found in reversed(calls):
        opened = found.end(1)
        closed = _closing(block, opened)
        if closed is None:
            continue
        after = _AFTER.match(block, closed + 1)
        follows = after.group(1) if after is not None else b""
        selector = _selector(block[opened:closed], follows)
        if selector is not None:  # ``-`` where the macro's name was, the rest up to the selector and ``)`` blanked
            start, end = found.start(1), opened + selector
            block = block[:start] + b"-" + b" " * (end - start - 1) + block[end:closed] + b" " + block[closed + 1 :]
        elif follows != b"{" and (ending := _ENDS_LINE.match(block, closed + 1)) is not None:
            end = ending.end(1)
            block = block[: found.start(1)] + blank_lines(block[found.start(1) : end]) + block[end:]
    return block


def _selector(arguments: bytes, follows: bytes) -> int | None:
    """Where the selector a macro's ``arguments`` wrap starts in them, before a block or a
    ``;`` (``follows``): after a first argument that is no selector (``jsName,``), a keyword
    and its parameter's type (``setValue:(``), or, before a block, the one argument a name
    alone (``RCT_EXPORT_METHOD(invalidate) {``); None where they wrap none."""
    if not follows:
        return None
    start = _BEFORE_SELECTOR.match(arguments)
    before = start.end() if start is not None else 0
    alone = follows == b"{" and not arguments[:before].strip()
    return before if (_SELECTOR if alone else _KEYWORD).match(arguments, before) else None


def _member_calls(block: bytes) -> tuple[list[re.Match[bytes]], list[re.Match[bytes]]]:
    """The macros' calls that open a line among a class's members, not in a method's body,
    and the conditional directives there."""
    depth, calls, directives = 0, [], []
    for token in _MEMBER_TOKENS.finditer(block):
        text = token.group(0)
        if text == b"{":
            depth += 1
        elif text == b"}":
            depth = max(0, depth - 1)
        elif depth == 0 and token.group(1) is not None:
            calls.append(token)
        elif depth == 0 and token.group(2) is not None:
            directives.append(token)
    return calls, directives


def _one_build(block: bytes, directives: list[re.Match[bytes]]) -> bytes:
    """``block`` with its members' conditional groups reduced to their first branches: the
    directive lines blanked, and the lines of the branches after the first (``#if``
    around a method: ``- (void)setBridge:`` under ``#ifndef RCT_FIT_RM_OLD_RUNTIME``, which
    the grammar reads among statements, not among a class's members)."""
    skipping: list[bool] = []  # by open group, innermost last: past its first branch
    blanked = bytearray(block)
    start = 0
    for directive in directives:
        word = directive.group(2)
        if any(skipping):
            blanked[start : directive.start()] = blank_lines(block[start : directive.start()])
        if word.startswith(b"if"):
            skipping.append(False)
        elif word in (b"elif", b"else") and skipping:
            skipping[-1] = True
        elif word == b"endif" and skipping:
            skipping.pop()
        blanked[directive.start() : directive.end()] = b" " * (directive.end() - directive.start())
        start = directive.end()
    return bytes(blanked)


def _closing(text: bytes, start: int) -> int | None:
    """Where the bracket opened before ``start`` closes, past nested ones, strings and
    comments; None where it does not within 32 KiB."""
    depth = 1
    for token in _TOKENS.finditer(text, start, min(len(text), start + 32768)):
        if token.group(0) == b"(":
            depth += 1
        elif token.group(0) == b")":
            depth -= 1
            if depth == 0:
                return token.start()
    return None
