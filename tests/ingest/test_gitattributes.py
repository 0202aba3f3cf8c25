"""Git attributes as recalld works them out, against what git itself says (``git check-attr``)
of the same paths: random attribute files of random patterns in random folders, then the
cases that matter to a sync one by one, and that a commit's attributes are its own."""

from __future__ import annotations

import random
import subprocess
from pathlib import Path

import pygit2
import pytest

from recalld.ingest.gitattributes import parse
from recalld.ingest import wildmatch
from recalld.ingest.gitrepo import GitRepository
from tests.conftest import GitRepo

FOLDERS = ("", "a", "a/b", "a/b/c", "src", "src/x y", "d.e")
NAMES = ("f.c", "g.py", "README", "q", "b.h", "x.c.src", "[x].c", "star*", "é.py", ".hidden", "n!x", "ab", "B.PY")
SEGMENTS = (
    "a", "b", "src", "f.c", "*.c", "*.py", "g*", "?.c", "[ab]*", "[!a]*", "[^a]*", "[[:alpha:]]*.py", "*", "**",
    "\\*", "star\\*", "[a-c]*", "[]]*", "[", "*\\", "\\!x", "n!x", "*.[ch]", "[[:digit:]]", "[[:nope:]]*", "[[:alpha:]",
    "x y", "é.py", "*.PY", "a**", "**b", "?", "[[]x].c", "d.e", "*.src", "[a-]*", "[\\]]*", "[!]]*", "[a-\\z]*",
    "[\\a-c]*", "[A-Z]*", "\\G*",
)  # fmt: skip
STATES = ("t1", "-t1", "!t1", "t2=v", "t2=w", "-t2", "!t2", "binary", "mac", "-mac", "!mac", "t3=x=y", "-t4=z")


def _pattern(rng: random.Random) -> str:
    parts = [rng.choice(SEGMENTS) for _ in range(rng.choice((1, 1, 1, 2, 3)))]
    pattern = "/".join(parts)
    pattern = rng.choice(("", "", "/", "**/", "a/")) + pattern + rng.choice(("", "", "", "/", "/**"))
    if rng.random() < 0.05:
        pattern = "!" + pattern
    if " " in pattern or rng.random() < 0.1:
        pattern = '"' + pattern.replace("\\", "\\\\").replace('"', '\\"') + '"'
    return pattern


def _attributes_file(rng: random.Random, *, root: bool) -> str:
    lines = []
    if rng.random() < 0.5:
        lines.append(f"[attr]mac t3 -t1 {'sub' if not root else 'binary'}")
    for _ in range(rng.randint(2, 12)):
        states = " ".join(rng.sample(STATES, rng.randint(1, 3)))
        if rng.random() < 0.03:
            states += " bad@name"
        lines.append(f"{_pattern(rng)}\t{states}" if rng.random() < 0.3 else f"{_pattern(rng)} {states}")
    if rng.random() < 0.2:
        lines.insert(rng.randrange(len(lines) + 1), "# a comment")
    return "\n".join(lines) + "\n"


def git_says(repo: GitRepo, paths: list[str], *flags: str) -> dict[str, dict[str, str | bool]]:
    """What ``git check-attr --all`` says of each path: set (True), unset (False) or a value."""
    done = subprocess.run(
        ["git", "check-attr", "--all", "-z", "--stdin", *flags],
        cwd=repo.path, input="\0".join(paths).encode() + b"\0", capture_output=True, check=True,
    )  # fmt: skip
    said: dict[str, dict[str, str | bool]] = {path: {} for path in paths}
    fields = done.stdout.split(b"\0")
    for i in range(0, len(fields) - 2, 3):
        path, name, value = (field.decode() for field in fields[i : i + 3])
        said[path][name] = True if value == "set" else False if value == "unset" else value
    return said


def _paths(repo: GitRepo) -> list[str]:
    listed = repo.git("ls-files", "-z")
    return [path for path in listed.split("\0") if path and not path.endswith(".gitattributes")]


def _write_tree(repo: GitRepo, rng: random.Random) -> None:
    for folder in FOLDERS:
        base = repo.path / folder
        base.mkdir(parents=True, exist_ok=True)
        for name in rng.sample(NAMES, rng.randint(3, len(NAMES))):
            (base / name).write_text("x\n")
        if rng.random() < 0.6:
            (base / ".gitattributes").write_text(_attributes_file(rng, root=not folder))
    if rng.random() < 0.4:
        info = repo.path / ".git" / "info"
        info.mkdir(exist_ok=True)
        (info / "attributes").write_text(_attributes_file(rng, root=True))
    if rng.random() < 0.4:
        outside = repo.path.parent / f"{repo.path.name}.attributes"
        outside.write_text(_attributes_file(rng, root=True))
        repo.git("config", "core.attributesFile", str(outside))
    if rng.random() < 0.3:  # as on a case-insensitive file system: letters match either case
        repo.git("config", "core.ignorecase", "true")


