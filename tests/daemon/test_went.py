"""An answer that finds nothing at a path the index once held says where it went: the
file moved (to where its memories' successors are) or was deleted, and a symbol asked
of it where it is now."""

from __future__ import annotations

import pytest

from recalld.daemon.memories import get_symbol, outline
from recalld.daemon.query import SearchRequest, search_noted
from recalld.ingest.errors import NotFoundError
from tests.daemon.test_search import app  # noqa: F401 - the fixture
from tests.ingest.conftest import harness  # noqa: F401 - the fixture, on both store adapters

A = "def one():\n    return 1\n\n\nclass Keeper:\n    def keep(self):\n        return 2\n"
B = "def two():\n    return 2\n"
C = "def three():\n    return 3\n"


def moved(repo, old: str, new: str) -> None:  # type: ignore[no-untyped-def]
    (repo.path / new).parent.mkdir(parents=True, exist_ok=True)
    repo.git("mv", old, new)


def not_found(call, *args, **kwargs) -> str:  # type: ignore[no-untyped-def]
    with pytest.raises(NotFoundError) as caught:
        call(*args, **kwargs)
    return str(caught.value)


def test_a_moved_or_deleted_file_is_told_where_it_went(git_repo, harness, app):  # noqa: F811
    app.registry.add("r", str(git_repo.path), "main")
    for path, source in (("pkg/a.py", A), ("pkg/b.py", B), ("pkg/c.py", C)):
        git_repo.write(path, source)
    git_repo.commit("one")
    harness.sync(git_repo)
    moved(git_repo, "pkg/a.py", "src/pkg/a.py")
    moved(git_repo, "pkg/c.py", "src/pkg/sub/c.py")
    git_repo.remove("pkg/b.py")
    move = git_repo.commit("src layout")[:8]
    harness.sync(git_repo)

    said = not_found(outline, app, "r", "pkg/a.py")
    assert said.endswith(f"no file is there or matches it at the indexed commit {move}: it moved to src/pkg/a.py "
                         f"(commit {move})")  # fmt: skip
    assert not_found(outline, app, "r", "pkg/b.py").endswith(f": it was deleted (commit {move})")
    said = not_found(outline, app, "r", "pkg/")  # a directory: each file's fate
    assert said.endswith(f": 2 of its files moved to src/pkg/ (commit {move}) (pkg/a.py → src/pkg/a.py, pkg/c.py → "
                         f"src/pkg/sub/c.py); 1 was deleted (commit {move})")  # fmt: skip
    assert not_found(outline, app, "r", "pkg/*.py") == said.replace("'pkg/'", "'pkg/*.py'")  # a glob
    said = not_found(get_symbol, app, "r", "Keeper.keep", path="pkg/a.py")
    assert said.endswith(f": it moved to src/pkg/a.py (commit {move}); 'Keeper.keep' is now in src/pkg/a.py at line 6 "
                         "(recalld symbol Keeper.keep --repo r --path src/pkg/a.py)")  # fmt: skip
    assert not_found(get_symbol, app, "r", "two", path="pkg/b.py").endswith(f": it was deleted (commit {move})")
    records, notes = search_noted(app, SearchRequest("one", repo="r", path_glob="pkg/"))  # a search there too
    assert records == [] and notes == [
        f"the index holds nothing at pkg: no file is there or matches it at the indexed commit {move}: 2 of its files"
        f" moved to src/pkg/ (commit {move}) (pkg/a.py → src/pkg/a.py, pkg/c.py → src/pkg/sub/c.py); 1 was deleted"
        f" (commit {move})"
    ]
    assert search_noted(app, SearchRequest("one", path_glob="pkg/")) == (records, notes)  # without --repo: its one
    git_repo.git("branch", "dev")
    app.registry.add("other", str(git_repo.path), "dev")  # several: each says where, named
    assert search_noted(app, SearchRequest("one", path_glob="nowhere/"))[1] == [
        "the index holds nothing at nowhere in other: the repository was never synced (recalld sync)",
        f"the index holds nothing at nowhere in r: no file is there or matches it at the indexed commit {move}",
    ]
    app.registry.remove("other")
    records, notes = search_noted(app, SearchRequest("one", repo="r", path_glob="src/"))
    assert [r["qualname"] for r in records][:1] == ["one"] and notes == []
    # never held: as before
    assert not_found(outline, app, "r", "nowhere/x.py").endswith(f"no file is there or matches it at the indexed "
                                                                 f"commit {move}")  # fmt: skip

    # moved on and then deleted: each move with its own commit, and the end
    moved(git_repo, "src/pkg/a.py", "lib/a.py")
    again = git_repo.commit("again")[:8]
    harness.sync(git_repo)
    assert not_found(outline, app, "r", "pkg/a.py").endswith(
        f": it moved to src/pkg/a.py (commit {move}), then to lib/a.py (commit {again})"
    )
    git_repo.remove("lib/a.py")
    gone = git_repo.commit("gone")[:8]
    harness.sync(git_repo)
    assert not_found(outline, app, "r", "pkg/a.py").endswith(
        f": it moved to src/pkg/a.py (commit {move}), then to lib/a.py (commit {again}), deleted since (commit {gone})"
    )
    assert again != gone
    # what a symbol's successor left: nothing live to point to
    assert not_found(get_symbol, app, "r", "one", path="pkg/a.py").endswith(f"deleted since (commit {gone})")
    # of a directory: a file moved and deleted since said apart from one moved and there now
    assert not_found(outline, app, "r", "pkg/").endswith(
        f": 1 of its files moved to src/pkg/sub/ (commit {move}) (pkg/c.py → src/pkg/sub/c.py); 1 moved to lib/ in 2"
        f" commits and was deleted since (commit {gone}) (pkg/a.py → src/pkg/a.py → lib/a.py); 1 was deleted (commit"
        f" {move})"
    )
    # the symbol asked anywhere: its one lineage followed through both moves to its end
    assert not_found(get_symbol, app, "r", "one").endswith(f": 'one' was deleted (commit {gone})")


