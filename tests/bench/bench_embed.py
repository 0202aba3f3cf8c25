"""Benchmark: the ONNX int8 backend against torch fp32, on real symbol texts.

Not part of the test run. The texts are symbols of the Python standard library, parsed
with recalld's parsers and turned into embedded texts as a sync does (records.memory_text,
max_chars 1500). Both backends run in the same process, each with its default threads,
in turns: torch then ONNX, ``--rounds`` times (this machine's speed drifts by 10-25 %
over minutes; a single pair of runs read 2.97x and 3.03x on the same code an hour
apart). Prints each backend's median texts/s over the rounds, the median of the rounds'
ratios (target >= 3x) and each round's, the cosine of
int8 to fp32 vectors (target mean >= 0.99), the int8 texts/s with the onnxruntime fusions
recalld turns off turned on again (embed_onnx.SLOW_FUSIONS, same run), and texts/s of
texts that fill 128, 256 and 512 tokens (the token limit, embedding.max_tokens, is what
bounds the cost of long symbols).

    python tests/bench/bench_embed.py [--texts 1000] [--rounds 3] [--max-tokens 128] [--wait-load 1.0] [--quick]

Progress goes to stderr; stdout is the table alone (figure, value, target).

The model is exported to $RECALLD_MODEL_CACHE when set, else to a temporary directory
(the export time is printed then).
"""

from __future__ import annotations

import argparse
import os
import sys
import sysconfig
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from recalld.daemon.config import SCHEMA  # noqa: E402
from recalld.daemon.logs import configure_logging  # noqa: E402
from recalld.ingest import embed_onnx  # noqa: E402
from recalld.ingest.embed import Embedder  # noqa: E402
from recalld.ingest.embed_select import EmbeddingSettings, build_embedder, choose_backend  # noqa: E402
from tests.bench.bench_rounds import rounds_wording  # noqa: E402
from tests.bench.symbol_texts import symbol_texts  # noqa: E402

LENGTHS = (128, 256, 512)
DEFAULT_MAX_TOKENS = int(SCHEMA["embedding"]["max_tokens"][1])


def rate(embedder: Embedder, texts: Sequence[str]) -> tuple[float, np.ndarray]:
    embedder.encode(texts[:16])  # warm-up
    started = time.perf_counter()
    vectors = embedder.encode(texts)
    return len(texts) / (time.perf_counter() - started), vectors


