"""Shell scripts on Bash's real grammar: functions however they are written, what a
script's header holds for tools rather than readers, and scripts its grammar misreads."""

from __future__ import annotations

import pytest

from recalld.ingest.records import is_test_path
from recalld.parsers import parse
from recalld.parsers.registry import language_for_path


@pytest.mark.parametrize("path", ["hack/lib/util.sh", "completions/git.bash", "ci/Run.SH"])
def test_shell_scripts_are_bashs(path: str):
    assert language_for_path(path) == "bash"


@pytest.mark.parametrize(
    ("language", "header"),
    [
        ("bash", b"#!/bin/sh -e\n# vim: set ft=sh:\n"),
        ("bash", b"#!/usr/bin/env bash\n# shellcheck disable=SC2034,SC2154\n"),
        ("bash", b"#! /bin/bash\n\n# shellcheck shell=bash\n"),
        ("ruby", b"#!/usr/bin/env ruby\n# frozen_string_literal: true\n"),
    ],
)
def test_an_interpreter_line_and_tool_directives_are_no_documentation(language: str, header: bytes):
    code = b"x=1\n" if language == "bash" else b"X = 1\n"
    assert parse(language, header + b"# Serves the app.\n\n" + code).symbols[0].docstring == "Serves the app."
    assert parse(language, header + b"\n" + code).symbols[0].docstring == ""  # the header alone


def test_a_directive_above_a_function_leaves_its_doc():
    data = b"# Says hi.\n# shellcheck disable=SC2086\nhi() { echo $1; }\n"
    (_module, hi) = parse("bash", data).symbols
    assert (hi.qualname, hi.docstring, hi.signature) == ("hi", "Says hi.", "hi()")


def test_a_script_its_grammar_misreads_keeps_its_functions():
    """Git's ``git-completion.bash``: a line for zsh among Bash's (``${(M)…}``) is read
    as an error; the functions around it are found, each once."""
    data = (b"usage() {\n\techo usage >&2\n}\n\nif [ -n \"${ZSH_VERSION-}\" ]; then\n"
            b"\tunset ${(M)${(k)parameters[@]}:#__gitcomp_builtin_*} 2>/dev/null\nfi\n\n"
            b"cleanup() {\n\trm -f \"$tmp\"\n}\n")  # fmt: skip
    result = parse("bash", data)
    assert result.syntax_errors > 0
    assert [(s.qualname, s.start_line, s.end_line) for s in result.symbols[1:]] == [
        ("usage", 1, 3), ("cleanup", 9, 11)
    ]  # fmt: skip


def test_a_function_defined_in_a_functions_body_or_a_string_is_no_symbol():
    """Git's ``setup_tool`` defines a merge tool's default functions in its body; its
    tests define helpers in the quoted bodies of ``test_expect_success``."""
    data = (b"setup_tool () {\n\tdiff_cmd () {\n\t\treturn 1\n\t}\n}\n\n"
            b"test_expect_success 'setup' '\n\tcheck_abbrev () {\n\t\t:\n\t}\n'\n")  # fmt: skip
    assert [s.qualname for s in parse("bash", data).symbols[1:]] == ["setup_tool"]


@pytest.mark.parametrize(
    ("path", "test"),
    [("scripts/test_release.sh", True), ("lib/util_test.bash", True), ("scripts/latest.sh", False),
     ("scripts/contest.sh", False), ("ci/testing.sh", False)],
)  # fmt: skip
def test_shell_tests_are_test_code(path: str, test: bool):
    assert is_test_path(path) is test


DRACUT = b"""\
#!/bin/sh
# Dracut's base library, cut down.

# Gives the console to the shell.
_emergency_shell() {
    exec 0<> /dev/console 1<> /dev/console 2<> /dev/console
}

# Aligns an offset.
align_to() {
    echo "$((16#$1 & ~(16#$2 - 1)))"
}

# Reads an iSCSI target's address.
parse_target() {
    ip=${1%%[]]*}
    server=${2%%]:*}
}

case "$remotes" in
?*' '?*)
    ;;
esac

# Converts ip= to variables.
ip_to_var() {
    :
}
"""


def test_what_bashs_grammar_cannot_read_is_read_again():
    """Dracut's ``0<>`` redirections, ``$((16#…))`` numbers and ``${x%%[]]*}`` patterns, and
    Git's ``?*' '?*)`` case pattern, after which the grammar read nothing more: each script
    is read again as the grammar reads it, every function found with its text as written."""
    result = parse("bash", DRACUT)
    assert result.syntax_errors == 0
    found = {s.qualname: (s.start_line, s.end_line, s.docstring) for s in result.symbols[1:]}
    assert found == {
        "_emergency_shell": (5, 7, "Gives the console to the shell."), "align_to": (10, 12, "Aligns an offset."),
        "parse_target": (15, 18, "Reads an iSCSI target's address."),
        "ip_to_var": (26, 28, "Converts ip= to variables."),
    }  # fmt: skip
    emergency = result.symbols[1]
    assert "0<> /dev/console" in emergency.source