@pytest.mark.parametrize("chunk", range(8))
def test_random_attribute_files_give_what_git_gives(tmp_path: Path, chunk: int, monkeypatch) -> None:
    """Even chunks match as a sync does (regular expressions for patterns of few stars),
    odd ones with wildmatch's own algorithm for every pattern."""
    if chunk % 2:
        monkeypatch.setattr(wildmatch, "REGEX_STARS", -1)
    decided = 0
    for seed in range(chunk * 5, chunk * 5 + 5):
        rng = random.Random(seed)
        repo = GitRepo(tmp_path / f"repo{seed}")
        _write_tree(repo, rng)
        commit = repo.commit("tree")
        paths = _paths(repo)
        expected = git_says(repo, paths)
        git = GitRepository(repo.path)
        found = {path: git.attributes(commit, path) for path in paths}
        assert found == expected, f"seed {seed}"
        decided += sum(map(len, expected.values()))
    assert decided > 50  # the random files say something


CASES = {
    "a later line over an earlier one": ("*.c t1=early\nf.c t1=late\n", {"f.c": {"t1": "late"}}),
    "a deeper folder over its parents": (
        "*.c t1=root\n", {"deep/f.c": {"t1": "sub", "sub": True}, "f.c": {"t1": "root"}}),
    "a slash anchors to the folder": ("/f.c t1\n", {"f.c": {"t1": True}, "a/f.c": {}}),
    "a name matches at any depth": ("f.c t1\n", {"f.c": {"t1": True}, "a/b/f.c": {"t1": True}}),
    "a folder's pattern matches no file": ("a/ t1\na/** t2\n", {"a/f.c": {"t2": True}}),
    "** between slashes": ("a/**/f.c t1\n", {"a/f.c": {"t1": True}, "a/b/c/f.c": {"t1": True}, "f.c": {}}),
    "* stops at a slash": ("a/*.c t1\n", {"a/f.c": {"t1": True}, "a/b/f.c": {}}),
    "** after a literal start crosses slashes": ("a**/f.c t1\n", {"a/b/f.c": {"t1": True}}),
    "unset and unspecified hide lower lines": ("*.c t1 t2\nf.c -t1 !t2\n", {"f.c": {"t1": False}}),
    "binary is a macro": ("*.c binary\n", {"f.c": {"binary": True, "diff": False, "merge": False, "text": False}}),
    "a macro of the root file": (
        "[attr]gen linguist-generated\n*.c gen\n", {"f.c": {"gen": True, "linguist-generated": True}}),
    "a negative pattern is ignored": ("*.c t1\n!f.c -t1\n", {"f.c": {"t1": True}}),
    "a bad name drops its line": ("*.c t1 t@2\n", {"f.c": {}}),
    "a quoted pattern": ('"x y.c" t1\n"\\x.c" t2\n', {"x y.c": {"t1": True}}),
    "a byte order mark": ("\ufeff*.c t1\n", {"f.c": {"t1": True}}),
    "a line of 2,048 bytes": ("*.c t1" + " " * 2048 + "\n*.h t1\n", {"f.c": {}, "f.h": {"t1": True}}),
    "CRLF lines": ("*.c t1=v\r\n", {"f.c": {"t1": "v"}}),
    "a line without wildcards keeps its place": (
        "f.c t1=named t2=named\n*.c t1=any\n/other/f.c t3\n",
        {"f.c": {"t1": "any", "t2": "named"}, "other/f.c": {"t1": "any", "t2": "named", "t3": True}}),
    "many stars on a long name": (  # a regular expression would backtrack for minutes
        "*a*a*a*a*a*a*a*a*b t1\n*a*a*a*a*a*a*a*a*a t2\n*a/*a*a*a t3\n", {"a" * 200: {"t2": True}}),
}


@pytest.mark.parametrize("case", CASES)
def test_each_rule_as_git_reads_it(tmp_path: Path, case: str) -> None:
    text, expected = CASES[case]
    repo = GitRepo(tmp_path / "repo")
    (repo.path / ".gitattributes").write_bytes(text.encode())
    (repo.path / "deep").mkdir()
    (repo.path / "deep" / ".gitattributes").write_text("*.c t1=sub\n[attr]sub t9\n*.c sub\n")
    for path in expected:
        (repo.path / path).parent.mkdir(parents=True, exist_ok=True)
        (repo.path / path).write_text("x\n")
    commit = repo.commit("case")
    git = GitRepository(repo.path)
    found = {path: git.attributes(commit, path) for path in expected}
    assert found == git_says(repo, list(expected))  # git agrees with the case as written
    assert found == expected


