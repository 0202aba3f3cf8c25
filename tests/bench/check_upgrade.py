"""Writers after an extractor upgrade on a real history: a store an earlier extractor
wrote, synced by this one, against a first index.

Not part of the test run. Clones ``--repo`` into a temporary directory (the original is
never touched) and gives each commit of the copy an author of its own (``git
filter-branch``: the author's name is the original commit's id), so that an author names
the commit that wrote a version. One store indexes the commit ``--behind`` commits before
the tip as an earlier extractor would have read it: it hashed a third of the symbols'
code otherwise (their ids change) and did not see a ninth of them (chosen by their
qualified names; modules always seen). Its checkpoint then says the extractor version
before this one, and a sync with this extractor brings the branch to the tip: it reads
every file again, opens what it reads otherwise, and reads the history for their
writers. A second store is a first index of the tip. Every live structural version must
have the same author and ``written_in`` in both, and each task memory in both the same text (the symbols
its commit changed, as this extractor reads them). A fast deterministic fake embedder
stands in for the model.

    python tests/bench/check_upgrade.py --repo ~/src/django [--branch B] [--history 100] [--behind 10] [--merges 5]

``--merges K`` checks a copy whose history is of pull requests instead (``check_writers``).

Prints the counts, the seconds of each sync (its history included) and the first
differences; exits 1 if any version differs.
"""

from __future__ import annotations

import hashlib
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from recalld.ingest.files import IndexOptions  # noqa: E402
from recalld.ingest.parse_memo import PARSED  # noqa: E402
from recalld.ingest.plan import Scope  # noqa: E402
from recalld.ingest.records import checkpoint_id  # noqa: E402
from recalld.ingest.store import MemoryFilter  # noqa: E402
from recalld.parsers import extract  # noqa: E402
from recalld.parsers.base import ParseResult  # noqa: E402
from recalld.parsers.extraction import EXTRACTION_VERSION  # noqa: E402
from tests.bench.check_exact import checker_parser, git, merged_every  # noqa: E402
from tests.bench.check_writers import Version, one_author_a_commit  # noqa: E402
from tests.ingest.conftest import Harness  # noqa: E402

FIELDS = ("path", "kind", "qualname", "content_hash", "author", "written_in", "valid_from_commit")


def _share(qualname: str, n: int) -> bool:
    return hashlib.sha1(qualname.encode()).digest()[0] % n == 0


def earlier(real: Any) -> Any:
    """``extract.extract`` as an earlier extractor: a third of the symbols hashed otherwise,
    a ninth not seen (modules always)."""

    def extract_(spec: Any, data: bytes, path: str = "") -> ParseResult:
        result: ParseResult = real(spec, data, path)
        seen = [s for s in result.symbols if s.kind == "module" or not _share(s.qualname, 9)]
        return replace(result, symbols=tuple(
            replace(s, content_hash=hashlib.sha256(b"earlier" + s.content_hash.encode()).hexdigest())
            if s.kind != "module" and _share(s.qualname + "#", 3) else s for s in seen))  # fmt: skip

    return extract_


def live_writers(h: Harness, branch: str) -> dict[str, Version]:
    """A live version (path, kind, qualified name, content hash) → its path, qualified name,
    author and the commit it was written in."""
    flt = MemoryFilter(repo="r", branch=branch, types=("structural",))
    found = [p.payload for p in h.store.scroll(flt, fields=FIELDS)]
    return {str(tuple(map(p.get, FIELDS[:4]))): (p["path"], p["qualname"], p.get("author"), p.get("written_in"))
            for p in found}  # fmt: skip


def task_texts(h: Harness, branch: str) -> dict[str, dict[str, Any]]:
    """A live task memory's commit → its id, text and extraction."""
    flt = MemoryFilter(repo="r", branch=branch, types=("task",))
    found = h.store.scroll(flt, fields=("commit", "text", "extraction"))
    return {p.payload["commit"]: {**p.payload, "id": p.id} for p in found}


