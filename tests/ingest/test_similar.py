"""Which files moved between two commits (ingest/similar.py through GitRepository), on
real repositories made with the git CLI."""

from __future__ import annotations

from recalld.ingest.gitrepo import GitRepository


def _lines(tag: str, n: int, width: int = 1) -> str:
    """``n`` lines of code no other file holds."""
    return "".join(f"value_{tag}_{i} = compute_{tag}({i}, {'x' * width})\n" for i in range(n))


def moves(repo, old: str, new: str) -> dict[str, tuple[str, int]]:  # type: ignore[no-untyped-def]
    _paths, renames = GitRepository(str(repo.path)).changed_paths(old, new)
    return {r.old_path: (r.new_path, r.similarity) for r in renames}


def test_a_tree_moved_with_some_files_edited(git_repo):
    """A mass move to ``src/``: unchanged files are paired by blob, edited ones by their
    lines, empty files only where they keep their name and their directory's name (an
    empty ``__init__.py`` of one package is no other package's)."""
    repo = git_repo
    for pkg in ("alpha", "beta", "gamma"):
        repo.write(f"lib/{pkg}/__init__.py", "")
        for n in range(4):
            repo.write(f"lib/{pkg}/mod{n}.py", _lines(f"{pkg}{n}", 30))
    repo.write("lib/empty_elsewhere.py", "")
    before = repo.commit("layout")
    repo.remove("lib/empty_elsewhere.py")
    repo.git("mv", "lib", "src")
    repo.write("src/beta/mod2.py", _lines("beta2", 30) + _lines("extra", 5))
    repo.write("tools/new_empty.py", "")
    after = repo.commit("move to src")
    found = moves(repo, before, after)
    for pkg in ("alpha", "beta", "gamma"):
        assert found[f"lib/{pkg}/__init__.py"] == (f"src/{pkg}/__init__.py", 100)
        for n in range(4):
            assert found[f"lib/{pkg}/mod{n}.py"][0] == f"src/{pkg}/mod{n}.py"
    assert 50 <= found["lib/beta/mod2.py"][1] < 100  # git's similarity: the share of the larger file
    assert "lib/empty_elsewhere.py" not in found  # empty, and tools/new_empty.py is another file


def test_an_empty_file_moves_with_its_directory(git_repo):
    """A package renamed: its empty ``__init__.py`` shares only its name with the new one,
    and moves as its modules did (Django's ``contrib/humanize`` as ``humanise``); so does
    one a level down, and at the top of a tree moved under ``src/``. An empty file of a
    directory nothing moved from stays deleted, though one of its name is added."""
    repo = git_repo
    repo.write("app/humanize/__init__.py", "")
    repo.write("app/humanize/filters.py", _lines("filters", 20))
    repo.write("app/humanize/tags/__init__.py", "")
    repo.write("app/humanize/tags/more.py", _lines("more", 20))
    repo.write("tools/__init__.py", "")
    repo.write("__init__.py", "")
    repo.write("top.py", _lines("top", 20))
    before = repo.commit("packages")
    repo.git("mv", "app/humanize", "app/humanise")
    repo.remove("tools/__init__.py")
    repo.write("scripts/__init__.py", "")  # another directory's: no move took tools there
    (repo.path / "src").mkdir()
    repo.git("mv", "__init__.py", "src/__init__.py")
    repo.git("mv", "top.py", "src/top.py")
    after = repo.commit("renamed")
    found = moves(repo, before, after)
    assert found["app/humanize/__init__.py"] == ("app/humanise/__init__.py", 100)
    assert found["app/humanize/tags/__init__.py"] == ("app/humanise/tags/__init__.py", 100)
    assert found["app/humanize/filters.py"] == ("app/humanise/filters.py", 100)
    assert found["__init__.py"] == ("src/__init__.py", 100)
    assert "tools/__init__.py" not in found


