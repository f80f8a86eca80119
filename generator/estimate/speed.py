"""Throughput physics: decode is bandwidth-bound, prefill is compute-bound.

Pure functions on primitives, so the memory side (architecture/weights/kvcache) decides what is read and
this module decides how long it takes. Inputs:

* ``Workload`` — what one model at one quant moves and computes per token:
  ``dense_weight_bytes`` (non-expert weights read every step, **without** ``token_embd``, which is a lookup,
  **with** ``output``), ``expert_weight_bytes`` (all routed-expert weights of all MoE layers together),
  ``experts_per_token`` / ``n_experts`` (routing; 0 for dense models), ``linear_flops_per_token``
  (2 × active matmul parameters, no ``token_embd``), ``n_layers``, ``attention`` (one ``AttentionGroup`` per
  kind of attention layer: KV bytes per cached token, attention FLOPs per (query, key) pair, window or None),
  ``state_bytes`` (recurrent state per sequence, read fully every step), ``quantized`` (block-quantised
  weights pay the fitted dequantisation factor in prefill), ``hidden_size`` (tensor-parallel messages), and
  ``host_dense_bytes`` / ``host_expert_bytes`` (the parts of the weights kept in system RAM when offloading).
* ``SpeedDevice`` — bandwidth and dense FP16 tensor FLOPS of ONE GPU, backend, GPU count, ``parallel``
  ("layer": capacity only, one GPU works at a time; "tensor": bandwidth and compute scale with the count,
  minus two all-reduces per layer), interconnect bandwidth, system-RAM and host-link bandwidth.
* ``BackendConstants`` (``backend.py``) — fitted per backend family (``constants.py``, written by ``fit_constants``).

Model (times per decode step of ``sequences`` = N sequences at depth ``d``):

    t_step = max(W(N)/B + N·state/B, N·F_lin/F_mm) + max(N·KV(d)/(η_kv·BW), N·F_attn(d)/(η_dec·F_a))
             + t_launch + t_split + t_host + t_comm
                                                    (the weight matmuls and the attention are separate kernels,
                                                     each bound by its own resource; F_mm: the prefill matmul rate
                                                     below; F_attn(d) = Σ_groups flops_per_key · min(d + 1, window);
                                                     η_dec = ``decode_attention_efficiency``: the decode attention
                                                     kernels run on the vector units, and absorbed MLA (576-wide
                                                     keys shared by every query head) does 30-240 FLOPs per cached
                                                     byte against 2-16 for grouped-query attention, so MLA models
                                                     turn compute-bound at depth)
    B = η_bw·BW                                     (decode kernels reach a share of the datasheet bandwidth BW,
                                                     the only cap; η_bw is fitted separately for HBM parts, whose
                                                     stacks need more requests in flight than llama.cpp's
                                                     batch-1 mat-vec kernels keep outstanding, and for LPDDR
                                                     unified memory, whose controllers sit behind a shared fabric)
    t_launch = a + b·n_layers + m·moe_layers + r·recurrent_layers
                                                    (host work per step, kernel launches and syncs, the MoE blocks'
                                                     routing kernels, a hybrid's recurrent-layer kernels; per backend)
    t_split = split_s · (gpus − 1)                  (layer split: one hand-over per GPU boundary, no speed-up)
    KV(d) = Σ_groups kv_bytes_per_token · min(d, window)
    W(N) = dense + experts · (1 − (1 − k/E)^N)      (experts touched by N sequences; k/E at N = 1)

Prefill of ``p`` tokens starting at depth ``d``, per micro-batch of ``ubatch`` tokens:

    t = max(F_lin·q / (η_c·F) + F_attn / (η_attn·F_a), weights / B) + (κ·N_q + σ·S) / BW + t_launch + t_split
    F_attn = Σ_groups flops_per_key · Σ_positions min(position + 1, window)
    F_a = the attention kernels' rate: F, or on AMD RDNA GPUs (``vector_attention``) the non-tensor FP32 rate, since
        llama.cpp runs their flash attention mostly on the vector ALUs (its TILE kernel) rather than the matrix units
    S = Σ_groups heads · Σ_positions min(position + 1, window)      (attention scores, one per query, key and head)
    q = dequant_factor for block-quantised weights (time per quantised matmul FLOP relative to an F16 GEMM FLOP),
        1 for 16-bit
    N_q = block-quantised weights the micro-batch touches; κ = dequant_bytes_per_weight: memory traffic per such
        weight per micro-batch. Engine era: llama.cpp builds of 2024 expanded quantised weights to an F16 copy
        before their cuBLAS GEMMs (κ fitted); current builds multiply the quantised blocks directly (MMQ, int8
        tensor cores / dp4a, ``ggml_cuda_should_use_mmq``), so κ = 0 and the quantised rate is in q
    σ = score_bytes: memory traffic per attention score. 2024 builds ran without flash attention (KQ scores written
        in F32, soft-maxed in place and read again); current builds default to flash attention, which keeps the
        scores on chip: σ = 0 for that era
    BW = datasheet bandwidth: these passes are streaming kernels, bandwidth-bound, and run one after the other
    F = GEMM FLOPS: the dense FP16 tensor figure; on GeForce cards (``fp16_accumulate_doubles``) twice it,
        because llama.cpp's cuBLAS F16 GEMMs accumulate in FP16, which GeForce runs at double the
        FP32-accumulate rate that datasheets list. A GPU without a FLOPS figure (``fp16_flops`` None: every
        Apple chip, cards whose datasheet rate was not sourced) gets F = flops_per_byte · BW, its family's
        fitted compute-to-bandwidth balance (see ``BackendConstants.flops_per_byte``)
    F_lin·q / (η_c·F) becomes max(F_lin·q / (η_c·F), F_lin / (μ·F32)) for block-quantised weights in an era with a
        fitted μ = ``mmq_flops_per_fp32_flop``: current builds' MMQ kernels run at a fixed multiple μ of the GPU's
        non-tensor FP32 rate F32 (``fp32_flops``) on every tensor-core card, datacenter parts included, whose tensor
        rates they do not reach; a GPU without an F32 figure keeps the tensor path alone, and one with an F32 figure
        but no sourced tensor rate (DGX Spark, several GeForce cards) takes the F32 bound alone: the family's
        compute-to-bandwidth balance that would stand in for its tensor rate is a bandwidth figure, not this kernel's
    The kernel per GPU generation and build era (ggml-cuda/mmq.cu ``ggml_cuda_should_use_mmq`` today; before pull
    request 8075 of 2024-06-24, ggml-cuda.cu sent every batch above ``MMQ_MAX_BATCH_SIZE`` = 32, "max batch size to
    use MMQ kernels when tensor cores are available", to dequantise + cuBLAS on compute capability ≥ 7.0):
      * cuBLAS F16 GEMMs (16-bit weights in every era; all weights in 2024 builds): F_lin·q / (η_c·F) becomes
        max(F_lin·q / (η_c·F), F_lin / (ε·P)) on a GPU with a catalogued board power P (``tdp_w``) and FLOPS
        figure: ε = ``gemm_tflops_per_watt`` (TFLOPS per W). Measured 2024 F16 prefill follows the tensor rate on
        Ampere GA102 cards (RTX 3090, A6000, A40: 0.42-0.47 of it) but the board power on parts whose tensor rate
        outgrew it (RTX 6000 Ada at 300 W reaches 100 TFLOPS where an RTX 4090 of the same AD102 chip at 450 W
        reaches 141; H100 PCIe at 350 W reaches 21 % of its tensor rate; Llama-3-8B F16 pp512, 15.0 GFLOPs a token)
      * MMQ on int8 tensor cores (compute capability ≥ 7.5, current builds): the μ bound above
      * MMQ on dp4a (``mmq`` = "dp4a": NVIDIA Pascal with compute capability 6.1, no FP16 MMA, so MMQ at every
        batch size): F_lin / (ν·F32), ν = ``dp4a_flops_per_fp32_flop`` (``__dp4a`` runs on the FP32 pipes). The
        P100 (compute capability 6.0, below ``GGML_CUDA_CC_DP4A``: ``mmq`` = "none") dequantises for cuBLAS GEMMs
        on its FP16 (non-tensor) rate, quantised-matmul factor 1. Volta (compute capability 7.0) also takes
        cuBLAS for batches of ``MMQ_DP4A_MAX_BATCH_SIZE`` (64) and more, but the model keeps it on the FP32-bound
        path above: the one Volta row (TITAN V, 35 TFLOPS effective, 30 % of its tensor rate) is matched by that
        path (+4 %) and missed by the cuBLAS path of the current constants (+65 %); an open question until more
        Volta measurements exist

Layer split across k GPUs runs the m = ⌈p / ubatch⌉ micro-batches of the prompt as a pipeline: ideally
(m + k − 1)/(m·k) of the single-GPU time. llama.cpp's pipeline parallelism (4 in-flight copies of the inputs)
does not synchronise between the n_batch chunks of one prompt (llama-bench waits once, after the last chunk),
so the pipeline stays full across them; the fitted ``pipeline_efficiency`` is the share of that ideal gain
realised. Tensor parallel divides weight, KV and FLOPs
by the GPU count and adds two all-reduces of the hidden state per layer (ALL_REDUCE_LATENCY_S each plus ring
transfer over the interconnect; an assumption — the calibration data has no tensor-parallel rows).
Offloaded weights (``host_*_bytes``) are read at system-RAM bandwidth in decode and cross the host link once
per micro-batch in prefill.
Time to first token = prefill time of the prompt + one decode step at the prompt's depth (sampling the first
token and the first step of generation).
Each ``BackendConstants`` set names the engine builds (``engine``) it was fitted on; a family without its own
measurements borrows another's set (``borrowed_from``) and the pages say so.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from functools import cache
from typing import Literal

from . import offload_constants
from .backend import BackendConstants
from .constants import CONSTANTS
from .kvcache import LLAMA_CPP_UBATCH  # llama.cpp's default n_ubatch: weights are read once per micro-batch

Parallel = Literal["layer", "tensor"]
# llama.cpp's kernel for quantised matmuls at prefill batch sizes (CUDA, ``ggml_cuda_should_use_mmq``): MMQ on int8
# tensor cores or a non-NVIDIA backend's own kernels ("mma"), MMQ on dp4a ("dp4a", Pascal cc 6.1), or dequantise +
# cuBLAS ("none", compute capability below 6.1: no dp4a).
MmqKernel = Literal["mma", "dp4a", "none"]

# Dual-channel DDR5-5600: 2 channels × 8 bytes × 5600 MT/s (JEDEC JESD79-5 data rate); a typical desktop.
DEFAULT_HOST_BANDWIDTH_BYTES_PER_S = 2 * 8 * 5600e6
# What llama.cpp's CPU reads of RAM-resident weights reach of that rate (calibrate/fit_offload, offload_constants).
HOST_READ_EFFICIENCY = offload_constants.HOST_READ_EFFICIENCY
# PCIe 4.0 x16 per direction: 16 GT/s × 16 lanes × 128/130 encoding / 8 bits (PCI-SIG PCIe 4.0 base spec).
DEFAULT_HOST_LINK_BYTES_PER_S = 16e9 * 16 * 128 / 130 / 8
# One all-reduce on a small message (latency-bound): an assumption, not fitted (no tensor-parallel data).
ALL_REDUCE_LATENCY_S = 20e-6


@dataclass(frozen=True)
class AttentionGroup:
    """Attention layers of one kind: their KV bytes per cached token, FLOPs and scores per (query, key) pair."""

    kv_bytes_per_token: int
    flops_per_key: float
    window_tokens: int | None = None
    heads: int = 0  # query heads summed over the group's layers: attention scores per (query, key) pair


@dataclass(frozen=True)
class Workload:
    """What one model at one quant reads and computes per token (see the module docstring)."""

    dense_weight_bytes: int
    linear_flops_per_token: float
    n_layers: int
    attention: tuple[AttentionGroup, ...] = ()
    expert_weight_bytes: int = 0
    experts_per_token: int = 0
    n_experts: int = 0
    state_bytes: int = 0
    quantized: bool = True
    hidden_size: int = 0
    host_dense_bytes: int = 0
    host_expert_bytes: int = 0
    expert_flops_per_token: float = 0.0  # routed experts' part of linear_flops_per_token (2 × active expert params)
    moe_layers: int = 0  # blocks with routed experts (each runs a router, a top-k and MUL_MAT_ID per step)
    recurrent_layers: int = 0  # linear-attention / SSM layers (each runs its conv, gating and state-update kernels)


@dataclass(frozen=True)
class SpeedDevice:
    """Per-GPU bandwidth and FLOPS, how many GPUs and how the model is split across them."""

    bandwidth_bytes_per_s: float
    fp16_flops: float | None  # None: not catalogued; the family's flops_per_byte stands in
    backend: str
    gpu_count: int = 1
    parallel: Parallel = "layer"
    interconnect_bytes_per_s: float | None = None
    host_bandwidth_bytes_per_s: float = DEFAULT_HOST_BANDWIDTH_BYTES_PER_S
    host_read_efficiency: float = HOST_READ_EFFICIENCY  # share of it llama.cpp's CPU expert kernels reach (fitted)
    host_link_bytes_per_s: float = DEFAULT_HOST_LINK_BYTES_PER_S
    fp16_accumulate_doubles: bool = False
    hbm: bool = False  # stacked HBM memory: decode reaches hbm_bandwidth_efficiency of the datasheet bandwidth
    lpddr: bool = False  # LPDDR unified memory: decode reaches lpddr_bandwidth_efficiency (when fitted)
    graphs: bool = True  # the engine replays each step as a CUDA graph (llama.cpp: NVIDIA Ampere and newer only)
    fp32_flops: float | None = None  # non-tensor FP32 FLOPS of one GPU; None: not catalogued (tensor path only)
    tdp_w: float | None = None  # board power of one GPU (catalogued TDP); None: no power bound on its GEMMs
    mmq: MmqKernel = "mma"  # the quantised-matmul kernel llama.cpp picks for this GPU (see ``MmqKernel``)
    vector_attention: bool = False  # flash attention at the vector FP32 rate (AMD RDNA; see ``attention_flops``)
    nv_coopmat2: bool = False  # NVIDIA Ampere or newer: on Vulkan, llama.cpp's NV_coopmat2 kernels (``kernel_family``)

    def datasheet_flops(self, c: BackendConstants) -> float:
        """Dense FP16 tensor FLOPS of one GPU: the catalogued figure, else the family's flops_per_byte × bandwidth."""
        if self.fp16_flops is not None:
            return self.fp16_flops
        if c.flops_per_byte is None:
            raise ValueError(f"no FP16 FLOPS for this GPU and no fitted flops_per_byte for {c.family}")
        return c.flops_per_byte * self.bandwidth_bytes_per_s

    def gemm_flops(self, c: BackendConstants) -> float:
        """FLOPS of llama.cpp's F16 GEMMs on one GPU: cuBLAS accumulates in FP16, which GeForce cards run at twice
        their FP32-accumulate datasheet rate (``fp16_accumulate_doubles``; pro and datacenter parts run both alike)."""
        doubles = self.fp16_accumulate_doubles and kernel_family(self) == "cuda"
        return self.datasheet_flops(c) * (2.0 if doubles else 1.0)

    def attention_flops(self, c: BackendConstants) -> float:
        """FLOPS one GPU's flash-attention kernels work against: the GEMM rate, or the non-tensor FP32 rate where they
        run on the vector units (``vector_attention``) and that rate is catalogued."""
        if self.vector_attention and self.fp32_flops is not None:
            return self.fp32_flops
        return self.gemm_flops(c)

    def kernel_bandwidth(self, c: BackendConstants) -> float:
        """Bandwidth one GPU's decode kernels reach: η_bw (HBM or not) of the datasheet figure, never more."""
        eta = c.hbm_bandwidth_efficiency if self.hbm else c.bandwidth_efficiency
        if self.lpddr and c.lpddr_bandwidth_efficiency is not None:
            eta = c.lpddr_bandwidth_efficiency
        return eta * self.bandwidth_bytes_per_s


