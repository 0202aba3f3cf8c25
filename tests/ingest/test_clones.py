"""Repositories as git makes them beyond a plain clone. A partial clone (``git clone
--filter=blob:none``) holds every commit and tree but only the blobs it checked out: a
sync fetches the blobs of the tip it reads, as git would (one fetch for them all), reads
the history with the blobs it holds, and says what it lacks when its remote cannot send
them — never a crash, never memories made of nothing. A repository libgit2 cannot open
is an error that says so."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from recalld.ingest.blobs import Blobs
from recalld.ingest.errors import MissingBlobError
from recalld.ingest.files import IndexOptions
from recalld.ingest.gitrepo import GitRepository
from tests.conftest import GitRepo
from tests.ingest.conftest import Harness


def _module(name: str, functions: int) -> str:
    return "".join(f"def {name}_{i}(value):\n    return value + {i}\n\n\n" for i in range(functions))


@pytest.fixture
def upstream(tmp_path: Path) -> GitRepo:
    repo = GitRepo(tmp_path / "upstream")
    repo.git("config", "uploadpack.allowFilter", "true")
    for step in range(4):
        repo.write(f"pkg/mod_{step}.py", _module(f"step{step}", 3))
        repo.write("pkg/core.py", _module("core", 2 + step))
        repo.commit(f"step {step}")
    return repo


def _clone(upstream: GitRepo, where: Path) -> Path:
    subprocess.run(["git", "clone", "-q", "--filter=blob:none", "--no-checkout", f"file://{upstream.path}", str(where)],
                   check=True, capture_output=True)  # fmt: skip
    return where


def _fetch(clone: Path) -> None:
    subprocess.run(["git", "-C", str(clone), "fetch", "-q", "origin"], check=True, capture_output=True)


def _names(h: Harness) -> set[tuple[str, str]]:
    return {(m.payload["path"], m.payload["qualname"]) for m in h.memories()}


def _blobs(clone: Path) -> int:
    listed = subprocess.run(["git", "-C", str(clone), "rev-list", "--objects", "--all", "--missing=print"],
                            check=True, capture_output=True, text=True).stdout  # fmt: skip
    return sum(1 for line in listed.splitlines() if line.startswith("?"))


@pytest.fixture
def fetched(monkeypatch: pytest.MonkeyPatch) -> list[list[str]]:
    """The blobs of each fetch a partial clone makes, in order."""
    batches: list[list[str]] = []
    real = Blobs._fetch

    def counted(self, blob_ids):  # type: ignore[no-untyped-def]
        batches.append(list(blob_ids))
        return real(self, blob_ids)

    monkeypatch.setattr(Blobs, "_fetch", counted)
    return batches


def test_a_partial_clone_syncs_its_tip_fetching_its_blobs_once(upstream, tmp_path, fetched):
    clone = _clone(upstream, tmp_path / "clone")
    assert _blobs(clone) > 0  # nothing checked out: the tip's blobs are missing too
    h = Harness("edge", tmp_path / "state", IndexOptions())
    full = Harness("edge", tmp_path / "full", IndexOptions())
    try:
        result = h.indexer.sync(repo="r", path=str(clone), branch="origin/main")
        full.sync(upstream)
        assert _names(h) == {(p, q) for p, q in _names(full)}
        assert ("pkg/core.py", "core_4") in _names(h) and result.history_added == 3  # and the tip's own
        assert max(map(len, fetched)) >= 5  # the tip's five files in one fetch, not one a file
        # upstream moves on; a fetch brings its commit and trees, not its blobs
        upstream.write("pkg/core.py", _module("core", 7))
        upstream.write("pkg/extra.py", _module("extra", 2))
        upstream.commit("more")
        _fetch(clone)
        fetched.clear()
        result = h.indexer.sync(repo="r", path=str(clone), branch="origin/main")
        assert result.mode == "incremental" and result.added == 5  # core_5, core_6, extra_0, extra_1, extra's module
        assert sum(map(len, fetched)) == 2  # the new blobs of core.py and extra.py (the diff's pairing asks for extra's first)
        assert {("pkg/core.py", "core_6"), ("pkg/extra.py", "extra_1")} <= _names(h)
    finally:
        h.close()
        full.close()


def test_blobs_its_remote_cannot_send_fail_the_sync_and_change_nothing(upstream, tmp_path):
    clone = _clone(upstream, tmp_path / "clone")
    h = Harness("edge", tmp_path / "state", IndexOptions())
    try:
        h.indexer.sync(repo="r", path=str(clone), branch="origin/main")
        before = _names(h)
        upstream.write("pkg/core.py", _module("core", 9))
        upstream.commit("more")
        _fetch(clone)
        moved = upstream.path.rename(tmp_path / "elsewhere")  # the remote is gone (offline)
        # git's reason, not the last line of the advice it adds ("and the repository exists.")
        said = "fetching it failed: fatal: '.*upstream' does not appear to be a git repository; fatal: Could not read"
        with pytest.raises(MissingBlobError, match=said):
            h.indexer.sync(repo="r", path=str(clone), branch="origin/main")
        assert _names(h) == before  # nothing closed, nothing made of an empty file
        moved.rename(upstream.path)
        h.indexer.sync(repo="r", path=str(clone), branch="origin/main")
        assert ("pkg/core.py", "core_8") in _names(h)
    finally:
        h.close()


def test_the_history_is_read_with_the_blobs_the_clone_holds(upstream, tmp_path):
    """A history's old blobs are not fetched (a fetch a blob of every old commit): the
    commits' task memories list the symbols of the files the clone holds."""
    clone = _clone(upstream, tmp_path / "clone")
    subprocess.run(["git", "-C", str(clone), "checkout", "-q", "main"], check=True, capture_output=True)
    lacking = _blobs(clone)
    h = Harness("edge", tmp_path / "state", IndexOptions())
    try:
        result = h.sync(type("Repo", (), {"path": clone})())
        assert result.history_added == 3  # and the tip's own
        assert _blobs(clone) == lacking  # the tip was checked out: nothing fetched
        tasks = {m.payload["subject"]: m.payload for m in h.memories(types=("task",))}
        assert set(tasks) == {"step 0", "step 1", "step 2", "step 3"}
        # step 3's core.py: its blob is held, step 2's is not (never checked out), and one
        # side alone would list every function as added; mod_3.py is new, whole and held
        assert tasks["step 3"]["files_modified"] == ["pkg/core.py"]
        assert {s["path"] for s in tasks["step 3"]["symbols"]} == {"pkg/mod_3.py"}
    finally:
        h.close()


