"""Fit the speed constants per backend family and engine era on the calibration file and write constants.py.

Run ``python -m generator.cli.fit_constants`` (reads catalog/gpus when present: the command does the I/O, this
module only fits). One constants set per (family, era) with rows: 2024 builds (CUDA, Metal) and current builds
(CUDA, ROCm, Vulkan). A family's current set starts from what the older era or CUDA fitted and refits only what its
rows identify (``CURRENT_FIELDS``, with the current kernels' fixed terms in ``CURRENT_FIXED``; current CUDA also fits
``mmq_flops_per_fp32_flop``, the quantised matmul's FLOPs per non-tensor FP32 FLOP, with the quantised-matmul factor on
the rated prefill rows, and ``dp4a_flops_per_fp32_flop`` on the rows of Pascal GPUs, whose MMQ runs on dp4a; a current
set with at least three rated prefill rows of 16-bit weights also fits ``compute_efficiency``, its own unquantised
GEMMs' efficiency; 2024 CUDA also fits ``gemm_tflops_per_watt``, the board-power bound of the cuBLAS GEMMs, on GPUs
with a catalogued TDP). Decode constants are fitted on decode rows first, then prefill constants on prefill rows with
the decode constants held. The loss is a soft-L1 (robust) loss on ln(predicted / measured), minimised by a
Nelder–Mead search in log-parameter space; no row is special-cased.

The error it stores is cross-validated: every GPU's rows predicted by a refit without that GPU (leave one GPU out),
every publication's rows by a refit without that publication (leave one source out); a (family, era) left without
rows borrows the nearest fitted set, as a backend without measurements does on the pages. Time to first token is
scored on paired prefill and decode rows.

``flops_per_byte`` (the FLOPS that stand in for a GPU without a FLOPS figure) is fitted last, on the family's
prefill rows with every GPU's FLOPS hidden and the other constants held; a family where no calibration GPU has a
FLOPS figure (Metal: Apple publishes none) fits it together with the other prefill constants, with
``compute_efficiency`` fixed at 1 because the two are then one product, and the bandwidth-bound prefill traffic
(``dequant_bytes_per_weight``, ``score_bytes``) fixed at 0 because, with FLOPS proportional to bandwidth, it is one
term with ``dequant_factor`` and ``attention_efficiency``.
"""

from __future__ import annotations

import concurrent.futures
import dataclasses
import math
import multiprocessing
import os
import re
import statistics
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

from ..estimate.backend import BackendConstants
from ..estimate.speed import Workload
from . import speed_cases
from .speed_cases import Case

CONSTANTS_PATH = Path(__file__).resolve().parent.parent / "estimate" / "constants.py"
LOSS_SCALE = 0.1  # soft-L1 turns from quadratic to linear at 10 % error
DECODE_FIELDS = ("bandwidth_efficiency", "hbm_bandwidth_efficiency", "kv_efficiency", "launch_s",
                 "launch_per_layer_s", "launch_per_layer_ungraphed_s", "split_s")
PREFILL_FIELDS = ("compute_efficiency", "attention_efficiency", "dequant_factor", "dequant_bytes_per_weight",
                  "score_bytes", "pipeline_efficiency", "gemm_tflops_per_watt")
MULTI_GPU_FIELDS = frozenset({"split_s", "pipeline_efficiency"})  # identifiable only from multi-GPU rows
EFFICIENCIES = ("bandwidth_efficiency", "hbm_bandwidth_efficiency", "kv_efficiency", "compute_efficiency",
                "attention_efficiency", "pipeline_efficiency", "expert_bandwidth_efficiency",
                "lpddr_bandwidth_efficiency", "decode_attention_efficiency")
# Mixture-of-experts terms (speed docstring), fitted on a family's MoE rows after its dense constants: the routing
# cost per MoE block and the expert GEMVs' share of η_bw on decode rows (the share only where four or more decode rows
# pin it next to the routing cost), the tokens per expert at half GEMM rate on prefill rows. Start values: a router
# GEMV plus top-k and gather launches (~20 µs), and half rate at 64 tokens per expert (MMQ's smallest tile width).
MOE_START = {"moe_layer_s": 2e-5, "expert_bandwidth_efficiency": 0.9, "expert_tokens_half": 64.0,
             "lpddr_bandwidth_efficiency": 0.8}