FAMILIES = ("cuda", "rocm", "metal", "vulkan")


def family(backend: str) -> str:
    """The constants family of a backend name: cuda, rocm, metal, vulkan, or other."""
    name = backend.lower()
    return name if name in FAMILIES else "other"


def kernel_family(device: SpeedDevice) -> str:
    """The family whose constants model a device's kernels: its backend's, except an NVIDIA GPU of Ampere or newer on
    Vulkan. There llama.cpp runs NV_coopmat2 kernels (ggml-vulkan.cpp: tensor-core tiles of dequantised F16 weights,
    accumulated in F16 at default precision, flash attention likewise), which its measured rows show as fast as the
    CUDA build on the same card, so CUDA's constants predict them (methodology)."""
    fam = family(device.backend)
    return "cuda" if fam == "vulkan" and device.nv_coopmat2 else fam


def device_constants(device: SpeedDevice) -> BackendConstants:
    """The newest fitted constants of a device's kernel family (``kernel_family``)."""
    return constants_for(kernel_family(device))


@cache
def constants_for(backend: str) -> BackendConstants:
    """The newest fitted constants of a backend's family; a family without measurements borrows CUDA's (marked)."""
    fam = family(backend)
    if fam in CONSTANTS:
        return CONSTANTS[fam]
    return dataclasses.replace(CONSTANTS["cuda"], family=fam, borrowed_from="cuda")


