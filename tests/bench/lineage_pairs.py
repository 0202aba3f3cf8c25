"""Which memories a sync carried into another file, on a real history: one line per
symbol closed as ``renamed`` whose successor lies at another path.

Not part of the test run. Clones ``--repo`` into a temporary directory (the original is
never touched), indexes ``--base``, then syncs along the first-parent commits to
``--target`` (with ``--one-step``, straight to ``--target``: a release-sized step). A fast
deterministic fake embedder stands in for the model: what is judged is planning. Prints
a TSV line per continuation across files (``--within-files``: and per rename within a
file), with the commit it was planned at, kind, old path and qualified name, new path
and qualified name, how alike the two memories' texts are and how many words the old
name has; then a count on stderr. Run it from two checkouts of recalld and compare the
outputs to see what a change to the planner changed.

    python tests/bench/lineage_pairs.py --repo ~/src/cpython-lib --base v3.11.2 --target v3.13.5 --one-step
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from recalld.daemon.logs import configure_logging  # noqa: E402
from recalld.ingest.embed_cache import CachedEmbeddings, EmbeddingCache  # noqa: E402
from recalld.ingest.files import IndexOptions  # noqa: E402
from recalld.ingest.likeness import likeness  # noqa: E402
from recalld.ingest.qualnames import short_name  # noqa: E402
from recalld.ingest.sparse import identifier_words  # noqa: E402
from recalld.ingest.store import MemoryFilter, StoreConfig, open_store, retrieve_many  # noqa: E402
from recalld.ingest.sync import Indexer  # noqa: E402
from tests.bench.check_exact import git  # noqa: E402
from tests.conftest import FakeEmbedder  # noqa: E402

FIELDS = ("kind", "path", "qualname", "text", "deprecated_reason", "superseded_by", "valid_to_commit")


def walk(clone: Path, commits: list[str], state: Path, *, within: bool = False) -> list[str]:
    """Index the first commit, sync to each of the others; the continuations across files
    (``within``: and those renamed in their file)."""
    cache = EmbeddingCache(state / "embeddings.db")
    store = open_store(StoreConfig(dim=FakeEmbedder.dim, path=str(state / "store")))
    try:
        indexer = Indexer(store=store, embeddings=CachedEmbeddings(cache, "fake", FakeEmbedder), options=IndexOptions())
        for step, commit in enumerate(commits):
            git(clone, "update-ref", "refs/heads/main", commit)
            result = indexer.sync(repo="r", path=str(clone), branch="main")
            print(f"{'index' if step == 0 else 'sync '} {commit[:10]}: renamed {result.renamed}", file=sys.stderr)
        closed = [p.payload for p in store.scroll(MemoryFilter(repo="r", types=("structural",), deprecated=1),
                                                  fields=FIELDS)  # fmt: skip
                  if p.payload.get("deprecated_reason") == "renamed" and p.payload.get("superseded_by")]
        ids = [c["superseded_by"] for c in closed]
        successors = {p.id: p.payload for p in retrieve_many(store, ids, fields=FIELDS)}
    finally:
        store.close()
        cache.close()
    lines = []
    for old in closed:
        new = successors.get(old["superseded_by"])
        if new is None or (new["path"] == old["path"] and not (within and new["qualname"] != old["qualname"])):
            continue
        alike = likeness(old.get("text") or "", new.get("text") or "", 0.0, min_tokens=0)
        words = len(identifier_words(short_name(old["qualname"])))
        lines.append("\t".join([str(old.get("valid_to_commit", ""))[:10], old["kind"], old["path"], old["qualname"],
                                new["path"], new["qualname"], f"{alike:.2f}", str(words)]))  # fmt: skip
    return sorted(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repo", type=Path, required=True, help="a local git repository (a copy of it is used)")
    parser.add_argument("--base", required=True, help="the commit indexed first")
    parser.add_argument("--target", required=True, help="the commit synced to last")
    parser.add_argument("--one-step", action="store_true", help="sync from --base straight to --target")
    parser.add_argument("--within-files", action="store_true", help="also print symbols renamed in their own file")
    args = parser.parse_args()
    if not (args.repo / ".git").exists() and not (args.repo / "HEAD").exists():
        parser.error(f"--repo {args.repo}: not a git repository")
    configure_logging()  # to stderr: stdout is the report alone
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        clone = root / "repo"
        git(root, "clone", "-q", "--no-checkout", str(args.repo.resolve()), str(clone))
        base, target = (git(clone, "rev-parse", f"{rev}^{{commit}}") for rev in (args.base, args.target))
        between = [] if args.one_step else git(clone, "rev-list", "--first-parent", "--reverse",
                                               f"{base}..{target}").split()  # fmt: skip
        commits = [base, *between] if between else [base, target]
        state = root / "state"
        state.mkdir()
        lines = walk(clone, commits, state, within=args.within_files)
    print("valid_to\tkind\told path\told qualname\tnew path\tnew qualname\ttexts alike\tname words")
    print("\n".join(lines))
    print(f"{len(lines)} continuations {'in all' if args.within_files else 'across files'}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
