from __future__ import annotations

import os
import tomllib
from pathlib import Path

import pytest

from recalld.daemon.config import SCHEMA, load_config, validate
from recalld.ingest.errors import RecalldError

EXAMPLE = Path(__file__).resolve().parents[2] / "config" / "recalld.example.toml"


def test_example_documents_every_option_with_its_default():
    example = tomllib.loads(EXAMPLE.read_text())
    assert set(example) == set(SCHEMA)
    for section, options in SCHEMA.items():
        assert set(example[section]) == set(options), section
        for key, (_kind, default) in options.items():
            assert example[section][key] == default, f"{section}.{key}"


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        ({"index": {"max_fil_bytes": 3}}, "unknown option index.max_fil_bytes"),
        ({"nope": {}}, "unknown section [nope]"),
        ({"index": {"max_file_bytes": "big"}}, "index.max_file_bytes must be of type int"),
        ({"index": {"max_file_bytes": 0}}, "index.max_file_bytes must be greater than 0"),
        ({"index": {"honour_gitattributes": 1}}, "index.honour_gitattributes must be of type bool"),
        ({"log": {"level": "loud"}}, "log.level must be one of"),
        ({"index": {"exclude": [1]}}, "index.exclude must be of type list"),
        ({"trust": {"untrusted_branches": "pr/*"}}, "trust.untrusted_branches must be of type list"),
        ({"trust": {"untrusted_branches": ["pr/*", " "]}}, "must not contain an empty pattern"),
        ({"embedding": {"backend": "gpu"}}, "embedding.backend must be one of auto, onnx, torch"),
        # each accepted, then a traceback at the first sync, or nothing excluded and no collection named
        ({"embedding": {"device": "gpu"}}, "embedding.device must be a torch device: cpu, cuda, cuda:N, mps or xpu"),
        ({"index": {"exclude": ["vendor/**", ""]}}, "index.exclude must not contain empty globs"),
        ({"store": {"collection": " "}}, "store.collection must not be empty"),
        ({"embedding": {"max_tokens": 8}}, "embedding.max_tokens must be 0 (the model's own limit) or at least 16"),
        ({"embedding": {"max_tokens": -1}}, "embedding.max_tokens must be 0"),
        ({"embedding": {"max_tokens": "256"}}, "embedding.max_tokens must be of type int"),
        ({"embedding": {"words_only": "yes"}}, "embedding.words_only must be of type bool"),
        ({"tasks": {"backfill_commits": -1}}, "tasks.backfill_commits must not be negative"),
        ({"tasks": {"merged_commits": -1}}, "tasks.merged_commits must not be negative"),
        ({"embedding": {"test_max_chars": -1}}, "embedding.test_max_chars must not be negative"),
        ({"store": {"seal_over": -1}}, "store.seal_over must not be negative"),
        ({"search": {"test_weight": 0}}, "search.test_weight must be above 0 and at most 1"),
        ({"search": {"test_weight": 1.5}}, "search.test_weight must be above 0 and at most 1"),
        ({"search": {"test_weight": True}}, "search.test_weight must be of type float"),
        ({"search": {"test_weight": "0.5"}}, "search.test_weight must be of type float"),
        ({"daemon": {"restart_over_mb": -1}}, "restart_over_mb must not be negative"),
        ({"store": {"url": "not a url"}}, "store.url must be a Qdrant server's URL"),
        ({"store": {"url": "ftp://qdrant"}}, "store.url must be a Qdrant server's URL"),
        ({"store": {"url": "http://qdrant:99999"}}, "store.url must be a Qdrant server's URL"),
        ({"store": {"url": "https://:6333"}}, "store.url must be a Qdrant server's URL"),
        # a key above every [section] was "unknown section [port]", a list of numbers "must be of type list"
        ({"port": 8000}, "option port is outside any section: it goes under [daemon]"),
        ({"prot": 8000}, "unknown option prot (options go under a section: store, embedding, index,"),
        ({"index": {"exclude": ["a", 1]}}, "index.exclude must be of type list of strings, got ['a', 1]"),
    ],
)
def test_bad_config_names_the_key(raw, message):
    with pytest.raises(RecalldError, match=None) as info:
        validate(raw, source="cfg")
    assert message in info.value.message


@pytest.mark.parametrize("url", ["http://localhost:6333", "https://q.example:6333/", "localhost:6333", "qdrant"])
def test_a_qdrant_url_as_qdrant_client_reads_it_is_taken(url):
    """A host alone is read as http, as qdrant-client reads it."""
    assert validate({"store": {"url": url}}, source="cfg")["store"]["url"] == url


def test_a_whole_number_is_a_float_option():
    """TOML writes 1 as an integer: a weight of 1 is taken, and read as 1.0."""
    assert validate({"search": {"test_weight": 1}}, source="cfg")["search"]["test_weight"] == 1.0


def test_config_file_under_recalld_home(monkeypatch, tmp_path):
    monkeypatch.setenv("RECALLD_HOME", str(tmp_path))
    assert load_config().index_options().backfill_commits == 500
    assert load_config().index_options().merged_commits == 1000
    (tmp_path / "config.toml").write_text('[index]\nmax_file_bytes = 10\n[tasks]\nbackfill_commits = 0\n'
                                          'merged_commits = 5000\n')
    config = load_config()
    assert config.index_options().max_file_bytes == 10
    assert config.index_options().backfill_commits == 0 and config.index_options().merged_commits == 5000
    assert config.home == tmp_path
    (tmp_path / "config.toml").write_text("[index\n")
    with pytest.raises(RecalldError, match="not valid TOML"):
        load_config()


