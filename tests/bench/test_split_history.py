"""The history splitter on a small repository of its own: each step a few files, the last
step's tree the target's, whatever the target is called."""

from __future__ import annotations

from pathlib import Path

from tests.bench.check_exact import git
from tests.bench.split_history import split
from tests.conftest import GitRepo


def test_a_target_named_main_is_the_source_branch_not_the_new_history(tmp_path: Path) -> None:
    repo = GitRepo(tmp_path / "project")
    repo.write("pkg/core.py", "def run():\n    return 1\n")
    repo.write("pkg/vendor_lib.py", "def helper():\n    return 2\n")
    base = repo.commit("release 1")
    repo.git("mv", "pkg", "src")
    repo.write("src/extra.py", "def more():\n    return 3\n")
    repo.commit("release 2: moved to src/")

    out = tmp_path / "steps"
    count = split(repo.path, base, "main", out, files=1, seed=5)

    assert count == 5  # two deletions, three additions
    assert git(out, "rev-list", "--count", "HEAD") == "6"
    assert git(out, "rev-parse", "HEAD^{tree}") == repo.git("rev-parse", "main^{tree}")
