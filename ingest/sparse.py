"""The keyword side of hybrid search: terms that understand identifiers, as sparse vectors.

``terms`` splits snake_case, camelCase/PascalCase (acronyms included: ``HTTPServer`` →
``http``, ``server``), kebab-case, dotted names and paths into lowercase words, and keeps
each whole identifier (and each whole dotted name or path) as a term of its own, so that
an exact name outranks its parts. Terms map to stable uint32 indices (blake2b, never
Python's randomised ``hash``). Documents carry saturated term frequencies (BM25's
document side with a fixed average length); Qdrant supplies the IDF (``Modifier.Idf``).
Pure: no store, no model.
"""

from __future__ import annotations

import hashlib
import re
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping
from itertools import chain
from typing import Any

from recalld.ingest.store import SparseVector

# A compound name: identifiers joined by dots, slashes, dashes or colons (a.b.c, src/x-y.py).
_COMPOUND = re.compile(r"[A-Za-z0-9_]+(?:[./\-:]+[A-Za-z0-9_]+)*")
_SEPARATORS = re.compile(r"[./\-:]+")
# Words inside one identifier: an acronym before a capitalised word, a (capitalised)
# lowercase word, a trailing acronym, a number.
_WORD = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|[0-9]+")
MIN_TERM, MAX_TERM = 2, 64
# Words too common in code and prose to tell memories apart; IDF would only shrink them.
STOPWORDS = frozenset(
    "a an and are as at be by for from if in is it of on or the this that to with "
    "def self return none true false".split()
)
# BM25 document-side saturation; AVG_TERMS is a fixed stand-in for the average length.
K1, B, AVG_TERMS = 1.2, 0.75, 120.0


def identifier_words(identifier: str) -> list[str]:
    """``parse_HTTPResponse2`` → ``["parse", "http", "response", "2"]``."""
    return [w.lower() for part in identifier.split("_") for w in _WORD.findall(part)]


def terms(text: str) -> list[str]:
    """Every term of ``text`` in order, repeats kept (their count is the term frequency)."""
    return list(_all_terms(text))


def _all_terms(text: str) -> Iterator[str]:
    return chain.from_iterable(map(_COMPOUND_TERMS.__getitem__, _COMPOUND.findall(text)))


class _Memo(dict[Any, Any]):
    """A bounded memo of a pure function, emptied whole when full. Looked up through
    ``map(memo.__getitem__, …)``: a keyword text has thousands of compounds, and a lookup
    that stays in C (no Python call unless it misses) made keyword vectors ~1.6x faster
    than an ``lru_cache``d function called from a loop. Thread-safe as a dict is: a
    search's query terms may meet a sync's document terms."""

    def __init__(self, compute: Callable[[Any], Any], size: int) -> None:
        super().__init__()
        self._compute, self._size = compute, size

    def __missing__(self, key: Any) -> Any:
        if len(self) >= self._size:
            self.clear()
        value = self[key] = self._compute(key)
        return value


def _compound_terms(compound: str) -> tuple[str, ...]:
    out: list[str] = []
    pieces = [p for p in _SEPARATORS.split(compound) if p]
    if len(pieces) > 1:
        out.append(compound.lower())
    for piece in pieces:
        words = identifier_words(piece)
        whole = piece.strip("_").lower()
        if len(words) != 1 or words[0] != whole:
            out.append(whole)
        out.extend(words)
    return tuple(t for t in out if MIN_TERM <= len(t) <= MAX_TERM and t not in STOPWORDS)


def _term_index(term: str) -> int:
    return int.from_bytes(hashlib.blake2b(term.encode("utf-8"), digest_size=4).digest(), "big")


# Code repeats its names (self, value, result, the module's own identifiers): the terms of
# a compound and the index of a term are memoised. A full index of Django 4.2 meets ~128k
# distinct compounds and as many terms (~50 MB in both memos, dropped when the daemon is
# idle: ``forget_terms``); memos half that size were emptied over and over, and keyword
# vectors took ~1.4x as long.
MEMO_SIZE = 1 << 17
_COMPOUND_TERMS = _Memo(_compound_terms, MEMO_SIZE)
_TERM_INDEX = _Memo(_term_index, MEMO_SIZE)


def term_index(term: str) -> int:
    """A stable uint32 for ``term``: the same on every machine and every run."""
    return int(_TERM_INDEX[term])


def forget_terms() -> None:
    """Empty both memos (an idle daemon gives their memory back)."""
    _COMPOUND_TERMS.clear()
    _TERM_INDEX.clear()


def memoised() -> int:
    """How many compounds and terms the memos hold."""
    return len(_COMPOUND_TERMS) + len(_TERM_INDEX)


def _vector(weights: Mapping[str, float]) -> SparseVector:
    return _sparse(list(map(_TERM_INDEX.__getitem__, weights)), list(weights.values()))


def _sparse(indices: list[int], values: list[float]) -> SparseVector:
    """Terms whose indices collide add up; left in the order the terms came, as both
    engines sort a sparse vector's indices themselves (sorting here was a seventh of
    making Django's keyword vectors)."""
    if len(set(indices)) < len(indices):
        by_index: dict[int, float] = {}
        for index, value in zip(indices, values, strict=True):
            by_index[index] = by_index.get(index, 0.0) + value
        indices, values = list(by_index), list(by_index.values())
    return SparseVector(tuple(indices), tuple(values))


class _Saturated(dict[int, float]):
    """BM25's saturated weight of a term frequency, in a document of ``norm``."""

    def __init__(self, norm: float) -> None:
        super().__init__()
        self._norm = norm

    def __missing__(self, tf: int) -> float:
        weight = self[tf] = round(tf * (K1 + 1) / (tf + self._norm), 4)
        return weight


def document_vector(text: str) -> SparseVector:
    """Saturated term frequencies of a memory's keyword text. Counted, weighed and
    indexed through C-level maps (a module's keyword text is its whole file)."""
    counts = Counter(_all_terms(text))
    length = sum(counts.values())
    weight = _Saturated(K1 * (1 - B + B * length / AVG_TERMS))
    return _sparse(list(map(_TERM_INDEX.__getitem__, counts)), list(map(weight.__getitem__, counts.values())))


def query_vector(text: str) -> SparseVector:
    """One unit of weight per distinct query term (IDF comes from the store)."""
    return _vector({t: 1.0 for t in dict.fromkeys(terms(text))})


def keyword_text(text: str, payload: Mapping[str, Any]) -> str:
    """What a memory's keyword vector is made of: its keyword material (``records.
    memory_keywords``; the embedded text when it has none) plus the names the dense text
    leaves out (the path, the qualified name)."""
    extra: Iterable[Any] = (payload.get("path"), payload.get("qualname"))
    return "\n".join([text, *(str(v) for v in extra if v)])
