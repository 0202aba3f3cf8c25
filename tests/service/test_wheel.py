"""recalld installed from its wheel, as `pip install recalld` would, not from a clone: the
packaged data a wheel must carry (the units, the hook scripts, the parsers' queries) and
a unit that names documentation the wheel has (it ships no README beside the code)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """This checkout built as a wheel and installed, without its dependencies (the test's
    environment has them), into a directory of its own."""
    work = tmp_path_factory.mktemp("wheel")
    source = work / "source"  # built from a copy: a build writes its build/ and egg-info beside the code
    listed = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True).stdout
    for name in filter(None, listed.decode().split("\0")):
        if (ROOT / name).is_file():
            (source / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, source / name)
    subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation",
                    "-w", str(work / "dist"), str(source)], check=True, capture_output=True)  # fmt: skip
    (wheel,) = (work / "dist").glob("recalld-*.whl")
    target = work / "site"
    subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--target", str(target), str(wheel)],
                   check=True, capture_output=True)  # fmt: skip
    return target


def from_wheel(target: Path, *args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """The wheel's recalld, first on the path (before this checkout's editable install)."""
    env = {**os.environ, "PYTHONPATH": str(target), "XDG_CONFIG_HOME": str(cwd / "xdg")}
    return subprocess.run([sys.executable, "-m", "recalld.daemon.cli", *args], capture_output=True, text=True,
                          env=env, cwd=cwd, check=False)  # fmt: skip


def test_the_wheel_carries_its_data_and_its_unit_names_the_readme_it_holds(installed, tmp_path):
    package = installed / "recalld"
    for data in ("systemd/recalld.service", "systemd/user/recalld.service", "parsers/queries/python.scm"):
        assert (package / data).is_file(), data
    assert list((package / "hooks" / "scripts").iterdir())
    assert not (installed / "README.md").exists() and not (package / "README.md").exists()
    done = from_wheel(installed, "service", "install", "--unit-dir", str(tmp_path / "units"), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    (documentation,) = [line.removeprefix("Documentation=file://") for line in
                        (tmp_path / "units" / "recalld.service").read_text().splitlines()
                        if line.startswith("Documentation=")]  # fmt: skip
    readme = Path(documentation)
    assert readme.is_relative_to(installed) and readme.name == "METADATA"
    # the README whole, after the metadata's headers
    assert "\n# recalld\n" in readme.read_text() and "## Run it as a daemon" in readme.read_text()
