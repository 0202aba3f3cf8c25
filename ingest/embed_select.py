"""Which embedding backend runs: ``auto`` | ``onnx`` | ``torch``, and the cache key it files under.

``auto`` takes ONNX (int8, onnxruntime) when the device is the CPU, onnxruntime imports and
the model exports; otherwise torch, with a logged warning. The choice is made once, before
the model is loaded, because the embedding cache key depends on it: int8 vectors differ
slightly from fp32 ones, so each backend has its own id and switching backend never serves
a vector of the other one.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from recalld.daemon.logs import get_logger
from recalld.ingest.embed import (
    DEFAULT_MODEL,
    Embedder,
    SentenceTransformerEmbedder,
    base_model_id,
    model_location,
    offline_environment,
)
from recalld.ingest.errors import RecalldError

log = get_logger("recalld.embed")


@dataclass(frozen=True, slots=True)
class EmbeddingSettings:
    model_cache: Path  # where ONNX exports live
    model: str = DEFAULT_MODEL
    backend: str = "auto"
    device: str = "cpu"
    batch_size: int = 64
    max_tokens: int = 0  # 0: the model's own max_seq_length
    words_only: bool = True  # the model reads words, not punctuation (embed.model_texts)
    test_max_chars: int = 150  # what the model reads of a test file's code (records.model_chars); 0: all


@dataclass(frozen=True, slots=True)
class Choice:
    backend: str  # "onnx" | "torch"
    model_id: str  # the embedding cache key
    onnx_dir: Path | None = None


def model_id_for(settings: EmbeddingSettings, backend: str) -> str:
    from recalld.ingest.onnx_export import RECIPE

    parts = [base_model_id(settings.model)]
    if backend == "onnx":
        parts.append(RECIPE)
    if settings.words_only:
        parts.append("words")
    if settings.max_tokens:
        parts.append(f"max{settings.max_tokens}t")
    return "+".join(parts)


def vector_space(settings: EmbeddingSettings) -> str:
    """What stored vectors must share to be compared (ingest/revector.py): the model, what
    it reads of a text (``words_only``, how much of a test file's code) and the length
    texts are cut at. Not the backend: ONNX int8 and torch vectors of a text agree to a
    cosine of ~0.99, as int8 vectors of one text batched differently do. (The cache key,
    the model id, leaves ``test_max_chars`` out: a cut text is another text.)"""
    tests = f"+tests{settings.test_max_chars}c" if settings.test_max_chars else ""
    return model_id_for(settings, "torch") + tests


def choose_backend(settings: EmbeddingSettings, *, notice: Callable[[str], None] | None = None) -> Choice:
    """Decide the backend, exporting the ONNX model first if that is the one and it is
    missing (``notice`` is told when an export starts and ends)."""
    torch = Choice("torch", model_id_for(settings, "torch"))
    if settings.backend == "torch":
        return torch
    if settings.backend == "auto" and settings.device != "cpu":
        return torch
    try:
        directory = _onnx_export(settings, notice)
    except RecalldError as exc:
        if settings.backend == "onnx":
            raise
        log.warning("ONNX backend unavailable; embedding with torch", reason=exc.message)
        return torch
    return Choice("onnx", model_id_for(settings, "onnx"), directory)


def build_embedder(settings: EmbeddingSettings, choice: Choice) -> Embedder:
    """The embedder of ``choice``; under ``auto`` an ONNX model that fails to load falls back to torch."""
    if choice.backend == "onnx" and choice.onnx_dir is not None:
        from recalld.ingest.embed_onnx import OnnxEmbedder

        try:
            return OnnxEmbedder(
                choice.onnx_dir,
                model_id=choice.model_id,
                max_tokens=settings.max_tokens,
                words_only=settings.words_only,
                batch_size=settings.batch_size,
            )
        except RecalldError as exc:
            if settings.backend == "onnx":
                raise
            log.warning("ONNX model failed to load; embedding with torch", reason=exc.message)
    return SentenceTransformerEmbedder(
        settings.model,
        device=settings.device,
        batch_size=settings.batch_size,
        max_tokens=settings.max_tokens,
        words_only=settings.words_only,
        model_id=model_id_for(settings, "torch"),
    )


def _onnx_export(settings: EmbeddingSettings, notice: Callable[[str], None] | None) -> Path:
    if settings.device != "cpu":
        raise RecalldError(f"the ONNX backend runs on the CPU only, not on embedding.device = {settings.device!r}")
    offline_environment()
    try:
        import onnxruntime  # noqa: F401
    except ImportError as exc:
        raise RecalldError(f"onnxruntime is not importable: {exc}") from exc
    from recalld.ingest.onnx_export import ensure_exported

    return ensure_exported(
        model_location(settings.model), base_model_id(settings.model), settings.model_cache, notice=notice
    )
