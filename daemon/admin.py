"""Running recalld as a service: serve, notify (from git hooks), hooks, service install."""

from __future__ import annotations

import argparse
import grp
import os
import pwd
import stat
import shlex
import sys
from pathlib import Path
from typing import Any

from recalld.daemon.terminal import one_line
from recalld.ingest.errors import RecalldError

EXIT_OK, EXIT_FAILED = 0, 1


def nonblank(text: str) -> str:
    """An argument that is not blank: a query, an as-of, a path. A path given empty was the
    current directory (``repo add "$DIR"`` with DIR unset registered the repository it ran
    in; ``repo set NAME --path ""`` re-pointed NAME to it), where a query given empty is
    refused."""
    if not text.strip():
        raise argparse.ArgumentTypeError("must not be empty")
    return text


def add_commands(sub: Any) -> None:
    serve = sub.add_parser(
        "serve",
        help="run the daemon: watch, listen for hooks and webhooks, keep every repo exact",
        description="Run in the foreground (systemd: Type=notify). SIGTERM, SIGINT or SIGHUP stops it gracefully.",
    )
    serve.set_defaults(handler=run_serve)

    notify = sub.add_parser("notify", help="tell the daemon a repository changed (used by the git hooks)")
    notify.add_argument("--hook", default="manual", help="which hook fired")
    notify.add_argument("--path", default=".", type=nonblank, help="a path inside the repository (default: here)")
    notify.set_defaults(handler=run_notify)

    hooks = sub.add_parser("hooks", help="install or remove recalld's git hooks")
    hooks_sub = hooks.add_subparsers(dest="hooks_command", metavar="ACTION", required=True)
    for action, text in (("install", "install post-commit/merge/checkout/rewrite and post-receive hooks"),
                         ("uninstall", "remove them, restoring hooks that were there before")):  # fmt: skip
        cmd = hooks_sub.add_parser(action, help=text)
        target = cmd.add_mutually_exclusive_group()
        target.add_argument("path", nargs="?", type=nonblank, help="a repository (default: the one here)")
        target.add_argument("--all", action="store_true", help="every registered repository")
        cmd.set_defaults(handler=run_hooks, action=action)

    service = sub.add_parser("service", help="install a systemd unit for `recalld serve`")
    service_sub = service.add_subparsers(dest="service_command", metavar="ACTION", required=True)
    install = service_sub.add_parser(
        "install", help="write the unit file and print the systemctl commands",
        description="Write a systemd unit running `recalld serve` with this installation's recalld. A user unit"
        " keeps the location variables of this shell (RECALLD_HOME, RECALLD_CONFIG, XDG_DATA_HOME, XDG_CONFIG_HOME),"
        " so the service, your commands and the git hooks share one store. A system unit (as root: sudo recalld"
        " service install --system) starts at boot without the user's own systemd instance: it runs as one user"
        " (--as NAME, else the one sudo ran for) on that user's store, kept with the same variables, its home"
        " and the rest of the system read-only to it but for that store.",
    )  # fmt: skip
    scope = install.add_mutually_exclusive_group()
    scope.add_argument("--user", action="store_true", default=True, help="a user unit (default)")
    scope.add_argument("--system", action="store_true", help="a system unit (needs root)")
    install.add_argument("--as", dest="as_user", metavar="NAME", help="with --system: the user it runs as"
                         " (default: the one sudo ran for)")  # fmt: skip
    install.add_argument("--unit-dir", help="write the unit here instead of the systemd default")
    install.set_defaults(handler=run_service_install)


def run_serve(ctx: Any, _args: argparse.Namespace) -> int:
    from recalld.daemon.service import Service

    if ctx.daemon() is not None:
        raise RecalldError(f"a daemon already serves {ctx.config.home}")
    service = Service(ctx.config)
    code = service.run()
    if service.restart_env is not None and not service.terminated:  # a SIGTERM meanwhile: stop, not restart
        from recalld.daemon.restart import exec_self

        exec_self(service.restart_env, started=service.started_at, restarts=service.restarts)
    return code


def run_notify(ctx: Any, args: argparse.Namespace) -> int:
    """Append an event for every registered repo at that path; the daemon picks it up.

    Works with the daemon down (the journal is durable) and never talks to it, so a hung
    daemon cannot slow a hook."""
    from recalld.daemon.journal import Event, Journal

    if not ctx.config.state_db.exists():  # a removed state dir's hooks: not made again, empty
        raise RecalldError(f"no registered repository at {args.path} (no state in {ctx.config.home})")
    names = registered_at(ctx, args.path)
    if not names:
        raise RecalldError(f"no registered repository at {args.path}")
    journal = Journal(ctx.config.journal_db)
    try:
        for name in names:
            journal.append(Event(name, "hook", {"hook": args.hook}))
    finally:
        journal.close()
    return EXIT_OK