def test_a_symbol_moved_out_of_a_deleted_file_is_found_where_it_went(git_repo, harness, app):  # noqa: F811
    app.registry.add("r", str(git_repo.path), "main")
    big = "class Parser:\n    '''Reads tokens.'''\n\n    def read(self, tokens):\n        return list(tokens)\n" \
          "\n\ndef helper():\n    return 0\n"  # fmt: skip
    git_repo.write("core/all.py", big)
    git_repo.commit("one")
    harness.sync(git_repo)
    git_repo.remove("core/all.py")  # split: the class to a file of its own, the helper dropped
    git_repo.write("core/parser.py", big.split("\n\n\ndef helper")[0] + "\n")
    split = git_repo.commit("split")[:8]
    harness.sync(git_repo)
    said = not_found(get_symbol, app, "r", "Parser.read", path="core/all.py")
    assert "no file is there or matches it" in said
    assert said.endswith("'Parser.read' is now in core/parser.py at line 4 (recalld symbol Parser.read --repo r "
                         "--path core/parser.py)")  # fmt: skip
    assert split in said
    # a file split in two, a third of it dropped, neither half like it enough to be it moved: deleted, and where
    # what it defined went
    reader, writer = (f"class {name}:\n    def {verb}(self, data):\n" + "".join(
        f"        {verb}_{n} = data[{n}]\n" for n in range(12))
        for name, verb in (("Reader", "read"), ("Writer", "write")))
    dropped = "def dropped(data):\n" + "".join(f"    gone_{n} = data[{n}]\n" for n in range(12))
    git_repo.write("core/both.py", reader + "\n\n" + writer + "\n\n" + dropped)
    git_repo.commit("both")
    harness.sync(git_repo)
    git_repo.remove("core/both.py")
    git_repo.write("core/reader.py", reader)
    git_repo.write("core/writer.py", writer)
    split = git_repo.commit("split both")[:8]
    harness.sync(git_repo)
    assert not_found(outline, app, "r", "core/both.py").endswith(
        f": it was deleted (commit {split}); what it defined lives on in core/reader.py (Reader, Reader.read), "
        "core/writer.py (Writer, Writer.write)"
    )


