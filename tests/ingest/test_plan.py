"""The planner is pure: exhaustive cases plus a randomised convergence check."""

from __future__ import annotations

import dataclasses
import hashlib
import random

import pytest

from recalld.ingest.plan import (
    FileSymbols,
    LiveMemory,
    NewVersion,
    Plan,
    Scope,
    memory_id,
    plan_changes,
)
from recalld.ingest.likeness import memoised_likeness, overlap, tokens
from recalld.ingest.qualnames import decoration, parent_scope, short_name
from recalld.parsers import parse
from recalld.parsers.base import Symbol

SCOPE = Scope("repo", "main")


def sym(qualname: str, body: str = "", *, kind: str = "function", start: int = 1, end: int = 2) -> Symbol:
    source = f"{kind} {qualname} {body}"
    return Symbol(
        kind=kind,
        name=qualname.rsplit(".", 1)[-1],
        qualname=qualname,
        signature=f"def {qualname}()",
        docstring="",
        start_line=start,
        end_line=end,
        content_hash=hashlib.sha256(source.encode()).hexdigest(),
        source=source,
    )


def file(path: str, *symbols: Symbol) -> FileSymbols:
    return FileSymbols(path, f"blob-{path}", "python", symbols)


def live_of(f: FileSymbols, lineages: dict[str, str] | None = None) -> list[LiveMemory]:
    out = []
    for s in f.symbols:
        mid = memory_id(SCOPE, f.path, s.kind, s.qualname, s.content_hash)
        lineage = (lineages or {}).get(s.qualname, mid)
        out.append(LiveMemory(mid, f.path, s.kind, s.qualname, s.content_hash, lineage, s.start_line, s.end_line,
                              language=f.language))  # fmt: skip
    return out


def plan(live, targets=(), gone=(), renames=None, old_source=None) -> Plan:
    return plan_changes(
        scope=SCOPE, live=live, targets={t.path: t for t in targets}, gone=gone, renames=renames or {},
        old_source=old_source,
    )


def test_first_index_adds_everything_with_fresh_lineages():
    f = file("a.py", sym("f"), sym("C", kind="class"), sym("C.m", kind="method"))
    p = plan([], [f])
    assert {v.symbol.qualname for v in p.new_versions} == {"f", "C", "C.m"}
    assert all(v.change == "added" and v.lineage == v.id for v in p.new_versions)
    assert not p.closures and not p.relocations


def test_unchanged_file_plans_nothing():
    f = file("a.py", sym("f"), sym("g"))
    assert plan(live_of(f), [f]).is_empty


def test_edit_makes_new_version_and_closes_old_as_modified():
    old = file("a.py", sym("f", "v1"), sym("g"))
    new = file("a.py", sym("f", "v2"), sym("g"))
    p = plan(live_of(old), [new])
    (version,) = p.new_versions
    old_f = live_of(old)[0]
    assert version.change == "modified" and version.lineage == old_f.lineage
    assert [(c.id, c.reason, c.superseded_by) for c in p.closures] == [(old_f.id, "modified", version.id)]


@pytest.mark.parametrize("moved", [False, True], ids=["in place", "file renamed"])
def test_a_symbol_of_another_kind_under_its_name_continues_it(moved):
    """A function that became a class where it is (three.js's ``function
    TorusBufferGeometry`` → ``class``; ``type Props`` → ``interface Props``) continues,
    as modified (renamed when its file was); not when two of other kinds took its name
    (rxjs's error classes became an ``interface`` and a function)."""
    old = file("a.py", sym("Parser", "splits text"), sym("helper"))
    path = "b.py" if moved else "a.py"
    renames, gone = ({"a.py": "b.py"}, ["a.py"]) if moved else ({}, [])
    p = plan(live_of(old), [file(path, sym("Parser", "class body", kind="class"), sym("helper"))], gone, renames)
    (version,) = [v for v in p.new_versions if v.symbol.qualname == "Parser"]
    change = "renamed" if moved else "modified"
    assert (version.change, version.lineage) == (change, live_of(old)[0].lineage)
    assert (live_of(old)[0].id, change, version.id) in [(c.id, c.reason, c.superseded_by) for c in p.closures]
    two = file(path, sym("Parser", "an interface", kind="interface"), sym("Parser", "a class", kind="class"), sym("helper"))
    p = plan(live_of(old), [two], gone, renames)
    assert all(v.change == "added" for v in p.new_versions if v.symbol.qualname == "Parser")
    assert (live_of(old)[0].id, "removed", None) in [(c.id, c.reason, c.superseded_by) for c in p.closures]


def test_line_shift_only_relocates():
    old = file("a.py", sym("f", start=1, end=2))
    new = file("a.py", sym("f", start=5, end=6))
    p = plan(live_of(old), [new])
    assert not p.new_versions and not p.closures
    assert [(r.start_line, r.end_line) for r in p.relocations] == [(5, 6)]


def test_removed_symbol_and_deleted_file():
    a_old = file("a.py", sym("f"), sym("g"))
    b_old = file("b.py", sym("h"))
    p = plan(live_of(a_old) + live_of(b_old), [file("a.py", sym("f"))], gone=["b.py"])
    reasons = {c.id: (c.reason, c.superseded_by) for c in p.closures}
    assert reasons == {live_of(a_old)[1].id: ("removed", None), live_of(b_old)[0].id: ("deleted", None)}


def test_rename_keeps_lineage_and_points_to_successor():
    old = file("pkg/a.py", sym("f"), sym("C", kind="class"))
    new = file("src/pkg/a.py", sym("f"), sym("C", kind="class"))
    p = plan(live_of(old), [new], gone=["pkg/a.py"], renames={"pkg/a.py": "src/pkg/a.py"})
    by_name = {v.symbol.qualname: v for v in p.new_versions}
    for mem in live_of(old):
        successor = by_name[mem.qualname]
        assert successor.change == "renamed" and successor.lineage == mem.lineage
        assert successor.file.path == "src/pkg/a.py"
    assert {(c.reason, c.superseded_by) for c in p.closures} == {("renamed", v.id) for v in p.new_versions}


def test_rename_with_edit_and_a_dropped_symbol():
    old = file("a.py", sym("f", "v1"), sym("g"))
    new = file("b.py", sym("f", "v2"))
    p = plan(live_of(old), [new], gone=["a.py"], renames={"a.py": "b.py"})
    (version,) = p.new_versions
    f_old, g_old = live_of(old)
    assert version.lineage == f_old.lineage and version.change == "renamed"
    closures = {c.id: (c.reason, c.superseded_by) for c in p.closures}
    assert closures == {f_old.id: ("renamed", version.id), g_old.id: ("removed", None)}


def test_symbol_moved_to_another_file_is_a_rename():
    a_old = file("a.py", sym("helper", "same"), sym("main"))
    b_old = file("b.py", sym("other"))
    a_new = file("a.py", sym("main"))
    b_new = file("b.py", sym("other"), sym("helper", "same"))
    p = plan(live_of(a_old) + live_of(b_old), [a_new, b_new])
    (version,) = p.new_versions
    helper_old = live_of(a_old)[0]
    assert version.file.path == "b.py" and version.lineage == helper_old.lineage
    assert [(c.id, c.reason, c.superseded_by) for c in p.closures] == [(helper_old.id, "renamed", version.id)]


def test_a_constructor_moved_unchanged_into_a_file_that_makes_it_a_class_is_a_rename():
    """A JavaScript constructor function is a function or a class by what its file does
    with its prototype: rxjs 7 moved ``AjaxTimeoutErrorImpl`` unchanged into ``errors.ts``,
    which sets its prototype, where 6.6's file did not. Its code tells it is the same."""
    impl = sym("AjaxTimeoutErrorImpl", "AjaxError.call(this, 'ajax timeout', xhr, request); this.name = 'timeout';")
    a_old = file("ajax.ts", impl, sym("ajax"))
    b_new = file("errors.ts", dataclasses.replace(impl, kind="class"), sym("AjaxError", kind="class"))
    p = plan(live_of(a_old), [file("ajax.ts", sym("ajax")), b_new], old_source=_sources(a_old))
    (version,) = [v for v in p.new_versions if v.symbol.qualname == "AjaxTimeoutErrorImpl"]
    assert (version.symbol.kind, version.change, version.lineage) == ("class", "renamed", live_of(a_old)[0].lineage)


def test_class_split_across_files_keeps_method_lineages():
    old = file("big.py", sym("A", kind="class"), sym("A.x", kind="method"), sym("B", kind="class"),
               sym("B.y", kind="method"))  # fmt: skip
    big_new = file("big.py", sym("A", kind="class"), sym("A.x", kind="method"))
    b_new = file("b.py", sym("B", kind="class", body="moved"), sym("B.y", kind="method"))
    p = plan(live_of(old), [big_new, b_new])
    lineage = {m.qualname: m.lineage for m in live_of(old)}
    assert {v.symbol.qualname: v.lineage for v in p.new_versions} == {"B": lineage["B"], "B.y": lineage["B.y"]}
    assert {c.reason for c in p.closures} == {"renamed"}


def test_ambiguous_moves_are_not_guessed():
    old = [*live_of(file("a.py", sym("run", "1"))), *live_of(file("b.py", sym("run", "2")))]
    new = [file("c.py", sym("run", "3")), file("d.py", sym("run", "4"))]
    p = plan(old, new, gone=["a.py", "b.py"])
    assert {c.reason for c in p.closures} == {"deleted"}
    assert {v.change for v in p.new_versions} == {"added"}


def _sources(*files: FileSymbols):  # type: ignore[no-untyped-def]
    """An ``old_source`` that knows the code of the symbols in ``files``."""
    code = {(f.path, s.kind, s.qualname): s.source for f in files for s in f.symbols}
    return lambda mem: code.get((mem.path, mem.kind, mem.qualname))


def _counts(bearers: int, same_code: int = 1):  # type: ignore[no-untyped-def]
    """A ``name_counts``: ``bearers`` live symbols bear any name, ``same_code`` of them
    have any code asked about (the one that left alone, by default)."""
    return lambda kind, name, code=None: bearers if code is None else same_code


def test_a_method_moved_into_another_class_and_edited_keeps_its_lineage():
    """Flask 2.0: ``Flask.route`` became ``Scaffold.route`` in another file, with edits.
    A unique (kind, name) on both sides whose code is alike is a move; a same-named
    method with other code, or no ``old_source``, is a removal."""
    body = "\n".join(f"line {i}" for i in range(10))
    old = file("app.py", sym("Flask", kind="class"), sym("Flask.route", body, kind="method"),
               sym("Flask.run", "serve forever", kind="method"))  # fmt: skip
    app_new = file("app.py", sym("Flask", kind="class", body="(Scaffold)"))
    scaffold = file("scaffold.py", sym("Scaffold", kind="class"),
                    sym("Scaffold.route", body.replace("line 3", "line three"), kind="method"),
                    sym("Scaffold.run", "a different body altogether", kind="method"))  # fmt: skip
    live = live_of(old)
    route, run = live[1], live[2]
    p = plan_changes(scope=SCOPE, live=live, targets={"app.py": app_new, "scaffold.py": scaffold}, gone=(),
                     renames={}, old_source=_sources(old))  # fmt: skip
    new = {v.symbol.qualname: v for v in p.new_versions}
    closed = {c.id: (c.reason, c.superseded_by) for c in p.closures}
    assert new["Scaffold.route"].lineage == route.lineage and new["Scaffold.route"].change == "renamed"
    assert closed[route.id] == ("renamed", new["Scaffold.route"].id)
    assert closed[run.id] == ("removed", None) and new["Scaffold.run"].change == "added"
    without = plan(live, [app_new, scaffold])
    assert {c.id: c.reason for c in without.closures}[route.id] == "removed"


