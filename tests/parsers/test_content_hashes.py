"""What a symbol's hash covers: its doc comment where that lies outside its text, a Python
definition's source alone, and how its parse recovered from a syntax error."""

from __future__ import annotations

import pytest

from recalld.parsers import parse

DOC_COMMENTS = {
    "javascript": (b"// Adds.\nfunction add(a, b) { return a + b; }\n", b"// Adds two numbers.\n", "add"),
    "typescript": (b"/** Adds. */\nexport function add(a: number): number { return a; }\n", b"/** Adds one. */\n",
                   "add"),
    "go": (b"package m\n\n// Add adds.\nfunc Add(a int) int { return a }\n", b"// Add adds one.\n", "Add"),
    "rust": (b"/// Adds.\npub fn add(a: i32) -> i32 { a }\n", b"/// Adds one.\n", "add"),
    "java": (b"class M {\n    /** Adds. */\n    int add(int a) { return a; }\n}\n", b"    /** Adds one. */\n", "M.add"),
    "kotlin": (b"class M {\n    /** Adds. */\n    fun add(a: Int) = a\n}\n", b"    /** Adds one. */\n", "M.add"),
    "swift": (b"struct M {\n    /// Adds.\n    func add(_ a: Int) -> Int { a }\n}\n", b"    /// Adds one.\n", "M.add"),
}  # fmt: skip


@pytest.mark.parametrize("language", sorted(DOC_COMMENTS))
def test_a_reworded_doc_comment_changes_the_hash_of_the_code_below(language: str):
    """The comment lies outside the definition's node; unchanged code under a new comment
    is new content (its docstring and embedded text changed), and must hash so."""
    data, comment, qualname = DOC_COMMENTS[language]
    lines = data.splitlines(keepends=True)
    doc_line = next(i for i, line in enumerate(lines) if line.lstrip().startswith((b"//", b"/**", b"///")))
    edited = b"".join([*lines[:doc_line], comment, *lines[doc_line + 1 :]])
    before = {s.qualname: s for s in parse(language, data).symbols}[qualname]
    after = {s.qualname: s for s in parse(language, edited).symbols}[qualname]
    assert before.source == after.source and before.docstring != after.docstring
    assert before.content_hash != after.content_hash


def test_python_hashes_its_source_alone():
    """A Python docstring is inside the code: the hash stays sha256 of the source, so
    stores of Python code keep their point ids across the hash's change for doc comments."""
    import hashlib

    data = b'def f():\n    """Doc."""\n    return 1\n'
    [f] = [s for s in parse("python", data).symbols if s.qualname == "f"]
    assert f.content_hash == hashlib.sha256(f.source.encode()).hexdigest()


RECOVERED = '''def test5 ():
    print(1)


def test6 ():
    <RANGE_START>
    print("Format" )
    print(3 +  4)<RANGE_END>
    print("Format to fix indentation" )
'''
RECOVERED_THEN_MORE = RECOVERED + '''

def test7 ():
    <RANGE_START>print("Format" )
    print(3 +  4)<RANGE_END>
    print("Format to fix indentation" )
'''


def test_one_hash_one_reading_where_a_syntax_error_recovers_differently():
    """ruff's range-formatting fixtures: the same text of ``test6``, its parse recovering
    from the same error differently with more code after it (its body's ``<`` an ERROR
    beside the body, then a MISSING name in it; its signature ``def test6 ()`` in both). A
    memory is kept while its hash is, so the two readings must hash apart; an error-free
    definition still hashes its text alone."""
    first = {s.qualname: s for s in parse("python", RECOVERED.encode()).symbols}
    then = {s.qualname: s for s in parse("python", RECOVERED_THEN_MORE.encode()).symbols}
    assert first["test6"].source == then["test6"].source
    assert first["test6"].signature == then["test6"].signature == "def test6 ()"
    assert first["test6"].content_hash != then["test6"].content_hash
    assert first["test5"].content_hash == then["test5"].content_hash
    for name in first.keys() & then.keys():
        if first[name].content_hash == then[name].content_hash:
            a, b = first[name], then[name]
            assert (a.signature, a.docstring, a.source) == (b.signature, b.docstring, b.source), name
