"""Real symbol texts for embedding tests and benchmarks: files parsed with recalld's own
parsers, each symbol turned into the text a sync would embed (records.memory_text)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from pathlib import Path

from recalld.ingest.plan import FileSymbols, NewVersion
from recalld.ingest.records import memory_text
from recalld.parsers import language_for_path, parse


def symbol_texts(files: Iterable[Path], *, limit: int, max_chars: int = 1500) -> list[str]:
    """Up to ``limit`` distinct texts, in file order."""
    seen: dict[str, None] = {}
    for text in _texts(files, max_chars):
        seen.setdefault(text)
        if len(seen) >= limit:
            break
    return list(seen)


def _texts(files: Iterable[Path], max_chars: int) -> Iterator[str]:
    for path in files:
        language = language_for_path(path.name)
        if language is None or not path.is_file():
            continue
        result = parse(language, path.read_bytes())
        entry = FileSymbols(path=path.name, blob="", language=language, symbols=result.symbols)
        for symbol in result.symbols:
            version = NewVersion(id="", file=entry, symbol=symbol, lineage="", change="added")
            yield memory_text(version, max_chars=max_chars)