def test_a_symbol_renamed_removed_or_held_in_several_files_says_so(git_repo, harness, app):  # noqa: F811
    app.registry.add("r", str(git_repo.path), "main")
    body = "    total = 0\n    for item in items:\n        total += item.weight * item.count\n    return total\n"
    git_repo.write("shop/cart.py", f"def cart_total(items):\n{body}\n\ndef legacy(x):\n    return x\n")
    method = "\n\nclass Cart:\n    def {}(self, item):\n        self.items.append(item)\n        self.count += 1\n" \
             "        return self.count\n"  # fmt: skip
    git_repo.write("shop/basket.py", method.format("add_item"))
    git_repo.write("shop/a.py", "def helper():\n    return 'a'\n")
    git_repo.write("shop/b.py", "def helper():\n    return 'b'\n")
    git_repo.commit("one")
    harness.sync(git_repo)
    git_repo.write("shop/cart.py", f"def basket_total(items):\n{body}")
    git_repo.write("shop/basket.py", method.format("put_item"))
    git_repo.remove("shop/a.py")
    git_repo.remove("shop/b.py")
    change = git_repo.commit("rename")[:8]
    harness.sync(git_repo)

    assert not_found(get_symbol, app, "r", "cart_total").endswith(
        ": 'cart_total' is now 'basket_total' in shop/cart.py at line 1 (recalld symbol basket_total --repo r --path "
        "shop/cart.py)"
    )
    assert not_found(get_symbol, app, "r", "add_item").endswith(  # a method asked by its name alone
        ": 'add_item' is now 'Cart.put_item' in shop/basket.py at line 4 (recalld symbol Cart.put_item --repo r "
        "--path shop/basket.py)"
    )
    for path in (None, "shop/cart.py", "shop/"):
        said = not_found(get_symbol, app, "r", "legacy", path=path)
        assert said.endswith(f": 'legacy' was removed (commit {change})"), said
    said = not_found(get_symbol, app, "r", "helper")
    assert said.endswith(": 'helper' was held in 2 files before (shop/a.py, shop/b.py): ask of one with --path")
    assert not_found(get_symbol, app, "r", "helper", path="shop/b.py").endswith(f": it was deleted (commit {change})")
    assert not_found(get_symbol, app, "r", "never_was").endswith("no symbol 'never_was' in r")

    # moved with its directory, then renamed: held in two files, one symbol, told where it is now
    moved(git_repo, "shop", "store")
    git_repo.commit("shop is store")
    harness.sync(git_repo)
    git_repo.write("store/cart.py", f"def order_total(items):\n{body}")
    git_repo.commit("order")
    harness.sync(git_repo)
    assert not_found(get_symbol, app, "r", "basket_total").endswith(
        ": 'basket_total' is now 'order_total' in store/cart.py at line 1 (recalld symbol order_total --repo r --path "
        "store/cart.py)"
    )


def test_a_chain_of_moves_names_each_move_and_a_symbol_moved_then_deleted_is_one(git_repo, harness, app):  # noqa: F811
    """ingest/wildmatch.py → src/ingest/wildmatch.py (with its directory) → src/core/globmatch.py: each move with
    its commit; ingest/__init__.py moved with it, deleted since; y.py's yy moved, then deleted: one symbol, not
    two files to choose from; two helpers in two files, each deleted: which to ask of."""
    app.registry.add("r", str(git_repo.path), "main")
    git_repo.write("ingest/__init__.py", "VERSION = 1\n")
    git_repo.write("ingest/wildmatch.py", "def match(pattern, path):\n    return pattern == path\n")
    git_repo.write("ingest/other.py", "def other():\n    return 2\n")
    git_repo.write("y.py", "def yy():\n    return 'y'\n")
    git_repo.commit("one")
    harness.sync(git_repo)
    moved(git_repo, "ingest", "src/ingest")
    moved(git_repo, "y.py", "lib/y.py")
    first = git_repo.commit("src layout")[:8]
    harness.sync(git_repo)
    moved(git_repo, "src/ingest/wildmatch.py", "src/core/globmatch.py")
    git_repo.remove("lib/y.py")
    second = git_repo.commit("globmatch")[:8]
    harness.sync(git_repo)
    git_repo.remove("src/ingest/__init__.py")
    third = git_repo.commit("no package")[:8]
    harness.sync(git_repo)

    assert not_found(outline, app, "r", "ingest/wildmatch.py").endswith(
        f": it moved to src/ingest/wildmatch.py (commit {first}), then to src/core/globmatch.py (commit {second})"
    )
    assert not_found(outline, app, "r", "ingest/").endswith(
        f": 2 of its files moved to src/ in 2 commits (ingest/other.py → src/ingest/other.py, ingest/wildmatch.py →"
        f" src/ingest/wildmatch.py → src/core/globmatch.py); 1 moved to src/ingest/ (commit {first}) and was deleted"
        f" since (commit {third}) (ingest/__init__.py → src/ingest/__init__.py)"
    )
    assert not_found(get_symbol, app, "r", "match", path="ingest/wildmatch.py").endswith(
        "; 'match' is now in src/core/globmatch.py at line 1 (recalld symbol match --repo r --path"
        " src/core/globmatch.py)"
    )
    # moved, then deleted: one lineage, told as a symbol never moved is
    assert not_found(get_symbol, app, "r", "yy").endswith(f": 'yy' was deleted (commit {second})")
    said = not_found(get_symbol, app, "r", "yy", path="y.py")  # asked of where it was: its move too
    assert said.endswith(f": it moved to lib/y.py (commit {first}), deleted since (commit {second})"), said
    # two symbols of one name, each in a file of its own, both deleted: which, asked to choose (as before)
    git_repo.write("a/h.py", "def helper():\n    return 'a'\n")
    git_repo.write("b/h.py", "def helper():\n    return 'b'\n")
    git_repo.commit("helpers")
    harness.sync(git_repo)
    git_repo.remove("a/h.py")
    git_repo.remove("b/h.py")
    git_repo.commit("no helpers")
    harness.sync(git_repo)
    assert not_found(get_symbol, app, "r", "helper").endswith(
        ": 'helper' was held in 2 files before (a/h.py, b/h.py): ask of one with --path"
    )