def main() -> int:
    parser = checker_parser(__doc__, history=100, history_help="first-parent commits read for task memory",
                            merges="check a copy whose every K commits are a side branch a merge brought in")
    parser.add_argument("--behind", type=int, default=10, metavar="N",
                        help="the earlier extractor indexed the commit N before the tip (default 10)")  # fmt: skip
    args = parser.parse_args()
    options = IndexOptions(backfill_commits=args.history)
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        repo, branch = one_author_a_commit(args.repo, args.branch, root)
        branch = merged_every(repo, branch, args.merges)[1] if args.merges else branch
        tip = git(repo, "rev-parse", branch)
        git(repo, "branch", "-f", "upgraded", f"{tip}~{args.behind}")
        h = Harness("edge", root / "upgraded", options)
        try:
            real = extract.extract
            extract.extract = earlier(real)
            try:
                started = time.monotonic()
                h.indexer.sync(repo="r", path=str(repo), branch="upgraded")
                first = time.monotonic() - started
            finally:
                extract.extract = real
                PARSED.trim(0)  # a new process, as after an upgrade
            # the checkpoint and the task memories as the earlier extractor's release wrote them
            before = [checkpoint_id(Scope("r", "upgraded")), *(t["id"] for t in task_texts(h, "upgraded").values())]
            h.store.set_payload(before, {"extraction": EXTRACTION_VERSION - 1})
            git(repo, "branch", "-f", "upgraded", tip)
            started = time.monotonic()
            result = h.indexer.sync(repo="r", path=str(repo), branch="upgraded")
            upgrade = time.monotonic() - started
            flt = MemoryFilter(repo="r", branch="upgraded", types=("structural",))
            opened = sum(p.payload.get("valid_from_commit") == tip for p in h.store.scroll(flt, fields=FIELDS))
            upgraded, upgraded_tasks = live_writers(h, "upgraded"), task_texts(h, "upgraded")
        finally:
            h.close()
        fresh = Harness("edge", root / "fresh", options)
        try:
            started = time.monotonic()
            fresh.indexer.sync(repo="r", path=str(repo), branch=branch)
            seconds = time.monotonic() - started
            indexed, indexed_tasks = live_writers(fresh, branch), task_texts(fresh, branch)
        finally:
            fresh.close()
    differ = sorted(i for i in indexed.keys() | upgraded.keys() if indexed.get(i) != upgraded.get(i))
    print(f"earlier extractor's first index of the tip~{args.behind}: {first:.2f} s")
    print(f"this extractor's sync to the tip: {upgrade:.2f} s (history {result.history_seconds or 0:.2f} s); "
          f"{result.added} added, {result.modified} modified, {result.renamed} renamed; "
          f"{opened} live versions opened at the tip; history owed after: {result.history_owed}")  # fmt: skip
    print(f"first index of the tip: {seconds:.2f} s; {len(indexed)} live structural versions")
    both = indexed_tasks.keys() & upgraded_tasks.keys()
    texts = sum(indexed_tasks[i]["text"] != upgraded_tasks[i]["text"] for i in both)
    print(f"task memories in both: {len(both)}; text differing: {texts}; written by this extractor: "
          f"{sum(upgraded_tasks[i].get('extraction') == EXTRACTION_VERSION for i in both)}")  # fmt: skip
    print(f"same author and commit written in: {len(indexed) - len(differ)}; differing: {len(differ)}")
    for i in differ[:20]:
        path, qualname, _, _ = indexed.get(i) or upgraded[i]
        was, now = indexed.get(i, ("", "", "-", None))[2:], upgraded.get(i, ("", "", "-", None))[2:]
        print(f"  {path} {qualname}: first index {was[0]} in {was[1]}; upgraded {now[0]} in {now[1]}")
    return 1 if differ or texts else 0


if __name__ == "__main__":
    sys.exit(main())