MOE_SHARE_MIN_ROWS = 4
# Hybrid models: a fixed cost per recurrent (linear-attention / SSM) layer per decode step (its convolution, gating,
# state update and norm kernels), fitted with the other shared decode terms where MOE_MIN_ROWS hybrid rows pin it.
RECURRENT_START_S = 2e-5
JOINT_ETA_STARTS = (0.85, 0.7)  # extra starting points of η_bw in the joint decode fit (see _fit_decode_jointly)
JOINT_KERNEL_START_S = 2e-5  # an extra start of the per-layer and routing costs there: a few graphed kernels each
# Deep decode rows of models above this many attention FLOPs per cached byte pin the decode attention rate
# (``decode_attention_efficiency``); below it (grouped-query attention) the KV read bounds the attention kernels.
COMPUTE_HEAVY_ATTENTION = 24.0
MOE_MIN_ROWS = 3  # a family's own rows of a kind below which it keeps the MoE (and depth) terms it starts from
FACTORS = ("dequant_factor",)
UNRATED_FIXED = ("compute_efficiency", "dequant_bytes_per_weight", "score_bytes", "gemm_tflops_per_watt")  # see fit_family
START = BackendConstants("start", bandwidth_efficiency=0.8, hbm_bandwidth_efficiency=0.6, kv_efficiency=0.3,
                         launch_s=1e-3, launch_per_layer_s=3e-5, split_s=2e-4, compute_efficiency=0.4,
                         attention_efficiency=0.5, dequant_factor=1.05, pipeline_efficiency=0.8,
                         flops_per_byte=50.0, dequant_bytes_per_weight=3.5, score_bytes=25.0,
                         launch_per_layer_ungraphed_s=1e-4, gemm_tflops_per_watt=0.4)
FLOOR = 1e-7
LOG_CAP = 30.0  # e**30: no constant is that large; a simplex step past it would overflow math.exp
START_CAP = 0.95  # fixed-cost terms may shrink to (almost) nothing but stay positive in log space


def nelder_mead(f: Callable[[list[float]], float], x0: Sequence[float], step: float = 0.5, iterations: int = 3000,
                tolerance: float = 1e-10) -> list[float]:
    """Minimise ``f`` from ``x0`` with the Nelder–Mead simplex (reflection 1, expansion 2, contraction ½, shrink ½)."""
    n = len(x0)
    simplex = [list(x0)] + [[x + (step if i == j else 0.0) for j, x in enumerate(x0)] for i in range(n)]
    values = [f(p) for p in simplex]
    for _ in range(iterations):
        order = sorted(range(n + 1), key=values.__getitem__)
        simplex, values = [simplex[i] for i in order], [values[i] for i in order]
        if values[-1] - values[0] < tolerance:
            break
        centroid = [sum(p[j] for p in simplex[:-1]) / n for j in range(n)]
        worst = simplex[-1]
        reflected = [c + (c - w) for c, w in zip(centroid, worst)]
        fr = f(reflected)
        if fr < values[0]:
            expanded = [c + 2 * (c - w) for c, w in zip(centroid, worst)]
            fe = f(expanded)
            simplex[-1], values[-1] = (expanded, fe) if fe < fr else (reflected, fr)
        elif fr < values[-2]:
            simplex[-1], values[-1] = reflected, fr
        else:
            contracted = [c + 0.5 * (w - c) for c, w in zip(centroid, worst)]
            fc = f(contracted)
            if fc < values[-1]:
                simplex[-1], values[-1] = contracted, fc
            else:
                best = simplex[0]
                simplex = [best] + [[b + 0.5 * (p - b) for b, p in zip(best, q)] for q in simplex[1:]]
                values = [values[0]] + [f(p) for p in simplex[1:]]
    return simplex[min(range(n + 1), key=values.__getitem__)]


def soft_l1(residuals: Sequence[float]) -> float:
    """Σ 2s²(√(1 + (r/s)²) − 1): quadratic for small log errors, linear for outliers."""
    s = LOSS_SCALE
    return sum(2 * s * s * (math.sqrt(1 + (r / s) ** 2) - 1) for r in residuals)


# The builds each (family, era) set is fitted on, and what they do (see speed's module docstring).
_OLD = ("llama.cpp builds of May 2024 (llama-bench; quantised weights dequantised to F16 for cuBLAS GEMMs, flash "
        "attention off)")
ENGINES = {
    ("cuda", speed_cases.ERA_2024): _OLD, ("metal", speed_cases.ERA_2024): _OLD,
    ("cuda", speed_cases.ERA_CURRENT): "llama.cpp CUDA builds of 2025-08 to 2026-09 (llama-bench; quantised matmul "
                                       "MMQ, flash attention on)",
    ("rocm", speed_cases.ERA_CURRENT): "llama.cpp ROCm builds of 2025-06 to 2026-09 (llama-bench in pull requests, "
                                       "issues, discussions and the public logs of kyuz0 and LocalAI-Lab; quantised "
                                       "matmul MMQ)",
    ("metal", speed_cases.ERA_CURRENT): "llama.cpp Metal builds of 2025-08 to 2026-09 (llama-bench in pull requests, "
                                        "enescingoz/mac-llm-bench and dotoryeee's blog; flash attention on)",
    ("vulkan", speed_cases.ERA_CURRENT): "llama.cpp Vulkan builds of 2025-05 to 2026 (llama-bench in pull requests, "
                                         "issues and kyuz0's Strix Halo logs; flash attention on)",
}
# Current builds: MMQ multiplies the quantised blocks (no F16 copy), flash attention keeps the scores on chip. The
# per-step fixed cost a (host work per llama_decode: graph build and CUDA-graph update, synchronisation) is fitted
# with the per-layer cost b where the decode rows hold models of several layer counts and sizes, which separate
# a + b·layers; otherwise it stays at 0 and b carries both (``_identifiable``).
CURRENT_FIXED: dict[str, Any] = {"dequant_bytes_per_weight": 0.0, "score_bytes": 0.0, "launch_s": 0.0}
CURRENT_FIELDS_SEPARABLE = ("launch_s",)
LAUNCH_START_S = 1e-3  # a start for a: one millisecond of host work per step
# MMQ runs on int8 tensor cores at twice the FP16 rate: a quantised FLOP takes at least half an F16 GEMM FLOP's time.
MMQ_FACTOR_FLOOR = 0.5
# Current CUDA builds' MMQ kernels follow the FP32 rate (speed docstring): μ starts at 2 FLOPs per FP32 FLOP and is
# fitted with the quantised-matmul factor where the family's rated prefill rows include GPUs with an FP32 figure.
MMQ_FAMILIES = ("cuda",)
MMQ_START = 2.0
# dp4a MMQ on Pascal (speed docstring): ν starts at 1 matmul FLOP per FP32 FLOP and is fitted on the family's prefill
# rows of dp4a GPUs with an FP32 figure.
DP4A_START = 1.0
CURRENT_FIELDS = ("bandwidth_efficiency", "hbm_bandwidth_efficiency", "launch_per_layer_s",
                  "launch_per_layer_ungraphed_s", "dequant_factor")


