"""The systemd units: hardened (systemd-analyze's exposure score) and installed with the
right ExecStart by `recalld service install`."""

from __future__ import annotations

import os
import pwd
import re
import shutil
import stat
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.service.conftest import recalld

ROOT = Path(__file__).resolve().parents[2]
MAX_EXPOSURE = 2.5


def exposure(unit: Path) -> float:
    done = subprocess.run(
        ["systemd-analyze", "security", "--offline=yes", str(unit)], capture_output=True, text=True, check=False
    )
    found = re.search(r"Overall exposure level for \S+: ([0-9.]+)", done.stdout + done.stderr)
    assert found, done.stdout + done.stderr
    return float(found.group(1))


needs_analyze = pytest.mark.skipif(shutil.which("systemd-analyze") is None, reason="systemd-analyze not installed")


@needs_analyze
def test_system_unit_is_hardened():
    assert exposure(ROOT / "systemd" / "recalld.service") <= MAX_EXPOSURE


def _other_user() -> pwd.struct_passwd:
    """An account of this system but root and nobody, for a system unit to run as."""
    found = next((u for u in pwd.getpwall() if u.pw_uid not in (0, 65534)), None)
    if found is None:
        pytest.skip("no account but root and nobody")
    return found


@pytest.fixture
def under_tmp() -> Iterator[Path]:
    """A directory under /tmp itself: pytest's may be elsewhere (tests/conftest.py puts
    them on a memory filesystem where there is one)."""
    with tempfile.TemporaryDirectory(dir="/tmp") as top:
        yield Path(top)


@needs_analyze
def test_installed_system_unit_runs_as_one_user_on_their_store(tmp_path, under_tmp):
    """As a dynamic user (before), the unit reached neither a virtualenv in a 0700 home nor
    a repository libgit2 would open (another user's), and nothing registered one in its
    /var/lib/recalld: now it runs as the user sudo ran for, on that user's store, made for
    it, and keeps the hardening with that store the one place it may write."""
    user = _other_user()
    state = under_tmp / "their state" / "recalld"
    env = {"SUDO_USER": user.pw_name, "RECALLD_HOME": str(state)}
    done = recalld("service", "install", "--system", "--unit-dir", str(tmp_path), env=env)
    unit = tmp_path / "recalld.service"
    assert f"wrote {unit} (systemd reads no units from {tmp_path}: link it)" in done.stdout
    assert f"  systemctl link {unit}\n  systemctl enable --now recalld.service\n" in done.stdout
    # the state made under /tmp, which PrivateTmp= would hide from the service
    assert "\nPrivateTmp=no\n" in unit.read_text() and "which PrivateTmp= hides from a service" in done.stderr
    assert f"runs as {user.pw_name}; state: {state} (the same as {user.pw_name}'s recalld commands" in done.stdout
    text = unit.read_text()
    exec_start = next(line for line in text.splitlines() if line.startswith("ExecStart="))
    assert exec_start.endswith("/recalld serve") and Path(exec_start[10:].split()[0]).exists()
    assert "Type=notify" in text and "WatchdogSec=" in text and "Restart=on-failure" in text
    assert f"\nUser={user.pw_name}\n" in text and f'\nReadWritePaths="{state}"\n' in text
    assert "ProtectHome=read-only" in text and "DynamicUser" not in text and "StateDirectory" not in text
    assert _environment(text) == [f'"RECALLD_HOME={state}"']
    assert stat.S_IMODE(state.stat().st_mode) == 0o700
    if os.geteuid() == 0:  # as sudo runs it: the directories made are the user's
        assert {state.stat().st_uid, state.parent.stat().st_uid} == {user.pw_uid}
    verify = subprocess.run(["systemd-analyze", "verify", str(unit)], capture_output=True, text=True, check=False)
    assert verify.returncode == 0, verify.stderr
    assert exposure(unit) <= MAX_EXPOSURE
    recalld("service", "install", "--system", "--as", "root", "--unit-dir", str(tmp_path), env=env)
    assert "\nUser=root\n" in unit.read_text()  # named: root too


