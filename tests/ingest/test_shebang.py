"""Scripts whose names have no extension (``bin/deploy``, ``manage``, ``gradlew``) are read
in the language their ``#!`` line names: by a full index and a sync, by the history's
commit reader; a script whose first line names another interpreter, or none, follows it."""

from __future__ import annotations

import pytest

from recalld.ingest.commits import CommitReader
from recalld.ingest.files import IndexOptions
from recalld.ingest.gitrepo import GitRepository
from recalld.parsers.script_heads import interpreter_language, may_be_script

from tests.ingest.conftest import Harness

DEPLOY = """#!/usr/bin/env bash
# Ships the build to the servers.

# Copies the archive to one host and unpacks it there.
push_to() {
  scp build.tgz "$1:/srv" && ssh "$1" tar xzf /srv/build.tgz -C /srv
}
"""
MANAGE = '''#!/usr/bin/env python3
"""The project's admin commands."""


def migrate(database):
    """Brings the schema up to date."""
    return database.upgrade()
'''
CLI = "#!/usr/bin/env -S node --no-warnings\nfunction main(argv) {\n  return argv.length;\n}\n"


def live(h: Harness) -> dict[tuple[str, str], dict]:  # type: ignore[type-arg]
    return {(m.payload["path"], m.payload["qualname"]): m.payload for m in h.memories(types=("structural",))}


@pytest.mark.parametrize(
    ("head", "language"),
    [
        (b"#!/bin/sh -e\n", "bash"),
        (b"#! /usr/bin/python3.11\nimport sys\n", "python"),
        (b"#!/usr/bin/env -S node --no-warnings\n", "javascript"),
        (b"#!/usr/bin/env bash\r\n", "bash"),
        (b"#!/usr/bin/env RUBYOPT=-w ruby2.7\n", "ruby"),
        (b"#!/usr/bin/luajit-2.1\n", "lua"),
        (b"#!/usr/bin/env -S scala-cli shebang\n", "scala"),
        (b"#!/usr/bin/tclsh8.6\n", None),  # a language recalld does not read
        (b"#!/bin/zsh\n", None),  # Bash's grammar misreads zsh's syntax
        (b"#!/usr/bin/env\n", None),
        (b"#!\n", None),
        (b"# bash completion for tar\n", None),
        (b"\x7fELF\x02\x01", None),
        # an editor's mode over all: bash-completion's completions have no #! line
        (b"# bash completion for tar                  -*- shell-script -*-\n", "bash"),
        (b"#!/usr/bin/env python3\n# -*- coding: utf-8 -*-\n", "python"),  # no mode
        (b"# -*- coding: utf-8; mode: ruby -*-\n", "ruby"),
        (b"#!/bin/sh\n# vim: set ft=python :\n", "python"),
        (b"// <vector> -*- C++ -*-\n\n// Copyright (C) 2001-2022 Free Software Foundation, Inc.\n", "cpp"),  # libstdc++
        (b"#!/bin/sh\n# rotates app-*-%d-*-.log\n", "bash"),  # a pattern that only looks like a mode
        # a shell script that runs itself again with another interpreter
        (b'#!/bin/sh\n# Tcl ignores the next line -*- tcl -*- \\\nexec wish "$0" -- "$@"\n', None),  # gitk
        (b'#!/bin/sh\n# the next line restarts using tclsh \\\nexec tclsh "$0" "$@"\n', None),
        (b'#!/bin/sh\nexec scala "$0" "$@"\n!#\nobject Main\n', "scala"),
        (b'#!/bin/sh\n[ "$(id -u)" = 0 ] || exec sudo "$0" "$@"\n', "bash"),  # the same script, as root
    ],
)
def test_a_scripts_interpreter_line_names_its_language(head, language):
    assert interpreter_language(head) == language


def test_only_a_name_without_an_extension_is_asked_its_first_line():
    assert may_be_script("bin/deploy") and may_be_script("gradlew") and may_be_script(".profile")
    assert not may_be_script("notes.txt") and not may_be_script("bin/deploy.sh") and not may_be_script("a.b/tool.x")