# ---------------------------------------------------------------------------------------------- pieces


def _tp(device: SpeedDevice) -> int:
    return device.gpu_count if device.parallel == "tensor" else 1


def weight_bytes_read(work: Workload, sequences: int = 1) -> float:
    """Weight bytes read in one decode step of ``sequences`` sequences (experts touched by any of them)."""
    return work.dense_weight_bytes + work.expert_weight_bytes * _expert_share(work, sequences)


def _expert_share(work: Workload, sequences: int) -> float:
    if work.n_experts <= 0 or work.expert_weight_bytes == 0:
        return 0.0
    return 1.0 - (1.0 - min(work.experts_per_token, work.n_experts) / work.n_experts) ** sequences


def kv_bytes_read(work: Workload, depth: float) -> float:
    """KV bytes one sequence reads per decode step at ``depth`` cached tokens (windows cap their layers)."""
    return float(sum(g.kv_bytes_per_token * _cap(depth, g.window_tokens) for g in work.attention))


def _cap(depth: float, window: int | None) -> float:
    return depth if window is None else min(depth, window)


def launch_s(work: Workload, c: BackendConstants, graphs: bool = True) -> float:
    """Fixed per-step cost: kernel launches and synchronisation, growing with the layer count."""
    per_layer = c.launch_per_layer_s if graphs or c.launch_per_layer_ungraphed_s <= 0 else c.launch_per_layer_ungraphed_s
    return c.launch_s + per_layer * work.n_layers


