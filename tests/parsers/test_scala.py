"""Scala on its real grammar, as its standard library and compiler write it: a class and its
companion object, overloads told apart by their parameter lists, members that are local."""

from __future__ import annotations

import pytest

from recalld.ingest.records import is_test_path
from recalld.parsers import parse

# scala.reflect.io.Path and scala.reflect.internal.Symbols' fullName, cut down
PATH = b"""\
object Path {
  def apply(path: String): Path = new Path(path)
  def extension(name: String): String = name
  def roots: List[Path] = Nil
}

class Path(val path: String) {
  def extension: String = path
  def fullName(separator: Char): String = fullName(separator, "")
  private def fullName(separator: Char, suffix: CharSequence): String = path
  final def fullName: String = fullName('.')
  def roots: List[Path] = Nil
  def resolve(other: String): Path = this
  def resolve[T: ClassTag](other: String, size: T)(implicit ordering: Ordering[T]): Path = this
  lazy val walker = new Runnable { def run(): Unit = () }
  val cache = { def load(): Int = 1; load() }
}
"""


def test_a_class_and_its_companion_object_share_their_name():
    found = {(s.kind, s.qualname) for s in parse("scala", PATH).symbols[1:]}
    assert found == {
        ("object", "Path"), ("class", "Path"),
        ("method", "Path.apply"), ("method", "Path.object.extension"), ("method", "Path.object.roots"),
        ("method", "Path.extension"), ("method", "Path.roots"),
        ("method", "Path.fullName(Char)"), ("method", "Path.fullName(Char, CharSequence)"), ("method", "Path.fullName"),
        ("method", "Path.resolve(String)"), ("method", "Path.resolve(String, T)(Ordering)"),
    }  # fmt: skip


def test_an_overload_added_leaves_the_others_names():
    first = b"class A {\n  def size: Int = 0\n  def size(unit: String): Int = 1\n}\n"
    added = b"class A {\n  def size(unit: Long): Int = 2\n  def size: Int = 0\n  def size(unit: String): Int = 1\n}\n"
    names = [s.qualname for s in parse("scala", first).symbols[1:]]
    assert names == ["A", "A.size", "A.size(String)"]
    assert {s.qualname for s in parse("scala", added).symbols[1:]} == {*names, "A.size(Long)"}


def test_overloads_alike_but_for_an_arrays_element_type_are_told_apart_by_it():
    """scala.util.Sorting's ``quickSort`` of ``Array[Double]``, ``Array[Int]``, ``Array[Float]``,
    which the JVM tells apart; a list's type arguments still read erased alone."""
    data = (b"object Sorting {\n  def quickSort(a: Array[Double]): Unit = ()\n"
            b"  def quickSort(a: Array[Int]): Unit = ()\n  def quickSort(a: Array[Float]): Unit = ()\n  def sorted(a: List[Int]): Unit = ()\n"
            b"  def sorted(a: Array[Int], n: Int): Unit = ()\n}\n")  # fmt: skip
    assert [s.qualname for s in parse("scala", data).symbols[2:]] == [
        "Sorting.quickSort(Array[Double])", "Sorting.quickSort(Array[Int])", "Sorting.quickSort(Array[Float])",
        "Sorting.sorted(List)", "Sorting.sorted(Array, Int)",
    ]  # fmt: skip


def test_scala_3_enums_extensions_and_givens():
    data = (b"enum Color(val rgb: Int):\n  case Red extends Color(0xff0000)\n  def hex: String = rgb.toHexString\n\n"
            b"extension (c: Circle)\n  def diameter: Double = c.radius * 2\n\n"
            b"given circleOrdering: Ordering[Circle] with\n  def compare(a: Circle, b: Circle): Int = 0\n\n"
            b"given Ordering[Color] with\n  def compare(a: Color, b: Color): Int = 0\n")  # fmt: skip
    found = [(s.kind, s.qualname, s.signature) for s in parse("scala", data).symbols[1:]]
    assert found == [
        ("enum", "Color", "enum Color(val rgb: Int)"),
        ("method", "Color.hex", "def hex: String"),
        ("method", "Circle.diameter", "def diameter: Double"),
        ("object", "circleOrdering", "given circleOrdering: Ordering[Circle] with"),
        ("method", "circleOrdering.compare", "def compare(a: Circle, b: Circle): Int"),
        ("object", "Ordering[Color]", "given Ordering[Color] with"),
        ("method", "Ordering[Color].compare", "def compare(a: Color, b: Color): Int"),
    ]  # fmt: skip


@pytest.mark.parametrize(
    ("path", "test"),
    [("core/src/main/scala/Path.scala", False), ("core/src/test/scala/PathSpec.scala", True),
     ("it/PathSuite.scala", True), ("lib/PathTest.scala", True), ("lib/Spec.scala", False)],
)  # fmt: skip
def test_scalatests_files_are_test_code(path: str, test: bool):
    assert is_test_path(path) is test
