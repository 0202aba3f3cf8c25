"""Objective-C as React Native and its libraries write it, on the real grammars: headers
told from C's and C++'s, classes declared and defined in one file, selectors, and the
macros the grammar cannot expand (``parsers/objc_macros.py``)."""

from __future__ import annotations

from recalld.parsers import parse
from recalld.parsers.macros import readable

# React Native's ``RCTBridgeDelegate.h``: a protocol whose members stand in an ``#ifndef``
HEADER = b"""\
#import <Foundation/Foundation.h>

@class RCTBridge;

NS_ASSUME_NONNULL_BEGIN

typedef NSString *RCTBridgeKey NS_TYPED_EXTENSIBLE_ENUM;

/** Gives a bridge its source. */
@protocol RCTBridgeDelegate <NSObject>
#ifndef RCT_FIT_RM_OLD_RUNTIME
/** The location of the JavaScript source file. */
- (NSURL *__nullable)sourceURLForBridge:(RCTBridge *)bridge;
#endif
@optional
- (BOOL)bridge:(RCTBridge *)bridge didNotFindModule:(NSString *)moduleName;
@end

@interface RCTBundleManager : NSObject
- (instancetype)initWithBridge:(RCTBridge *)bridge NS_DESIGNATED_INITIALIZER;
+ (instancetype)new NS_UNAVAILABLE;
@end

NS_ASSUME_NONNULL_END
"""

# React Native's module macros: a converter over many lines, a method whose selector a macro
# wraps (clang-format breaks it before each colon), one remapped, one with an attribute
# macro after its head, and a module written in Swift, its methods declared by macros.
MODULE = b"""\
@implementation RCTConvert (UIScrollView)

RCT_ENUM_CONVERTER(
    UIScrollViewKeyboardDismissMode,
    (@{
      @"none" : @(UIScrollViewKeyboardDismissModeNone),
      @"on-drag" : @(UIScrollViewKeyboardDismissModeOnDrag),
    }),
    UIScrollViewKeyboardDismissModeNone,
    integerValue)

+ (UIKeyboardType)UIKeyboardType:(id)json RCT_DYNAMIC
{
  return UIKeyboardTypeDefault;
}

@end

@implementation RCTSwitchManager

RCT_EXPORT_MODULE()

RCT_EXPORT_VIEW_PROPERTY(onTintColor, UIColor);

RCT_EXPORT_METHOD(setValue
                  : (nonnull NSNumber *)viewTag toValue
                  : (BOOL)value)
{
  [self.bridge.uiManager addUIBlock:^(RCTUIManager *uiManager, NSDictionary *viewRegistry) {
    UISwitch *view = viewRegistry[viewTag];
    [view setOn:value animated:NO];
  }];
}

RCT_REMAP_METHOD(reloadWithReason, reload:(NSString *)reason)
{
}

RCT_EXPORT_METHOD(invalidate)
{
}

@end

@interface RCT_EXTERN_REMAP_MODULE(CameraView, CameraViewManager, RCTViewManager)

RCT_EXTERN_METHOD(getCameraPermissionStatus:(RCTPromiseResolveBlock)resolve reject:(RCTPromiseRejectBlock)reject);

@end
"""


def test_an_objective_c_header_is_objective_cs():
    result = parse("c", HEADER, path="React/Base/RCTBridgeDelegate.h")
    assert (result.language, result.syntax_errors) == ("objc", 0)
    got = {s.qualname: (s.kind, s.signature, s.docstring) for s in result.symbols[1:]}
    assert got == {
        # an attribute macro after a typedef's name is no name
        "RCTBridgeKey": ("type", "typedef NSString *RCTBridgeKey NS_TYPED_EXTENSIBLE_ENUM", ""),
        "RCTBridgeDelegate": ("interface", "@protocol RCTBridgeDelegate <NSObject>", "Gives a bridge its source."),
        "RCTBridgeDelegate.sourceURLForBridge:": (
            "method", "- (NSURL *__nullable)sourceURLForBridge:(RCTBridge *)bridge",
            "The location of the JavaScript source file.",
        ),
        "RCTBridgeDelegate.bridge:didNotFindModule:": (
            "method", "- (BOOL)bridge:(RCTBridge *)bridge didNotFindModule:(NSString *)moduleName", "",
        ),
        "RCTBundleManager": ("class", "@interface RCTBundleManager : NSObject", ""),
        # an attribute macro after the parameters is no part of the selector
        "RCTBundleManager.initWithBridge:": (
            "method", "- (instancetype)initWithBridge:(RCTBridge *)bridge NS_DESIGNATED_INITIALIZER", "",
        ),
        "RCTBundleManager.new": ("method", "+ (instancetype)new NS_UNAVAILABLE", ""),
    }  # fmt: skip


def test_c_and_cpp_headers_stay_theirs():
    c = parse("c", b"/** Adds. */\nint add(int a, int b);\n", path="add.h")
    cpp = parse("c", b"namespace util {\nclass Box {\n public:\n  int size() const;\n};\n}\n", path="box.h")
    # a Doxygen ``@param`` and an email's ``@`` are no Objective-C
    doxygen = parse("c", b"/**\n * @param a a number\n * @interface none\n */\nint twice(int a);\n", path="t.h")
    assert (c.language, [s.qualname for s in c.symbols[1:]]) == ("c", ["add"])
    assert (cpp.language, [s.qualname for s in cpp.symbols[1:]]) == ("cpp", ["util.Box", "util.Box.size"])
    assert (doxygen.language, [s.qualname for s in doxygen.symbols[1:]]) == ("c", ["twice"])