def _host_step_s(work: Workload, device: SpeedDevice, sequences: int) -> float:
    host = work.host_dense_bytes + work.host_expert_bytes * _expert_share(work, sequences)
    return host / (device.host_bandwidth_bytes_per_s * device.host_read_efficiency)


def _comm_s(work: Workload, device: SpeedDevice, tokens: int) -> float:
    """Two all-reduces of the hidden state per layer under tensor parallelism (ring: 2(n−1)/n of the data)."""
    n = _tp(device)
    if n == 1:
        return 0.0
    link = device.interconnect_bytes_per_s or device.host_link_bytes_per_s
    message = 2 * work.hidden_size * tokens * 2 * (n - 1) / n
    return 2 * work.n_layers * (ALL_REDUCE_LATENCY_S + message / link)


def _split_s(device: SpeedDevice, c: BackendConstants) -> float:
    return c.split_s * (device.gpu_count - 1) if device.parallel == "layer" else 0.0


# ---------------------------------------------------------------------------------------------- decode


def decode_step_s(work: Workload, device: SpeedDevice, c: BackendConstants | None = None, depth: float = 0,
                  sequences: int = 1) -> float:
    """Seconds for one decode step producing one token for each of ``sequences`` sequences at ``depth``."""
    c = c or device_constants(device)
    n = _tp(device)
    bw = device.kernel_bandwidth(c) * n
    share = _expert_share(work, sequences)
    dense_gpu = work.dense_weight_bytes - work.host_dense_bytes
    experts_gpu = (work.expert_weight_bytes - work.host_expert_bytes) * share
    weights = (dense_gpu + experts_gpu / c.expert_bandwidth_efficiency + sequences * work.state_bytes) / bw
    kv = sequences * kv_bytes_read(work, depth) / (c.kv_efficiency * device.bandwidth_bytes_per_s * n)
    matmul = sequences * linear_s(work, device, c, work.linear_flops_per_token)
    return (max(weights, matmul) + max(kv, sequences * decode_attention_s(work, device, c, depth))
            + launch_s(work, c, device.graphs) + moe_routing_s(work, c, device.graphs)
            + recurrent_s(work, c, device.graphs) + _split_s(device, c)
            + _host_step_s(work, device, sequences) + _comm_s(work, device, sequences))


