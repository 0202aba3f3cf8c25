"""Kotlin and Swift as React Native, Expo and their libraries write them, on the real
grammars: what Kotlin's grammar cannot read (``parsers/kotlin_gaps.py``), Swift's
extensions, argument labels and operators."""

from __future__ import annotations

from recalld.parsers import parse
from recalld.parsers.kotlin_gaps import readable

# React Native 0.88's ``ReadableMapBuffer.kt`` as ktfmt writes a long class head, with a
# setter annotated on its line (``ReleaseDevSupportManager.kt``) and ``dynamic`` as a name
# (``DynamicFromMap.kt``)
KTFMT = """\
package com.facebook.react.common.mapbuffer

/** A map buffer read from native code. */
@DoNotStrip
public class ReadableMapBuffer
@DoNotStrip
private constructor(
    // Byte data of the mapBuffer
    private val buffer: ByteBuffer,
    private val offsetToMapBuffer: Int,
) : HybridClassBase(), MapBuffer {

  override var devSupportEnabled: Boolean
    get() = false
    @Suppress("UNUSED_PARAMETER") set(value) = Unit

  /** Reads an entry. */
  fun entryAt(index: Int): Entry {
    val dynamic = pool.get()?.acquire() ?: DynamicFromMap()
    return dynamic.entry(index)
  }

  fun dynamic(): Int = 0

  private companion object {
    @JvmStatic private external fun importByteBuffer(): ByteBuffer
  }
}
"""


def test_what_kotlins_grammar_cannot_read_is_read_again():
    result = parse("kotlin", KTFMT.encode())
    got = {s.qualname: (s.kind, s.start_line, s.end_line) for s in result.symbols[1:]}
    assert result.syntax_errors == 0
    assert got == {
        "ReadableMapBuffer": ("class", 4, 28),
        "ReadableMapBuffer.devSupportEnabled": ("method", 13, 15),
        "ReadableMapBuffer.entryAt": ("method", 18, 21),
        "ReadableMapBuffer.dynamic": ("method", 23, 23),
        "ReadableMapBuffer.importByteBuffer": ("method", 26, 26),
    }
    head = result.symbols[1]
    # the text is the source's as written: the constructor's annotation is in the class's head
    assert head.signature.startswith("@DoNotStrip public class ReadableMapBuffer @DoNotStrip private constructor(")
    assert head.docstring == "A map buffer read from native code."


def test_the_kotlin_rewrite_keeps_every_line_and_length():
    data = KTFMT.encode()
    rewritten = readable(data)
    assert len(rewritten) == len(data) and rewritten.count(b"\n") == data.count(b"\n")
    assert b"@DoNotStrip\npublic class" in rewritten  # a class's own annotation stays
    assert b"@Suppress" not in rewritten and b"dynamic" not in rewritten
    assert readable(b"class A\n@Inject\nconstructor(val a: Int)\n") == b"class A\n@Inject\nconstructor(val a: Int)\n"


def test_a_multiplatform_primary_constructor_on_its_own_line_is_read():
    """kotlinx' and the standard library's ``internal actual constructor(`` under the class."""
    data = b"public actual class Mutex\ninternal actual constructor(locked: Boolean) {\n    fun lock() {}\n}\n"
    result = parse("kotlin", data)
    assert result.syntax_errors == 0
    got = [(s.qualname, s.start_line, s.end_line) for s in result.symbols[1:]]
    assert got == [("Mutex", 1, 4), ("Mutex.lock", 3, 3)]


SWIFT = """\
import UIKit

/// A camera's output.
public final class CameraOutput: NSObject {
  public init(device: Device) {}

  public init(device: Device, format: Format) {}

  func capture(to url: URL) {}

  func capture(into buffer: Buffer) {}
}

extension CameraOutput: Comparable {
  /// Orders outputs by their device.
  public static func < (lhs: CameraOutput, rhs: CameraOutput) -> Bool { true }

  struct Options {
    var quality: Double { 1 }
  }
}

extension Array<CameraOutput>.SubSequence {
  func first(matching device: Device) -> CameraOutput? { nil }
}
"""


