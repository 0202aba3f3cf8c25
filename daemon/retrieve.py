"""Finding memories for a query: dense, keyword or hybrid (fused in Qdrant), with the
store's filters and a path glob checked on what comes back. No App, no config: the
benchmark calls it with a bare store and model.

A query that names code (``parse_config``, ``QuerySet.bulk_create()``, ``geo::Widget``)
puts the memories of that name or qualified name first (``identifiers``, the store's
``hybrid_search(named=…)``): fused alone, a name shared by near-identical symbols
(``test_now07`` among ``test_now01``…) ranked behind its look-alikes by meaning, and
27 % of 500 Django symbols searched by their own names were not first; named first,
none (tests/bench/bench_names.py).

Test code ranks below code of like score (``test_weight``, config ``search.test_weight``):
its names and bodies say what they test, so a sentence about a feature found its tests
ahead of it (on Django, "send email with attachments": four tests in the first five). A
test's fused score is weighted, unless the query names it (those lead whatever their
weight) or speaks of tests ("the tests of the config parser"): measured in
tests/bench/bench_retrieval.py, README "Search"."""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, replace

from recalld.daemon.config import TEST_WEIGHT
from recalld.daemon.paths import literal_dir, walked_dir, within
from recalld.ingest.errors import RecalldError
from recalld.ingest.files import glob_match
from recalld.ingest.qualnames import parent_scope, short_name, unnumbered
from recalld.ingest.records import is_test_path
from recalld.ingest.sparse import query_vector
from recalld.ingest.store import NAMED_BOOST, MemoryFilter, ScoredMemory, Store, StoredPoint

MODES = ("hybrid", "dense", "keyword")
# Test code (``records.is_test_path``): kept with the rest, left out, or alone.
TESTS = ("include", "exclude", "only")
# A query about tests: their weight is not applied. ("fixtures" is also a feature's name:
# Django loads data fixtures.)
_ABOUT_TESTS = re.compile(r"\b(tests?|testing|tested|unit ?tests?|specs?|pytest)\b", re.IGNORECASE)
MAX_FETCH = 4096
MAX_IDENTIFIERS = 16
MAX_RESOLVED = 2000  # namesakes read at most to find the decorated qualnames a dotted name means
# An identifier, or several joined by dots (``::``, ``#`` and ``->`` read as dots first).
_IDENTIFIER = re.compile(r"(?:[^\W\d]|\$)[\w$]*(?:\.(?:[^\W\d]|\$)[\w$]*)*")
# How code writes a name that prose does not: snake_case, camelCase, an acronym before a
# word (``HTTPServer``), a dotted name, a ``$``.
_CODE_LIKE = re.compile(r"_|\$|\.|[a-z][A-Z]|[A-Z]{2}[a-z]")
_QUALIFIERS = re.compile(r"::|->|#")
_WRAPPING = "`'\"()[]{}<>,;:!?"
Encode = Callable[[str], Sequence[float]]


@dataclass(frozen=True, slots=True)
class Retrieval:
    query: str
    flt: MemoryFilter
    limit: int = 10
    path_glob: str | None = None
    mode: str = "hybrid"
    tests: str = "include"
    exact: bool = True  # the memories the query names come first (not in the dense mode)
    test_weight: float = TEST_WEIGHT  # with tests included: a test's score weighted (1: as code)


def identifiers(query: str) -> tuple[str, ...]:
    """The names ``query`` writes as code (``read_blob``, ``HTTPServer``, ``Repo.diff()``,
    ``geo::Widget`` as ``geo.Widget``), or its one word when it is nothing else
    (``Config``, ``render``): the words of a sentence are not names ("how is the
    config parsed" names nothing)."""
    words = query.split()
    found: list[str] = []
    for word in words:
        word = word.strip(_WRAPPING + ".")  # a wrapped name ending a sentence: ``read_blob``.
        word = _QUALIFIERS.sub(".", unnumbered(word.split("(", 1)[0])).strip(".")
        if _IDENTIFIER.fullmatch(word) and (len(words) == 1 or _CODE_LIKE.search(word)):
            found.append(word)
    return tuple(dict.fromkeys(found))[:MAX_IDENTIFIERS]


def decorated(store: Store, flt: MemoryFilter, names: tuple[str, ...]) -> tuple[str, ...]:
    """``names`` and the qualified names that extraction decorates and a dotted one of
    them means: ``Codec.decode`` is Java's ``Codec.decode(String)`` and
    ``Codec.decode(byte[])``, ``Arg.fmt`` Rust's ``<Arg as Display>.fmt``, ``Parser.parse``
    a repeat's ``Parser.parse#2`` (found among the memories of its plain name)."""
    dotted = {name for name in names if "." in name}
    if not dotted:
        return names
    plain = tuple(sorted({name.rsplit(".", 1)[1] for name in dotted}))
    namesakes = replace(flt, names=plain)
    if store.count(namesakes) > MAX_RESOLVED:  # a name everything has (``self.get``): the exact ones only
        return names
    found = {str(p.payload.get("qualname") or "") for p in store.scroll(namesakes, fields=("qualname",))}
    return names + tuple(sorted(q for q in found - dotted if f"{parent_scope(q)}.{short_name(q)}" in dotted))


