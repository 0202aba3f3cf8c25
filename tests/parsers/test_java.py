"""Java's members: an enum constant's body's methods the constant's, a class local to a block
no member of the class around it."""

from __future__ import annotations

from recalld.parsers import parse


def test_java_enum_constant_bodies_are_the_constants_members():
    """guava 31.1's strategy enums implement a method per constant (102 methods in 17
    files: ``BloomFilterStrategies.MURMUR128_MITZ_64.put``); they were left out, to keep
    the plain name for the enum's own method. Named by their constant, both are kept."""
    source = (b"enum Strategy {\n  /** The fast one. */\n  FAST {\n    /** Puts fast. */\n"
              b"    @Override boolean put(int x) { return true; }\n  },\n"
              b"  SLOW(2) {\n    @Override boolean put(int x) { return false; }\n"
              b"    final Runnable r = new Runnable() { public void run() {} };\n  },\n  PLAIN;\n"
              b"  Strategy() {}\n  Strategy(int n) {}\n  abstract boolean put(int x);\n}\n")  # fmt: skip
    named = [(s.kind, s.qualname, s.docstring) for s in parse("java", source).symbols[1:]]
    assert named == [
        ("enum", "Strategy", ""), ("method", "Strategy.FAST.put", "Puts fast."), ("method", "Strategy.SLOW.put", ""),
        ("method", "Strategy.Strategy()", ""), ("method", "Strategy.Strategy(int)", ""), ("method", "Strategy.put", ""),
    ]  # fmt: skip


def test_java_classes_local_to_a_block_are_no_members():
    """A class declared in an initializer, or in a lambda's or a switch rule's block in a
    field's value, is local as one in a method is: they were the class's members
    (``T.Holder``, ``T.Local.run``), and took a nested class's name."""
    source = (b"class T {\n  static { class Holder { void a() {} } }\n  { class Local { void run() {} } }\n"
              b"  static Runnable R = () -> { class InLambda { void b() {} } };\n"
              b"  static Object O = switch (1) { default -> { class InRule {} yield null; } };\n"
              b"  void m() { class InMethod {} }\n  static class Nested { void c() {} }\n}\n")  # fmt: skip
    assert [s.qualname for s in parse("java", source).symbols[1:]] == ["T", "T.m", "T.Nested", "T.Nested.c"]


def test_a_doc_line_that_only_looks_like_an_editors_mode_line_is_the_docs():
    """A format pattern in a Javadoc (``-*-%d-*-``) was taken for Emacs's file variables
    and left out of the doc, the doc's only line and all where the file opened with it. A
    mode line is one on the file's first two lines, of a mode's name or ``var: value`` pairs."""
    source = (b"/** Rolls to log-*-%d-*-.txt files. */\nclass Roller {\n  /**\n   * Names a file.\n"
              b"   * The pattern {@code -*-%d-*-} numbers them.\n   */\n  String name(int n) { return null; }\n}\n")
    docs = [(s.qualname, s.docstring) for s in parse("java", source).symbols[1:]]
    assert docs == [
        ("Roller", "Rolls to log-*-%d-*-.txt files."),
        ("Roller.name", "Names a file.\nThe pattern {@code -*-%d-*-} numbers them."),
    ]
    moded = b"// -*- mode: java; c-basic-offset: 4 -*-\n// The roller.\n\nimport a.B;\n/** Rolls. */\nclass R {}\n"
    assert [s.docstring for s in parse("java", moded).symbols] == ["The roller.", "Rolls."]
    named = b"/* -*- Java -*- */\n/** Rolls. */\nclass R {}\n"
    assert [s.docstring for s in parse("java", named).symbols] == ["", "Rolls."]