def test_identical_copies_pair_by_path(git_repo):
    """Two copies of one vendored file moved (pip's ``six.py`` beside urllib3's): each
    goes where its path leads, not crosswise."""
    repo = git_repo
    six = _lines("six", 40)
    repo.write("pkg/_vendor/six.py", six)
    repo.write("pkg/_vendor/urllib3/packages/six.py", six)
    before = repo.commit("vendored twice")
    repo.git("mv", "pkg", "src")
    repo.write("src/_vendor/six.py", six + _lines("newer", 2))  # the top-level copy updated
    after = repo.commit("move")
    found = moves(repo, before, after)
    assert found["pkg/_vendor/six.py"][0] == "src/_vendor/six.py"
    assert found["pkg/_vendor/urllib3/packages/six.py"] == ("src/_vendor/urllib3/packages/six.py", 100)


def test_twin_files_rewritten_in_place_stay_where_they_are(git_repo):
    """Guava keeps two copies of a class (``guava/`` and ``android/guava/``); 31.1 → 32.0.1
    rewrote both in place, one with a few more lines. Each old copy is as like the
    shorter new one as the other, and, by whole percents, as like the longer one: they
    went crosswise. A rewrite continues itself unless another file is really more like
    it."""
    repo = git_repo
    old = _lines("twin", 20) + _lines("kept", 25)
    repo.write("guava/src/Map.java", old)
    repo.write("android/guava/src/Map.java", old)
    before = repo.commit("twins")
    rewritten = _lines("kept", 25) + _lines("typed", 20)
    repo.write("guava/src/Map.java", rewritten)
    repo.write("android/guava/src/Map.java", rewritten + _lines("android", 1))
    repo.write("guava/src/Other.java", _lines("other", 10))  # a diff that adds a file looks for rewrites
    after = repo.commit("annotated")
    assert moves(repo, before, after) == {}


def test_a_file_moved_and_grown_keeps_its_name(git_repo):
    """``git mv``, then code added: more than half of the new file is new, but the file
    kept its name and all its old content, so it moved. Another file as alike by
    size but of another name is measured as git does (over the larger one)."""
    repo = git_repo
    repo.write("app/old.py", "def gone():\n    return 0\n")
    repo.write("app/other.py", _lines("other", 10))
    before = repo.commit("two files")
    repo.remove("app/old.py")
    repo.write("src/old.py", "def gone():\n    return 0\n\n\ndef fresh():\n    return 5\n")
    repo.remove("app/other.py")
    repo.write("src/renamed.py", _lines("other", 10) + _lines("more", 25))
    after = repo.commit("move and grow")
    found = moves(repo, before, after)
    assert found["app/old.py"][0] == "src/old.py" and found["app/old.py"][1] < 50  # git's similarity, 46 %
    assert "app/other.py" not in found  # 10 of 35 lines: not that file any more


def test_crlf_and_reindented_lines_and_binary_files(git_repo):
    """Line endings turned from CRLF to LF in a move still pair (pip 10's sdists); a
    binary file edited in a move pairs by its chunks, as git pairs it."""
    repo = git_repo
    text = _lines("crlf", 40)
    blob = bytes(range(256)) * 40
    repo.write("old/text.py", text.replace("\n", "\r\n").encode())
    repo.write("old/tool.exe", blob)
    before = repo.commit("crlf")
    repo.remove("old")
    repo.write("new/text.py", text)
    repo.write("new/tool.exe", blob[:-256] + bytes(256))
    after = repo.commit("lf")
    found = moves(repo, before, after)
    assert found["old/text.py"] == ("new/text.py", 100)
    assert found["old/tool.exe"][0] == "new/tool.exe"