def _with(c: BackendConstants, fields: Sequence[str], logs: Sequence[float], factor_floor: float) -> BackendConstants:
    values: dict[str, Any] = {name: max(math.exp(min(v, LOG_CAP)), FLOOR) for name, v in zip(fields, logs)}
    for name in EFFICIENCIES:
        if name in values:
            values[name] = min(values[name], 1.0)  # an efficiency above 1 is not physical
    for name in FACTORS:
        if name in values:
            values[name] = max(values[name], factor_floor)
    return dataclasses.replace(c, **values)


def _fit_fields(cases: list[Case], start: BackendConstants, fields: Sequence[str],
                factor_floor: float = 1.0) -> BackendConstants:
    if not fields or not cases:
        return start
    # An efficiency starting at its cap of 1 would leave the simplex flat (every step up is clamped back): start
    # just inside it.
    x0 = [math.log(min(max(getattr(start, name), FLOOR), START_CAP if name in EFFICIENCIES else math.inf))
          for name in fields]

    def loss(x: list[float]) -> float:
        c = _with(start, fields, x, factor_floor)
        return soft_l1([speed_cases.log_error(case, c) for case in cases])

    best = x0
    for _ in range(3):  # restarts from the last optimum escape early simplex collapse
        best = nelder_mead(loss, best)
    return _with(start, fields, best, factor_floor)


def _identifiable(fields: Sequence[str], cases: list[Case]) -> list[str]:
    """The fields these rows can pin down: multi-GPU terms need multi-GPU rows, each η_bw needs GPUs of its kind."""
    multi = any(c.device.gpu_count > 1 for c in cases)
    hbm = [c.device.hbm for c in cases if c.row.kind == "decode_tps"]
    # One HBM decode row (a 1.5B model on an MI355X, mostly fixed cost) leaves η_bw of HBM free to run to either bound.
    hbm_rows = sum(hbm)
    # A per-layer cost and η_bw trade off against each other unless GPUs of several bandwidths (or models of several
    # sizes) pin both; a per-step cost needs dense models of several layer counts besides.
    sizes = {(c.device.bandwidth_bytes_per_s, c.work.dense_weight_bytes) for c in cases if c.device.graphs}
    layers = {c.work.n_layers for c in cases if c.device.graphs and c.work.n_experts == 0 and not c.work.state_bytes}
    out = []
    for f in fields:
        if f in MULTI_GPU_FIELDS and not multi:
            continue
        if (f == "hbm_bandwidth_efficiency" and hbm_rows < MOE_MIN_ROWS) or (f == "bandwidth_efficiency" and all(hbm)):
            continue
        if f == "launch_per_layer_ungraphed_s" and all(c.device.graphs for c in cases):
            continue
        if f == "gemm_tflops_per_watt" and not any(c.device.tdp_w is not None for c in cases):
            continue
        if f == "launch_per_layer_s" and len(sizes) < 2:
            continue
        if f == "launch_s" and (len(layers) < 2 or len(sizes) < 3):
            continue
        if f == "recurrent_layer_s" and sum(c.work.recurrent_layers > 0 for c in cases) < MOE_MIN_ROWS:
            continue
        out.append(f)
    return out


