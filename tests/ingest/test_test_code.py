"""Code in test files: the model reads its head and first lines (``embedding.test_max_chars``,
``records.model_chars``); the stored text stays whole, and a change of the setting embeds
every memory again."""

from __future__ import annotations

import pytest

from recalld.ingest.files import IndexOptions
from recalld.ingest.records import is_test_path, model_chars
from recalld.ingest.result import NoProgress
from recalld.ingest.revector import ensure_space
from tests.ingest.conftest import Harness
from tests.ingest.test_redaction import recording
from tests.ingest.test_revector import OtherModel, embeddings_of

BODY = "\n".join(f"    assert parse_amount('{n} EUR') == Amount({n}, 'EUR')" for n in range(20))
TESTS = ("tests/unit/x.py", "app/__tests__/x.js", "src/cmd/go/testdata/a.go", "test/a.js", "spec/x.ts",
         "m/src/test/java/A.java", "pkg/test_x.py", "x_test.py", "conftest.py", "a/b_test.go", "c.test.tsx",
         "c.spec.mjs", "FooTest.java", "FooTests.java", "FooIT.java")  # fmt: skip
NOT_TESTS = ("django/test/client.py", "src/testing/testing.go", "testing/x.py", "latest.py", "contest.go",
             "src/main/java/Test.java", "lib/tester.js", "a/spec.ts", "protest/a.py", "SPLIT.java")  # fmt: skip


def test_test_paths_by_the_conventions_of_each_language():
    assert [p for p in TESTS if not is_test_path(p)] == []
    assert [p for p in NOT_TESTS if is_test_path(p)] == []  # a library's own test support is code


def test_only_code_of_a_test_file_is_cut():
    assert model_chars("tests/a.py", "structural", 150) == 150
    assert model_chars("tests/a.py", "structural", 0) is None  # off
    assert model_chars("tests/a.py", "debt", 150) is None  # a TODO found in a test: its own short text
    assert model_chars("app/a.py", "structural", 150) is None
    assert model_chars(None, "task", 150) is None


def money(repo):  # type: ignore[no-untyped-def]
    repo.write("tests/test_money.py", f"def test_parse_amounts():\n{BODY}\n")
    repo.write("money/parse.py", f"def parse_amounts():\n{BODY}\n")
    repo.commit("money")
    return repo


def texts(h: Harness) -> dict[str, str]:
    return {m.payload["qualname"]: m.payload["text"] for m in h.memories()}


def test_the_model_reads_the_head_of_test_code_and_the_store_keeps_it_whole(harness, git_repo):
    embedded = recording(harness.embedder)
    result = harness.sync(money(git_repo))
    stored = texts(harness)
    test_text, code_text = stored["test_parse_amounts"], stored["parse_amounts"]
    assert len(test_text) > 600 and len(code_text) > 600  # whole, as search shows them
    assert test_text[:150] in embedded and test_text not in embedded
    assert code_text in embedded
    assert result.embedded == result.added + result.tasks_added  # embedded ahead as vectorise asks: once each
    test_id = next(m.id for m in harness.memories() if m.payload["qualname"] == "test_parse_amounts")
    vector = harness.store.get_vectors([test_id])[test_id]
    assert vector == pytest.approx(harness.embedder.encode([test_text[:150]])[0].tolist(), abs=1e-6)


def test_off_the_model_reads_test_code_whole(git_repo, tmp_path):
    h = Harness("edge", tmp_path / "state", IndexOptions(test_embed_chars=0))
    try:
        embedded = recording(h.embedder)
        h.sync(money(git_repo))
        assert texts(h)["test_parse_amounts"] in embedded
    finally:
        h.close()


def test_re_embedding_reads_what_a_sync_reads(harness, git_repo):
    harness.sync(money(git_repo))
    other = OtherModel()
    assert ensure_space(harness.store, embeddings_of(harness, other), test_chars=150, progress=NoProgress()) > 0
    by_name = {m.payload["qualname"]: m for m in harness.memories()}
    vectors = harness.store.get_vectors([m.id for m in by_name.values()])
    for name, cut in (("test_parse_amounts", 150), ("parse_amounts", None)):
        text = by_name[name].payload["text"][:cut]
        assert vectors[by_name[name].id] == pytest.approx(other.encode([text])[0].tolist(), abs=1e-6), name