def test_untrusted_branches_reach_the_indexer(monkeypatch, tmp_path):
    monkeypatch.setenv("RECALLD_HOME", str(tmp_path))
    (tmp_path / "config.toml").write_text('[trust]\nuntrusted_branches = ["pr/*", "dependabot/*"]\n')
    assert load_config().index_options().untrusted_branches == ("pr/*", "dependabot/*")


@pytest.mark.parametrize("argv", [["status"], ["repo", "add", "."], ["serve"], ["search", "x"]])
def test_a_state_directory_that_is_a_file_is_a_one_line_error(argv, monkeypatch, tmp_path, capsys):
    """$RECALLD_HOME naming a file (or a path under one) failed with a traceback in the
    first command to open it: NotADirectoryError, FileExistsError."""
    from recalld.daemon.cli import main

    afile = tmp_path / "afile"
    afile.write_text("")
    under = f"the state directory $RECALLD_HOME cannot be made: {afile} is not a directory ({afile / 'sub'})"
    for home, said in ((afile, f"the state directory $RECALLD_HOME is not a directory: {afile}"),
                       (afile / "sub", under)):  # fmt: skip
        monkeypatch.setenv("RECALLD_HOME", str(home))
        assert main(argv) == 1
        assert capsys.readouterr().err == f"recalld: {said}\n"
    monkeypatch.delenv("RECALLD_HOME")
    monkeypatch.setenv("XDG_DATA_HOME", str(afile))
    with pytest.raises(RecalldError, match=r"\$XDG_DATA_HOME/recalld cannot be made: .*afile is not a directory"):
        load_config()


def test_a_state_directory_that_cannot_be_written_is_a_one_line_error(monkeypatch, tmp_path, capsys):
    """A read-only state directory (another user's, a read-only mount) failed with a
    traceback in every command: "Read-only file system", sqlite's "unable to open database
    file". As root a mode does not keep one out: /proc/sys, which the kernel keeps read-only."""
    from recalld.daemon.cli import main

    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0o555)
    if os.access(locked, os.W_OK):
        locked = Path("/proc/sys")
    if os.access(locked, os.W_OK):
        pytest.skip("no directory here that this user cannot write")
    for home, said in ((locked, f"is not writable: {locked}"), (locked / "new", f"cannot be made: {locked} is not"
                                                                                   f" writable ({locked / 'new'})")):
        monkeypatch.setenv("RECALLD_HOME", str(home))
        assert main(["status"]) == 1
        assert capsys.readouterr().err == f"recalld: the state directory $RECALLD_HOME {said}\n"


@pytest.mark.parametrize("argv", [["status"], ["search", "x"]])
def test_a_state_directory_the_system_refuses_to_make_is_a_one_line_error(argv, monkeypatch, capsys):
    """/proc and /sys pass for writable directories (``os.access``) yet no directory can
    be made in them: the first command to make the state directory failed with a traceback."""
    from recalld.daemon.cli import main

    home = Path("/proc") / "recalld-state"
    if not os.access("/proc", os.W_OK) or home.exists():
        pytest.skip("/proc is not writable to this user: the check before it says so")
    monkeypatch.setenv("RECALLD_HOME", str(home))
    assert main(argv) == 1
    said = capsys.readouterr().err
    assert said.startswith("recalld: the state directory cannot be used: ") and said.endswith(f" ({home})\n"), said


def test_a_closed_pipe_is_still_a_quiet_success(monkeypatch, tmp_path):
    """BrokenPipeError is an OSError: the state directory's clause, put before it, re-raised
    it where the command ended quietly (`recalld … | head`)."""
    from recalld.daemon import cli

    def closed(*_args: object) -> int:
        raise BrokenPipeError(32, "Broken pipe")

    monkeypatch.setenv("RECALLD_HOME", str(tmp_path))
    monkeypatch.setattr(cli, "run_command", closed)
    assert cli.main(["status"]) == 0


def test_a_configuration_variable_naming_no_file_is_said_once(monkeypatch, tmp_path, capsys):
    """``RECALLD_CONFIG`` mistyped ran on the defaults without a word."""
    import recalld.daemon.config as config

    monkeypatch.setattr(config, "_TOLD_MISSING", set())
    monkeypatch.setenv("RECALLD_CONFIG", str(tmp_path / "recald.toml"))
    assert load_config().get("daemon", "port") == SCHEMA["daemon"]["port"][1]
    load_config()
    said = capsys.readouterr().err
    missing = tmp_path / "recald.toml"
    assert said == f"recalld: warning: $RECALLD_CONFIG names no file ({missing}): the defaults are used\n"
    monkeypatch.delenv("RECALLD_CONFIG")
    monkeypatch.setenv("RECALLD_HOME", str(tmp_path))
    load_config()  # a state dir's own config.toml not made yet: the defaults, nothing said
    assert capsys.readouterr().err == ""


def test_a_configuration_path_that_is_a_directory_is_an_error(monkeypatch, tmp_path):
    """$RECALLD_CONFIG naming a directory (or config.toml made a directory) was taken for
    no configuration: every option its default, silently. None there is the defaults."""
    monkeypatch.setenv("RECALLD_CONFIG", str(tmp_path))
    with pytest.raises(RecalldError, match=f"^{tmp_path}: cannot read: Is a directory$"):
        load_config()
    monkeypatch.setenv("RECALLD_CONFIG", str(tmp_path / "none.toml"))
    assert load_config().get("daemon", "port") == 8765
    monkeypatch.setenv("RECALLD_CONFIG", "~/recalld.toml")  # ~ is the home directory, as for $RECALLD_HOME
    (Path.home() / "recalld.toml").write_text("[daemon]\nport = 9\n")
    try:
        assert load_config().get("daemon", "port") == 9
    finally:
        (Path.home() / "recalld.toml").unlink()