def moe_routing_s(work: Workload, c: BackendConstants, graphs: bool = True) -> float:
    """Fixed per-step cost of the MoE blocks: router GEMV, soft-max/top-k, the expert ids and MUL_MAT_ID's gather.

    These are extra kernels, so without CUDA graphs their cost grows as the per-layer launch cost does."""
    return c.moe_layer_s * work.moe_layers * _ungraphed_scale(c, graphs)


def recurrent_s(work: Workload, c: BackendConstants, graphs: bool = True) -> float:
    """Fixed per-step cost of the recurrent layers of a hybrid model (extra kernels, scaled as ``moe_routing_s``)."""
    return c.recurrent_layer_s * work.recurrent_layers * _ungraphed_scale(c, graphs)


def _ungraphed_scale(c: BackendConstants, graphs: bool) -> float:
    """How much more a kernel launch costs without CUDA graphs: the ungraphed per-layer cost over the graphed one."""
    if not graphs and c.launch_per_layer_ungraphed_s > 0 and c.launch_per_layer_s > 0:
        return c.launch_per_layer_ungraphed_s / c.launch_per_layer_s
    return 1.0


def decode_attention_s(work: Workload, device: SpeedDevice, c: BackendConstants, depth: float) -> float:
    """Seconds of attention FLOPs for one sequence's decode step at ``depth`` (module docstring: η_dec)."""
    eta = c.attention_efficiency if c.decode_attention_efficiency is None else c.decode_attention_efficiency
    flops = sum(g.flops_per_key * _cap(depth + 1, g.window_tokens) for g in work.attention)
    return flops / (eta * device.attention_flops(c) * _tp(device))


