"""Batched serving model: hand-worked steps, monotonic properties, KV capacity, CLI behaviour."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from generator.__main__ import main
from generator.catalog.load import load_catalog
from generator.estimate import serving, serving_setup
from generator.estimate.serving import ServingConstants, ServingDevice
from generator.estimate.speed import AttentionGroup, Workload
from generator.sitedata.adapters import device_spec, model_spec

C = ServingConstants("test", bandwidth_efficiency=0.5, compute_efficiency=0.5, step_s=0.002, all_reduce_s=0.0)
DEVICE = ServingDevice(bandwidth_bytes_per_s=2e12, flops=1e15)
DENSE = Workload(dense_weight_bytes=16_000_000_000, linear_flops_per_token=16e9, n_layers=32,
                 attention=(AttentionGroup(131072, 0.0),), hidden_size=4096, quantized=False)
MOE = Workload(dense_weight_bytes=2_000_000_000, linear_flops_per_token=8e9, n_layers=32,
               expert_weight_bytes=32_000_000_000, experts_per_token=2, n_experts=8, hidden_size=4096)


def test_dense_hand_worked() -> None:
    # decode, 8 requests at mean depth 1000 + 999/2 → 1500 cached tokens:
    #   memory (16e9 + 8 × 131072 × 1500 B) / (0.5 × 2e12 B/s) = 17.572864 ms; compute 8 × 16e9 / 0.5e15 = 0.256 ms
    #   decode step = 17.572864 + 2 (fixed) = 19.572864 ms
    # prefill: 8 × 1000 / 1000 = 8 prompt tokens per step in chunks of one 1000-token prompt:
    #   chunk = max(16e9 / 1e12 = 16 ms, 1000 × 16e9 / 0.5e15 = 32 ms) = 32 ms, 8/1000 of it per step = 0.256 ms
    point = serving.serve(DENSE, DEVICE, C, 8, 1000, 1000)
    step = 0.019572864 + 0.000256
    assert point.step_s == pytest.approx(step, rel=1e-9)
    assert point.tokens_per_s_per_user == pytest.approx(1 / step, rel=1e-9)
    assert point.output_tokens_per_s_per_gpu == pytest.approx(8 / step, rel=1e-9)  # 403.45 tok/s
    assert point.total_tokens_per_s_per_gpu == pytest.approx(16 / step, rel=1e-9)
    # TTFT: half the running decode step, then one chunk step (decode 19.572864 ms + prompt 32 ms) stretched by
    # 1 / (1 − ρ) for the prompts ahead, ρ = 0.256 / 19.828864 = 1.2910 % of the time on prompts: 62.0338 ms
    share = 0.000256 / step
    assert point.prefill_share == pytest.approx(share, rel=1e-9)
    assert point.ttft_s == pytest.approx(0.019572864 / 2 + (0.019572864 + 0.032) / (1 - share), rel=1e-9)
    assert point.ttft_s == pytest.approx(0.0620338, rel=1e-6)


def test_request_latency_adds_to_ttft_only() -> None:
    base = serving.serve(DENSE, DEVICE, C, 4, 1000, 1000)
    more = serving.serve(DENSE, DEVICE, replace(C, request_s=0.03), 4, 1000, 1000)
    assert more.ttft_s == pytest.approx(base.ttft_s + 0.03, rel=1e-12)
    assert more.step_s == base.step_s and more.tokens_per_s_per_user == base.tokens_per_s_per_user


def test_moe_hand_worked() -> None:
    # 4 requests touch 1 − (6/8)^4 = 0.68359375 of the experts: 2e9 + 32e9 × 0.68359375 = 23.875e9 B → 23.875 ms
    # compute 4 × 8e9 / 0.5e15 = 0.064 ms; decode = 25.875 ms. Prefill: 4 × 100/100 = 4 tokens per step in
    # 100-token prompts that touch (almost) all experts: 34e9 B → 34 ms, 4/100 of it per step = 1.36 ms
    point = serving.serve(MOE, DEVICE, C, 4, 100, 100)
    assert point.step_s == pytest.approx(0.025875 + 0.00136, rel=1e-9)
    assert point.output_tokens_per_s_per_gpu == pytest.approx(4 / 0.027235, rel=1e-9)


def test_tensor_parallel_splits_and_adds_all_reduces() -> None:
    c = replace(C, all_reduce_s=1e-5)
    one = serving.decode_s(DENSE, DEVICE, c, 1, 1, 1)
    two = serving.decode_s(DENSE, replace(DEVICE, gpu_count=2, tensor_parallel=2, interconnect_bytes_per_s=4.5e11),
                           c, 1, 1, 1)
    memory = (16e9 + 131072) / 1e12
    # 2 collectives × 32 layers × (10 µs + 2 B × 4096 × 1 token × 2 × ½ / 450 GB/s)
    comm = 2 * 32 * (1e-5 + 2 * 4096 * 1 / 4.5e11)
    assert one == pytest.approx(memory + 0.002)
    assert two == pytest.approx(memory / 2 + 0.002 + comm)


@pytest.mark.parametrize("work", [DENSE, MOE], ids=["dense", "moe"])
@pytest.mark.parametrize("prompt,output", [(1000, 1000), (8000, 1000), (1000, 8000), (128, 2048)])
def test_throughput_rises_and_user_speed_falls_with_concurrency(work: Workload, prompt: int, output: int) -> None:
    points = [serving.serve(work, DEVICE, C, n, prompt, output) for n in range(1, 2049, 7)]
    for a, b in zip(points, points[1:]):
        assert b.output_tokens_per_s_per_gpu >= a.output_tokens_per_s_per_gpu * (1 - 1e-12)
        assert b.tokens_per_s_per_user <= a.tokens_per_s_per_user * (1 + 1e-12)
        assert b.ttft_s >= a.ttft_s * (1 - 1e-12)


@pytest.mark.parametrize("work", [DENSE, MOE], ids=["dense", "moe"])
def test_more_bandwidth_never_lowers_throughput(work: Workload) -> None:
    for n in (1, 16, 256):
        slow = serving.serve(work, DEVICE, C, n, 1000, 1000)
        fast = serving.serve(work, replace(DEVICE, bandwidth_bytes_per_s=4e12), C, n, 1000, 1000)
        assert fast.output_tokens_per_s_per_gpu >= slow.output_tokens_per_s_per_gpu
        assert fast.tokens_per_s_per_user >= slow.tokens_per_s_per_user


def test_kv_capacity() -> None:
    assert serving.kv_capacity(10_000, 3_000) == 3
    assert serving.kv_capacity(2_999, 3_000) == 0
    with pytest.raises(ValueError):
        serving.kv_capacity(1, 0)


def test_operating_point_is_fastest_throughput_at_20_tokens_per_user() -> None:
    points = serving.sweep(DENSE, DEVICE, C, 1000, 1000, 500)
    best = serving.operating_point(DENSE, DEVICE, C, 1000, 1000, 500)
    assert best is not None and best.tokens_per_s_per_user >= 20
    assert serving.serve(DENSE, DEVICE, C, best.concurrency + 1, 1000, 1000).tokens_per_s_per_user < 20
    assert all(p.tokens_per_s_per_user < 20 or p.output_tokens_per_s_per_gpu <= best.output_tokens_per_s_per_gpu
               for p in points)
    assert points[-1].concurrency == 500
    assert serving.operating_point(DENSE, replace(DEVICE, bandwidth_bytes_per_s=2e11), C, 1000, 1000, 500) is None


# ---------------------------------------------------------------------------------------------- real models


@pytest.fixture(scope="module")
def catalog():
    return load_catalog(Path("catalog"))


def _estimate(catalog, model: str, gpu: str, count: int, **kw) -> serving_setup.ServingEstimate:
    spec = model_spec(catalog.models[model])
    return serving_setup.serving_estimate(spec, device_spec(catalog.gpus[gpu], count, "tensor"),
                                          serving_setup.ServingRequest(**kw))


@pytest.mark.parametrize("engine", ["vllm", "sglang", "trtllm"])
def test_concurrency_never_exceeds_kv_capacity(catalog, engine: str) -> None:
    e = _estimate(catalog, "llama-3.1-8b", "h100-sxm", 1, engine=engine, precision="FP8", concurrency=100_000)
    assert 0 < e.point.concurrency == e.setup.max_concurrency < 100_000
    # requests twice as long (4,096 tokens: 256 pages of 16 instead of 128) fit half as many times
    long = _estimate(catalog, "llama-3.1-8b", "h100-sxm", 1, engine=engine, precision="FP8", prompt_tokens=2048,
                     output_tokens=2048)
    assert long.setup.max_concurrency in (e.setup.max_concurrency // 2, e.setup.max_concurrency // 2 + 1)


@pytest.mark.parametrize("gpu, count, tokens", [("h100-sxm", 1, 8192), ("h200", 2, 8192), ("a100-80gb-sxm", 1, 2048),
                                                ("rtx-4090", 1, 2048), ("rtx-4090", 4, 2048)])
def test_vllm_chunk_budget_follows_its_batch_defaults(catalog, gpu: str, count: int, tokens: int) -> None:
    # 70 GiB or more per GPU and not an A100: 8192 prompt tokens per step, else 2048 (per GPU, not per group)
    e = _estimate(catalog, "llama-3.1-8b", gpu, count, precision="BF16", prompt_tokens=4096, output_tokens=64,
                  concurrency=1)
    assert e.setup.constants.prefill_chunk_tokens == tokens
    sglang = _estimate(catalog, "llama-3.1-8b", gpu, count, engine="sglang", precision="BF16", concurrency=1)
    default = serving_setup.constants_for("sglang", "cuda").prefill_chunk_tokens
    assert sglang.setup.constants.prefill_chunk_tokens == default


def test_more_gpus_hold_more_requests(catalog) -> None:
    one = _estimate(catalog, "llama-3.3-70b", "h200", 1, precision="FP8")
    two = _estimate(catalog, "llama-3.3-70b", "h200", 2, precision="FP8")
    assert two.setup.max_concurrency > 2 * one.setup.max_concurrency  # the weights are split, the pool grows


def _cli(capsys, *args: str) -> tuple[int, str, str]:
    code = main(["estimate", *args])
    out, err = capsys.readouterr()
    return code, out, err


def test_cli_json_fields(capsys) -> None:
    code, out, _ = _cli(capsys, "--model", "deepseek-r1", "--gpu", "h200", "--gpu-count", "8", "--engine", "sglang",
                        "--quant", "FP8", "--prompt-tokens", "1024", "--output-tokens", "1024", "--concurrency",
                        "max", "--json")
    data = json.loads(out)
    assert code == 0
    for key in ("total_tokens_per_s_per_gpu", "output_tokens_per_s_per_gpu", "tokens_per_s_per_user", "ttft_s",
                "max_concurrency"):
        assert data[key] > 0, key
    assert data["concurrency"] == data["max_concurrency"]
    assert data["total_tokens_per_s_per_gpu"] == pytest.approx(2 * data["output_tokens_per_s_per_gpu"])


@pytest.mark.parametrize("args,words", [
    (["--model", "llama-3.3-70b", "--gpu", "h100-sxm", "--gpu-count", "3", "--quant", "FP8"], "divide"),
    (["--model", "llama-3.3-70b", "--gpu", "a100-80gb-sxm", "--gpu-count", "2", "--quant", "FP8"], "FP8"),
    (["--model", "llama-3.3-70b", "--gpu", "h100-sxm", "--gpu-count", "1", "--quant", "BF16"], "does not fit"),
    (["--model", "llama-3.1-8b", "--gpu", "mi300x", "--gpu-count", "1", "--quant", "NVFP4"], "NVIDIA"),
    (["--model", "llama-3.1-8b", "--gpu", "h100-sxm", "--gpu-count", "1", "--quant", "MXFP4"], "dense"),
    (["--model", "llama-3.1-8b", "--gpu", "h100-sxm", "--gpu-count", "2", "--tensor-parallel", "2",
      "--expert-parallel", "--quant", "FP8"], "dense"),
])
def test_cli_impossible_setups_exit_2_with_one_line(capsys, args: list[str], words: str) -> None:
    code, out, err = _cli(capsys, *args, "--engine", "vllm", "--prompt-tokens", "1024", "--output-tokens", "1024",
                          "--concurrency", "8")
    assert code == 2 and out == ""
    assert len(err.strip().splitlines()) == 1 and words in err
