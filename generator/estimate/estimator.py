"""The estimator's facade: one model, one device, one request → memory, verdict, limits and speed.

Per-(model, quant, engine, KV type, backend, GPU count) work is cached (``_prepare``); a call is arithmetic
plus the speed model. Published GGUF sizes (ModelSpec.gguf_sizes) beat computed ones; quants without a size
rule (e.g. Unsloth ``UD-*`` files) are estimated only from their published size, split over tensors like the
nearest llama.cpp recipe. llama.cpp keeps ``token_embd`` in system RAM (only the looked-up rows go to the GPU),
so its GPU weights are the file minus that tensor; vLLM loads everything onto the GPUs.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, replace
from functools import cache
from typing import Any, Literal, NamedTuple

from . import speed
from .architecture import Architecture, parse_hf_config
from .device import DeviceSpec
from .kvcache import (
    KV_TYPES,
    LLAMA_CPP_PAD,
    LLAMA_CPP_UBATCH,
    VLLM_BLOCK,
    VLLM_MAX_BATCHED_TOKENS,
    KvLayout,
    kv_cache_bytes,
    kv_layout,
    llama_cpp_cells,
)
from .quant import QUANT_INFO, QuantInfo
from .runtime import Overhead, overhead
from .verdict import (
    DEFAULT_HOST_RAM_BYTES,
    FIT_TARGET_BYTES,
    TIGHT_FRACTION,
    TIGHT_MIN_BYTES,
    Offload,
    max_linear,
    on_gpu_verdict,
    plan_offload,
)
from .weights import Weights, weights

Engine = Literal["llama.cpp", "vllm", "ollama"]
Verdict = Literal["fits", "tight", "offload", "no_fit"]
ENGINES: tuple[str, ...] = ("llama.cpp", "ollama", "vllm")


@dataclass(frozen=True, eq=False)
class ModelSpec:
    """A model as the estimator needs it; ``gguf_sizes`` are published file sizes by quant (bytes).

    Compared and hashed by identity: the per-model caches key on the object the build creates once."""

    id: str
    name: str
    architecture: Architecture
    total_params: int
    active_params: int
    context_length: int
    gguf_sizes: tuple[tuple[str, int], ...] = ()
    native_format: str = "bf16"
    hf_repo: str = ""

    def measured_size(self, quant: str) -> int | None:
        """Published GGUF size of ``quant`` in bytes, if the catalogue has one."""
        return next((size for q, size in self.gguf_sizes if q == quant), None)


@dataclass(frozen=True)
class Request:
    """What the user wants to run (defaults are the pages' defaults).

    ``kv_type`` "f16" means the model dtype on vLLM ("auto"). The GPU count and split come from the DeviceSpec
    (``device_spec(gpu, count, parallel)``); ``gpu_count`` records what the caller asked for."""

    quant: str = "Q4_K_M"
    context_tokens: int = 8192
    kv_type: str = "f16"
    sequences: int = 1
    engine: Engine = "llama.cpp"
    prompt_tokens: int = 4096
    depth: int = 0
    gpu_count: int = 1


class Estimate(NamedTuple):
    """Everything the pages show for one request; bytes are integers, speeds tokens per second.

    When the setup does not run (``runs`` False, verdict "no_fit") the speeds, ``ttft_s``, ``max_context_tokens``
    and ``max_sequences`` are 0 meaning "not applicable", not a measured zero: show "—", not "0 tok/s". When it
    runs, decode, prefill, batched speed and ``ttft_s`` are always positive. An estimate made with
    ``limits=False`` leaves the limits (max context, max sequences) and the speeds that depend on them or on a
    prompt (prefill, TTFT, batched) None: not computed.

    A named tuple, not a frozen dataclass: the estimate stage builds ~110,000 of them and pickles them for the
    store; a frozen dataclass cost a tenth of that stage in ``object.__setattr__`` per field and again in
    pickling and unpickling."""

    file_size_bytes: int
    weights_bytes: int
    weights_source: Literal["measured", "computed"]
    kv_cache_bytes: int
    runtime_overhead_bytes: int
    total_bytes: int
    usable_bytes: int
    margin_bytes: int
    verdict: Verdict
    max_context_tokens: int | None
    max_sequences: int | None
    offload: Offload | None
    decode_tokens_per_s: float
    prefill_tokens_per_s: float | None
    ttft_s: float | None
    batched_tokens_per_s: float | None
    assumptions: tuple[tuple[str, str], ...]

    @property
    def runs(self) -> bool:
        """Whether the setup runs at all (on the GPU or with offload); False means the speeds are not applicable."""
        return self.verdict != "no_fit"

    def as_dict(self) -> dict[str, Any]:
        """A JSON-ready dict (offload as a dict, assumptions as a mapping, plus ``runs``)."""
        out = {k: v for k, v in self._asdict().items() if k not in ("offload", "assumptions")}
        out["runs"] = self.runs
        out["offload"] = None if self.offload is None else dict(self.offload.__dict__)
        out["assumptions"] = dict(self.assumptions)
        return out


# ---------------------------------------------------------------------------------------------- model specs


def _kept_expert_type(model: ModelSpec) -> str | None:
    """The ggml type a model's routed experts keep in every GGUF file (see ``weights.weights``): MXFP4 for models that
    ship MXFP4 experts (gpt-oss), else None."""
    return "MXFP4" if model.native_format == "mxfp4" and model.architecture.n_experts > 0 else None


def native_format(config: Mapping[str, Any]) -> str:
    """The checkpoint's own weight format from a config.json: mxfp4, fp8 or bf16."""
    method = str((config.get("quantization_config") or {}).get("quant_method", "")).lower()
    return method if method in ("mxfp4", "fp8") else "bf16"


def spec_from_config(config: Mapping[str, Any], model_id: str = "config", name: str = "config.json") -> ModelSpec:
    """ModelSpec straight from a config.json (parameter counts computed from the shapes)."""
    arch = parse_hf_config(config)
    if arch.context_length == 0:
        from .architecture import ConfigError
        raise ConfigError("max_position_embeddings", "is required")
    return ModelSpec(model_id, name, arch, arch.total_params(), arch.active_params(), arch.context_length,
                     native_format=native_format(config))


# ---------------------------------------------------------------------------------------------- validation


def reference_quant(quant: str) -> str | None:
    """The llama.cpp recipe whose tensor split stands in for a published-only quant (UD-Q4_K_XL → Q4_K_M)."""
    name = quant.upper().removeprefix("UD-")
    for candidate in (name, re.sub(r"_(XL|L)$", "_M", name), re.sub(r"_(XL|L|M|S)$", "", name)):
        if candidate in QUANT_INFO and QUANT_INFO[candidate].family == "gguf":
            return candidate
    return None


def check_request(model: ModelSpec, device: DeviceSpec, request: Request) -> None:
    """Raise ValueError with one readable sentence when the request cannot be estimated."""
    if request.engine not in ENGINES:
        raise ValueError(f"unknown engine {request.engine!r}; choose one of {', '.join(ENGINES)}")
    for field_name in ("context_tokens", "sequences", "prompt_tokens"):
        if getattr(request, field_name) < 1:
            raise ValueError(f"{field_name} must be at least 1")
    if request.depth < 0:
        raise ValueError("depth must not be negative")
    if request.kv_type not in KV_TYPES[request.engine] and not (request.engine == "vllm" and request.kv_type == "f16"):
        raise ValueError(f"KV type {request.kv_type!r} is not available on {request.engine}; choose one of "
                         f"{', '.join(KV_TYPES[request.engine])}")
    info = QUANT_INFO.get(request.quant)
    if info is None:
        if model.measured_size(request.quant) is None or reference_quant(request.quant) is None:
            raise ValueError(f"unknown quant {request.quant!r} for {model.id}; known: {', '.join(QUANT_INFO)}")
        info = QUANT_INFO[reference_quant(request.quant) or ""]
    if request.engine not in info.engines:
        raise ValueError(f"quant {request.quant} does not run on {request.engine}; engines: {', '.join(info.engines)}")
    if request.engine == "vllm" and device.backend not in ("cuda", "rocm"):
        raise ValueError(f"vLLM does not run on the {device.backend} backend of {device.name}")


def impossible_request(model: ModelSpec, request: Request, gpu_count: int,
                       parallel: str) -> tuple[str, str] | None:
    """(request field, reason) when the request asks for what cannot happen, else None: a context beyond the model's
    maximum, a GPU count the engine cannot split the model over, a quant the model's file cannot have."""
    arch = model.architecture
    if request.context_tokens > model.context_length:
        return "context_tokens", (f"{request.context_tokens:,} tokens exceed the maximum context of {model.name}, "
                                  f"{model.context_length:,} tokens")
    if request.depth + request.prompt_tokens > model.context_length:
        return "depth", (f"depth {request.depth:,} + prompt {request.prompt_tokens:,} tokens exceed the maximum "
                         f"context of {model.name}, {model.context_length:,} tokens")
    if gpu_count > 1 and parallel == "layer" and gpu_count > arch.n_layers:
        return "gpu_count", (f"{gpu_count:,} GPUs: {request.engine} splits a model by layers, and {model.name} has "
                             f"{arch.n_layers} layers")
    if gpu_count > 1 and parallel == "tensor" and arch.n_heads % gpu_count:
        return "gpu_count", (f"{gpu_count:,} GPUs: tensor parallelism splits the {arch.n_heads} attention heads of "
                             f"{model.name} evenly, and {gpu_count:,} does not divide {arch.n_heads}")
    if request.quant == "MXFP4_MOE" and arch.n_experts == 0:
        return "quant", f"MXFP4_MOE stores routed experts in MXFP4, and {model.name} has no routed experts"
    if request.quant == "MXFP4" and model.native_format != "mxfp4":
        return "quant", (f"no MXFP4 checkpoint of {model.name} exists: MXFP4 checkpoints are models published in "
                         f"it (such as gpt-oss)")
    return None


# ---------------------------------------------------------------------------------------------- cached work


@dataclass(frozen=True)
class _Prepared:
    """Per-(model, quant, engine, KV type, device kind) results that no request field beyond those changes."""

    file_bytes: int
    weights_gpu_bytes: int
    embed_host_bytes: int
    source: Literal["measured", "computed"]
    weights: Weights  # scaled to the measured size when there is one
    layout: KvLayout
    overhead: Overhead
    work: speed.Workload
    blocked: str | None  # why the setup cannot run at all (tensor-parallel divisibility)


def _size_key(quant: str, engine: str) -> str:
    if quant == "BF16" and engine != "vllm":
        return "BF16-GGUF"
    if QUANT_INFO.get(quant) is None:
        return reference_quant(quant) or quant
    return quant


def _scaled(w: Weights, factor: float) -> Weights:
    def s(n: int) -> int:
        return int(round(n * factor))

    return replace(w, file_bytes=s(w.file_bytes), embed_bytes=s(w.embed_bytes), output_bytes=s(w.output_bytes),
                   layer_bytes=tuple(map(s, w.layer_bytes)), expert_bytes=tuple(map(s, w.expert_bytes)))


def _attention_groups(arch: Architecture, layout: KvLayout) -> tuple[speed.AttentionGroup, ...]:
    flops: dict[int | None, float] = {}
    heads: dict[int | None, int] = {}
    for layer in arch.main_layers:
        if layer.attention in ("full", "mla", "sliding", "chunked"):
            key = layer.window if layer.attention in ("sliding", "chunked") else None
            flops[key] = flops.get(key, 0.0) + 2.0 * layer.n_heads * (layer.head_dim_k + layer.value_dim)
            heads[key] = heads.get(key, 0) + layer.n_heads
        elif layer.attention == "compressed":  # DeepSeek-V4: the window part here, compressed rows below
            per_key = 2.0 * layer.n_heads * (layer.head_dim_k + layer.value_dim)
            flops[layer.window] = flops.get(layer.window, 0.0) + per_key
            heads[layer.window] = heads.get(layer.window, 0) + layer.n_heads
    groups = []
    if layout.full_bytes_per_token:
        groups.append(speed.AttentionGroup(layout.full_bytes_per_token, flops.get(None, 0.0), None, heads.get(None, 0)))
    for b, window in layout.windowed:
        groups.append(speed.AttentionGroup(b, flops.get(window, 0.0), window, heads.get(window, 0)))
    return tuple(groups) + _compressed_groups(arch, layout)


def _compressed_groups(arch: Architecture, layout: KvLayout) -> tuple[speed.AttentionGroup, ...]:
    """DeepSeek-V4's compressed rows as attention groups per token of depth: a row stands for ``ratio`` tokens, so its
    bytes, FLOPs and scores count 1/ratio per token; ratio-4 layers attend only the ``index_topk`` rows the indexer
    picks (a window of topk × ratio tokens), while the indexer scores every row's key."""
    groups = []
    for b, ratio, topk in layout.compressed:
        picked = [layer for layer in arch.main_layers if layer.compress_ratio == ratio and layer.index_topk == topk]
        if picked:  # attention over compressed K=V rows
            flops = sum(2.0 * layer.n_heads * (layer.head_dim_k + layer.value_dim) for layer in picked) / ratio
            n_heads = sum(layer.n_heads for layer in picked) // ratio
        else:  # the lightning indexer's keys
            keyed = [layer for layer in arch.main_layers if layer.index_dim and layer.compress_ratio == ratio]
            flops = sum(2.0 * layer.index_heads * layer.index_dim for layer in keyed) / ratio
            n_heads = sum(layer.index_heads for layer in keyed) // ratio
        groups.append(speed.AttentionGroup(-(-b // ratio), flops, topk * ratio or None, n_heads))
    return tuple(groups)


def _tp_blocker(arch: Architecture, tp: int) -> str | None:
    if tp <= 1:
        return None
    if arch.n_heads % tp:
        return f"tensor parallel over {tp} GPUs needs the {arch.n_heads} attention heads to divide evenly"
    kv_heads = {layer.n_kv_heads for layer in arch.main_layers if layer.attention in ("full", "sliding", "chunked")}
    if any(h % tp and tp % h for h in kv_heads):
        return f"tensor parallel over {tp} GPUs needs KV heads {sorted(kv_heads)} to divide or be divided by {tp}"
    return None


@cache
def _prepare(model: ModelSpec, quant: str, engine: str, kv_type: str, backend: str, gpu_count: int,
             parallel: str) -> _Prepared:
    arch = model.architecture
    w = weights(arch, _size_key(quant, engine), _kept_expert_type(model))
    measured = model.measured_size(quant) if engine != "vllm" else None
    source: Literal["measured", "computed"] = "computed"
    if measured:
        w, source = _scaled(w, measured / w.file_bytes), "measured"
    tp = gpu_count if engine == "vllm" and parallel == "tensor" else 1
    kv_kind = "auto" if engine == "vllm" and kv_type == "f16" else kv_type
    layout = kv_layout(arch, engine, kv_kind, tp)
    llama_like = engine != "vllm"
    embed_host = w.embed_bytes if llama_like and not arch.tied_embeddings else 0
    gpu_weights = w.file_bytes - embed_host
    work = _workload(arch, w, layout, quant)
    blocked = _tp_blocker(arch, tp) if engine == "vllm" else None
    return _Prepared(w.file_bytes, gpu_weights, embed_host, source, w, layout,
                     overhead(arch, engine, backend, gpu_count), work, blocked)


def _workload(arch: Architecture, w: Weights, layout: KvLayout, quant: str) -> speed.Workload:
    """What one token reads and computes (the speed model's input) for these weights and KV layout."""
    linear = arch.active_params() - (0 if arch.tied_embeddings else arch.vocab_size * arch.hidden_size)
    routed = [t for t in arch.tensors if t.role == "expert" and t.layer >= 0 and not arch.layers[t.layer].mtp]
    expert_active = sum(t.elements for t in routed) * arch.experts_per_token // arch.n_experts if arch.n_experts else 0
    return speed.Workload(
        dense_weight_bytes=w.dense_read_bytes, linear_flops_per_token=2.0 * linear, n_layers=arch.n_layers,
        attention=_attention_groups(arch, layout), expert_weight_bytes=w.expert_total_bytes,
        experts_per_token=arch.experts_per_token, n_experts=arch.n_experts,
        state_bytes=layout.state_bytes_per_sequence, quantized=quant not in ("BF16", "F16"),
        hidden_size=arch.hidden_size, expert_flops_per_token=2.0 * expert_active,
        moe_layers=len({t.layer for t in routed}),
        recurrent_layers=sum(layer.attention in ("linear", "mamba") for layer in arch.main_layers))


def speed_workload(model: ModelSpec, quant: str, size_bytes: int | None = None) -> speed.Workload:
    """The llama.cpp workload of ``model`` at a GGUF ``quant``, its file scaled to ``size_bytes`` when given (else to
    the published size, else computed): what the calibration rows of catalogued models are predicted with."""
    arch = model.architecture
    w = weights(arch, _size_key(quant, "llama.cpp"), _kept_expert_type(model))
    target = size_bytes or model.measured_size(quant)
    if target:
        w = _scaled(w, target / w.file_bytes)
    return _workload(arch, w, kv_layout(arch, "llama.cpp", "f16", 1), quant)


@cache
def _decode(work: speed.Workload, sdev: speed.SpeedDevice, depth: int) -> float:
    """Decode tokens per second of one sequence."""
    return speed.decode_tokens_per_s(work, sdev, depth=depth)


@cache
def _speeds(work: speed.Workload, sdev: speed.SpeedDevice, depth: int, prompt: int,
            batch: int) -> tuple[float, float, float, float]:
    """(decode, prefill, ttft, batched) tokens per second / seconds."""
    decode = _decode(work, sdev, depth)
    batched = speed.batched_tokens_per_s(work, sdev, sequences=batch, depth=depth) if batch > 1 else decode
    t = speed.prefill_s(work, sdev, prompt_tokens=prompt, depth=depth)
    ttft = t + speed.decode_step_s(work, sdev, depth=depth + prompt)
    return decode, prompt / t, ttft, batched


# ---------------------------------------------------------------------------------------------- the facade


def _budget(device: DeviceSpec, ov: Overhead) -> int:
    if ov.budget_fraction < 1.0:
        return min(device.usable_memory_bytes, int(device.memory_bytes * ov.budget_fraction))
    return device.usable_memory_bytes


def _kv_and_runtime(p: _Prepared, engine: str, context: int, sequences: int) -> tuple[int, int]:
    """KV cache and runtime bytes at a context: llama.cpp's overhead grows with its KV pool, vLLM's does not."""
    kv = kv_cache_bytes(p.layout, context, sequences)
    return kv, p.overhead.bytes_at(llama_cpp_cells(context, sequences) if engine != "vllm" else 0)


def _total(p: _Prepared, engine: str, context: int, sequences: int) -> int:
    return p.weights_gpu_bytes + sum(_kv_and_runtime(p, engine, context, sequences))


def _max_context(p: _Prepared, engine: str, sequences: int, usable: int, limit: int) -> int:
    """Largest context (≤ ``limit``) whose whole setup fits in ``usable``, or 0."""
    lay = p.layout
    budget = usable - p.weights_gpu_bytes - p.overhead.fixed_bytes - lay.state_bytes_per_sequence * sequences
    if engine == "vllm" and lay.pages:  # DeepSeek-V4: pages alone (states included); one extra page per group
        budget = usable - p.weights_gpu_bytes - p.overhead.fixed_bytes - sequences * sum(
            b * (2 if w else 1) for b, _, w in lay.pages)
        slope = sequences * sum(b / blk for b, blk, w in lay.pages if not w)
        caps = tuple((sequences * b / blk, float(w - 1 + VLLM_MAX_BATCHED_TOKENS)) for b, blk, w in lay.pages if w)
        x = max_linear(budget, slope, caps)
        step, guess = VLLM_BLOCK, x
    elif engine == "vllm":
        groups = []
        for (b, w), chunked in zip(lay.windowed, lay.chunked):
            groups.append((b * sequences, w + VLLM_MAX_BATCHED_TOKENS - (0 if chunked else 1)))
            budget -= 0 if chunked else b * sequences * VLLM_BLOCK
        x = max_linear(budget, lay.full_bytes_per_token * sequences, tuple(groups))
        step, guess = VLLM_BLOCK, x
    else:
        caps = tuple((b, float(-(-(w * sequences + LLAMA_CPP_UBATCH) // LLAMA_CPP_PAD) * LLAMA_CPP_PAD))
                     for b, w in lay.windowed)
        budget -= sum(b for b, _, _ in lay.compressed)  # compressed rows round up: at most one more row each
        slope = lay.full_bytes_per_token + p.overhead.per_cell_bytes + sum(b / r for b, r, _ in lay.compressed)
        x = max_linear(budget, slope, caps)
        step, guess = LLAMA_CPP_PAD, (x // LLAMA_CPP_PAD * LLAMA_CPP_PAD) / sequences if x != math.inf else x
    if guess < 1:
        return 0
    ctx = limit if guess == math.inf else min(limit, int(guess) // step * step)
    while ctx > 0 and _total(p, engine, ctx, sequences) > usable:  # guard against rounding at the edges
        ctx = (ctx - 1) // step * step
    return ctx


def _max_sequences(p: _Prepared, engine: str, context: int, usable: int, limit: int = 1 << 16) -> int:
    """Most sequences of ``context`` tokens that fit in ``usable`` at once, or 0."""
    one = _total(p, engine, context, 1)
    if one > usable:
        return 0
    slope = max(_total(p, engine, context, 2) - one, 1)
    s = min(limit, 1 + (usable - one) // slope)  # exact when memory is linear in sequences
    while s > 1 and _total(p, engine, context, s) > usable:  # padding and window caps bend the line slightly
        s -= max(1, s // 64)
    while s < limit and _total(p, engine, context, s + 1) <= usable:
        s += 1
    return s


@cache
def _speed_device(device: DeviceSpec) -> speed.SpeedDevice:
    return speed.SpeedDevice(device.bandwidth_bytes_per_s, device.fp16_flops, device.backend, device.count,
                             device.parallel, device.interconnect_bytes_per_s,
                             fp16_accumulate_doubles=device.fp16_accumulate_doubles, hbm=device.hbm, lpddr=device.lpddr,
                             graphs=device.graphs, fp32_flops=device.fp32_flops, tdp_w=device.tdp_w,
                             mmq=device.mmq, vector_attention=device.vector_attention,
                             nv_coopmat2=device.ampere_or_newer)


def _on_gpu(model: ModelSpec, device: DeviceSpec, request: Request) -> tuple[_Prepared, int, int, int, Verdict | None]:
    """(prepared work, KV bytes, runtime bytes, usable bytes, verdict when it runs wholly on the GPU, else None)."""
    check_request(model, device, request)
    p = _prepare(model, request.quant, request.engine, request.kv_type, device.backend, device.count, device.parallel)
    kv, runtime = _kv_and_runtime(p, request.engine, request.context_tokens, request.sequences)
    usable = _budget(device, p.overhead)
    return p, kv, runtime, usable, None if p.blocked else on_gpu_verdict(p.weights_gpu_bytes + kv + runtime, usable)


def on_gpu(model: ModelSpec, device: DeviceSpec, request: Request) -> Verdict | None:
    """``estimate(...).verdict`` when it is "fits" or "tight", else None; memory only, no speeds."""
    return _on_gpu(model, device, request)[4]


def estimate(model: ModelSpec, device: DeviceSpec, request: Request, limits: bool = True) -> Estimate:
    """Memory, verdict, limits and speed of ``request`` for ``model`` on ``device``; with ``limits`` False, only
    memory, verdict and decode speed (a quantization matrix row: the limits are a third of the work)."""
    p, kv, runtime, usable, verdict = _on_gpu(model, device, request)
    engine, ctx, seqs = request.engine, request.context_tokens, request.sequences
    total = p.weights_gpu_bytes + kv + runtime
    plan = None
    if verdict is None and not p.blocked and engine != "vllm" and not device.unified:
        plan = plan_offload(total, usable, p.weights, kv, p.embed_host_bytes)
    final: Verdict = verdict or ("offload" if plan else "no_fit")
    fits_somehow = final != "no_fit"
    max_ctx = max_seq = prefill = ttft = batched = None
    if limits:
        max_ctx = 0 if p.blocked else _max_context(p, engine, seqs, usable, model.context_length)
        max_seq = 0 if p.blocked or verdict is None else _max_sequences(p, engine, ctx, usable)
        prefill = ttft = batched = 0.0
    decode = 0.0
    if fits_somehow:
        work = p.work if plan is None else replace(p.work, host_dense_bytes=plan.host_dense_bytes,
                                                   host_expert_bytes=plan.host_expert_bytes)
        if limits:
            decode, prefill, ttft, batched = _speeds(work, _speed_device(device), request.depth,
                                                     request.prompt_tokens, max(1, max_seq or 0))
        else:
            decode = _decode(work, _speed_device(device), request.depth)
    return Estimate(p.file_bytes, p.weights_gpu_bytes, p.source, kv, runtime, total, usable, usable - total, final,
                    max_ctx, max_seq, plan, decode, prefill, ttft, batched, _assumptions(model, device, request, p, final))


@dataclass(frozen=True)
class ContextMemory:
    """Memory of one request at several context lengths: what :func:`estimate` gives for each, without speeds."""

    contexts: tuple[int, ...]
    kv_cache_bytes: tuple[int, ...]
    total_bytes: tuple[int, ...]
    usable_bytes: int
    max_context_tokens: int


def context_memory(model: ModelSpec, device: DeviceSpec, request: Request, contexts: tuple[int, ...]) -> ContextMemory:
    """KV cache and total memory of ``request`` at each of ``contexts`` (``request.context_tokens`` is ignored),
    by the same formulas as :func:`estimate`: the memory-against-context chart without a full estimate per point."""
    check_request(model, device, request)
    engine, seqs = request.engine, request.sequences
    p = _prepare(model, request.quant, engine, request.kv_type, device.backend, device.count, device.parallel)
    parts = [_kv_and_runtime(p, engine, c, seqs) for c in contexts]
    usable = _budget(device, p.overhead)
    max_ctx = 0 if p.blocked else _max_context(p, engine, seqs, usable, model.context_length)
    return ContextMemory(contexts, tuple(kv for kv, _ in parts),
                         tuple(p.weights_gpu_bytes + kv + runtime for kv, runtime in parts), usable, max_ctx)


def _assumptions(model: ModelSpec, device: DeviceSpec, request: Request, p: _Prepared,
                 verdict: str) -> tuple[tuple[str, str], ...]:
    runs = verdict != "no_fit"
    return _assumption_list(device.backend, speed.kernel_family(_speed_device(device)), device.usable_rule,
                            request.engine, request.kv_type, request.quant, p.source, p.overhead.assumptions,
                            p.blocked, verdict == "offload", _flops_rule(device) if runs else None)


@cache  # one shared tuple per distinct list: estimates stay small in memory and in the store
def _assumption_list(device_backend: str, kernel_family: str, usable_rule: str, engine: str, kv_type: str, quant: str,
                     source: str, overhead_items: tuple[tuple[str, str], ...], blocked: str | None,
                     offload_possible: bool, prefill_rule: str | None) -> tuple[tuple[str, str], ...]:
    """The assumptions behind an estimate; the speed constants (of ``kernel_family``) and FLOPS rule only when there
    are speeds (``prefill_rule`` None: the setup does not run)."""
    base = _assumption_base(device_backend, usable_rule, engine, kv_type, quant, source, overhead_items, blocked,
                            offload_possible)
    if prefill_rule is None:
        return base
    return base + speed.constants_for(kernel_family).assumptions() + (("speed.prefill_flops", prefill_rule),)


@cache
def _assumption_base(device_backend: str, usable_rule: str, engine: str, kv_type: str, quant: str, source: str,
                     overhead_items: tuple[tuple[str, str], ...], blocked: str | None,
                     offload_possible: bool) -> tuple[tuple[str, str], ...]:
    items = [("engine", engine), ("kv_type", kv_type), ("quant", quant),
             ("weights", "published GGUF size" if source == "measured" else "computed per tensor"),
             ("sequences", "KV cache sized for sequences × context tokens"),
             ("device.usable", usable_rule),
             ("verdict.tight", f"margin below max({TIGHT_FRACTION:.0%} of usable, {TIGHT_MIN_BYTES // 2**30} GiB)")]
    if engine != "vllm":
        items.append(("weights.token_embd", "kept in system RAM by llama.cpp"))
    if offload_possible:
        items.append(("offload", f"experts, then layers, to system RAM until {FIT_TARGET_BYTES // 2**20} MiB stay "
                                 f"free; system RAM assumed {DEFAULT_HOST_RAM_BYTES // 2**30} GiB at "
                                 f"{speed.DEFAULT_HOST_BANDWIDTH_BYTES_PER_S / 1e9:.1f} GB/s, read at "
                                 f"{speed.HOST_READ_EFFICIENCY:.0%} of it"))
    if blocked:
        items.append(("blocked", blocked))
    items += overhead_items
    return tuple(items)


@cache
def _flops_rule(device: DeviceSpec) -> str:
    """Which FP16 FLOPS figure prefill used, in words."""
    c = speed.device_constants(_speed_device(device))
    flops = _speed_device(device).datasheet_flops(c)
    doubled = " (× 2 for FP16-accumulate GEMMs on GeForce)" if device.fp16_accumulate_doubles else ""
    attention = ""
    if device.vector_attention and device.fp32_flops is not None:
        attention = f"; flash attention on the vector units at the catalogued FP32 {device.fp32_flops / 1e12:.1f} TFLOPS"
    if device.fp16_flops is not None:
        mmq = ""
        if c.mmq_flops_per_fp32_flop is not None and device.fp32_flops is not None:
            mmq = (f"; quantised matmul at most {c.mmq_flops_per_fp32_flop:.2f} × the catalogued FP32 "
                   f"{device.fp32_flops / 1e12:.1f} TFLOPS")
        return f"catalogued dense FP16 tensor {flops / 1e12:.1f} TFLOPS per GPU{doubled}{mmq}{attention}"
    fp32_path = ""
    if device.mmq == "dp4a" and c.dp4a_flops_per_fp32_flop is not None and device.fp32_flops is not None:
        fp32_path = (f"; quantised matmul on dp4a at {c.dp4a_flops_per_fp32_flop:.2f} × the catalogued FP32 "
                     f"{device.fp32_flops / 1e12:.1f} TFLOPS")
    elif device.mmq != "none" and c.mmq_flops_per_fp32_flop is not None and device.fp32_flops is not None:
        fp32_path = (f"; quantised matmul at {c.mmq_flops_per_fp32_flop:.2f} × the catalogued FP32 "
                     f"{device.fp32_flops / 1e12:.1f} TFLOPS")
    return (f"no FP16 FLOPS catalogued: {c.flops_per_byte:.1f} FLOPs per byte/s × {device.bandwidth_bytes_per_s / 1e9:.0f}"
            f" GB/s = {flops / 1e12:.1f} TFLOPS per GPU{doubled}, the {c.family} compute-to-bandwidth balance fitted "
            f"on measured llama.cpp prefill{'' if c.fitted else ' (borrowed from CUDA)'}{fp32_path}{attention}")


def quant_info(name: str) -> QuantInfo | None:
    """Metadata of a quant the pages name, or None."""
    return QUANT_INFO.get(name)
