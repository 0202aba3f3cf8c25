"""The CLI end to end: a real repository, the real packaged model, the embedded store."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import GitRepo

pytestmark = pytest.mark.model


def recalld(*args: str, check: bool = True, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(
        [sys.executable, "-m", "recalld.daemon.cli", *args], capture_output=True, text=True, env={**os.environ},
        cwd=cwd,
    )
    if check and done.returncode != 0:
        raise AssertionError(f"recalld {' '.join(args)} exited {done.returncode}: {done.stderr}")
    return done


@pytest.fixture
def project(tmp_path) -> GitRepo:
    repo = GitRepo(tmp_path / "project")
    repo.write("billing/invoice.py", '''"""Invoices."""


class InvoiceBuilder:
    """Builds invoices for customers."""

    def add_line(self, description, amount):
        """Add a priced line item to the invoice."""
        return (description, amount)


def compute_vat(amount, rate=0.2):
    """Compute value added tax for an amount."""
    return amount * rate
''')
    repo.write("net/fetch.go", "package net\n\n// Download fetches a URL over HTTP and returns the body.\nfunc Download(url string) ([]byte, error) { return nil, nil }\n")
    repo.write("README.md", "# project\n")
    repo.commit("initial")
    return repo


def test_cli_end_to_end(project):
    added = recalld("repo", "add", str(project.path))
    assert "registered project" in added.stdout
    assert recalld("repo", "list", "--json").stdout.strip() == json.dumps(
        {"name": "project", "path": str(project.path.resolve()), "branch": "main"}
    )

    first = json.loads(recalld("sync", "--json").stdout)
    for key in ("repo", "from_commit", "to_commit", "files_changed", "added", "modified", "deprecated",
                "embedded", "skipped", "seconds"):  # fmt: skip
        assert key in first
    assert first["repo"] == "project" and first["from_commit"] is None
    assert first["to_commit"] == project.head()
    # six symbols, the project-structure memory and the commit
    assert first["added"] == 7 and first["embedded"] == 8 and first["tasks_added"] == 1 and first["skipped"] == 1
    assert first["derived"] == {"project": 1}

    again = json.loads(recalld("sync", "project", "--json").stdout)
    assert (again["added"], again["embedded"], again["deprecated"]) == (0, 0, 0)

    hits = json.loads(recalld("search", "tax on a price", "--json", "--limit", "3").stdout)
    assert hits[0]["qualname"] == "compute_vat"
    # a symbol by name: where, what, provenance and its code (here the one repository)
    shown = recalld("symbol", "add_line").stdout.splitlines()
    assert shown[0] == "project:billing/invoice.py:7-9  method InvoiceBuilder.add_line"
    assert shown[1:3] == ["    def add_line(self, description, amount)",
                          f"    since {project.head()[:8]} (first indexed) by Test Author <author@example.invalid>"]
    assert shown[3:] == ["    def add_line(self, description, amount):", '        """Add a priced line item to the invoice."""',
                         "        return (description, amount)"]
    [builder] = json.loads(recalld("symbol", "InvoiceBuilder", "--repo", "project", "--json").stdout)
    assert (builder["kind"], builder["docstring"]) == ("class", "Builds invoices for customers.")
    missing = recalld("symbol", "InvoiceBuilder.remove_line", check=False)
    assert missing.returncode == 1 and "no symbol 'InvoiceBuilder.remove_line' in project" in missing.stderr
    # a file's outline: its doc, then its symbols in order, nested by their lines
    assert recalld("outline", "billing/invoice.py").stdout.splitlines() == [
        "billing/invoice.py  Invoices.",
        "  4-9  class InvoiceBuilder  class InvoiceBuilder  — Builds invoices for customers.",
        "    7-9  method InvoiceBuilder.add_line  def add_line(self, description, amount)"
        "  — Add a priced line item to the invoice.",
        "  12-14  function compute_vat  def compute_vat(amount, rate=0.2)  — Compute value added tax for an amount.",
    ]  # fmt: skip
    # written in a subdirectory: from there, as git reads it
    outlined = recalld("outline", "billing/invoice.py").stdout
    assert recalld("outline", "invoice.py", cwd=project.path / "billing").stdout == outlined
    assert recalld("outline", ".", cwd=project.path / "billing").stdout == outlined
    listed = json.loads(recalld("outline", "**", "--limit", "1", "--json").stdout)
    assert [f["path"] for f in listed["files"]] == ["billing/invoice.py"] and listed["truncated"]
    nothing = recalld("outline", "docs/", check=False)
    assert nothing.returncode == 1 and "no memories of 'docs/' in project" in nothing.stderr
    go = json.loads(recalld("search", "download a web page", "--lang", "go", "--json").stdout)
    # The module of a one-function file embeds nearly the function's text: either may rank first.
    assert {h["language"] for h in go} == {"go"} and [h["qualname"] for h in go[:2]] in (
        ["Download", "<module>"],
        ["<module>", "Download"],
    )
    methods = json.loads(recalld("search", "invoice", "--kind", "method", "--json").stdout)
    assert [h["qualname"] for h in methods] == ["InvoiceBuilder.add_line"]
    in_billing = json.loads(recalld("search", "anything", "--path", "billing/**", "--json").stdout)
    assert in_billing and {h["path"] for h in in_billing} == {"billing/invoice.py"}
    aliased = json.loads(recalld("search", "invoice", "--lang", "py", "--json").stdout)
    assert aliased and {h["language"] for h in aliased} == {"python"}
    none = recalld("search", "invoice", "--lang", "js", "--kind", "method", "--kind", "trait")
    assert none.stdout == "" and "no matching memories" in none.stderr
    assert "note: no memory has language 'js' (its code is in python, go)" in none.stderr  # not every language
    assert "no memory has kind 'trait'" in none.stderr  # a kind Rust's code has; a kind none has is refused
    assert "kind 'method'" not in none.stderr  # methods there are, none of them JavaScript
    first_seen = recalld("search", "compute_vat", "--limit", "1")
    assert f"since {first['to_commit'][:8]} (first indexed) by Test Author" in first_seen.stdout
    assert "note:" not in first_seen.stderr  # in line with its branch

    project.write("billing/invoice.py", (project.path / "billing/invoice.py").read_text().replace("0.2", "0.25"))
    project.commit("raise vat")
    recalld("sync")
    live = [json.loads(line) for line in recalld("export").stdout.splitlines()]
    every = [json.loads(line) for line in recalld("export", "--include-deprecated").stdout.splitlines()]
    assert len(every) == len(live) + 2  # the edited function and its module
    closed = [m for m in every if m["deprecated"] is True]
    assert {m["deprecated_reason"] for m in closed} == {"modified"}
    vat_now = next(m for m in live if m["qualname"] == "compute_vat")
    assert next(m for m in closed if m["qualname"] == "compute_vat")["superseded_by"] == vat_now["id"]
    for field in ("id", "repo", "branch", "kind", "language", "path", "qualname", "name", "signature",
                  "docstring", "start_line", "end_line", "content_hash", "lineage", "text",
                  "valid_from_commit", "valid_to_commit", "deprecated", "deprecated_reason", "superseded_by"):  # fmt: skip
        assert field in vat_now
    assert vat_now["deprecated"] is False and vat_now["docstring"] == "Compute value added tax for an amount."
    commits = {m["subject"]: m for m in live if m["type"] == "task"}
    assert set(commits) == {"initial", "raise vat"} and commits["raise vat"]["commit"] == project.head()
    assert commits["raise vat"]["symbols"] == [
        {"path": "billing/invoice.py", "added": [], "modified": ["compute_vat"], "removed": []}
    ]
    assert vat_now["id"] in commits["raise vat"]["symbol_ids"] and vat_now["task_id"] == commits["raise vat"]["id"]
    # what changed since the first sync, and the latest commits
    assert recalld("changes", "--since", first["to_commit"]).stdout.splitlines() == [
        f"project: {first['to_commit'][:8]} → {project.head()[:8]}, 1 commit: 2 modified",
        f"  {project.head()[:8]}  raise vat  (Test Author)", "", "billing/invoice.py",
        "  modified  module <module>  [code]  1-14", "  modified  function compute_vat  [signature, code]  12-14",
        "            def compute_vat(amount, rate=0.2)  →  def compute_vat(amount, rate=0.25)",
    ]  # fmt: skip
    assert recalld("changes", "--limit", "1").stdout.startswith(f"{project.head()[:8]}  raise vat  (Test Author")
    lone = recalld("changes", "--path", "billing/", check=False)
    assert lone.returncode == 2 and "give --since too" in lone.stderr  # a usage error (it was 1), as --limit 600 is
    stale = json.loads(recalld("search", "tax", "--include-deprecated", "--json").stdout)
    assert any(h["deprecated"] for h in stale)
    then = json.loads(recalld("search", "tax", "--as-of", first["to_commit"][:8], "--json").stdout)
    vat_then = next(h for h in then if h["qualname"] == "compute_vat")
    assert "no code memory is valid" not in recalld("search", "tax", "--as-of", first["to_commit"][:8]).stderr
    before = recalld("search", "tax", "--as-of", "2001-01-01")
    assert before.stdout == "" and "no code memory is valid at 2001-01-01" in before.stderr
    assert vat_then["id"] != vat_now["id"] and vat_then["valid_to_commit"] == project.head()
    mem0 = json.loads(recalld("search", "tax on a price", "--format", "mem0", "--limit", "1").stdout)["results"]
    assert mem0[0]["metadata"]["qualname"] == "compute_vat" and mem0[0]["user_id"] == "project"
    text = recalld("search", "compute_vat", "--limit", "1").stdout
    assert "billing/invoice.py" in text and f"since {project.head()[:8]}" in text

    status = json.loads(recalld("status", "--json").stdout)["repos"][0]
    assert status["indexed_commit"] == project.head() and status["commits_behind"] == 0
    assert status["memories"] == len(live) and status["deprecated"] == 2
    assert status["history_owed"] is False and "backfilling" not in recalld("status").stdout
    project.write("x.py", "def x():\n    pass\n")
    project.commit("one more")
    assert json.loads(recalld("status", "--json").stdout)["repos"][0]["commits_behind"] == 1
    lagging = recalld("search", "tax", "--json")
    assert json.loads(lagging.stdout) and "note: project: memories 1 commit behind main" in lagging.stderr
    for asked in (("symbol", "compute_vat"), ("outline", "billing/")):  # as a search notes it
        assert "note: project: memories 1 commit behind main" in recalld(*asked).stderr, asked
        assert "behind" not in recalld(*asked, "--as-of", "HEAD~1").stderr, asked

    removed = recalld("repo", "remove", "project")  # as many as export and status count: not its checkpoint
    assert removed.stdout == f"removed project and its {len(every)} memories (0 manual)\n"
    assert len(every) == status["memories"] + status["deprecated"]
    assert recalld("export", "--include-deprecated").stdout == ""


def test_a_versions_line_names_the_commit_it_was_written_in_where_its_interval_opened_at_another():
    """A first index's tip, or a sync over several commits: ``since <opened> by <author> in
    <written>``; where the two are one commit, or no writer is known, no ``in``."""
    from recalld.daemon.commands import provenance

    tip, cid = "a" * 40, "c" * 40
    first = {"valid_from_commit": tip, "change": "indexed", "author": "Cid <c@x>", "written_in": cid}
    assert provenance(first) == "since aaaaaaaa (first indexed) by Cid <c@x> in cccccccc"
    assert provenance({**first, "author": None, "written_in": None}) == "since aaaaaaaa (first indexed)"
    credited = {**first, "change": "modified", "valid_to_commit": "b" * 40}
    assert provenance(credited) == "since aaaaaaaa until bbbbbbbb by Cid <c@x> in cccccccc"
    assert provenance({**credited, "written_in": tip}) == "since aaaaaaaa until bbbbbbbb by Cid <c@x>"
    assert provenance({**credited, "written_in": None}) == "since aaaaaaaa until bbbbbbbb by Cid <c@x>"  # older store
    assert provenance({"valid_from_commit": tip, "change": "added"}) == "since aaaaaaaa by -"


def test_an_argument_that_is_not_utf8_is_a_usage_error_not_a_traceback(capsys):
    """A terminal in a Latin-1 locale hands Python bytes it reads as surrogate escapes;
    no query, path or registry can hold them (a search raised UnicodeEncodeError)."""
    from recalld.daemon.cli import EXIT_USAGE, main

    for argv, shown in ((["search", "caf\udce9"], "caf\\xe9"), (["outline", "caf\udce9.py"], "caf\\xe9.py"),
                        (["repo", "add", "/tmp/x\udce9"], "/tmp/x\\xe9")):  # fmt: skip
        assert main(argv) == EXIT_USAGE
        said = capsys.readouterr().err
        assert said == f"recalld: argument '{shown}' is not UTF-8 text (is the terminal's locale UTF-8?)\n"


def test_an_argument_a_command_does_not_take_is_refused_with_that_commands_usage(capsys):
    """`recalld search x -k 5` printed recalld's own usage, which lists no option of search;
    `recalld --bogus` said a COMMAND was required, not that it did not know --bogus."""
    from recalld.daemon.cli import main

    for argv, command, error in ((["search", "tax", "-k", "5"], "search", "unrecognized arguments: -k 5"),
                                 (["repo", "add", ".", "--bogus"], "repo add", "unrecognized arguments: --bogus"),
                                 (["--bogus"], "", "unrecognized arguments: --bogus"),
                                 (["repo", "--bogus"], "repo", "unrecognized arguments: --bogus"),
                                 ([], "", "the following arguments are required: COMMAND"),
                                 (["-v"], "", "the following arguments are required: COMMAND"),
                                 (["repo"], "repo", "the following arguments are required: ACTION"),
                                 (["search", "x", "--format", "mem0", "--json"], "search",
                                  "argument --json: not allowed with argument --format"),
                                 # a path given empty was the current directory's repository
                                 (["repo", "add", ""], "repo add", "argument path: must not be empty"),
                                 (["repo", "set", "r", "--path", " "], "repo set", "argument --path: must not be empty"),
                                 (["hooks", "install", ""], "hooks install", "argument path: must not be empty"),
                                 (["notify", "--path", ""], "notify", "argument --path: must not be empty"),
                                 (["forget", ""], "forget", "argument id: must not be empty"),
                                 # and a branch given empty the checked-out one, or no change
                                 (["repo", "add", ".", "--branch", ""], "repo add", "argument --branch: must not be empty"),
                                 (["repo", "set", "r", "--branch", ""], "repo set", "argument --branch: must not be empty")):  # fmt: skip
        with pytest.raises(SystemExit) as stopped:
            main(argv)
        said = capsys.readouterr().err
        named = f"recalld {command}".strip()
        assert stopped.value.code == 2 and said.startswith(f"usage: {named} "), said
        assert said.endswith(f"{named}: error: {error}\n"), said


def test_what_a_repository_holds_reaches_the_terminal_without_its_control_characters(project):
    """A hostile file name and code with escape sequences (clear the screen, retitle the
    window, colour) and a path with a line end: the human output shows each control
    character escaped (tabs and line ends in code as they are), a path on one line, and
    ``--json`` and ``export`` hold them exactly."""
    evil, broken = "e\x1b[2Jvil.py", "new\nline.py"
    code = 'def esc():\n    """Title\x1b]0;pwned\x07 and \x1b[2J cleared."""\n    return "\x1b[31mred\x1b[0m\r"\n'
    project.write(evil, code)
    project.write(broken, "def split_path():\n    return 1\n")
    recalld("repo", "add", str(project.path))
    recalld("sync")
    project.write("billing/invoice.py", "def replaced():\n    return 2\n")
    project.commit("hostile\x1b[2J names")
    recalld("sync")

    def controls(text: str) -> list[str]:
        return [c for c in text if (ord(c) < 0x20 and c not in "\t\n") or 0x7F <= ord(c) < 0xA0]

    shown = {" ".join(args): recalld(*args).stdout for args in (
        ("search", "cleared title pwned", "--limit", "20"), ("symbol", "esc"), ("outline", "."),
        ("changes", "--since", "HEAD~1"), ("changes",))}  # fmt: skip
    for args, out in shown.items():
        assert not controls(out), (args, out)
    assert "r:e\\u001b[2Jvil.py:1" not in shown["symbol esc"] and "e\\u001b[2Jvil.py:1-3" in shown["symbol esc"]
    assert '"""Title\\u001b]0;pwned\\u0007 and \\u001b[2J cleared."""' in shown["symbol esc"]
    assert "new\\nline.py" in shown["search cleared title pwned --limit 20"]
    assert all("hostile\\u001b[2J names" in shown[args] for args in ("changes --since HEAD~1", "changes"))
    (version,) = json.loads(recalld("symbol", "esc", "--json").stdout)
    assert version["path"] == evil and "\x1b[31mred\x1b[0m\r" in version["text"]
    paths = {json.loads(line)["path"] for line in recalld("export").stdout.splitlines()}
    assert {evil, broken} <= paths
    missing = recalld("outline", "gone\x1b[2J.py", check=False)
    assert missing.returncode == 1 and "gone" in missing.stderr and not controls(missing.stderr[:-1])


def test_cli_errors_are_one_line_with_exit_codes(tmp_path, project):
    nothing = recalld("search", "anything")  # said at once, where the model was exported (~14 s) to find nothing
    assert "note: nothing is indexed yet: register a repository (`recalld repo add PATH`)" in nothing.stderr
    unknown = recalld("sync", "nope", check=False)
    assert unknown.returncode == 1 and unknown.stderr.count("\n") == 1 and "unknown repo 'nope'" in unknown.stderr
    not_git = recalld("repo", "add", str(tmp_path), check=False)
    assert not_git.returncode == 1 and "not a git repository" in not_git.stderr
    usage = recalld("search", check=False)
    assert usage.returncode == 2
    for args, message in ((["  "], "argument query: must not be empty"),
                          (["x", "--limit", "0"], "argument --limit: must be 1 to 1000, not 0"),
                          (["x", "--limit", "1001"], "must be 1 to 1000"),
                          (["x", "--as-of", ""], "argument --as-of: must not be empty"),
                          (["x", "--type", "bogus"], "argument --type: unknown memory type 'bogus': structural,")):
        bad = recalld("search", *args, check=False)
        assert bad.returncode == 2 and message in bad.stderr, bad.stderr
    many = recalld("changes", "--limit", "501", check=False)  # exited 1, where --since --limit 5001 exited 2
    assert many.returncode == 2 and "argument --limit: must be 1 to 500 without --since, not 501" in many.stderr
    recalld("repo", "add", str(project.path))
    again = recalld("repo", "add", str(project.path))
    assert again.stdout.startswith("already registered project:")
    for as_of, message in (("2024-02-30", "not a valid ISO date"), ("no-such-ref", "no such commit")):
        bad = recalld("search", "x", "--as-of", as_of, check=False)
        assert bad.returncode == 1 and bad.stderr.count("\n") == 1 and message in bad.stderr, bad.stderr
    recalld("repo", "remove", "project")
    gone = recalld("repo", "remove", "project", check=False)
    assert gone.returncode == 1 and "unknown repo 'project'" in gone.stderr
    none = recalld("sync", check=False)
    assert none.returncode == 1 and "no repositories registered" in none.stderr
    which = recalld("symbol", "compute_vat", check=False)
    assert which.returncode == 1 and "no repository is registered: add one with `recalld repo add PATH`" in which.stderr
    listed = recalld("repo", "list")
    assert listed.stdout == "" and "no repositories registered" in listed.stderr
    assert recalld("repo", "list", "--json").stdout == ""
    version = recalld("--version")
    assert version.stdout.startswith("recalld ") and version.stdout.split()[1][0].isdigit()
    (tmp_path / "recalld-home-config").mkdir()
    config = tmp_path / "recalld-home-config" / "config.toml"
    config.write_text("[index]\nmax_file_byte = 1\n")
    bad = subprocess.run([sys.executable, "-m", "recalld.daemon.cli", "status"], capture_output=True, text=True,
                         env={**os.environ, "RECALLD_CONFIG": str(config)})  # fmt: skip
    assert bad.returncode == 1 and "unknown option index.max_file_byte" in bad.stderr


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="no /dev/full")
def test_output_that_cannot_be_written_is_one_line_and_a_closed_pipe_nothing(project):
    """`recalld export > /dev/full` ended with OSError's traceback, and a closed pipe (`| head`)
    with Python's "Exception ignored ... BrokenPipeError" and exit 120 from its flush at
    exit. Stdout written at each print (PYTHONUNBUFFERED) and at the command's end alike."""
    recalld("repo", "add", str(project.path))
    recalld("sync")
    read, closed = os.pipe()
    os.close(read)
    try:
        for unbuffered in ("", "1"):  # an empty value leaves it unset
            env = {**os.environ, "PYTHONUNBUFFERED": unbuffered}
            for args in (["export"], ["search", "tax", "--json"]):
                with open("/dev/full", "w") as full:
                    done = subprocess.run([sys.executable, "-m", "recalld.daemon.cli", *args], stdout=full,
                                          stderr=subprocess.PIPE, text=True, env=env, check=False)  # fmt: skip
                said = "recalld: cannot write the output: No space left on device\n"
                assert (done.returncode, done.stderr) == (1, said), (args, unbuffered, done.stderr)
                done = subprocess.run([sys.executable, "-m", "recalld.daemon.cli", *args], stdout=closed,
                                      stderr=subprocess.PIPE, text=True, env=env, check=False)  # fmt: skip
                assert (done.returncode, done.stderr) == (0, ""), (args, unbuffered, done.stderr)
    finally:
        os.close(closed)


def test_store_in_use_is_a_clear_error(project):
    from recalld.daemon.config import load_config
    from recalld.ingest.store import StoreConfig
    from recalld.ingest.store_edge import QdrantEdgeStore

    recalld("repo", "add", str(project.path))
    holder = QdrantEdgeStore(StoreConfig(dim=384, path=str(load_config().store_path)))
    try:
        locked = recalld("sync", check=False)
        assert locked.returncode == 1 and "in use by another process" in locked.stderr
    finally:
        holder.close()


def test_one_broken_repo_does_not_stop_the_others(tmp_path):
    good = GitRepo(tmp_path / "good")
    good.write("notes.md", "nothing to parse\n")
    good.commit("docs only")
    gone = GitRepo(tmp_path / "gone")
    gone.commit("empty")
    recalld("repo", "add", str(good.path))
    recalld("repo", "add", str(gone.path))
    import shutil

    shutil.rmtree(gone.path)
    done = recalld("sync", "--json", check=False)
    assert done.returncode == 1
    assert f"recalld: gone: not a git repository: {gone.path}\n" in done.stderr
    assert done.stderr.count("not a git repository") == 1 and "sync failed" not in done.stderr  # no log line besides
    assert json.loads(done.stdout)["repo"] == "good"
    logged = recalld("-v", "sync", "gone", check=False)  # -v logs it as data too (JSON: stderr is no terminal)
    assert logged.returncode == 1 and '"event": "sync failed"' in logged.stderr


def test_symbol_of_a_kind_no_memory_has_says_so(project):
    """`symbol NAME --kind K` with a K no memory has said "no symbol NAME" of a symbol that
    exists; it says what search says of such a --kind (one no symbol has is a usage error)."""
    recalld("repo", "add", str(project.path))
    recalld("sync")
    absent = recalld("symbol", "compute_vat", "--kind", "trait", check=False)
    assert absent.returncode == 1
    assert absent.stderr.startswith("recalld: no memory of project has kind 'trait' (module, class,")
    assert recalld("symbol", "compute_vat", "--kind", "function").stdout.startswith("project:billing/invoice.py:12")
    other = recalld("symbol", "compute_vat", "--kind", "method", check=False)  # a kind there, not of it
    assert other.returncode == 1 and other.stderr == "recalld: no symbol 'compute_vat' in project\n"


def test_a_command_run_in_a_work_tree_on_another_branch_says_the_memories_follow_theirs(project):
    """An agent on a branch of its own asks for what it changed there: the answer, or its
    "no symbol", says which branch the memories follow (it said "no symbol" alone)."""
    recalld("repo", "add", str(project.path))
    recalld("sync")
    project.git("checkout", "-q", "-b", "feature")
    project.write("billing/invoice.py", project.path.joinpath("billing/invoice.py").read_text()
                  .replace("compute_vat", "vat_of"))  # fmt: skip
    project.commit("rename on a branch")
    note = "the work tree here is on branch 'feature', and project's memories follow 'main'"
    missing = recalld("symbol", "vat_of", check=False, cwd=project.path / "billing")
    assert missing.returncode == 1 and missing.stderr.startswith(f"recalld: no symbol 'vat_of' in project ({note}")
    found = recalld("symbol", "compute_vat", cwd=project.path)
    assert found.stdout.startswith("project:billing/invoice.py:12") and f"note: {note}" in found.stderr
    assert note not in recalld("symbol", "compute_vat").stderr  # not run in the work tree
    project.git("checkout", "-q", "main")
    assert note not in recalld("outline", "billing/invoice.py", cwd=project.path).stderr


def test_a_changed_text_length_embeds_every_stored_memory_again(project):
    recalld("repo", "add", str(project.path))
    first = json.loads(recalld("sync", "--json").stdout)
    assert first["reembedded"] == 0
    recalld("remember", "invoices are always in euros", "--repo", "project")
    exported = [json.loads(line) for line in recalld("export", "--include-deprecated").stdout.splitlines()]
    assert any(m["text"] == "invoices are always in euros" for m in exported)  # manual memories too
    memories = len(exported)
    config = Path(os.environ["RECALLD_HOME"]) / "config.toml"
    config.write_text("[embedding]\nmax_tokens = 64\n")
    vectors = json.loads(recalld("status", "--json").stdout)["vectors"]
    assert not vectors["current"] and "+max128t+" in vectors["stored"] and "+max64t+" in vectors["configured"]
    assert "embeds every memory again" in recalld("status").stdout
    before = recalld("search", "tax on a price", "--json", "--limit", "1")  # vectors of the old length
    assert "another model or text setting" in before.stderr and "by keywords" in before.stderr
    assert json.loads(before.stdout)[0]["qualname"] == "compute_vat"
    done = recalld("sync", "--json")
    assert json.loads(done.stdout)["reembedded"] == memories
    assert "embedding every memory again" in done.stderr
    after = recalld("search", "tax on a price", "--json", "--limit", "1")
    assert json.loads(after.stdout)[0]["qualname"] == "compute_vat" and "another model" not in after.stderr
    assert json.loads(recalld("sync", "--json").stdout)["reembedded"] == 0
    assert json.loads(recalld("status", "--json").stdout)["vectors"]["current"] is True
    assert "vectors:" not in recalld("status").stdout


def test_the_language_filters_help_names_every_language_read():
    from recalld.daemon.cli import build_parser
    from recalld.parsers.registry import BUILTIN_LANGUAGES

    search = build_parser()._subparsers._group_actions[0].choices["search"]  # type: ignore[union-attr]
    (lang,) = [a for a in search._actions if "--lang" in a.option_strings]
    named = set(lang.help.replace(",", " ").replace("(", " ").replace(")", " ").split())
    assert {spec.name for spec in BUILTIN_LANGUAGES} <= named


def test_theonly_repository_is_named_without_opening_the_app(project):
    """`recalld symbol` and `recalld outline` without --repo take the one registered
    repository from the registry alone: through the daemon the command opens neither the
    store nor the sync's modules (~0.45 s of imports)."""
    recalld("repo", "add", str(project.path))
    code = (
        "import sys\n"
        "from recalld.daemon.context import Context\nfrom recalld.daemon.here import only_repo\n"
        "from recalld.daemon.config import load_config\n"
        "ctx = Context(load_config())\nprint(only_repo(ctx))\nctx.close()\n"
        "print(sorted(m for m in ('recalld.daemon.app', 'recalld.ingest.sync', 'pygit2') if m in sys.modules))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env={**os.environ}, check=True)
    assert done.stdout.splitlines() == ["project", "[]"]


@pytest.mark.parametrize("argv", [("repo", "list"), ("notify", "--hook", "post-commit", "--path", "{path}")])
def test_commands_of_the_registry_alone_do_not_open_the_app(project, argv):
    """`recalld repo list`, and `recalld notify`, which every git hook runs on every
    commit, read the registry only: neither the app nor the sync's modules are imported
    (~0.5 s: 0.8 → 0.4 s a hook's notify)."""
    recalld("repo", "add", str(project.path))
    args = [a.format(path=project.path) for a in argv]
    code = (
        "import sys\nfrom recalld.daemon.cli import main\n"
        f"code = main({args!r})\n"
        "print(code, sorted(m for m in ('recalld.daemon.app', 'recalld.ingest.sync', 'numpy') if m in sys.modules))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env={**os.environ}, check=True)
    assert done.stdout.splitlines()[-1] == "0 []"


@pytest.mark.parametrize("argv", [("outline", "billing/invoice.py"), ("symbol", "compute_vat")])
def test_a_command_reading_the_store_with_no_daemon_loads_neither_numpy_nor_the_sync(project, argv):
    """`recalld outline` and `recalld symbol` with no daemon running read the store (and
    git, for how far behind it is): the app imported the sync's modules and numpy with it
    (~0.15 s of 0.8 s an outline; the test's store is empty, the imports the same)."""
    recalld("repo", "add", str(project.path))
    code = (
        "import sys\nfrom recalld.daemon.cli import main\n"
        f"code = main({list(argv)!r})\n"
        "heavy = ('recalld.ingest.sync', 'recalld.ingest.writer', 'recalld.ingest.embed_select', 'numpy')\n"
        "print(code, sorted(m for m in heavy if m in sys.modules))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env={**os.environ},
                          cwd=project.path, check=False)  # fmt: skip
    assert done.stdout.splitlines()[-1] in ("0 []", "1 []"), done.stdout + done.stderr
    assert "never synced" in done.stderr  # the store was read: none of its memories is there yet


def test_verbose_after_a_command_as_before_it():
    from recalld.daemon.cli import build_parser

    parser = build_parser()
    for argv, verbose in ((["sync", "-v"], True), (["-v", "sync"], True), (["sync"], False),
                          (["repo", "list", "--verbose"], True), (["-v", "hooks", "install", "--all"], True),
                          (["search", "x"], False)):  # fmt: skip
        assert parser.parse_args(argv).verbose is verbose, argv


def test_an_outline_nests_by_lines_not_by_the_dots_of_a_name(tmp_path):
    """An overload's name holds its parameter types (``Group.command(t.Optional[str])``):
    each dot in them indented it one level deeper than its siblings."""
    repo = GitRepo(tmp_path / "ov")
    repo.write("ov.py", '''import typing as t


class Group:
    @t.overload
    def command(self, name: t.Optional[str]) -> int: ...
    @t.overload
    def command(self, name: t.Type[int]) -> int: ...
    def command(self, name):
        return 1


def top():
    pass
''')
    repo.commit("overloads")
    recalld("repo", "add", str(repo.path))
    recalld("sync")
    lines = recalld("outline", "ov.py").stdout.splitlines()
    assert [len(line) - len(line.lstrip()) for line in lines[1:]] == [2, 4, 4, 4, 2], lines
