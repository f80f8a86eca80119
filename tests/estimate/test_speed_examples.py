"""Decode and prefill worked by hand for a dense, an MoE and a hybrid model; roofline and catalogue properties."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from generator.calibrate.fit_speed import MMQ_FACTOR_FLOOR
from generator.estimate import estimator, speed
from generator.estimate.speed import AttentionGroup, BackendConstants, SpeedDevice, Workload
from generator.sitedata.adapters import device_spec, model_spec

# Round constants of the current-era shape: no dequantisation or score traffic, per-layer launch cost only.
K = BackendConstants("cuda", bandwidth_efficiency=0.8, hbm_bandwidth_efficiency=0.5, kv_efficiency=0.5, launch_s=0.0,
                     launch_per_layer_s=5e-5, split_s=0.0, compute_efficiency=0.5, attention_efficiency=0.5,
                     dequant_factor=0.8, pipeline_efficiency=1.0)
DEV = SpeedDevice(bandwidth_bytes_per_s=1e12, fp16_flops=100e12, backend="cuda")

DENSE = Workload(dense_weight_bytes=4 * 10**9, linear_flops_per_token=1.4e10, n_layers=32,
                 attention=(AttentionGroup(kv_bytes_per_token=131_072, flops_per_key=1e6),))
MOE = Workload(dense_weight_bytes=10**9, linear_flops_per_token=6e9, n_layers=48,
               attention=(AttentionGroup(kv_bytes_per_token=98_304, flops_per_key=1e6),),
               expert_weight_bytes=2 * 10**10, experts_per_token=8, n_experts=128)
HYBRID = Workload(dense_weight_bytes=3 * 10**9, linear_flops_per_token=6e9, n_layers=48, state_bytes=6 * 10**7,
                  attention=(AttentionGroup(kv_bytes_per_token=16_384, flops_per_key=1e5),
                             AttentionGroup(kv_bytes_per_token=8_192, flops_per_key=1e5, window_tokens=128)))


def test_dense_decode_and_prefill_by_hand() -> None:
    # Decode at depth 4096: 4e9 B / (0.8 × 1e12) = 5 ms; KV 131,072 B × 4096 / (0.5 × 1e12) = 1.073741824 ms;
    # launches 32 × 50 µs = 1.6 ms.
    assert speed.decode_step_s(DENSE, DEV, K, depth=4096) == pytest.approx(5e-3 + 1.073741824e-3 + 1.6e-3)
    # Prefill of 512 tokens: quantised matmul 512 × 1.4e10 × 0.8 / (0.5 × 1e14) = 114.688 ms; attention
    # Σ(1..512) = 131,328 keys × 1e6 / (0.5 × 1e14) = 2.62656 ms; weights (5 ms) hide under compute; launches 1.6 ms.
    assert speed.prefill_s(DENSE, DEV, K, prompt_tokens=512) == pytest.approx(114.688e-3 + 2.62656e-3 + 1.6e-3)


def test_moe_decode_and_prefill_by_hand() -> None:
    # Decode at depth 0: 1e9 dense + 2e10 × 8/128 experts = 2.25e9 B / 0.8e12 = 2.8125 ms; launches 48 × 50 µs; the
    # token's attention to its own key, 1e6 FLOPs / 5e13.
    assert speed.decode_step_s(MOE, DEV, K) == pytest.approx(2.8125e-3 + 2.4e-3 + 1e6 / 5e13)
    # Prefill of 512 tokens touches (nearly) every expert: 2.1e10 B / 0.8e12 = 26.25 ms of weights, below the compute
    # 512 × 6e9 × 0.8 / 5e13 = 49.152 ms; attention 131,328 × 1e6 / 5e13 = 2.62656 ms; launches 2.4 ms.
    assert speed.prefill_s(MOE, DEV, K, prompt_tokens=512) == pytest.approx(49.152e-3 + 2.62656e-3 + 2.4e-3)


def test_quantised_prefill_bound_by_the_fp32_rate_by_hand() -> None:
    # Current builds' MMQ at 2 FLOPs per FP32 FLOP of a 20 TFLOPS card: 512 × 1.4e10 / (2 × 2e13) = 179.2 ms, slower
    # than the tensor path's 114.688 ms, so it binds; attention (2.62656 ms) and launches (1.6 ms) as above.
    mmq = dataclasses.replace(K, mmq_flops_per_fp32_flop=2.0)
    dev = dataclasses.replace(DEV, fp32_flops=20e12)
    assert speed.prefill_s(DENSE, dev, mmq, prompt_tokens=512) == pytest.approx(179.2e-3 + 2.62656e-3 + 1.6e-3)
    # A faster FP32 rate (50 TFLOPS: 71.68 ms) leaves the tensor path binding; 16-bit weights never take the MMQ path;
    # a GPU without an FP32 figure, or constants without μ (2024 builds), keep the tensor path.
    tensor = 114.688e-3 + 2.62656e-3 + 1.6e-3
    assert speed.prefill_s(DENSE, dataclasses.replace(DEV, fp32_flops=50e12), mmq, 512) == pytest.approx(tensor)
    assert speed.prefill_s(DENSE, DEV, mmq, 512) == pytest.approx(tensor)
    assert speed.prefill_s(DENSE, dev, K, 512) == pytest.approx(tensor)
    f16 = dataclasses.replace(DENSE, quantized=False)
    assert speed.prefill_s(f16, dev, mmq, 512) == pytest.approx(speed.prefill_s(f16, DEV, K, 512))


def test_quantised_prefill_without_a_tensor_figure_takes_the_fp32_bound_by_hand() -> None:
    # No sourced tensor rate (DGX Spark): the MMQ time alone, 512 × 1.4e10 / (2 × 5e13) = 71.68 ms, not the family
    # balance's 50 FLOPs per byte × 1 TB/s (which would take 512 × 1.4e10 × 0.8 / (0.5 × 5e13) = 229.376 ms); the
    # attention still runs at the balance's rate: 131,328 × 1e6 / (0.5 × 5e13) = 5.25312 ms; launches 1.6 ms.
    mmq = dataclasses.replace(K, mmq_flops_per_fp32_flop=2.0, flops_per_byte=50.0)
    spark = dataclasses.replace(DEV, fp16_flops=None, fp32_flops=50e12)
    assert speed.prefill_s(DENSE, spark, mmq, 512) == pytest.approx(71.68e-3 + 5.25312e-3 + 1.6e-3)
    # Without an FP32 figure the balance stands in for the tensor path, as before.
    assert speed.prefill_s(DENSE, dataclasses.replace(spark, fp32_flops=None), mmq, 512) == pytest.approx(
        229.376e-3 + 5.25312e-3 + 1.6e-3)


def test_gemm_power_bound_by_hand() -> None:
    # cuBLAS F16 GEMMs at most ε × TDP: 0.1 TFLOPS per W × 300 W = 3e13 FLOPS, so the 16-bit prefill's
    # 512 × 1.4e10 FLOPs take 238.933… ms instead of the tensor path's 512 × 1.4e10 / (0.5 × 1e14) = 143.36 ms;
    # attention (2.62656 ms) and launches (1.6 ms) as above.
    power = dataclasses.replace(K, gemm_tflops_per_watt=0.1)
    f16 = dataclasses.replace(DENSE, quantized=False)
    board = dataclasses.replace(DEV, tdp_w=300.0)
    assert speed.prefill_s(f16, board, power, 512) == pytest.approx(512 * 1.4e10 / 3e13 + 2.62656e-3 + 1.6e-3)
    # 1000 W (1e14 FLOPS) leaves the tensor path binding; no TDP, or no fitted ε, means no bound.
    tensor = speed.prefill_s(f16, DEV, K, 512)
    assert tensor == pytest.approx(143.36e-3 + 2.62656e-3 + 1.6e-3)
    assert speed.prefill_s(f16, dataclasses.replace(DEV, tdp_w=1000.0), power, 512) == pytest.approx(tensor)
    assert speed.prefill_s(f16, DEV, power, 512) == pytest.approx(tensor)
    assert speed.prefill_s(f16, board, K, 512) == pytest.approx(tensor)
    # 2024 builds dequantise quantised weights for the same GEMMs: bound alike (238.933 ms > 114.688 ms). Current
    # builds' MMQ (μ fitted) does not run cuBLAS: the quantised prefill keeps its MMQ time.
    assert speed.prefill_s(DENSE, board, power, 512) == pytest.approx(512 * 1.4e10 / 3e13 + 2.62656e-3 + 1.6e-3)
    mmq = dataclasses.replace(power, mmq_flops_per_fp32_flop=2.0)
    assert speed.prefill_s(DENSE, board, mmq, 512) == pytest.approx(speed.prefill_s(DENSE, DEV, mmq, 512))


def test_dp4a_mmq_by_hand() -> None:
    # Pascal (dp4a, no tensor cores): MMQ at ν = 1.25 FLOPs per FP32 FLOP of a 10 TFLOPS card, whatever the tensor
    # figure: 512 × 1.4e10 / 1.25e13 = 573.44 ms; attention and launches as above.
    pascal = dataclasses.replace(DEV, mmq="dp4a", fp32_flops=10e12)
    dp4a = dataclasses.replace(K, dp4a_flops_per_fp32_flop=1.25, mmq_flops_per_fp32_flop=2.0)
    assert speed.prefill_s(DENSE, pascal, dp4a, 512) == pytest.approx(573.44e-3 + 2.62656e-3 + 1.6e-3)
    # 16-bit weights, a card with tensor cores, or constants without ν keep their usual paths.
    f16 = dataclasses.replace(DENSE, quantized=False)
    assert speed.prefill_s(f16, pascal, dp4a, 512) == pytest.approx(speed.prefill_s(f16, DEV, K, 512))
    turing = dataclasses.replace(pascal, mmq="mma")
    assert speed.prefill_s(DENSE, turing, dp4a, 512) == pytest.approx(512 * 1.4e10 / 2e13 + 2.62656e-3 + 1.6e-3)
    assert speed.prefill_s(DENSE, pascal, K, 512) == pytest.approx(speed.prefill_s(DENSE, DEV, K, 512))


def test_hybrid_decode_by_hand() -> None:
    # Depth 32,768: weights 3.75 ms; recurrent state 6e7 / 0.8e12 = 75 µs; full-attention KV 16,384 × 32,768 / 0.5e12
    # = 1.073741824 ms; the window layers read only 128 tokens: 8192 × 128 / 0.5e12 = 2.097152 µs; launches 2.4 ms.
    expected = 3.75e-3 + 75e-6 + 1.073741824e-3 + 2.097152e-6 + 2.4e-3
    assert speed.decode_step_s(HYBRID, DEV, K, depth=32_768) == pytest.approx(expected)
    # At depth 0 only weights, state and launches remain.
    assert speed.decode_step_s(HYBRID, DEV, K) == pytest.approx(3.75e-3 + 75e-6 + 2.4e-3)


def test_ttft_is_prefill_plus_the_first_decode_step() -> None:
    prefill = speed.prefill_s(DENSE, DEV, K, prompt_tokens=4096)
    assert speed.ttft_s(DENSE, DEV, K, prompt_tokens=4096) == pytest.approx(
        prefill + speed.decode_step_s(DENSE, DEV, K, depth=4096))


workloads = st.sampled_from([DENSE, MOE, HYBRID, dataclasses.replace(DENSE, quantized=False)])


@settings(max_examples=80, deadline=None)
@given(work=workloads, backend=st.sampled_from(["cuda", "metal", "rocm"]), bw=st.floats(5e10, 1e13),
       flops=st.floats(1e12, 3e15), geforce=st.booleans(), hbm=st.booleans(), depth=st.integers(0, 65_536),
       prompt=st.integers(1, 8192), fp32=st.one_of(st.none(), st.floats(1e12, 2e14)),
       tdp=st.one_of(st.none(), st.floats(30.0, 1500.0)), mmq=st.sampled_from(["mma", "dp4a", "none"]))
def test_prefill_never_beats_the_compute_roofline(work: Workload, backend: str, bw: float, flops: float,
                                                  geforce: bool, hbm: bool, depth: int, prompt: int,
                                                  fp32: float | None, tdp: float | None, mmq: str) -> None:
    dev = SpeedDevice(bw, flops, backend, fp16_accumulate_doubles=geforce, hbm=hbm, fp32_flops=fp32, tdp_w=tdp,
                      mmq=mmq)
    c = speed.constants_for(backend)
    rate = speed.prefill_tokens_per_s(work, dev, c, prompt, depth) * work.linear_flops_per_token
    if mmq == "dp4a" and work.quantized and fp32 is not None and c.dp4a_flops_per_fp32_flop is not None:
        # dp4a: 4 int8 multiply-adds per instruction where an FP32 FMA does 1, so never above 4 × the FP32 rate.
        assert rate <= min(c.dp4a_flops_per_fp32_flop, 4.0) * fp32 * (1 + 1e-9)
        return
    # The fastest unit a matmul can use: the F16 GEMM rate, or int8 tensor cores (twice it) for quantised weights.
    peak = dev.gemm_flops(c) * (1 / MMQ_FACTOR_FLOOR if work.quantized else 1.0)
    assert rate <= peak
    if work.quantized and mmq == "mma" and fp32 is not None and c.mmq_flops_per_fp32_flop is not None:
        assert rate <= c.mmq_flops_per_fp32_flop * fp32 * (1 + 1e-9)  # current MMQ: never above μ × the FP32 rate
    if (not work.quantized or mmq == "none") and tdp is not None and c.gemm_tflops_per_watt is not None:
        assert rate <= c.gemm_tflops_per_watt * 1e12 * tdp * (1 + 1e-9)  # cuBLAS GEMMs: never above ε × the board power


@settings(max_examples=80, deadline=None)
@given(work=workloads, backend=st.sampled_from(["cuda", "metal", "vulkan"]), bw=st.floats(5e10, 1e13),
       factor=st.floats(1.0, 20.0), hbm=st.booleans(), graphs=st.booleans(), depth=st.integers(0, 100_000),
       extra=st.integers(1, 100_000))
def test_more_bandwidth_never_slower_and_more_depth_never_faster(work: Workload, backend: str, bw: float,
                                                                 factor: float, hbm: bool, graphs: bool, depth: int,
                                                                 extra: int) -> None:
    slow = SpeedDevice(bw, 100e12, backend, hbm=hbm, graphs=graphs)
    fast = dataclasses.replace(slow, bandwidth_bytes_per_s=bw * factor)
    assert speed.decode_tokens_per_s(work, fast, depth=depth) >= speed.decode_tokens_per_s(work, slow, depth=depth)
    assert speed.decode_tokens_per_s(work, slow, depth=depth + extra) <= speed.decode_tokens_per_s(work, slow, depth=depth)


@pytest.fixture(scope="module")
def catalog():
    from generator.catalog.load import load_catalog

    return load_catalog(Path("catalog"))


@pytest.mark.slow
@pytest.mark.parametrize("model_id,quant", [("llama-3.1-8b", "Q4_K_M"), ("glm-4.5-air", "Q8_0")])
def test_catalogue_gpus_of_different_bandwidth_never_tie(catalog, model_id: str, quant: str) -> None:
    spec = model_spec(catalog.models[model_id])
    request = estimator.Request(quant=quant, context_tokens=4096)
    speeds: dict[float, set[float]] = {}
    for gpu in catalog.gpus.values():
        e = estimator.estimate(spec, device_spec(gpu), request)
        if e.verdict in ("fits", "tight"):
            speeds.setdefault(round(e.decode_tokens_per_s, 6), set()).add(gpu.bandwidth_gb_per_s)
    assert len(speeds) > 5
    assert all(len(bandwidths) == 1 for bandwidths in speeds.values()), speeds
