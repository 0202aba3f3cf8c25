"""Benchmark: a real history's branch reset back and forward again, with and without
the parse memo, in one run.

Not part of the test run. Clones ``--repo`` into a temporary directory (the original is
never touched), indexes the commit ``--history`` first-parent commits behind the tip,
moves the branch to the tip, then back and forward again twice. Between moves it does
what the daemon does once idle (``forget_memos``: memos dropped, parsed files packed),
unless ``--no-idle``. A fast deterministic fake embedder stands in for the model: a
reset embeds nothing either way, and what is timed is reading, parsing, planning and
writing. Each variant runs on a store of its own; the figures of both are printed side
by side, and ``--check`` compares the last state with a fresh index of the tip.

    python tests/bench/bench_reset.py --repo ~/src/django [--branch main] [--history 50]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from recalld.daemon.logs import configure_logging  # noqa: E402
from recalld.ingest import collect  # noqa: E402
from recalld.ingest.parse_memo import ParseMemo  # noqa: E402
from recalld.ingest.sync import forget_memos  # noqa: E402
from tests.bench.check_exact import Checker, clone_history  # noqa: E402

LEGS = ("back", "forward", "back", "forward")


def run(clone: Path, branch: str, chain: list[str], state: Path, *, idle: bool, check: bool) -> list[float]:
    """Seconds of each leg after the index and the move to the tip."""
    checker = Checker(clone, branch, state)
    seconds: list[float] = []
    try:
        print(f"  index {chain[0][:10]}: {checker.move(chain[0])}", flush=True)
        print(f"  to the tip:       {checker.move(chain[-1])}", flush=True)
        for leg in LEGS:
            if idle:
                forget_memos()
            started = time.monotonic()
            line = checker.move(chain[0] if leg == "back" else chain[-1])
            seconds.append(time.monotonic() - started)
            print(f"  {leg:<8}          {line}", flush=True)
        if check:
            checker.check("tip", chain[-1])
    finally:
        checker.close()
    return seconds


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repo", type=Path, required=True, help="a local git repository (a copy of it is used)")
    parser.add_argument("--branch", help="the branch to follow (default: its checked-out branch)")
    parser.add_argument("--history", type=int, default=50, metavar="N", help="commits to reset across (default 50)")
    parser.add_argument("--no-idle", action="store_true", help="no idle step (memos dropped, files packed) between moves")
    parser.add_argument("--check", action="store_true", help="compare the last state with a fresh index of the tip")
    args = parser.parse_args()
    if not (args.repo / ".git").exists() and not (args.repo / "HEAD").exists():
        parser.error(f"--repo {args.repo}: not a git repository")
    if args.history < 1:
        parser.error("--history must be at least 1")
    configure_logging()  # to stderr: stdout is the report alone
    results: dict[str, list[float]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        clone, branch, chain = clone_history(args.repo, args.branch, args.history, root)
        if len(chain) < 2:
            parser.error(f"--repo {args.repo}: {branch} has no history to reset across")
        kept = collect.PARSED
        for name, memo in (("without the parse memo", ParseMemo(0)), ("with the parse memo", kept)):
            print(f"{name}:", flush=True)
            memo.trim(0)
            collect.PARSED = memo
            try:
                results[name] = run(clone, branch, chain, root / name.replace(" ", "-"),
                                    idle=not args.no_idle, check=args.check)  # fmt: skip
            finally:
                collect.PARSED = kept
    without, with_memo = results.values()
    print(f"\nreset across {len(chain) - 1} commits, seconds per move"
          f" ({'no idle step' if args.no_idle else 'the idle step between moves'}):")  # fmt: skip
    print(f"  {'move':<8} {'without memo':>13} {'with memo':>10} {'ratio':>6}")
    for leg, a, b in zip(LEGS, without, with_memo, strict=True):
        print(f"  {leg:<8} {a:>13.2f} {b:>10.2f} {b / a:>6.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
