"""What Swift's grammar cannot read, as expo-modules-core writes it, read again on the real
grammar: ``#if`` groups around a ``switch``'s cases (``parsers/conditionals.py``), a prefix
keyword before a name a ``{`` follows, ``[~T.self]`` and a parameter's attributes
(``parsers/swift_gaps.py``)."""

from __future__ import annotations

from recalld.parsers import parse
from recalld.parsers.conditionals import Conditionals
from recalld.parsers.swift_gaps import readable

# expo-modules-core 58's AppContext.swift, cut: a switch's cases in #if groups cost it its class
SWITCH_CASES = """\
public class AppContext: NSObject {
  @objc
  private func handleClientAppNotification(_ notification: Notification) {
    switch notification.name {
    #if os(iOS) || os(tvOS)
    case UIApplication.willEnterForegroundNotification:
      moduleRegistry.post(event: .appEntersForeground)
    #elseif os(macOS)
    case NSApplication.willUnhideNotification:
      moduleRegistry.post(event: .appEntersForeground)
    #endif
    default:
      return
    }
  }

  @objc
  public func hasModule(_ moduleName: String) -> Bool {
    #expect(moduleName != "")
    return moduleRegistry.has(moduleWithName: moduleName)
  }
}
"""


def test_a_switchs_cases_in_if_groups_are_read() -> None:
    result = parse("swift", SWITCH_CASES.encode())
    got = {s.qualname: (s.start_line, s.end_line) for s in result.symbols[1:]}
    assert result.syntax_errors == 0
    assert got == {
        "AppContext": (1, 22),
        "AppContext.handleClientAppNotification": (2, 15),
        "AppContext.hasModule": (17, 21),
    }


def test_swifts_directives_are_its_conditional_compilations_alone() -> None:
    """A line that starts with a macro (``#expect(…)``, ``#Preview {``) is code, not a
    directive to blank; ``#elseif`` parts a group's branches."""
    conditionals = Conditionals(SWITCH_CASES.encode(), language="swift")
    assert [d.word for d in conditionals.directives] == [b"if", b"elseif", b"endif"]
    build = conditionals.build(conditionals.groups, undefined_is=True)
    assert b"willEnterForeground" in build and b"willUnhide" not in build
    assert b"#expect(moduleName" in build and len(build) == len(SWITCH_CASES.encode())


# expo-modules-core 1.12 to 58: a prefix keyword's operand ending in a name a ``{`` follows,
# ``~`` first in an array, a parameter of two attributes
KEYWORDS = """\
public final class SharedObjectRegistry {
  internal func add(native nativeObject: SharedObject, js jsObject: JavaScriptObject) -> SharedObjectId {
    if let runtime = try? appContext?.runtime {
      jsObject.setNativeState(runtime)
    }
    return nativeObject.sharedObjectId
  }

  internal func call(_ result: consuming Result<Any, Error>, promise: Promise) {
    switch consume result {
    case .success(let value):
      promise.resolve(value)
    case .failure(let error):
      promise.reject(error)
    }
  }

  var dynamicTypes: [AnyDynamicType] {
    return [~OwnerType.self, ~ValueType.self]
  }

  public func Class<SharedObjectType: SharedObject>(
    _ name: String? = nil,
    @ClassDefinitionBuilder<SharedObjectType> @_implicitSelfCapture _ elements: () -> [AnyClassDefinitionElement]
  ) -> ClassDefinition {
    return ClassDefinition(name: name, elements: elements())
  }

  init(copy other: SharedObjectRegistry) {
    self.pairs = other.copy()
  }
}
"""


def test_what_swifts_grammar_cannot_read_in_expo_is_read_again() -> None:
    result = parse("swift", KEYWORDS.encode())
    got = {s.qualname: (s.start_line, s.end_line) for s in result.symbols[1:]}
    assert result.syntax_errors == 0
    assert got == {
        "SharedObjectRegistry": (1, 32),
        "SharedObjectRegistry.add": (2, 7),
        "SharedObjectRegistry.call": (9, 16),
        "SharedObjectRegistry.dynamicTypes": (18, 20),
        "SharedObjectRegistry.Class": (22, 27),
        "SharedObjectRegistry.init": (29, 31),
    }
    add = next(s for s in result.symbols if s.qualname == "SharedObjectRegistry.Class")
    assert "@ClassDefinitionBuilder<SharedObjectType> @_implicitSelfCapture _ elements" in add.signature


def test_the_swift_rewrite_keeps_every_line_and_length_and_labels() -> None:
    data = KEYWORDS.encode()
    rewritten = readable(data)
    assert len(rewritten) == len(data) and rewritten.count(b"\n") == data.count(b"\n")
    assert b"try?" not in rewritten and b"consume result" not in rewritten and b"[~" not in rewritten
    assert b"@_implicitSelfCapture _ elements" in rewritten and b"@ClassDefinitionBuilder" not in rewritten
    assert b"init(copy other:" in rewritten and b"other.copy()" in rewritten  # a label, a method
