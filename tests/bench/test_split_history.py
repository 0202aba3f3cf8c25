"""The history splitter on a small repository of its own: each step a few files, the last
step's tree the target's, whatever the target is called; a rename one step, or two apart."""

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
    count = split(repo.path, base, "main", out, files=1, seed=5, renames=False)

    assert count == 5  # two deletions, three additions
    assert git(out, "rev-list", "--count", "HEAD") == "6"
    assert git(out, "rev-parse", "HEAD^{tree}") == repo.git("rev-parse", "main^{tree}")

    moved = tmp_path / "moved"  # by default a rename is one step, as git mv made it
    assert split(repo.path, base, "main", moved, files=1, seed=5) == 3
    assert git(moved, "rev-parse", "HEAD^{tree}") == repo.git("rev-parse", "main^{tree}")
    steps = git(moved, "log", "--format=%s", "--name-status", "-M", "--reverse", "HEAD~3..HEAD").split("\n")
    renamed = sorted(line.split("\t", 1)[1] for line in steps if line.startswith("R"))
    assert renamed == ["pkg/core.py\tsrc/core.py", "pkg/vendor_lib.py\tsrc/vendor_lib.py"]