def test_swift_names_members_by_their_labels_and_extensions_by_the_type():
    result = parse("swift", SWIFT.encode())
    got = {s.qualname: (s.kind, s.start_line) for s in result.symbols[1:]}
    assert result.syntax_errors == 0
    assert got == {
        "CameraOutput": ("class", 4),
        "CameraOutput.init(device: Device)": ("method", 5),
        "CameraOutput.init(device: Device, format: Format)": ("method", 7),
        "CameraOutput.capture(to: URL)": ("method", 9),
        "CameraOutput.capture(into: Buffer)": ("method", 11),
        "CameraOutput.<": ("method", 16),
        "CameraOutput.Options": ("struct", 18),
        "CameraOutput.Options.quality": ("method", 19),
        "Array.SubSequence.first": ("method", 24),
    }
    less = next(s for s in result.symbols if s.qualname == "CameraOutput.<")
    assert less.docstring == "Orders outputs by their device."


# swift-collections' ``OrderedSet`` (Swift 6.2's own packages) and vision-camera's queues
OWNERSHIP = """\
extension OrderedSet {
  /// Adds the elements of a sequence.
  @inlinable
  public mutating func formUnion(_ other: __owned Self) {
    append(contentsOf: other)
  }

  @inlinable
  public mutating func formUnion(_ other: __owned some Sequence<Element>) {
    append(contentsOf: other)
  }

  @inlinable
  public __consuming func union(_ other: __owned Self) -> Self {
    queue.setSpecific(key: key, value: ())
    return self
  }
}
"""


def test_what_swifts_grammar_cannot_read_is_read_again():
    result = parse("swift", OWNERSHIP.encode())
    got = {s.qualname: (s.start_line, s.end_line) for s in result.symbols[1:]}
    assert result.syntax_errors == 0
    assert got == {
        "OrderedSet.formUnion(Self)": (3, 6),
        "OrderedSet.formUnion(some Sequence)": (8, 11),
        "OrderedSet.union": (13, 17),
    }
    union = next(s for s in result.symbols if s.qualname == "OrderedSet.union")
    assert union.signature == "@inlinable public __consuming func union(_ other: __owned Self) -> Self"


def test_what_a_block_defines_is_no_member_of_the_type_around_it():
    """A function an ``init`` block (Kotlin) or a property's ``didSet`` (Swift) defines is
    that block's own, as one a method's body defines is."""
    kotlin = parse("kotlin", b"class A {\n  init {\n    fun helper() {}\n  }\n\n  fun run() {}\n}\n")
    swift = parse("swift", b"class A {\n  var x: Int = 0 {\n    didSet { func h() {} }\n  }\n\n  func run() {}\n}\n")
    assert [s.qualname for s in kotlin.symbols[1:]] == ["A", "A.run"]
    assert [s.qualname for s in swift.symbols[1:]] == ["A", "A.run"]


def test_an_annotation_class_under_annotations_is_read_as_a_class():
    """``annotation class Required`` after annotations, with no modifier, parameters nor body,
    is read by Kotlin's grammar as an infix call with no error (expo-modules-core's
    ``Required.kt``): a file holding one is read again with those annotations blanked. In
    a file read again for its errors, ``@Target(`` is an annotation, not ``@Tar`` before an
    accessor's ``get(``."""
    clean = (
        b"package a\n\n@Target(AnnotationTarget.FIELD)\n@Retention(AnnotationRetention.RUNTIME)\n"
        b"annotation class Required\n"
    )
    result = parse("kotlin", clean)
    assert result.syntax_errors == 0
    assert [(s.kind, s.qualname, s.start_line) for s in result.symbols[1:]] == [("class", "Required", 5)]
    broken = b"""\
class Buffer
@DoNotStrip
private constructor(private val size: Int) {
  @Target(AnnotationTarget.FUNCTION) annotation class Hot
  fun read(): Int = size
}
"""
    result = parse("kotlin", broken)
    assert result.syntax_errors == 0
    assert [s.qualname for s in result.symbols[1:]] == ["Buffer", "Buffer.Hot", "Buffer.read"]
