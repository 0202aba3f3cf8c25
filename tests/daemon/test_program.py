"""The program leaves without the interpreter's teardown, but only once nothing is left
to do: its threads done, its atexit handlers run, its output flushed."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest


def program(body: str) -> subprocess.CompletedProcess[str]:
    code = "import atexit, sys, threading, time\nfrom recalld.daemon.program import exit_now\n" + body
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)


def test_the_exit_code_buffered_output_and_atexit_handlers_are_kept():
    done = program(
        "atexit.register(lambda: print('atexit ran'))\n"
        "sys.stdout.write('answer, unflushed; ')\n"
        "sys.stderr.write('note')\n"
        "exit_now(3)\n"
    )
    assert (done.returncode, done.stdout, done.stderr) == (3, "answer, unflushed; atexit ran\n", "note")


def test_a_thread_still_running_is_waited_for():
    done = program(
        "threading.Thread(target=lambda: (time.sleep(0.3), print('thread done'))).start()\n"
        "exit_now(0)\n"
    )
    assert (done.returncode, done.stdout) == (0, "thread done\n")


def test_the_teardown_it_skips_is_what_a_command_spent_after_its_answer():
    """The proof that it leaves early: an object's finalizer, which Python's teardown
    runs at exit, does not run (what it would have done is the command's to do before)."""
    done = program(
        "class Kept:\n"
        "    def __del__(self):\n"
        "        print('torn down')\n"
        "kept = Kept()\n"
        "exit_now(0)\n"
    )
    assert (done.returncode, done.stdout) == (0, "")
    normal = subprocess.run([sys.executable, "-c", "class K:\n def __del__(self): print('torn down')\nk = K()\n"],
                            capture_output=True, text=True)  # fmt: skip
    assert normal.stdout == "torn down\n"


@pytest.mark.model
def test_a_command_closes_its_databases_before_it_leaves(git_repo, tmp_path):
    """What Python's teardown closed is closed by the command: the embedding cache's
    write-ahead log was left beside it by each command that embedded or searched."""
    git_repo.write("pay.py", "def pay(amount):\n    return amount\n")
    git_repo.commit()
    home = Path(os.environ["RECALLD_HOME"])
    for args in (["repo", "add", str(git_repo.path)], ["sync"], ["search", "pay an amount"]):
        done = subprocess.run([sys.executable, "-m", "recalld.daemon.cli", *args], capture_output=True, text=True)
        assert done.returncode == 0, done.stderr
        assert sorted(p.name for p in home.glob("*.db-*")) == [], args
