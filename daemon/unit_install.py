"""What ``recalld service install`` fits to the installation and the place it writes to:
the system unit's ``PrivateTmp=`` where recalld lives under /tmp, the unit's
``Documentation=``, and the steps that start the unit from where it was written.
"""

from __future__ import annotations

import os
import shlex
import sys
from importlib import metadata
from pathlib import Path
from urllib.parse import quote

from recalld.daemon.terminal import one_line

# What ``PrivateTmp=yes`` gives the service a fresh, empty one of.
PRIVATE_TMP = (Path("/tmp"), Path("/var/tmp"))
# Where systemd reads units from besides the default directory the install writes to
# (systemd.unit(5), "Unit File Load Path"): the unit is started from there as it is.
SYSTEM_UNIT_DIRS = ("/etc/systemd/system", "/run/systemd/system", "/usr/local/lib/systemd/system",
                    "/usr/lib/systemd/system", "/lib/systemd/system")  # fmt: skip
USER_UNIT_DIRS = ("/etc/systemd/user", "/run/systemd/user", "/usr/local/lib/systemd/user", "/usr/lib/systemd/user")
UNIT = "recalld.service"


def default_unit_dir(*, system: bool) -> Path:
    """Where the install writes the unit without ``--unit-dir``."""
    if system:
        return Path(SYSTEM_UNIT_DIRS[0])
    return Path(os.environ.get("XDG_CONFIG_HOME") or Path.home() / ".config") / "systemd" / "user"


def private_tmp_setting(executable: str, state: Path) -> dict[str, str]:
    """``PrivateTmp=no`` where the system unit's recalld (its script, its interpreter, its
    package) or its state lies under a directory ``PrivateTmp=yes`` would hide from the
    service (it would not start, or run on another store), with a warning; else nothing."""
    package = Path(__file__).resolve().parent
    paths = (Path(executable), Path(sys.executable), Path(sys.prefix), package, state)
    hidden = next((p for p in paths if any(_under(p, tmp) for tmp in PRIVATE_TMP)), None)
    if hidden is None:
        return {}
    print(f"recalld: warning: {one_line(str(hidden))} lies under /tmp, which PrivateTmp= hides from a service: the"
          " unit leaves it out, and /tmp may be emptied at boot (install recalld and its state elsewhere to keep"
          " the service)", file=sys.stderr)  # fmt: skip
    return {"PrivateTmp": "no"}


def _under(path: Path, directory: Path) -> bool:
    """Whether ``path``, as written or resolved, lies in ``directory`` (resolved too: /tmp a link)."""
    return any(p.is_relative_to(d) for p in (path, path.resolve()) for d in (directory, directory.resolve()))


def with_documentation(unit: str) -> str:
    """``unit`` with ``Documentation=`` after its Description naming the README of this
    installation (``documentation()``), where there is one."""
    readme = documentation()
    if readme is None:
        return unit
    lines = unit.splitlines()
    at = next((i + 1 for i, line in enumerate(lines) if line.startswith("Description=")), None)
    if at is None:
        return unit
    return "\n".join([*lines[:at], f"Documentation=file://{quote(str(readme))}", *lines[at:]]) + "\n"


def documentation() -> Path | None:
    """The README of this installation: a clone's or an editable install's own; else, as a
    wheel ships no README beside the code, its installed metadata (``METADATA``), which
    holds the README whole after its headers; None when neither is there."""
    readme = Path(__file__).resolve().parents[1] / "README.md"
    if readme.is_file():
        return readme
    try:
        distribution = metadata.distribution("recalld")
    except metadata.PackageNotFoundError:
        return None
    found = [Path(str(distribution.locate_file(f))) for f in distribution.files or () if f.name == "METADATA"]
    return next((path for path in found if path.is_file() and _holds_body(path)), None)


def _holds_body(path: Path) -> bool:
    """Whether a metadata file holds a description after its headers (the README)."""
    with path.open(encoding="utf-8", errors="replace") as text:
        return any(not line.strip() for line in text) and bool(text.read().strip())


def systemd_reads(directory: Path, *, system: bool) -> bool:
    """Whether systemd (the system's, else the user's) reads units from ``directory``."""
    read_from = (default_unit_dir(system=system), *map(Path, SYSTEM_UNIT_DIRS if system else USER_UNIT_DIRS))
    return any(_same_dir(directory, d) for d in read_from)


def next_steps(target: Path, *, system: bool) -> list[str]:
    """The commands that start the unit written at ``target``: enabled by name where systemd
    reads units from its directory, else linked there first (``systemctl link``, which takes
    an absolute path: ``--unit-dir units`` printed ``link units/recalld.service``), the path
    one shell word."""
    flag = "" if system else " --user"
    linked = f"link {shlex.quote(one_line(str(target.absolute())))}"
    first = "daemon-reload" if systemd_reads(target.parent, system=system) else linked
    return [f"  systemctl{flag} {first}", f"  systemctl{flag} enable --now {UNIT}",
            f"  systemctl{flag} status {UNIT}   # and: journalctl{flag} -u {UNIT}"]  # fmt: skip


def _same_dir(a: Path, b: Path) -> bool:
    try:
        return a.resolve() == b.resolve()
    except OSError:
        return False
