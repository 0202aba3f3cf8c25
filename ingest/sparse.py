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
from collections.abc import Iterable, Mapping
from functools import lru_cache
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
    out: list[str] = []
    for compound in _COMPOUND.findall(text):
        out.extend(_compound_terms(compound))
    return out


# Code repeats its names (self, value, result, the module's own identifiers), so the
# terms of a compound are memoised: most lookups skip the regex work. (lru_cache is
# thread-safe and bounded.)
@lru_cache(maxsize=1 << 16)
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


def forget_terms() -> None:
    """Empty both memos (an idle daemon gives their memory back)."""
    _compound_terms.cache_clear()
    term_index.cache_clear()


@lru_cache(maxsize=1 << 16)
def term_index(term: str) -> int:
    """A stable uint32 for ``term``: the same on every machine and every run."""
    return int.from_bytes(hashlib.blake2b(term.encode("utf-8"), digest_size=4).digest(), "big")


def _vector(weights: Mapping[str, float]) -> SparseVector:
    by_index: dict[int, float] = {}
    for term, weight in weights.items():
        index = term_index(term)
        by_index[index] = by_index.get(index, 0.0) + weight  # a hash collision adds up
    ordered = sorted(by_index)
    return SparseVector(tuple(ordered), tuple(by_index[i] for i in ordered))


def document_vector(text: str) -> SparseVector:
    """Saturated term frequencies of a memory's keyword text."""
    counts = Counter(terms(text))
    length = sum(counts.values())
    norm = K1 * (1 - B + B * length / AVG_TERMS)
    return _vector({t: round(tf * (K1 + 1) / (tf + norm), 4) for t, tf in counts.items()})


def query_vector(text: str) -> SparseVector:
    """One unit of weight per distinct query term (IDF comes from the store)."""
    return _vector({t: 1.0 for t in dict.fromkeys(terms(text))})


def keyword_text(text: str, payload: Mapping[str, Any]) -> str:
    """What a memory's keyword vector is made of: its embedded text plus the names the
    dense text leaves out (the path, the qualified name)."""
    extra: Iterable[Any] = (payload.get("path"), payload.get("qualname"))
    return "\n".join([text, *(str(v) for v in extra if v)])