def test_methods_merged_into_one_continue_the_closest():
    """Two methods of one name left two classes and one arrived: the closer code
    continues; the other is removed. A name in too many places is not guessed at."""
    body = "\n".join(f"line {i}" for i in range(10))
    old = file("a.py", sym("A.close", body, kind="method"), sym("B.close", body.replace("line 5", "other"), kind="method"))
    new = file("c.py", sym("C.close", body + "\nmore", kind="method"))
    live = live_of(old)
    p = plan_changes(scope=SCOPE, live=live, targets={"a.py": file("a.py"), "c.py": new}, gone=(), renames={},
                     old_source=_sources(old))  # fmt: skip
    (version,) = p.new_versions
    assert version.lineage == live[0].lineage
    assert {c.id: c.reason for c in p.closures} == {live[0].id: "renamed", live[1].id: "removed"}

    many = file("a.py", *(sym(f"K{i}.close", body, kind="method") for i in range(5)))
    arrived = file("c.py", *(sym(f"M{i}.close", body, kind="method") for i in range(4)))
    p = plan_changes(scope=SCOPE, live=live_of(many), targets={"a.py": file("a.py"), "c.py": arrived}, gone=(),
                     renames={}, old_source=_sources(many))  # fmt: skip
    assert {c.reason for c in p.closures} == {"removed"}  # 5 x 4 pairs: more than MOVE_CANDIDATES


def test_a_symbol_renamed_in_place_is_a_rename():
    """Same file, same scope, another name, alike code: renamed, with its lineage. In a
    file that git renamed too. A removed symbol and an unlike one added are no rename."""
    body = "\n".join(f"step {i}" for i in range(8))
    old = file("geo.py", sym("compute_perimeter", body), sym("Shape", kind="class"),
               sym("Shape.area", body + " area", kind="method"), sym("unused", "x = 1"))  # fmt: skip
    new = file("geo.py", sym("circle_perimeter", body), sym("Shape", kind="class"),
               sym("Shape.surface", body + " area", kind="method"), sym("fresh", "totally other code"))  # fmt: skip
    live = live_of(old)
    lineage = {m.qualname: m.lineage for m in live}
    ids = {m.qualname: m.id for m in live}
    moved = FileSymbols("shapes/geo.py", "blob-b", "python", new.symbols)
    for target, renames in ((new, {}), (moved, {"geo.py": "shapes/geo.py"})):
        gone = list(renames)
        p = plan_changes(scope=SCOPE, live=live, targets={target.path: target}, gone=gone, renames=renames,
                         old_source=_sources(old))  # fmt: skip
        new_versions = {v.symbol.qualname: v for v in p.new_versions}
        closed = {c.id: (c.reason, c.superseded_by) for c in p.closures}
        assert new_versions["circle_perimeter"].lineage == lineage["compute_perimeter"]
        assert closed[ids["compute_perimeter"]] == ("renamed", new_versions["circle_perimeter"].id)
        assert new_versions["Shape.surface"].lineage == lineage["Shape.area"]
        assert closed[ids["unused"]][1] is None and new_versions["fresh"].change == "added"


def test_overloads_whose_parameter_types_changed_continue_in_place():
    """An overload is named by its parameter types (``startWith(T, T, Scheduler?)``), so a
    type renamed renames every overload of the function: eight overloads are 64 pairs to
    compare in one scope of one file, each paired with the one alike."""
    bodies = ["\n".join(f"overload {n} step {i}" for i in range(8)) for n in range(8)]
    old = file("start.ts", *(sym(f"startWith({'T, ' * n}Scheduler?)", bodies[n]) for n in range(8)))
    new = file("start.ts", *(sym(f"startWith({'T, ' * n}IScheduler?)", bodies[n] + " edited") for n in range(8)))
    live = live_of(old)
    p = plan_changes(scope=SCOPE, live=live, targets={"start.ts": new}, gone=(), renames={}, old_source=_sources(old))
    successor = {c.id: c.superseded_by for c in p.closures}
    by_id = {v.id: v.symbol.qualname for v in p.new_versions}
    assert {m.qualname: by_id.get(successor[m.id] or "") for m in live} == {
        f"startWith({'T, ' * n}Scheduler?)": f"startWith({'T, ' * n}IScheduler?)" for n in range(8)
    }


def test_overloads_follow_their_siblings_to_a_new_name():
    """rxjs 7 renamed ``combineAll`` to ``combineLatestAll`` in a new file: its overloads
    are alike and pair by their code, its implementation was rewritten and continues the
    one with its parameter types. One sibling paired is no vote; a mark never pairs
    across names unless siblings went there."""
    signatures = ["()", "()#2", "((...values:T[])=>R)", "((...values:Array)=>R)"]
    old = file("combineAll.ts", *(sym(f"combineAll{d}", f"declare overload {i} " * 6) for i, d in enumerate(signatures)),
               sym("combineAll((...values:Array)=>R?)", "return source.lift(new CombineLatestOperator(project)); " * 5))  # fmt: skip
    new = file("combineLatestAll.ts",
               *(sym(f"combineLatestAll{d}", f"declare overload {i} " * 6) for i, d in enumerate(signatures)),
               sym("combineLatestAll((...values:Array)=>R?)", "return joinAllInternals(combineLatest, project); " * 5))  # fmt: skip
    live = live_of(old)
    p = plan_changes(scope=SCOPE, live=live, targets={new.path: new}, gone=[old.path],
                     renames={old.path: new.path}, old_source=_sources(old))  # fmt: skip
    by_id = {v.id: v.symbol.qualname for v in p.new_versions}
    successors = {m.qualname: by_id.get({c.id: c.superseded_by for c in p.closures}[m.id] or "") for m in live}
    assert successors == {m.qualname: m.qualname.replace("combineAll", "combineLatestAll") for m in live}
    lone = file("combineAll.ts", sym("combineAll()", "declare overload 0 " * 6),
                sym("combineAll((...values:Array)=>R?)", "return source.lift(new CombineLatestOperator(project)); " * 5))  # fmt: skip
    p = plan_changes(scope=SCOPE, live=live_of(lone), targets={new.path: new}, gone=[lone.path],
                     renames={lone.path: new.path}, old_source=_sources(lone))  # fmt: skip
    assert sorted(c.reason for c in p.closures) == ["removed", "renamed"]


def test_a_name_that_arrived_elsewhere_is_asked_before_a_rename_in_place():
    """SQLAlchemy 1.4 moved tests on deprecated API to ``test_deprecations.py`` under their
    names, and a variant on the new API took their place under another: the test continues
    where its name went. Where that code is not alike, the variant in place continues it."""
    body = "\n".join(f"step {i}" for i in range(12))
    old = file("test_query.py", sym("DistinctTest", kind="class"), sym("DistinctTest.test_roundtrip", body, kind="method"))
    variant = file("test_query.py", sym("DistinctTest", kind="class"),
                   sym("DistinctTest.test_roundtrip_from_subq", body + "\nsubquery", kind="method"))  # fmt: skip
    live = live_of(old)
    moved = live[1]
    for elsewhere, successor in ((body + "\nwarns", "Implicit.test_roundtrip"),
                                 ("something else entirely " * 9, "DistinctTest.test_roundtrip_from_subq")):  # fmt: skip
        deprecations = file("test_deprecations.py", sym("Implicit", kind="class"),
                            sym("Implicit.test_roundtrip", elsewhere, kind="method"))  # fmt: skip
        p = plan_changes(scope=SCOPE, live=live, targets={"test_query.py": variant, "test_deprecations.py": deprecations},
                         gone=(), renames={}, old_source=_sources(old))  # fmt: skip
        by_id = {v.id: v.symbol.qualname for v in p.new_versions}
        assert by_id[{c.id: c.superseded_by for c in p.closures}[moved.id]] == successor


def test_a_modules_default_export_is_never_paired_by_that_name_alone():
    """Every formatter's ``module.exports = function`` is named ``default``: a deleted one
    is no new file's however few candidates a commit has, while a renamed file keeps it,
    and it may be renamed where it is (``export default function Page``)."""
    code = "emits events to listeners " * 4
    old = file("lib/safe-emitter.js", sym("default", code))
    new = file("messages/plugin-missing.js", sym("default", "returns a message template " * 4))
    live = live_of(old)
    p = plan_changes(scope=SCOPE, live=live, targets={new.path: new}, gone=[old.path], renames={},
                     old_source=_sources(old))  # fmt: skip
    assert [(c.reason, c.superseded_by) for c in p.closures] == [("deleted", None)]
    assert [v.change for v in p.new_versions] == ["added"]
    for target, renames in ((FileSymbols("lib/emitter.js", "blob-moved", "javascript", old.symbols),
                             {old.path: "lib/emitter.js"}),
                            (file(old.path, sym("SafeEmitter", code)), {})):  # fmt: skip
        p = plan_changes(scope=SCOPE, live=live, targets={target.path: target}, gone=list(renames),
                         renames=renames, old_source=_sources(old))  # fmt: skip
        assert [(c.reason, c.superseded_by) for c in p.closures] == [("renamed", p.new_versions[0].id)]


def test_duplicate_live_versions_after_a_crash_collapse_to_one():
    v1 = file("a.py", sym("f", "v1"))
    v2 = file("a.py", sym("f", "v2"))
    p = plan(live_of(v1) + live_of(v2), [v2])
    assert not p.new_versions
    assert [(c.id, c.reason, c.superseded_by) for c in p.closures] == [
        (live_of(v1)[0].id, "modified", live_of(v2)[0].id)
    ]


def test_untouched_paths_are_left_alone():
    other = file("other.py", sym("x"))
    p = plan(live_of(other), [file("a.py", sym("f"))])
    assert not p.closures and len(p.new_versions) == 1


def test_module_symbols_follow_their_file_only():
    a = file("a.py", sym("<module>", "A", kind="module"))
    b = file("b.py", sym("<module>", "A", kind="module"))
    p = plan(live_of(a), [b], gone=["a.py"])
    assert [c.reason for c in p.closures] == ["deleted"]
    assert [v.change for v in p.new_versions] == ["added"]


def test_ids_are_deterministic_and_scoped():
    s = sym("f")
    assert memory_id(SCOPE, "a.py", "function", "f", s.content_hash) == memory_id(
        Scope("repo", "main"), "a.py", "function", "f", s.content_hash
    )
    assert memory_id(SCOPE, "a.py", "function", "f", "h") != memory_id(Scope("repo", "dev"), "a.py", "function", "f", "h")
    assert memory_id(SCOPE, "a.py", "function", "f", "h") != memory_id(Scope("other", "main"), "a.py", "function", "f", "h")


def test_an_edited_debt_note_is_a_modification_of_the_only_note_at_its_anchor():
    old = file("a.py", sym("f:todo:aaa", "cache", kind="todo"), sym("f:fixme:bbb", "lock", kind="fixme"))
    new = file("a.py", sym("f:todo:ccc", "cache in redis", kind="todo"), sym("f:fixme:bbb", "lock", kind="fixme"))
    p = plan(live_of(old), [new])
    (version,) = p.new_versions
    assert (version.symbol.qualname, version.change, version.lineage) == ("f:todo:ccc", "modified", live_of(old)[0].lineage)
    assert [(c.id, c.reason, c.superseded_by) for c in p.closures] == [(live_of(old)[0].id, "modified", version.id)]


def test_a_debt_note_whose_anchor_was_renamed_keeps_its_lineage():
    """sqlalchemy's ``reduce_columns#3:todo:…`` became ``reduce_columns:todo:…`` when its
    function became ``reduce_columns``: the same text in the same file is the same note.
    Two notes of one text under two anchors tell nothing apart: removed and added."""
    old = file("u.py", sym("reduce_columns#3:todo:aaa", "cover it", kind="todo"), sym("g:todo:bbb", "y", kind="todo"))
    new = file("u.py", sym("reduce_columns:todo:aaa", "cover it", kind="todo"), sym("g:todo:bbb", "y", kind="todo"))
    p = plan(live_of(old), [new])
    (version,) = p.new_versions
    assert (version.symbol.qualname, version.change, version.lineage) == (
        "reduce_columns:todo:aaa", "renamed", live_of(old)[0].lineage,
    )  # fmt: skip
    twice = file("u.py", sym("f:todo:aaa", "x", kind="todo"), sym("g:todo:aaa", "x", kind="todo"))
    p = plan(live_of(twice), [file("u.py", sym("h:todo:aaa", "x", kind="todo"), sym("k:todo:aaa", "x", kind="todo"))])
    assert sorted(c.reason for c in p.closures) == ["removed", "removed"]


def test_debt_notes_at_an_ambiguous_anchor_are_removed_and_added():
    old = file("a.py", sym("f:todo:aaa", "x", kind="todo"), sym("f:todo:bbb", "y", kind="todo"))
    new = file("a.py", sym("f:todo:ccc", "z", kind="todo"))
    p = plan(live_of(old), [new])
    assert sorted(c.reason for c in p.closures) == ["removed", "removed"]
    assert [v.change for v in p.new_versions] == ["added"]