def fit_family(cases: list[Case], family: str, start: BackendConstants = START,
               era: str = speed_cases.ERA_2024) -> BackendConstants:
    """Constants of one backend family and engine era, fitted on its rows (``cases`` may hold others).

    2024 builds: decode constants on decode rows, then prefill constants and flops_per_byte on prefill rows. Current
    builds: only what their rows identify (η_bw, η_bw of HBM, per-step and per-layer cost, quantised-matmul factor;
    then the MoE, recurrent-layer, depth and layer-split terms), with the era's fixed terms (``CURRENT_FIXED``) and
    the rest kept from ``start`` (the family's 2024 fit). Constants the rows cannot identify keep ``start``'s values."""
    mine = [c for c in cases if c.family == family and c.era == era]
    start = dataclasses.replace(start, family=family, engine=ENGINES[(family, era)], borrowed_from=None)
    moe = [c for c in mine if c.work.n_experts > 0]
    mine = [c for c in mine if c.work.n_experts == 0]
    decode = [c for c in mine if c.row.kind == "decode_tps"]
    prefill = [c for c in mine if c.row.kind == "prefill_tps"]
    rated = [c for c in prefill if c.device.fp16_flops is not None]
    if era == speed_cases.ERA_CURRENT:
        start = _fit_moe(moe, _fit_current(family, start, decode, prefill, rated), decode)
        moe_decode = [c for c in moe if c.row.kind == "decode_tps"]
        return _fit_split(mine + moe, _fit_depth(mine + moe, _fit_decode_jointly(decode + moe_decode, start)))
    return _fit_moe(moe, _fit_2024(start, decode, prefill, rated), decode)


def _fit_moe(moe: list[Case], start: BackendConstants, dense_decode: Sequence[Case] = ()) -> BackendConstants:
    """The mixture-of-experts terms on the family's MoE rows (multi-GPU ones too, with the layer-split terms held),
    the dense constants held (``MOE_START``); a family with fewer than ``MOE_MIN_ROWS`` rows of a kind keeps
    ``start``'s terms for it: CUDA's, for a family fitted after CUDA (ROCm builds compile the same MMQ and
    MUL_MAT_ID kernels through HIP)."""
    decode = [c for c in moe if c.row.kind == "decode_tps"]
    prefill = [c for c in moe if c.row.kind == "prefill_tps"]
    if len(decode) >= MOE_MIN_ROWS:
        fields = ["moe_layer_s"] + (["expert_bandwidth_efficiency"] if len(decode) >= MOE_SHARE_MIN_ROWS else [])
        moe_start: dict[str, Any] = {f: getattr(start, f) if getattr(start, f) != _neutral(f) else MOE_START[f]
                                     for f in fields}
        start = dataclasses.replace(start, **moe_start)
        # LPDDR unified memory (DGX Spark, Strix Halo) has its own bandwidth efficiency; it is fitted with the MoE
        # terms on the same decode rows plus the dense LPDDR ones, since most LPDDR rows are of MoE models.
        lpddr = [c for c in dense_decode if c.device.lpddr] + [c for c in decode if c.device.lpddr]
        if lpddr and any(not c.device.lpddr for c in decode):
            start = dataclasses.replace(start, lpddr_bandwidth_efficiency=start.lpddr_bandwidth_efficiency
                                        or MOE_START["lpddr_bandwidth_efficiency"])
            fields.append("lpddr_bandwidth_efficiency")
            decode = decode + [c for c in dense_decode if c.device.lpddr]
        start = _fit_fields(decode, start, fields)
    if len(prefill) >= MOE_MIN_ROWS:
        if start.expert_tokens_half <= 0:
            start = dataclasses.replace(start, expert_tokens_half=MOE_START["expert_tokens_half"])
        start = _fit_fields(prefill, start, ["expert_tokens_half"])
    return start


def _fit_decode_jointly(decode: list[Case], start: BackendConstants) -> BackendConstants:
    """Current builds with MoE rows: the decode constants all models share (η_bw, per-step and per-layer cost, the
    recurrent-layer cost where hybrid rows pin it) refitted together with the MoE and LPDDR terms on every decode row,
    dense and MoE. With one dense model the per-layer cost and η_bw trade off against each other; models of other
    layer counts and bytes per layer pin both."""
    moe = [c for c in decode if c.work.n_experts > 0]
    if len(moe) < MOE_MIN_ROWS:
        return start
    fields = _identifiable([f for f in CURRENT_FIELDS + CURRENT_FIELDS_SEPARABLE + ("recurrent_layer_s",)
                            if f in DECODE_FIELDS + ("recurrent_layer_s",)], decode) + ["moe_layer_s"]
    if "recurrent_layer_s" in fields and start.recurrent_layer_s <= 0:
        start = dataclasses.replace(start, recurrent_layer_s=RECURRENT_START_S)
    if len(moe) >= MOE_SHARE_MIN_ROWS:
        fields.append("expert_bandwidth_efficiency")
    if start.lpddr_bandwidth_efficiency is not None and any(c.device.lpddr for c in decode):
        fields.append("lpddr_bandwidth_efficiency")  # only LPDDR rows pin it: without them it would run to its floor
    # η_bw often sits at its cap after the dense-only fit, and the per-layer and routing costs at their floor, corners
    # the simplex does not leave: start from values away from them as well and keep the fit with the lowest loss.
    starts = [start] + [dataclasses.replace(start, bandwidth_efficiency=eta) for eta in JOINT_ETA_STARTS
                        if "bandwidth_efficiency" in fields]
    if "launch_per_layer_s" in fields:
        starts.append(dataclasses.replace(start, launch_per_layer_s=JOINT_KERNEL_START_S,
                                          moe_layer_s=JOINT_KERNEL_START_S))
    fits = [_fit_fields(decode, s, fields) for s in starts]
    return min(fits, key=lambda c: soft_l1([speed_cases.log_error(case, c) for case in decode]))


