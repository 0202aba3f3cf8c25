"""The MCP tools' answers, made compact for a model's context (daemon/mcp_answers.py)."""

from __future__ import annotations

from recalld.daemon.mcp_answers import SYMBOLS_LISTED, compact_answer, for_agents

COMMIT = "c" * 40


def test_a_memory_keeps_what_an_agent_reads_and_an_answer_its_own_fields():
    memory = {"id": "m1", "repo": "r", "qualname": "Basket.add", "name": "add", "content_hash": "h", "symbol_key": "k",
              "docstring": "Put it in.", "text": "def add(self, item)\nPut it in.\nreturn item", "deprecated": False,
              "superseded_by": None, "history": [], "signature": "", "start_line": 0, "valid_from_time": 1}  # fmt: skip
    answer = compact_answer({"results": [memory], "truncated": False, "notes": []})
    assert answer == {"results": [{"id": "m1", "repo": "r", "qualname": "Basket.add", "start_line": 0,
                                   "text": "def add(self, item)\nPut it in.\nreturn item"}],
                      "truncated": False, "notes": []}  # fmt: skip
    apart = compact_answer([{**memory, "text": "def add(self, item)"}])  # a doc the text does not hold stays
    assert apart[0]["docstring"] == "Put it in." and memory["name"] == "add"  # the daemon's answer is not changed


def test_a_commit_memory_lists_its_symbols_by_name_up_to_a_bound_and_a_change_its_writer_where_another():
    files = [{"path": f"f{i}.py", "added": [f"a{i}_{j}" for j in range(15)], "removed": ["gone"]} for i in range(4)]
    task = {"id": "t", "type": "task", "commit": COMMIT, "text": "subject\nsymbols: …", "symbol_ids": ["x"] * 64,
            "symbols": files, "symbols_truncated": False}  # fmt: skip
    (kept,) = compact_answer([task])
    listed = [name for entry in kept["symbols"] for key in ("added", "removed") for name in entry.get(key, ())]
    assert len(listed) == SYMBOLS_LISTED and kept["symbols_more"] == 4 * 16 - SYMBOLS_LISTED
    assert [entry["path"] for entry in kept["symbols"]] == ["f0.py", "f1.py", "f2.py"]
    assert not {"text", "symbol_ids", "symbols_truncated"} & set(kept)
    change = {"change": "moved", "was": {"commit": "b" * 40, "written_in": "a" * 40}, "now": {"commit": COMMIT,
              "written_in": COMMIT}}  # fmt: skip
    assert compact_answer({"changes": [change]})["changes"] == [
        {"change": "moved", "was": {"commit": "b" * 40, "written_in": "a" * 40}, "now": {"commit": COMMIT}}]


def test_an_error_names_the_tool_call_to_make_where_it_named_a_command():
    said = "no symbol 'x' in r: 'x' is now 'y' in src/a b.py at line 3 (recalld symbol y --repo r --path 'src/a b.py')"
    assert for_agents(said).endswith("(get_symbol qualname='y' repo='r' path='src/a b.py')")
    assert for_agents("no symbol 'x' in r") == "no symbol 'x' in r"
