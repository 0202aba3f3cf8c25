"""The keyword tokenizer and sparse vectors: pure functions, no store."""

from __future__ import annotations

import subprocess
import sys

import pytest

from recalld.ingest.sparse import document_vector, identifier_words, keyword_text, query_vector, term_index, terms


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("read_blob", ["read_blob", "read", "blob"]),
        ("HTTPServer", ["httpserver", "http", "server"]),
        ("parseXMLDocument", ["parsexmldocument", "parse", "xml", "document"]),
        ("QdrantEdgeStore", ["qdrantedgestore", "qdrant", "edge", "store"]),
        ("MAX_FETCH", ["max_fetch", "max", "fetch"]),
        ("kebab-case-name", ["kebab-case-name", "kebab", "case", "name"]),
        ("recalld.ingest.store", ["recalld.ingest.store", "recalld", "ingest", "store"]),
        ("ingest/store_edge.py", ["ingest/store_edge.py", "ingest", "store_edge", "store", "edge", "py"]),
        ("__init__", ["init"]),
        ("sha256sum", ["sha256sum", "sha", "256", "sum"]),
        ("plain", ["plain"]),
    ],
)
def test_identifiers_split_and_stay_whole(text, expected):
    assert terms(text) == expected


def test_prose_is_lowercased_and_stopwords_and_single_letters_dropped():
    assert terms("Close the stale Versions of a file, x = 1") == ["close", "stale", "versions", "file"]
    assert terms("") == [] and terms("!!! ... ---") == []


def test_identifier_words_keep_numbers_and_acronyms():
    assert identifier_words("getHTTPResponse2") == ["get", "http", "response", "2"]
    assert identifier_words("ID") == ["id"]


def test_indices_are_stable_uint32_across_processes():
    here = [term_index(t) for t in ("store", "read_blob", "ünïcode")]
    code = "from recalld.ingest.sparse import term_index; print([term_index(t) for t in ('store', 'read_blob', 'ünïcode')])"
    other = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                           env={"PYTHONHASHSEED": "123", "PATH": ""})  # fmt: skip
    assert other.stdout.strip() == str(here)
    assert all(0 <= i < 2**32 for i in here) and len(set(here)) == 3


def test_document_vector_counts_saturate_once_a_term():
    vec = document_vector("blob blob blob blob read")
    assert len(set(vec.indices)) == len(vec.indices) == len(vec.values) == 2
    weight = dict(zip(vec.indices, vec.values))
    blob, read = weight[term_index("blob")], weight[term_index("read")]
    assert blob > read > 0
    assert blob < 4 * read  # saturation: four occurrences weigh less than four times one
    assert document_vector("").indices == ()


def test_query_vector_has_one_unit_per_distinct_term():
    vec = query_vector("store store HTTPServer")
    assert sorted(vec.indices) == sorted({term_index(t) for t in ("store", "httpserver", "http", "server")})
    assert set(vec.values) == {1.0}


def test_keyword_text_adds_path_and_qualname_but_not_missing_fields():
    text = keyword_text("python function load", {"path": "pkg/config_loader.py", "qualname": "Loader.load"})
    assert "pkg/config_loader.py" in text and "Loader.load" in text
    assert keyword_text("just text", {"path": None}) == "just text"


def test_terms_whose_indices_collide_add_up(monkeypatch):
    from recalld.ingest import sparse

    apart = document_vector("blob blob read")
    monkeypatch.setitem(sparse._TERM_INDEX, "blob", 7)
    monkeypatch.setitem(sparse._TERM_INDEX, "read", 7)
    vec = document_vector("blob blob read")
    assert len(apart.indices) == 2 and vec.indices == (7,) and vec.values[0] == pytest.approx(sum(apart.values))


def test_term_memos_are_bounded():
    from recalld.ingest.sparse import _Memo

    calls: list[str] = []
    memo = _Memo(lambda key: calls.append(key) or key.upper(), 2)
    assert [memo[k] for k in ("a", "b", "a", "c", "d")] == ["A", "B", "A", "C", "D"]
    assert len(memo) <= 2 and calls == ["a", "b", "c", "d"]


NESTED_PY = b'''"""Quota rules."""
import os

ZEPHYR_QUOTA = 7


class Pool(Base):
    """A pool of workers."""
    size = 4

    def borrow(self, key):
        """Borrow one worker."""
        return self.items[key] + GRANITE_OFFSET


def helper(x):
    return x + ZEPHYR_QUOTA
'''


def test_keyword_material_leaves_what_lies_inside_a_symbol_to_that_symbol():
    from recalld.ingest.plan import FileSymbols, NewVersion
    from recalld.ingest.records import memory_keywords, memory_text
    from recalld.parsers import parse
    from recalld.parsers.base import Nested

    symbols = parse("python", NESTED_PY, path="pool.py").symbols
    file = FileSymbols("pool.py", "0" * 40, "python", tuple(symbols))
    nested = Nested(file.symbols)
    material = {s.qualname: memory_keywords(NewVersion("id", file, s, "id", "added"), nested) for s in symbols}
    module, pool, borrow, helper = (material[q] for q in ("<module>", "Pool", "Pool.borrow", "helper"))
    assert "import os" in module and "ZEPHYR_QUOTA = 7" in module  # the module's own code...
    assert "class Pool(Base)" in module and "def helper(x)" in module  # ...and what it defines, by signature
    assert "GRANITE_OFFSET" not in module and "x + ZEPHYR_QUOTA" not in module  # their bodies are theirs
    assert "size = 4" in pool and "def borrow(self, key)" in pool and "GRANITE_OFFSET" not in pool
    assert "GRANITE_OFFSET" in borrow and "x + ZEPHYR_QUOTA" in helper
    for symbol in symbols:  # nothing inside it: the embedded text, whole (its docstring once)
        if symbol.qualname in ("Pool.borrow", "helper"):
            version = NewVersion("id", file, symbol, "id", "added")
            assert material[symbol.qualname] == memory_text(version, max_chars=10_000)
    assert borrow.count("Borrow one worker") == 1
    assert memory_keywords(NewVersion("id", file, symbols[0], "id", "added")) == material[symbols[0].qualname]
