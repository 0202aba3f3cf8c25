"""Renames a full comparison of the tree finds without git's help
(``touched.whole_tree``). Beside those git's diff reports, and there are none when no indexed
commit is left to diff against (a store that lost its checkpoint, a history rewritten
under it), a path that left the tree and a new path holding the very blob it held are
one file moved, as long as that blob arrived at one path only."""

from __future__ import annotations

from recalld.ingest.collect import Collected


def renames_by_blob(
    stored_blob: dict[str, str | None], gone: set[str], collected: Collected, known: dict[str, str]
) -> dict[str, str]:
    """Exact renames without git history: a gone path whose blob reappears once elsewhere."""
    taken = set(known.values())
    arrivals: dict[str, list[str]] = {}
    for path, file in collected.files.items():
        if path not in stored_blob and path not in taken:
            arrivals.setdefault(file.blob, []).append(path)
    found: dict[str, str] = {}
    for old in sorted(gone - set(known)):
        blob = stored_blob.get(old)
        candidates = arrivals.get(blob or "", [])
        if len(candidates) == 1:
            found[old] = candidates.pop()
    return found
