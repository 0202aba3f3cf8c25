"""The git-dir watcher: ref changes become journal events; lost events are never silent."""

from __future__ import annotations

import logging
import shutil
import subprocess
import time
from pathlib import Path

from watchdog.events import FileModifiedEvent

from recalld.daemon.journal import Event, Journal
from recalld.daemon.watch import RepoWatcher, is_interesting


def test_only_refs_and_head_are_interesting(tmp_path):
    git_dir = tmp_path / ".git"
    assert is_interesting(git_dir, str(git_dir / "HEAD"))
    assert is_interesting(git_dir, str(git_dir / "refs" / "heads" / "main"))
    assert is_interesting(git_dir, str(git_dir / "packed-refs"))
    assert is_interesting(git_dir, str(git_dir / "shallow"))  # `git fetch --deepen` moves no ref
    assert is_interesting(git_dir, str(git_dir / "info" / "attributes"))  # no part of a commit
    assert not is_interesting(git_dir, str(git_dir / "info" / "exclude"))
    assert not is_interesting(git_dir, str(git_dir / "refs" / "heads" / "main.lock"))
    assert not is_interesting(git_dir, str(git_dir / "objects" / "ab" / "cdef"))
    assert not is_interesting(git_dir, str(git_dir / "index"))
    assert not is_interesting(git_dir, str(tmp_path / "elsewhere" / "HEAD"))


def wait_for(journal: Journal, repo: str, n: int, timeout: float = 10) -> int:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        depth = journal.depth().get(repo, 0)
        if depth >= n:
            return depth
        time.sleep(0.05)
    return journal.depth().get(repo, 0)


def test_commit_is_seen_and_overflow_reconciles(git_repo, tmp_path):
    git_repo.commit("one")
    journal = Journal(tmp_path / "journal.db")
    watcher = RepoWatcher(journal)
    git_dir = git_repo.path / ".git"
    watcher.add("repo", (git_dir,))
    watcher.start()
    try:
        assert watcher.health == {"repo": "ok"}
        git_repo.write("a.py", "x = 1\n")
        git_repo.commit("two")
        assert wait_for(journal, "repo", 1) >= 1

        drained = journal.claim("repo")
        assert drained is not None
        journal.complete(drained)
        reconciled: list[str] = []
        logging.getLogger("watchdog.observers.inotify_c").warning("Inotify queue overflowed; filesystem events were lost")
        watcher.check(lambda repo: reconciled.append(repo) or journal.append(Event(repo, "watcher", {})))
        assert reconciled == ["repo"]
        assert "overflowed" in watcher.health["repo"]
        watcher.check(reconciled.append)
        assert reconciled == ["repo"]  # once per overflow
    finally:
        watcher.stop()
        journal.close()


def test_an_event_dispatched_after_the_stop_is_dropped_not_written_to_the_closed_journal(git_repo, tmp_path):
    """The observer's thread may still dispatch an event once ``stop``'s join has given up
    on it, after the daemon closed its journal: that raised in the thread (``Cannot operate
    on a closed database``). Dropped now; the next start reconciles every repository."""
    git_repo.commit("one")
    journal = Journal(tmp_path / "journal.db")
    watcher = RepoWatcher(journal)
    git_dir = git_repo.path / ".git"
    watcher.add("repo", (git_dir,))
    handler, _watches = watcher._watched["repo"]
    watcher.stop()
    journal.close()
    handler.on_any_event(FileModifiedEvent(str(git_dir / "HEAD")))  # as the late thread would
    reopened = Journal(tmp_path / "journal.db")
    try:
        assert reopened.depth() == {}
    finally:
        reopened.close()


def test_unwatchable_dir_is_reported_and_reconciled(tmp_path):
    journal = Journal(tmp_path / "journal.db")
    watcher = RepoWatcher(journal)
    try:
        watcher.add("gone", (Path(tmp_path / "missing" / ".git"),))
        assert watcher.health["gone"].startswith("not watched")
        assert journal.depth() == {"gone": 1}
    finally:
        watcher.stop()
        journal.close()


def test_a_change_to_info_attributes_is_seen(git_repo, tmp_path):
    git_repo.commit("one")
    journal = Journal(tmp_path / "journal.db")
    watcher = RepoWatcher(journal)
    git_dir = git_repo.path / ".git"
    (git_dir / "info").mkdir(exist_ok=True)
    watcher.add("repo", (git_dir,))
    watcher.start()
    try:
        (git_dir / "info" / "exclude").write_text("*.log\n")
        time.sleep(0.3)
        assert journal.depth().get("repo", 0) == 0
        (git_dir / "info" / "attributes").write_text("vendor/** linguist-vendored\n")
        assert wait_for(journal, "repo", 1) >= 1
    finally:
        watcher.stop()


def test_a_repository_cloned_again_in_place_is_told_and_watched_again(git_repo, tmp_path):
    """A clone deleted and made again where it was: the watch of the old git dir sees
    nothing of the new one, so ``replaced`` says so (and status), and a new ``add`` sees
    its commits again."""
    git_repo.commit("one")
    upstream = tmp_path / "upstream.git"
    git_repo.git("clone", "-q", "--bare", str(git_repo.path), str(upstream))
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", str(upstream), str(clone)], check=True)
    journal = Journal(tmp_path / "journal.db")
    watcher = RepoWatcher(journal)
    try:
        watcher.add("repo", (clone / ".git",))
        assert watcher.replaced() == [] and watcher.health["repo"] == "ok"
        shutil.rmtree(clone)
        assert watcher.replaced() == ["repo"] and watcher.health["repo"].startswith("not watched")
        assert watcher.replaced() == []  # told once
        subprocess.run(["git", "clone", "-q", str(upstream), str(clone)], check=True)
        watcher.add("repo", (clone / ".git",))
        shutil.rmtree(clone)
        subprocess.run(["git", "clone", "-q", str(upstream), str(clone)], check=True)  # in place, at once
        deadline = time.monotonic() + 10
        while not (told := watcher.replaced()) and time.monotonic() < deadline:
            time.sleep(0.05)  # the watch's events come on its own thread
        assert told == ["repo"]
        watcher.add("repo", (clone / ".git",))
        settled = journal.depth().get("repo", 0)
        subprocess.run(["git", "-C", str(clone), "-c", "user.name=a", "-c", "user.email=a@x", "commit", "-q",
                        "--allow-empty", "-m", "two"], check=True)  # fmt: skip
        assert wait_for(journal, "repo", settled + 1) > settled and watcher.health["repo"] == "ok"
    finally:
        watcher.stop()
        journal.close()