def linear_s(work: Workload, device: SpeedDevice, c: BackendConstants, flops: float) -> float:
    """Seconds for ``flops`` matmul FLOPs of the model's linear layers, on the kernel llama.cpp picks (module docstring):
    dp4a MMQ on Pascal, FP32-bound tensor MMQ for quantised weights where the era has it, else cuBLAS GEMMs at the
    tensor rate × η_c (times the quantised-matmul factor) and, with a TDP, at most ε × TDP."""
    n = _tp(device)
    if (work.quantized and device.mmq == "dp4a" and c.dp4a_flops_per_fp32_flop is not None
            and device.fp32_flops is not None):
        return flops / (c.dp4a_flops_per_fp32_flop * device.fp32_flops * n)
    mmq = work.quantized and device.mmq != "none"  # "none": dequantised weights run the F16 GEMMs (factor 1)
    mu = c.mmq_flops_per_fp32_flop if mmq else None  # fitted for builds whose MMQ kernels are FP32-bound
    fp32_bound = None if mu is None or device.fp32_flops is None else flops / (mu * device.fp32_flops * n)
    if fp32_bound is not None and device.fp16_flops is None:
        return fp32_bound  # no sourced tensor rate: the family's bandwidth balance says nothing about this kernel
    tensor = flops * (c.dequant_factor if mmq else 1.0) / (c.compute_efficiency * device.gemm_flops(c) * n)
    if mu is not None:
        return tensor if fp32_bound is None else max(tensor, fp32_bound)
    if c.gemm_tflops_per_watt is not None and device.tdp_w is not None and device.fp16_flops is not None:
        return max(tensor, flops / (c.gemm_tflops_per_watt * 1e12 * device.tdp_w * n))
    return tensor


def decode_tokens_per_s(work: Workload, device: SpeedDevice, c: BackendConstants | None = None,
                        depth: int = 0) -> float:
    """Tokens per second of one sequence at ``depth`` cached tokens."""
    return 1.0 / decode_step_s(work, device, c, depth)