def test_a_decision_document_follows_its_file_only():
    a = file("docs/adr/1.md", sym("<document>", "use X", kind="adr"))
    b = file("docs/adr/2.md", sym("<document>", "use Y", kind="adr"))
    p = plan(live_of(a), [b], gone=["docs/adr/1.md"])
    assert [c.reason for c in p.closures] == ["deleted"] and [v.change for v in p.new_versions] == ["added"]
    moved = file("docs/adr/one.md", sym("<document>", "use X", kind="adr"))
    p = plan(live_of(a), [moved], gone=["docs/adr/1.md"], renames={"docs/adr/1.md": "docs/adr/one.md"})
    assert [c.reason for c in p.closures] == ["renamed"] and [v.change for v in p.new_versions] == ["renamed"]


def test_a_preference_moved_between_tooling_files_keeps_its_lineage():
    old = [file("setup.cfg", sym("pytest", "testpaths=t", kind="test_runner")), file("pyproject.toml")]
    new = [file("setup.cfg"), file("pyproject.toml", sym("pytest", "testpaths=tests", kind="test_runner"))]
    p = plan(live_of(old[0]), new)
    (version,) = p.new_versions
    assert version.change == "renamed" and version.lineage == live_of(old[0])[0].lineage
    assert [(c.reason, c.superseded_by) for c in p.closures] == [("renamed", version.id)]


RANDOM_ENTRIES = [
    ("f", "function"), ("g", "function"), ("h", "function"), ("C", "class"), ("C.m", "method"), ("C.n", "method"),
    ("D", "class"), ("f:todo:1", "todo"), ("<module>:todo:2", "todo"), ("<module>:todo:3", "todo"),
    ("<document>", "adr"), ("ruff", "linter"),
]  # fmt: skip


def _random_tree(rng: random.Random) -> dict[str, FileSymbols]:
    files = {}
    for path in rng.sample(["a.py", "b.py", "c/d.py", "c/e.py", "f.py"], rng.randint(0, 5)):
        chosen = rng.sample(RANDOM_ENTRIES, rng.randint(0, len(RANDOM_ENTRIES)))
        files[path] = file(path, *(sym(n, str(rng.randint(0, 2)), kind=k) for n, k in sorted(chosen)))
    return files


def test_applying_any_plan_converges_to_the_target():
    rng = random.Random(1234)
    for _ in range(600):
        old, new = _random_tree(rng), _random_tree(rng)
        live = {m.id: m for f in old.values() for m in live_of(f)}
        touched = set(old) | set(new)
        gone = touched - set(new)
        renames = {}
        if gone and set(new) - set(old) and rng.random() < 0.5:
            renames[sorted(gone)[0]] = sorted(set(new) - set(old))[0]
        p = plan(list(live.values()), list(new.values()), gone=gone, renames=renames)
        for closure in p.closures:
            assert closure.id in live
            del live[closure.id]
        closed = {c.id for c in p.closures}
        expected = {m.id for f in new.values() for m in live_of(f)}
        after = set(live) | {v.id for v in p.new_versions}
        assert after == expected
        assert not closed & {v.id for v in p.new_versions}
        assert all(c.superseded_by in expected for c in p.closures if c.superseded_by)


def _as(s: Symbol, qualname: str) -> Symbol:
    """``s`` under another qualified name, its code (and hash) the same."""
    return dataclasses.replace(s, qualname=qualname, name=qualname.rsplit(".", 1)[-1])


def test_two_classes_that_moved_a_method_of_the_same_code_each_keep_their_own():
    """webpack 5.112: NormalModule and ExternalModule moved to new directories, each with
    a method of the same code; each method continues in its own class, not the other's."""
    method = sym("restore", "same code for both", kind="method")
    old_n = file("lib/NormalModule.js", _as(method, "NormalModule.restore"))
    old_e = file("lib/ExternalModule.js", _as(method, "ExternalModule.restore"))
    new_e = file("lib/module/ExternalModule.js", _as(method, "ExternalModule.restore"))
    new_n = file("lib/apps/NormalModule.js", _as(method, "NormalModule.restore"))
    live = live_of(old_n) + live_of(old_e)
    p = plan(live, [new_e, new_n], gone=["lib/NormalModule.js", "lib/ExternalModule.js"])
    successor = {c.id: c.superseded_by for c in p.closures}
    path_of = {v.id: v.file.path for v in p.new_versions}
    assert {m.path: path_of[successor[m.id]] for m in live} == {
        "lib/NormalModule.js": "lib/apps/NormalModule.js", "lib/ExternalModule.js": "lib/module/ExternalModule.js"
    }  # fmt: skip


def test_a_moved_symbol_with_a_declaration_twin_continues_in_its_own_kind_of_file():
    """A class's method moved, edited, while a ``.d.ts`` file arrived that declares the same
    qualified name: the ``.js`` one continues it; two against two stay unguessed."""
    old = FileSymbols("lib/Plugin.js", "b1", "javascript", (sym("Plugin.apply", "v1", kind="method"),))
    moved = FileSymbols("lib/ids/Plugin.js", "b2", "javascript", (sym("Plugin.apply", "v2", kind="method"),))
    declared = FileSymbols("types.d.ts", "b3", "typescript", (sym("Plugin.apply", "v3", kind="method"),))
    p = plan(live_of(old), [declared, moved], gone=["lib/Plugin.js"])
    (closure,) = p.closures
    assert closure.reason == "renamed" and {v.id: v.file.path for v in p.new_versions}[closure.superseded_by] == (
        "lib/ids/Plugin.js"
    )


def test_short_code_alike_is_not_taken_for_a_move():
    """One-line constructors of unrelated classes are 0.6 alike token for token."""
    old = file("a.py", sym("A", kind="class"), sym("A.__init__", "self.x = x", kind="method"))
    new = file("b.py", sym("B", kind="class"), sym("B.__init__", "self.y = y", kind="method"))
    p = plan_changes(scope=SCOPE, live=live_of(old), targets={"b.py": new}, gone=["a.py"], renames={},
                     old_source=_sources(old))  # fmt: skip
    assert {c.reason for c in p.closures} == {"deleted"}


def test_two_vendored_copies_of_a_module_moved_into_packages_each_continue_their_own():
    """setuptools 65: pyparsing.py became pyparsing/core.py in both vendored trees, its code
    reformatted; every method of each copy continues in the same copy, though each name
    left and arrived too often (2 copies × 9 classes) to be paired by name and likeness."""
    body = "\n".join(f"token {i} = match({i})" for i in range(12))
    olds, news = [], []
    for tree in ("pkg_resources/_vendor", "setuptools/_vendor"):
        methods = [sym(f"{cls}.parse", body, kind="method") for cls in ("Word", "And", "Or", "Each", "Not",
                                                                           "Opt", "Many", "Char", "Regex")]  # fmt: skip
        olds.append(file(f"{tree}/pyparsing.py", *methods))
        news.append(file(f"{tree}/pyparsing/core.py", *(dataclasses.replace(m, content_hash=m.content_hash[::-1],
                                                                              source=m.source + "\n") for m in methods)))  # fmt: skip
    live = [m for f in olds for m in live_of(f)]
    p = plan_changes(scope=SCOPE, live=live, targets={f.path: f for f in news}, gone=[f.path for f in olds],
                     renames={}, old_source=_sources(*olds))  # fmt: skip
    successor = {c.id: c.superseded_by for c in p.closures}
    where = {v.id: (v.file.path, v.symbol.qualname) for v in p.new_versions}
    assert all(where[successor[m.id]] == (m.path.replace(".py", "/core.py"), m.qualname) for m in live)


def test_between_namesakes_the_closest_code_continues_one():
    """svelte 5 rewrote its runtime. 4's ``lifecycle.js`` held ``onMount`` and
    ``createEventDispatcher``, and ``ssr.js`` a stub ``onMount`` for the server; 5's
    ``index-client.js`` holds both, rewritten, and ``index-server.js`` a stub
    ``createEventDispatcher``. Each implementation continues in the other, the stub not,
    though the stub's path is the closer (as paths alone chose)."""

    def function(name: str, code: str) -> Symbol:
        return dataclasses.replace(sym(name), source=code, content_hash=hashlib.sha256(code.encode()).hexdigest())

    mount = "export function scheduleMount(fn) {\n  current_component().$$.on_mount.push(fn);\n}"
    dispatch = ("export function createDispatcher() {\n  const component = current_component();\n"
                "  return (type, detail) => {\n    const callbacks = component.$$.callbacks[type];\n"
                "    if (callbacks) { callbacks.slice().forEach((fn) => fn.call(component, detail)); }\n  };\n}")  # fmt: skip
    lifecycle = FileSymbols("src/runtime/internal/lifecycle.js", "b1", "javascript",
                            (function("scheduleMount", mount), function("createDispatcher", dispatch)))  # fmt: skip
    stub = FileSymbols("src/runtime/ssr.js", "b2", "javascript", (function("scheduleMount", "export function scheduleMount() {}"),))
    client = FileSymbols("src/index-client.js", "b3", "javascript", (
        function("scheduleMount", mount.replace("current_component()", "component_context") + "\n// validated"),
        function("createDispatcher", dispatch.replace("callbacks", "events"))))  # fmt: skip
    server = FileSymbols("src/index-server.js", "b4", "javascript",
                         (function("createDispatcher", "export function createDispatcher() { return noop; }"),))  # fmt: skip
    live = [*live_of(lifecycle), *live_of(stub)]
    p = plan_changes(scope=SCOPE, live=live, targets={client.path: client, server.path: server},
                     gone=[lifecycle.path, stub.path], renames={}, old_source=_sources(lifecycle, stub))  # fmt: skip
    where = {v.id: v.file.path for v in p.new_versions}
    successor = {c.id: where.get(c.superseded_by or "") for c in p.closures}
    assert {(m.path, m.qualname): successor[m.id] for m in live} == {
        (lifecycle.path, "scheduleMount"): client.path,
        (lifecycle.path, "createDispatcher"): client.path,
        (stub.path, "scheduleMount"): None,
    }


def test_between_namesakes_their_docstrings_count_with_their_code():
    """svelte 4's ``getContext``, ``return get_current_component().$$.context.get(key)``,
    is in code more like 5's server ``getContext`` than the client's, which checks its
    caller and validates in development; the client's keeps its docstring (a JSDoc, no
    part of the code). With the leaver's docstring told, the client's continues it."""
    doc = "Retrieves the context that belongs to the closest parent component with the specified key."

    def function(name: str, code: str, docstring: str = "") -> Symbol:
        return dataclasses.replace(sym(name), source=code, docstring=docstring,
                                   content_hash=hashlib.sha256((docstring + code).encode()).hexdigest())  # fmt: skip

    old = FileSymbols("src/runtime/internal/lifecycle.js", "b1", "javascript", (function(
        "getContext", "export function getContext(key) {\n  return current_component().$$.context.get(key);\n}", doc),))
    client = FileSymbols("src/internal/client/runtime.js", "b2", "javascript", (function(
        "getContext", "export function getContext(key) {\n  const map = context_map('getContext');\n"
        "  const result = map.get(key);\n  if (DEV) { warn_missing(key, result); }\n  return result;\n}", doc),))
    server = FileSymbols("src/internal/server/context.js", "b3", "javascript", (function(
        "getContext", "export function getContext(key) {\n  return context_map('getContext').get(key);\n}"),))
    live = live_of(old)
    for old_docstring, successor in ((None, server.path), (lambda m: doc, client.path)):
        p = plan_changes(scope=SCOPE, live=live, targets={client.path: client, server.path: server}, gone=[old.path],
                         renames={}, old_source=_sources(old), old_docstring=old_docstring)  # fmt: skip
        where = {v.id: v.file.path for v in p.new_versions}
        assert [where.get(c.superseded_by or "") for c in p.closures] == [successor]

    # A leaver without a docstring is weighed by its code alone: that another namesake
    # has none either tells nothing (rxjs 6.0's ``zip`` overloads).
    bare, undocumented = (dataclasses.replace(f, symbols=(function("getContext", f.symbols[0].source),))
                          for f in (old, client))  # fmt: skip
    near = dataclasses.replace(server, symbols=(function("getContext", server.symbols[0].source, "Deprecated."),))
    p = plan_changes(scope=SCOPE, live=live_of(bare), targets={client.path: undocumented, server.path: near},
                     gone=[old.path], renames={}, old_source=_sources(bare), old_docstring=lambda m: "")  # fmt: skip
    where = {v.id: v.file.path for v in p.new_versions}
    assert [where.get(c.superseded_by or "") for c in p.closures] == [server.path]