def note(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def wait_for_load(limit: float, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while os.getloadavg()[0] >= limit and time.monotonic() < deadline:
        time.sleep(10)


def embedders(cache: Path, max_tokens: int) -> tuple[Embedder, Embedder]:
    torch = EmbeddingSettings(model_cache=cache, backend="torch", max_tokens=max_tokens)
    return build_embedder(torch, choose_backend(torch)), onnx_embedder(cache, max_tokens)


def onnx_embedder(cache: Path, max_tokens: int) -> Embedder:
    onnx = EmbeddingSettings(model_cache=cache, backend="onnx", max_tokens=max_tokens)
    started = time.perf_counter()
    choice = choose_backend(onnx)
    note(f"ONNX model ready in {time.perf_counter() - started:.1f} s ({choice.onnx_dir})")
    return build_embedder(onnx, choice)


def every_fusion(cache: Path, max_tokens: int) -> Embedder:
    """The ONNX backend with onnxruntime's every graph fusion, those recalld leaves out too."""
    left_out, embed_onnx.SLOW_FUSIONS = embed_onnx.SLOW_FUSIONS, []
    try:
        return onnx_embedder(cache, max_tokens)
    finally:
        embed_onnx.SLOW_FUSIONS = left_out


def long_texts(files: list[Path], count: int) -> list[str]:
    """Texts longer than 512 tokens: whole symbols of 6,000+ characters, else file chunks."""
    texts = [t for t in symbol_texts(files, limit=20_000, max_chars=8000) if len(t) >= 6000]
    chunks = (f.read_text(errors="replace")[:8000] for f in files)
    texts += [c for c in chunks if len(c) >= 6000]
    return texts[:count]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--texts", type=int, default=1000, help="symbol texts to embed with each backend")
    parser.add_argument("--rounds", type=int, help="turns of torch then ONNX on the texts, for the median (default 3)")
    parser.add_argument("--max-tokens", type=int, default=DEFAULT_MAX_TOKENS,
                        help=f"embedding.max_tokens (default {DEFAULT_MAX_TOKENS}, the configured default; 0: 256)")
    parser.add_argument("--long", type=int, default=96, help="texts per length in the token-length sweep")
    parser.add_argument("--wait-load", type=float, default=0.0, help="wait (<= 10 min) for load average below this")
    parser.add_argument("--quick", action="store_true", help="300 texts and 24 per length")
    args = parser.parse_args()
    configure_logging()  # to stderr: stdout is the table alone
    if args.quick:
        args.texts, args.long = 300, 24
    args.rounds = args.rounds or (1 if args.quick else 3)
    if args.rounds < 1:
        parser.error("--rounds must be at least 1")
    os.environ.setdefault("ORT_DISABLE_TELEMETRY", "1")
    stdlib = Path(sysconfig.get_paths()["stdlib"])
    files = sorted(stdlib.glob("*.py")) + sorted(stdlib.glob("*/*.py"))
    texts = symbol_texts(files, limit=args.texts)
    with tempfile.TemporaryDirectory() as tmp:
        cache = Path(os.environ.get("RECALLD_MODEL_CACHE") or tmp)
        torch, onnx = embedders(cache, args.max_tokens)
        tokens = [len(e.ids) for e in onnx._tokenizer.encode_batch(texts)]  # type: ignore[attr-defined]
        limit = onnx.max_tokens  # type: ignore[attr-defined]
        shape = f"{len(texts)}, {sum(map(len, texts)) / len(texts):.0f} chars, {np.mean(tokens):.0f} tokens"
        if args.wait_load:
            wait_for_load(args.wait_load, 600)
        load_before = os.getloadavg()[0]
        torch_rates, onnx_rates = [], []
        for _ in range(args.rounds):
            torch_rate, fp32 = rate(torch, texts)
            onnx_rate, int8 = rate(onnx, texts)
            torch_rates.append(torch_rate)
            onnx_rates.append(onnx_rate)
        torch_rate, onnx_rate = float(np.median(torch_rates)), float(np.median(onnx_rates))
        # the median of the rounds' ratios: a round's two runs are minutes apart at most,
        # the medians of the rates may come from rounds far apart
        ratios = [o / t for t, o in zip(torch_rates, onnx_rates)]
        ratio = float(np.median(ratios))
        fused_rate = rate(every_fusion(cache, args.max_tokens), texts)[0]
        cosines = (fp32 * int8).sum(axis=1)
        rounds, of_rounds = rounds_wording(args.rounds)
        rows = [
            (f"stdlib symbol texts (mean; max_tokens {limit})", shape, ""),
            (f"torch fp32 texts/s ({rounds})", f"{torch_rate:.1f}", ""),
            (f"ONNX int8 texts/s ({rounds})", f"{onnx_rate:.1f}", ""),
            (f"ONNX / torch ({of_rounds})", f"{ratio:.2f}x", ">= 3x"),
            ("ONNX / torch by round (torch vs ONNX texts/s)",
             ", ".join(f"{r:.2f}x ({t:.1f} vs {o:.1f})" for r, t, o in zip(ratios, torch_rates, onnx_rates)), ""),  # fmt: skip
            (f"ONNX int8 texts/s with {'+'.join(embed_onnx.SLOW_FUSIONS)} on",
             f"{fused_rate:.1f} ({onnx_rate / fused_rate:.2f}x off/on)", ""),  # fmt: skip
            ("cosine int8 vs fp32, mean", f"{cosines.mean():.4f}", ">= 0.99"),
            ("cosine int8 vs fp32, min", f"{cosines.min():.4f}", ""),
        ]
        longer = long_texts(files, args.long)
        for length in LENGTHS:
            torch_at, onnx_at = embedders(cache, length)
            rows.append((f"texts/s at {length} tokens, torch / ONNX ({len(longer)} texts)",
                         f"{rate(torch_at, longer)[0]:.1f} / {rate(onnx_at, longer)[0]:.1f}", ""))  # fmt: skip
    rows.append(("load average before / after", f"{load_before:.2f} / {os.getloadavg()[0]:.2f}", "< 1 (idle)"))
    rows.append(("threads (torch; onnxruntime: one per core)", f"{torch_threads()}; {os.cpu_count()} cores", ""))
    width, value_width = max(len(r[0]) for r in rows), max(len(r[1]) for r in rows)
    for name, value, target in rows:
        print(f"{name:<{width}}  {value:>{value_width}}  {target}".rstrip())
    return 0


def torch_threads() -> int:
    import torch

    return int(torch.get_num_threads())


if __name__ == "__main__":
    sys.exit(main())
