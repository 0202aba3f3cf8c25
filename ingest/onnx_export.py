"""One-time export of a sentence-transformers model to int8 ONNX, cached on disk.

The cache holds one directory per model id with ``model.int8.onnx`` (int8 weights,
quantised per output channel, and int8 embedding tables), ``tokenizer.json`` (the
model's own fast tokenizer, as the model's sentence-transformers config sets it up) and
``meta.json``. The directory appears whole or not at all: everything is written into a
private temporary directory that is renamed into place, so a crash leaves no half file;
a process asking while another exports waits for it (``_exporting``).

The exported graph is the whole sentence-transformers pipeline after tokenisation
(transformer with eager attention, pooling, any dense layers, normalisation) traced with
torch's TorchScript exporter (``dynamo=False``, opset 17; the dynamo exporter works too
but needs onnxscript and takes longer), with batch and sequence axes dynamic. Only this
module imports torch for ONNX's sake, and only in a child process that does the export
(``_export``): the process that asked never loads it.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import logging
import os
import re
import shutil
import sys
import tempfile
import time
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np

from recalld.daemon.logs import get_logger
from recalld.ingest.child import child_main, run_module
from recalld.ingest.embed import max_positions
from recalld.ingest.errors import RecalldError

MODEL_FILE = "model.int8.onnx"
TOKENIZER_FILE = "tokenizer.json"
META_FILE = "meta.json"
# Names the export recipe; part of the cache directory and of the embedding cache key,
# so a changed recipe never serves vectors of the old one.
RECIPE = "onnx-int8pc-v2"
OPSET = 17
OUTPUT = "sentence_embedding"
# Texts of different lengths, so the traced graph takes the padded-attention path.
SAMPLE = [
    "def parse(path: str) -> Tree:\n    Parse one file.",
    "class RenameDelta:\n    A file moved from one path to another between two commits, "
    "keeping its content and lineage.",
    "x",
]
MIN_SAMPLE_COSINE = 0.95

log = get_logger("recalld.embed")


def model_dir(cache_root: Path, model_id: str) -> Path:
    """``<cache root>/<safe model id>-<hash>``: readable, and distinct for distinct ids."""
    safe = re.sub(r"[^A-Za-z0-9._-]+", "_", model_id).strip("._-")[:80] or "model"
    digest = hashlib.sha256(f"{model_id}|{RECIPE}".encode()).hexdigest()[:10]
    return cache_root / f"{safe}-{digest}"


def is_exported(directory: Path) -> bool:
    return (directory / META_FILE).is_file()


def read_meta(directory: Path) -> dict[str, Any]:
    try:
        meta = json.loads((directory / META_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise RecalldError(f"{directory}: unreadable ONNX model metadata: {exc}") from exc
    if not isinstance(meta, dict) or meta.get("recipe") != RECIPE:
        raise RecalldError(f"{directory}: not an ONNX export of recipe {RECIPE}")
    return meta


def ensure_exported(
    location: str, model_id: str, cache_root: Path, *, notice: Callable[[str], None] | None = None
) -> Path:
    """The directory of the model's int8 ONNX export, exporting it first if needed;
    ``notice`` (a command's stderr) is told when an export starts and ends."""
    directory = model_dir(cache_root, model_id)
    if is_exported(directory):
        return directory
    with _exporting(cache_root, directory, model_id, notice):
        if is_exported(directory):  # by the process this one waited for
            return directory
        return _export_once(location, model_id, cache_root, directory, notice)


@contextmanager
def _exporting(
    cache_root: Path, directory: Path, model_id: str, notice: Callable[[str], None] | None
) -> Iterator[None]:
    """Held while one process exports a model into ``cache_root``: a daemon and a command
    started together on a new machine (or on a new model) exported it both at once,
    each ~30 s of both cores, and the second threw its copy away. Now the second waits,
    then finds the export made. The lock file goes when its holder is done: one waiting
    on it then finds the export, and one that comes later finds it before locking."""
    lock = cache_root / f".{directory.name}.lock"
    try:
        cache_root.mkdir(parents=True, exist_ok=True)
        handle = open(lock, "a")  # noqa: SIM115 - closed below
    except OSError as exc:
        raise _cache_failed(model_id, cache_root, exc) from exc
    with handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            log.info("waiting for another process exporting the model", model=model_id, to=str(directory))
            if notice is not None:
                notice(f"waiting for another process exporting the embedding model {model_id} into {directory}")
            fcntl.flock(handle, fcntl.LOCK_EX)
        except OSError as exc:  # a file system without locks: two exporters race, and one copy is thrown away
            log.info("cannot lock the model cache; exporting without waiting", to=str(cache_root), error=str(exc))
        try:
            yield
        finally:
            lock.unlink(missing_ok=True)


def _export_once(
    location: str, model_id: str, cache_root: Path, directory: Path, notice: Callable[[str], None] | None
) -> Path:
    log.info("exporting model to ONNX, once", model=model_id, to=str(directory))
    if notice is not None:
        notice(f"exporting the embedding model {model_id} to ONNX into {directory}, once (~10–30 s)")
    started = time.monotonic()
    try:
        _remove_stale_temps(cache_root, directory.name)
        work = Path(tempfile.mkdtemp(prefix=f".{directory.name}.{os.getpid()}.", dir=cache_root))
    except OSError as exc:
        raise _cache_failed(model_id, cache_root, exc) from exc
    try:
        _export(location, model_id, work)
        _publish(work, directory)
    except RecalldError:
        raise
    except Exception as exc:  # the exporters raise anything from anywhere
        raise RecalldError(f"cannot export model {model_id!r} to ONNX: {type(exc).__name__}: {exc}") from exc
    finally:
        shutil.rmtree(work, ignore_errors=True)
    seconds = round(time.monotonic() - started, 1)
    log.info("exported model to ONNX", model=model_id, to=str(directory), seconds=seconds)
    if notice is not None:
        notice(f"exported the embedding model in {seconds} s; later runs reuse it")
    return directory


def _cache_failed(model_id: str, cache_root: Path, exc: OSError) -> RecalldError:
    """The model cache cannot be written (made, locked, or a work directory made in it)."""
    return RecalldError(f"cannot export model {model_id!r} to ONNX: {cache_root}: {exc}")


def _publish(work: Path, directory: Path) -> None:
    for path in work.iterdir():
        _fsync(path)
    _fsync(work)
    if directory.exists() and not is_exported(directory):
        shutil.rmtree(directory, ignore_errors=True)  # not ours to finish: only a rename creates it
    try:
        os.rename(work, directory)
    except OSError:
        if not is_exported(directory):
            raise
        log.info("another process exported the model first; keeping its copy", to=str(directory))
        return
    _fsync(directory.parent)


def _fsync(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _remove_stale_temps(cache_root: Path, name: str) -> None:
    """Temp dirs of exporters that died (their pid is gone)."""
    for path in cache_root.glob(f".{name}.*"):
        pid = path.name[len(name) + 2 :].split(".", 1)[0]
        if pid.isdigit() and not _alive(int(pid)):
            shutil.rmtree(path, ignore_errors=True)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _export(location: str, model_id: str, work: Path) -> None:
    """Export into ``work`` in a child process. Loading torch and the fp32 model costs the
    process that does it ~400 MB that neither torch nor glibc give back: a daemon that
    exported its model on first start stayed at ~1 GB resident for good, against ~620 MB
    for one that found the export made."""
    failed = f"cannot export model {model_id!r} to ONNX"
    run_module("recalld.ingest.onnx_export", [location, model_id, str(work)], failed=failed)


def _export_here(location: str, model_id: str, work: Path) -> None:
    import torch
    from sentence_transformers import SentenceTransformer

    # Eager attention exports as plain MatMul/Softmax; the SDPA path brings masking ops
    # (Where, IsNaN) that cost ~15 % of the int8 graph's time.
    model = SentenceTransformer(location, device="cpu", model_kwargs={"attn_implementation": "eager"})
    model.eval()
    tokenizer = model.tokenizer
    backend = getattr(tokenizer, "backend_tokenizer", None)
    if backend is None:
        raise RecalldError(f"model {model_id!r} has no fast tokenizer; the ONNX backend needs one")
    names = [n for n in tokenizer.model_input_names if n in ("input_ids", "attention_mask", "token_type_ids")]
    sample = tokenizer(SAMPLE, padding=True, truncation=True, return_tensors="pt")
    inputs = tuple(sample[n] for n in names)
    fp32 = work / "model.fp32.onnx"
    with torch.no_grad(), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(
            _pipeline(model, names).eval(),
            inputs,
            str(fp32),
            dynamo=False,
            opset_version=OPSET,
            input_names=names,
            output_names=[OUTPUT],
            dynamic_axes={**{n: {0: "batch", 1: "sequence"} for n in names}, OUTPUT: {0: "batch"}},
        )
        expected = model.encode(SAMPLE, normalize_embeddings=True, convert_to_numpy=True)
    _quantize(fp32, work / MODEL_FILE)
    fp32.unlink()
    backend.save(str(work / TOKENIZER_FILE))
    _check_sample(work, names, {n: sample[n].numpy() for n in names}, np.asarray(expected))
    meta = {
        "recipe": RECIPE,
        "model_id": model_id,
        "dim": int(model.get_embedding_dimension() or expected.shape[1]),
        "max_seq_length": int(model.max_seq_length or 512),
        "max_positions": max_positions(model, int(model.max_seq_length or 512)),
        "input_names": names,
        "pad_id": int(tokenizer.pad_token_id or 0),
        "torch": torch.__version__,
    }
    (work / META_FILE).write_text(json.dumps(meta, indent=1), encoding="utf-8")


def _pipeline(model: Any, names: list[str]) -> Any:
    """Token ids (positional, in ``names`` order) → the model's sentence embedding, through
    every module of the sentence-transformers pipeline."""
    import torch

    class Pipeline(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.model = model

        def forward(self, *tensors: Any) -> Any:
            return self.model(dict(zip(names, tensors)))[OUTPUT]

    return Pipeline()


def _quantize(source: Path, target: Path) -> None:
    """Dynamic int8 quantisation of the MatMul weights, one scale per output channel, and
    of the embedding tables (Gather). int8 tables cost no accuracy that shows (cosine to
    fp32 on stdlib symbol texts: 0.9943 mean, as with fp32 tables) and take the model
    from 59 to 23 MB: ~50 MB less resident in the daemon. (Recipe v1 kept them fp32.)"""
    from onnxruntime.quantization import QuantType, quantize_dynamic

    logging.disable(logging.WARNING)  # it advises pre-processing through the root logger
    try:
        quantize_dynamic(
            str(source),
            str(target),
            per_channel=True,
            weight_type=QuantType.QInt8,
            op_types_to_quantize=["MatMul", "Gather"],
        )
    finally:
        logging.disable(logging.NOTSET)


def _check_sample(work: Path, names: list[str], feeds: dict[str, np.ndarray], expected: np.ndarray) -> None:
    """The int8 graph must agree with the fp32 model on the sample, or the export is wrong."""
    import onnxruntime

    session = onnxruntime.InferenceSession(str(work / MODEL_FILE), providers=["CPUExecutionProvider"])
    got = session.run([OUTPUT], {n: feeds[n].astype(np.int64) for n in names})[0]
    got = got / np.linalg.norm(got, axis=1, keepdims=True)
    cosine = float((got * expected).sum(axis=1).min())
    if cosine < MIN_SAMPLE_COSINE:
        raise RecalldError(f"ONNX export disagrees with the model (cosine {cosine:.3f} on a sample)")


if __name__ == "__main__":  # the child of ``_export``: LOCATION MODEL_ID WORK
    sys.exit(child_main(lambda location, model_id, work: _export_here(location, model_id, Path(work)), sys.argv[1:]))
