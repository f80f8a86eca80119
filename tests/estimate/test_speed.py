"""Speed model: hand-computed decode, prefill and TTFT on round numbers, and monotonicity properties."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from generator.estimate import speed
from generator.estimate.backend import BackendConstants
from generator.estimate.speed import AttentionGroup, SpeedDevice, Workload

# Round constants so expected values can be worked out by hand.
C = BackendConstants("cuda", bandwidth_efficiency=0.5, hbm_bandwidth_efficiency=0.4, kv_efficiency=0.25,
                     launch_s=1e-3, launch_per_layer_s=1e-4, split_s=5e-4, compute_efficiency=0.5,
                     attention_efficiency=0.1, dequant_factor=2.0, pipeline_efficiency=1.0)
SELF_ATTN = 1e6 / (0.1 * 100e12)  # a decode step at depth 0 still attends to its own key: 1e6 FLOPs at η_attn·F
DEV = SpeedDevice(bandwidth_bytes_per_s=1e12, fp16_flops=100e12, backend="cuda")
WORK = Workload(dense_weight_bytes=10**9, linear_flops_per_token=2e9, n_layers=10,
                attention=(AttentionGroup(kv_bytes_per_token=1000, flops_per_key=1e6),), quantized=False,
                hidden_size=1000)


def test_decode_step_hand_computed() -> None:
    # Weights 1e9 B / (0.5 × 1e12) = 2 ms (their matmuls: 2e9 / (0.5 × 100e12) = 40 µs); launch 1 ms + 10 × 0.1 ms =
    # 2 ms. Attention at depth 1000: KV 1000 B × 1000 / (0.25 × 1e12) = 4 µs, but 1e6 FLOPs × 1001 keys /
    # (0.1 × 100e12) = 100.1 µs of attention FLOPs: that kernel is compute-bound.
    assert speed.decode_step_s(WORK, DEV, C, depth=1000) == pytest.approx(2e-3 + 100.1e-6 + 2e-3)
    assert speed.decode_tokens_per_s(WORK, DEV, C, depth=0) == pytest.approx(1 / (4e-3 + SELF_ATTN))
    # The matmuls and the attention are separate kernels: a slow attention adds to the weight read, never hides in it.
    weights_only = dataclasses.replace(WORK, attention=())
    assert speed.decode_step_s(WORK, DEV, C, depth=1000) == pytest.approx(
        speed.decode_step_s(weights_only, DEV, C) + 100.1e-6)


def test_decode_attention_has_its_own_rate_where_fitted() -> None:
    # η_dec = 0.01: 1e6 × 1001 / (0.01 × 100e12) = 1.001 ms of attention; None: attention_efficiency (0.1) applies.
    slow = dataclasses.replace(C, decode_attention_efficiency=0.01)
    assert speed.decode_step_s(WORK, DEV, slow, depth=1000) == pytest.approx(2e-3 + 1.001e-3 + 2e-3)
    fast = dataclasses.replace(C, decode_attention_efficiency=1.0)  # 10 µs of FLOPs: the 4 µs KV read is below it
    assert speed.decode_step_s(WORK, DEV, fast, depth=1000) == pytest.approx(2e-3 + 10.01e-6 + 2e-3)


def test_no_cap_but_the_datasheet_bandwidth() -> None:
    # Doubling the bandwidth halves the weight-read time at any bandwidth: no ceiling below the datasheet figure.
    for bw in (1e12, 4e12, 8e12):  # above ~25e12 this one-token step turns compute-bound (its own physical limit)
        slow, fast = dataclasses.replace(DEV, bandwidth_bytes_per_s=bw), dataclasses.replace(DEV, bandwidth_bytes_per_s=2 * bw)
        assert speed.decode_step_s(WORK, slow, C) - speed.decode_step_s(WORK, fast, C) == pytest.approx(1e9 / (0.5 * bw) / 2)
    # HBM parts reach their own share: 1e9 B / (0.4 × 1e12) = 2.5 ms (plus the token's attention to itself).
    assert speed.decode_step_s(WORK, dataclasses.replace(DEV, hbm=True), C) == pytest.approx(2.5e-3 + 2e-3 + SELF_ATTN)


def test_ungraphed_launches_cost_their_own_per_layer_time() -> None:
    # Without CUDA graphs (pre-Ampere NVIDIA in llama.cpp) each of the 10 layers costs 0.3 ms instead of 0.1 ms.
    c = dataclasses.replace(C, launch_per_layer_ungraphed_s=3e-4)
    old = dataclasses.replace(DEV, graphs=False)
    assert speed.decode_step_s(WORK, old, c) - speed.decode_step_s(WORK, DEV, c) == pytest.approx(10 * 2e-4)


def test_generation_mean_equals_midpoint_sum() -> None:
    # Step time is linear in depth, so N tokens from depth 0 take N × t(mean depth (N − 1)/2).
    n = 100
    total = sum(speed.decode_step_s(WORK, DEV, C, d) for d in range(n))
    assert speed.generation_tokens_per_s(WORK, DEV, C, new_tokens=n) == pytest.approx(n / total)


def test_sliding_window_caps_kv_reads() -> None:
    windowed = dataclasses.replace(WORK, attention=(AttentionGroup(1000, 1e6, window_tokens=128),))
    assert speed.kv_bytes_read(windowed, 10_000) == 128_000
    n = 300  # crosses the window: exact sum against the piecewise closed form
    total = sum(speed.decode_step_s(windowed, DEV, C, d) for d in range(n))
    assert speed.generation_tokens_per_s(windowed, DEV, C, new_tokens=n) == pytest.approx(n / total)


def test_prefill_hand_computed() -> None:
    # 512 tokens from depth 0: linear 512 × 2e9 / (0.5 × 1e14) = 20.48 ms; keys Σ(1..512) = 131,328 × 1e6 FLOPs
    # / (0.1 × 1e14) = 13.1328 ms; weights 2 ms < compute; launch 2 ms.
    expected = 512 * 2e9 / 5e13 + 131_328 * 1e6 / 1e13 + 2e-3
    assert speed.prefill_s(WORK, DEV, C, prompt_tokens=512) == pytest.approx(expected)
    # TTFT adds one decode step at depth 512: 2 ms weights + attention (513 keys × 1e6 FLOPs / (0.1 × 1e14) = 51.3 µs,
    # above the 512 × 1000 B / (0.25 × 1e12) = 2 µs KV read) + 2 ms launches.
    assert speed.ttft_s(WORK, DEV, C, prompt_tokens=512) == pytest.approx(expected + 2e-3 + 51.3e-6 + 2e-3)
    assert speed.prefill_tokens_per_s(WORK, DEV, C, prompt_tokens=512) == pytest.approx(512 / expected)


def test_dequant_factor_applies_to_quantized_weights_only() -> None:
    quantized = dataclasses.replace(WORK, quantized=True)
    extra = speed.prefill_s(quantized, DEV, C, 512) - speed.prefill_s(WORK, DEV, C, 512)
    assert extra == pytest.approx(512 * 2e9 / 5e13)  # the linear part once more (factor 2)


def test_dequant_traffic_is_bandwidth_bound_and_per_quantized_weight() -> None:
    # κ = 4 bytes per weight: 1e9 quantised weights (2e9 linear FLOPs / 2) × 4 B / 1e12 B/s = 4 ms per micro-batch,
    # on top of the compute-bound time; 16-bit weights pay nothing.
    traffic = dataclasses.replace(C, dequant_factor=1.0, dequant_bytes_per_weight=4.0)
    quantized = dataclasses.replace(WORK, quantized=True)
    assert speed.prefill_s(quantized, DEV, traffic, 1024) - speed.prefill_s(WORK, DEV, traffic, 1024) \
        == pytest.approx(2 * 4e-3)
    # MoE: only the touched share of the experts is expanded (one expert of four: 1e9 dense + 4e9 × ¼ expert bytes
    # hold the 1e9 active weights, 0.5 weights per byte; one token touches ¼ of the experts, a big batch all).
    moe = dataclasses.replace(quantized, expert_weight_bytes=4 * 10**9, experts_per_token=1, n_experts=4)
    assert speed.quantized_weights_touched(moe, 0.25) == pytest.approx(1e9)
    assert speed.quantized_weights_touched(moe, 1.0) == pytest.approx(5e9 * 0.5)
    assert speed.quantized_weights_touched(WORK, 1.0) == 0.0


def test_score_traffic_grows_with_the_keys_attended() -> None:
    # σ = 20 bytes per score, 100 heads: Σ keys of 512 tokens from depth 0 = 131,328 → 131,328 × 100 × 20 B / 1e12.
    scored = dataclasses.replace(C, score_bytes=20.0)
    work = dataclasses.replace(WORK, attention=(AttentionGroup(1000, 1e6, heads=100),))
    extra = speed.prefill_s(work, DEV, scored, 512) - speed.prefill_s(work, DEV, C, 512)
    assert extra == pytest.approx(131_328 * 100 * 20 / 1e12)
    deeper = speed.prefill_s(work, DEV, scored, 512, depth=4096) - speed.prefill_s(work, DEV, C, 512, depth=4096)
    assert deeper > 8 * extra  # every token now also scores the 4096 cached keys


def test_geforce_gemm_rate_doubles_on_cuda_only() -> None:
    geforce = dataclasses.replace(DEV, fp16_accumulate_doubles=True)
    assert geforce.gemm_flops(C) == 200e12
    assert dataclasses.replace(geforce, backend="metal").gemm_flops(C) == 100e12


def test_missing_flops_use_the_family_balance() -> None:
    # No FLOPS figure: F = 50 FLOPs per byte/s × 1e12 B/s = 5e13, half of DEV's 1e14, so the compute-bound
    # prefill of the hand-computed case (20.48 + 13.1328 ms of compute) takes twice as long.
    balanced = dataclasses.replace(C, flops_per_byte=50.0)
    bare = dataclasses.replace(DEV, fp16_flops=None)
    assert bare.gemm_flops(balanced) == 5e13
    expected = 2 * (512 * 2e9 / 5e13 + 131_328 * 1e6 / 1e13) + 2e-3
    assert speed.prefill_s(WORK, bare, balanced, prompt_tokens=512) == pytest.approx(expected)
    with pytest.raises(ValueError):
        bare.gemm_flops(C)  # no figure and no fitted balance: refuse rather than guess


def test_fitted_families_carry_a_flops_balance() -> None:
    for backend in ("cuda", "metal", "rocm", "vulkan"):
        c = speed.constants_for(backend)
        assert c.flops_per_byte is not None and c.flops_per_byte > 0


def test_layer_split_adds_no_decode_speed_and_pipelines_prefill() -> None:
    two = dataclasses.replace(DEV, gpu_count=2, parallel="layer")
    assert speed.decode_step_s(WORK, two, C) == pytest.approx(speed.decode_step_s(WORK, DEV, C) + 5e-4)
    one = speed.prefill_s(WORK, DEV, C, 2048)
    # m = 4 micro-batches on k = 2 GPUs: (4 + 1) / 8 of the serial time, plus the split cost per micro-batch.
    assert speed.prefill_s(WORK, two, C, 2048) == pytest.approx((one + 4 * 5e-4) * 5 / 8)
    # The pipeline runs on across n_batch (2048-token) chunks: 8 micro-batches of a 4096-token prompt, (8 + 1) / 16.
    long = speed.prefill_s(WORK, DEV, C, 4096)
    assert speed.prefill_s(WORK, two, C, 4096) == pytest.approx((long + 8 * 5e-4) * 9 / 16)


def test_tensor_parallel_scales_minus_communication() -> None:
    tp = dataclasses.replace(DEV, gpu_count=2, parallel="tensor", interconnect_bytes_per_s=1e11)
    # Weights 1 ms (half each), launch 2 ms, comm 2 × 10 layers × (20 µs + 2·1000·2·½ B / 1e11).
    comm = 2 * 10 * (speed.ALL_REDUCE_LATENCY_S + 2 * 1000 * 1 * 2 * 0.5 / 1e11)
    assert speed.decode_step_s(WORK, tp, C) == pytest.approx(1e-3 + 2e-3 + comm + SELF_ATTN / 2)


def test_moe_reads_active_experts_and_more_with_batch() -> None:
    moe = dataclasses.replace(WORK, expert_weight_bytes=8 * 10**9, experts_per_token=2, n_experts=8)
    assert speed.weight_bytes_read(moe, 1) == pytest.approx(10**9 + 2 * 10**9)
    assert speed.weight_bytes_read(moe, 1000) == pytest.approx(9 * 10**9)


def test_offloaded_weights_run_at_host_bandwidth() -> None:
    off = dataclasses.replace(WORK, host_dense_bytes=10**8)
    # 0.9e9 on the GPU at 0.5e12 = 1.8 ms, 1e8 at the host's 89.6 GB/s times the fitted read efficiency.
    host = speed.DEFAULT_HOST_BANDWIDTH_BYTES_PER_S * speed.HOST_READ_EFFICIENCY
    expected = 0.9e9 / 0.5e12 + 1e8 / host + 2e-3 + SELF_ATTN
    assert speed.decode_step_s(off, DEV, C) == pytest.approx(expected)


def test_batched_decode_hits_compute_ceiling() -> None:
    # One token costs 2e9/5e13 = 40 µs (+ attention at depth 0: 1 key × 1e6 / 1e13); 10,000 sequences are compute-bound.
    per_token = 2e9 / 5e13 + 1e6 / 1e13
    assert speed.batched_tokens_per_s(WORK, DEV, C, sequences=10_000) == pytest.approx(
        10_000 / (10_000 * per_token + 2e-3))


def test_backends_without_rows_borrow_cuda_constants() -> None:
    for backend in ("sycl", "cann", "musa"):
        borrowed = speed.constants_for(backend)
        assert borrowed.borrowed_from == "cuda" and not borrowed.fitted
        assert borrowed.bandwidth_efficiency == speed.constants_for("cuda").bandwidth_efficiency
    for backend in ("cuda", "metal", "rocm", "vulkan"):
        assert speed.constants_for(backend).fitted and speed.constants_for(backend).engine


@settings(max_examples=60, deadline=None)
@given(bw=st.floats(1e10, 1e13), factor=st.floats(1.0, 10.0), depth=st.integers(0, 100_000),
       extra=st.integers(1, 100_000), seqs=st.integers(1, 512))
def test_monotone(bw: float, factor: float, depth: int, extra: int, seqs: int) -> None:
    c = speed.constants_for("cuda")
    slow = SpeedDevice(bw, 100e12, "cuda")
    fast = dataclasses.replace(slow, bandwidth_bytes_per_s=bw * factor)
    assert speed.decode_tokens_per_s(WORK, fast, c, depth) >= speed.decode_tokens_per_s(WORK, slow, c, depth)
    assert speed.decode_tokens_per_s(WORK, slow, c, depth + extra) <= speed.decode_tokens_per_s(WORK, slow, c, depth)
    assert speed.prefill_tokens_per_s(WORK, slow, c, 512, depth + extra) <= speed.prefill_tokens_per_s(WORK, slow, c, 512, depth)
    assert (speed.batched_tokens_per_s(WORK, slow, c, seqs + 1, depth)
            >= speed.batched_tokens_per_s(WORK, slow, c, seqs, depth))


@pytest.mark.parametrize("flops", [1e12, 1e16])  # memory-bound and compute-bound micro-batches
def test_prefill_closed_form_matches_per_microbatch_sum(flops: float) -> None:
    dev = dataclasses.replace(DEV, fp16_flops=flops)
    c = dataclasses.replace(C, dequant_bytes_per_weight=3.0, score_bytes=20.0)
    work = dataclasses.replace(WORK, quantized=True, attention=(AttentionGroup(1000, 1e6, heads=100),))
    parts = sum(speed._ubatch_s(work, dev, c, 100 + i * 512, 512) for i in range(4)) + speed._ubatch_s(work, dev, c, 2148, 50)
    assert speed.prefill_s(work, dev, c, prompt_tokens=2098, depth=100) == pytest.approx(parts)


# ---------------------------------------------------------------------------------------------- mixture of experts

MOE = Workload(dense_weight_bytes=10**9, linear_flops_per_token=2e9, n_layers=10, expert_weight_bytes=16 * 10**9,
               experts_per_token=8, n_experts=128, expert_flops_per_token=1e9, moe_layers=10, quantized=False,
               hidden_size=1000)
C_MOE = dataclasses.replace(C, moe_layer_s=2e-5, expert_bandwidth_efficiency=0.8, expert_tokens_half=32.0,
                            launch_per_layer_ungraphed_s=3e-4)


def test_moe_decode_reads_the_routed_experts_and_pays_routing_per_block() -> None:
    # Dense 1e9 B + routed 16e9 × 8/128 = 1e9 B read at 0.8 of η_bw: (1e9 + 1e9 / 0.8) / (0.5 × 1e12) = 4.5 ms;
    # launches 1 ms + 10 × 0.1 ms = 2 ms; routing 10 blocks × 20 µs = 0.2 ms.
    assert speed.decode_step_s(MOE, DEV, C_MOE) == pytest.approx(4.5e-3 + 2e-3 + 0.2e-3)
    # Without CUDA graphs the routing kernels cost what launches cost there: × (0.3 ms / 0.1 ms) = 0.6 ms.
    ungraphed = speed.decode_step_s(MOE, dataclasses.replace(DEV, graphs=False), C_MOE)
    assert ungraphed == pytest.approx(4.5e-3 + 1e-3 + 10 * 3e-4 + 0.6e-3)


def test_a_hybrid_pays_a_fixed_time_per_recurrent_layer() -> None:
    hybrid = dataclasses.replace(MOE, recurrent_layers=6)
    c = dataclasses.replace(C_MOE, recurrent_layer_s=5e-5)
    # 6 recurrent layers × 50 µs = 0.3 ms on top of the MoE step of the test above; none without the fitted term.
    assert speed.decode_step_s(hybrid, DEV, c) == pytest.approx(speed.decode_step_s(MOE, DEV, C_MOE) + 0.3e-3)
    assert speed.decode_step_s(hybrid, DEV, C_MOE) == speed.decode_step_s(MOE, DEV, C_MOE)
    # Without CUDA graphs they scale as launches do (× 3, as in the test above): 0.9 ms.
    ungraphed = dataclasses.replace(DEV, graphs=False)
    assert speed.decode_step_s(hybrid, ungraphed, c) == pytest.approx(speed.decode_step_s(MOE, ungraphed, C_MOE) + 0.9e-3)


def test_the_estimator_counts_a_hybrids_recurrent_layers() -> None:
    """Qwen3-Next: 48 layers, every fourth full attention (config full_attention_interval 4), the rest linear."""
    from generator.cli.fit_constants import catalog_models
    from generator.estimate.estimator import speed_workload

    spec = catalog_models(Path("catalog"))["qwen3-next-80b-a3b"]
    assert speed_workload(spec, "Q4_K_M").recurrent_layers == 36
    assert speed_workload(catalog_models(Path("catalog"))["qwen3-8b"], "Q4_K_M").recurrent_layers == 0


def test_expert_gemms_see_ubatch_times_k_over_e_tokens() -> None:
    # 512 × 8 / 128 = 32 tokens per expert; with t½ = 32 the experts' GEMMs run at half the dense rate.
    assert speed.expert_gemm_share(MOE, C_MOE, 512) == pytest.approx(0.5)
    assert speed.expert_gemm_share(MOE, C_MOE, 2048) == pytest.approx(128 / 160)
    assert speed.expert_gemm_share(WORK, C_MOE, 512) == 1.0  # dense model
    assert speed.expert_gemm_share(MOE, C, 512) == 1.0  # constants without a fitted t½
    # Prefill compute of a 512-token micro-batch: dense 1e9 FLOPs × 512 / (0.5 × 1e14) = 10.24 ms, experts the same
    # FLOPs at half the rate = 20.48 ms; weights (1e9 + 16e9 touched) / 0.5e12 = 34 ms bound the micro-batch.
    compute, memory, _ = speed._ubatch_parts(MOE, DEV, C_MOE, 512)
    assert compute == pytest.approx(10.24e-3 + 20.48e-3)
    assert memory == pytest.approx((1e9 + 16e9 * (1 - (1 - 8 / 128) ** 512)) / 0.5e12)


def test_moe_prefill_is_slower_than_a_dense_model_of_the_same_active_size() -> None:
    fast = dataclasses.replace(DEV, bandwidth_bytes_per_s=1e14)  # weights stream for free: compute decides
    dense = dataclasses.replace(MOE, expert_weight_bytes=0, n_experts=0, experts_per_token=0, expert_flops_per_token=0,
                                moe_layers=0)
    assert speed.prefill_tokens_per_s(MOE, fast, C_MOE) < speed.prefill_tokens_per_s(dense, fast, C_MOE)


def test_lpddr_memory_has_its_own_bandwidth_efficiency_when_fitted() -> None:
    lpddr = dataclasses.replace(DEV, lpddr=True)
    assert lpddr.kernel_bandwidth(C) == pytest.approx(0.5e12)  # not fitted: as other memory
    assert lpddr.kernel_bandwidth(dataclasses.replace(C, lpddr_bandwidth_efficiency=0.7)) == pytest.approx(0.7e12)


def test_only_non_apple_lpddr_memory_takes_the_lpddr_efficiency() -> None:
    from generator.estimate.device import is_lpddr
    assert is_lpddr("amd", "LPDDR5X") and is_lpddr("nvidia", "LPDDR5x")  # Strix Halo, GB10: beside discrete cards
    assert not is_lpddr("apple", "LPDDR5X")  # every Metal GPU is unified memory: the family's η_bw is theirs
    assert not is_lpddr("nvidia", "GDDR6X") and not is_lpddr("amd", None)


def test_rdna_flash_attention_runs_at_the_vector_rate() -> None:
    # FP32 20e12: decode attention at depth 1000 takes 1e6 × 1001 / (0.1 × 20e12) = 500.5 µs (KV read: 4 µs), five
    # times the 100.1 µs at the 100e12 GEMM rate; the weight read (2 ms) and launches (2 ms) are unchanged.
    rdna = dataclasses.replace(DEV, vector_attention=True, fp32_flops=20e12)
    assert rdna.attention_flops(C) == 20e12 and DEV.attention_flops(C) == 100e12
    assert speed.decode_step_s(WORK, rdna, C, depth=1000) == pytest.approx(2e-3 + 500.5e-6 + 2e-3)
    # Prefill of 512 tokens: the linear layers stay at the GEMM rate (20.48 ms), the attention's 131,328 keys × 1e6
    # FLOPs take 131,328e6 / (0.1 × 20e12) = 65.664 ms instead of 13.1328 ms; plus 2 ms of launches.
    assert speed.prefill_s(WORK, rdna, C, prompt_tokens=512) == pytest.approx(20.48e-3 + 65.664e-3 + 2e-3)
    # Without a catalogued FP32 rate the GEMM rate stands in.
    assert dataclasses.replace(rdna, fp32_flops=None).attention_flops(C) == 100e12


def test_vector_attention_is_amd_without_hbm() -> None:
    from generator.estimate.device import vector_attention
    assert vector_attention("amd", "GDDR6") and vector_attention("amd", "LPDDR5X-8000")  # RDNA cards, Strix Halo
    assert not vector_attention("amd", "HBM3")  # CDNA: flash attention on the MFMA units
    assert not vector_attention("nvidia", "GDDR7") and not vector_attention("apple", "LPDDR5X")


def test_kernel_family_sends_nvidia_vulkan_to_cuda_constants() -> None:
    nv = dataclasses.replace(DEV, backend="vulkan", nv_coopmat2=True)
    assert speed.kernel_family(nv) == "cuda" and speed.device_constants(nv) is speed.constants_for("cuda")
    assert speed.kernel_family(dataclasses.replace(nv, nv_coopmat2=False)) == "vulkan"
    assert speed.kernel_family(dataclasses.replace(nv, backend="rocm")) == "rocm"  # the flag only matters on Vulkan
    # Its F16 tiles accumulate in F16, so a GeForce card runs them at twice its FP32-accumulate tensor rate, as on CUDA.
    geforce = dataclasses.replace(nv, fp16_accumulate_doubles=True)
    assert geforce.gemm_flops(C) == 2 * 100e12
    assert dataclasses.replace(geforce, nv_coopmat2=False).gemm_flops(C) == 100e12
