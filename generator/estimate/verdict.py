"""Verdicts and searches on memory: does it fit, how much context, how many sequences, what to offload.

* fits: margin ≥ max(10 % of usable memory, 1 GiB); tight: 0 ≤ margin below that; offload: does not fit, but
  llama.cpp can keep MoE experts (``--n-cpu-moe``) or whole layers (``-ngl``) in system RAM so that the GPU
  keeps llama.cpp's ``--fit-target`` of 1 GiB free, and the host part fits the assumed free system RAM;
  no_fit otherwise (vLLM and unified-memory devices never offload).
* Largest context: closed form on the piecewise-linear memory curve (full layers grow with every token,
  window layers stop at their cap), checked exactly; clamped to the model's context length.
"""

from __future__ import annotations

import math
from bisect import bisect_left
from dataclasses import dataclass
from typing import Literal

from .weights import Weights, first_index_at_least

GIB = 2**30
TIGHT_FRACTION = 0.10
TIGHT_MIN_BYTES = GIB
FIT_TARGET_BYTES = 1024 * 2**20  # llama.cpp --fit-target default: MiB left free per device
DEFAULT_HOST_RAM_BYTES = 64 * GIB  # assumed free system RAM for offloaded weights (a typical desktop)

Verdict = Literal["fits", "tight", "offload", "no_fit"]


def tight_threshold(usable: int) -> int:
    """Margin below which a fit is called tight."""
    return max(int(usable * TIGHT_FRACTION), TIGHT_MIN_BYTES)


def on_gpu_verdict(total: int, usable: int) -> Verdict | None:
    """fits or tight when ``total`` bytes fit in ``usable``; None when they do not."""
    margin = usable - total
    if margin < 0:
        return None
    return "fits" if margin >= tight_threshold(usable) else "tight"


def max_linear(budget: float, slope: float, groups: tuple[tuple[float, float], ...]) -> float:
    """Largest x ≥ 0 with ``slope·x + Σ b·min(x, cap) ≤ budget`` (groups are (b, cap)); inf if unbounded."""
    if budget < 0:
        return -1.0
    total_slope, const = slope + sum(b for b, _ in groups), 0.0
    for b, cap in sorted(groups, key=lambda g: g[1]):
        x = (budget - const) / total_slope if total_slope > 0 else math.inf
        if x <= cap:
            return x
        total_slope -= b
        const += b * cap
    return (budget - const) / total_slope if total_slope > 0 else math.inf


@dataclass(frozen=True)
class Offload:
    """Where llama.cpp puts what when the model does not fit: layers on the GPU, experts/layers in system RAM."""

    gpu_layers: int  # blocks whose non-expert weights (and KV) stay on the GPU
    n_layers: int
    cpu_moe_layers: int  # blocks whose routed experts live in system RAM (--n-cpu-moe)
    host_bytes: int  # system RAM used for weights and KV (token_embd included)
    host_dense_bytes: int  # non-expert weight bytes read from system RAM per token
    host_expert_bytes: int  # routed-expert bytes kept in system RAM
    gpu_bytes: int  # what stays on the GPU


def plan_offload(gpu_total: int, usable: int, weights: Weights, kv_bytes: int, embed_host_bytes: int,
                 host_ram: int = DEFAULT_HOST_RAM_BYTES, keep_free: int = FIT_TARGET_BYTES) -> Offload | None:
    """Move experts first, then whole blocks (weights + their KV share) to system RAM until the GPU keeps
    ``keep_free`` bytes; None when even that fails or the host part exceeds ``host_ram``."""
    need = gpu_total - (usable - keep_free)
    n = weights.main_layers
    if need <= 0 or n == 0:
        return None
    experts, dense = weights.cumulative_expert_bytes, weights.cumulative_dense_bytes
    moved_layers, dense_moved, kv_moved = 0, 0, 0
    k = first_index_at_least(experts, need) if experts[-1] > 0 else None
    if k is not None:
        cpu_moe, expert_moved = k, experts[k]
    else:
        cpu_moe, expert_moved = (n, experts[-1]) if experts[-1] > 0 else (0, 0)
        kv_share = kv_bytes // n
        m = bisect_left(range(n + 1), need - expert_moved, key=lambda i: dense[i] + kv_share * i)
        if m >= n:
            return None
        moved_layers, dense_moved, kv_moved = m, dense[m], kv_share * m
    host = expert_moved + dense_moved + kv_moved + embed_host_bytes
    if host > host_ram:
        return None
    gpu = gpu_total - expert_moved - dense_moved - kv_moved
    return Offload(n - moved_layers, n, cpu_moe, host, dense_moved, expert_moved, gpu)