def _fit_depth(cases: list[Case], start: BackendConstants) -> BackendConstants:
    """Current builds: the KV read efficiency on single-GPU decode rows at a depth (flash attention reads the cache
    faster than the 2024 builds' separate KQ and KQV products), with the decode attention rate where rows of
    compute-heavy attention (MLA) pin it, and the attention efficiency on single-GPU prefill rows at a depth, every
    other constant held, each where ``MOE_MIN_ROWS`` such rows pin it (the layer-split terms follow in
    ``_fit_split``)."""
    deep = [c for c in cases if c.row.kind == "decode_tps" and c.row.depth > 0 and c.device.gpu_count == 1]
    if len(deep) >= MOE_MIN_ROWS:
        fields = ["kv_efficiency"]
        if sum(attention_intensity(c.work) >= COMPUTE_HEAVY_ATTENTION for c in deep) >= MOE_MIN_ROWS:
            fields.append("decode_attention_efficiency")
            start = dataclasses.replace(start, decode_attention_efficiency=start.decode_attention_efficiency
                                        or start.attention_efficiency)
        start = _fit_fields(deep, start, fields)
    # Flash-attention prefill at a depth: the attention FLOPs' share of the GEMM rate, per backend's kernels.
    deep = [c for c in cases if c.row.kind == "prefill_tps" and c.row.depth > 0 and c.device.gpu_count == 1]
    if len(deep) >= MOE_MIN_ROWS:
        start = _fit_fields(deep, start, ["attention_efficiency"])
    return start


def attention_intensity(work: Workload) -> float:
    """Attention FLOPs per cached KV byte of a model (per key over all layers): 2-16 for grouped-query attention,
    30-240 for absorbed MLA (16 heads of DeepSeek-V2-Lite to 128 of DeepSeek-V3), whose decode attention turns
    compute-bound at depth."""
    kv = sum(g.kv_bytes_per_token for g in work.attention)
    return sum(g.flops_per_key for g in work.attention) / kv if kv else 0.0


def _fit_split(cases: list[Case], start: BackendConstants) -> BackendConstants:
    """Current builds: the layer split's hand-over per GPU boundary on multi-GPU decode rows and its pipeline
    efficiency on multi-GPU prefill rows, every other constant held, where MOE_MIN_ROWS rows from two or more rigs
    (GPU and count) pin each; otherwise the older era's values stay. Hybrid models' rows are left out: their
    single-GPU step carries costs of its own (recurrent layers) that the hand-over would otherwise absorb."""
    for kind, field in (("decode_tps", "split_s"), ("prefill_tps", "pipeline_efficiency")):
        multi = [c for c in cases if c.row.kind == kind and c.device.gpu_count > 1 and c.arch_class != "hybrid"]
        if len(multi) >= MOE_MIN_ROWS and len({(c.gpu_id, c.device.gpu_count) for c in multi}) >= 2:
            start = _fit_fields(multi, start, [field])
    return start


def _neutral(field: str) -> float:
    return cast(float, next(f.default for f in dataclasses.fields(BackendConstants) if f.name == field))


def _fit_current(family: str, start: BackendConstants, decode: list[Case], prefill: list[Case],
                 rated: list[Case]) -> BackendConstants:
    """Current builds (see ``fit_family``), dense rows only."""
    start = dataclasses.replace(start, **CURRENT_FIXED)
    fields = _identifiable([f for f in CURRENT_FIELDS + CURRENT_FIELDS_SEPARABLE if f in DECODE_FIELDS], decode)
    if "launch_s" in fields:
        start = dataclasses.replace(start, launch_s=LAUNCH_START_S)
    start = _fit_fields(decode, start, fields)
    mmq = family in MMQ_FAMILIES and any(c.device.fp32_flops is not None for c in rated)
    start = dataclasses.replace(start, mmq_flops_per_fp32_flop=(start.mmq_flops_per_fp32_flop or MMQ_START)
                                if mmq else None)
    # Where rows of F16/BF16 weights pin it, the family's own unquantised-GEMM efficiency replaces the 2024 cuBLAS one.
    unquantized = sum(not c.work.quantized for c in rated) >= MOE_MIN_ROWS
    fields = ((["dequant_factor"] if rated else []) + (["compute_efficiency"] if unquantized else [])
              + (["mmq_flops_per_fp32_flop"] if mmq else []))
    start = _fit_fields(rated, start, fields, factor_floor=MMQ_FACTOR_FLOOR)
    dp4a = [c for c in prefill if c.device.mmq == "dp4a" and c.device.fp32_flops is not None]
    if dp4a:
        start = dataclasses.replace(start, dp4a_flops_per_fp32_flop=start.dp4a_flops_per_fp32_flop or DP4A_START)
        start = _fit_fields(dp4a, start, ["dp4a_flops_per_fp32_flop"])
    return _fit_fields(speed_cases.without_flops(prefill), start, ["flops_per_byte"] if prefill else [])