def test_a_rewritten_file_is_a_source_and_a_target(git_repo):
    """eslint 9: ``eslint.js`` moved to ``legacy-eslint.js`` while ``flat-eslint.js``
    took its place; a file merely edited is no source of anything."""
    repo = git_repo
    legacy, flat = _lines("legacy", 30), _lines("flat", 30)
    repo.write("lib/eslint.js", legacy)
    repo.write("lib/flat-eslint.js", flat)
    repo.write("lib/util.js", _lines("util", 30))
    before = repo.commit("two engines")
    repo.remove("lib/flat-eslint.js")
    repo.write("lib/eslint.js", flat + _lines("flatter", 3))
    repo.write("lib/legacy-eslint.js", legacy)
    repo.write("lib/util.js", _lines("util", 30) + _lines("util_more", 3))
    repo.write("lib/util-copy.js", _lines("util", 30))
    after = repo.commit("the flat engine becomes the engine")
    found = moves(repo, before, after)
    assert found["lib/eslint.js"] == ("lib/legacy-eslint.js", 100)
    assert found["lib/flat-eslint.js"][0] == "lib/eslint.js"
    assert "lib/util.js" not in found  # kept its content: not broken, not moved


def test_task_changes_of_a_rewrite(git_repo):
    """A commit's changes: the rewritten file's old content renamed away, its new
    content added in place when nothing came from elsewhere."""
    repo = git_repo
    repo.write("core.py", _lines("core", 30))
    repo.commit("core")
    repo.write("core.py", _lines("stub", 2))
    repo.write("impl/core.py", _lines("core", 30))
    head = repo.commit("core moved behind a stub")
    changes = {(c.status, c.old_path, c.new_path) for c in GitRepository(str(repo.path)).commit_changes(head)}
    assert changes == {("renamed", "core.py", "impl/core.py"), ("added", None, "core.py")}


def test_no_added_or_deleted_file_reads_no_blob(git_repo, monkeypatch):
    """A commit that only edits files pairs nothing and reads nothing to find so."""
    repo = git_repo
    repo.write("a.py", _lines("a", 30))
    before = repo.commit("a")
    repo.write("a.py", _lines("b", 30))
    after = repo.commit("rewritten in place")
    git = GitRepository(str(repo.path))
    read: list[str] = []
    real = git.blobs.read
    monkeypatch.setattr(git.blobs, "read", lambda blob: read.append(blob) or real(blob))
    assert git.changed_paths(before, after) == ({"a.py"}, [])
    assert read == []


def test_a_missing_blob_pairs_nothing_and_raises_nothing(git_repo):
    """A partial clone lacks blobs: an edited file that cannot be read is left unpaired;
    one moved unchanged pairs by its id alone."""
    repo = git_repo
    repo.write("old/a.py", _lines("a", 30))
    repo.write("old/b.py", _lines("b", 30))
    repo.write("old/c.py", _lines("c", 30))
    before = repo.commit("three")
    missing = [repo.git("rev-parse", f"{before}:old/{name}") for name in ("a.py", "c.py")]
    repo.remove("old")
    repo.write("new/a.py", _lines("a", 30) + _lines("more", 2))
    repo.write("new/b.py", _lines("b", 30) + _lines("more", 2))
    repo.write("new/c.py", _lines("c", 30))
    after = repo.commit("moved")
    for blob in missing:
        (repo.path / ".git" / "objects" / blob[:2] / blob[2:]).unlink()
    found = moves(repo, before, after)
    assert found == {"old/b.py": ("new/b.py", 92), "old/c.py": ("new/c.py", 100)}  # b: 30 lines of 32 by weight


def test_a_commits_moves_are_found_once_for_its_files_and_its_task(git_repo, monkeypatch):
    """A sync of one commit asks for its changed paths, then for the commit's own changes
    (its task memory): the same two trees, measured once."""
    repo = git_repo
    repo.write("old/a.py", _lines("a", 30))
    before = repo.commit("one")
    repo.remove("old")
    repo.write("new/a.py", _lines("a", 30) + _lines("more", 2))
    after = repo.commit("moved")
    git = GitRepository(str(repo.path))
    measured: list[int] = []
    real = git._moves
    monkeypatch.setattr(git, "_moves", lambda diff, unnamed: measured.append(1) or real(diff, unnamed))
    _paths, renames = git.changed_paths(before, after)
    changes = git.commit_changes(after)
    assert [r.new_path for r in renames] == ["new/a.py"] and [c.status for c in changes] == ["renamed"]
    assert len(measured) == 1