def test_a_system_unit_says_which_user_it_is_for(tmp_path):
    """No user named and none sudo ran for (or root), a user that is not there, --as for a
    user unit, a home that is not there: one line on stderr each, and no unit."""
    state = str(tmp_path / "state")
    refused = [
        ([], {"SUDO_USER": ""}, 2, "say which user the system unit runs as: --as NAME"),
        ([], {"SUDO_USER": "root"}, 2, "say which user the system unit runs as: --as NAME"),
        (["--as", "no-such-user-here"], {}, 2, "no user 'no-such-user-here' on this system (--as)"),
    ]
    homeless = next((u for u in pwd.getpwall() if not Path(u.pw_dir).is_dir()), None)  # nobody's /nonexistent
    if homeless is not None:
        unset = {"RECALLD_HOME": "", "XDG_DATA_HOME": ""}
        refused.append((["--as", homeless.pw_name], unset, 1, f"{homeless.pw_name}'s home {homeless.pw_dir} is no"))
    for args, env, code, said in refused:
        done = recalld("service", "install", "--system", *args, "--unit-dir", str(tmp_path), check=False,
                       env={"RECALLD_HOME": state, **env})  # fmt: skip
        assert (done.returncode, done.stdout) == (code, ""), done.stderr
        assert done.stderr.startswith(f"recalld: {said}") and done.stderr.count("\n") == 1
    done = recalld("service", "install", "--as", "nobody", "--unit-dir", str(tmp_path), check=False)
    assert done.returncode == 2 and "--as NAME is for a system unit (--system)" in done.stderr
    assert not (tmp_path / "recalld.service").exists()


def test_a_user_who_cannot_reach_recalld_is_warned_of(capsys):
    """recalld in a virtualenv in root's (or another user's) 0700 home: the unit would fail
    at each start with 203/EXEC; the install says so."""
    from recalld.daemon.admin import _warn_unreachable

    user = _other_user()
    with tempfile.TemporaryDirectory(dir="/tmp") as top:  # not under pytest's directories, each 0700
        Path(top).chmod(0o755)
        shut = Path(top) / "home"
        (shut / "venv" / "bin").mkdir(parents=True)
        executable = shut / "venv" / "bin" / "recalld"
        executable.write_text("#!/bin/sh\n")
        executable.chmod(0o755)
        shut.chmod(0o700)
        _warn_unreachable(str(executable), user)
        said = capsys.readouterr().err
        assert f"warning: {user.pw_name} cannot enter {shut}, so the unit cannot run {executable}" in said
        shut.chmod(0o755)
        _warn_unreachable(str(executable), user)
        assert capsys.readouterr().err == ""


def _environment(unit_text: str) -> list[str]:
    return [line[len("Environment=") :] for line in unit_text.splitlines() if line.startswith("Environment=")]


def test_user_unit_runs_the_daemon_where_the_users_commands_look(tmp_path):
    home = tmp_path / "state dir"  # a space: the assignment is quoted
    env = {"RECALLD_HOME": str(home), "XDG_CONFIG_HOME": str(tmp_path / "xdg")}
    done = recalld("service", "install", "--user", env=env)  # where the user's systemd reads units
    unit = tmp_path / "xdg" / "systemd" / "user" / "recalld.service"
    assert done.stdout.startswith(f"wrote {unit}\n")
    assert "systemctl --user daemon-reload\n  systemctl --user enable --now recalld.service" in done.stdout
    assert f"state: {home}," in done.stdout
    text = unit.read_text()
    assert "Type=notify" in text and "serve" in text
    environment = _environment(text)
    assert f'"RECALLD_HOME={home}"' in environment and f"XDG_CONFIG_HOME={tmp_path / 'xdg'}" in environment
    assert sum(e.strip('"').startswith("RECALLD_HOME=") for e in environment) == 1  # not the template's too