def _fit_2024(start: BackendConstants, decode: list[Case], prefill: list[Case], rated: list[Case]) -> BackendConstants:
    """2024 builds (see ``fit_family``), dense rows only."""
    start = _fit_fields(decode, start, _identifiable(DECODE_FIELDS, decode))
    if rated:
        start = _fit_fields(rated, start, _identifiable(PREFILL_FIELDS, rated))
        start = _fit_fields(speed_cases.without_flops(prefill), start, ["flops_per_byte"])
    elif prefill:
        # With F = flops_per_byte × bandwidth for every GPU, traffic over the bandwidth is indistinguishable from
        # FLOPs over F: the dequantisation and score traffic fold into dequant_factor and attention_efficiency.
        start = dataclasses.replace(start, compute_efficiency=1.0, dequant_bytes_per_weight=0.0, score_bytes=0.0,
                                    gemm_tflops_per_watt=None)
        fields = [f for f in _identifiable(PREFILL_FIELDS, prefill) if f not in UNRATED_FIXED] + ["flops_per_byte"]
        start = _fit_fields(prefill, start, fields)
    return start


Group = tuple[str, str]  # (backend family, engine era)


def _order(groups: set[Group]) -> list[Group]:
    """Fit order: CUDA before other families, older eras before newer (each starts from what came before)."""
    return sorted(groups, key=lambda g: (speed_cases.ERAS.index(g[1]), g[0] != "cuda", g[0]))


def _start_group(group: Group, groups: set[Group] | dict[Group, BackendConstants]) -> Group | None:
    """The group ``fit`` starts ``group`` from, among ``groups``: the family's older era, else CUDA's of the same era,
    else CUDA's 2024 set; None: the neutral START."""
    family, era = group
    older = [e for e in speed_cases.ERAS[: speed_cases.ERAS.index(era)] if (family, e) in groups]
    if older:
        return (family, older[-1])
    return next((g for g in (("cuda", era), ("cuda", speed_cases.ERA_2024)) if g != group and g in groups), None)


def fit(cases: list[Case], previous: dict[Group, BackendConstants] | None = None,
        only: set[Group] | None = None) -> dict[Group, BackendConstants]:
    """Constants for every (family, era) in ``cases``, each started from ``_start_group``'s fit (lent rows, see
    ``Case.lent``, are left out). ``previous``/``only``: refit just ``only``, keep the rest."""
    cases = speed_cases.fitted(cases)
    out: dict[Group, BackendConstants] = dict(previous or {})
    for group in _order({c.group for c in cases}):
        if only is not None and group not in only:
            continue
        source = _start_group(group, out)
        out[group] = fit_family(cases, group[0], START if source is None else out[source], group[1])
    return out


def affected_groups(changed: set[Group], groups: set[Group]) -> set[Group]:
    """``changed`` and every group of ``groups`` whose fit starts, directly or through others, from one of them:
    what a fold must refit when the rows of ``changed`` differ (the rest come out of ``fit`` the same)."""
    out = set(changed)
    for group in _order(groups):
        if _start_group(group, groups) in out:
            out.add(group)
    return out


def resolve(constants: dict[Group, BackendConstants], group: Group) -> BackendConstants:
    """The constants that predict a (family, era): its own, else the family's nearest era, else CUDA's (borrowed)."""
    family, era = group
    if group in constants:
        return constants[group]

    def rank(g: Group) -> int:
        return abs(speed_cases.ERAS.index(g[1]) - speed_cases.ERAS.index(era))

    same = sorted((g for g in constants if g[0] == family), key=rank)
    if same:
        return constants[same[0]]
    other = sorted(constants, key=lambda g: (g[0] != "cuda", rank(g)))
    return dataclasses.replace(constants[other[0]], family=family, borrowed_from=other[0][0])


def newest(constants: dict[Group, BackendConstants]) -> dict[str, BackendConstants]:
    """Per family, the constants of its newest era (what the pages use)."""
    out: dict[str, BackendConstants] = {}
    for (family, era) in sorted(constants, key=lambda g: speed_cases.ERAS.index(g[1])):
        out[family] = constants[(family, era)]
    return out


# ---------------------------------------------------------------------------------------------- cross-validation


@dataclass(frozen=True)
class HeldOut:
    """One row predicted by constants fitted without it."""

    method: str  # "gpu" (leave one GPU out), "source" (leave one source out) or "model" (leave one model out)
    family: str
    era: str
    kind: str
    gpu: str
    context: int | None
    measured: float
    predicted: float
    setup: tuple = ()  # (model, quant, depth, backend): what a prefill row pairs with for time to first token
    cls: str = "dense"  # architecture class of the row's model (calibration.architecture_class)


def _held(method: str, cases: list[Case], constants: dict[Group, BackendConstants]) -> list[HeldOut]:
    return [HeldOut(method, c.reported_family, c.era, c.row.kind, c.gpu_id, c.row.context, c.row.value,
                    speed_cases.predict(c, resolve(constants, c.group)),
                    (c.row.model, c.row.quant, c.row.depth, c.device.gpu_count), c.arch_class) for c in cases]


def leave_one_gpu_out(cases: list[Case], full: dict[Group, BackendConstants]) -> list[HeldOut]:
    """Each GPU's rows predicted by constants fitted without any of its rows."""
    return _folds("gpu", cases, sorted({c.gpu_id for c in cases}), full)