def test_a_commits_attributes_are_its_own_whatever_is_checked_out(tmp_path: Path) -> None:
    """libgit2 reads the index's .gitattributes before the commit's: with the checkout at
    an older commit, a later one's files were read under the older rules."""
    repo = GitRepo(tmp_path / "repo")
    (repo.path / ".gitattributes").write_text("*.h linguist-language=C++\n")
    (repo.path / "x.h").write_text("int f(void);\n")
    older = repo.commit("headers are C++")
    (repo.path / ".gitattributes").write_text("*.h linguist-language=C\n")
    newer = repo.commit("headers are C")
    repo.git("checkout", "-q", older)
    git = GitRepository(repo.path)
    assert git.attributes(newer, "x.h").get("linguist-language") == "C"
    assert git.attributes(older, "x.h").get("linguist-language") == "C++"
    (repo.path / ".gitattributes").write_text("*.h linguist-language=Rust\n")  # and not the work tree's
    repo.git("add", ".gitattributes")
    assert git.attributes(newer, "x.h").get("linguist-language") == "C"


def test_files_beside_the_tree_are_read_again_when_they_change(tmp_path: Path) -> None:
    repo = GitRepo(tmp_path / "repo")
    (repo.path / "x.c").write_text("int x;\n")
    commit = repo.commit("one")
    git = GitRepository(repo.path)
    assert git.attributes(commit, "x.c") == {}
    info = repo.path / ".git" / "info" / "attributes"
    info.parent.mkdir(exist_ok=True)
    info.write_text("*.c linguist-vendored\n")
    assert git.attributes(commit, "x.c") == {"linguist-vendored": True}
    info.write_text("*.c -linguist-vendored\n")
    assert git.attributes(commit, "x.c") == {"linguist-vendored": False}


def test_a_macro_outside_the_root_file_is_ignored() -> None:
    assert [rule.macro for rule in parse(b"[attr]m a\n*.c m\n", macros=False)] == [None]
    assert [rule.macro for rule in parse(b"[attr]m a\n*.c m\n", macros=True)] == ["m", None]


def test_a_path_thousands_of_folders_deep_and_a_chain_of_thousands_of_macros(tmp_path: Path) -> None:
    """What a hostile repository may hold: each read as git reads it, without recursing
    once a folder or a macro (Python's stack holds ~1,000). The tree is made with pygit2,
    as no file system holds a path of 2,400 folders, and git asked of its index."""
    repo = GitRepo(tmp_path / "repo")
    chain = "".join(f"[attr]m{i} m{i + 1} t{i % 7}\n" for i in range(3000))
    odb = pygit2.Repository(str(repo.path))
    tree = _tree(odb, {".gitattributes": b"*.c t0=deepest\n", "f.c": b"int x;\n"})
    for _ in range(2400):
        builder = odb.TreeBuilder()
        builder.insert("d", tree, pygit2.enums.FileMode.TREE)
        tree = builder.write()
    root = odb[tree].peel(pygit2.Tree)
    top = _tree(odb, {".gitattributes": (chain + "*.c m0\nd/** deep\n").encode()}, base=root)
    signature = pygit2.Signature("Test Author", "author@example.invalid", 0, 0)
    commit = str(odb.create_commit("refs/heads/main", signature, signature, "deep", top, []))
    repo.git("read-tree", "main")
    path = "/".join(["d"] * 2400) + "/f.c"
    found = GitRepository(repo.path).attributes(commit, path)
    assert found == git_says(repo, [path], "--cached")[path]
    assert found["t0"] == "deepest" and found["m2999"] is True and found["deep"] is True


def _tree(odb: pygit2.Repository, files: dict[str, bytes], base: pygit2.Tree | None = None) -> pygit2.Oid:
    builder = odb.TreeBuilder(base) if base is not None else odb.TreeBuilder()
    for name, data in files.items():
        builder.insert(name, odb.create_blob(data), pygit2.enums.FileMode.BLOB)
    return builder.write()


def test_escaped_backslashes_before_stars_do_not_hide_them() -> None:
    """``\\\\*`` is a backslash, then a star: counted as one, so that a pattern of many is
    never given to a regular expression (which would backtrack for minutes)."""
    pattern = b"x" + b"\\\\*a" * 9 + b"\\\\*b"
    assert wildmatch._star_runs(pattern) == 10 and wildmatch._star_runs(b"\\*a\\**") == 1
    match, _ = wildmatch.compile_pattern(pattern, ignore_case=False)
    assert match is not None and match(b"x\\a\\a\\a\\a\\a\\a\\a\\a\\a\\b")
    assert not match(b"x" + b"\\a" * 400)
