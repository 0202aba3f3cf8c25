"""Items by a key that only one of them has."""

from __future__ import annotations

from collections.abc import Callable, Hashable
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