def source_of(case: Case) -> str:
    """The publication a row comes from (its source before any parenthesis: a pull request, issue or discussion, or
    the repository of a file or folder: the log files of one benchmark repository are one source)."""
    source = case.row.source.split(" (")[0].split(" via ")[0]
    match = re.match(r"(https://github\.com/[^/]+/[^/]+)/(?:blob|tree)/", source)
    return match.group(1) if match else source


def leave_one_source_out(cases: list[Case], full: dict[Group, BackendConstants]) -> list[HeldOut]:
    """Each source's rows predicted by constants fitted on the other sources only (a (family, era) missing from the
    rest borrows the nearest fitted set, as a backend without measurements does on the pages)."""
    return _folds("source", cases, sorted({source_of(c) for c in cases}), full)


def leave_one_model_out(cases: list[Case], full: dict[Group, BackendConstants]) -> list[HeldOut]:
    """Each model's rows predicted by constants fitted on the other models' rows only (a (family, era) left without
    rows borrows the nearest fitted set): how the constants carry to a model they never saw."""
    return _folds("model", cases, sorted({c.row.model for c in cases}), full)


def _fold_key(method: str, case: Case) -> str:
    return case.gpu_id if method == "gpu" else source_of(case) if method == "source" else case.row.model


def _folds(method: str, cases: list[Case], keys: list[str], full: dict[Group, BackendConstants]) -> list[HeldOut]:
    """The held-out predictions of every fold, the folds run in parallel over the machine's cores (each is
    independent; the results are concatenated in key order, so the output does not depend on the worker count)."""
    jobs = [(method, cases, key, full) for key in keys]
    workers = min(len(jobs), os.cpu_count() or 1)
    if workers <= 1:
        return [p for job in jobs for p in _fold(job)]
    with concurrent.futures.ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("fork")) as pool:
        return [p for part in pool.map(_fold, jobs) for p in part]


def _fold(job: tuple[str, list[Case], str, dict[Group, BackendConstants]]) -> list[HeldOut]:
    """One fold: refit without the rows of ``key`` and predict them. Only the groups those rows touch, and the groups
    started from them, are refitted; the others keep ``full``, fitted on the same rows from the same start."""
    method, cases, key, full = job
    train = [c for c in cases if _fold_key(method, c) != key]
    held = [c for c in cases if _fold_key(method, c) == key]
    refit = affected_groups({c.group for c in speed_cases.fitted(held)}, {c.group for c in speed_cases.fitted(cases)})
    return _held(method, held, fit(train, previous={g: k for g, k in full.items() if g not in refit}, only=refit))


def ttft_points(points: list[HeldOut]) -> list[HeldOut]:
    """Time to first token from paired prefill and decode rows (same method, GPU, backend, model, quant, depth and GPU
    count; the 2024 tables also pair ppN with tgN): the prompt's time at the prefill rate plus one token at the
    decode rate, measured against predicted."""
    def key(p: HeldOut) -> tuple:
        return (p.method, p.gpu, p.family, p.era, p.setup, p.context if p.era == speed_cases.ERA_2024 else None)

    decode = {key(p): p for p in points if p.kind == "decode_tps"}
    out = []
    for p in points:
        d = decode.get(key(p))
        if p.kind != "prefill_tps" or d is None:
            continue
        n = p.context or 512
        out.append(HeldOut(p.method, p.family, p.era, "ttft_s", p.gpu, n, n / p.measured + 1 / d.measured,
                           n / p.predicted + 1 / d.predicted, p.setup, p.cls))
    return out


MULTI_GPU = "multi-GPU"  # the statistics group of rows run on several GPUs (llama-bench's default layer split)


def statistics_rows(points: list[HeldOut]) -> list[tuple[str, str, str, int, float, float, float]]:
    """(method, group, kind, rows, median |error|, worst |error|, share within ±30 %) per backend-era group, per
    backend-era-class group ("cuda 2025-26 moe"), per class over all backends ("all moe") and over all rows."""
    out = []
    for method in ("gpu", "source", "model"):
        mine = [p for p in points if p.method == method]

        def names(p: HeldOut) -> set[str]:
            multi = {f"{p.family} {p.era} {MULTI_GPU}", f"all {MULTI_GPU}"} if p.setup[3] > 1 else set()
            return {"all", f"all {p.cls}", f"{p.family} {p.era}", f"{p.family} {p.era} {p.cls}"} | multi

        groups = sorted({n for p in mine for n in names(p) if not n.startswith("all")})
        groups += sorted({n for p in mine for n in names(p) if n.startswith("all ")}) + ["all"]
        for group in groups:
            for kind in speed_cases.SPEED_KINDS + ("ttft_s",):
                sel = [p for p in mine if p.kind == kind and group in names(p)]
                if sel:
                    r = speed_cases.summarize(kind, [_point(p) for p in sel])
                    out.append((method, group, kind, r.rows, round(r.median_abs_error, 4),
                                round(r.worst_abs_error, 4), round(r.within_30, 4)))
    return out


def _point(p: HeldOut) -> speed_cases.Point:
    return speed_cases.Point(p.kind, "", "", p.gpu, p.context, p.measured, p.predicted, "", "")


