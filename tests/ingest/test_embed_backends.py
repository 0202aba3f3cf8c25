"""The ONNX int8 backend against the torch fp32 one, on the real packaged model.

The model is exported once per session into the shared model cache (tests/conftest.py).
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest

from recalld.ingest import onnx_export
from recalld.ingest.embed import SentenceTransformerEmbedder, model_texts
from recalld.ingest.embed_onnx import TOKENS_PER_BATCH, OnnxEmbedder
from recalld.ingest.embed_select import EmbeddingSettings, build_embedder, choose_backend
from recalld.ingest.errors import RecalldError
from tests.bench.symbol_texts import symbol_texts

pytestmark = pytest.mark.model
ROOT = Path(__file__).resolve().parents[2]


def settings(**options: object) -> EmbeddingSettings:
    return EmbeddingSettings(model_cache=Path(os.environ["RECALLD_MODEL_CACHE"]), **options)  # type: ignore[arg-type]


@pytest.fixture(scope="module")
def torch_fp32() -> SentenceTransformerEmbedder:
    embedder = build_embedder(settings(backend="torch"), choose_backend(settings(backend="torch")))
    assert isinstance(embedder, SentenceTransformerEmbedder) and embedder.words_only  # as the ONNX one
    return embedder


@pytest.fixture(scope="module")
def onnx_int8() -> OnnxEmbedder:
    choice = choose_backend(settings(backend="onnx"))
    embedder = build_embedder(settings(backend="onnx"), choice)
    assert isinstance(embedder, OnnxEmbedder)
    return embedder


def test_int8_vectors_agree_with_torch_fp32(torch_fp32, onnx_int8):
    files = sorted(p for d in ("ingest", "daemon", "parsers") for p in (ROOT / d).glob("*.py"))
    texts = symbol_texts(files, limit=120)
    assert len(texts) == 120
    cosines = (onnx_int8.encode(texts) * torch_fp32.encode(texts)).sum(axis=1)
    print(f"int8 vs fp32 cosine on {len(texts)} symbol texts: mean {cosines.mean():.4f} min {cosines.min():.4f}")
    assert cosines.mean() >= 0.99 and cosines.min() >= 0.95
    assert onnx_int8.dim == torch_fp32.dim == 384
    assert np.allclose(np.linalg.norm(onnx_int8.encode(texts[:5]), axis=1), 1.0, atol=1e-5)


@pytest.mark.parametrize("backend", ["onnx", "torch"])
def test_the_model_reads_the_words_of_code_not_its_punctuation(backend):
    words, code = "def get field self name", "def get_field(self, name):"
    on, off = (settings(backend=backend, words_only=flag) for flag in (True, False))
    on, off = build_embedder(on, choose_backend(on)), build_embedder(off, choose_backend(off))
    assert "+words" in on.model_id and "+words" not in off.model_id  # cached and stored apart
    read, as_words = on.encode([code, words])
    assert float(read @ as_words) > 0.9999
    raw, raw_words = off.encode([code, words])
    assert float(raw @ raw_words) < 0.99
    assert float(on.encode(["->"])[0] @ off.encode(["->"])[0]) > 0.999  # nothing but punctuation: read as it is


def test_words_only_turns_punctuation_and_underscores_into_spaces():
    code = ["def get_field(self, name: str) -> Field:", "café_π = x.y[0]", "__init__", "->", "", "a — «b»"]
    assert model_texts(code, words_only=True) == [
        "def get field self  name  str     Field ", "café π   x y 0 ", "  init  ", "->", "", "a    b "
    ]
    assert model_texts(code, words_only=False) == code


def test_batches_are_cut_by_padded_tokens_and_keep_every_text(onnx_int8):
    lengths = [5, 300, 40, 40, 600, 8, 100, 129, 128, 3] + [20] * 70
    order = sorted(range(len(lengths)), key=lambda i: lengths[i])
    batches = onnx_int8._batches(order, lengths)
    assert [i for batch in batches for i in batch] == order
    for batch in batches:
        assert len(batch) <= onnx_int8.batch_size
        assert len(batch) == 1 or len(batch) * max(lengths[i] for i in batch) <= TOKENS_PER_BATCH
    assert [lengths[i] for i in batches[-1]] == [600]  # longer than the budget: alone
    assert sum(len(b) == 1 for b in batches) < len(batches)  # short texts do share batches


def test_parallel_workers_give_each_text_its_own_vector(onnx_int8):
    files = sorted((ROOT / "ingest").glob("*.py"))
    texts = symbol_texts(files, limit=150)
    one = build_embedder(settings(backend="onnx"), choose_backend(settings(backend="onnx")))
    assert isinstance(one, OnnxEmbedder)
    one.workers = 1
    workers, onnx_int8.workers = onnx_int8.workers, 3
    try:
        parallel = onnx_int8.encode(texts)
        split = [e.ids for e in onnx_int8._tokenize(texts)]  # in three slices, on three threads
    finally:
        onnx_int8.workers = workers
    assert split == [e.ids for e in one._tokenizer.encode_batch(texts)]  # in order, as one call with offsets
    lengths = [len(ids) for ids in split]
    assert len(one._batches(sorted(range(len(texts)), key=lengths.__getitem__), lengths)) > 3  # all 3 workers ran
    assert np.allclose(parallel, one.encode(texts), atol=1e-6)  # same batches, same rows, any thread
    assert np.allclose(parallel[7], one.encode([texts[7]])[0], atol=0.05)


def test_an_error_on_a_worker_is_raised_to_the_caller(onnx_int8, monkeypatch):
    calls = []

    def failing(encodings):
        calls.append(len(encodings))
        raise RuntimeError("worker failed")

    monkeypatch.setattr(onnx_int8, "_run", failing)
    with pytest.raises(RuntimeError, match="worker failed"):
        onnx_int8.encode([f"def f{i}(): return {i}" * 20 for i in range(64)])
    assert 1 <= len(calls) <= onnx_int8.workers  # the others stopped at the first error


def test_second_construction_reuses_the_export(onnx_int8, monkeypatch):
    def no_export(*args: object) -> None:
        raise AssertionError("exported again")

    monkeypatch.setattr(onnx_export, "_export", no_export)
    choice = choose_backend(settings())
    assert choice.backend == "onnx" and choice.onnx_dir is not None
    assert choice.model_id == onnx_int8.model_id != SentenceTransformerEmbedder().model_id
    again = build_embedder(settings(), choice)
    assert np.allclose(again.encode(["def f(): pass"]), onnx_int8.encode(["def f(): pass"]))


@pytest.mark.parametrize("backend", ["onnx", "torch"])
def test_long_texts_are_truncated_at_max_tokens(backend):
    chosen = settings(backend=backend, max_tokens=32)
    embedder = build_embedder(chosen, choose_backend(chosen))
    words = " ".join(f"word{i}" for i in range(2000))  # ~6,000 tokens, far past every limit
    prefix = truncated(words, 32)
    assert len(prefix) < len(words) // 50
    long_vector, prefix_vector, shorter = embedder.encode([words, prefix, truncated(words, 24)])
    assert float(long_vector @ prefix_vector) > 0.9999
    assert float(long_vector @ shorter) < 0.9999  # tokens up to the limit do count
    assert "+max32t" in embedder.model_id


def truncated(text: str, max_tokens: int) -> str:
    """The text that the first ``max_tokens`` tokens (with [CLS] and [SEP]) cover."""
    from tokenizers import Tokenizer

    choice = choose_backend(settings(backend="onnx"))
    assert choice.onnx_dir is not None
    tokenizer = Tokenizer.from_file(str(choice.onnx_dir / onnx_export.TOKENIZER_FILE))
    tokenizer.no_truncation()
    offsets = tokenizer.encode(text).offsets
    return text[: offsets[max_tokens - 2][1]]


def test_too_many_tokens_for_the_model_is_a_clear_error():
    too_long = settings(backend="onnx", max_tokens=513)
    with pytest.raises(RecalldError, match="embedding.max_tokens = 513 exceeds the model's limit of 512"):
        build_embedder(too_long, choose_backend(too_long))


def test_a_device_this_torch_has_not_is_a_clear_error():
    """``cuda`` on a CPU build failed the first sync with a traceback ("embedding thread
    failed"); Linux has no ``mps``."""
    with pytest.raises(RecalldError, match=r"embedding.device = 'mps': this torch \(.*\) has no such device"):
        SentenceTransformerEmbedder(device="mps")


def test_auto_falls_back_to_torch_when_the_onnx_model_will_not_load(tmp_path, monkeypatch):
    broken = settings()
    choice = choose_backend(broken)
    assert choice.onnx_dir is not None
    copy = tmp_path / choice.onnx_dir.name
    copy.mkdir()
    for name in (onnx_export.META_FILE, onnx_export.TOKENIZER_FILE):
        (copy / name).write_bytes((choice.onnx_dir / name).read_bytes())
    (copy / onnx_export.MODEL_FILE).write_bytes(b"not a model")
    broken_choice = type(choice)("onnx", choice.model_id, copy)
    embedder = build_embedder(broken, broken_choice)
    assert isinstance(embedder, SentenceTransformerEmbedder)
    assert embedder.model_id == "all-MiniLM-L6-v2@gt-0.1.0+words"  # its vectors are filed as torch's
    with pytest.raises(RecalldError, match="cannot load the ONNX model"):
        build_embedder(settings(backend="onnx"), broken_choice)


def test_app_wires_the_configured_backend(monkeypatch):
    from recalld.daemon.app import App
    from recalld.daemon.config import load_config

    home = Path(os.environ["RECALLD_HOME"])
    (home / "config.toml").write_text('[embedding]\nbackend = "torch"\n')
    assert App(load_config()).embeddings.model_id == "all-MiniLM-L6-v2@gt-0.1.0+words+max128t"  # the defaults
    (home / "config.toml").write_text("[embedding]\nmax_tokens = 64\nwords_only = false\n")
    app = App(load_config())
    assert app.embeddings.model_id == f"all-MiniLM-L6-v2@gt-0.1.0+{onnx_export.RECIPE}+max64t"
    assert not app.embeddings.embedder.words_only  # type: ignore[attr-defined]
    assert isinstance(app.embeddings.embedder, OnnxEmbedder) and app.embeddings.embedder.max_tokens == 64
    assert not (home / "models").exists()  # the shared cache ($RECALLD_MODEL_CACHE) was used
    app.embeddings._cache.close()


def test_the_export_runs_in_a_child_and_torch_stays_out_of_the_asking_process(tmp_path):
    """A daemon exporting its model on first start must not keep torch and the fp32 model
    resident (~400 MB): the export happens in a child process."""
    import subprocess
    import sys

    script = (
        "import sys\n"
        "from pathlib import Path\n"
        "from recalld.ingest.embed_select import EmbeddingSettings, choose_backend\n"
        "choice = choose_backend(EmbeddingSettings(model_cache=Path(sys.argv[1]), backend='onnx'))\n"
        "print(choice.backend, (Path(sys.argv[1]) / 'x').parent.exists(), 'torch' in sys.modules)\n"
    )
    done = subprocess.run([sys.executable, "-c", script, str(tmp_path / "cache")], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().splitlines()[-1].split() == ["onnx", "True", "False"]  # logs come first
    assert [p.name for p in (tmp_path / "cache").iterdir() if not p.name.startswith(".")]  # the export is there


def test_a_failed_export_in_the_child_says_why(tmp_path):
    with pytest.raises(RecalldError, match="cannot export model 'no/model' to ONNX: .*"):
        onnx_export.ensure_exported(str(tmp_path / "missing-model"), "no/model", tmp_path / "cache")


def anonymous_mb() -> float:
    from recalld.daemon.restart import MB, anonymous_bytes

    anonymous = anonymous_bytes()
    assert anonymous is not None
    return anonymous / MB


def test_release_gives_back_the_model_arena_and_keeps_its_vectors(onnx_int8):
    """onnxruntime's arena keeps its peak between calls (~45 MB after a large sync);
    an idle daemon asks it back. Vectors after it are the same."""
    from recalld.daemon.upkeep import release_memory

    texts = [f"def handler_{i}(request, *args, **kwargs):\n" + "    value = compute(value, i)\n" * 40 for i in range(512)]
    first = onnx_int8.encode(texts[:8])
    onnx_int8.encode(texts)
    release_memory()
    grown = anonymous_mb()
    onnx_int8.release()
    release_memory()
    assert grown - anonymous_mb() > 10
    assert np.allclose(onnx_int8.encode(texts[:8]), first, atol=1e-6)


def test_a_failed_release_is_logged_and_the_model_works_on(onnx_int8, monkeypatch):
    import structlog

    class Failing:
        def run(self, *_args: object) -> None:
            raise RuntimeError("arena busy")

    working = onnx_int8._session
    monkeypatch.setattr(onnx_int8, "_session", Failing())
    with structlog.testing.capture_logs() as logs:
        onnx_int8.release()
    assert [e["event"] for e in logs] == ["could not shrink the model's memory arena"]
    monkeypatch.setattr(onnx_int8, "_session", working)
    assert onnx_int8.encode(["still here"]).shape == (1, onnx_int8.dim)
