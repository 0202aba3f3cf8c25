"""Scripts in a real repository: a shell library's functions moved to another directory
with one renamed and one dropped, as Kubernetes' ``hack/lib`` and its kin move; a Neovim
plugin's Lua module made a directory's ``init.lua``; a Perl package renamed and moved."""

from __future__ import annotations

from recalld.parsers import parse

from tests.ingest.conftest import Harness

UTIL = """#!/usr/bin/env bash
# Helpers the build scripts source.

# Waits until a URL answers or the tries run out.
# Arguments: the URL, a prefix for the log, the tries.
kube::util::wait_for_url() {
  local url=$1 prefix=${2:-} tries=${3:-30}
  for _ in $(seq "$tries"); do
    curl -fs "$url" >/dev/null && return 0
    sleep 1
  done
  echo "$prefix: $url did not answer" >&2
  return 1
}

# Prints the host's platform as Go names it.
kube::util::host_platform() {
  echo "$(go env GOHOSTOS)/$(go env GOHOSTARCH)"
}

# Tells whether the tree holds uncommitted changes.
function kube::util::tree_dirty {
  ! git diff --quiet
}
"""


LUA = """--- Helpers of the plugin's windows.
local M = {}

--- Opens a floating window over the buffer.
---@param bufnr integer
function M.open_float(bufnr, opts)
  return vim.api.nvim_open_win(bufnr, true, opts)
end

function M.Window:close(force)
  vim.api.nvim_win_close(self.id, force)
end

return M
"""


def live_symbols(h: Harness, files: dict[str, str], language: str = "bash") -> dict:  # type: ignore[type-arg]
    """The live structural memories by (path, qualname): each file's parse, once each."""
    live = {(m.payload["path"], m.payload["qualname"]): m for m in h.memories(types=("structural",))}
    expected = {(path, s.qualname) for path, text in files.items() for s in parse(language, text.encode()).symbols}
    assert set(live) == expected and len(live) == len(h.memories(types=("structural",)))
    return live


def test_scripts_moved_renamed_and_dropped_keep_their_lineage(git_repo, tmp_path):
    h = Harness("edge", tmp_path / "state")
    try:
        git_repo.write("hack/lib/util.sh", UTIL)
        git_repo.write("hack/OWNERS", "approvers:\n- build-team\n")  # no extension nor interpreter line: no language
        git_repo.commit("build helpers")
        h.sync(git_repo)
        live = live_symbols(h, {"hack/lib/util.sh": UTIL})
        wait = live[("hack/lib/util.sh", "kube::util::wait_for_url")]
        assert (wait.payload["language"], wait.payload["kind"]) == ("bash", "function")
        assert wait.payload["docstring"].startswith("Waits until a URL answers")
        assert live[("hack/lib/util.sh", "<module>")].payload["docstring"] == "Helpers the build scripts source."
        dirty = live[("hack/lib/util.sh", "kube::util::tree_dirty")]
        platform = live[("hack/lib/util.sh", "kube::util::host_platform")]

        moved = UTIL.replace("kube::util::wait_for_url", "kube::util::wait_for_http")
        moved = moved[: moved.index("# Tells whether")].rstrip() + "\n"
        git_repo.remove("hack/lib/util.sh")
        git_repo.write("scripts/lib/util.sh", moved)
        git_repo.commit("move the helpers to scripts/, rename one, drop one")
        h.sync(git_repo)
        live = live_symbols(h, {"scripts/lib/util.sh": moved})
        closed = {m.id: m.payload for m in h.memories(deprecated=1)}
        renamed = live[("scripts/lib/util.sh", "kube::util::wait_for_http")]
        assert (closed[wait.id]["deprecated_reason"], closed[wait.id]["superseded_by"]) == ("renamed", renamed.id)
        assert renamed.payload["lineage"] == wait.payload["lineage"]
        kept = live[("scripts/lib/util.sh", "kube::util::host_platform")]
        assert closed[platform.id]["superseded_by"] == kept.id
        assert kept.payload["lineage"] == platform.payload["lineage"]
        assert closed[dirty.id]["deprecated_reason"] in {"removed", "deleted"}
    finally:
        h.close()


