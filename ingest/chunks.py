"""A file as git's rename detection measures it (``-M``, ``-B``), but for white space: the
multiset of its chunks, each line with its newline, a line over ``CHUNK`` bytes cut
every ``CHUNK``, indentation and trailing blanks dropped, a chunk weighing its length;
how much two files share; and whether an edit rewrote a file. ``similar`` pairs the
files of a diff by these measures.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass

THRESHOLD = 50  # % of the larger file's weight two files share to be one file moved (git's -M50%)
CHUNK = 64  # git's longest chunk of a line
MIN_BREAK = 400  # git breaks no smaller file into a rewrite
BLANKS = b" \t\r\x0b\x0c"  # what bytes.strip() takes from a line but its newline


@dataclass(frozen=True, slots=True)
class Lines:
    weights: dict[bytes, int]  # a distinct chunk → its length × how often the file holds it
    total: int


def without(lines: Lines, common: set[bytes]) -> Lines:
    """``lines`` less the ``common`` chunks (those many files of a diff hold)."""
    if not common or common.isdisjoint(lines.weights):
        return lines
    weights = {chunk: weight for chunk, weight in lines.weights.items() if chunk not in common}
    return Lines(weights, sum(weights.values()))


def similarity(old: Lines, new: Lines, *, same_name: bool) -> float:
    """git's similarity, the weight shared over the larger file's, when the two are one
    file moved; else 0 (``judged``)."""
    if not old.total or not new.total:
        return 0.0
    small, large = sorted((old.total, new.total))
    if small * 100 < large * THRESHOLD and not same_name:  # too different in size to share enough
        return 0.0
    return judged(shared_weight(old, new), old.total, new.total, same_name=same_name)


def judged(shared: int, old: int, new: int, *, same_name: bool) -> float:
    """The similarity of two files of ``old`` and ``new`` weight that share ``shared``, in
    percent (not rounded), when they are one file moved; else 0. A file that keeps its
    base name moved when it kept ``THRESHOLD`` % of its old content, however much it grew
    (``git mv``, then code added)."""
    if not old or not new:
        return 0.0
    large = max(old, new)
    if shared * 100 >= large * THRESHOLD or (same_name and shared * 100 >= old * THRESHOLD):
        return shared * 100 / large
    return 0.0


def shared_weight(a: Lines, b: Lines) -> int:
    """The weight two files share: for each chunk both hold, the lesser of its weights."""
    both = list(a.weights.keys() & b.weights.keys())  # in C, as is the sum below
    return sum(map(min, map(a.weights.__getitem__, both), map(b.weights.__getitem__, both)))


def rewritten(lines: LineCache, old: str, new: str) -> bool:
    """git's -B: a modified file is a rewrite when it lost over ``THRESHOLD`` % of its old
    content, or when what it lost and gained together reach ``THRESHOLD`` % of the larger
    side; never a file under ``MIN_BREAK`` bytes. A file edited only between a long head
    and tail it kept is none, seen from its bytes (``_surely_kept``) before its chunks
    are counted."""
    if not lines.measured(old) or not lines.measured(new):
        old_data, new_data = lines.read(old), lines.read(new)
        if old_data is None or new_data is None or _surely_kept(old_data, new_data):
            return False
        lines.measure(old, old_data)
        lines.measure(new, new_data)
    a, b = lines.of(old), lines.of(new)
    if a is None or b is None or max(a.total, b.total) < MIN_BREAK or not a.total:
        return False  # unmeasured (too large), small or empty before
    kept = shared_weight(a, b)
    lost, gained = a.total - kept, b.total - kept
    return lost * 100 > a.total * THRESHOLD or (lost + gained) * 100 >= max(a.total, b.total) * THRESHOLD


def _surely_kept(old: bytes, new: bytes) -> bool:
    """Whether the whole lines ``old`` and ``new`` begin and end with alone keep too much
    of the file for it to be a rewrite, which loses and gains, all told, at least
    ``THRESHOLD`` % of the weight it keeps. Kept, those lines weigh at least their bytes
    but their white space; what changed between them, at most its bytes (and one more a
    side for a last line without its newline). An ordinary edit of a long file costs a
    few compares of its bytes, not a count of its chunks (200 files of 27 kB edited:
    11 ms, not 120); one at both ends (an import and its use) is counted."""
    head = old.rfind(b"\n", 0, _alike_run(old, new, min(len(old), len(new)))) + 1
    tail = len(old) - _alike_run(old, new, min(len(old), len(new)) - head, at_end=True)
    tail = old.find(b"\n", tail) + 1 or len(old)  # a line kept in part is not kept
    changed = (tail - head) + (len(new) - head - (len(old) - tail)) + 2
    weight = len(old[:head].translate(None, BLANKS)) + len(old[tail:].translate(None, BLANKS))
    return changed * 100 < weight * THRESHOLD


def _alike_run(a: bytes, b: bytes, limit: int, *, at_end: bool = False) -> int:
    """How many bytes, ``limit`` at most, ``a`` and ``b`` begin with alike (or end with):
    by halving, each compare of two slices in C."""
    low, high = 0, limit
    while low < high:
        middle = (low + high + 1) // 2
        if at_end:
            same = a[len(a) - middle : len(a) - low] == b[len(b) - middle : len(b) - low]
        else:
            same = a[low:middle] == b[low:middle]
        low, high = (middle, high) if same else (low, middle - 1)
    return low


class LineCache:
    """Each blob's lines, read once per diff."""

    def __init__(self, read: Callable[[str], bytes | None]) -> None:
        self.read = read
        self._lines: dict[str, Lines | None] = {}

    def of(self, blob: str) -> Lines | None:
        if blob not in self._lines:
            self._lines[blob] = _measure(self.read(blob))
        return self._lines[blob]

    def measured(self, blob: str) -> bool:
        return blob in self._lines

    def measure(self, blob: str, data: bytes) -> None:
        """``blob``'s lines, of its ``data`` already read."""
        if blob not in self._lines:
            self._lines[blob] = _measure(data)


def _measure(data: bytes | None) -> Lines | None:
    """git's chunks of a file, but for white space: each line with its newline, its
    indentation and trailing blanks (a CR before LF among them) dropped, a line over
    ``CHUNK`` bytes cut every ``CHUNK``; a chunk weighs its length."""
    if data is None:
        return None
    if not data:
        return Lines({}, 0)
    lines = data.split(b"\n")
    if not lines[-1]:  # the split's last piece is no line
        lines.pop()
    weights: dict[bytes, int] = {}
    for line, n in Counter(map(bytes.strip, lines)).items():
        if len(line) < CHUNK:
            weights[line] = weights.get(line, 0) + (len(line) + 1) * n
            continue
        line += b"\n"
        for start in range(0, len(line), CHUNK):
            chunk = line[start : start + CHUNK]
            weights[chunk] = weights.get(chunk, 0) + len(chunk) * n
    return Lines(weights, sum(weights.values()))
