"""Code moved to another file with a shim of its name left in its place: the moved code
continues the lineage, the shim starts one of its own (``ingest/shims.py``)."""

from __future__ import annotations

import dataclasses
import hashlib

from recalld.ingest.plan import plan_changes
from tests.ingest.test_plan import SCOPE, _body, _sources, file, live_of, sym

WORK = "\n".join(f"    step{i} = scale(a, b, {i}) + offset({i})" for i in range(5)) + "\n    return step4"
SHIM = "    return _impl.work(a, b)"


def function(qualname: str, body: str) -> object:
    source = f"def {qualname}(a, b):\n{body}"
    return dataclasses.replace(sym(qualname), source=source, content_hash=hashlib.sha256(source.encode()).hexdigest())


def _planned(new_work_body: str, *, renames: dict[str, str] | None = None, copy_path: str = "calc_impl.py"):
    old = file("calc.py", function("work", WORK), sym("other", _body("o")))
    new = {"calc.py": file("calc.py", function("work", new_work_body)),
           copy_path: file(copy_path, function("work", WORK), sym("other", _body("o")))}  # fmt: skip
    live = live_of(old)
    p = plan_changes(scope=SCOPE, live=live, targets=new, gone=(), renames=renames or {}, old_source=_sources(old))
    was = {m.qualname: m for m in live}
    got = {(v.file.path, v.symbol.qualname): (v.lineage == was[v.symbol.qualname].lineage, v.change)
           for v in p.new_versions}  # fmt: skip
    return got, {c.id: c for c in p.closures}, was, p


def test_code_moved_unchanged_with_a_shim_left_in_its_place_continues_where_it_went():
    got, closed, was, p = _planned(SHIM)
    assert got == {("calc.py", "work"): (False, "added"), ("calc_impl.py", "work"): (True, "renamed"),
                   ("calc_impl.py", "other"): (True, "renamed")}  # fmt: skip
    moved = next(v for v in p.new_versions if (v.file.path, v.symbol.qualname) == ("calc_impl.py", "work"))
    assert (closed[was["work"].id].reason, closed[was["work"].id].superseded_by) == ("renamed", moved.id)
    shim = next(v for v in p.new_versions if (v.file.path, v.symbol.qualname) == ("calc.py", "work"))
    assert shim.lineage == shim.id


def test_a_shim_is_found_where_git_saw_the_old_content_move_out_of_a_rewritten_file():
    got, _closed, _was, _p = _planned(SHIM, renames={"calc.py": "calc_impl.py"})
    assert got[("calc.py", "work")] == (False, "added") and got[("calc_impl.py", "work")] == (True, "renamed")


def test_code_edited_in_place_whose_old_copy_arrived_elsewhere_stays_where_it_is():
    """A copy of the old code vendored elsewhere while the original was edited a little:
    the edited one continues it."""
    edited = WORK.replace("offset(3)", "offset(30)")
    got, _closed, _was, _p = _planned(edited, copy_path="vendor/calc.py")
    assert got[("calc.py", "work")] == (True, "modified") and got[("vendor/calc.py", "work")][1] == "added"


def test_short_code_that_arrived_elsewhere_is_no_evidence_of_a_move():
    old = file("a.py", function("f", "    return 1"))
    new = {"a.py": file("a.py", function("f", "    return g()")), "b.py": file("b.py", function("f", "    return 1"))}
    live = live_of(old)
    p = plan_changes(scope=SCOPE, live=live, targets=new, gone=(), renames={}, old_source=_sources(old))
    got = {(v.file.path, v.symbol.qualname): (v.lineage == live[0].lineage, v.change) for v in p.new_versions}
    assert got == {("a.py", "f"): (True, "modified"), ("b.py", "f"): (False, "added")}


def test_a_synced_store_follows_code_moved_behind_a_shim(harness, git_repo):
    """With git: ``git mv calc.py calc_impl.py`` and a new ``calc.py`` whose ``work``
    calls the moved one. The moved class and function continue their lineages in
    ``calc_impl.py``; the shims in ``calc.py`` are new."""
    code = ('"""Calculator."""\n\n\ndef work(a, b):\n    """Add and scale."""\n' + WORK + "\n\n\n"
            "class Calc:\n    def run(self, items):\n        total = 0\n        for item in items:\n"
            "            total += work(item, total) * 2\n        return total\n")  # fmt: skip
    git_repo.write("calc.py", code)
    git_repo.commit("calc")
    harness.sync(git_repo)
    before = {m.payload["qualname"]: m.payload["lineage"] for m in harness.memories()}
    git_repo.git("mv", "calc.py", "calc_impl.py")
    git_repo.write("calc.py", '"""Shim."""\nimport calc_impl as _impl\n\n\ndef work(a, b):\n' + SHIM + "\n\n\n"
                   "class Calc(_impl.Calc):\n    pass\n")  # fmt: skip
    git_repo.commit("move calc to calc_impl, keep a shim")
    harness.sync(git_repo)
    live = {(m.payload["path"], m.payload["qualname"]): m.payload for m in harness.memories()}
    for qualname in ("work", "Calc", "Calc.run"):
        assert live[("calc_impl.py", qualname)]["lineage"] == before[qualname], qualname
    for qualname in ("work", "Calc"):
        assert live[("calc.py", qualname)]["lineage"] not in before.values(), qualname
        assert live[("calc.py", qualname)]["change"] == "added"