def test_a_treeless_clone_fetches_the_trees_it_reads_and_lists_its_history_s_files(upstream, tmp_path):
    """``git clone --filter=tree:0`` holds every commit but only the trees it checked out,
    and libgit2 fetches nothing: the history's first commit whose tree it lacked failed
    every sync with pygit2's "Unable to read tree". The trees a sync reads are fetched
    (the history's in one fetch a chunk, without their blobs), and what it makes is what
    a complete clone's index makes, the task memories' files listed."""
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", "--filter=tree:0", f"file://{upstream.path}", str(clone)],
                   check=True, capture_output=True)  # fmt: skip
    lacking = _blobs(clone)
    assert lacking > 0  # the older commits' trees
    h = Harness("edge", tmp_path / "state", IndexOptions())
    full = Harness("edge", tmp_path / "full", IndexOptions())
    try:
        result = h.indexer.sync(repo="r", path=str(clone), branch="origin/main")
        full.indexer.sync(repo="r", path=str(upstream.path), branch="main")
        assert _names(h) == _names(full) and result.history_added == 3
        tasks = _tasks(h)
        step1 = tasks["step 1"]
        assert (step1["files_added"], step1["files_modified"]) == (["pkg/mod_1.py"], ["pkg/core.py"])
        upstream.write("pkg/core.py", _module("core", 7))
        upstream.write("pkg/extra.py", _module("extra", 2))
        upstream.commit("more")
        _fetch(clone)  # its commit; not its trees
        result = h.indexer.sync(repo="r", path=str(clone), branch="origin/main")
        full.indexer.sync(repo="r", path=str(upstream.path), branch="main")
        assert result.mode == "incremental" and _names(h) == _names(full)
        assert _tasks(h)["more"]["files_added"] == ["pkg/extra.py"]
    finally:
        h.close()
        full.close()


@pytest.mark.parametrize("kind", ["blobless", "treeless"])
def test_a_partial_clone_seeks_no_writers_past_its_history_read(upstream, tmp_path, monkeypatch, kind):
    """Past the history read the search for older code's writers would fetch the trees of
    every older commit (a treeless clone) and find none of their blobs (a blobless one):
    a partial clone does not go past it."""
    from tests.ingest.test_tasks import commits_read

    clone = tmp_path / "clone"
    spec = "blob:none" if kind == "blobless" else "tree:0"
    subprocess.run(["git", "clone", "-q", f"--filter={spec}", f"file://{upstream.path}", str(clone)],
                   check=True, capture_output=True)  # fmt: skip
    read = commits_read(monkeypatch, searched=True)
    h = Harness("edge", tmp_path / "state", IndexOptions(backfill_commits=2))
    try:
        result = h.indexer.sync(repo="r", path=str(clone), branch="origin/main")
        assert result.history_owed is False and read == []
    finally:
        h.close()


