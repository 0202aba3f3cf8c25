"""The ONNX backend: an int8 export of the model (see onnx_export) run with onnxruntime.

At run time it needs neither torch nor transformers: the model's own fast tokenizer is
loaded with ``tokenizers`` from the export, texts are sorted by token length (little
padding) and batched by padded size, and rows come out pooled and normalised exactly as
the model's sentence-transformers pipeline does, since that pipeline is inside the graph.

How it uses the CPU (measured with tests/bench/bench_embed.py and the generated repo's
texts, 2 cores):

- A batch holds at most ``batch_size`` texts and, past its first text, at most
  ``TOKENS_PER_BATCH`` padded tokens. Small batches keep the attention tensors
  (batch × heads × length²) in cache: ~1.2× the texts/s of batches of 64 at ~80 tokens,
  ~1.3× at ~130.
- A call's texts are tokenised first (the batches need their lengths), without offsets
  and in slices on the same workers: the model waits for it, ~130 µs a text on one
  thread with offsets, and a sync's 1,024-text calls spent ~0.13 s each in it.
- Batches run in parallel, one per core, each on one thread (data parallel), rather than
  one batch at a time across all cores: ORT's intra-op threads synchronise per operator
  and spin while they wait, which costs more the smaller the batch and whenever another
  thread (the sync's parser and writer) needs a core. One session serves every worker.
- onnxruntime's SkipLayerNormalization fusion is turned off (``SLOW_FUSIONS``): its CPU
  kernel took ~1.2 ms a call where the Add and LayerNormalization it replaces take
  ~0.24 ms together (512-token batches, one thread), 15 % of the model's time; without
  it the int8 model embeds ~1.15× the texts/s (222 → 256 on stdlib symbol texts).

Activations are quantised dynamically, with one scale per batch, so a text's vector varies
slightly with the texts batched with it (cosine ~0.99, as int8 against fp32); the
embedding cache keeps the first vector computed for a text.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np

from recalld.daemon.logs import get_logger
from recalld.ingest.cores import available_cores
from recalld.ingest.embed import checked_max_tokens, model_texts, offline_environment
from recalld.ingest.errors import RecalldError
from recalld.ingest.onnx_export import MODEL_FILE, OUTPUT, TOKENIZER_FILE, read_meta

log = get_logger("recalld.embed")
TOKENS_PER_BATCH = 512
MIN_SPLIT_TOKENIZE = 64  # fewer texts are tokenised on the calling thread alone
# onnxruntime graph optimisers left out: slower than the nodes they fuse (see above).
# onnxruntime ignores a name it does not know.
SLOW_FUSIONS = ["SkipLayerNormFusion"]


class OnnxEmbedder:
    """Embeds with an exported model directory; ``max_tokens`` 0 means the model's own limit,
    ``words_only`` see ``embed.model_texts``, ``workers`` 0 one worker per core this
    process may run on."""

    def __init__(
        self,
        directory: Path,
        *,
        model_id: str,
        max_tokens: int = 0,
        words_only: bool = False,
        batch_size: int = 64,
        workers: int = 0,
    ) -> None:
        meta = read_meta(directory)
        self.model_id = model_id
        self.words_only = words_only
        self.dim = int(meta["dim"])
        self.batch_size = batch_size
        self.workers = workers or available_cores()
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
            options.intra_op_num_threads = 1  # parallel across batches instead: see the module's doc
            options.inter_op_num_threads = 1
            self._session = onnxruntime.InferenceSession(
                str(directory / MODEL_FILE),
                options,
                providers=["CPUExecutionProvider"],
                disabled_optimizers=SLOW_FUSIONS,
            )
        except Exception as exc:  # onnxruntime raises its own exception types for a bad file
            raise RecalldError(f"cannot load the ONNX model in {directory}: {exc}") from exc
        self._tokenizer.no_padding()
        self._tokenizer.enable_truncation(max_length=self.max_tokens)

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        if not texts:
            return out
        encodings = self._tokenize(model_texts(texts, words_only=self.words_only))
        order = sorted(range(len(texts)), key=lambda i: len(encodings[i].ids))
        batches = self._batches(order, [len(e.ids) for e in encodings])

        def run(rows: list[int]) -> None:
            out[rows] = self._run([encodings[i] for i in rows])

        self._on_workers([partial(run, rows) for rows in batches])
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        return out / np.maximum(norms, 1e-12)

    def _tokenize(self, texts: list[str]) -> list[Any]:
        """Token ids of ``texts`` (no offsets: ~20 % faster), in slices on the workers:
        the model waits for a call's every text to be tokenised (they are sorted by
        length), ~130 µs a text on one thread."""
        if len(texts) < MIN_SPLIT_TOKENIZE or self.workers == 1:
            return list(self._tokenizer.encode_batch_fast(texts))
        step = -(-len(texts) // self.workers)
        parts: list[list[Any]] = [[] for _ in range(0, len(texts), step)]

        def tokenize(part: int) -> None:
            parts[part] = self._tokenizer.encode_batch_fast(texts[part * step : (part + 1) * step])

        self._on_workers([partial(tokenize, n) for n in range(len(parts))])
        return [encoding for part in parts for encoding in part]

    def _batches(self, order: list[int], lengths: list[int]) -> list[list[int]]:
        """``order`` (indices by ascending length) cut where a batch would exceed the budget."""
        batches: list[list[int]] = []
        for index in order:
            batch = batches[-1] if batches else None
            if batch is None or len(batch) >= self.batch_size or (len(batch) + 1) * lengths[index] > TOKENS_PER_BATCH:
                batches.append([index])
            else:
                batch.append(index)
        return batches

    def _on_workers(self, tasks: list[Callable[[], None]]) -> None:
        """Every task: on this thread alone for one task, else on up to ``workers``
        threads that take the next task as they finish one (the tokenizer and
        onnxruntime release the GIL). The threads live for this call only; the first
        error stops them all and is raised here."""
        pending = iter(tasks)
        lock = threading.Lock()
        errors: list[BaseException] = []

        def work() -> None:
            while True:
                with lock:
                    task = None if errors else next(pending, None)
                if task is None:
                    return
                try:
                    task()
                except BaseException as exc:  # noqa: BLE001 - raised on the calling thread
                    with lock:
                        errors.append(exc)
                    return

        helpers = [
            threading.Thread(target=work, name=f"recalld-onnx-{n}", daemon=True)
            for n in range(min(self.workers, len(tasks)) - 1)
        ]
        for thread in helpers:
            thread.start()
        work()
        for thread in helpers:
            thread.join()
        if errors:
            raise errors[0]

    def release(self) -> None:
        """Give back what onnxruntime's memory arena grew to (~45 MB after a large sync:
        the arena keeps its peak for the next calls, which it makes ~2 % faster): one
        call of one short text that shrinks the arena when it ends. For an idle daemon."""
        import onnxruntime

        options = onnxruntime.RunOptions()
        options.add_run_config_entry("memory.enable_memory_arena_shrinkage", "cpu:0")
        try:
            self._run(self._tokenize([""]), options)
        except Exception as exc:  # housekeeping: the model works on without it
            log.warning("could not shrink the model's memory arena", error=str(exc))

    def _run(self, encodings: list[Any], options: Any = None) -> np.ndarray:
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
        result = self._session.run([OUTPUT], {name: feeds[name] for name in self._names}, options)
        return np.asarray(result[0], dtype=np.float32)