def test_a_lua_module_made_a_directorys_init_keeps_its_functions(git_repo, tmp_path):
    h = Harness("edge", tmp_path / "state")
    try:
        git_repo.write("lua/plugin/window.lua", LUA)
        git_repo.commit("windows")
        h.sync(git_repo)
        live = live_symbols(h, {"lua/plugin/window.lua": LUA}, "lua")
        close = live[("lua/plugin/window.lua", "M.Window.close")]
        assert (close.payload["language"], close.payload["kind"], close.payload["signature"]) == (
            "lua", "method", "function M.Window:close(force)"
        )  # fmt: skip
        opened = live[("lua/plugin/window.lua", "M.open_float")]
        assert opened.payload["docstring"] == "Opens a floating window over the buffer.\n@param bufnr integer"
        git_repo.remove("lua/plugin/window.lua")
        git_repo.write("lua/plugin/window/init.lua", LUA)
        git_repo.commit("a directory for the windows")
        r = h.sync(git_repo)
        live = live_symbols(h, {"lua/plugin/window/init.lua": LUA}, "lua")
        closed = {m.id: m.payload for m in h.memories(deprecated=1)}
        moved = live[("lua/plugin/window/init.lua", "M.Window.close")]
        assert (closed[close.id]["deprecated_reason"], closed[close.id]["superseded_by"]) == ("renamed", moved.id)
        assert moved.payload["lineage"] == close.payload["lineage"] and r.renamed >= 3
    finally:
        h.close()


PERL = """package Foo;

use strict;

# Opens a connection to the server.
sub connect {
    my ($class, %args) = @_;
    return bless {%args}, $class;
}

=item fetch ( KEY )

Fetches one value by its key.

=cut

sub fetch {
    my ($self, $key) = @_;
    return $self->{store}{$key};
}

sub close { 1 }

1;
"""


PERL_TEST = "use Test::More;\n\nsub fetch_one { Foo->connect->fetch(@_) }\n\nis(fetch_one('a'), 1);\ndone_testing;\n"
CRAM = "Commit a file:\n\n  $ hg init repo\n  $ cd repo\n  $ echo a > a\n  $ hg commit -Am first\n  adding a\n"


def test_a_perl_package_renamed_and_moved_keeps_its_subs_lineage(git_repo, tmp_path):
    """``lib/Foo.pm``'s ``package Foo;`` made ``lib/Foo/Legacy.pm``'s ``package Foo::Legacy;``,
    one sub renamed: every sub's memory continues under its new name; a Perl script with no
    extension is read by its ``#!`` line."""
    h = Harness("edge", tmp_path / "state")
    try:
        git_repo.write("lib/Foo.pm", PERL)
        tool = "#!/usr/bin/perl\nuse Foo;\n\n# Prints one value.\nsub main { 1 }\n"
        git_repo.write("bin/foo-fetch", tool)
        git_repo.write("t/fetch.t", PERL_TEST)
        git_repo.write("tests/test-commit.t", CRAM)  # Mercurial's and dune's tests: no Perl
        git_repo.commit("Foo")
        first = h.sync(git_repo)
        live = live_symbols(h, {"lib/Foo.pm": PERL, "bin/foo-fetch": tool, "t/fetch.t": PERL_TEST}, "perl")
        assert first.skips.get("foreign") == 1 and ("t/fetch.t", "fetch_one") in live
        fetch = live[("lib/Foo.pm", "Foo::fetch")]
        assert (fetch.payload["language"], fetch.payload["kind"]) == ("perl", "method")  # it takes $self
        assert fetch.payload["docstring"] == "fetch ( KEY )\n\nFetches one value by its key."
        assert live[("bin/foo-fetch", "main")].payload["docstring"] == "Prints one value."
        connect = live[("lib/Foo.pm", "Foo::connect")]

        moved = PERL.replace("package Foo;", "package Foo::Legacy;").replace("sub close", "sub disconnect")
        git_repo.remove("lib/Foo.pm")
        git_repo.write("lib/Foo/Legacy.pm", moved)
        git_repo.commit("Foo is Foo::Legacy")
        r = h.sync(git_repo)
        closed = {m.id: m.payload for m in h.memories(deprecated=1)}
        live = {(m.payload["path"], m.payload["qualname"]): m for m in h.memories(types=("structural",))}
        for old, new in ((fetch, "Foo::Legacy::fetch"), (connect, "Foo::Legacy::connect")):
            successor = live[("lib/Foo/Legacy.pm", new)]
            assert closed[old.id]["superseded_by"] == successor.id
            assert successor.payload["lineage"] == old.payload["lineage"]
        assert ("lib/Foo/Legacy.pm", "Foo::Legacy::disconnect") in live and r.renamed >= 3
    finally:
        h.close()
