"""Serving many users: continuous batching on vLLM, SGLang and TensorRT-LLM (pure functions, no I/O).

What one model moves and computes per token is the ``speed.Workload`` the single-stream model uses (weights read
per step, experts touched, KV bytes per cached token, FLOPs). This module adds the batched step of a serving engine.

Steady state at concurrency C (requests in flight per replica), prompt P and output O tokens per request. Every
decode step yields one output token for each of the C requests; as one request in O finishes per step and another
arrives, C·P/O prompt tokens per step are prefilled on average, in chunks of m = min(chunk budget, max(P, C·P/O))
tokens that share steps with the decodes:

    t_step = t_decode(C) + (C·P/O) / m · t_prefill(m)                    (mean time per output token of a user)
    t_decode(C) = max([W(C) + C·KV(P + (O − 1)/2)] / (η_bw·BW·n), C·(F_lin + F_attn(depth)) / (η_c·F_prec·n))
                  + step_s + t_comm(C)
    t_prefill(m) = max(W(m) / (η_bw·BW·n), [m·F_lin + (m/P)·F_attn(prompt)] / (η_c·F_prec·n)) + t_comm(m)
    t_comm(N) = 2 · layers · (all_reduce_s + 2 B · hidden · N · 2(n − 1)/n / link)     (tensor parallel, n > 1)
    W(N) = dense + experts · (1 − (1 − k/E)^N)                             (experts touched by N tokens)

with n GPUs per replica (tensor parallel), BW and F_prec one GPU's datasheet bandwidth and dense tensor FLOPS at
the compute precision, KV the bytes each request's cache holds per step (all ranks), F_attn the attention FLOPs.
Expert parallelism places whole experts on GPUs instead of slicing them (same bytes per GPU); with data-parallel
attention (``attention_data_parallel``) every GPU reads the dense weights for its C/n requests and the MoE layers
exchange tokens all-to-all. GPUs beyond one replica (gpu_count / tensor_parallel replicas) split the requests.

Per user: tokens/s = 1 / t_step (the prefill share slows everyone, as in a measured TPOT). Output tokens/s per GPU
= C / t_step / n; total = output · (P + O) / O; ``prefill_share`` = the prefill part of t_step (pages split the GPU
cost between input and output tokens by it). Time to first token = the engine's fixed latency per request
(``request_s``: HTTP, tokenizer, scheduler), half a decode step (the one running when the request arrives), then
⌈P / chunk⌉ steps that each carry one chunk of the prompt next to the C decodes, stretched by 1 / (1 − ρ) for the
prompts queued ahead (ρ = ``prefill_share``: a single server busy with prompts a share ρ of its time).
Concurrency is capped by the KV cache: ⌊KV pool / KV bytes of one request of P + O tokens⌋ (``kv_capacity``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import NamedTuple

from .speed import Workload, kv_bytes_read, weight_bytes_read

SERVING_ENGINES: tuple[str, ...] = ("vllm", "sglang", "trtllm")
ACTIVATION_BYTES = 2  # bf16 hidden states in the tensor-parallel all-reduces and the expert all-to-all
MIN_USER_TOKENS_PER_S = 20.0  # the recommended operating point keeps every user at least this fast
SWEEP_LEVELS = (1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096)


@dataclass(frozen=True)
class ServingDevice:
    """One GPU's datasheet figures, how many and how the model is split across them."""

    bandwidth_bytes_per_s: float
    flops: float  # dense tensor FLOPS of one GPU at the compute precision
    gpu_count: int = 1
    tensor_parallel: int = 1
    attention_data_parallel: bool = False  # DP attention + expert-parallel MoE (needs tensor_parallel > 1)
    interconnect_bytes_per_s: float | None = None
    host_link_bytes_per_s: float = 32e9  # PCIe 4.0 x16: GPUs without a catalogued interconnect talk through it

    @property
    def replicas(self) -> int:
        """Independent engine copies (data parallel) sharing the requests."""
        return max(1, self.gpu_count // self.tensor_parallel)

    @property
    def link_bytes_per_s(self) -> float:
        """Bandwidth between the GPUs of one replica."""
        return self.interconnect_bytes_per_s or self.host_link_bytes_per_s


@dataclass(frozen=True)
class ServingConstants:
    """Fitted per engine (``serving_constants.py``, written by ``fit_serving``)."""

    engine: str
    bandwidth_efficiency: float  # share of datasheet bandwidth a batched step reaches
    compute_efficiency: float  # share of datasheet tensor FLOPS at the compute precision
    step_s: float  # fixed cost per step: scheduling, sampling, launches not hidden by graphs
    all_reduce_s: float  # latency of one collective between the GPUs of a replica
    request_s: float = 0.0  # fixed latency of a request before its first token: HTTP, tokenizer, scheduler, detokenizer
    prefill_chunk_tokens: int = 8192  # prompt tokens one step may carry (max_num_batched_tokens and equivalents)
    fitted: str = ""  # date of the newest measurement the fit saw; "" = not fitted
    borrowed_from: str = ""  # the group whose constants stand in where this one has no (or too few) rows

    @property
    def provenance(self) -> str:
        """How the constants were obtained, in words."""
        if self.fitted and self.borrowed_from:
            return f"fitted on data to {self.fitted}; what those data cannot pin down from {self.borrowed_from}"
        if self.fitted:
            return f"fitted on data to {self.fitted}"
        return f"not fitted: borrowed from {self.borrowed_from}" if self.borrowed_from else "not fitted"

    def assumptions(self) -> tuple[tuple[str, str], ...]:
        """The constants as (key, value) pairs for the pages."""
        return (("serving.constants", f"{self.engine} ({self.provenance})"),
                ("serving.bandwidth_efficiency", f"{self.bandwidth_efficiency:.3f}"),
                ("serving.compute_efficiency", f"{self.compute_efficiency:.3f}"),
                ("serving.step_s", f"{self.step_s * 1e3:.2f} ms per step"),
                ("serving.request_s", f"{self.request_s * 1e3:.1f} ms per request before its first token"),
                ("serving.all_reduce_s", f"{self.all_reduce_s * 1e6:.1f} µs per collective"),
                ("serving.prefill_chunk_tokens", f"{self.prefill_chunk_tokens}"))


class ServingPoint(NamedTuple):
    """One load level: throughput per GPU, speed per user, time to first token (a named tuple: pages store a
    dozen per serving pair, and tuples build and pickle several times faster than frozen dataclasses)."""

    concurrency: int
    output_tokens_per_s_per_gpu: float
    total_tokens_per_s_per_gpu: float
    tokens_per_s_per_user: float
    ttft_s: float
    step_s: float
    prefill_share: float  # share of the GPUs' time spent on prompts (the rest generates output)


def _layers(work: Workload) -> int:
    return max(work.n_layers, 1)


def _attention_flops(work: Workload, depth: float) -> float:
    """Attention FLOPs of one query at ``depth`` cached keys (windows cap their layers)."""
    return sum(g.flops_per_key * (depth if g.window_tokens is None else min(depth, g.window_tokens))
               for g in work.attention)


def _prompt_attention_flops(work: Workload, prompt: int) -> float:
    """Attention FLOPs of a whole prompt: Σ over its positions of the keys each attends to."""
    total = 0.0
    for g in work.attention:
        w = g.window_tokens
        if w is None or prompt <= w:
            keys = prompt * (prompt + 1) / 2
        else:
            keys = w * (w + 1) / 2 + (prompt - w) * w
        total += g.flops_per_key * keys
    return total


def _comm_s(work: Workload, device: ServingDevice, c: ServingConstants, tokens: float) -> float:
    """Two collectives per layer between the n GPUs of a replica (ring: 2(n − 1)/n of the message moves)."""
    n = device.tensor_parallel
    if n <= 1:
        return 0.0
    per_token: float = ACTIVATION_BYTES * work.hidden_size
    if device.attention_data_parallel and work.n_experts:
        per_token *= min(work.experts_per_token, work.n_experts) / n  # each GPU sends its tokens to k experts' GPUs
    message = per_token * tokens * 2 * (n - 1) / n
    return 2 * _layers(work) * (c.all_reduce_s + message / device.link_bytes_per_s)


def _weights_per_gpu(work: Workload, device: ServingDevice, tokens: float) -> float:
    """Weight bytes one GPU reads in a step of ``tokens`` tokens (experts touched by any of them)."""
    n = device.tensor_parallel
    touched = weight_bytes_read(work, max(1, round(tokens)))
    if device.attention_data_parallel:  # dense weights on every GPU, experts spread over them
        return work.dense_weight_bytes + (touched - work.dense_weight_bytes) / n
    return touched / n


def decode_parts(work: Workload, device: ServingDevice, c: ServingConstants, concurrency: float, prompt: int,
                 output: int) -> tuple[float, float, float]:
    """(memory, compute, fixed + communication) seconds of one decode step of one replica at ``concurrency``."""
    n = device.tensor_parallel
    depth = prompt + (output - 1) / 2
    kv = concurrency * (kv_bytes_read(work, int(round(depth))) + work.state_bytes)
    memory = (_weights_per_gpu(work, device, concurrency) + kv / n) / (c.bandwidth_efficiency
                                                                       * device.bandwidth_bytes_per_s)
    flops = concurrency * (work.linear_flops_per_token + _attention_flops(work, depth))
    compute = flops / (c.compute_efficiency * device.flops * n)
    return memory, compute, c.step_s + _comm_s(work, device, c, concurrency)


def decode_s(work: Workload, device: ServingDevice, c: ServingConstants, concurrency: float, prompt: int,
             output: int) -> float:
    """Seconds of one decode step (roofline of memory and compute plus fixed and communication)."""
    memory, compute, fixed = decode_parts(work, device, c, concurrency, prompt, output)
    return max(memory, compute) + fixed


def prefill_chunk_s(work: Workload, device: ServingDevice, c: ServingConstants, tokens: float, prompt: int) -> float:
    """Extra seconds a step spends on ``tokens`` prompt tokens of prompts of ``prompt`` tokens."""
    memory = _weights_per_gpu(work, device, tokens) / (c.bandwidth_efficiency * device.bandwidth_bytes_per_s)
    flops = tokens * work.linear_flops_per_token + tokens / prompt * _prompt_attention_flops(work, prompt)
    compute = flops / (c.compute_efficiency * device.flops * device.tensor_parallel)
    return max(memory, compute) + _comm_s(work, device, c, tokens)


def chunk_tokens(c: ServingConstants, concurrency: float, prompt: int, output: int) -> float:
    """Prompt tokens in one prefill step: a whole prompt, or more when several arrive per step, up to the budget."""
    return min(float(c.prefill_chunk_tokens), max(float(prompt), concurrency * prompt / output))


def step_s(work: Workload, device: ServingDevice, c: ServingConstants, concurrency: float, prompt: int,
           output: int) -> float:
    """Mean seconds per output token of each request: a decode step plus the prefill work that arrives with it.

    C/O requests finish (and as many arrive) per step, so C·P/O prompt tokens are prefilled per step on average,
    in prefill chunks of ``chunk_tokens`` that each read the weights once."""
    decode, prefill = step_split(work, device, c, concurrency, prompt, output)
    return decode + prefill


def step_split(work: Workload, device: ServingDevice, c: ServingConstants, concurrency: float, prompt: int,
               output: int) -> tuple[float, float]:
    """(decode seconds, prefill seconds) of the mean step (see ``step_s``)."""
    arriving = concurrency * prompt / output
    m = chunk_tokens(c, concurrency, prompt, output)
    return (decode_s(work, device, c, concurrency, prompt, output),
            arriving / m * prefill_chunk_s(work, device, c, m, prompt))


def serve(work: Workload, device: ServingDevice, c: ServingConstants, concurrency: int, prompt: int,
          output: int) -> ServingPoint:
    """Throughput per GPU, speed per user and TTFT with ``concurrency`` requests in flight over all GPUs."""
    if concurrency < 1 or prompt < 1 or output < 1:
        raise ValueError("concurrency, prompt and output tokens must be at least 1")
    per_replica = concurrency / device.replicas
    decode, prefill = step_split(work, device, c, per_replica, prompt, output)
    t = decode + prefill
    out_per_gpu = per_replica / t / device.tensor_parallel
    chunk = min(prompt, c.prefill_chunk_tokens)
    chunks = math.ceil(prompt / chunk)
    t_chunk = decode + prefill_chunk_s(work, device, c, chunk, prompt)
    share = prefill / t
    ttft = c.request_s + decode / 2 + chunks * t_chunk / max(1.0 - share, 0.05)  # floor: a saturated queue
    return ServingPoint(concurrency, out_per_gpu, out_per_gpu * (prompt + output) / output, 1.0 / t, ttft, t, share)


def kv_capacity(pool_bytes: float, bytes_per_request: float) -> int:
    """Requests whose KV cache fits in the pool at once (0 when not even one does)."""
    if bytes_per_request <= 0:
        raise ValueError("bytes_per_request must be positive")
    return max(0, int(pool_bytes // bytes_per_request))


def sweep(work: Workload, device: ServingDevice, c: ServingConstants, prompt: int, output: int,
          max_concurrency: int) -> tuple[ServingPoint, ...]:
    """Points at concurrency 1, 2, 4, … up to ``max_concurrency`` (always included)."""
    levels = [level for level in SWEEP_LEVELS if level < max_concurrency] + [max_concurrency]
    return tuple(serve(work, device, c, level, prompt, output) for level in levels if level >= 1)


def operating_point(work: Workload, device: ServingDevice, c: ServingConstants, prompt: int, output: int,
                    max_concurrency: int, min_user_tokens_per_s: float = MIN_USER_TOKENS_PER_S) -> ServingPoint | None:
    """The highest-throughput point that keeps every user at ``min_user_tokens_per_s`` or faster: throughput per
    GPU rises and per-user speed falls with concurrency, so it is the largest concurrency still that fast (by
    bisection); None when even one request is slower."""
    def fast(n: int) -> bool:  # per-user speed = 1 / step time (what serve() reports, without its TTFT)
        return 1.0 / step_s(work, device, c, n / device.replicas, prompt, output) >= min_user_tokens_per_s

    if max_concurrency < 1 or not fast(1):
        return None
    lo, hi = 1, max_concurrency
    while lo < hi:
        mid = (lo + hi + 1) // 2
        lo, hi = (mid, hi) if fast(mid) else (lo, mid - 1)
    return serve(work, device, c, lo, prompt, output)