def test_a_path_or_symbol_committed_since_the_sync_says_a_sync_brings_it_in(git_repo, harness, app):  # noqa: F811
    """An outline of a file, a directory or a glob there is nothing of at the indexed
    commit, but that the branch has since, and a symbol not found while the memories lag
    the branch, say so: a sync brings them in (it said only "no file is there")."""
    app.registry.add("r", str(git_repo.path), "main")
    git_repo.write("a.py", A)
    indexed = git_repo.commit("one")[:8]
    harness.sync(git_repo)
    git_repo.write("lib/b.py", B)
    tip = git_repo.commit("two")[:8]
    since = f"one is there on main at {tip}, committed since (recalld sync r, or keep recalld serve running)"
    for path in ("lib/b.py", "lib/", "**/b.py"):
        assert not_found(outline, app, "r", path).endswith(f"at the indexed commit {indexed}; {since}")
    assert not_found(outline, app, "r", "nowhere.py").endswith(f"no file is there or matches it at the indexed commit"
                                                               f" {indexed}")  # fmt: skip
    assert not_found(get_symbol, app, "r", "two") == ("no symbol 'two' in r; r: memories 1 commit behind main"
                                                      " (recalld sync r, or keep recalld serve running)")  # fmt: skip
    harness.sync(git_repo)
    assert not_found(get_symbol, app, "r", "three") == "no symbol 'three' in r"
    # a path that ends one the index holds, as an agent shortens it: which it may mean
    assert not_found(outline, app, "r", "b.py").endswith(f"at the indexed commit {tip}: did you mean lib/b.py?")


def test_a_symbols_earlier_versions_under_another_name_and_path_are_its_own(git_repo, harness, app):  # noqa: F811
    """With include_deprecated, a renamed and moved symbol's answer holds the versions it
    had under its old name and path (it gave the current one alone, though they share its
    lineage), and the old name's answer the new version too."""
    app.registry.add("r", str(git_repo.path), "main")
    body = ("    host = url.split('://', 1)[-1].split('/', 1)[0]\n"
            "    names = [n.strip() for n in (no_proxy or '').split(',')]\n"
            "    return host in names or host.startswith('localhost')\n")  # fmt: skip
    git_repo.write("utils.py", f"def should_bypass_proxies(url, no_proxy):\n{body}")
    git_repo.commit("one")
    harness.sync(git_repo)
    git_repo.write("utils.py", f"def should_bypass_proxies(url, no_proxy=None):\n{body}")
    git_repo.commit("two")
    harness.sync(git_repo)
    git_repo.remove("utils.py")
    git_repo.write("net/proxies.py", f"def bypasses_proxy(url, no_proxy=None):\n{body}")
    git_repo.commit("three: renamed and moved")
    harness.sync(git_repo)

    def versions(qualname: str, **kwargs) -> list[tuple[str, str, bool]]:  # type: ignore[no-untyped-def]
        return [(v["qualname"], v["path"], v["deprecated"]) for v in get_symbol(app, "r", qualname, **kwargs)]

    assert versions("bypasses_proxy") == [("bypasses_proxy", "net/proxies.py", False)]
    every = [("bypasses_proxy", "net/proxies.py", False), ("should_bypass_proxies", "utils.py", True),
             ("should_bypass_proxies", "utils.py", True)]  # fmt: skip
    assert versions("bypasses_proxy", include_deprecated=True) == every
    assert versions("should_bypass_proxies", include_deprecated=True) == every


def test_a_name_found_in_others_after_its_own_symbol_went_says_where_that_went(git_repo, harness, app):  # noqa: F811
    """``symbol info`` after ``help.py`` (which defined ``info``) was deleted gave
    ``MockResponse.info`` and nothing of the ``info`` asked for."""
    app.registry.add("r", str(git_repo.path), "main")
    git_repo.write("help.py", "def info():\n    return {'platform': 'x'}\n")
    git_repo.write("mock.py", "class MockResponse:\n    def info(self):\n        return self\n")
    git_repo.commit("one")
    harness.sync(git_repo)
    git_repo.remove("help.py")
    gone = git_repo.commit("two: help.py deleted")[:8]
    harness.sync(git_repo)
    notes: list[str] = []
    assert [v["qualname"] for v in get_symbol(app, "r", "info", notes=notes)] == ["MockResponse.info"]
    assert notes == [f"'info' was deleted (commit {gone}); the symbols given are others of that name"]
    notes.clear()
    assert [v["qualname"] for v in get_symbol(app, "r", "MockResponse.info", notes=notes)] == ["MockResponse.info"]
    assert notes == []