def registered_at(ctx: Any, path: str) -> list[str]:
    """The registered repositories that share the git repository at ``path`` (the same
    common dir: a linked worktree is its repository), read without the app: a hook waits
    on this."""
    from recalld.ingest.gitrepo import GitRepository

    here = Path(GitRepository(path).common_dir).resolve()
    names = []
    for entry in ctx.registry.all():
        try:
            same = Path(GitRepository(entry.path).common_dir).resolve() == here
        except RecalldError:
            continue
        if same:
            names.append(entry.name)
    return names


def run_hooks(ctx: Any, args: argparse.Namespace) -> int:
    """A path's hooks, or every registered repository's: one that cannot be reached (moved,
    deleted) is said on stderr and the others are done, as `recalld sync` does."""
    if not args.all:
        path = os.path.abspath(args.path or ".")  # named as the directory it is, not "."
        if not os.path.exists(path):
            raise RecalldError(f"{path} does not exist")
        _hooks(args.action, path)
        if args.action == "install" and not _registered(ctx, path):  # its hooks' notify would fail unseen
            print(f"recalld: warning: {one_line(path)} is not a registered repository: its hooks tell the daemon"
                  f" nothing until `recalld repo add {one_line(shlex.quote(path))}`", file=sys.stderr)  # fmt: skip
        return EXIT_OK
    entries = ctx.registry.all()
    if not entries:
        raise RecalldError("no repositories registered")
    failed = 0
    for entry in entries:
        try:
            _hooks(args.action, entry.path)
        except RecalldError as exc:
            failed += 1
            print(f"recalld: {one_line(entry.name)}: {one_line(exc.message)}", file=sys.stderr)
    return EXIT_FAILED if failed else EXIT_OK


def _registered(ctx: Any, path: str) -> bool:
    try:
        return bool(registered_at(ctx, path))
    except RecalldError:  # git found the repository; pygit2 could not open it
        return False


def _hooks(action: str, path: str) -> None:
    from recalld.hooks.install import install, tracked_dir, uninstall

    try:
        changes = install(path) if action == "install" else uninstall(path)
    except OSError as exc:  # a hooks directory not writable: said like the others, not a traceback
        raise RecalldError(f"cannot {action} the hooks of {path}: {exc.strerror}: {exc.filename}") from exc
    for change in changes:
        print(f"{change.action:12} {one_line(str(change.hook))}")
    if not changes:
        print(f"nothing to {action} in {one_line(path)}")
    tracked = tracked_dir(path, changes[0].hook.parent) if action == "install" and changes else None
    if tracked is not None:  # Husky's: the hooks are the repository's files, run by its dispatcher
        print(f"recalld: warning: {one_line(str(tracked))} lies in the work tree (core.hooksPath): the hooks written"
              " there are files of the repository that name this machine's paths (do not commit them), and a"
              " dispatcher that runs a hook by its file name (Husky's) no longer finds the one kept as <name>.legacy;"
              " there, `recalld hooks uninstall` and call `recalld notify --hook NAME` from your own hooks",
              file=sys.stderr)  # fmt: skip


def run_service_install(ctx: Any, args: argparse.Namespace) -> int:
    from importlib import resources

    from recalld.daemon.config import config_file, locations, state_home
    from recalld.daemon.unit_install import (UNIT, default_unit_dir, next_steps, private_tmp_setting, systemd_reads,
                                             with_documentation)
    from recalld.hooks.install import recalld_executable

    system = bool(args.system)
    if args.as_user and not system:
        raise RecalldError("--as NAME is for a system unit (--system); a user unit runs as you", exit_code=2)
    units = resources.files("recalld.systemd")
    template = (units / "recalld.service" if system else units / "user" / "recalld.service").read_text("utf-8")
    environment = locations(os.environ)
    settings: dict[str, str] = {}
    if system:
        user = _service_user(args.as_user)
        state = state_home(environment, Path(user.pw_dir))
        _make_state_dir(state, user)
        _warn_unreachable(recalld_executable(), user)
        settings = {"User": _quoted(user.pw_name), "ReadWritePaths": _quoted(str(state)),
                    **private_tmp_setting(recalld_executable(), state)}
        same = f"{user.pw_name}'s recalld commands{_given(environment)}"
        where = f"runs as {user.pw_name}; state: {state} (the same as {same})"
    else:
        where = f"state: {state_home()}, config: {config_file()} (the same as this shell's recalld commands)"
    unit = with_documentation(render_unit(template, executable=recalld_executable(), environment=environment,
                                          settings=settings))  # fmt: skip
    directory = Path(args.unit_dir) if args.unit_dir else default_unit_dir(system=system)
    target = directory / UNIT
    try:
        directory.mkdir(parents=True, exist_ok=True)
        target.write_text(unit)
    except OSError as exc:  # a file in the way, a directory not writable: said like the hooks', not a traceback
        raise RecalldError(f"cannot install the unit in {directory}: {exc.strerror}: {exc.filename or target}") from exc
    unread = "" if systemd_reads(directory, system=system) else f" (systemd reads no units from {directory}: link it)"
    print(f"wrote {target}{unread}\n{where}\nnow run:")
    print("\n".join(next_steps(target, system=system)))
    return EXIT_OK


