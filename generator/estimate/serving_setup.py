"""A serving setup of one model on ``count`` × one GPU: precision, engine, parallelism, KV pool, then ``serving``.

Reuses the single-stream pieces (weights per format, KV layout, vLLM runtime memory, ``speed.Workload``) through
``api._prepare`` so that a page's memory and serving figures come from one description of the model.

KV pool per replica (the GPUs of one tensor-parallel group), by engine default:
* vLLM: ``gpu_memory_utilization`` 0.9 × memory − weights − activation peak, non-torch memory and CUDA graphs
  (``runtime.vllm_overhead``); pages of 16 tokens (``kvcache.kv_cache_bytes``).
* SGLang: ``mem_fraction_static`` × memory − weights, where mem_fraction_static = (M − reserved)/M and reserved =
  512 MiB + 1.5 MiB × chunked_prefill_size + 2 MiB × cuda_graph_max_bs + tp/8 GiB, at least 10 GiB on GPUs above
  60 GiB; chunked_prefill_size 2048 / 8192 / 16384 and cuda_graph_max_bs 24 / 256 / 512 below 35 GiB / 160 GiB /
  above (sgl-project/sglang ``server_args.py``, PR #10975 heuristics).
* TensorRT-LLM: ``KvCacheConfig.free_gpu_memory_fraction`` 0.9 of what weights and activations leave (activations
  taken as vLLM's, an assumption).
Compute precision: BF16, AWQ (weight-only INT4) and MXFP4 (gpt-oss as released: 4-bit experts, 16-bit
activations) run their GEMMs at the FP16 tensor rate; FP8 at the FP8 rate and only on GPUs with FP8 tensor cores (a
catalogued FP8 rate); NVFP4 at the FP8 rate where the GPU has one (the catalogue holds no FP4 figure, so FP4 GEMMs
on Blackwell are counted at FP8 speed: conservative when compute-bound), else weight-only at the FP16 rate.
KV cache in FP8 for FP8/FP4 precisions on GPUs with FP8. Constants are per engine and backend (cuda, rocm).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import cache

from . import estimator, serving, vllm_support
from .device import DeviceSpec
from .kvcache import kv_cache_bytes
from .runtime import VLLM_GPU_MEMORY_UTILIZATION
from .serving import ServingConstants, ServingDevice, ServingPoint
from .speed import Workload

PRECISIONS: dict[str, str] = {"BF16": "BF16", "FP8": "FP8", "NVFP4": "NVFP4", "MXFP4": "MXFP4", "AWQ": "AWQ-INT4"}
MIB = 2**20
GIB = 2**30
TRTLLM_FREE_FRACTION = 0.9
# vLLM's default max_num_batched_tokens for `vllm serve` (EngineArgs.get_batch_defaults, vllm/engine/arg_utils.py):
# 8192 on GPUs of 70 GiB or more except the A100, 2048 on the rest (vLLM PR #17885: a large budget slowed the A100).
VLLM_LARGE_GPU_BYTES = 70 * 2**30
VLLM_CHUNK_LARGE, VLLM_CHUNK_SMALL = 8192, 2048


class ServingError(ValueError):
    """A setup that cannot run (one readable sentence)."""


@dataclass(frozen=True)
class ServingRequest:
    """What to serve: engine, precision, parallelism and load (``concurrency`` None = the offline maximum)."""

    engine: str = "vllm"
    precision: str = "BF16"
    prompt_tokens: int = 1024
    output_tokens: int = 1024
    concurrency: int | None = None
    tensor_parallel: int | None = None  # None: all GPUs in one tensor-parallel group
    expert_parallel: bool = False
    attention_data_parallel: bool = False


@dataclass(frozen=True)
class ServingSetup:
    """Everything fixed by model, GPUs and request except the load: work, device, constants, KV capacity."""

    work: Workload
    device: ServingDevice
    constants: ServingConstants
    max_concurrency: int
    kv_type: str  # vLLM --kv-cache-dtype: "auto" or "fp8"
    tensor_parallel: int
    weights_bytes_per_gpu: int
    kv_pool_bytes_per_gpu: int
    backend: str


@dataclass(frozen=True)
class ServingEstimate:
    """The requested point plus the setup it came from."""

    setup: ServingSetup
    point: ServingPoint

    def as_dict(self) -> dict[str, float | int | str]:
        """The serving fields the CLI adds to its JSON."""
        p = self.point
        return {"total_tokens_per_s_per_gpu": p.total_tokens_per_s_per_gpu,
                "output_tokens_per_s_per_gpu": p.output_tokens_per_s_per_gpu,
                "tokens_per_s_per_user": p.tokens_per_s_per_user, "ttft_s": p.ttft_s,
                "max_concurrency": self.setup.max_concurrency, "concurrency": p.concurrency,
                "tensor_parallel": self.setup.tensor_parallel, "kv_cache_dtype": self.setup.kv_type,
                "weights_bytes_per_gpu": self.setup.weights_bytes_per_gpu,
                "kv_pool_bytes_per_gpu": self.setup.kv_pool_bytes_per_gpu}


def constants_for(engine: str, backend: str) -> ServingConstants:
    """The fitted constants of a serving engine on a backend (cuda, rocm)."""
    from .serving_constants import CONSTANTS

    return CONSTANTS[f"{engine}/{backend}"]


def vllm_chunk_tokens(device: DeviceSpec) -> int:
    """Prompt tokens one vLLM step may carry by default on one GPU of ``device`` (see VLLM_LARGE_GPU_BYTES)."""
    large = device.memory_bytes // device.count >= VLLM_LARGE_GPU_BYTES and "a100" not in device.name.lower()
    return VLLM_CHUNK_LARGE if large else VLLM_CHUNK_SMALL


def compute_flops(device: DeviceSpec, precision: str) -> float:
    """Dense tensor FLOPS of one GPU at the precision's GEMM rate (see the module docstring)."""
    fp8 = device.fp8_flops
    if precision == "FP8" and fp8 is None:
        raise ServingError(f"{device.name} has no FP8 tensor cores (no FP8 rate catalogued); use BF16 or AWQ")
    if precision in ("FP8", "NVFP4") and fp8 is not None:
        return fp8
    if device.fp16_flops is None:
        raise ServingError(f"{device.name} has no catalogued FP16 tensor rate to estimate batched serving")
    return device.fp16_flops


