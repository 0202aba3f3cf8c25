"""Items by a key that only one of them has; items in batches."""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterator, Sequence
from collections.abc import Set as AbstractSet
from typing import TypeVar

T = TypeVar("T")
K = TypeVar("K", bound=Hashable)


def unique_by(items: list[T], key: Callable[[T], K]) -> dict[K, T]:
    """Items by key, leaving out every key that more than one item has."""
    seen: dict[K, T] = {}
    dupes: set[K] = set()
    for item in items:
        k = key(item)
        if k in seen:
            dupes.add(k)
        seen[k] = item
    return {k: v for k, v in seen.items() if k not in dupes}


def batches(items: Sequence[T], size: int) -> Iterator[list[T]]:
    """``items`` in order, ``size`` at a time."""
    for start in range(0, len(items), size):
        yield list(items[start : start + size])


def cut_after(items: Sequence[T], marked: AbstractSet[T], size: int) -> list[list[T]]:
    """``items`` in order, cut after every ``size``-th of those ``marked`` (each part but
    the last holds some), and every ``size``-th past the last of them."""
    parts: list[list[T]] = [[]]
    count, left = 0, len(marked)
    for item in items:
        if count == size:
            parts.append([])
            count = 0
        parts[-1].append(item)
        left -= item in marked
        count += item in marked or not left
    return parts if parts[0] else []