def test_a_complete_repository_never_fetches_and_names_a_blob_it_lacks(git_repo):
    git_repo.write("a.py", "def a():\n    return 1\n")
    git_repo.commit("one")
    blob = git_repo.git("rev-parse", "HEAD:a.py")
    (git_repo.path / ".git" / "objects" / blob[:2] / blob[2:]).unlink()
    git = GitRepository(str(git_repo.path))
    with pytest.raises(MissingBlobError, match=f"blob {blob} is not in the repository"):
        git.blobs.read(blob)
    with pytest.raises(MissingBlobError):
        git.blobs.size(blob)


def test_a_repository_libgit2_cannot_open_is_a_clear_error(tmp_path):
    """SHA-256 object names (``git init --object-format=sha256``) are beyond the libgit2
    that pygit2 ships: an error naming the repository and the reason, no traceback."""
    from recalld.ingest.errors import RecalldError

    repo = tmp_path / "sha256"
    subprocess.run(["git", "init", "-q", "--object-format=sha256", str(repo)], check=True, capture_output=True)
    with pytest.raises(RecalldError, match=r"cannot open the git repository at .*sha256.*: unknown object format"):
        GitRepository(str(repo))


def _shallow_clone(upstream: GitRepo, where: Path, depth: int) -> GitRepo:
    subprocess.run(["git", "clone", "-q", f"--depth={depth}", f"file://{upstream.path}", str(where)],
                   check=True, capture_output=True)  # fmt: skip
    clone = GitRepo.__new__(GitRepo)
    clone.path = where
    return clone


def _tasks(h: Harness, *, deprecated: int | None = 0) -> dict[str, dict]:  # type: ignore[type-arg]
    return {m.payload["subject"]: m.payload for m in h.memories(types=("task",), deprecated=deprecated)}


TASK_READ = ("parents", "files_added", "files_modified", "files_deleted", "symbols", "shallow", "text")


def _read(task: dict) -> dict:  # type: ignore[type-arg]
    return {key: task[key] for key in TASK_READ}


def test_a_shallow_clone_s_boundary_commit_says_its_changes_are_unknown_until_a_fetch_deepens_it(upstream, tmp_path):
    """``git clone --depth 2`` holds the last two commits, the older without its parents:
    libgit2 reads it as a root, which listed every file of the tree as added by it. Its
    task memory says it is a boundary (``shallow``) and lists nothing; a fetch that
    deepens the clone moves no ref, and the next sync writes it again whole, with the
    history the clone now holds, as a complete clone's index has them."""
    clone = _shallow_clone(upstream, tmp_path / "clone", depth=2)
    h = Harness("edge", tmp_path / "state", IndexOptions())
    full = Harness("edge", tmp_path / "full", IndexOptions())
    try:
        h.sync(clone)
        full.sync(upstream)
        complete = {subject: _read(task) for subject, task in _tasks(full).items()}
        tasks = _tasks(h)
        assert set(tasks) == {"step 2", "step 3"}
        assert _read(tasks["step 3"]) == complete["step 3"] and tasks["step 3"]["shallow"] == 0
        boundary = tasks["step 2"]
        assert boundary["shallow"] == 1 and boundary["parents"] == complete["step 2"]["parents"]  # named, not held
        assert boundary["files_added"] == boundary["symbols"] == [] and boundary["files_count"] == 0
        assert h.sync(clone).tasks_added == 0  # nothing moved: nothing read again

        clone.git("fetch", "-q", "--deepen=1")  # step 1 now the boundary; no ref moves
        result = h.sync(clone)
        tasks = _tasks(h)
        assert set(tasks) == {"step 1", "step 2", "step 3"} and result.tasks_deprecated == 0
        assert _read(tasks["step 2"]) == complete["step 2"]  # mod_2.py added, core.py's core_3 added
        assert tasks["step 1"]["shallow"] == 1 and tasks["step 1"]["files_added"] == []

        clone.git("fetch", "-q", "--unshallow")
        h.sync(clone)
        assert {subject: _read(task) for subject, task in _tasks(h).items()} == complete
        assert not _tasks(h, deprecated=1)  # nothing closed on the way
        stamp = h.checkpoint()["sync_stamp"]
        assert h.sync(clone).tasks_added == 0 and h.checkpoint()["sync_stamp"] == stamp  # and at rest again
    finally:
        h.close()
        full.close()


