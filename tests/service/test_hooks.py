"""Git hooks: installed beside foreign hooks, never failing or slowing git, events kept
while the daemon is down."""

from __future__ import annotations

import json
import os
import socket
import stat
import subprocess
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from recalld.daemon.config import load_config
from recalld.daemon.journal import Journal
from recalld.hooks.install import HOOK_NAMES, MARKER, hooks_dir, install, uninstall
from recalld.ingest.errors import RecalldError
from tests.service.conftest import recalld


def write_hook(path: Path, body: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(body)
    path.chmod(path.stat().st_mode | stat.S_IXUSR)


def pending_events() -> dict[str, int]:
    journal = Journal(load_config().journal_db)
    try:
        return journal.depth()
    finally:
        journal.close()


def told_during(action: Callable[[], object]) -> int:
    """The notifications for "repo" that came after ``action``: counted until none has
    come for 3 s (the hooks tell in the background)."""
    before = pending_events().get("repo", 0)
    action()
    told, quiet_since = before, time.monotonic()
    while time.monotonic() - quiet_since < 3:
        now = pending_events().get("repo", 0)
        told, quiet_since = (now, time.monotonic()) if now != told else (told, quiet_since)
        time.sleep(0.1)
    return told - before


def test_install_keeps_foreign_hook_and_uninstall_restores_it(git_repo):
    hooks = hooks_dir(git_repo.path)
    foreign = "#!/bin/sh\necho foreign-ran >> \"$(git rev-parse --git-dir)/foreign.log\"\nexit 3\n"
    write_hook(hooks / "post-commit", foreign)
    changes = {c.hook.name: c.action for c in install(git_repo.path)}
    assert changes == {"post-commit": "kept-legacy", "post-merge": "installed", "post-checkout": "installed",
                       "post-rewrite": "installed", "post-receive": "installed"}  # fmt: skip
    assert (hooks / "post-commit.legacy").read_text() == foreign
    assert all(MARKER in (hooks / n).read_text() for n in HOOK_NAMES)
    assert {c.action for c in install(git_repo.path)} == {"updated"}  # idempotent

    git_repo.write("a.py", "x = 1\n")
    git_repo.git("add", "-A")
    done = subprocess.run(["git", "commit", "-qm", "c"], cwd=git_repo.path, capture_output=True, text=True)
    assert done.returncode == 0  # a post-commit hook's status never fails the commit
    assert "foreign-ran" in (git_repo.path / ".git" / "foreign.log").read_text()

    restored = {c.hook.name: c.action for c in uninstall(git_repo.path)}
    assert restored["post-commit"] == "restored" and restored["post-merge"] == "removed"
    assert (hooks / "post-commit").read_text() == foreign and not (hooks / "post-commit.legacy").exists()
    assert not (hooks / "post-merge").exists()


def test_legacy_hook_gets_arguments_stdin_and_its_status_is_kept(git_repo):
    hooks = hooks_dir(git_repo.path)
    write_hook(hooks / "post-rewrite", "#!/bin/sh\necho \"$1\" > args.log\ncat > stdin.log\nexit 5\n")
    install(git_repo.path)
    done = subprocess.run([str(hooks / "post-rewrite"), "amend"], cwd=git_repo.path, input="old new\n",
                          capture_output=True, text=True)  # fmt: skip
    assert done.returncode == 5
    assert (git_repo.path / "args.log").read_text() == "amend\n"
    assert (git_repo.path / "stdin.log").read_text() == "old new\n"


def test_core_hookspath_and_worktrees(git_repo, tmp_path):
    git_repo.commit("base")
    custom = tmp_path / "shared-hooks"
    git_repo.git("config", "core.hooksPath", str(custom))
    install(git_repo.path)
    assert all((custom / n).exists() for n in HOOK_NAMES)
    assert not (git_repo.path / ".git" / "hooks" / "post-commit").exists()
    git_repo.git("config", "--unset", "core.hooksPath")
    worktree = tmp_path / "wt"
    git_repo.git("worktree", "add", "-q", str(worktree), "-b", "feature")
    install(worktree)
    assert (git_repo.path / ".git" / "hooks" / "post-commit").exists()  # the common dir's hooks


def test_hooks_in_the_work_tree_are_installed_with_a_warning(git_repo, tmp_path):
    """Husky's ``core.hooksPath = .husky``: the hooks written there are the repository's
    files (machine paths, shown by git status, committed with ``-a``) and its dispatcher
    finds a hook kept as ``.legacy`` no more; ``hooks install`` did it without a word."""
    from recalld.hooks.install import tracked_dir

    git_repo.commit("base")
    assert tracked_dir(git_repo.path, hooks_dir(git_repo.path)) is None  # .git/hooks
    write_hook(git_repo.path / ".husky" / "post-commit", "#!/bin/sh\nexit 0\n")
    git_repo.commit("husky")
    git_repo.git("config", "core.hooksPath", ".husky")
    told = recalld("hooks", "install", str(git_repo.path))
    assert "lies in the work tree (core.hooksPath)" in told.stderr and "do not commit them" in told.stderr
    git_repo.git("config", "core.hooksPath", str(tmp_path / "shared"))
    assert "work tree" not in recalld("hooks", "install", str(git_repo.path)).stderr


def test_hooks_without_a_path_are_the_current_directorys_repository(git_repo):
    (git_repo.path / "src").mkdir()
    git_repo.write("src/a.py", "def a():\n    pass\n")
    git_repo.commit("one")
    recalld("repo", "add", str(git_repo.path))
    done = recalld("hooks", "install", cwd=git_repo.path / "src")
    assert {line.split()[0] for line in done.stdout.splitlines()} == {"installed"} and not done.stderr
    assert all(MARKER in (hooks_dir(git_repo.path) / name).read_text() for name in HOOK_NAMES)
    recalld("hooks", "uninstall", cwd=git_repo.path / "src")
    assert not any((hooks_dir(git_repo.path) / name).exists() for name in HOOK_NAMES)


def test_daemon_down_git_unaffected_hooks_fast_events_kept(git_repo):
    git_repo.write("a.py", "def a():\n    pass\n")
    git_repo.commit("one")
    recalld("repo", "add", str(git_repo.path))
    recalld("hooks", "install", str(git_repo.path))
    hooks = hooks_dir(git_repo.path)

    def git(*args: str) -> int:
        return subprocess.run(["git", *args], cwd=git_repo.path, capture_output=True, text=True).returncode

    git_repo.write("b.py", "def b():\n    pass\n")
    git("add", "-A")
    assert git("commit", "-qm", "two") == 0
    assert git("checkout", "-q", "-b", "side") == 0
    git_repo.write("c.py", "def c():\n    pass\n")
    git("add", "-A")
    assert git("commit", "-qm", "three") == 0
    assert git("checkout", "-q", "main") == 0
    assert git("merge", "-q", "--no-ff", "-m", "merge", "side") == 0
    assert git("commit", "-q", "--amend", "-m", "amended") == 0
    assert git("rebase", "-q", "HEAD~1") == 0
    assert git("checkout", "-q", "does-not-exist") != 0  # git's own failures stay failures

    # A hung daemon (accepts, never answers) changes nothing: hooks never wait for it.
    hung = socket.socket()
    hung.bind(("127.0.0.1", 0))
    hung.listen(1)
    load_config().runtime_file.write_text(json.dumps({"pid": os.getpid(), "address": f"http://127.0.0.1:{hung.getsockname()[1]}"}))
    timings = []
    try:
        for name in ("post-commit", "post-checkout", "post-merge"):
            for _ in range(3):
                started = time.perf_counter()
                code = subprocess.run([str(hooks / name), "0", "0", "1"], cwd=git_repo.path).returncode
                timings.append(time.perf_counter() - started)
                assert code == 0
                time.sleep(0.3)
    finally:
        hung.close()
        load_config().runtime_file.unlink()
    # Detached: far below the ~300 ms a Python start-up would cost (figures: tests/bench/bench_daemon.py);
    # the median, as a hook that waited would wait every time (one of nine took 306 ms on a loaded run)
    assert sorted(timings)[len(timings) // 2] < 0.25, timings

    deadline = time.monotonic() + 20  # the detached notifiers finish in the background
    while pending_events().get("repo", 0) < 5 and time.monotonic() < deadline:
        time.sleep(0.1)
    assert pending_events().get("repo", 0) >= 5


def test_a_rebase_is_told_once_at_its_end_not_once_a_commit(git_repo):
    """A rebase commits each commit it picks: the hooks started a notification for each
    (~100 Python processes at once for 100 commits, the rebase ~20 times slower); its
    post-rewrite hook tells of them all at its end."""
    git_repo.write("a.py", "def a():\n    pass\n")
    git_repo.commit("one")
    git_repo.git("checkout", "-q", "-b", "topic")
    for n in range(12):
        git_repo.write(f"t{n}.py", f"def t{n}():\n    pass\n")
        git_repo.commit(f"topic {n}")
    git_repo.git("checkout", "-q", "main")
    git_repo.write("b.py", "def b():\n    pass\n")
    git_repo.commit("two")
    recalld("repo", "add", str(git_repo.path), "--branch", "topic")
    recalld("hooks", "install", str(git_repo.path))
    git_repo.git("checkout", "-q", "topic")
    settled = time.monotonic() + 20
    while time.monotonic() < settled and pending_events().get("repo", 0) < 1:  # the checkout's, told in the background
        time.sleep(0.1)
    told = told_during(lambda: git_repo.git("rebase", "-q", "main"))
    assert 1 <= told <= 2, told  # post-rewrite's (and the first checkout's), not 12 more


def test_a_cherry_pick_of_a_range_is_told_by_one_waiter_at_its_end_and_at_a_conflict(git_repo):
    """A cherry-pick or revert of a range (git's sequencer) has no hook at its end, and
    its picks started a notification each: 100 commits took 11.8 s with the hooks, 0.7 s
    without. One waiter tells recalld when the sequence ends, or stops on a conflict."""
    git_repo.write("a.py", "def a():\n    pass\n")
    base = git_repo.commit("one")
    git_repo.git("checkout", "-q", "-b", "topic")
    for n in range(12):
        git_repo.write(f"t{n}.py", f"def t{n}():\n    pass\n")
        git_repo.commit(f"topic {n}")
    git_repo.git("checkout", "-q", "-b", "picked", base)
    git_repo.write("t9.py", "def t9():\n    return 'ours'\n")  # the ninth pick stops on a conflict
    git_repo.commit("ours")
    recalld("repo", "add", str(git_repo.path), "--branch", "picked")
    recalld("hooks", "install", str(git_repo.path))

    stopped = told_during(lambda: git_repo.git("cherry-pick", f"{base}..topic", check=False))
    assert (git_repo.path / ".git" / "CHERRY_PICK_HEAD").exists()
    assert 1 <= stopped <= 2, stopped  # eight commits picked, then the conflict: told, not eight times
    git_repo.write("t9.py", "def t9():\n    return 'both'\n")
    git_repo.git("add", "t9.py")
    ended = told_during(lambda: git_repo.git("-c", "core.editor=true", "cherry-pick", "--continue"))
    assert 1 <= ended <= 2, ended
    assert not (git_repo.path / ".git" / "sequencer").exists()
    assert not (git_repo.path / ".git" / "recalld-sequence.pid").exists()


def test_a_push_into_a_bare_mirror_is_told_by_its_post_receive_hook(tmp_path):
    """A bare repository has no work tree to commit in: pushes are what move it. Its
    post-receive hook (run in the git dir, ref lines on stdin) tells recalld, and a foreign
    post-receive kept as .legacy still reads those lines."""
    from tests.conftest import GitRepo

    src = GitRepo(tmp_path / "src")
    src.write("a.py", "def a():\n    pass\n")
    src.commit("one")
    mirror = tmp_path / "mirror.git"
    src.git("clone", "-q", "--bare", str(src.path), str(mirror))
    write_hook(mirror / "hooks" / "post-receive", "#!/bin/sh\ncat > \"$PWD/received.txt\"\n")
    recalld("repo", "add", str(mirror), "--name", "mirror")
    recalld("hooks", "install", str(mirror))
    assert MARKER in (mirror / "hooks" / "post-receive").read_text()
    src.write("b.py", "def b():\n    pass\n")
    src.commit("two")
    src.git("push", "-q", str(mirror), "main")
    deadline = time.monotonic() + 20  # the notifier is detached
    while pending_events().get("mirror", 0) < 1 and time.monotonic() < deadline:
        time.sleep(0.1)
    assert pending_events().get("mirror", 0) == 1
    assert (mirror / "received.txt").read_text().split() == [*src.git("rev-parse", "HEAD~1", "HEAD").split(),
                                                             "refs/heads/main"]  # fmt: skip


def test_notify_for_an_unregistered_repo_fails_quietly(git_repo):
    git_repo.commit("x")
    done = recalld("notify", "--path", str(git_repo.path), check=False)
    assert done.returncode == 1 and "no registered repository" in done.stderr


def test_the_hooks_of_a_removed_state_dir_do_not_make_it_again(git_repo, tmp_path):
    """recalld's state removed (uninstalled), hooks left in a repository: each commit's
    notification made the state dir again, an empty registry in it."""
    git_repo.commit("x")
    home = tmp_path / "removed-state"
    done = recalld("notify", "--path", str(git_repo.path), env={"RECALLD_HOME": str(home)}, check=False)
    assert done.returncode == 1 and "no registered repository" in done.stderr and "no state in" in done.stderr
    assert not home.exists()


@pytest.mark.parametrize("hook", HOOK_NAMES)
def test_hook_scripts_are_posix_sh(hook, git_repo):
    install(git_repo.path)
    assert subprocess.run(["sh", "-n", str(hooks_dir(git_repo.path) / hook)]).returncode == 0
    assert os.access(hooks_dir(git_repo.path) / hook, os.X_OK)


def test_hooks_of_every_repo_go_on_past_one_that_is_gone(tmp_path):
    """`hooks install --all` stopped at the first repository it could not reach, leaving
    the later ones without hooks (and `uninstall --all` with them): each is said, the
    others done, exit 1, as `recalld sync` does."""
    from tests.conftest import GitRepo

    gone, kept = GitRepo(tmp_path / "aa"), GitRepo(tmp_path / "zz")
    for repo in (gone, kept):
        repo.commit("x")
        recalld("repo", "add", str(repo.path))
    gone.path.rename(tmp_path / "aa-moved")
    for action, present in (("install", True), ("uninstall", False)):
        done = recalld("hooks", action, "--all", check=False)
        assert done.returncode == 1
        assert done.stderr == f"recalld: aa: not a git repository: {gone.path}\n"
        assert all((hooks_dir(kept.path) / name).exists() == present for name in HOOK_NAMES)


def test_hooks_of_an_unregistered_repo_are_installed_with_a_warning(git_repo):
    """Its hooks' notify fails unseen until the repository is registered, and then works."""
    git_repo.commit("x")
    done = recalld("hooks", "install", str(git_repo.path))
    assert done.returncode == 0 and all((hooks_dir(git_repo.path) / name).exists() for name in HOOK_NAMES)
    assert done.stderr == (f"recalld: warning: {git_repo.path} is not a registered repository: its hooks tell the"
                           f" daemon nothing until `recalld repo add {git_repo.path}`\n")  # fmt: skip
    recalld("repo", "add", str(git_repo.path))
    again = recalld("hooks", "install", str(git_repo.path))
    assert again.stderr == "" and "updated" in again.stdout
    assert recalld("hooks", "uninstall", str(git_repo.path)).stderr == ""
    from tests.conftest import GitRepo

    spaced = GitRepo(git_repo.path.parent / "sp ace")  # the command to run quotes it, as a shell needs
    warned = recalld("hooks", "install", str(spaced.path)).stderr
    assert warned.endswith(f" nothing until `recalld repo add '{spaced.path}'`\n"), warned


def wait_for_events(name: str, count: int) -> int:
    deadline = time.monotonic() + 20  # the notifiers are detached
    while pending_events().get(name, 0) < count and time.monotonic() < deadline:
        time.sleep(0.1)
    return pending_events().get(name, 0)


def test_a_commit_with_the_git_dir_apart_from_its_work_tree_is_told(tmp_path):
    """A bare repository committed to with a work tree elsewhere (`git --git-dir=dots.git
    --work-tree=~`, as dotfiles are kept) runs its hooks in the work tree, which holds no
    repository: the hook named that directory and its notification was lost. It names
    $GIT_DIR, which git sets then."""
    from tests.conftest import GitRepo

    src = GitRepo(tmp_path / "src")
    src.commit("one")
    bare = tmp_path / "dots.git"
    src.git("clone", "-q", "--bare", str(src.path), str(bare))
    recalld("repo", "add", str(bare), "--name", "dots")
    recalld("hooks", "install", str(bare))
    work = tmp_path / "home"
    work.mkdir()
    (work / "f").write_text("x\n")
    for args in (("add", "f"), ("commit", "-qm", "two")):
        subprocess.run(["git", f"--git-dir={bare}", f"--work-tree={work}", *args], check=True, cwd=work)
    assert wait_for_events("dots", 1) == 1


def test_hooks_install_from_inside_another_repositorys_git_command(git_repo, tmp_path):
    """Run where git set GIT_DIR (a hook, `git rebase -x`), `hooks install PATH` installed
    the hooks of that repository, not of PATH's."""
    from tests.conftest import GitRepo

    git_repo.commit("x")
    other = GitRepo(tmp_path / "other")
    other.commit("y")
    recalld("hooks", "install", str(other.path), env={"GIT_DIR": str(git_repo.path / ".git")})
    assert all((other.path / ".git" / "hooks" / name).exists() for name in HOOK_NAMES)
    assert not any((git_repo.path / ".git" / "hooks" / name).exists() for name in HOOK_NAMES)


def test_a_conflicting_hook_is_refused_before_any_hook_is_changed(git_repo):
    """A foreign hook beside a .legacy of its name is refused: the hooks before it in the
    list were installed all the same, half the set."""
    hooks = hooks_dir(git_repo.path)
    write_hook(hooks / "post-merge", "#!/bin/sh\necho new\n")
    write_hook(hooks / "post-merge.legacy", "#!/bin/sh\necho old\n")
    with pytest.raises(RecalldError, match="post-merge exists and so does .*post-merge.legacy"):
        install(git_repo.path)
    assert sorted(p.name for p in hooks.iterdir() if not p.name.endswith(".sample")) == ["post-merge",
                                                                                        "post-merge.legacy"]
    (hooks / "post-merge.legacy").unlink()
    (hooks / "post-commit.legacy").symlink_to("gone")  # a dangling link is a hook there, kept as it is
    write_hook(hooks / "post-commit", "#!/bin/sh\n")
    with pytest.raises(RecalldError, match="post-commit exists and so does"):
        install(git_repo.path)
    (hooks / "post-commit").unlink()
    (hooks / "post-commit.legacy").rename(hooks / "post-commit")
    assert {c.hook.name: c.action for c in install(git_repo.path)}["post-commit"] == "kept-legacy"
    assert {c.hook.name: c.action for c in uninstall(git_repo.path)}["post-commit"] == "restored"
    assert os.readlink(hooks / "post-commit") == "gone"


@pytest.mark.parametrize("variable", ["XDG_DATA_HOME", "RECALLD_HOME"])
def test_hooks_tell_the_state_dir_of_the_shell_that_installed_them(variable, git_repo, tmp_path, monkeypatch):
    """A hook kept $RECALLD_HOME of the installing shell, made absolute but with its ~
    taken for a directory of that name; a state dir found by $XDG_DATA_HOME it did not
    keep: git run without it (an editor, a GUI) notified another state dir, unseen."""
    monkeypatch.delenv("RECALLD_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "user"))
    monkeypatch.chdir(tmp_path)
    state = tmp_path / "user" / "data"
    monkeypatch.setenv(variable, "~/data")
    git_repo.commit("x")
    recalld("repo", "add", str(git_repo.path))
    recalld("hooks", "install", str(git_repo.path))
    expected = state if variable == "RECALLD_HOME" else state / "recalld"
    assert (expected / "state.db").exists()
    git_repo.write("a.py", "x = 1\n")
    subprocess.run(["git", "add", "a.py"], cwd=git_repo.path, check=True)
    environ = {k: v for k, v in os.environ.items() if k not in ("RECALLD_HOME", "XDG_DATA_HOME")}
    subprocess.run(["git", "commit", "-qm", "two"], cwd=git_repo.path, check=True, env=environ)
    monkeypatch.setenv(variable, str(state))
    assert wait_for_events("repo", 1) == 1


def test_a_path_with_a_line_end_is_printed_on_one_line(tmp_path):
    """What `repo add`, `repo list`, `repo set` and `hooks install` print of a path, and an
    error naming one, ended their line at the path's line end (a `repo list` row split in
    two): as the README has it, a path printed within a line shows its line ends escaped."""
    from tests.conftest import GitRepo

    repo = GitRepo(tmp_path / "new\nline\tdir")
    repo.commit("x")
    shown = f"{tmp_path}/new\\nline\\tdir"
    added = recalld("repo", "add", str(repo.path), "--name", "odd")
    assert added.stdout.startswith(f"registered odd: {shown} @ main")
    assert recalld("repo", "add", str(repo.path), "--name", "odd").stdout == f"already registered odd: {shown} @ main\n"
    assert recalld("repo", "list").stdout == f"odd\tmain\t{shown}\n"
    assert recalld("repo", "set", "odd", "--path", str(repo.path)).stdout == f"odd is {shown} @ main already\n"
    installed = recalld("hooks", "install", str(repo.path)).stdout.splitlines()
    assert installed[0] == f"installed    {shown}/.git/hooks/post-commit" and len(installed) == len(HOOK_NAMES)
    gone = recalld("hooks", "install", str(tmp_path / "gone\nhere"), check=False)
    assert (gone.returncode, gone.stderr) == (1, f"recalld: {tmp_path}/gone\\nhere does not exist\n")
    unregistered = GitRepo(tmp_path / "other\nrepo")
    unregistered.commit("y")
    warned = recalld("hooks", "install", str(unregistered.path)).stderr
    assert warned.count("\n") == 1 and f"{tmp_path}/other\\nrepo is not a registered repository" in warned
    import shutil

    shutil.rmtree(repo.path)  # a sync that fails names the path in its line
    failed = recalld("sync", check=False)
    said = failed.stderr.splitlines()[-1]  # after the model's export, the first time
    assert failed.returncode == 1 and said == f"recalld: odd: not a git repository: {shown}", failed.stderr