def generation_tokens_per_s(work: Workload, device: SpeedDevice, c: BackendConstants | None = None,
                            new_tokens: int = 128, start_depth: int = 0) -> float:
    """Mean tokens per second generating ``new_tokens`` tokens from ``start_depth`` (what llama-bench tgN reports)."""
    if new_tokens < 1:
        raise ValueError("new_tokens must be at least 1")
    # Step time is piecewise linear in depth; summing its endpoints per linear piece is exact.
    total = sum(decode_step_s(work, device, c, d) * count for d, count in _depth_weights(work, start_depth, new_tokens))
    return new_tokens / total


def _depth_weights(work: Workload, start: int, n: int) -> list[tuple[float, int]]:
    """(mean depth, count) pieces over depths start..start+n−1 on which every window term is linear."""
    cuts = sorted({start, start + n, *(g.window_tokens for g in work.attention
                                       if g.window_tokens is not None and start < g.window_tokens < start + n)})
    return [(lo + (hi - lo - 1) / 2, hi - lo) for lo, hi in zip(cuts, cuts[1:])]


def batched_tokens_per_s(work: Workload, device: SpeedDevice, c: BackendConstants | None = None,
                         sequences: int = 1, depth: int = 0) -> float:
    """Aggregate tokens per second of ``sequences`` sequences decoding together, each at ``depth``."""
    if sequences < 1:
        raise ValueError("sequences must be at least 1")
    return sequences / decode_step_s(work, device, c, depth, sequences)


# ---------------------------------------------------------------------------------------------- prefill


def prefill_s(work: Workload, device: SpeedDevice, c: BackendConstants | None = None, prompt_tokens: int = 512,
              depth: int = 0) -> float:
    """Seconds to process ``prompt_tokens`` prompt tokens appended after ``depth`` cached tokens."""
    if prompt_tokens < 1:
        raise ValueError("prompt_tokens must be at least 1")
    c = c or device_constants(device)
    full, rest = divmod(prompt_tokens, LLAMA_CPP_UBATCH)
    total = _ubatch_s(work, device, c, depth + full * LLAMA_CPP_UBATCH, rest) if rest else 0.0
    if full:
        compute, memory, fixed = _ubatch_parts(work, device, c, LLAMA_CPP_UBATCH)
        if compute >= memory:  # compute-bound micro-batches: sum in closed form (attention adds to compute)
            total += full * (compute + fixed) + sum(_attention_parts(work, device, c, depth, full * LLAMA_CPP_UBATCH))
        else:
            total += sum(_ubatch_s(work, device, c, depth + i * LLAMA_CPP_UBATCH, LLAMA_CPP_UBATCH) for i in range(full))
    return total * _pipeline_factor(device, c, prompt_tokens)


def _ubatch_parts(work: Workload, device: SpeedDevice, c: BackendConstants, tokens: int) -> tuple[float, float, float]:
    """(linear compute, weight streaming, additive costs) of one micro-batch; attention is added by the caller.

    The additive costs are the dequantisation traffic, host transfers, launches, layer hand-overs and all-reduces."""
    n = _tp(device)
    dense_flops = work.linear_flops_per_token - work.expert_flops_per_token
    compute = (linear_s(work, device, c, dense_flops * tokens)
               + linear_s(work, device, c, work.expert_flops_per_token * tokens) / expert_gemm_share(work, c, tokens))
    share = _expert_share(work, tokens)
    on_gpu = work.dense_weight_bytes - work.host_dense_bytes + (work.expert_weight_bytes - work.host_expert_bytes) * share
    memory = on_gpu / (device.kernel_bandwidth(c) * n)
    dequant = c.dequant_bytes_per_weight * quantized_weights_touched(work, share) / (device.bandwidth_bytes_per_s * n)
    # Host-resident weights travel to the GPU once per micro-batch (llama.cpp offloads big batches to the GPU).
    host = (work.host_dense_bytes + work.host_expert_bytes * share) / device.host_link_bytes_per_s
    fixed = dequant + host + launch_s(work, c, device.graphs) + _split_s(device, c) + _comm_s(work, device, tokens)
    return compute, memory, fixed


