"""Benchmark: the secret scanner on real source, as a sync runs it.

Not part of the test run. Parses every supported file under ROOT (default: the installed
site-packages, a large body of real code), builds each symbol's memory draft exactly as a
sync does (embedded text, keyword material, payload), redacts the drafts and prints drafts/s, the import
cost and what was found by kind (with a short, masked context, to judge false positives).

    python tests/bench/bench_secrets.py [ROOT] [--limit 30000]
"""

from __future__ import annotations

import argparse
import logging
import sysconfig
import time
from collections import Counter
from pathlib import Path

import structlog

from recalld.ingest.gitrecords import CommitInfo
from recalld.ingest.plan import FileSymbols, NewVersion, Scope
from recalld.ingest.records import memory_keywords, memory_payload, memory_text
from recalld.parsers import language_for_path, parse


def drafts(root: Path, limit: int) -> list[tuple[str, str, dict, str]]:  # type: ignore[type-arg]
    scope = Scope("bench", "main")
    commit = CommitInfo("0" * 40, 0, "bench", "bench")
    out: list[tuple[str, str, dict, str]] = []  # type: ignore[type-arg]
    for path in sorted(root.rglob("*")):
        language = language_for_path(str(path))
        if language is None or not path.is_file() or path.stat().st_size > 1 << 20:
            continue
        file = FileSymbols(str(path.relative_to(root)), "0" * 40, language, ())
        for symbol in parse(language, path.read_bytes()).symbols:
            version = NewVersion(f"{len(out)}", file, symbol, "lineage", "added")
            text = memory_text(version, max_chars=1500)
            payload = memory_payload(scope, version, text, commit, [])
            out.append((version.id, text, payload, memory_keywords(version)))
            if len(out) >= limit:
                return out
    return out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("root", nargs="?", default=sysconfig.get_paths()["purelib"])
    parser.add_argument("--limit", type=int, default=30000)
    args = parser.parse_args()
    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(logging.ERROR))  # no line per finding
    batch = drafts(Path(args.root), args.limit)
    chars = sum(len(t) for _, t, _, _ in batch) / max(1, len(batch))
    keyword_chars = sum(len(k) for _, _, _, k in batch) / max(1, len(batch))
    started = time.perf_counter()
    from recalld.ingest.redaction import redact_draft
    from recalld.ingest.writer import MemoryDraft

    imported = time.perf_counter() - started
    found: Counter[str] = Counter()
    started = time.perf_counter()
    for memory_id, text, payload, keywords in batch:
        clean = redact_draft(MemoryDraft(memory_id, text, payload, keywords))
        for kind in ("[REDACTED:" + k for k in clean.text.split("[REDACTED:")[1:]):
            found[kind.split("]")[0].removeprefix("[REDACTED:")] += 1
    seconds = time.perf_counter() - started
    print(f"{len(batch)} drafts ({chars:.0f} chars of text, {keyword_chars:.0f} of keyword material on average)")
    print(f"import {imported:.2f} s; redaction {seconds:.2f} s = {len(batch) / seconds:.0f} drafts/s")
    print(f"redactions in embedded texts by kind: {dict(found) or 'none'}")


if __name__ == "__main__":
    main()