def retrieve(store: Store, encode: Encode, request: Retrieval) -> list[ScoredMemory]:
    """The best ``limit`` memories for the request, best first. A path glob and the test
    filter are checked on what comes back, fetching more until enough pass."""
    if request.mode not in MODES:
        raise RecalldError(f"unknown search mode {request.mode!r}: {', '.join(MODES)}")
    if request.tests not in TESTS:
        raise RecalldError(f"unknown tests filter {request.tests!r}: {', '.join(TESTS)}")
    dense = list(encode(request.query)) if request.mode != "keyword" else None
    sparse = query_vector(request.query) if request.mode != "dense" else None
    flt = request.flt
    if request.path_glob is not None and flt.dir_prefix is None:
        flt = replace(flt, dir_prefix=literal_dir(request.path_glob))
    named = identifiers(request.query) if request.exact and request.mode != "dense" else ()
    named = decorated(store, flt, named)
    weight = test_weight(request)
    checked = request.path_glob is not None or request.tests != "include" or weight != 1.0
    fetch = request.limit * 4 if checked else request.limit
    while True:
        hits = store.hybrid_search(dense, sparse, flt, min(fetch, MAX_FETCH), named=named, ranked=True)
        kept = weighted([h for h in hits if _kept(h.point.payload, request)], weight)
        # enough when no memory past the last fetched (scored at most as it) could rank among them
        enough = len(kept) >= request.limit and (weight == 1.0 or kept[request.limit - 1].score >= hits[-1].score)
        if enough or len(hits) < fetch or fetch >= MAX_FETCH:
            return kept[: request.limit]
        fetch *= 4


def test_weight(request: Retrieval) -> float:
    """The weight of a test's score in ``request``'s ranking: 1 where tests are not ranked
    among other memories, or the query speaks of tests."""
    if request.tests != "include" or _ABOUT_TESTS.search(request.query):
        return 1.0
    return request.test_weight


def weighted(hits: list[ScoredMemory], weight: float) -> list[ScoredMemory]:
    """``hits`` with the score of each test's code weighted, and ordered by it (stable);
    a memory the query names keeps its score."""
    if weight == 1.0:
        return hits
    out = [
        replace(h, score=h.score * weight) if h.score < NAMED_BOOST and _in_test(h.point.payload) else h for h in hits
    ]
    return sorted(out, key=lambda h: -h.score)


def _in_test(payload: dict[str, object]) -> bool:
    """A memory of a test's code (not a note or a commit about one)."""
    return payload.get("type") == "structural" and is_test_path(str(payload.get("path") or ""))


def _kept(payload: dict[str, object], request: Retrieval) -> bool:
    path = str(payload.get("path") or "")
    if not path_ok(path, request.path_glob):
        return False
    if request.tests == "include":
        return True
    return _in_test(payload) == (request.tests == "only")


def repo_glob(text: str, root: str | None = None) -> str:
    """A path or a glob as a person or an agent writes it, as the repository's paths are
    stored: without a leading ``./``, empty or ``.`` segments, or slashes at either end
    (``./src//app/`` → ``src/app``; ``src/../lib`` → ``lib``); ``.`` or ``/`` alone is the
    whole repository (``**``); "" stays empty (the caller says what it wants). An absolute
    path inside ``root``, the repository's work tree, is read from there (an agent's tools
    write absolute paths). One elsewhere, or one that climbs above the top (``../x``), is
    refused, as git refuses it: read as the repository's own, ``/etc/passwd`` found the
    repository's ``etc/passwd``."""
    text = text.strip()
    if "\x00" in text:  # no path holds one; the explanation of a miss read it cut there
        raise RecalldError("a path cannot hold a NUL character")
    written = text
    if text.startswith("/") and text.strip("/"):
        text = _inside(posixpath.normpath(text), root)  # ``/repo/../repo/a.py``: in it, as git reads it
    parts: list[str] = []
    for part in text.split("/"):
        if part == ".." and parts and parts[-1] != "**":
            parts.pop()
        elif part == "..":
            raise RecalldError(f"{written!r} is outside the repository: write a path from its top ('src/app.py')")
        elif part not in ("", "."):
            parts.append(part)
    return "/".join(parts) or ("**" if text else "")


def _inside(path: str, root: str | None) -> str:
    """``path`` from ``root`` when it lies there as written or with symbolic links resolved
    (either side's); an error naming the work tree where it lies elsewhere."""
    found = within(root, path) if root else None
    if found is None:
        where = f"the repository's work tree ({root})" if root else "the repository (it has no work tree)"
        raise RecalldError(
            f"{path!r} is outside {where}: write a path from the repository's top"
            f" (for its own {path.strip('/')!r}, without the leading '/')"
        )
    return f"./{found[0]}" if found[0] else "."


def at_path(
    store: Store, flt: MemoryFilter, pattern: str, *, fields: Sequence[str] | None = None
) -> Iterator[StoredPoint]:
    """The memories of ``flt`` at ``pattern``, a path as ``outline`` reads one: the file's,
    else those under the directory or matching the glob."""
    path = pattern.strip("/")
    exact = list(store.scroll(replace(flt, paths=(path,)), fields=fields))
    if exact:
        yield from exact
        return
    under = store.scroll(replace(flt, dir_prefix=walked_dir(pattern) or None), fields=fields)
    yield from (p for p in under if path_ok(str(p.payload.get("path")), pattern))


def path_ok(path: str, glob: str | None) -> bool:
    if glob is None:
        return True
    pattern = glob.strip("/")
    return glob_match(path, pattern) or glob_match(path, pattern + "/**")