def _check(model: estimator.ModelSpec, device: DeviceSpec, request: ServingRequest, tp: int) -> None:
    if request.engine not in serving.SERVING_ENGINES:
        raise ServingError(f"unknown serving engine {request.engine!r}; choose one of "
                           f"{', '.join(serving.SERVING_ENGINES)}")
    if request.precision not in PRECISIONS:
        raise ServingError(f"unknown precision {request.precision!r}; choose one of {', '.join(PRECISIONS)}")
    allowed = ("cuda",) if request.engine == "trtllm" else ("cuda", "rocm")
    if device.backend not in allowed:
        raise ServingError(f"{request.engine} does not run on {device.name} ({device.backend})")
    if request.precision == "NVFP4" and device.backend != "cuda":
        raise ServingError(f"NVFP4 checkpoints run on NVIDIA GPUs only, not on {device.name}")
    if request.prompt_tokens < 1 or request.output_tokens < 1:
        raise ServingError("prompt and output tokens must be at least 1")
    if request.concurrency is not None and request.concurrency < 1:
        raise ServingError("concurrency must be at least 1")
    if tp < 1 or device.count % tp:
        raise ServingError(f"tensor parallel {tp} must divide the GPU count {device.count}")
    if request.precision == "MXFP4" and not model.architecture.n_experts:
        raise ServingError(f"MXFP4 checkpoints quantize the experts of mixture-of-experts models; {model.name} is dense")
    if request.expert_parallel and not model.architecture.n_experts:
        raise ServingError(f"expert parallel needs a mixture-of-experts model; {model.name} is dense")
    if request.prompt_tokens + request.output_tokens > model.context_length:
        raise ServingError(f"{request.prompt_tokens} + {request.output_tokens} tokens exceed {model.name}'s "
                           f"context of {model.context_length}")


def kv_type_for(device: DeviceSpec, precision: str) -> str:
    """vLLM KV cache dtype: fp8 for FP8/FP4 precisions on GPUs with FP8 tensor cores, else the model dtype."""
    return "fp8" if precision in ("FP8", "NVFP4", "MXFP4") and device.fp8_flops is not None else "auto"