def borrow_rows(cases: list[Case], constants: dict[Group, BackendConstants]) -> list[tuple[str, str, str, str, float]]:
    """(family, era, lender, kind, median |error|) of each family's rows predicted with another family's constants of
    the same engine era: the cost of borrowing across backends without the drift between engine builds (the widening
    of a borrowing backend's band)."""
    out = []
    cases = speed_cases.fitted(cases)
    for family, era in _order({c.group for c in cases}):
        lenders = sorted((f for f, e in constants if e == era and f != family), key=lambda f: (f != "cuda", f))
        mine = [c for c in cases if c.group == (family, era)]
        for lender in lenders:
            for kind in speed_cases.SPEED_KINDS:
                errors = [abs(math.exp(speed_cases.log_error(c, constants[(lender, era)])) - 1)
                          for c in mine if c.row.kind == kind]
                if errors:
                    out.append((family, era, lender, kind, round(statistics.median(errors), 4)))
    return out


def render(constants: dict[Group, BackendConstants], stats: list[tuple], borrow: list[tuple],
           fit_stats: list[tuple], points: list[HeldOut], size_stats: tuple) -> str:
    """The text of constants.py."""
    def ctor(c: BackendConstants) -> str:
        args = ", ".join(f"{f.name}={getattr(c, f.name)!r}" for f in dataclasses.fields(c)
                         if f.name not in ("family", "borrowed_from"))
        return f"BackendConstants({c.family!r}, {args})"

    latest = newest(constants)
    lines = [
        '"""Fitted speed constants per backend family and engine era. GENERATED by generator/calibrate/fit_speed.py.',
        "",
        "Do not edit. Fitted on generator/data/measurements.csv (llama.cpp llama-bench rows of two engine eras; each set",
        "names its builds in ``engine``). CONSTANTS: per family, the newest era's set (what the pages use).",
        "CV_STATS: cross-validated error, leave one GPU out (gpu), one source out (source), one model out (model), per",
        "backend-era group and over all rows. BORROW_STATS: a family's rows predicted with another family's constants",
        "of the same era.",
        "FIT_STATS: in-sample, for reference only. CV_POINTS: the held-out decode and prefill points (leave one GPU out).",
        "ROW_GPUS: per backend-era group, the GPUs its rows ran on and how many held-out rows each (a band holds only",
        "for the GPU generations in it).",
        '"""',
        "",
        "from __future__ import annotations",
        "",
        "from .backend import BackendConstants",
        "",
        "ERA_CONSTANTS: dict[tuple[str, str], BackendConstants] = {",
    ]
    lines += [f"    {g!r}: {ctor(c)}," for g, c in sorted(constants.items())]
    lines += ["}", "", "CONSTANTS: dict[str, BackendConstants] = {"]
    lines += [f"    {f!r}: ERA_CONSTANTS[{(f, next(g[1] for g, k in constants.items() if k is c))!r}],"
              for f, c in sorted(latest.items())]
    lines += ["}", "",
              "# (method, group, kind, rows, median |error|, worst |error|, share within ±30 %)",
              "CV_STATS: tuple[tuple[str, str, str, int, float, float, float], ...] = ("]
    lines += [f"    {r!r}," for r in stats]
    lines += [")", "", "# (family, era, lender, kind, median |error| with the lender's constants of the same era)",
              f"BORROW_STATS: tuple[tuple[str, str, str, str, float], ...] = {tuple(borrow)!r}", "",
              "# in-sample (kind, rows, median, worst, within ±30 %); file size: (rows, median, worst, within ±30 %)",
              f"FIT_STATS: tuple[tuple[str, int, float, float, float], ...] = {tuple(fit_stats)!r}",
              f"FILESIZE_STATS: tuple[int, float, float, float] = {size_stats!r}", "",
              "# leave-one-GPU-out held-out points: (kind, family, era, measured, predicted)",
              "CV_POINTS: tuple[tuple[str, str, str, float, float], ...] = ("]
    lines += [f"    {(p.kind, p.family, p.era, p.measured, round(p.predicted, 3))!r}," for p in points
              if p.method == "gpu" and p.kind in speed_cases.SPEED_KINDS]
    groups = sorted({(p.family, p.era) for p in points if p.method == "gpu"})
    lines += [")", "", "# (family, era) -> (catalogue id, held-out rows) of the GPUs its rows ran on",
              "ROW_GPUS: dict[tuple[str, str], tuple[tuple[str, int], ...]] = {"]
    lines += [f"    {g!r}: {_row_gpus(points, g)!r}," for g in groups]
    lines += ["}", ""]
    return "\n".join(lines)


def _row_gpus(points: list[HeldOut], group: Group) -> tuple[tuple[str, int], ...]:
    """(GPU, held-out decode and prefill rows, leave one GPU out) of a backend-era group, by GPU."""
    mine = [p.gpu for p in points if p.method == "gpu" and (p.family, p.era) == group and p.kind in speed_cases.SPEED_KINDS]
    return tuple((gpu, mine.count(gpu)) for gpu in sorted(set(mine)))
