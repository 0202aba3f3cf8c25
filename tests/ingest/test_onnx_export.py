"""The ONNX export cache and the backend choice, without the model: the export itself is
replaced by a stand-in that writes the same files (the real one is in test_embed_backends)."""

from __future__ import annotations

import errno
import fcntl
import json
import os
import sys
import threading
import time
from pathlib import Path

import pytest

from recalld.ingest import onnx_export
from recalld.ingest.embed_select import EmbeddingSettings, choose_backend, model_id_for
from recalld.ingest.errors import RecalldError
from recalld.ingest.onnx_export import META_FILE, MODEL_FILE, RECIPE, ensure_exported, is_exported, model_dir


def fake_export(calls: list[str], *, delay: float = 0.0, fail: bool = False):
    def export(location: str, model_id: str, work: Path) -> None:
        calls.append(model_id)
        (work / MODEL_FILE).write_bytes(b"graph" * 1000)
        time.sleep(delay)
        if fail:
            raise RuntimeError("tracing failed")
        (work / META_FILE).write_text(json.dumps({"recipe": RECIPE, "model_id": model_id}))

    return export


def test_exports_once_then_reuses(tmp_path, monkeypatch, capsys):
    calls: list[str] = []
    monkeypatch.setattr(onnx_export, "_export", fake_export(calls))
    first = ensure_exported("loc", "some/model@1", tmp_path)
    again = ensure_exported("loc", "some/model@1", tmp_path)
    assert first == again == model_dir(tmp_path, "some/model@1") and calls == ["some/model@1"]
    assert (first / MODEL_FILE).is_file() and "/" not in first.name
    assert "exporting model to ONNX, once" in "".join(capsys.readouterr())
    assert model_dir(tmp_path, "some/model@1") != model_dir(tmp_path, "some_model@1")
    assert [p.name for p in tmp_path.iterdir()] == [first.name]  # no temp dir left


def test_a_command_is_told_of_an_export_and_not_of_a_reuse(tmp_path, monkeypatch):
    """The CLI logs warnings only: a first run's export (a minute) reaches it as notices."""
    told: list[str] = []
    monkeypatch.setattr(onnx_export, "_export", fake_export([]))
    settings = EmbeddingSettings(model_cache=tmp_path)
    first = choose_backend(settings, notice=told.append)
    assert first.backend == "onnx" and len(told) == 2
    assert "exporting the embedding model" in told[0] and str(first.onnx_dir) in told[0]
    assert "later runs reuse it" in told[1]
    choose_backend(settings, notice=told.append)
    assert len(told) == 2


def test_failed_export_is_a_clear_error_and_leaves_nothing(tmp_path, monkeypatch):
    monkeypatch.setattr(onnx_export, "_export", fake_export([], fail=True))
    with pytest.raises(RecalldError, match="cannot export model 'm' to ONNX: RuntimeError: tracing failed"):
        ensure_exported("loc", "m", tmp_path)
    assert list(tmp_path.iterdir()) == []


