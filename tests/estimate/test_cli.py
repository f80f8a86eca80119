"""``python -m generator estimate``: table, JSON, and one-line errors with exit status 2."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import pytest
import yaml

from generator.__main__ import main
from tests.estimate.fixtures import LLAMA_8B, config

SOURCE = [{"url": "https://example.org/spec", "read": dt.date(2026, 11, 30), "fields": ["memory_bytes"]}]  # a date, not text


@pytest.fixture()
def catalog(tmp_path: Path) -> Path:
    root = tmp_path / "catalog"
    for kind in ("models", "gpus", "clouds"):
        (root / kind).mkdir(parents=True)
    gpu = {"id": "test-24", "name": "Test GPU 24GB", "vendor": "nvidia", "segment": "consumer",
           "memory_bytes": 24 * 2**30, "memory_type": "GDDR6X", "bandwidth_gb_per_s": 1008,
           "fp16_tensor_tflops": 165.2, "backends": ["cuda"], "sources": SOURCE}
    model = {"id": "llama-3.1-8b", "name": "Llama 3.1 8B", "family": "Llama 3.1", "org": "Meta",
             "hf_repo": "meta-llama/Llama-3.1-8B-Instruct", "total_params": 8_030_261_248, "context_length": 131072,
             "config": config(LLAMA_8B), "sources": [{**SOURCE[0], "fields": ["config"]}]}
    (root / "gpus" / "test-24.yaml").write_text(yaml.safe_dump(gpu), encoding="utf-8")
    (root / "models" / "llama-3.1-8b.yaml").write_text(yaml.safe_dump(model), encoding="utf-8")
    return root


def test_json_output(catalog, capsys):
    assert main(["estimate", "--model", "meta-llama/Llama-3.1-8B-Instruct", "--gpu", "Test GPU 24GB",
                 "--catalog", str(catalog), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["verdict"] == "fits" and out["file_size_bytes"] == 4_918_541_312
    for key in ("weights_bytes", "kv_cache_bytes", "runtime_overhead_bytes", "total_bytes", "usable_bytes",
                "max_context_tokens", "decode_tokens_per_s", "prefill_tokens_per_s", "ttft_s", "assumptions"):
        assert key in out


def test_table_output_and_config_file(catalog, tmp_path, capsys):
    path = tmp_path / "config.json"
    path.write_text(json.dumps(config(LLAMA_8B)), encoding="utf-8")
    assert main(["estimate", "--config", str(path), "--gpu", "test-24", "--catalog", str(catalog),
                 "--quant", "Q8_0", "--context", "32768", "--kv-type", "q8_0"]) == 0
    out = capsys.readouterr().out
    assert "verdict" in out and "Q8_0" in out and "assumptions:" in out


@pytest.mark.parametrize("args", [
    ["--model", "no-such-model", "--gpu", "test-24"],
    ["--model", "llama-3.1-8b", "--gpu", "no-such-gpu"],
    ["--model", "llama-3.1-8b", "--gpu", "test-24", "--quant", "Q7_K"],
    ["--model", "llama-3.1-8b", "--gpu", "test-24", "--context", "-5"],
    ["--model", "llama-3.1-8b", "--gpu", "test-24", "--context", "lots"],
    ["--model", "llama-3.1-8b", "--gpu", "test-24", "--kv-type", "q3"],
    ["--model", "llama-3.1-8b", "--gpu", "test-24", "--engine", "tgi"],
    ["--model", "llama-3.1-8b"],
    ["--gpu", "test-24"],
    ["--config", "/nonexistent/config.json", "--gpu", "test-24"],
])
def test_bad_arguments_exit_2_with_one_line(catalog, capsys, args):
    assert main(["estimate", *args, "--catalog", str(catalog)]) == 2
    captured = capsys.readouterr()
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in captured.err and captured.out == ""


@pytest.mark.parametrize("args,option,words", [
    (["--context", "1000000"], "--context", "131,072"),  # above the model's maximum context
    (["--depth", "130000"], "--depth", "131,072"),  # depth + the 4096-token prompt run past it
    (["--gpu-count", "100000"], "--gpu-count", "32 layers"),  # llama.cpp splits by layers
    (["--gpu-count", "3", "--engine", "vllm", "--quant", "BF16"], "--gpu-count", "32 attention heads"),
    (["--quant", "MXFP4_MOE"], "--quant", "no routed experts"),  # a dense model has no experts to keep in MXFP4
    (["--quant", "MXFP4", "--engine", "vllm"], "--quant", "no MXFP4 checkpoint"),
])
def test_impossible_requests_exit_2_naming_the_option(catalog, capsys, args, option, words):
    assert main(["estimate", "--model", "llama-3.1-8b", "--gpu", "test-24", *args, "--catalog", str(catalog)]) == 2
    captured = capsys.readouterr()
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1 and option in lines[0] and words in lines[0] and captured.out == ""


def test_unusable_config_exits_2(catalog, tmp_path, capsys):
    path = tmp_path / "config.json"
    path.write_text(json.dumps({"model_type": "llama"}), encoding="utf-8")
    assert main(["estimate", "--config", str(path), "--gpu", "test-24", "--catalog", str(catalog)]) == 2
    assert "hidden_size" in capsys.readouterr().err


def test_backend_option_picks_that_backends_constants(catalog, capsys):
    path = catalog / "gpus" / "test-24.yaml"
    gpu = yaml.safe_load(path.read_text(encoding="utf-8"))
    path.write_text(yaml.safe_dump({**gpu, "backends": ["cuda", "vulkan"]}), encoding="utf-8")
    runs = {}
    for backend in ("cuda", "vulkan"):
        assert main(["estimate", "--model", "llama-3.1-8b", "--gpu", "test-24", "--backend", backend, "--json",
                     "--catalog", str(catalog)]) == 0
        runs[backend] = json.loads(capsys.readouterr().out)
    assert runs["vulkan"]["assumptions"]["speed.family"].startswith("vulkan")
    assert runs["cuda"]["assumptions"]["speed.family"].startswith("cuda")
    assert runs["vulkan"]["decode_tokens_per_s"] != runs["cuda"]["decode_tokens_per_s"]
    assert main(["estimate", "--model", "llama-3.1-8b", "--gpu", "test-24", "--backend", "rocm",
                 "--catalog", str(catalog)]) == 2
    assert "--backend" in capsys.readouterr().err