def test_a_shallow_fetch_of_a_newer_tip_keeps_what_it_cannot_place(upstream, tmp_path):
    """A depth-1 fetch of a newer tip makes it a boundary: the commits indexed before are
    no longer reachable from it, yet nothing says they left the branch. Their task
    memories stay live until the clone can tell; a rewrite seen in a complete clone is
    still closed."""
    clone = _shallow_clone(upstream, tmp_path / "clone", depth=1)
    h = Harness("edge", tmp_path / "state", IndexOptions())
    try:
        h.sync(clone)
        assert set(_tasks(h)) == {"step 3"}
        upstream.write("pkg/core.py", _module("core", 9))
        upstream.commit("step 4")
        upstream.write("pkg/extra.py", _module("extra", 2))
        upstream.commit("step 5")
        clone.git("fetch", "-q", "--depth=1", "origin", "main")
        clone.git("reset", "-q", "--hard", "FETCH_HEAD")
        result = h.sync(clone)
        tasks = _tasks(h)
        assert set(tasks) == {"step 3", "step 5"} and result.tasks_deprecated == 0
        assert tasks["step 5"]["shallow"] == 1

        clone.git("fetch", "-q", "--unshallow")
        h.sync(clone)
        tasks = _tasks(h)
        assert set(tasks) == {f"step {n}" for n in range(6)} and not _tasks(h, deprecated=1)
        assert tasks["step 5"]["shallow"] == 0 and tasks["step 5"]["files_added"] == ["pkg/extra.py"]

        upstream.git("reset", "-q", "--hard", "HEAD~1")  # step 5 rewritten upstream
        upstream.write("pkg/other.py", _module("other", 1))
        upstream.commit("step 5 again")
        clone.git("fetch", "-q", "origin")
        clone.git("reset", "-q", "--hard", "origin/main")
        result = h.sync(clone)
        assert set(_tasks(h, deprecated=1)) == {"step 5"} and result.tasks_deprecated == 1
    finally:
        h.close()


def test_an_earlier_release_s_boundary_memory_is_written_again_once_the_clone_is_deepened(upstream, tmp_path):
    """An earlier release wrote a boundary commit as a root (no parents, every file
    added) and its checkpoint knows nothing of shallow clones: once the clone holds the
    commit's parents, the memory is written again whole."""
    from recalld.ingest.plan import Scope
    from recalld.ingest.records import checkpoint_id, task_memory_id

    clone = _shallow_clone(upstream, tmp_path / "clone", depth=2)
    h = Harness("edge", tmp_path / "state", IndexOptions())
    try:
        h.sync(clone)
        boundary = task_memory_id(Scope("r", "main"), clone.git("rev-parse", "HEAD~1"))
        h.store.set_payload([boundary], {"parents": [], "files_added": ["pkg/mod_0.py", "pkg/mod_1.py"], "shallow": None})
        h.store.set_payload([checkpoint_id(Scope("r", "main"))], {"shallow": None})
        clone.git("fetch", "-q", "--unshallow")
        h.sync(clone)
        task = _tasks(h)["step 2"]
        assert task["files_added"] == ["pkg/mod_2.py"] and task["parents"] and task["shallow"] == 0
    finally:
        h.close()


def test_a_partial_clone_fetches_what_its_attributes_name_and_not_what_they_skip(upstream, tmp_path, fetched):
    """The attribute files in one fetch, then the files the sync reads in one more: those
    of a language their attributes name (``*.inc``, which no name makes one), not those
    they mark vendored; one fetch for them all, where each named file was fetched alone."""
    upstream.write(".gitattributes", "*.inc linguist-language=C++\n")
    upstream.write("third/.gitattributes", "** linguist-vendored\nkept.py -linguist-vendored\n")
    upstream.write("src/greeter.inc", "class Greeter {\npublic:\n    void greet();\n};\n")
    for i in range(4):
        upstream.write(f"third/lib_{i}.py", _module(f"lib{i}", 2))
    upstream.write("third/kept.py", _module("kept", 1))
    upstream.commit("attributes")
    clone = _clone(upstream, tmp_path / "clone")
    h = Harness("edge", tmp_path / "state", IndexOptions())
    full = Harness("edge", tmp_path / "full", IndexOptions())
    try:
        h.indexer.sync(repo="r", path=str(clone), branch="origin/main")
        full.sync(upstream)
        assert _names(h) == _names(full) and ("src/greeter.inc", "Greeter.greet") in _names(h)
        assert ("third/kept.py", "kept_0") in _names(h) and not any(p.startswith("third/lib_") for p, _ in _names(h))
        at_tip = [b for batch in fetched[:2] for b in batch]
        vendored = {upstream.git("rev-parse", f"HEAD:third/lib_{i}.py") for i in range(4)}
        assert len(fetched[0]) == 2  # the two .gitattributes
        assert upstream.git("rev-parse", "HEAD:src/greeter.inc") in fetched[1] and not vendored & set(at_tip)
    finally:
        h.close()
        full.close()
