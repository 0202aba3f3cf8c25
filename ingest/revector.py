"""Vectors of one space: when the model (or what it reads of a text: the words only or
not, the length texts are cut at, how much of a test file's code) changes, every stored
memory is embedded again before anything new is written.

A dense vector is comparable only with vectors of the same model and text settings, and
the store holds the memories of every repository, branch and commit interval. A marker
point names the space its vectors are in. A store without one is new, or was written
before the marker existed; it is taken to be in the configured space. When the
configured space differs from the marker's, every memory's stored ``text`` (secrets
already redacted) is embedded again, as much of it as a sync gives the model
(``records.model_chars``), and its dense vector replaced: payloads, keyword vectors and
ids stay as they are.

The marker names no space while that runs, so an interrupted re-embedding is done again
in whichever space is configured next. Done again in the same one, it costs cache
lookups and store updates only: the embedding cache holds each vector computed before
the interruption, under the new model's key.
"""

from __future__ import annotations

import time
import uuid
from typing import TYPE_CHECKING, Any

from recalld.daemon.logs import get_logger
from recalld.ingest.records import CHECKPOINT_NAMESPACE, model_chars
from recalld.ingest.result import ProgressSink
from recalld.ingest.store import MemoryFilter, Store, StoredPoint, retrieve_many

if TYPE_CHECKING:  # the model's stack, imported where vectors are made: reading the marker needs none of it
    from recalld.ingest.embed_cache import CachedEmbeddings

log = get_logger("recalld.revector")

MARKER = "vectors"
MARKER_ID = str(uuid.uuid5(CHECKPOINT_NAMESPACE, "\x00vectors"))
PAGE = 1024  # memories per call into the model: large, as for a sync (ingest/ahead.py)
PAGES_AHEAD = 32  # pages per EmbedAhead (each keeps the texts it was given)
LABEL = "re-embedding"
ALL_MEMORIES = MemoryFilter(record="memory", deprecated=None)
MODEL_TEXT_FIELDS = ("text", "path", "type")


def marker_point(space: str | None, *, moving_to: str | None = None) -> StoredPoint:
    payload: dict[str, Any] = {"record": MARKER, "space": space, "moving_to": moving_to, "updated_at": int(time.time())}
    return StoredPoint(id=MARKER_ID, payload=payload, vector=None)


def stored_space(store: Store) -> tuple[bool, str | None]:
    """Whether the store has a marker, and the space it names (None: being re-embedded)."""
    found = store.retrieve([MARKER_ID])
    return (True, found[0].payload.get("space")) if found else (False, None)


def ensure_space(store: Store, embeddings: CachedEmbeddings, *, test_chars: int, progress: ProgressSink) -> int:
    """Bring every stored vector into ``embeddings.space``; how many memories were
    embedded again (0: the store was in that space already). ``test_chars``: how much of a
    test file's code the model reads (``records.model_chars``), part of the space."""
    space = embeddings.space
    marked, was = stored_space(store)
    if not marked:
        store.upsert([marker_point(space)])
        return 0
    if was == space:
        return 0
    total = store.count(ALL_MEMORIES)
    log.warning(
        "stored vectors are of another model or text setting (words_only, max_tokens, test_max_chars):"
        " embedding every memory again",
        was=was or "unknown (an earlier re-embedding was interrupted)", now=space, memories=total,
    )  # fmt: skip
    started = time.monotonic()
    store.upsert([marker_point(None, moving_to=space)])
    done, computed, no_text = _reembed(store, embeddings, total, test_chars=test_chars, progress=progress)
    store.upsert([marker_point(space)])
    log.info(
        "re-embedded every memory", space=space, memories=done, computed=computed,
        without_text=no_text, seconds=round(time.monotonic() - started, 2),
    )  # fmt: skip
    return done


def _reembed(
    store: Store, embeddings: CachedEmbeddings, total: int, *, test_chars: int, progress: ProgressSink
) -> tuple[int, int, int]:
    """Every memory's text embedded and its vector replaced, a block of pages at a time:
    the model computes a block's texts in order while its first pages are written. The
    ids are read first and the texts a block at a time, so what is held at once is a
    block's texts, whatever the store's size. (memories, computed, without text)"""
    done = computed = no_text = 0
    ids = [point.id for point in store.scroll(ALL_MEMORIES, fields=())]
    block_size = PAGE * PAGES_AHEAD
    progress.begin(LABEL, total)
    try:
        for start in range(0, len(ids), block_size):
            found = retrieve_many(store, ids[start : start + block_size], fields=MODEL_TEXT_FIELDS)  # deleted: gone
            pages = [[p for p in found[n : n + PAGE] if isinstance(p.payload.get("text"), str)]
                     for n in range(0, len(found), PAGE)]  # fmt: skip
            missing = min(block_size, len(ids) - start) - sum(map(len, pages))
            no_text += missing
            progress.advance(missing)
            texts = [[_model_text(p.payload, test_chars) for p in points] for points in pages]
            from recalld.ingest.ahead import EmbedAhead

            with EmbedAhead(embeddings) as ahead:  # one per block: it keeps every text it was given
                for page in texts:
                    ahead.submit(page)
                for points, page in zip(pages, texts):
                    vectors, fresh = ahead.vectors(page, progress=progress.advance)
                    store.set_vectors({p.id: v.tolist() for p, v in zip(points, vectors)})
                    done, computed = done + len(points), computed + fresh
    finally:
        progress.end()
    if no_text:
        log.warning("memories without a stored text (or deleted meanwhile) keep their vectors", memories=no_text)
    return done, computed, no_text


def _model_text(payload: dict[str, Any], test_chars: int) -> str:
    """What a sync embedded of a stored memory (``writer.vectorise``)."""
    text: str = payload["text"]
    return text[: model_chars(payload.get("path"), str(payload.get("type")), test_chars)]