def test_short_code_renamed_in_place_needs_a_word_of_its_old_name():
    """``setup`` → ``setup_test`` (pytest's rename in SQLAlchemy 1.4's tests) is a rename;
    ``__enter__`` (``return self``) → ``_is_active`` is not, however alike the code."""
    old = file("t.py", sym("T", kind="class"), sym("T.setup", "self.x = 1", kind="method"),
               sym("T.__enter__", "return self", kind="method"))  # fmt: skip
    new = file("t.py", sym("T", kind="class"), sym("T.setup_test", "self.x = 1", kind="method"),
               sym("T._is_active", "return self", kind="method"))  # fmt: skip
    p = plan_changes(scope=SCOPE, live=live_of(old), targets={"t.py": new}, gone=[], renames={},
                     old_source=_sources(old))  # fmt: skip
    reasons = {c.id: c.reason for c in p.closures}
    ids = {m.qualname: m.id for m in live_of(old)}
    assert reasons[ids["T.setup"]] == "renamed" and reasons[ids["T.__enter__"]] == "removed"


def test_one_line_code_is_no_evidence_of_a_move_to_another_class():
    """``return self`` left one class and the same line arrived in an unrelated class in
    another file: no lineage. In a class of the same name elsewhere, it moved with it."""
    line = sym("__enter__", "return self", kind="method")
    old = file("testing/engines.py", _as(line, "ProxyCursor.__enter__"), _as(line, "Pool.__enter__"))
    new = file("orm/session.py", _as(line, "Session.__enter__"), _as(line, "Pool.__enter__"))
    p = plan(live_of(old), [new], gone=["testing/engines.py"])
    reasons = {c.id: c.reason for c in p.closures}
    ids = {m.qualname: m.id for m in live_of(old)}
    assert reasons[ids["ProxyCursor.__enter__"]] == "deleted" and reasons[ids["Pool.__enter__"]] == "renamed"


