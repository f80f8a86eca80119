"""Calibration rows, GPU name mapping, the fit's optimiser, and the committed constants' accuracy."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from generator.calibrate import fit_speed, speed_cases
from generator.cli.fit_constants import catalog_models
from generator.estimate import constants

# Held-out (leave one GPU out) median error of the committed fit on mixture-of-experts rows: what it achieves.
MOE_DECODE_HELD_OUT = 0.26
MOE_PREFILL_HELD_OUT = 0.25


def test_parse_gpu_names_and_counts() -> None:
    assert speed_cases.parse_gpu("4090 24GB * 2") == ("rtx-4090", 2)
    assert speed_cases.parse_gpu("M3 Max 40\u2011Core GPU 64GB") == ("apple-m3-max-40c-64gb", 1)
    with pytest.raises(KeyError):
        speed_cases.parse_gpu("Voodoo 2")


def test_catalogued_model_rows_get_the_estimators_own_workload() -> None:
    rows = speed_cases.load_measurements()
    models = catalog_models(Path("catalog"))
    cases = speed_cases.speed_cases(rows, speed_cases.gpu_facts(), models)
    moe = [c for c in cases if c.row.model == "qwen3-30b-a3b" and c.row.quant == "Q4_0"]
    assert moe and all(c.work.n_experts == 128 and c.work.experts_per_token == 8 and c.work.moe_layers == 48
                       for c in moe)
    w = moe[0].work
    assert 0 < w.expert_flops_per_token < w.linear_flops_per_token
    assert {c.arch_class for c in cases} == {"dense", "moe", "hybrid"}
    # Without the catalogue those rows are left out, not guessed.
    assert len(speed_cases.speed_cases(rows, speed_cases.gpu_facts())) == len(cases) - sum(
        c.row.model not in speed_cases.MODELS for c in cases)


def test_every_calibration_gpu_has_specs() -> None:
    from generator.catalog.load import load_catalog

    rows = speed_cases.load_measurements()
    facts = speed_cases.gpu_facts(dict(load_catalog(Path("catalog")).gpus))  # the newer rows' GPUs: catalogue only
    ids = {speed_cases.parse_gpu(r.gpu)[0] for r in rows if r.kind in speed_cases.SPEED_KINDS}
    assert ids <= facts.keys()
    assert all(facts[i].source for i in ids)


def test_llama_workload_hand_computed() -> None:
    size = 4 * 2**30
    work = speed_cases.llama_workload("Meta-Llama-3-8B", "F16", size)
    assert work.dense_weight_bytes == size - 128_256 * 4096 * 2  # token_embd is a lookup, not read
    assert work.attention[0].kv_bytes_per_token == 131_072  # 128 KiB per token in f16
    assert work.linear_flops_per_token == 2 * (8_030_261_248 - 128_256 * 4096)
    assert not work.quantized


def test_nelder_mead_finds_quadratic_minimum() -> None:
    best = fit_speed.nelder_mead(lambda x: (x[0] - 3) ** 2 + (x[1] + 1) ** 2 + 5, [0.0, 0.0])
    assert best == pytest.approx([3.0, -1.0], abs=1e-4)


def test_soft_l1_is_quadratic_near_zero_and_linear_far() -> None:
    assert fit_speed.soft_l1([0.001]) == pytest.approx(0.001**2, rel=1e-3)
    assert fit_speed.soft_l1([10.0]) == pytest.approx(2 * 0.1 * 10.0, rel=0.02)


def test_current_rows_are_added_with_their_era_and_flash_attention_setting() -> None:
    rows = speed_cases.load_measurements()
    scoreboard = [r for r in rows if "15013" in r.source]
    assert len(scoreboard) == 80 and all(r.era == speed_cases.ERA_CURRENT for r in scoreboard)
    cases = speed_cases.speed_cases(rows, speed_cases.gpu_facts())
    mine = [c for c in cases if "15013" in c.row.source]
    assert len(mine) == 40 and not any(c.row.flash_attention_off for c in mine)  # FA-off rows are left out
    assert len({c.gpu_id for c in mine}) == 20
    # ROCm and Vulkan rows run on their own backend whatever the GPU's first catalogued one (an RTX 3090 on Vulkan).
    assert {c.family for c in cases if "pull/" in c.row.source} == {"cuda", "rocm", "vulkan"}
    assert any(c.gpu_id == "rtx-3090" and c.family == "vulkan" for c in cases)
    assert {0, 4096} <= {c.row.depth for c in cases if c.family == "rocm"}


def test_llama_2_size_comes_from_the_per_tensor_rules() -> None:
    # No published size row: llama-bench reports 3.56 GiB for Llama-2-7B Q4_0 (Q4_0 blocks, output Q6_K).
    size = speed_cases.file_bytes("Llama-2-7B", "Q4_0", speed_cases.load_measurements())
    assert size / 2**30 == pytest.approx(3.56, abs=0.02)


def test_committed_cross_validated_error_meets_targets() -> None:
    stats = {(m, g, k): (n, md, s) for m, g, k, n, md, _, s in constants.CV_STATS}
    n, median, within = stats[("gpu", "all", "decode_tps")]
    # Held at what the committed fit achieves (December 2026: 770 decode rows with the 2025-26 MoE, hybrid, ROCm,
    # Vulkan and Metal rows), so that a worse fit fails. The issue asks ≤ 15 % for prefill and ≤ 20 % / 30 % for MoE on
    # data we may not see; on held-out GPUs of our own data MoE prefill reaches it on CUDA, not on ROCm, Vulkan or Metal
    # (reported). The Metal rows of four Apple chips added in December 2026 raised the overall medians (9.2 → 10.5 %
    # decode, 18.6 → 21.9 % prefill): Apple machines differ more among themselves than one bandwidth balance captures.
    # The CUDA rows of more rigs added after them moved decode to 11.1 % with a GPU held out and CUDA dense decode
    # with a source held out from 34 % to 15 %. The Radeon 8060S's sourced matrix rate and ROCm's own 16-bit GEMM
    # efficiency then took ROCm prefill with a GPU held out from 61 % to 47 % (and Vulkan's from 46 % to 79 %: one
    # Vulkan set now spans NVIDIA's coopmat2 kernels and RADV's, reported). Starting the joint decode fit away from
    # the per-layer cost's floor as well took CUDA decode with a source held out from 21 % to 17 % (in-sample 10.8 %
    # to 8.8 %), and all decode with a GPU held out from 10.7 % to 11.5 % (ROCm's multi-GPU rows). Flash attention at
    # the FP32 rate on RDNA GPUs (their tile kernel runs on the vector units) then took ROCm prefill with a GPU held
    # out from 47 % to 23.5 % and Vulkan's from 79 % to 46 %. NVIDIA cards on Vulkan then took CUDA's constants (their
    # coopmat2 kernels run at CUDA's speed) and left Vulkan's fit: Vulkan decode with a GPU held out went from 26 % to
    # 15 % and prefill from 46 % to 44 %, with a source held out prefill from 38 % to 62 % (kyuz0's logs, most of the
    # AMD rows, then stand alone); the NVIDIA rows, never fitted, miss by 8 % in decode and 44 % in prefill (old builds'
    # MoE prompts), all decode with a GPU held out 11.5 % to 10.7 %. Rows of discrete RDNA 3/4 cards (RX 7900 XTX and
    # RX 9070 XT on Vulkan, RX 9060 XT and RX 7900 XT on ROCm) then took Vulkan prefill with a GPU held out from 44 % to
    # 31 % and with a source held out from 62 % to 37 %, but Vulkan decode with a GPU held out from 15 % to 37 %: with
    # the Radeon 8060S held out, Vulkan's decode constants now come from four discrete cards' rows instead of the
    # per-layer cost that three rows had pushed high, and carry CUDA's LPDDR efficiency to the iGPU (all decode
    # 10.7 % to 11.7 %).
    assert n > 700 and median <= 0.12 and within >= 0.77
    assert stats[("source", "cuda 2025-26", "decode_tps")][1] <= 0.175
    assert stats[("gpu", "rocm 2025-26", "prefill_tps")][1] <= 0.25
    assert stats[("source", "rocm 2025-26", "prefill_tps")][1] <= 0.25
    assert stats[("gpu", "vulkan 2025-26", "prefill_tps")][1] <= 0.32
    assert stats[("source", "vulkan 2025-26", "prefill_tps")][1] <= 0.38
    assert stats[("gpu", "vulkan 2025-26", "decode_tps")][1] <= 0.375
    assert stats[("gpu", "vulkan NVIDIA 2025-26", "decode_tps")][1] <= 0.08
    assert stats[("gpu", "all dense", "prefill_tps")][1] <= 0.16
    assert stats[("gpu", "all", "prefill_tps")][1] <= 0.185
    assert stats[("gpu", "metal 2025-26", "decode_tps")][1] <= 0.24
    assert stats[("gpu", "metal 2025-26 moe", "decode_tps")][1] <= 0.19
    assert stats[("gpu", "cuda 2024-05", "prefill_tps")][1] <= 0.12
    assert stats[("gpu", "cuda 2025-26 dense", "prefill_tps")][1] <= 0.115
    assert stats[("gpu", "cuda 2025-26 dense", "decode_tps")][0] == 29
    assert stats[("gpu", "cuda 2025-26 moe", "decode_tps")][1] <= MOE_DECODE_HELD_OUT
    assert stats[("gpu", "cuda 2025-26 moe", "prefill_tps")][1] <= MOE_PREFILL_HELD_OUT
    assert {("source", "all", k) for k in speed_cases.SPEED_KINDS} <= stats.keys()
    # The stored in-sample statistics are what the committed constants give (rows of catalogued models included).
    from generator.catalog.load import load_catalog

    gpus = dict(load_catalog(Path("catalog")).gpus)
    reports = {r.kind: r for r in speed_cases.accuracy_report(gpus, models=catalog_models(Path("catalog")))}
    stored = {k: (n, m) for k, n, m, _, _ in constants.FIT_STATS}
    assert stored["decode_tps"][0] == reports["decode_tps"].rows
    assert math.isclose(stored["decode_tps"][1], reports["decode_tps"].median_abs_error, abs_tol=1e-3)


def test_resolve_borrows_the_nearest_fitted_set() -> None:
    sets = constants.ERA_CONSTANTS
    assert fit_speed.resolve(sets, ("cuda", speed_cases.ERA_CURRENT)) is sets[("cuda", speed_cases.ERA_CURRENT)]
    assert fit_speed.resolve(sets, ("metal", speed_cases.ERA_CURRENT)) is sets[("metal", speed_cases.ERA_CURRENT)]
    older = {g: c for g, c in sets.items() if g != ("metal", speed_cases.ERA_CURRENT)}  # a fold without current Metal
    assert fit_speed.resolve(older, ("metal", speed_cases.ERA_CURRENT)) is sets[("metal", speed_cases.ERA_2024)]
    rocm = fit_speed.resolve(sets, ("rocm", speed_cases.ERA_CURRENT))
    assert rocm is sets[("rocm", speed_cases.ERA_CURRENT)]
    sycl = fit_speed.resolve(sets, ("sycl", speed_cases.ERA_CURRENT))
    assert sycl.borrowed_from == "cuda"
    assert sycl.bandwidth_efficiency == sets[("cuda", speed_cases.ERA_CURRENT)].bandwidth_efficiency


def test_a_fold_refits_the_groups_its_rows_touch_and_those_started_from_them() -> None:
    old, new = speed_cases.ERA_2024, speed_cases.ERA_CURRENT
    groups = {("cuda", old), ("metal", old), ("cuda", new), ("metal", new), ("rocm", new), ("vulkan", new)}
    assert fit_speed.affected_groups({("rocm", new)}, groups) == {("rocm", new)}
    assert fit_speed.affected_groups({("cuda", new)}, groups) == {("cuda", new), ("rocm", new), ("vulkan", new)}
    assert fit_speed.affected_groups({("metal", old)}, groups) == {("metal", old), ("metal", new)}
    assert fit_speed.affected_groups({("cuda", old)}, groups) == groups
    without_old_metal = groups - {("metal", old)}  # current Metal then starts from current CUDA
    assert ("metal", new) in fit_speed.affected_groups({("cuda", new)}, without_old_metal)


def test_a_fold_that_keeps_the_untouched_groups_fits_as_a_full_refit() -> None:
    """The shortcut the folds take (refit only ``affected_groups``, keep the rest of the full fit) gives the constants
    and held-out predictions of a fit from scratch on the remaining rows: for a source of current Metal rows (2024
    Metal is kept) and for one of 2024 Metal rows (current Metal, started from it, is refitted too)."""
    old, new = ("metal", speed_cases.ERA_2024), ("metal", speed_cases.ERA_CURRENT)
    cases = [c for c in speed_cases.speed_cases(speed_cases.load_measurements(), speed_cases.gpu_facts(),
                                                catalog_models(Path("catalog"))) if c.group in {old, new}]
    full = fit_speed.fit(cases)
    for group in (new, old):
        key = sorted(fit_speed.source_of(c) for c in cases if c.group == group)[0]
        train = [c for c in cases if fit_speed.source_of(c) != key]
        held = [c for c in cases if fit_speed.source_of(c) == key]
        assert {c.group for c in held} == {group}
        refit = fit_speed.affected_groups({group}, {old, new})
        kept = {g: k for g, k in full.items() if g not in refit}
        assert fit_speed.fit(train, previous=kept, only=refit) == fit_speed.fit(train)
        assert fit_speed._fold(("source", cases, key, full)) == fit_speed._held("source", held, fit_speed.fit(train))


def test_physical_ranges() -> None:
    for c in constants.ERA_CONSTANTS.values():
        assert c.engine
        for name in fit_speed.EFFICIENCIES:
            value = getattr(c, name)
            assert value is None or 0 < value <= 1, name  # None: LPDDR efficiency not fitted for that set
        # MoE routing: a few kernels per block, below a millisecond; half GEMM rate at some tokens per expert.
        assert 0 <= c.moe_layer_s < 1e-3 and 0 <= c.expert_tokens_half < 4096
        # Host work per step (milliseconds at most), a recurrent layer's kernels (below a millisecond), the hand-over
        # between two GPUs of a layer split (a copy of one hidden state and a synchronisation).
        assert 0 <= c.launch_s < 5e-3 and 0 <= c.recurrent_layer_s < 1e-3 and 0 <= c.split_s < 5e-3
        # MMQ (current builds) runs quantised FLOPs on int8 tensor cores, at most twice the F16 rate.
        assert c.launch_s >= 0 and c.launch_per_layer_s >= 0 and c.dequant_factor >= fit_speed.MMQ_FACTOR_FLOOR
        # Dequantisation traffic: at most read the blocks, write and re-read F16 and a few passes more (bytes per
        # weight); score traffic: a handful of F32 passes over each KQ score (bytes per score).
        assert 0 <= c.dequant_bytes_per_weight <= 16 and 0 <= c.score_bytes <= 64
        # MMQ FLOPs per FP32 FLOP: current CUDA builds only; int8 dot products (dp4a: 4 multiply-adds where an FP32
        # FMA does 1) bound it at 4.
        assert c.mmq_flops_per_fp32_flop is None or 1 <= c.mmq_flops_per_fp32_flop <= 4
        # dp4a MMQ on Pascal: at most 4 int8 multiply-adds per FP32 FMA slot.
        assert c.dp4a_flops_per_fp32_flop is None or 0 < c.dp4a_flops_per_fp32_flop <= 4
        # GEMM TFLOPS per W of board power: between 0.1 and 3 (the densest datasheet tensor rates per
        # TDP in the catalogue, B200's 2,250 TFLOPS at 1,000 W, stay below 3).
        assert c.gemm_tflops_per_watt is None or 0.1 <= c.gemm_tflops_per_watt <= 3
    assert constants.ERA_CONSTANTS[("cuda", speed_cases.ERA_CURRENT)].mmq_flops_per_fp32_flop is not None
    # Each layer runs a dozen kernels, each a few microseconds even replayed as a CUDA graph: current CUDA's per-layer
    # and routing costs are not at the optimiser's floor (the joint decode fit starts away from it as well).
    current = constants.ERA_CONSTANTS[("cuda", speed_cases.ERA_CURRENT)]
    assert current.launch_per_layer_s > 1e-6 and current.moe_layer_s > 1e-6
    assert constants.ERA_CONSTANTS[("cuda", speed_cases.ERA_2024)].mmq_flops_per_fp32_flop is None
    assert constants.ERA_CONSTANTS[("cuda", speed_cases.ERA_2024)].gemm_tflops_per_watt is not None
    assert constants.ERA_CONSTANTS[("cuda", speed_cases.ERA_CURRENT)].dp4a_flops_per_fp32_flop is not None


def test_fallback_flops_are_sourced_or_absent() -> None:
    fallback = speed_cases.FALLBACK_GPUS
    assert fallback["h100-pcie"].fp16_tflops == 1513 / 2  # NVIDIA datasheet: 1,513 with sparsity, dense is half
    assert "nvidia-tensor-core-gpu-datasheet" in fallback["h100-pcie"].source
    # Radeon 8060S (RDNA 3.5): RDNA 3's 512 FP16 FLOP per CU per clock × 40 CUs × 2.9 GHz.
    assert fallback["ryzen-ai-max-395-128gb"].fp16_tflops == pytest.approx(512 * 40 * 2.9e9 / 1e12, abs=0.01)
    # Its FP32 rate with dual issue, as TechPowerUp counts the RDNA 3 cards: 256 FLOP per CU per clock.
    assert fallback["ryzen-ai-max-395-128gb"].fp32_tflops == pytest.approx(256 * 40 * 2.9e9 / 1e12, abs=0.01)
    apple = [f for i, f in fallback.items() if i.startswith("apple")]
    assert apple and all(f.fp16_tflops is None and f.backend == "metal" for f in apple)  # Apple publishes none


def test_flops_balance_is_fitted_on_hidden_flops() -> None:
    cases = speed_cases.speed_cases(speed_cases.load_measurements(), speed_cases.gpu_facts())
    hidden = speed_cases.without_flops(cases)
    assert all(c.device.fp16_flops is None for c in hidden) and len(hidden) == len(cases)
    for c in constants.CONSTANTS.values():
        assert c.flops_per_byte is not None and 1 < c.flops_per_byte < 1000  # FLOPs per byte/s of bandwidth
    assert constants.CONSTANTS["metal"].compute_efficiency == 1.0  # absorbed by the balance (no Apple FLOPS)


def test_only_latent_attention_counts_as_compute_heavy() -> None:
    from generator.estimate.estimator import spec_from_config, speed_workload
    from tests.estimate.fixtures import DEEPSEEK_V3, LLAMA_8B, QWEN3_30B, config

    def intensity(name: str) -> float:
        return fit_speed.attention_intensity(speed_workload(spec_from_config(config(name)), "Q4_K_M"))

    # DeepSeek-V3's absorbed MLA: 128 heads × 2 × (576 + 512) FLOPs per key and layer over a 576-element f16 latent
    # (1,152 B): 241.8 FLOPs per byte. Llama-3.1-8B: 32 heads × 2 × (128 + 128) over 8 KV heads × 2 × 128 × 2 B: 4.
    assert intensity(DEEPSEEK_V3) == pytest.approx(128 * 2 * 1088 / 1152, rel=1e-3)
    assert intensity(LLAMA_8B) == pytest.approx(4.0)
    assert intensity(LLAMA_8B) < intensity(QWEN3_30B) < fit_speed.COMPUTE_HEAVY_ATTENTION < intensity(DEEPSEEK_V3)


def test_hbm_efficiency_needs_several_hbm_decode_rows() -> None:
    cases = speed_cases.speed_cases(speed_cases.load_measurements(), speed_cases.gpu_facts(),
                                    catalog_models(Path("catalog")))
    decode = [c for c in cases if c.row.kind == "decode_tps" and c.era == speed_cases.ERA_CURRENT]
    hbm = [c for c in decode if c.device.hbm]
    gddr = [c for c in decode if not c.device.hbm][:20]
    field = "hbm_bandwidth_efficiency"
    assert len(hbm) >= fit_speed.MOE_MIN_ROWS
    assert field in fit_speed._identifiable([field], gddr + hbm[:fit_speed.MOE_MIN_ROWS])
    # One HBM row (ROCm's only one is a 1.5B model on an MI355X, its step mostly fixed cost) pins nothing: the family
    # keeps the efficiency it starts from instead of one that row happens to leave at a bound.
    assert field not in fit_speed._identifiable([field], gddr + hbm[:1])
    rocm = [c for c in decode if c.family == "rocm"]
    assert field not in fit_speed._identifiable([field], rocm)


def test_unquantized_gemm_efficiency_needs_three_rated_16_bit_rows() -> None:
    cases = speed_cases.speed_cases(speed_cases.load_measurements(), speed_cases.gpu_facts(),
                                    catalog_models(Path("catalog")))
    rated = [c for c in cases if c.group == ("rocm", speed_cases.ERA_CURRENT) and c.row.kind == "prefill_tps"
             and c.work.n_experts == 0 and c.device.fp16_flops is not None]
    quantized = [c for c in rated if c.work.quantized][:6]
    sixteen_bit = [c for c in rated if not c.work.quantized]
    start = constants.ERA_CONSTANTS[("cuda", speed_cases.ERA_2024)]
    need = fit_speed.MOE_MIN_ROWS
    assert len(quantized) == 6 and len(sixteen_bit) >= need
    # Two rows of BF16 weights leave the family on the cuBLAS efficiency it starts from; three pin its own.
    few = quantized + sixteen_bit[:need - 1]
    assert fit_speed._fit_current("rocm", start, [], few, few).compute_efficiency == start.compute_efficiency
    enough = quantized + sixteen_bit[:need]
    assert fit_speed._fit_current("rocm", start, [], enough, enough).compute_efficiency != start.compute_efficiency


def test_nvidia_vulkan_rows_take_cuda_constants_and_are_never_fitted() -> None:
    from generator.catalog.load import load_catalog

    gpus = dict(load_catalog(Path("catalog")).gpus)
    cases = speed_cases.speed_cases(speed_cases.load_measurements(), speed_cases.gpu_facts(gpus),
                                    catalog_models(Path("catalog")))
    vulkan = [c for c in cases if c.row.backend == "llama.cpp Vulkan"]
    lent = [c for c in vulkan if c.lent]
    assert {c.gpu_id for c in lent} == {"rtx-3090", "rtx-4070", "rtx-5090"}  # NVIDIA Ampere and newer
    assert all(c.group == ("cuda", speed_cases.ERA_CURRENT) and c.reported_family == "vulkan NVIDIA" for c in lent)
    assert all(c.family == "vulkan" and c.reported_family == "vulkan" for c in vulkan if not c.lent)  # AMD cards
    # Never fitted: alone they give no constants at all.
    assert fit_speed.fit(lent) == {}
    # Held out by publication, a Vulkan pull request refits nothing: its rows get the full fit's CUDA constants.
    cuda = [c for c in cases if c.group == ("cuda", speed_cases.ERA_CURRENT)]
    full = {("cuda", speed_cases.ERA_CURRENT): constants.ERA_CONSTANTS[("cuda", speed_cases.ERA_CURRENT)]}
    key = fit_speed.source_of(lent[0])
    held = fit_speed._fold(("source", cuda, key, full))
    assert held and {p.family for p in held} == {"vulkan NVIDIA"}
    assert [p.predicted for p in held] == [speed_cases.predict(c, full[("cuda", speed_cases.ERA_CURRENT)])
                                           for c in cuda if fit_speed.source_of(c) == key]
