"""Running recalld as a service: serve, notify (from git hooks), hooks, service install."""

from __future__ import annotations

import argparse
import os
import shlex
import sys
from pathlib import Path
from typing import Any

from recalld.daemon.terminal import one_line
from recalld.ingest.errors import RecalldError

EXIT_OK, EXIT_FAILED = 0, 1


def add_commands(sub: Any) -> None:
    serve = sub.add_parser(
        "serve",
        help="run the daemon: watch, listen for hooks and webhooks, keep every repo exact",
        description="Run in the foreground (systemd: Type=notify). SIGTERM, SIGINT or SIGHUP stops it gracefully.",
    )
    serve.set_defaults(handler=run_serve)

    notify = sub.add_parser("notify", help="tell the daemon a repository changed (used by the git hooks)")
    notify.add_argument("--hook", default="manual", help="which hook fired")
    notify.add_argument("--path", default=".", help="a path inside the repository (default: here)")
    notify.set_defaults(handler=run_notify)

    hooks = sub.add_parser("hooks", help="install or remove recalld's git hooks")
    hooks_sub = hooks.add_subparsers(dest="hooks_command", metavar="ACTION", required=True)
    for action, text in (("install", "install post-commit/merge/checkout/rewrite and post-receive hooks"),
                         ("uninstall", "remove them, restoring hooks that were there before")):  # fmt: skip
        cmd = hooks_sub.add_parser(action, help=text)
        target = cmd.add_mutually_exclusive_group()
        target.add_argument("path", nargs="?", help="a repository (default: the one here)")
        target.add_argument("--all", action="store_true", help="every registered repository")
        cmd.set_defaults(handler=run_hooks, action=action)

    service = sub.add_parser("service", help="install a systemd unit for `recalld serve`")
    service_sub = service.add_subparsers(dest="service_command", metavar="ACTION", required=True)
    install = service_sub.add_parser(
        "install", help="write the unit file and print the systemctl commands",
        description="Write a systemd unit running `recalld serve` with this installation's recalld. A user unit"
        " keeps the location variables of this shell (RECALLD_HOME, RECALLD_CONFIG, XDG_DATA_HOME, XDG_CONFIG_HOME),"
        " so the service, your commands and the git hooks share one store. A system unit runs as a dynamic user"
        " with its state in /var/lib/recalld.",
    )  # fmt: skip
    scope = install.add_mutually_exclusive_group()
    scope.add_argument("--user", action="store_true", default=True, help="a user unit (default)")
    scope.add_argument("--system", action="store_true", help="a system unit (needs root)")
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
        path = args.path or "."
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
    from recalld.hooks.install import recalld_executable

    system = bool(args.system)
    units = resources.files("recalld.systemd")
    template = (units / "recalld.service" if system else units / "user" / "recalld.service").read_text("utf-8")
    if system:
        unit = render_unit(template, executable=recalld_executable(), environment={})
        where = "state: /var/lib/recalld (the unit's StateDirectory; RECALLD_HOME of this shell is not used)"
    else:
        unit = render_unit(template, executable=recalld_executable(), environment=locations(os.environ))
        where = f"state: {state_home()}, config: {config_file()} (the same as this shell's recalld commands)"
    if args.unit_dir:
        directory = Path(args.unit_dir)
    elif system:
        directory = Path("/etc/systemd/system")
    else:
        directory = Path(os.environ.get("XDG_CONFIG_HOME") or Path.home() / ".config") / "systemd" / "user"
    target = directory / "recalld.service"
    try:
        directory.mkdir(parents=True, exist_ok=True)
        target.write_text(unit)
    except OSError as exc:  # a file in the way, a directory not writable: said like the hooks', not a traceback
        raise RecalldError(f"cannot install the unit in {directory}: {exc.strerror}: {exc.filename or target}") from exc
    flag = "" if system else " --user"
    print(f"wrote {target}\n{where}\nnow run:")
    print(f"  systemctl{flag} daemon-reload\n  systemctl{flag} enable --now recalld.service")
    print(f"  systemctl{flag} status recalld.service   # and: journalctl{flag} -u recalld.service", file=sys.stdout)
    return EXIT_OK


def render_unit(template: str, *, executable: str, environment: dict[str, str]) -> str:
    """The template with ``executable`` in ExecStart and ``environment`` set in [Service]
    (each variable once: a variable the template sets is replaced, not repeated)."""
    lines = []
    for line in template.splitlines():
        if line.startswith("ExecStart="):
            line = f"ExecStart={_quoted(executable)} serve"
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