def sglang_reserved_bytes(gpu_bytes: int, tp: int) -> int:
    """SGLang's default reservation outside mem_fraction_static on one GPU (see the module docstring)."""
    mib = gpu_bytes / MIB
    chunk, graph_bs = (2048, 24) if mib < 35 * 1024 else (8192, 256) if mib < 160 * 1024 else (16384, 512)
    reserved = 512 + 1.5 * chunk + 2 * graph_bs + tp / 8 * 1024
    if mib > 60 * 1024:
        reserved = max(reserved, 10 * 1024)
    return int(reserved * MIB)


def kv_pool_bytes(engine: str, memory_bytes: int, weights_bytes: int, activation_bytes: int, tp: int) -> int:
    """KV pool of one replica of ``tp`` GPUs with ``memory_bytes`` in all (see the module docstring)."""
    if engine == "sglang":
        return memory_bytes - tp * sglang_reserved_bytes(memory_bytes // tp, tp) - weights_bytes
    if engine == "trtllm":
        return int(TRTLLM_FREE_FRACTION * (memory_bytes - weights_bytes - activation_bytes))
    return int(VLLM_GPU_MEMORY_UTILIZATION * memory_bytes) - weights_bytes - activation_bytes


@cache
def setup(model: estimator.ModelSpec, device: DeviceSpec, engine: str, precision: str, prompt: int, output: int,
          tensor_parallel: int | None = None, expert_parallel: bool = False,
          attention_data_parallel: bool = False) -> ServingSetup:
    """The serving setup, or ServingError saying why it cannot run."""
    tp = tensor_parallel or device.count
    request = ServingRequest(engine, precision, prompt, output, None, tp, expert_parallel, attention_data_parallel)
    _check(model, device, request, tp)
    flops = compute_flops(device, precision)
    kv_type = kv_type_for(device, precision)
    p = estimator._prepare(model, PRECISIONS[precision], "vllm", "f16" if kv_type == "auto" else kv_type,
                           device.backend, tp, "tensor" if tp > 1 else "layer")
    if p.blocked and not attention_data_parallel:
        raise ServingError(p.blocked)
    per_gpu_memory = device.memory_bytes // device.count
    pool = kv_pool_bytes(engine, per_gpu_memory * tp, p.weights_gpu_bytes, p.overhead.fixed_bytes, tp)
    per_request = kv_cache_bytes(p.layout, prompt + output, 1)
    if pool <= 0:
        raise ServingError(f"{model.name} at {precision} ({p.weights_gpu_bytes / GIB:,.1f} GiB of weights) does not "
                           f"fit {tp} × {device.name} with {engine}'s memory budget")
    per_replica = serving.kv_capacity(pool, per_request)
    if per_replica < 1:
        raise ServingError(f"not one request of {prompt + output} tokens fits the KV cache of {tp} × {device.name} "
                           f"at {precision}")
    sdev = ServingDevice(device.bandwidth_bytes_per_s, flops, device.count, tp, attention_data_parallel,
                         device.interconnect_bytes_per_s)
    constants = constants_for(engine, device.backend)
    if engine == "vllm":
        constants = replace(constants, prefill_chunk_tokens=vllm_chunk_tokens(device))
    return ServingSetup(p.work, sdev, constants, per_replica * sdev.replicas, kv_type, tp,
                        p.weights_gpu_bytes // tp, pool // tp, device.backend)


def serving_estimate(model: estimator.ModelSpec, device: DeviceSpec, request: ServingRequest) -> ServingEstimate:
    """Throughput, per-user speed and TTFT at the requested concurrency (None: the KV cache's maximum)."""
    s = setup(model, device, request.engine, request.precision, request.prompt_tokens, request.output_tokens,
              request.tensor_parallel, request.expert_parallel, request.attention_data_parallel)
    wanted = s.max_concurrency if request.concurrency is None else min(request.concurrency, s.max_concurrency)
    point = serving.serve(s.work, s.device, s.constants, wanted, request.prompt_tokens,
                          request.output_tokens)
    return ServingEstimate(s, point)


PAGE_PROMPT_TOKENS = 1024  # the pages' serving workload: 1K prompt, 1K answer (InferenceX's chat-like shape)
PAGE_OUTPUT_TOKENS = 1024
PAGE_GPU_COUNTS = (1, 2, 4, 8)


@dataclass(frozen=True)
class ServingPlan:
    """What a pair page shows about serving: the setup, a curve from one request to the KV maximum, and the
    recommended operating point (None when even one request is slower than the per-user floor)."""

    engine: str
    precision: str
    gpu_count: int
    tensor_parallel: int
    kv_type: str
    prompt_tokens: int
    output_tokens: int
    max_concurrency: int
    points: tuple[ServingPoint, ...]
    operating: ServingPoint | None
    assumptions: tuple[tuple[str, str], ...]
    weights_bytes_per_gpu: int = 0  # what each step reads per GPU (all of a dense model's weights at one request)
    bandwidth_efficiency: float = 0.0  # the engine's fitted share of datasheet bandwidth
    step_overhead_s: float = 0.0  # the engine's fitted fixed cost per step (scheduling, sampling, launches)


def page_precisions(model: estimator.ModelSpec, device: DeviceSpec,
                    published: frozenset[str] = frozenset()) -> tuple[str, ...]:
    """Precisions a page tries, in order, each only where vLLM's kernels run it on the GPU (``vllm_support``): a
    checkpoint released in FP8 or MXFP4 at that precision alone (vLLM loads it as published, with no BF16 fallback);
    a 16-bit checkpoint at FP8 (W8A8 needs FP8 tensor cores, a catalogued FP8 rate) from a published FP8 checkpoint
    (``published``: the precisions of the model's catalogued checkpoints) or else quantized on load, which needs the
    16-bit weights to fit first (``loads_at_16_bit``), then BF16. NVFP4 and AWQ need third-party checkpoints the pages
    leave to the CLI."""
    moe = model.architecture.n_experts > 0
    native = {"fp8": "FP8", "mxfp4": "MXFP4"}.get(model.native_format)
    if native is not None:
        return (native,) if vllm_support.runs_format(native, device, moe) else ()
    fp8 = (device.fp8_flops is not None and vllm_support.runs_format("FP8", device, moe)
           and ("FP8" in published or loads_at_16_bit(model, device)))
    return (("FP8",) if fp8 else ()) + (("BF16",) if vllm_support.runs_format("BF16", device, moe) else ())


def loads_at_16_bit(model: estimator.ModelSpec, device: DeviceSpec) -> bool:
    """Whether the model's 16-bit weights fit the share of the GPUs' memory vLLM may use: its on-load FP8
    quantization "loads the model at original precision before quantizing down to 8-bits, so you need enough memory
    to load the whole model" (vLLM docs/features/quantization/fp8.md, Online Dynamic Quantization)."""
    p = estimator._prepare(model, PRECISIONS["BF16"], "vllm", "f16", device.backend, device.count,
                           "tensor" if device.count > 1 else "layer")
    return p.weights_gpu_bytes <= VLLM_GPU_MEMORY_UTILIZATION * device.memory_bytes


def page_plan(model: estimator.ModelSpec, devices: tuple[DeviceSpec, ...], engine: str = "vllm",
              prompt: int = PAGE_PROMPT_TOKENS, output: int = PAGE_OUTPUT_TOKENS,
              min_context: int = 0, published: frozenset[str] = frozenset()) -> ServingPlan | None:
    """The fewest GPUs (``devices``: one GPU model at increasing counts) and the first page precision that serve
    ``model`` and hold one request of ``min_context`` tokens in the KV cache (the page's context), with its curve and
    operating point; None when no count runs it. ``published``: see ``page_precisions``."""
    for device in devices:
        for precision in page_precisions(model, device, published):
            try:
                s = setup(model, device, engine, precision, prompt, output)
                if min_context > prompt + output:
                    setup(model, device, engine, precision, min_context - output, output)
            except ServingError:
                continue
            points = serving.sweep(s.work, s.device, s.constants, prompt, output, s.max_concurrency)
            best = serving.operating_point(s.work, s.device, s.constants, prompt, output, s.max_concurrency)
            return ServingPlan(engine, precision, device.count, s.tensor_parallel, s.kv_type, prompt, output,
                               s.max_concurrency, points, best, s.constants.assumptions(), s.weights_bytes_per_gpu,
                               s.constants.bandwidth_efficiency, s.constants.step_s)
    return None
