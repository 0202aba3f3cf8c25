"""A function written in parentheses and bound to a name (rxjs's ``export const isArrayLike =
(<T>(x: any): x is ArrayLike<T> => …)``, ``var wrap = (function (a) {…})``, its compiled
``exports.isArrayLike = (function (x) {…})``) is that name's function, as it is without them,
in a real repository: indexed, then followed through an edit."""

from __future__ import annotations

from tests.ingest.conftest import Harness

TYPESCRIPT = """/** Whether ``x`` has a length, as an array has. */
export const isArrayLike = (<T>(x: any): x is ArrayLike<T> => x && typeof x.length === 'number');
"""
JAVASCRIPT = """var wrap = (function (value) {
  return [value];
});
const later = (async (ms) => {
  await new Promise((done) => setTimeout(done, ms));
});
exports.isArrayLike = (function (x) { return x && typeof x.length === 'number'; });
"""


def _functions(h: Harness) -> dict[tuple[str, str], dict]:  # type: ignore[type-arg]
    return {
        (m.payload["path"], m.payload["qualname"]): m.payload
        for m in h.memories(types=("structural",))
        if m.payload["kind"] == "function"
    }


def test_a_parenthesized_function_bound_to_a_name_is_its_memory_and_followed_through_an_edit(git_repo, tmp_path):
    h = Harness("edge", tmp_path / "state")
    try:
        git_repo.write("src/isArrayLike.ts", TYPESCRIPT)
        git_repo.write("lib/wrap.js", JAVASCRIPT)
        git_repo.commit("functions in parentheses")
        h.sync(git_repo)
        found = _functions(h)
        assert set(found) == {
            ("src/isArrayLike.ts", "isArrayLike"),
            ("lib/wrap.js", "wrap"),
            ("lib/wrap.js", "later"),
            ("lib/wrap.js", "isArrayLike"),
        }
        typed = found[("src/isArrayLike.ts", "isArrayLike")]
        assert typed["signature"] == "const isArrayLike = (<T>(x: any): x is ArrayLike<T>"
        assert typed["docstring"] == "Whether ``x`` has a length, as an array has."
        assert (typed["start_line"], typed["end_line"]) == (2, 2)
        assert found[("lib/wrap.js", "wrap")]["signature"] == "var wrap = (function (value)"
        later = found[("lib/wrap.js", "later")]
        assert (later["start_line"], later["end_line"]) == (4, 6)
        exported = found[("lib/wrap.js", "isArrayLike")]
        assert (exported["signature"], exported["start_line"]) == ("exports.isArrayLike = (function (x)", 7)
        git_repo.write("src/isArrayLike.ts", TYPESCRIPT.replace("x && typeof", "x != null && typeof"))
        git_repo.commit("edit it")
        h.sync(git_repo)
        edited = _functions(h)[("src/isArrayLike.ts", "isArrayLike")]
        assert edited["lineage"] == typed["lineage"] and edited["change"] == "modified"
    finally:
        h.close()
