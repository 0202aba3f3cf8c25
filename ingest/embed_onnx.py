"""The ONNX backend: an int8 export of the model (see onnx_export) run with onnxruntime.

At run time it needs neither torch nor transformers: the model's own fast tokenizer is
loaded with ``tokenizers`` from the export, texts are batched by token length (little
padding), and rows come out pooled and normalised exactly as the model's
sentence-transformers pipeline does, since that pipeline is inside the graph.

Activations are quantised dynamically, with one scale per batch, so a text's vector varies
slightly with the texts batched with it (cosine ~0.99, as int8 against fp32); the
embedding cache keeps the first vector computed for a text.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from recalld.ingest.embed import checked_max_tokens, offline_environment
from recalld.ingest.errors import RecalldError
from recalld.ingest.onnx_export import MODEL_FILE, OUTPUT, TOKENIZER_FILE, read_meta


class OnnxEmbedder:
    """Embeds with an exported model directory; ``max_tokens`` 0 means the model's own limit."""

    def __init__(self, directory: Path, *, model_id: str, max_tokens: int = 0, batch_size: int = 64) -> None:
        meta = read_meta(directory)
        self.model_id = model_id
        self.dim = int(meta["dim"])
        self.batch_size = batch_size
        self.max_tokens = checked_max_tokens(max_tokens, default=meta["max_seq_length"], limit=meta["max_positions"])
        self._names: list[str] = list(meta["input_names"])
        self._pad_id = int(meta["pad_id"])
        offline_environment()
        try:
            import onnxruntime
            from tokenizers import Tokenizer

            self._tokenizer = Tokenizer.from_file(str(directory / TOKENIZER_FILE))
            options = onnxruntime.SessionOptions()
            options.log_severity_level = 3
            self._session = onnxruntime.InferenceSession(
                str(directory / MODEL_FILE), options, providers=["CPUExecutionProvider"]
            )
        except Exception as exc:  # onnxruntime raises its own exception types for a bad file
            raise RecalldError(f"cannot load the ONNX model in {directory}: {exc}") from exc
        self._tokenizer.no_padding()
        self._tokenizer.enable_truncation(max_length=self.max_tokens)

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        if not texts:
            return out
        encodings = self._tokenizer.encode_batch(list(texts))
        order = sorted(range(len(texts)), key=lambda i: len(encodings[i].ids))
        for start in range(0, len(order), self.batch_size):
            rows = order[start : start + self.batch_size]
            out[rows] = self._run([encodings[i] for i in rows])
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        return out / np.maximum(norms, 1e-12)

    def _run(self, encodings: list[Any]) -> np.ndarray:
        width = max(len(e.ids) for e in encodings)
        feeds = {
            "input_ids": np.full((len(encodings), width), self._pad_id, dtype=np.int64),
            "attention_mask": np.zeros((len(encodings), width), dtype=np.int64),
            "token_type_ids": np.zeros((len(encodings), width), dtype=np.int64),
        }
        for row, encoding in enumerate(encodings):
            n = len(encoding.ids)
            feeds["input_ids"][row, :n] = encoding.ids
            feeds["attention_mask"][row, :n] = encoding.attention_mask
            feeds["token_type_ids"][row, :n] = encoding.type_ids
        result = self._session.run([OUTPUT], {name: feeds[name] for name in self._names})
        return np.asarray(result[0], dtype=np.float32)