def test_concurrent_exporters_leave_one_whole_copy(tmp_path, monkeypatch):
    """One exports; the others wait for it (a daemon and a command started together on a
    new machine each spent ~30 s of both cores on an export, and one was thrown away)."""
    calls: list[str] = []
    monkeypatch.setattr(onnx_export, "_export", fake_export(calls, delay=0.2))
    results: list[Path] = []
    threads = [threading.Thread(target=lambda: results.append(ensure_exported("loc", "m", tmp_path))) for _ in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(results) == 3 and len(set(results)) == 1
    assert calls == ["m"]  # the others waited for the first, then took its copy
    assert sorted(p.name for p in results[0].iterdir()) == sorted([META_FILE, MODEL_FILE])
    assert [p.name for p in tmp_path.iterdir()] == [results[0].name]


def test_a_command_waiting_for_another_exporter_is_told_so(tmp_path, monkeypatch):
    calls: list[str] = []
    monkeypatch.setattr(onnx_export, "_export", fake_export(calls))
    directory = model_dir(tmp_path, "m")
    with open(tmp_path / f".{directory.name}.lock", "a") as held:  # another process exporting
        fcntl.flock(held, fcntl.LOCK_EX)
        told: list[str] = []
        waiter = threading.Thread(target=ensure_exported, args=("loc", "m", tmp_path), kwargs={"notice": told.append})
        waiter.start()
        deadline = time.monotonic() + 5
        while not told and time.monotonic() < deadline:
            time.sleep(0.01)
        assert told == [f"waiting for another process exporting the embedding model m into {directory}"]
        directory.mkdir()
        fake_export([])("loc", "m", directory)  # the other's export, published
    waiter.join(timeout=5)
    assert calls == [] and told[1:] == []  # it found the other's export


def test_a_cache_on_a_file_system_without_locks_still_exports(tmp_path, monkeypatch):
    calls: list[str] = []
    monkeypatch.setattr(onnx_export, "_export", fake_export(calls))

    def no_locks(handle: object, operation: int) -> None:
        raise OSError(errno.ENOLCK, "No locks available")

    monkeypatch.setattr(onnx_export.fcntl, "flock", no_locks)
    assert is_exported(ensure_exported("loc", "m", tmp_path)) and calls == ["m"]
    assert [p.name for p in tmp_path.iterdir()] == [model_dir(tmp_path, "m").name]


def test_temp_dir_of_a_dead_exporter_is_removed(tmp_path, monkeypatch):
    monkeypatch.setattr(onnx_export, "_export", fake_export([]))
    name = model_dir(tmp_path, "m").name
    dead = tmp_path / f".{name}.999999999.abc"
    dead.mkdir()
    (dead / MODEL_FILE).write_bytes(b"half")
    live = tmp_path / f".{name}.{os.getpid()}.xyz"  # a live exporter's: kept
    live.mkdir()
    ensure_exported("loc", "m", tmp_path)
    assert not dead.exists() and live.exists()


def test_model_ids_distinguish_backend_text_form_and_token_limit(tmp_path):
    settings = EmbeddingSettings(model_cache=tmp_path, words_only=False)
    torch, onnx = model_id_for(settings, "torch"), model_id_for(settings, "onnx")
    assert torch == "all-MiniLM-L6-v2@gt-0.1.0" and onnx == f"{torch}+{RECIPE}"
    shorter = EmbeddingSettings(model_cache=tmp_path, max_tokens=128)  # words only, the default
    assert model_id_for(shorter, "onnx") == f"{onnx}+words+max128t"


def test_auto_falls_back_to_torch_when_export_fails(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(onnx_export, "_export", fake_export([], fail=True))
    choice = choose_backend(EmbeddingSettings(model_cache=tmp_path))
    assert (choice.backend, choice.model_id, choice.onnx_dir) == ("torch", "all-MiniLM-L6-v2@gt-0.1.0+words", None)
    assert "ONNX backend unavailable; embedding with torch" in "".join(capsys.readouterr())
    with pytest.raises(RecalldError, match="cannot export model"):
        choose_backend(EmbeddingSettings(model_cache=tmp_path, backend="onnx"))


def test_auto_falls_back_to_torch_without_onnxruntime(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "onnxruntime", None)  # import raises ImportError
    monkeypatch.setattr(onnx_export, "_export", fake_export([]))
    assert choose_backend(EmbeddingSettings(model_cache=tmp_path)).backend == "torch"
    with pytest.raises(RecalldError, match="onnxruntime is not importable"):
        choose_backend(EmbeddingSettings(model_cache=tmp_path, backend="onnx"))


def test_torch_backend_and_gpu_devices_never_export(tmp_path, monkeypatch):
    calls: list[str] = []
    monkeypatch.setattr(onnx_export, "_export", fake_export(calls))
    assert choose_backend(EmbeddingSettings(model_cache=tmp_path, backend="torch")).backend == "torch"
    assert choose_backend(EmbeddingSettings(model_cache=tmp_path, device="cuda")).backend == "torch"
    with pytest.raises(RecalldError, match="CPU only"):
        choose_backend(EmbeddingSettings(model_cache=tmp_path, backend="onnx", device="cuda"))
    assert calls == []