def test_user_unit_without_locations_uses_the_clis_defaults(tmp_path):
    """No location variable in the installing shell: the unit sets none, so the daemon
    computes the same default home (~/.local/share/recalld) as the CLI and the hooks."""
    env = {name: "" for name in ("RECALLD_HOME", "RECALLD_CONFIG", "XDG_DATA_HOME", "XDG_CONFIG_HOME")}
    done = recalld("service", "install", "--user", "--unit-dir", str(tmp_path), env=env)
    assert f"state: {Path.home() / '.local' / 'share' / 'recalld'}," in done.stdout
    assert _environment((tmp_path / "recalld.service").read_text()) == []


def test_a_unit_dir_that_cannot_hold_the_unit_is_said_on_one_line(tmp_path):
    """A file where the directory would be, a file above it, a parent that cannot be made,
    a directory where the unit would be: one line on stderr and exit 1, as `recalld hooks
    install` says the same of a hooks directory (each was a traceback)."""
    a_file = tmp_path / "a-file"
    a_file.write_text("")
    taken = tmp_path / "taken"
    (taken / "recalld.service").mkdir(parents=True)
    for unit_dir, why, named in ((a_file, "File exists", a_file), (a_file / "sub", "Not a directory", a_file / "sub"),
                                 (Path("/proc/nope"), "No such file or directory", Path("/proc/nope")),
                                 (taken, "Is a directory", taken / "recalld.service")):  # fmt: skip
        done = recalld("service", "install", "--unit-dir", str(unit_dir), check=False)
        assert done.returncode == 1 and done.stdout == "", done.stderr
        assert done.stderr == f"recalld: cannot install the unit in {unit_dir}: {why}: {named}\n"


def test_render_unit_replaces_a_variable_the_template_sets():
    from recalld.daemon.admin import render_unit

    template = "[Unit]\n[Service]\nExecStart=x serve\nEnvironment=RECALLD_HOME=%S/recalld\nEnvironment=KEEP=1\n"
    text = render_unit(template, executable="/opt/r/bin/recalld", environment={"RECALLD_HOME": "/srv/100%"})
    assert _environment(text) == ["RECALLD_HOME=/srv/100%%", "KEEP=1"]
    assert "ExecStart=/opt/r/bin/recalld serve" in text


def test_an_executable_path_with_a_space_stays_one_word(tmp_path):
    """A virtualenv under a directory with a space or a percent sign: systemd would
    otherwise split the path or expand a specifier (a dollar stays as it is there)."""
    from recalld.daemon.admin import render_unit

    executable = tmp_path / "my tools $HOME 100%" / "recalld"
    executable.parent.mkdir()
    executable.write_text("#!/bin/sh\n")
    executable.chmod(0o755)
    template = (ROOT / "systemd" / "user" / "recalld.service").read_text()
    text = render_unit(template, executable=str(executable), environment={})
    escaped = str(executable).replace("%", "%%")
    assert f'ExecStart="{escaped}" serve' in text
    if shutil.which("systemd-analyze"):  # it reports a program it cannot find or run
        unit = tmp_path / "recalld.service"
        unit.write_text(text)
        verify = subprocess.run(["systemd-analyze", "verify", str(unit)], capture_output=True, text=True, check=False)
        assert "is not executable" not in verify.stderr, verify.stderr


def test_a_state_dir_with_a_single_quote_is_one_quoted_word(tmp_path):
    """``Environment=RECALLD_HOME=/srv/it's`` unquoted is invalid syntax to systemd, which
    ignored the line: the service ran on another store than the CLI's and the hooks'."""
    from recalld.daemon.admin import render_unit

    template = (ROOT / "systemd" / "user" / "recalld.service").read_text()
    text = render_unit(template, executable="/usr/bin/recalld", environment={"RECALLD_HOME": "/srv/it's"})
    assert """\nEnvironment="RECALLD_HOME=/srv/it's"\n""" in text


