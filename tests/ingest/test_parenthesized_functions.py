"""A function written in parentheses and bound to a name (rxjs's ``export const isArrayLike =
(<T>(x: any): x is ArrayLike<T> => …)``, ``var wrap = (function (a) {…})``, its compiled
``exports.isArrayLike = (function (x) {…})``), or one whose type is checked or asserted there
(SvelteKit's ``export const load = (async (…) => {…}) satisfies PageServerLoad``, a worker's
``export default {…} satisfies ExportedHandler``), is that name's function, as it is without
them, in a real repository: indexed, then followed through an edit."""

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


def _committed(h: Harness, git_repo, files: dict[str, str], message: str) -> dict:  # type: ignore[no-untyped-def, type-arg]
    """``files`` written and committed, then synced: the live code memories."""
    for path, text in files.items():
        git_repo.write(path, text)
    git_repo.commit(message)
    h.sync(git_repo)
    return _symbols(h)


def _symbols(h: Harness) -> dict[tuple[str, str], dict]:  # type: ignore[type-arg]
    """The live code memories but the files', by path and qualified name."""
    return {
        (m.payload["path"], m.payload["qualname"]): m.payload
        for m in h.memories(types=("structural",))
        if m.payload["kind"] != "module"
    }


def test_a_parenthesized_function_bound_to_a_name_is_its_memory_and_followed_through_an_edit(git_repo, tmp_path):
    h = Harness("edge", tmp_path / "state")
    try:
        found = _committed(h, git_repo, {"src/isArrayLike.ts": TYPESCRIPT, "lib/wrap.js": JAVASCRIPT}, "in parentheses")
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
        edit = {"src/isArrayLike.ts": TYPESCRIPT.replace("x && typeof", "x != null && typeof")}
        edited = _committed(h, git_repo, edit, "edit it")[("src/isArrayLike.ts", "isArrayLike")]
        assert edited["lineage"] == typed["lineage"] and edited["change"] == "modified"
    finally:
        h.close()


CHECKED = """/** Loads the page's post. */
export const load = (async ({ params }) => {
  return { id: params.id };
}) satisfies PageServerLoad;
export const handle = ((event: Event) => event.type) as unknown as Handler;
export const actions = {
  default: async ({ request }) => {
    return request.formData();
  },
} satisfies Actions;
"""
WORKER = """export default {
  async fetch(request: Request, env: Env): Promise<Response> {
    return new Response(env.GREETING);
  },
} satisfies ExportedHandler<Env>;
"""


def test_functions_whose_type_is_checked_or_asserted_are_memories_signed_as_written(git_repo, tmp_path):
    h = Harness("edge", tmp_path / "state")
    try:
        page = "src/routes/+page.server.ts"
        found = _committed(h, git_repo, {page: CHECKED, "src/worker.ts": WORKER}, "SvelteKit's and a worker's")
        assert set(found) == {(page, "load"), (page, "handle"), (page, "actions.default"), ("src/worker.ts", "fetch")}
        load = found[(page, "load")]
        assert (load["kind"], load["signature"], load["docstring"]) == (
            "function", "const load = (async ({ params }) => {…})", "Loads the page's post."
        )
        assert (load["start_line"], load["end_line"]) == (2, 4)
        assert found[(page, "handle")]["signature"] == "const handle = ((event: Event) => {…})"
        assert found[(page, "actions.default")]["kind"] == "method"
        fetch = found[("src/worker.ts", "fetch")]
        assert fetch["signature"] == "async fetch(request: Request, env: Env): Promise<Response>"
        edit = {page: CHECKED.replace("params.id", "params.slug")}
        edited = _committed(h, git_repo, edit, "edit load")[(page, "load")]
        assert edited["lineage"] == load["lineage"] and edited["change"] == "modified"
    finally:
        h.close()