def test_react_natives_macros_read_as_what_they_declare():
    result = parse("objc", MODULE, path="RCTSwitchManager.m")
    assert result.syntax_errors == 0
    got = {s.qualname: (s.kind, s.start_line, s.end_line) for s in result.symbols[1:]}
    assert got == {
        "RCTConvert.UIKeyboardType:": ("method", 12, 15),
        "RCTSwitchManager": ("class", 19, 43),
        "RCTSwitchManager.setValue:toValue:": ("method", 25, 33),
        "RCTSwitchManager.reload:": ("method", 35, 37),
        "RCTSwitchManager.invalidate": ("method", 39, 41),
        "CameraViewManager": ("class", 45, 49),
        "CameraViewManager.getCameraPermissionStatus:reject:": ("method", 47, 47),
    }
    module = next(s for s in result.symbols if s.qualname == "CameraViewManager")
    assert module.signature == "@interface RCT_EXTERN_REMAP_MODULE(CameraView, CameraViewManager, RCTViewManager)"
    exported = next(s for s in result.symbols if s.name == "setValue:toValue:")
    # the text is the source's as written, the macro and its line breaks too
    assert exported.signature == "RCT_EXPORT_METHOD(setValue : (nonnull NSNumber *)viewTag toValue : (BOOL)value)"
    assert exported.source.startswith("RCT_EXPORT_METHOD(setValue\n")


def test_the_macros_are_read_the_same_length_and_lines():
    read = readable(MODULE)
    assert len(read) == len(MODULE)
    assert [i for i, b in enumerate(read) if b == 10] == [i for i, b in enumerate(MODULE) if b == 10]
    assert b"RCT_ENUM_CONVERTER" not in read and b"@\"on-drag\"" not in read
    assert b"-                 setValue" in read


def test_a_class_declared_and_defined_in_one_file_is_one_class():
    source = b"""\
/** A counter. */
@interface Counter : NSObject
/** Adds one. */
- (void)increment;
- (void)decrementBy:(NSInteger)step;
+ (instancetype)shared;
@end

@implementation Counter
- (void)increment {}
+ (void)increment {}
+ (instancetype)shared { return nil; }
@end
"""
    result = parse("objc", source, path="Counter.m")
    got = {s.qualname: (s.kind, s.start_line, s.docstring) for s in result.symbols[1:]}
    assert got == {
        "Counter.decrementBy:": ("method", 5, ""),  # declared, defined nowhere in the file
        "Counter": ("class", 9, "A counter."),
        "Counter.increment": ("method", 10, "Adds one."),
        "Counter.class.increment": ("method", 11, ""),
        "Counter.shared": ("method", 12, ""),  # no instance method of its name: plain
    }


def test_objective_c_plus_plus_is_read():
    source = b"""\
#import <memory>

using namespace facebook::react;

@implementation RCTSurface {
  std::shared_ptr<SurfaceHandler> _handler;
}

- (instancetype)initWithHandler:(std::shared_ptr<SurfaceHandler>)handler
{
  _handler = handler;
  return self;
}

- (void)start
{
  _handler->start();
}

@end
"""
    result = parse("objc", source, path="RCTSurface.mm")
    assert [s.qualname for s in result.symbols[1:]] == [
        "RCTSurface", "RCTSurface.initWithHandler:", "RCTSurface.start",
    ]  # fmt: skip


def test_a_character_literal_opens_no_block():
    """Members are found by their braces' depth: a ``'{'`` in a method's body is no brace,
    or the exported method after it would be read as a statement of the body."""
    source = b"@implementation A\n- (void)a\n{\n  char c = '{';\n}\nRCT_EXPORT_METHOD(go:(int)x)\n{\n}\n@end\n"
    result = parse("objc", source, path="A.m")
    assert [(s.qualname, s.start_line) for s in result.symbols[1:]] == [("A", 1), ("A.a", 2), ("A.go:", 6)]


def test_objective_c_plus_plus_is_read_with_its_scopes_and_references():
    """Objective-C's grammar reads no ``::`` nor C++'s references: a method whose parameters
    are C++ types was read as an error (React Native's Fabric views). A second reading
    (``parsers/objcpp_gaps.py``) gives them to it as one name and a pointer."""
    source = b"""\
using namespace facebook::react;

@implementation RCTViewComponentView

- (void)updateProps:(const Props::Shared &)props oldProps:(const Props::Shared &)oldProps
{
  const auto &newProps = *props;
  _state = facebook::react::State::Shared(nullptr);
  [self apply:newProps];
}

- (void)updateState:(const State::Shared &)state oldState:(const State::Shared &)oldState
{
}

@end
"""
    result = parse("objc", source, path="RCTViewComponentView.mm")
    assert result.syntax_errors == 0
    assert [(s.qualname, s.start_line) for s in result.symbols[1:]] == [
        ("RCTViewComponentView", 3),
        ("RCTViewComponentView.updateProps:oldProps:", 5),
        ("RCTViewComponentView.updateState:oldState:", 12),
    ]
    # the text is the source's as written
    assert result.symbols[2].signature == (
        "- (void)updateProps:(const Props::Shared &)props oldProps:(const Props::Shared &)oldProps"
    )
