"""Shell scripts in a real repository: a library's functions moved to another directory
with one renamed and one dropped, as Kubernetes' ``hack/lib`` and its kin move."""

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


def live_symbols(h: Harness, files: dict[str, str]) -> dict:  # type: ignore[type-arg]
    """The live structural memories by (path, qualname): each file's parse, once each."""
    live = {(m.payload["path"], m.payload["qualname"]): m for m in h.memories(types=("structural",))}
    expected = {(path, s.qualname) for path, text in files.items() for s in parse("bash", text.encode()).symbols}
    assert set(live) == expected and len(live) == len(h.memories(types=("structural",)))
    return live


def test_scripts_moved_renamed_and_dropped_keep_their_lineage(git_repo, tmp_path):
    h = Harness("edge", tmp_path / "state")
    try:
        git_repo.write("hack/lib/util.sh", UTIL)
        git_repo.write("hack/install", "#!/bin/sh\ninstall_all() { :; }\n")  # no extension: no script of a language
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
