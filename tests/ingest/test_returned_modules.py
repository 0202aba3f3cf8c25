"""What a module returns or exports as a whole is named as the module's binding names it:
the one function an immediately called function returns by name (rxjs's ``export const
ajax = (() => { const create = (…) => {…}; … return create; })()`` is ``ajax``, it was
``create``; so is its CommonJS build's ``exports.ajax = (function () {…})()``), but a constructor so returned keeps its name, which its prototype's methods
carry (TypeScript's ES5 classes); TypeScript's ``export = function parse(…)`` /
``export = class Cursor`` / ``export = {…}`` as ``module.exports = …`` reads (they were no
symbol). Parsed, then indexed and followed through an edit in a real repository."""

from __future__ import annotations

from recalld.parsers import parse
from tests.ingest.conftest import Harness

AJAX = """export const ajax = (() => {
  const create = (urlOrRequest: string) => {
    return fetch(urlOrRequest);
  };
  function unused(x: number) {
    return x;
  }
  return create;
})();
"""
ES5_CLASS = """var Outer = (function () {
  function Inner(a) { this.a = a; }
  Inner.prototype.bar = function () { return this.a; };
  return Inner;
}());
var Same = /** @class */ (function () {
  function Same(a) { this.a = a; }
  Same.prototype.get = function () { return this.a; };
  return Same;
}());
var value = (function () {
  var x = 1;
  return x;
})();
exports.ajax = (function () {
  var create = function (c) { return c; };
  return create;
})();
exports.Cache = (function () {
  function get(k) { return k; }
  return { get: get };
}());
function factory() {
  function made() { return 1; }
  return made;
}
"""
EXPORTS = {
    "parse.ts": "export = function parse(text: string): string[] {\n  return text.split(',');\n};\n",
    "cursor.ts": "export = class Cursor {\n  next(): number {\n    return 1;\n  }\n};\n",
    "object.ts": "export = {\n  load() {\n    return 1;\n  },\n  save: function (x: number) {\n    return x;\n  },\n};\n",
    "anonymous.ts": "export = function (x: number) {\n  return x;\n};\n",
    "name.ts": "class Foo {}\nexport = Foo;\n",
}


def names(language: str, source: str) -> list[tuple[str, str, int]]:
    found = parse(language, source.encode(), path=f"x.{language}")
    return [(s.kind, s.qualname, s.start_line) for s in found.symbols if s.kind != "module"]


def test_the_function_a_module_returns_is_the_modules_name_a_constructor_keeps_its_own():
    assert names("typescript", AJAX) == [("function", "ajax", 2), ("function", "unused", 5)]
    assert names("javascript", ES5_CLASS) == [
        ("class", "Inner", 2), ("method", "Inner.bar", 3), ("class", "Same", 7), ("method", "Same.get", 8),
        ("function", "ajax", 16), ("method", "Cache.get", 20), ("function", "factory", 23),
    ]  # fmt: skip


def test_typescripts_export_assignment_is_read_as_module_exports():
    found = {path: names("typescript", source) for path, source in EXPORTS.items()}
    assert found == {
        "parse.ts": [("function", "parse", 1)],
        "cursor.ts": [("class", "Cursor", 1), ("method", "Cursor.next", 2)],
        "object.ts": [("function", "load", 2), ("function", "save", 5)],
        "anonymous.ts": [("function", "default", 1)],
        "name.ts": [("class", "Foo", 1)],
    }


def test_a_returned_function_is_indexed_by_the_modules_name_and_followed_through_an_edit(git_repo, tmp_path):
    h = Harness("edge", tmp_path / "state")
    try:
        git_repo.write("src/ajax.ts", AJAX)
        git_repo.write("src/parse.ts", EXPORTS["parse.ts"])
        git_repo.commit("one")
        h.sync(git_repo)
        live = {(m.payload["path"], m.payload["qualname"]): m for m in h.memories() if m.payload["kind"] not in ("module", "structure")}
        assert set(live) == {("src/ajax.ts", "ajax"), ("src/ajax.ts", "unused"), ("src/parse.ts", "parse")}
        git_repo.write("src/ajax.ts", AJAX.replace("return fetch(urlOrRequest);", "return fetch(urlOrRequest, {});"))
        git_repo.commit("two")
        h.sync(git_repo)
        after = {(m.payload["path"], m.payload["qualname"]): m for m in h.memories() if m.payload["kind"] not in ("module", "structure")}
        assert set(after) == set(live)
        edited = after[("src/ajax.ts", "ajax")].payload
        assert edited["lineage"] == live[("src/ajax.ts", "ajax")].payload["lineage"] and "fetch(urlOrRequest, {})" in \
            edited["text"]  # fmt: skip
        closed = {m.payload["qualname"]: m.payload["deprecated_reason"] for m in h.memories(deprecated=1)
                  if m.payload["kind"] not in ("module", "structure")}  # fmt: skip
        assert closed == {"ajax": "modified"}
    finally:
        h.close()