def test_the_shell_rewrite_keeps_every_line_and_length():
    from recalld.parsers.shell_gaps import readable

    rewritten = readable(DRACUT)
    assert len(rewritten) == len(DRACUT) and rewritten.count(b"\n") == DRACUT.count(b"\n")
    assert b"0<  /dev/console" in rewritten and b"16*$1" in rewritten and b"${1%%___*}" in rewritten
    assert b"?*___?*)" in rewritten
    untouched = b"cat <<EOF\n<>\nEOF\n[[ $x < 3 ]] && echo ${x:-1} '#' $((x + 1))\n"
    assert readable(untouched) == untouched


COMPLETION = b"""# bash completion for tar                                  -*- shell-script -*-

# Completes the options of gzip.
_comp_cmd_gzip()
{
    [[ $prev == --@(decompress|list|test) ]] && xspec="!"$xspec
    case $prev in
        --help | -${noargopts}@([bt]|h*))
            return
            ;;
        --+([-A-Za-z0-9_]))
            return
            ;;
    esac
    [[ $cur == @(*/|[.~])* ]] && _comp_compgen_filedir
    [[ $1 == @(GLOBIGNORE|_*|[0-9]*|'') ]] && return 2
    [[ ${words[*]} == *\\ -@(*([^ -])f|-file )* ]] && return 1
}

# Completes the options of lzma.
_comp_cmd_lzma()
{
    echo $((count+(width*2))) $(( depth*(2) ))
}
"""


def test_extended_globs_are_read_again_as_words():
    """bash-completion's patterns (``@(a|b)``, ``+([0-9])``, one in another), which Bash's
    grammar misreads (41 of its 540 scripts read with errors, 6 when they are read again
    so), and not arithmetic's ``a+(b)``."""
    from recalld.parsers.shell_gaps import readable

    result = parse("bash", COMPLETION)
    assert result.syntax_errors == 0
    found = {s.qualname: (s.start_line, s.end_line, s.docstring) for s in result.symbols[1:]}
    assert found == {
        "_comp_cmd_gzip": (4, 18, "Completes the options of gzip."),
        "_comp_cmd_lzma": (21, 24, "Completes the options of lzma."),
    }  # fmt: skip
    rewritten = readable(COMPLETION)
    assert b"== ____________________* ]]" not in rewritten and b"== __________* ]]" in rewritten
    assert b"-${noargopts}__________)" in rewritten and b"--________________)" in rewritten
    assert b"== __________________________ ]]" in rewritten and b"== *\\ -___________________* ]]" in rewritten
    assert b"$((count+(width*2))) $(( depth*(2) ))" in rewritten and len(rewritten) == len(COMPLETION)


def test_braces_around_a_scripts_functions_are_no_function_body():
    """nvm's ``nvm.sh`` wraps all of itself in ``{ … }`` so that it runs only once
    downloaded whole: its functions are the file's; one a function defines stays its text."""
    data = (b"#!/usr/bin/env bash\n{ # this ensures the entire script is downloaded #\n\n"
            b"# Tells whether a command exists.\nnvm_has() {\n  type \"${1-}\" >/dev/null 2>&1\n}\n\n"
            b"nvm_install() {\n  helper() { :; }\n  helper\n}\n\n"
            b"} # this ensures the entire script is downloaded #\n")  # fmt: skip
    found = [(s.qualname, s.docstring) for s in parse("bash", data).symbols[1:]]
    assert found == [("nvm_has", "Tells whether a command exists."), ("nvm_install", "")]


def test_variable_offsets_and_an_operator_a_variable_holds_are_read_again():
    """``${addr:$i:1}`` and ``((pct $cond))`` (Linux's selftests), which Bash's grammar
    reads as errors: each function around them found, read again as a name and a sum."""
    from recalld.parsers.shell_gaps import readable

    source = (
        b"build_addr() {\n\tfor ((i = 0; i < ${#addr}; i++)); do\n\t\tout=\"${out}${addr:$i:1}\"\n\tdone\n}\n\n"
        b"check_marking() {\n\t((pct $cond))\n}\n\nread_part() {\n\techo \"${data:$2:$3}\" ${x:-$y}\n}\n"
    )
    result = parse("bash", source)
    assert result.syntax_errors == 0
    assert [(s.qualname, s.start_line, s.end_line) for s in result.symbols[1:]] == [
        ("build_addr", 1, 5), ("check_marking", 7, 9), ("read_part", 11, 13),
    ]  # fmt: skip
    rewritten = readable(source)
    assert b"${addr:_i:1}" in rewritten and b"((pct+$cond))" in rewritten and b"${data:_2:_3}" in rewritten
    assert b"${x:-$y}" in rewritten and b"for ((i = 0; i < ${#addr}; i++))" in rewritten