def _service_user(name: str | None) -> pwd.struct_passwd:
    """The account a system unit runs as: ``name``, else the one sudo ran for; root only
    when named."""
    chosen = name or os.environ.get("SUDO_USER", "")
    if not chosen or (chosen == "root" and not name):
        raise RecalldError("say which user the system unit runs as: --as NAME (it runs recalld on that user's"
                           " store; under sudo, the user sudo ran for)", exit_code=2)  # fmt: skip
    try:
        return pwd.getpwnam(chosen)
    except KeyError:
        raise RecalldError(f"no user {chosen!r} on this system (--as)", exit_code=2) from None


def _make_state_dir(state: Path, user: pwd.struct_passwd) -> None:
    """The state directory made where it is missing (each new directory the user's, 0700
    for the last), since the unit may write nowhere else and its start needs it there."""
    home = Path(user.pw_dir)
    if state.is_relative_to(home) and not home.is_dir():
        raise RecalldError(f"{user.pw_name}'s home {home} is no directory: say where its state is to be kept"
                           " (RECALLD_HOME=DIR before the command)")  # fmt: skip
    missing = [d for d in (state, *state.parents) if not d.exists()]
    try:
        for directory in reversed(missing):
            directory.mkdir(mode=0o700 if directory == state else 0o755)
            if os.geteuid() == 0:
                os.chown(directory, user.pw_uid, user.pw_gid)
    except OSError as exc:
        raise RecalldError(f"cannot make the state directory {state}: {exc.strerror}: {exc.filename}") from exc


def _warn_unreachable(executable: str, user: pwd.struct_passwd) -> None:
    """A warning where ``user`` may not reach ``executable`` (a virtualenv in root's or
    another user's 0700 home): by the permission bits of each directory on its way, as
    its owner, its group or another (ACLs unread)."""
    groups = {user.pw_gid, *(g.gr_gid for g in grp.getgrall() if user.pw_name in g.gr_mem)}
    for directory in Path(executable).parents:
        try:
            info = directory.stat()
        except OSError:
            continue
        if info.st_uid == user.pw_uid:
            bit = stat.S_IXUSR
        else:
            bit = stat.S_IXGRP if info.st_gid in groups else stat.S_IXOTH
        if not info.st_mode & bit:
            print(f"recalld: warning: {user.pw_name} cannot enter {one_line(str(directory))}, so the unit cannot run"
                  f" {one_line(executable)}: install recalld where {user.pw_name} can run it (in a virtualenv of"
                  " theirs, say)", file=sys.stderr)  # fmt: skip
            return


def _given(environment: dict[str, str]) -> str:
    return f", with {', '.join(environment)} as this shell sets them" if environment else ""


def render_unit(
    template: str, *, executable: str, environment: dict[str, str], settings: dict[str, str] | None = None
) -> str:
    """The template with ``executable`` in ExecStart, each of ``settings`` (values written
    as systemd reads them) replacing the line that sets it, and ``environment`` set in
    [Service] (each variable once: a variable the template sets is replaced, not repeated)."""
    settings = {**(settings or {}), "ExecStart": f"{_quoted(executable)} serve"}
    lines = []
    for line in template.splitlines():
        key = line.split("=", 1)[0]
        if "=" in line and key in settings:
            line = f"{key}={settings[key]}"
        elif line.startswith("Environment=") and line[12:].split("=", 1)[0] in environment:
            continue
        lines.append(line)
        if line == "[Service]":
            lines += [f"Environment={_quoted(f'{name}={value}')}" for name, value in environment.items()]
    return "\n".join(lines) + "\n"


def _quoted(word: str) -> str:
    """One word of a unit file (an Environment= assignment, ExecStart='s program, which
    systemd takes as it is, ``$`` too): a specifier's percent sign doubled, the word quoted
    when it holds a space, a quote (``'`` too: unquoted, ``it's`` was invalid syntax and the
    service ran on another store) or a backslash."""
    escaped = word.replace("%", "%%")
    if not any(c in word for c in " \"'\\"):
        return escaped
    escaped = escaped.replace("\\", "\\\\").replace('"', '\\"')
    return f'"{escaped}"'