def test_long_code_is_compared_by_its_tokens_overlap():
    """Past LONG_CODE tokens difflib's ratio costs the product of the lengths (a class of
    15k tokens against one of 9k: seconds); the overlap of the tokens stands in for it."""
    from recalld.ingest.likeness import LONG_CODE, likeness

    lines = [f"value_{i} = compute({i}, other_{i})" for i in range(LONG_CODE // 8 + 10)]
    shuffled = lines[1::2] + lines[::2]
    assert likeness("\n".join(lines), "\n".join(shuffled), 0.6) == 1.0
    assert likeness("\n".join(lines[:50]), "\n".join(shuffled[:50]), 0.0) < 0.9  # short code: order counts


def _body(tag: str) -> str:
    return "\n".join(f"{tag} step {i} = compute({tag}, {i})" for i in range(6))


def member(qualname: str, body: str) -> Symbol:
    """A method whose code, like real code, does not name its class."""
    source = f"def {qualname.rsplit('.', 1)[-1]}(self):\n{body}"
    return dataclasses.replace(sym(qualname, kind="method"), source=source,
                               content_hash=hashlib.sha256(source.encode()).hexdigest())  # fmt: skip


def test_a_class_renamed_into_another_file_follows_its_members():
    """``Loader`` in ``loaders.py`` became ``Reader`` in a new ``readers.py`` (git paired
    no files). Half of its members moved there unchanged: it is ``Reader``; then its
    other members continue the member of the same name there, however edited. A class
    whose members split between two new classes is no rename, nor one that kept its
    name elsewhere, nor one less than half of whose members moved there."""
    old = file("loaders.py", sym("Loader", "base", kind="class"), member("Loader.read", _body("r")),
               member("Loader.parse", _body("p")), member("Loader.render", _body("d")),
               member("Loader.__init__", "self.x = 1"), member("Loader.gone", _body("g")),
               member("Loader.stale", "return self.cache.pop()"))  # fmt: skip
    new = file("readers.py", sym("Reader", "base, other", kind="class"), member("Reader.read", _body("r")),
               member("Reader.parse", _body("p")), member("Reader.render", _body("d")),
               member("Reader.__init__", "self.y = []"),
               member("Reader.fresh", "return sorted(self.items, key=len)"))  # fmt: skip
    live = live_of(old)
    ids = {m.qualname: m.id for m in live}
    lineage = {m.qualname: m.lineage for m in live}

    def planned(*targets: FileSymbols) -> tuple[dict[str, str], dict[str, tuple[str, str | None]]]:
        p = plan_changes(scope=SCOPE, live=live, targets={f.path: f for f in targets}, gone=["loaders.py"],
                         renames={}, old_source=_sources(old))  # fmt: skip
        qualnames = {v.id: v.symbol.qualname for v in p.new_versions}
        closed = {c.id: (c.reason, qualnames.get(c.superseded_by or "")) for c in p.closures}
        return {v.symbol.qualname: v.lineage for v in p.new_versions}, closed

    lineages, closed = planned(new)
    for was, now in (("Loader", "Reader"), ("Loader.__init__", "Reader.__init__"), ("Loader.render", "Reader.render")):
        assert lineages[now] == lineage[was] and closed[ids[was]] == ("renamed", now), was
    assert closed[ids["Loader.gone"]] == ("deleted", None) and lineages["Reader.fresh"] not in lineage.values()

    split = (file("readers.py", *(s for s in new.symbols if s.qualname in ("Reader", "Reader.read", "Reader.render"))),
             file("parsers.py", sym("Parser", kind="class"), member("Parser.parse", _body("p")),
                  member("Parser.__init__", "self.y = []")))  # fmt: skip
    kept_name = (file("readers.py", *new.symbols), file("loader.py", sym("Loader", "base", kind="class")))
    fewer = (file("readers.py", *(s for s in new.symbols if s.qualname != "Reader.render")),)
    for targets in (split, kept_name, fewer):
        lineages, closed = planned(*targets)
        assert lineages.get("Reader") != lineage["Loader"] and lineages.get("Reader.__init__") != lineage["Loader.__init__"]
        assert closed[ids["Loader.read"]][0] == closed[ids["Loader.parse"]][0] == "renamed"


def test_members_with_a_dot_in_their_name_follow_their_class():
    """A computed or quoted member name holds dots that are not scopes: three.js's
    ``Vector3.[ Symbol.iterator ]``, eslint's visitor ``create."MemberExpression >
    Identifier.property"``. ``Vec`` became ``Vector`` in a new file, half its members
    unchanged, so it is ``Vector``; its members of those names follow it however edited,
    as members named by a word do. Read as ``Vec.[Symbol`` and ``iterator]``, their
    scope was no scope that continued."""
    names = ("size", "add", "scale", "[Symbol.iterator]", '"x.y"', "['a.b'](number)")
    old = FileSymbols("vec.js", "blob-old", "javascript", (
        sym("Vec", "a vector", kind="class"),
        *(member(f"Vec.{name}", _body(f"m{i}")) for i, name in enumerate(names[:3])),
        *(member(f"Vec.{name}", f"yield* this.items{i}") for i, name in enumerate(names[3:]))))  # fmt: skip
    new = FileSymbols("vector.js", "blob-new", "javascript", (
        sym("Vector", "a vector of numbers", kind="class"),
        *(member(f"Vector.{name}", _body(f"m{i}")) for i, name in enumerate(names[:3])),
        *(member(f"Vector.{name}", f"return {i} + iterate(this, all.values)") for i, name in enumerate(names[3:]))))  # fmt: skip
    live = live_of(old)
    lineage = {m.qualname: m.lineage for m in live}
    p = plan_changes(scope=SCOPE, live=live, targets={new.path: new}, gone=[old.path], renames={},
                     old_source=_sources(old))  # fmt: skip
    got = {v.symbol.qualname: v.lineage for v in p.new_versions}
    for name in names:
        assert got[f"Vector.{name}"] == lineage[f"Vec.{name}"], name


def test_likeness_is_remembered_for_each_floor_of_tokens():
    """One pass compares short code and another does not (``short_ok``): what one found
    for a pair is not the other's answer."""
    old, new = file("a.py", sym("add", "return a + b")), file("a.py", sym("add_up", "return a + b + 0"))
    (mem,) = live_of(old)
    version = NewVersion("v", new, new.symbols[0], "v", "added")
    memo: dict = {}
    assert memoised_likeness(memo, mem, version, old.symbols[0].source, 0.7) == 0.0  # under MIN_TOKENS
    assert memoised_likeness(memo, mem, version, old.symbols[0].source, 0.7, min_tokens=0) > 0.7


def test_token_overlap_ranks_texts_by_what_they_share():
    same, other, empty = tokens("return a + b"), tokens("yield c"), tokens("")
    assert overlap(same, tokens("return  a+b")) == 1.0 and overlap(same, other) == 0.0
    assert overlap(empty, empty) == 1.0 and overlap(same, empty) == 0.0
    assert 0 < overlap(same, tokens("return a - b")) < 1


def test_a_qualnames_scope_and_name_leave_computed_and_quoted_names_whole():
    cases = {
        "Parser.parse(java.io.Reader)#2": ("Parser", "parse", "(java.io.Reader)#2"),
        "Vector3.[ Symbol.iterator ]": ("Vector3", "[ Symbol.iterator ]", ""),
        "Foo.[Symbol.iterator](number)#2": ("Foo", "[Symbol.iterator]", "(number)#2"),
        'create."ForStatement > *.init:exit"': ("create", '"ForStatement > *.init:exit"', ""),
        "create.'Call[callee.name=\"x\"]'#3": ("create", "'Call[callee.name=\"x\"]'", "#3"),
        "'a str.deserialize": ("'a str", "deserialize", ""),  # a Rust lifetime, not a quote
        "Expected + '_.fmt": ("Expected + '_", "fmt", ""),
        "M.[unclosed.x": ("M.[unclosed", "x", ""),
        "a(b)c": ("", "a(b)c", ""),
        # a Rust trait impl's member is its type's; the trait tells it from its namesakes
        "<Arg as Display>.fmt": ("Arg", "fmt", " as Display"),
        "tests.<Arg as PartialEq<(u8, u8)>>.eq#2": ("tests.Arg", "eq", " as PartialEq<(u8, u8)>#2"),
        "<[u8] as Foo>.bar": ("[u8]", "bar", " as Foo"),
        "<&mut FlatSet as IntoIterator>.into_iter": ("FlatSet", "into_iter", " as IntoIterator for &mut"),
        "<&str as PartialEq<Str>>.eq": ("str", "eq", " as PartialEq<Str> for &"),
        # one for some type arguments is its type's too, the arguments told first
        "<Cursor<Vec<u8>> as AsyncWrite>.poll_write": ("Cursor", "poll_write", "<Vec<u8>> as AsyncWrite"),
        "io.<Point<f32>>.norm#2": ("io.Point", "norm", "<f32>#2"),
        "<&mut Point<u8> as Iterator>.next": ("Point", "next", "<u8> as Iterator for &mut"),
        "Foo.<init>": ("Foo", "<init>", ""),
        # a Java method named as its class beside a constructor of its types: its return type told
        "E.E(int): java.util.List<T>#2": ("E", "E", "(int): java.util.List<T>#2"),
        # a JavaScript test's title is one quoted name, dots and parentheses and all
        '"Router"."v1.2 (legacy)"."calls f(x)"#2': ('"Router"."v1.2 (legacy)"', '"calls f(x)"', "#2"),
        # a C++ template's arguments are its name's, dots and all; an operator's bracket none
        "absl.AcceptImpl<R C::*,Args...>": ("absl", "AcceptImpl<R C::*,Args...>", ""),
        "absl.AcceptImpl<R C::*,Args...>.get(int)#2": ("absl.AcceptImpl<R C::*,Args...>", "get", "(int)#2"),
        "Widget.operator<<(std::ostream&)": ("Widget", "operator<<", "(std::ostream&)"),
        'TEST_CASE("parses 1.5")': ("", "TEST_CASE", '("parses 1.5")'),
    }
    for qualname, parts in cases.items():
        assert (parent_scope(qualname), short_name(qualname), decoration(qualname)) == parts, qualname


def test_overloads_whose_parameters_changed_continue_in_a_scope_that_gained_hundreds():
    """commons-lang 3 turned ``ArrayUtils.addAll(int[], int[])`` into ``addAll(int[],
    int...)`` while ``ArrayUtils`` gained hundreds of methods: too many pairs to compare
    the scope's leavers with all its arrivals, so the overloads of one name are compared
    among themselves first, each continuing the most alike. In place and where the class
    moved to another file (``lang/`` → ``lang3/``)."""
    types = ("int", "long", "short", "byte", "char")  # 25 pairs: more than one name's compared across files (16)

    def utils(path: str, params: str, *extra: Symbol) -> FileSymbols:
        overloads = (member(f"ArrayUtils.addAll({t}[], {t}{params})", _body(f"join {t} arrays")) for t in types)
        return file(path, sym("ArrayUtils", "class ArrayUtils", kind="class"), *overloads, *extra)

    gained = [member(f"ArrayUtils.method{i}", _body(f"new method {i}")) for i in range(300)]
    old = utils("lang/ArrayUtils.java", "[]")
    lineage = {m.qualname: m.lineage for m in live_of(old)}
    for path in ("lang/ArrayUtils.java", "lang3/ArrayUtils.java"):
        new = utils(path, "...", *gained)
        gone = [] if path == old.path else [old.path]
        p = plan_changes(scope=SCOPE, live=live_of(old), targets={path: new}, gone=gone, renames={},
                         old_source=_sources(old))  # fmt: skip
        got = {v.symbol.qualname: v.lineage for v in p.new_versions if "addAll" in v.symbol.qualname}
        assert got == {f"ArrayUtils.addAll({t}[], {t}...)": lineage[f"ArrayUtils.addAll({t}[], {t}[])"] for t in types}, path


def test_a_class_renamed_in_its_own_file_whose_name_arrived_elsewhere_is_renamed():
    """eslint 9 renamed ``ESLint`` ``LegacyESLint`` where it was (git: ``eslint.js`` →
    ``legacy-eslint.js``) and brought an ``ESLint`` declared in a new ``types/index.d.ts``
    with its methods' names. Half or more of its members went to ``LegacyESLint``, in its
    own file: it is ``LegacyESLint``, and its edited members follow it there, not to
    the declarations. (One moved to another file beside a class of its old name is that
    class, as SQLAlchemy's ``ENUM``: the test above.)"""
    old = file("lib/eslint.py", sym("ESLint", "lints files", kind="class"),
               member("ESLint.lint_text", _body("text")), member("ESLint.load_formatter", _body("format")),
               member("ESLint.lint_files", _body("files")), member("ESLint.__init__", "self.options = options"))  # fmt: skip
    unchanged = (dataclasses.replace(s, qualname="Legacy" + s.qualname) for s in old.symbols[1:3])
    legacy = file("lib/legacy.py", sym("LegacyESLint", "lints files the old way", kind="class"), *unchanged,
                  member("LegacyESLint.lint_files", _body("files") + " edited"),
                  member("LegacyESLint.__init__", "self.options = validated(options)"))  # fmt: skip
    declared = file("lib/types.py", sym("ESLint", "declared", kind="class"),
                    member("ESLint.lint_files", "pass"), member("ESLint.__init__", "pass"))  # fmt: skip
    live = live_of(old)
    lineage = {m.qualname: m.lineage for m in live}
    p = plan_changes(scope=SCOPE, live=live, targets={legacy.path: legacy, declared.path: declared},
                     gone=[old.path], renames={old.path: legacy.path}, old_source=_sources(old))  # fmt: skip
    got = {(v.file.path, v.symbol.qualname): v.lineage for v in p.new_versions}
    for name in ("", ".lint_files", ".__init__"):
        assert got[(legacy.path, f"LegacyESLint{name}")] == lineage[f"ESLint{name}"], name
        assert got[(declared.path, f"ESLint{name}")] not in lineage.values(), name


def test_members_of_many_moved_classes_follow_their_own_class():
    """Five classes moved out of ``models.py`` into a file each and renamed (``Model0``
    → ``Record0``), every one edited: each ``__init__`` (a name in too many places to
    pair by likeness alone) continues in its own class's successor."""
    names = [f"Model{i}" for i in range(5)]
    old = file("models.py", sym("keep", "stays"), *(s for n in names for s in (
        sym(n, _body(n), kind="class"), member(f"{n}.__init__", f"self.{n} = {n}"),
        member(f"{n}.describe", _body(n + "d")), member(f"{n}.save", _body(n + "s")))))  # fmt: skip
    moved = [file(f"records/{n.lower()}.py", sym(n.replace("Model", "Record"), _body(n) + " edited", kind="class"),
                  member(f"{n.replace('Model', 'Record')}.__init__", f"self.{n} = {n}()"),
                  member(f"{n.replace('Model', 'Record')}.describe", _body(n + "d")),
                  member(f"{n.replace('Model', 'Record')}.save", _body(n + "s"))) for n in names]  # fmt: skip
    live = live_of(old)
    lineage = {m.qualname: m.lineage for m in live}
    targets = {f.path: f for f in [file("models.py", sym("keep", "stays")), *moved]}
    p = plan_changes(scope=SCOPE, live=live, targets=targets, gone=(), renames={}, old_source=_sources(old))
    got = {(v.file.path, v.symbol.qualname): v.lineage for v in p.new_versions}
    assert got == {(f.path, s.qualname): lineage[s.qualname.replace("Record", "Model")] for f in moved for s in f.symbols}
    assert {c.reason for c in p.closures} == {"renamed"}


def test_a_rewritten_file_keeps_what_it_still_declares_and_its_module_goes_with_its_content():
    """git found ``app.py`` rewritten, its old content in a new ``scaffold.py`` (-B -M):
    the class it still declares stays there (modified), the methods and the module
    memory go with the content. When the new content came from another file (eslint's
    swap), nothing stays but what is unchanged."""
    old = file("app.py", sym("<module>", "app", kind="module"), sym("Flask", "app", kind="class"),
               member("Flask.route", _body("route")))  # fmt: skip
    app = file("app.py", sym("<module>", "stub", kind="module"), sym("Flask", "(Scaffold)", kind="class"))
    scaffold = file("scaffold.py", sym("<module>", "app", kind="module"), sym("Scaffold", "app", kind="class"),
                    member("Scaffold.route", _body("route")))  # fmt: skip
    live = live_of(old)
    lineage = {m.qualname: m.lineage for m in live}
    targets = {"app.py": app, "scaffold.py": scaffold}
    p = plan_changes(scope=SCOPE, live=live, targets=targets, gone=(), renames={"app.py": "scaffold.py"},
                     old_source=_sources(old))  # fmt: skip
    got = {(v.file.path, v.symbol.qualname): (v.lineage == lineage.get(v.symbol.qualname), v.change) for v in p.new_versions}
    assert got[("app.py", "Flask")] == (True, "modified")
    assert got[("scaffold.py", "Scaffold.route")][1] == "renamed"
    assert got[("scaffold.py", "<module>")] == (True, "renamed") and got[("app.py", "<module>")][1] == "added"

    # other.py's content became app.py as app.py's went to scaffold.py: Flask is other.py's now
    other = file("other.py", sym("Flask", "other", kind="class"))
    p = plan_changes(scope=SCOPE, live=live + live_of(other), targets=targets, gone=["other.py"],
                     renames={"app.py": "scaffold.py", "other.py": "app.py"}, old_source=_sources(old, other))  # fmt: skip
    flask = next(v for v in p.new_versions if (v.file.path, v.symbol.qualname) == ("app.py", "Flask"))
    assert flask.lineage == live_of(other)[0].lineage


def test_a_class_split_in_two_halves_is_neither_half():
    """Half of ``Loader``'s members went to ``Reader`` and half to ``Parser``: it is no
    rename of either, and its members keep only their own pairs."""
    old = file("loaders.py", sym("Loader", kind="class"), member("Loader.read", _body("r")),
               member("Loader.render", _body("d")), member("Loader.parse", _body("p")),
               member("Loader.scan", _body("s")))  # fmt: skip
    new = [file("readers.py", sym("Reader", kind="class"), member("Reader.read", _body("r")),
                member("Reader.render", _body("d"))),
           file("parsers.py", sym("Parser", kind="class"), member("Parser.parse", _body("p")),
                member("Parser.scan", _body("s")))]  # fmt: skip
    live = live_of(old)
    p = plan_changes(scope=SCOPE, live=live, targets={f.path: f for f in new}, gone=["loaders.py"], renames={},
                     old_source=_sources(old))  # fmt: skip
    closed = {c.id: c.reason for c in p.closures}
    assert [closed[m.id] for m in live] == ["deleted", "renamed", "renamed", "renamed", "renamed"]


def test_a_file_git_did_not_pair_follows_its_top_level_symbols():
    """``helpers.py`` was deleted and ``tools/text.py`` added, too changed for git to pair
    them. Half of the old file's functions moved there unchanged: it is that file, so
    its ``main`` (edited, a name of many files) and its module memory continue there.
    Functions that moved into a file that existed before, or into a new file whose
    code came mostly from elsewhere, make no file pair."""
    old = file("helpers.py", sym("<module>", "helpers", kind="module"), sym("slug", _body("s")),
               sym("wrap", _body("w")), sym("main", "run()"), sym("old_only", _body("o")))  # fmt: skip
    new = file("tools/text.py", sym("<module>", "text tools", kind="module"), sym("slug", _body("s")),
               sym("wrap", _body("w")), sym("main", "run(sys.argv)"), sym("other", "return 2"))  # fmt: skip
    cli = file("cli.py", sym("<module>", "cli", kind="module"), sym("main", "cli()"))
    live = live_of(old) + live_of(cli)
    lineage = {(m.path, m.qualname): m.lineage for m in live}
    p = plan_changes(scope=SCOPE, live=live, targets={"tools/text.py": new, "cli.py": cli}, gone=["helpers.py"],
                     renames={}, old_source=_sources(old, cli))  # fmt: skip
    got = {v.symbol.qualname: (v.lineage == lineage.get(("helpers.py", v.symbol.qualname)), v.change)
           for v in p.new_versions}  # fmt: skip
    assert got == {"<module>": (True, "renamed"), "slug": (True, "renamed"), "wrap": (True, "renamed"),
                   "main": (True, "renamed"), "other": (False, "added")}  # fmt: skip

    into_existing = file("cli.py", *cli.symbols, *(s for s in new.symbols if s.qualname in ("slug", "wrap")))
    crowded = file("tools/text.py", *new.symbols, *(sym(f"fresh{i}", f"return {i}") for i in range(3)))
    by_name = {m.qualname: m.id for m in live_of(old)}
    for targets in ({"cli.py": into_existing}, {"tools/text.py": crowded, "cli.py": cli}):
        p = plan_changes(scope=SCOPE, live=live, targets=targets, gone=["helpers.py"], renames={},
                         old_source=_sources(old, cli))  # fmt: skip
        closed = {c.id: c.reason for c in p.closures}
        assert closed[by_name["<module>"]] == "deleted"  # (``main`` into tools/text.py: slug and wrap relate the files)
        assert closed[by_name["slug"]] == closed[by_name["wrap"]] == "renamed"


def test_a_file_of_one_class_git_did_not_pair_goes_where_its_class_went():
    """commons-lang 3 rewrote ``lang/BooleanUtils.java`` as ``lang3/BooleanUtils.java``,
    too changed for git to pair them: a file whose top level is its one class. The class
    continues there with its methods, and so does the file's module memory; as does rxjs
    6's ``util/isFunction.ts``, a file of one function, rewritten in ``internal/util/``.
    Not where the new file holds more besides (two other classes), nor where two deleted
    files of one class each were merged into one new file."""

    def utils(path: str, tag: str, *extra: Symbol) -> FileSymbols:
        methods = (member(f"BooleanUtils.{m}", _body(f"{m}{tag}")) for m in ("negate", "toBoolean", "xor"))
        return file(path, sym("<module>", f"package {tag}", kind="module"),
                    sym("BooleanUtils", f"class body {tag}", kind="class"), *methods, *extra)  # fmt: skip

    old = utils("lang/BooleanUtils.java", "lang")
    new = utils("lang3/BooleanUtils.java", "lang3")
    p = plan_changes(scope=SCOPE, live=live_of(old), targets={new.path: new}, gone=[old.path], renames={},
                     old_source=_sources(old))  # fmt: skip
    lineage = {m.qualname: m.lineage for m in live_of(old)}
    got = {v.symbol.qualname: v.lineage == lineage[v.symbol.qualname] for v in p.new_versions}
    assert got == {"<module>": True, "BooleanUtils": True, "BooleanUtils.negate": True,
                   "BooleanUtils.toBoolean": True, "BooleanUtils.xor": True}  # fmt: skip

    module_id = next(m.id for m in live_of(old) if m.qualname == "<module>")
    crowded = utils("lang3/BooleanUtils.java", "lang3", sym("Extra", "class x", kind="class"),
                    sym("More", "class y", kind="class"))  # fmt: skip
    other = file("lang/CharUtils.java", sym("<module>", "package lang", kind="module"),
                 sym("CharUtils", "class chars", kind="class"))  # fmt: skip
    merged = utils("lang3/BooleanUtils.java", "lang3", sym("CharUtils", "class chars", kind="class"))
    for live, targets, gone in (
        (live_of(old), {crowded.path: crowded}, [old.path]),
        (live_of(old) + live_of(other), {merged.path: merged}, [old.path, other.path]),
    ):
        p = plan_changes(scope=SCOPE, live=live, targets=targets, gone=gone, renames={},
                         old_source=_sources(old, other))  # fmt: skip
        assert {c.id: c.reason for c in p.closures}[module_id] == "deleted"

    lone = file("util/isFunction.ts", sym("<module>", "util", kind="module"), sym("isFunction", _body("f")))
    moved = file("internal/util/isFunction.ts", sym("<module>", "internal", kind="module"),
                 sym("isFunction", _body("f") + "\n"))  # fmt: skip
    p = plan_changes(scope=SCOPE, live=live_of(lone), targets={moved.path: moved}, gone=[lone.path],
                     renames={}, old_source=_sources(lone))  # fmt: skip
    assert sorted((c.reason, c.superseded_by is not None) for c in p.closures) == [("renamed", True)] * 2


def test_a_one_word_name_in_an_unrelated_file_is_not_the_same_symbol():
    """CPython 3.13 removed ``distutils``; its ``util.execute`` is not the new
    ``sqlite3.__main__.execute``, though each is the other's only candidate. A name of two
    or more words is (``MultiDomainBasicAuth`` went from pip's ``download.py`` to
    ``network/auth.py``, much rewritten), and so is a one-word name whose file is related
    by another symbol that continued there (``contents`` beside ``open_text``)."""
    util = file("distutils/util.py", sym("execute", "runs func unless dry_run " * 4),
                sym("MultiDomainBasicAuth", "keeps passwords per netloc " * 4, kind="class"))  # fmt: skip
    new = file("sqlite3/__main__.py", sym("execute", "runs sql in a console " * 4),
               sym("MultiDomainBasicAuth", "asks keyring for credentials " * 4, kind="class"))  # fmt: skip
    live = live_of(util)
    execute, auth = live
    p = plan_changes(scope=SCOPE, live=live, targets={new.path: new}, gone=[util.path], renames={},
                     old_source=_sources(util))  # fmt: skip
    closed = {c.id: c.reason for c in p.closures}
    assert closed[auth.id] == "renamed"  # the compound name
    assert closed[execute.id] == "renamed"  # a one-word name in a file the other one relates

    alone = file("distutils/util.py", sym("execute", "runs func unless dry_run " * 4))
    arrived = file("sqlite3/__main__.py", sym("execute", "runs sql in a console " * 4))
    p = plan_changes(scope=SCOPE, live=live_of(alone), targets={arrived.path: arrived}, gone=[alone.path],
                     renames={}, old_source=_sources(alone))  # fmt: skip
    assert [c.reason for c in p.closures] == ["deleted"] and [v.change for v in p.new_versions] == ["added"]

    edited = file("sqlite3/__main__.py", sym("execute", "runs func unless dry_run " * 3 + "or verbose"))
    p = plan_changes(scope=SCOPE, live=live_of(alone), targets={edited.path: edited}, gone=[alone.path],
                     renames={}, old_source=_sources(alone))  # fmt: skip
    assert [c.reason for c in p.closures] == ["renamed"]  # alike code says what the name does not


def test_a_go_package_is_one_namespace_and_short_code_must_be_nearly_the_same():
    """Go 1.24 moved ``osinfo.Version`` from ``os_unix.go`` to ``os_uname.go``, rewritten:
    a package's files share its names, so that is one symbol; two Python modules of one
    directory do not. A one-line declaration for assembly moved to another package
    continues when nearly the same, not when only its name and shape are."""
    old = FileSymbols("osinfo/os_unix.go", "b1", "go", (sym("Version", "reads uname fields " * 4),))
    new = FileSymbols("osinfo/os_uname.go", "b2", "go", (sym("Version", "calls syscall uname and trims " * 4),))
    p = plan_changes(scope=SCOPE, live=live_of(old), targets={new.path: new}, gone=[old.path], renames={},
                     old_source=_sources(old))  # fmt: skip
    assert [c.reason for c in p.closures] == ["renamed"]
    py_old, py_new = file("lib/_pyio.py", *old.symbols), file("lib/typing.py", *new.symbols)
    p = plan_changes(scope=SCOPE, live=live_of(py_old), targets={py_new.path: py_new}, gone=[py_old.path],
                     renames={}, old_source=_sources(py_old))  # fmt: skip
    assert [c.reason for c in p.closures] == ["deleted"]

    decl = FileSymbols("sha256/block_decl.go", "b3", "go", (sym("block", "(dig *digest, p []byte)"),))
    for body, reason in (("(dig *Digest, p []byte)", "renamed"), ("(h *state, b []uint32)", "deleted")):
        moved = FileSymbols("fips140/sha256/block_asm.go", "b4", "go", (sym("block", body),))
        p = plan_changes(scope=SCOPE, live=live_of(decl), targets={moved.path: moved}, gone=[decl.path],
                         renames={}, old_source=_sources(decl))  # fmt: skip
        assert [c.reason for c in p.closures] == [reason], body


def test_a_name_that_left_and_arrived_in_many_places_is_not_paired_by_its_code():
    """Go's ``init``: 17 packages lost one and 16 others gained one, loops over tables
    alike token for token. Unrelated files, a one-word name: none continues another."""
    loop = "for k := range {0} {{ {0}[k] = math.{1}(math.Pi * float64(k) / 16) }}"
    old = [FileSymbols(f"old{i}/tables.go", f"o{i}", "go", (sym("init", loop.format(f"tab{i}", "Cos")),))
           for i in range(17)]  # fmt: skip
    new = [FileSymbols(f"new{i}/keys.go", f"n{i}", "go", (sym("init", loop.format(f"key{i}", "Sin")),))
           for i in range(16)]  # fmt: skip
    live = [m for f in old for m in live_of(f)]
    p = plan_changes(scope=SCOPE, live=live, targets={f.path: f for f in new}, gone=[f.path for f in old], renames={},
                     old_source=_sources(*old))  # fmt: skip
    assert {c.reason for c in p.closures} == {"deleted"} and {v.change for v in p.new_versions} == {"added"}


def test_a_one_word_method_merely_alike_in_an_unrelated_class_is_no_move():
    """Within one release ``pipes.Template.copy`` left and ``_pyrepl``'s new
    ``TermState.copy`` arrived, 0.68 alike: not one method. Nearly the same code, scopes
    that share a word, two members that went together, or another pair relating the
    files make it a move."""
    words = [f"step{i}" for i in range(24)]
    before = " ".join(words)
    after = " ".join(w if i % 4 else "other" for i, w in enumerate(words))  # ~0.7 alike
    old = file("lib/pipes.py", sym("Template.copy", before, kind="method"))
    cases = {
        ("TermState.copy",): "removed",  # merely alike, unrelated
        ("TemplateState.copy",): "renamed",  # the scopes share a word
        ("TermState.copy", "TermState.clone"): "renamed",  # two members went together
    }
    for arrived, reason in cases.items():
        olds = [old.symbols[0], *(sym(q.replace("TermState", "Template"), before, kind="method") for q in arrived[1:])]
        was = file("lib/pipes.py", *olds)
        new = file("lib/_pyrepl/fancy_termios.py", *(sym(q, after, kind="method") for q in arrived))
        p = plan_changes(scope=SCOPE, live=live_of(was), targets={was.path: file(was.path), new.path: new}, gone=(),
                         renames={}, old_source=_sources(was))  # fmt: skip
        assert [c.reason for c in p.closures][:1] == [reason], arrived
    with_sibling = file("lib/pipes.py", old.symbols[0], sym("Pipeline.append_step", before, kind="method"))
    new = file("lib/_pyrepl/fancy_termios.py", sym("TermState.copy", after, kind="method"),
               sym("Console.append_step", after, kind="method"))  # fmt: skip
    p = plan_changes(scope=SCOPE, live=live_of(with_sibling), targets={old.path: file(old.path), new.path: new},
                     gone=(), renames={}, old_source=_sources(with_sibling))  # fmt: skip
    assert [c.reason for c in p.closures] == ["renamed", "renamed"]  # a compound name relates the files
    nearly = file("lib/_pyrepl/fancy_termios.py", sym("TermState.copy", before + " more", kind="method"))
    p = plan_changes(scope=SCOPE, live=live_of(old), targets={old.path: file(old.path), nearly.path: nearly}, gone=(),
                     renames={}, old_source=_sources(old))  # fmt: skip
    assert [c.reason for c in p.closures] == ["renamed"]


def test_a_member_follows_its_moved_scope_before_code_alike_elsewhere():
    """junit 5.10 moved ``DefaultRepetitionInfo`` out of ``RepetitionInfoParameterResolver``
    into a file of its own, and gave it two fields more. Its ``toString`` grew with them,
    so it was less like itself than like a new ``TempDirectory.FieldContext.toString``
    (0.74 against 0.76 here): it follows its class all the same."""
    old_string = 'return Builder(self).add("current", self.current).add("total", self.total)'
    own = old_string + '.add("failures", self.failures.get()).add("threshold", self.threshold).build()'
    other = 'return Builder(self).add("field", self.field).build()'
    info = ("current", "total", "__init__")
    old = file("resolver.py", sym("Resolver", "resolves parameters", kind="class"),
               member("Resolver.resolve", _body("resolve")), sym("Resolver.Info", "repetition info", kind="class"),
               *(member(f"Resolver.Info.{name}", _body(name)) for name in info),
               member("Resolver.Info.to_string", old_string + ".build()"))  # fmt: skip
    resolver = file("resolver.py", *old.symbols[:2])
    moved = file("info.py", sym("Info", "repetition info", kind="class"),
                 *(member(f"Info.{name}", _body(name) + " edited") for name in info),
                 member("Info.failures", _body("failures")), member("Info.to_string", own))  # fmt: skip
    temp = file("temp.py", sym("FieldContext", "a field's context", kind="class"),
                member("FieldContext.to_string", other))  # fmt: skip
    live = live_of(old)
    lineage = {m.qualname: m.lineage for m in live}
    targets = {f.path: f for f in (resolver, moved, temp)}
    p = plan_changes(scope=SCOPE, live=live, targets=targets, gone=(), renames={}, old_source=_sources(old))
    got = {v.symbol.qualname: v.lineage for v in p.new_versions}
    assert got["Info"] == lineage["Resolver.Info"] and got["Info.current"] == lineage["Resolver.Info.current"]
    assert got["Info.to_string"] == lineage["Resolver.Info.to_string"]
    assert got["FieldContext.to_string"] not in lineage.values()

    # Where its class's new member is not like it (a stub), the code alike elsewhere wins.
    stub = file("info.py", *moved.symbols[:-1], member("Info.to_string", "return repr(self)"))
    targets = {f.path: f for f in (resolver, stub, temp)}
    p = plan_changes(scope=SCOPE, live=live, targets=targets, gone=(), renames={}, old_source=_sources(old))
    got = {v.symbol.qualname: v.lineage for v in p.new_versions}
    assert got["FieldContext.to_string"] == lineage["Resolver.Info.to_string"]


def test_a_member_renamed_in_its_moved_scope_before_a_namesake_from_elsewhere():
    """rxjs 6 moved ``CombineLatestSubscriber`` to ``internal/observable/``, edited, and
    renamed its ``_tryProject`` ``_tryResultSelector`` (0.97 alike), while ``first``
    dropped its ``FirstSubscriber``, whose own ``_tryResultSelector`` is alike too (0.79):
    the new method is the one of its class renamed, as it is when the class moved
    unchanged, not the namesake from a class that is gone. Where the class's own leaver
    is not alike, the namesake is the new method."""
    tried = "let r; try {{ r = this.{}; }} catch (err) {{ this.dest.error(err); return; }} this.{}(r);"
    renamed = tried.format("resultSelector.apply(this, values)", "dest.next")
    other = tried.format("resultSelector(value, index)", "emitFinal")
    cases = (
        ("edited", tried.format("project.apply(this, values)", "dest.next"), "CombineLatestSubscriber._try_project"),
        ("", tried.format("project.apply(this, values)", "dest.next"), "CombineLatestSubscriber._try_project"),
        ("edited", _body("project"), "FirstSubscriber._try_result_selector"),
    )
    for edit, was, winner in cases:
        old_latest = file("operators/combine_latest.py", sym("CombineLatestSubscriber", "combines", kind="class"),
                          member("CombineLatestSubscriber.notify_next", _body("notify")),
                          member("CombineLatestSubscriber._try_project", was))  # fmt: skip
        old_first = file("operators/first.py", sym("FirstSubscriber", "emits the first", kind="class"),
                         member("FirstSubscriber._try_result_selector", other))  # fmt: skip
        new_latest = file("internal/observable/combine_latest.py",
                          sym("CombineLatestSubscriber", f"combines {edit}", kind="class"),
                          member("CombineLatestSubscriber.notify_next", _body("notify") + edit),
                          member("CombineLatestSubscriber._try_result_selector", renamed))  # fmt: skip
        first = file(old_first.path, sym("first", "take(1) of the source"))
        live = live_of(old_latest) + live_of(old_first)
        targets = {new_latest.path: new_latest, first.path: first}
        p = plan_changes(scope=SCOPE, live=live, targets=targets, gone=[old_latest.path], renames={},
                         old_source=_sources(old_latest, old_first))  # fmt: skip
        renamed_from = {m.qualname for m in live for c in p.closures if c.id == m.id and c.reason == "renamed"}
        tried_ones = {"CombineLatestSubscriber._try_project", "FirstSubscriber._try_result_selector"}
        assert "CombineLatestSubscriber" in renamed_from and renamed_from & tried_ones == {winner}, (edit, winner)
        lineage = {m.qualname: m.lineage for m in live}
        successor = {v.symbol.qualname: v.lineage for v in p.new_versions}
        assert successor["CombineLatestSubscriber._try_result_selector"] == lineage[winner]


def test_code_continues_in_code_of_its_own_language():
    """SQLAlchemy 2.0 moved ``MappedCollection``'s ``set`` and ``remove``, edited, to
    ``KeyFuncDict`` in a new file, and deleted its docs' vendored ``jquery.js``: the
    JavaScript ``remove`` methods that left and arrived are no candidates for a Python
    method, and do not make its name too common to compare. JavaScript continues in
    TypeScript."""
    words = [f"step{i}" for i in range(24)]
    before = " ".join(words)
    after = " ".join(w if i % 4 else "other" for i, w in enumerate(words))  # ~0.7 alike
    moved = ("set", "remove")
    old_py = file("orm/collections.py", *(sym(f"MappedCollection.{n}", f"{n} {before}", kind="method") for n in moved))
    new_py = file("orm/mapped_collection.py", *(sym(f"KeyFuncDict.{n}", f"{n} {after}", kind="method") for n in moved))
    js = [sym(f"Widget{i}.remove", f"node{i}.parentNode.removeChild(node{i}) " * 3, kind="method")
          for i in range(5)]  # fmt: skip
    old_js = FileSymbols("doc/static/jquery.js", "j1", "javascript", (*js, sym("Util.escape", before)))
    new_js = FileSymbols("doc/static/jquery-3.js", "j2", "javascript",
                         tuple(sym(f"Gadget{i}.remove", f"remove(elem{i}) " * 3, kind="method") for i in range(4)))
    new_ts = FileSymbols("doc/static/util.ts", "t1", "typescript", (sym("Util.escape", before),))
    live = live_of(old_py) + live_of(old_js)
    targets = {f.path: f for f in (new_py, new_js, new_ts)}
    p = plan_changes(scope=SCOPE, live=live, targets=targets, gone=[old_py.path, old_js.path], renames={},
                     old_source=_sources(old_py, old_js))  # fmt: skip
    names = {m.id: m.qualname for m in live}
    successors = {v.id: (v.file.path, v.symbol.qualname) for v in p.new_versions}
    renamed = {names[c.id]: successors[c.superseded_by] for c in p.closures if c.reason == "renamed"}
    assert renamed == {"MappedCollection.set": (new_py.path, "KeyFuncDict.set"),
                       "MappedCollection.remove": (new_py.path, "KeyFuncDict.remove"),
                       "Util.escape": (new_ts.path, "Util.escape")}  # fmt: skip


def test_a_name_of_two_words_that_many_symbols_bear_tells_nothing():
    """pylint 3 removed a functional test file whose ``my_decorator`` is one of eight in
    the tree; a new test file brings its own. Two words, but not a rare name: the two are
    not one function, nor where three bear it (pytest's hook ``pytest_runtest_teardown``).
    A name only one or two symbols bear still pairs."""
    old = file("tests/functional/p/postponed.py", sym("my_decorator", "returns the function as it is"))
    new = file("tests/functional/a/await_outside.py", sym("my_decorator", "wraps it in a coroutine"))
    for count, reason in ((8, "deleted"), (3, "deleted"), (2, "renamed")):
        p = plan_changes(scope=SCOPE, live=live_of(old), targets={new.path: new}, gone=[old.path], renames={},
                         old_source=_sources(old), name_counts=_counts(count))  # fmt: skip
        assert [c.reason for c in p.closures] == [reason], count


def test_a_package_relates_its_files_for_one_name_not_for_a_member_of_another_type():
    """Prometheus 2.53 dropped ``MemoizedSeriesIterator``; a test file of the same Go
    package brought an ``errIterator`` with an ``AtHistogram`` of code alike (0.7). One
    package is one namespace for ``osinfo.Version``, not for a method of another type.
    (Here the types share no word: two iterators would still pair by theirs.)"""
    words = [f"step{i}" for i in range(24)]
    before = " ".join(words)
    after = " ".join(w if i % 4 else "other" for i, w in enumerate(words))  # ~0.7 alike
    old = FileSymbols("storage/memoized_iterator.go", "b1", "go",
                      (sym("MemoizedSeries.AtHistogram", before, kind="method"),))  # fmt: skip
    new = FileSymbols("storage/merge_test.go", "b2", "go", (sym("errSampler.AtHistogram", after, kind="method"),))
    p = plan_changes(scope=SCOPE, live=live_of(old), targets={new.path: new}, gone=[old.path], renames={},
                     old_source=_sources(old), name_counts=_counts(17))  # fmt: skip
    assert [c.reason for c in p.closures] == ["deleted"]


def test_a_directory_moved_relates_files_of_a_common_name():
    """CPython 3.12 moved ``unittest/test/`` to ``test/test_unittest/``; each package's
    ``__init__.py`` defines ``load_tests``, a name many modules bear, and git paired the
    files with none. The only ``testmock/__init__.py`` that left and the only one that
    arrived are one file; two ``__init__.py`` of other directories are not."""
    old = (file("unittest/test/testmock/__init__.py", sym("load_tests", "discovers the mock tests " * 3)),
           file("unittest/test/__init__.py", sym("load_tests", "walks the test directory " * 3)))  # fmt: skip
    new = (file("test/test_unittest/testmock/__init__.py", sym("load_tests", "loads every test module here " * 3)),
           file("test/test_gdb/__init__.py", sym("load_tests", "skips unless gdb is found " * 3)))  # fmt: skip
    live = [m for f in old for m in live_of(f)]
    p = plan_changes(scope=SCOPE, live=live, targets={f.path: f for f in new}, gone=[f.path for f in old], renames={},
                     old_source=_sources(*old), name_counts=_counts(40))  # fmt: skip
    paths = {v.id: v.file.path for v in p.new_versions}
    closed = {c.id: (c.reason, paths.get(c.superseded_by or "")) for c in p.closures}
    testmock, package = (m.id for m in live)
    assert closed == {testmock: ("renamed", new[0].path), package: ("deleted", None)}


def test_scopes_that_share_only_a_word_many_scopes_bear_are_unrelated():
    """SQLAlchemy 2.0 dropped the oursql dialect and added psycopg's, among many dialects
    changed: ``MySQLDialect_oursql`` and ``PGDialect_psycopg`` share only "dialect".
    With the two alone in the commit, the word still relates them; names that are half
    the same words (webpack 5's ``DelegatedExportsDependency`` →
    ``StaticExportsDependency``) are related among any others."""
    words = [f"step{i}" for i in range(24)]
    before = " ".join(words)
    after = " ".join(w if i % 4 else "other" for i, w in enumerate(words))  # ~0.7 alike
    old = file("dialects/mysql/oursql.py", sym("OursqlDialect.do_begin_twophase", before, kind="method"))
    new = file("dialects/postgresql/psycopg.py", sym("PsycopgDialect.do_begin_twophase", after, kind="method"))
    others = [file(f"dialects/{n.lower()}.py", sym(f"{n}ExportsDialect.connect", f"opens a {n} connection " * 3,
                                                    kind="method")) for n in ("Asyncpg", "Pyodbc", "Oracledb")]  # fmt: skip
    for arrived, reason in (([], "renamed"), (others, "deleted")):
        targets = {f.path: f for f in (new, *arrived)}
        p = plan_changes(scope=SCOPE, live=live_of(old), targets=targets, gone=[old.path], renames={},
                         old_source=_sources(old), name_counts=_counts(8))  # fmt: skip
        assert [c.reason for c in p.closures] == [reason], len(arrived)
    was = file("dialects/delegated.py", sym("DelegatedExportsDialect.do_begin_twophase", before, kind="method"))
    now = file("dialects/static.py", sym("StaticExportsDialect.do_begin_twophase", after, kind="method"))
    targets = {f.path: f for f in (now, *others)}
    p = plan_changes(scope=SCOPE, live=live_of(was), targets=targets, gone=[was.path], renames={},
                     old_source=_sources(was), name_counts=_counts(8))  # fmt: skip
    assert [c.reason for c in p.closures] == ["renamed"]


def test_a_module_that_became_a_package_relates_its_files():
    """CPython 3.13 turned ``test_unittest.py`` into a ``test_unittest/`` package: its
    ``load_tests``, a name many modules bear, continues in ``test_unittest/__init__.py``,
    not in another package's."""
    old = file("Lib/test/test_unittest.py", sym("load_tests", "loads the unittest tests " * 3))
    for path, reason in (("Lib/test/test_unittest/__init__.py", "renamed"), ("Lib/test/test_gdb/__init__.py", "deleted")):
        new = file(path, sym("load_tests", "loads every test module of the package " * 3))
        p = plan_changes(scope=SCOPE, live=live_of(old), targets={new.path: new}, gone=[old.path], renames={},
                         old_source=_sources(old), name_counts=_counts(40))  # fmt: skip
        assert [c.reason for c in p.closures] == [reason], path


def test_two_members_alike_in_two_large_classes_did_not_move_together():
    """SQLAlchemy 2.0 removed the oursql dialect and added psycopg's: their
    ``do_commit_twophase`` and ``do_rollback_twophase`` are alike, two of dozens of
    members each, and no move of the one class into the other. Where they are half or
    more of what left the old class, or of what arrived in the new one, they moved
    together."""
    words = [f"step{i}" for i in range(24)]
    alike = {name: (" ".join(f"{name}{w}" for w in words),
                    " ".join(f"{name}{w}" if i % 4 else "other" for i, w in enumerate(words)))
             for name in ("commit", "rollback")}  # fmt: skip
    others, own = ("connect", "execute", "cursor", "ping", "close", "reset"), ("fetch", "notify", "prepare", "savepoint")

    def scope(path: str, cls: str, side: int, extra: tuple[str, ...]) -> FileSymbols:
        return file(path, sym(cls, f"the {cls} dialect", kind="class"),
                    *(member(f"{cls}.{n}", alike[n][side]) for n in alike),
                    *(member(f"{cls}.{n}", _body(f"{cls}{n}")) for n in extra))  # fmt: skip

    for old_extra, new_extra, reason in ((others, own, "deleted"), ((), own, "renamed"), (others, (), "renamed")):
        old = scope("dialects/mysql/oursql.py", "Oursql", 0, old_extra)
        new = scope("dialects/postgresql/psycopg.py", "Psycopg", 1, new_extra)
        live = live_of(old)
        p = plan_changes(scope=SCOPE, live=live, targets={new.path: new}, gone=[old.path], renames={},
                         old_source=_sources(old), name_counts=_counts(8))  # fmt: skip
        closed = {c.id: c.reason for c in p.closures}
        assert [closed[m.id] for m in live if m.qualname in ("Oursql.commit", "Oursql.rollback")] == [reason] * 2, (
            len(old_extra), len(new_extra))


def test_scopes_that_share_only_a_word_that_tells_nothing_are_unrelated():
    """hugo 0.123 dropped ``ShortcodeWithPage.page`` and brought an unrelated
    ``pageWithWeight0.page`` of code alike: beside "page", which many of that release's
    scopes bear, the two share only "with", a word that tells nothing. A word that does
    tell still relates two scopes."""
    words = [f"step{i}" for i in range(24)]
    before = " ".join(words)
    after = " ".join(w if i % 4 else "other" for i, w in enumerate(words))  # ~0.7 alike
    old = file("hugolib/shortcode.go", sym("ShortcodeWithPage.render", before, kind="method"))
    for scope, reason in (("TemplateWithWeight", "deleted"), ("ShortcodeTemplate", "renamed")):
        new = file("hugolib/page.go", sym(f"{scope}.render", after, kind="method"))
        p = plan_changes(scope=SCOPE, live=live_of(old), targets={new.path: new}, gone=[old.path], renames={},
                         old_source=_sources(old), name_counts=_counts(8))  # fmt: skip
        assert [c.reason for c in p.closures] == [reason], scope


def test_code_that_namesakes_share_is_no_evidence_of_a_move():
    """three.js r125 deleted ``Geometry``, whose ``dispose`` had the very code of
    ``BufferGeometry``'s and ``Material``'s, which stay; ``InstancedMesh`` gained a
    ``dispose`` nearly the same. Boilerplate that other live symbols of its name share
    says nothing of where one of them went; code of its own, nearly the same, moves."""
    body = "this dispatch event type dispose listeners of the object " * 2
    old = file("src/core/Geometry.js", sym("Geometry.dispose", body, kind="method"))
    new = file("src/objects/InstancedMesh.js", sym("InstancedMesh.dispose", body + "now", kind="method"))
    for same_code, reason in ((3, "deleted"), (1, "renamed")):
        p = plan_changes(scope=SCOPE, live=live_of(old), targets={new.path: new}, gone=[old.path], renames={},
                         old_source=_sources(old), name_counts=_counts(40, same_code))  # fmt: skip
        assert [c.reason for c in p.closures] == [reason], same_code


def test_boilerplate_moves_only_to_a_scope_of_a_name_alike():
    """The very same code, boilerplate that stays in other plugins (``constructor(options)
    { this.options = options; }``), under a name too common to compare each pair of
    (``COMPARED_NAMESAKES``): webpack 5 replaced ``ReadFileCompileWasmTemplatePlugin``
    with ``ReadFileCompileWasmPlugin``, whose constructor continues the old one's; an
    unrelated ``SplitChunksPlugin`` that gained one does not. A plural is the word it is
    the plural of: ``NamedModulesPlugin`` → ``NamedModuleIdsPlugin`` (webpack 5)."""
    code = "constructor(options) { this.options = options || {}; this.hooks = new Hooks(); }"

    def plugin(scope: str, shared: bool = False) -> FileSymbols:
        constructor = sym(f"{scope}.constructor", f"sets {scope} up " * 6, kind="method")
        if shared:
            constructor = dataclasses.replace(constructor, source=code, content_hash=hashlib.sha256(code.encode()).hexdigest())
        return file(f"lib/{scope}.js", constructor, sym(f"{scope}.apply", f"applies {scope} " * 6, kind="method"))

    words = ("Banner", "Define", "Progress", "Provide", "Ignore", "Hot", "Loader", "Prefetch", "Entry", "Eval",
             "Source", "Watch", "Cache", "Stats", "Limit", "Merge")  # fmt: skip
    for was, scope, reason in (("ReadFileCompileWasmTemplatePlugin", "ReadFileCompileWasmPlugin", "renamed"),
                               ("ReadFileCompileWasmTemplatePlugin", "SplitChunksPlugin", "deleted"),
                               ("NamedModulesPlugin", "NamedModuleIdsPlugin", "renamed")):  # fmt: skip
        old = [plugin(was, shared=True), *(plugin(f"{w}OldPlugin") for w in words)]
        live = [m for f in old for m in live_of(f)]
        new = [plugin(scope, shared=True), *(plugin(f"{w}NewPlugin") for w in words)]
        for same_code, commonplace_reason in ((1, "renamed"), (9, reason)):
            p = plan_changes(scope=SCOPE, live=live, targets={f.path: f for f in new}, gone=[f.path for f in old],
                             renames={}, old_source=_sources(*old), name_counts=_counts(40, same_code))  # fmt: skip
            paths = {v.id: v.file.path for v in p.new_versions}
            closed = {c.id: (c.reason, paths.get(c.superseded_by or "")) for c in p.closures}
            successor = new[0].path if commonplace_reason == "renamed" else None
            assert closed[live[0].id] == (commonplace_reason, successor), (scope, same_code)


def test_code_alike_to_the_letter_continues_in_the_order_it_is_written():
    """clap 4.0's ``arg_matches.rs``: a dozen ``type Item = …;`` of as many iterators, read
    as the file's ``Item`` … ``Item#12``, became each iterator's (``Values.Item``). Equally
    close, each continues the one written where it is, whatever order the store gave."""

    def item(qualname: str, start: int) -> Symbol:
        source = "type Item = T;"
        return Symbol(kind="type", name="Item", qualname=qualname, signature=source, docstring="", start_line=start,
                      end_line=start, content_hash=hashlib.sha256(source.encode()).hexdigest(), source=source)  # fmt: skip

    before = file("arg_matches.rs", *(item(q, n) for q, n in (("Item", 3), ("Item#2", 8), ("Item#3", 13))))
    after = file("arg_matches.rs", *(item(q, n) for q, n in (("Values.Item", 3), ("Refs.Item", 8), ("Iter.Item", 13))))
    live = list(reversed(live_of(before)))
    p = plan(live, [after])
    successor = {v.id: v.symbol.qualname for v in p.new_versions}
    lines = {m.id: m.start_line for m in live}
    pairs = sorted((lines[c.id], c.reason, successor[c.superseded_by]) for c in p.closures)  # type: ignore[index]
    assert pairs == [(3, "renamed", "Values.Item"), (8, "renamed", "Refs.Item"), (13, "renamed", "Iter.Item")]


def test_code_unchanged_under_another_decoration_continues_where_its_old_name_is_taken():
    """sqlalchemy's ``inspect``: three typings, then the implementation ``inspect#4``.
    Named by their types, the typings leave the plain name to the implementation, and the
    first typing's old name is now the implementation's. Paired by name, the implementation
    continued the first typing's lineage and its own closed as removed. Overloads put in
    another order (``K.m`` and ``K.m#2`` swapped) are the same case."""

    def renamed(s: Symbol, qualname: str) -> Symbol:
        return dataclasses.replace(s, qualname=qualname)  # the same code: its content hash kept

    typing_a, typing_b, impl = sym("inspect", "a: int"), sym("inspect#2", "a: str"), sym("inspect#3", "return a")
    other = sym("helper")
    before = file("inspection.py", typing_a, typing_b, impl, other)
    after = file("inspection.py", renamed(typing_a, "inspect(int)"), renamed(typing_b, "inspect(str)"),
                 renamed(impl, "inspect"), other)  # fmt: skip
    live = live_of(before)
    p = plan(live, [after])
    lineage = {m.qualname: m.lineage for m in live}
    assert {v.symbol.qualname: (v.change, v.lineage) for v in p.new_versions} == {
        "inspect(int)": ("renamed", lineage["inspect"]),
        "inspect(str)": ("renamed", lineage["inspect#2"]),
        "inspect": ("renamed", lineage["inspect#3"]),
    }
    assert sorted(c.reason for c in p.closures) == ["renamed"] * 3

    m1, m2 = sym("K.m", "(a) {}", kind="method"), sym("K.m#2", "(a, b) {}", kind="method")
    swapped = file("k.js", renamed(m2, "K.m"), renamed(m1, "K.m#2"))
    live = live_of(file("k.js", m1, m2))
    p = plan(live, [swapped])
    lineage = {m.qualname: m.lineage for m in live}
    assert {v.symbol.qualname: v.lineage for v in p.new_versions} == {"K.m": lineage["K.m#2"], "K.m#2": lineage["K.m"]}
    # an edit is no such case: the name's holder continues it, as before
    edited = file("k.js", sym("K.m", "(a) { return 1; }", kind="method"), m2)
    p = plan(live_of(file("k.js", m1, m2)), [edited])
    assert [(v.symbol.qualname, v.change) for v in p.new_versions] == [("K.m", "modified")]


JAVA_VIEW = b"""package com.example.views;

/** A view that hosts a React application. */
public class RootView extends FrameLayout {
  /** Starts the application in this view. */
  public void startApplication(String moduleName) {
    mModuleName = moduleName;
    attachToManager();
  }

  private void attachToManager() {
    mManager.attachRootView(this);
  }
}
"""
KOTLIN_VIEW = b"""package com.example.views

/** A view that hosts a React application. */
public open class RootView(context: Context) : FrameLayout(context) {
  /** Starts the application in this view. */
  public fun startApplication(moduleName: String) {
    this.moduleName = moduleName
    attachToManager()
  }

  private fun attachToManager() {
    manager.attachRootView(this)
  }
}
"""


SCALA_LOG = b"""package kafka.log

/** Cleans the log of old segments. */
class LogCleaner(config: CleanerConfig) {
  /** Starts the cleaner's threads. */
  def startup(): Unit = {
    info("Starting the log cleaner")
    cleaners.foreach(_.start())
  }
}
"""
JAVA_LOG = b"""package org.apache.kafka.storage.internals.log;

/** Cleans the log of old segments. */
public class LogCleaner {
    /** Starts the cleaner's threads. */
    public void startup() {
        info("Starting the log cleaner");
        cleaners.forEach(c -> c.start());
    }
}
"""


def test_a_scala_class_rewritten_in_java_continues_there():
    """Kafka moves its broker from Scala to Java a class at a time (``core/.../LogCleaner.scala``
    deleted, ``storage/.../LogCleaner.java`` added): the class and its method continue."""
    scala = FileSymbols("core/log/LogCleaner.scala", "b1", "scala", parse("scala", SCALA_LOG).symbols[1:])
    java = FileSymbols("storage/log/LogCleaner.java", "b2", "java", parse("java", JAVA_LOG).symbols[1:])
    assert _rewritten(scala, java) == {
        "LogCleaner": ("renamed", "LogCleaner"), "LogCleaner.startup": ("renamed", "LogCleaner.startup"),
    }  # fmt: skip


def _rewritten(old: FileSymbols, new: FileSymbols) -> dict[str, tuple[str, str | None]]:
    """What closes of ``old``'s symbols when ``old`` is deleted and ``new`` added: each by
    its qualified name, with its reason and its successor's."""
    p = plan(live_of(old), [new], gone=[old.path], old_source=_sources(old))
    names = {m.id: m.qualname for m in live_of(old)}
    successors = {v.id: v.symbol.qualname for v in p.new_versions}
    return {names[c.id]: (c.reason, successors.get(c.superseded_by)) for c in p.closures}


def test_a_java_class_rewritten_in_kotlin_continues_there():
    """React Native rewrites its Android sources from Java to Kotlin file by file
    (``RootView.java`` deleted, ``RootView.kt`` added beside it, nothing alike to git):
    the class and its methods continue in the Kotlin file, as JavaScript does in
    TypeScript; a Python namesake would not be a candidate."""
    java = FileSymbols("views/RootView.java", "b1", "java", parse("java", JAVA_VIEW).symbols[1:])
    kotlin = FileSymbols("views/RootView.kt", "b2", "kotlin", parse("kotlin", KOTLIN_VIEW).symbols[1:])
    assert _rewritten(java, kotlin) == {
        "RootView": ("renamed", "RootView"),
        "RootView.startApplication": ("renamed", "RootView.startApplication"),
        "RootView.attachToManager": ("renamed", "RootView.attachToManager"),
    }