def test_scripts_without_an_extension_are_read_by_their_interpreter(harness, git_repo):
    git_repo.write("bin/deploy", DEPLOY)
    git_repo.write("manage", MANAGE)
    git_repo.write("tools/cli", CLI)
    git_repo.write("completions/tar", "# tar(1) completion    -*- shell-script -*-\n\n_comp_cmd_tar() {\n  :\n}\n")
    git_repo.write("tools/report", "#!/usr/bin/tclsh\nproc report {} { return 1 }\n")
    git_repo.write("LICENSE", "Permission is hereby granted, free of charge\n")
    git_repo.write("data/blob", b"#!\x00\xff" * 4096)
    git_repo.commit("scripts")
    result = harness.sync(git_repo)
    memories = live(harness)
    push = memories[("bin/deploy", "push_to")]
    assert (push["language"], push["kind"]) == ("bash", "function")
    assert push["docstring"] == "Copies the archive to one host and unpacks it there."
    assert memories[("bin/deploy", "<module>")]["docstring"] == "Ships the build to the servers."
    assert memories[("manage", "migrate")]["language"] == "python"
    assert memories[("manage", "<module>")]["docstring"] == "The project's admin commands."
    assert memories[("tools/cli", "main")]["language"] == "javascript"
    assert memories[("completions/tar", "_comp_cmd_tar")]["language"] == "bash"
    assert {path for path, _name in memories} == {"bin/deploy", "manage", "tools/cli", "completions/tar"}
    assert result.skips.get("unsupported_language") == 3  # the Tcl script, the licence, the data


def test_a_script_follows_its_interpreter_line_and_its_name(harness, git_repo):
    """Rewritten in another language under the same name, its old memories close; a first
    line that names no interpreter any more closes them all; renamed with an extension,
    it keeps its lineage."""
    git_repo.write("bin/deploy", DEPLOY)
    git_repo.commit("deploy in bash")
    harness.sync(git_repo)
    push = live(harness)[("bin/deploy", "push_to")]
    (push_id,) = (m.id for m in harness.memories() if m.payload["qualname"] == "push_to")

    git_repo.write("bin/deploy", MANAGE.replace("def migrate", "def push_to"))
    git_repo.commit("deploy in python")
    harness.sync(git_repo)
    memories = live(harness)
    assert {(path, name, m["language"]) for (path, name), m in memories.items()} == {
        ("bin/deploy", "<module>", "python"), ("bin/deploy", "push_to", "python"),
    }  # fmt: skip
    closed = {m.id: m.payload for m in harness.memories(deprecated=1)}
    (python_id,) = (m.id for m in harness.memories() if m.payload["qualname"] == "push_to")
    assert (closed[push_id]["deprecated_reason"], closed[push_id]["superseded_by"]) == ("modified", python_id)
    assert {m["language"] for m in closed.values()} == {"bash"}

    git_repo.write("bin/deploy", DEPLOY)
    git_repo.commit("deploy in bash again")
    harness.sync(git_repo)
    again = live(harness)[("bin/deploy", "push_to")]
    assert again["language"] == "bash" and again["lineage"] == push["lineage"]

    git_repo.git("mv", "bin/deploy", "bin/deploy.sh")
    git_repo.commit("an extension")
    result = harness.sync(git_repo)
    moved = live(harness)[("bin/deploy.sh", "push_to")]
    assert moved["lineage"] == push["lineage"] and result.renamed >= 1

    git_repo.git("mv", "bin/deploy.sh", "bin/deploy")
    git_repo.write("bin/deploy", DEPLOY.replace("#!/usr/bin/env bash\n", ""))
    git_repo.commit("no interpreter line")
    harness.sync(git_repo)
    assert live(harness) == {}


def test_the_history_lists_a_scripts_symbols(git_repo):
    git_repo.write("bin/deploy", DEPLOY)
    git_repo.write("tools/report", "#!/usr/bin/tclsh\nproc report {} { return 1 }\n")
    first = git_repo.commit("scripts")
    git_repo.write("bin/deploy", DEPLOY + "\nrollback() {\n  :\n}\n")
    second = git_repo.commit("a rollback")
    reader = CommitReader(GitRepository(str(git_repo.path)), IndexOptions())
    assert {(s.path, s.added) for s in reader.read(first).symbols} == {("bin/deploy", ("push_to",))}
    assert {(s.path, s.added) for s in reader.read(second).symbols} == {("bin/deploy", ("rollback",))}


def test_a_script_over_the_size_limit_is_not_read_for_its_first_line(git_repo, tmp_path):
    options = IndexOptions(max_file_bytes=1024)
    h = Harness("edge", tmp_path / "small", options)
    try:
        git_repo.write("bin/deploy", DEPLOY + "# padding\n" * 200)
        git_repo.write("bin/small", DEPLOY)
        git_repo.commit("scripts")
        result = h.sync(git_repo)
        assert {path for path, _name in live(h)} == {"bin/small"}
        assert result.skips.get("unsupported_language") == 1
    finally:
        h.close()