def test_long_work_before_ready_extends_the_start_timeout(tmp_path, monkeypatch):
    import socket

    from recalld.daemon import progress

    path = tmp_path / "notify.sock"
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(str(path))
    sock.settimeout(5)
    monkeypatch.setenv("NOTIFY_SOCKET", str(path))
    monkeypatch.setattr(progress, "PING_EVERY", 0.0)
    try:
        sink = progress.StartupProgress()
        sink.begin("re-embedding", 3000)
        sink.advance(1024)
        sink.end()
        messages = [sock.recv(4096).decode() for _ in range(2)]
    finally:
        sock.close()
    assert all("EXTEND_TIMEOUT_USEC=120000000" in m for m in messages)
    assert "STATUS=re-embedding: 0/3000" in messages[0] and "STATUS=re-embedding: 1024/3000" in messages[1]
    assert "WATCHDOG=1" not in messages[0]  # no watchdog asked for


def test_a_unit_written_where_systemd_reads_none_is_linked_from_there(tmp_path):
    """`--unit-dir DIR` printed `systemctl --user daemon-reload` and `enable --now
    recalld.service`, which find no unit there: the steps link it from DIR first."""
    unit_dir = tmp_path / "units"
    done = recalld("service", "install", "--unit-dir", str(unit_dir), env={"XDG_CONFIG_HOME": str(tmp_path / "xdg")})
    unit = unit_dir / "recalld.service"
    assert done.stdout.startswith(f"wrote {unit} (systemd reads no units from {unit_dir}: link it)\n")
    assert done.stdout.endswith(f"now run:\n  systemctl --user link {unit}\n  systemctl --user enable --now"
                                " recalld.service\n  systemctl --user status recalld.service   # and: journalctl"
                                " --user -u recalld.service\n")  # fmt: skip


def test_the_units_documentation_is_this_installations_readme(tmp_path):
    """Both units named https://pypi.org/project/recalld/, a page this project does not
    publish: an installed unit names the README of the installation, where it has one."""
    for template in (ROOT / "systemd" / "recalld.service", ROOT / "systemd" / "user" / "recalld.service"):
        assert "Documentation=" not in template.read_text()
    recalld("service", "install", "--unit-dir", str(tmp_path))
    (documentation,) = [line for line in (tmp_path / "recalld.service").read_text().splitlines()
                        if line.startswith("Documentation=")]  # fmt: skip
    assert documentation == f"Documentation=file://{ROOT / 'README.md'}" and (ROOT / "README.md").is_file()


def test_a_system_unit_of_an_installation_or_state_under_tmp_leaves_private_tmp_out(tmp_path, monkeypatch, capsys):
    """PrivateTmp=yes gives the service a /tmp of its own, where an installation or a
    state directory under /tmp is not: the unit leaves it out, and says so."""
    from recalld.daemon import unit_install

    monkeypatch.setattr(unit_install, "PRIVATE_TMP", (tmp_path / "tmp",))
    elsewhere = tmp_path / "srv" / "recalld"
    assert unit_install.private_tmp_setting(str(tmp_path / "venv" / "bin" / "recalld"), elsewhere) == {}
    assert capsys.readouterr().err == ""
    for executable, state in ((tmp_path / "tmp" / "venv" / "bin" / "recalld", elsewhere),
                              (tmp_path / "venv" / "bin" / "recalld", tmp_path / "tmp" / "state")):  # fmt: skip
        assert unit_install.private_tmp_setting(str(executable), state) == {"PrivateTmp": "no"}
        warned = capsys.readouterr().err
        assert warned.startswith("recalld: warning: ") and "which PrivateTmp= hides from a service" in warned


def test_a_relative_unit_dir_is_linked_by_its_absolute_path(tmp_path):
    """`systemctl link` takes an absolute path: `--unit-dir units` printed `systemctl --user
    link units/recalld.service`. A path with a space is one word of the shell too."""
    (tmp_path / "my units").mkdir()
    done = recalld("service", "install", "--unit-dir", "my units/here", cwd=tmp_path,
                   env={"XDG_CONFIG_HOME": str(tmp_path / "xdg")})  # fmt: skip
    unit = tmp_path / "my units" / "here" / "recalld.service"
    assert unit.is_file()
    assert f"\n  systemctl --user link '{unit}'\n" in done.stdout