def expert_gemm_share(work: Workload, c: BackendConstants, tokens: int) -> float:
    """Share of the dense GEMM rate the per-expert GEMMs reach: MUL_MAT_ID gives each expert only the tokens routed to
    it, t = tokens × k / E on average, and a GEMM over t columns reaches t / (t + t½) of a full tile's rate (t½ =
    ``expert_tokens_half``, fitted); 1 for a dense model."""
    if work.n_experts <= 0 or work.expert_flops_per_token <= 0 or c.expert_tokens_half <= 0:
        return 1.0
    t = tokens * min(work.experts_per_token, work.n_experts) / work.n_experts
    return t / (t + c.expert_tokens_half)


def quantized_weights_touched(work: Workload, expert_share: float) -> float:
    """Block-quantised matmul weights a micro-batch uses: dense ones plus the touched share of the experts.

    Counted from the bytes at the model's mean bytes per active weight (active bytes / active parameters)."""
    if not work.quantized or work.linear_flops_per_token <= 0:
        return 0.0
    routed = min(work.experts_per_token, work.n_experts) / work.n_experts if work.n_experts > 0 else 0.0
    active_bytes = work.dense_weight_bytes + work.expert_weight_bytes * routed
    if active_bytes <= 0:
        return 0.0
    touched = work.dense_weight_bytes + work.expert_weight_bytes * expert_share
    return touched * (work.linear_flops_per_token / 2) / active_bytes


def _attention_parts(work: Workload, device: SpeedDevice, c: BackendConstants, start: int,
                     tokens: int) -> tuple[float, float]:
    """(FLOPs time, score traffic time) of the attention of positions start..start+tokens−1."""
    n = _tp(device)
    flops = scores = 0.0
    for g in work.attention:
        keys = _keys(start, tokens, g.window_tokens)
        flops += g.flops_per_key * keys
        scores += g.heads * keys
    return (flops / (c.attention_efficiency * device.attention_flops(c) * n),
            c.score_bytes * scores / (device.bandwidth_bytes_per_s * n))


def _ubatch_s(work: Workload, device: SpeedDevice, c: BackendConstants, start: int, tokens: int) -> float:
    compute, memory, fixed = _ubatch_parts(work, device, c, tokens)
    attention, scores = _attention_parts(work, device, c, start, tokens)
    return max(compute + attention, memory) + scores + fixed


def _keys(start: int, tokens: int, window: int | None) -> float:
    """Σ over positions start..start+tokens−1 of the keys each attends to: min(position + 1, window)."""
    lo, hi = start + 1, start + tokens  # key counts of the first and last token
    if window is None or hi <= window:
        return (lo + hi) * tokens / 2
    if lo >= window:
        return float(window * tokens)
    below = window - lo + 1
    return (lo + window) * below / 2 + window * (tokens - below)


def _pipeline_factor(device: SpeedDevice, c: BackendConstants, prompt_tokens: int) -> float:
    """Layer split: k GPUs overlap the m micro-batches of the prompt, ideally (m + k − 1)/(m·k) of the serial time;
    the fitted pipeline efficiency says how much of that ideal gain is realised."""
    k = device.gpu_count if device.parallel == "layer" else 1
    if k == 1:
        return 1.0
    m = math.ceil(prompt_tokens / LLAMA_CPP_UBATCH)
    ideal = (m + k - 1) / (m * k)
    return 1.0 - c.pipeline_efficiency * (1.0 - ideal)


def prefill_tokens_per_s(work: Workload, device: SpeedDevice, c: BackendConstants | None = None,
                         prompt_tokens: int = 512, depth: int = 0) -> float:
    """Mean prompt tokens per second over a prompt of ``prompt_tokens`` tokens after ``depth`` cached tokens."""
    return prompt_tokens / prefill_s(work, device, c, prompt_tokens, depth)


def ttft_s(work: Workload, device: SpeedDevice, c: BackendConstants | None = None, prompt_tokens: int = 4096,
           depth: int = 0) -> float:
    """Time to first token: prefill of the whole prompt, then one decode step at the prompt's end."""
    return prefill_s(work, device, c, prompt_tokens, depth) + decode_step_s(work, device, c, depth + prompt_tokens)
