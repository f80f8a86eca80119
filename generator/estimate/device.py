"""What a GPU (or several) offers the estimator: usable memory, bandwidth, FLOPS, backend.

Usable memory rule, in order:
1. the catalogue's ``usable_memory_bytes`` when given (a sourced figure for that device);
2. Apple unified memory (Metal): the GPU may wire ``recommendedMaxWorkingSetSize``, about 2/3 of RAM up to
   36 GiB and 3/4 above (llama.cpp issue #2048: M1 Max 32 GB reports 21,845 MB = 2/3; gpustack issue #1375:
   "the recommended max working set from macOS … which is 75% of total RAM" on larger Macs);
3. otherwise the whole memory. The engine's own context (CUDA/ROCm/Metal) is counted in ``runtime``.
Several GPUs add their usable memory; ``parallel`` says how the model is split: "layer" (llama.cpp
``--split-mode layer``: capacity adds up, speed of one GPU) or "tensor" (vLLM tensor parallel).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from typing import Literal

from ..catalog.schema import Gpu

GIB = 2**30
Parallel = Literal["layer", "tensor"]

APPLE_SMALL_SHARE = (2, 3)
APPLE_LARGE_SHARE = (3, 4)
APPLE_SMALL_LIMIT_BYTES = 36 * GIB


@dataclass(frozen=True)
class DeviceSpec:
    """One GPU model, ``count`` of them, as the estimator sees them (memory figures are totals over all)."""

    id: str
    name: str
    count: int
    parallel: Parallel
    memory_bytes: int
    usable_memory_bytes: int
    usable_rule: str
    bandwidth_bytes_per_s: float  # per GPU
    fp16_flops: float | None  # per GPU, dense tensor
    fp8_flops: float | None
    backend: str
    backends: tuple[str, ...]
    unified: bool
    tdp_w: float | None
    interconnect_bytes_per_s: float | None = None
    fp16_accumulate_doubles: bool = False  # GeForce: see ``geforce_rate``
    hbm: bool = False  # stacked high-bandwidth memory (the catalogue's memory_type starts with HBM)
    graphs: bool = True  # llama.cpp replays decode steps as CUDA graphs (not on NVIDIA parts older than Ampere)

    @property
    def per_gpu_usable_bytes(self) -> int:
        """Usable memory of one GPU."""
        return self.usable_memory_bytes // self.count


def geforce_rate(gpu: Gpu) -> bool:
    """True for NVIDIA GeForce cards, whose FP16 tensor rate with FP32 accumulate (the catalogued figure) is half
    their FP16-accumulate rate (Ampere GA102 and Ada whitepapers); TITAN, workstation and datacenter parts run both
    at one rate. llama.cpp's cuBLAS F16 GEMMs accumulate in FP16, so the speed model doubles the figure for these."""
    return gpu.vendor == "nvidia" and "geforce" in gpu.name.lower()


def usable_bytes(gpu: Gpu) -> tuple[int, str]:
    """Usable memory of one GPU and the rule that gave it."""
    if gpu.usable_memory_bytes is not None:
        return gpu.usable_memory_bytes, "catalogue usable_memory_bytes"
    if gpu.unified_memory and "metal" in gpu.backends:
        num, den = APPLE_SMALL_SHARE if gpu.memory_bytes <= APPLE_SMALL_LIMIT_BYTES else APPLE_LARGE_SHARE
        return gpu.memory_bytes * num // den, f"Apple GPU working set {num}/{den} of unified memory"
    return gpu.memory_bytes, "whole memory (engine context counted separately)"


def device_spec(gpu: Gpu, count: int = 1, parallel: Parallel = "tensor") -> DeviceSpec:
    """The estimator's view of ``count`` × ``gpu``."""
    if count < 1:
        raise ValueError("count must be at least 1")
    usable, rule = usable_bytes(gpu)
    link = gpu.interconnect.bandwidth_gb_per_s * 1e9 if gpu.interconnect else None
    return DeviceSpec(
        id=gpu.id, name=gpu.name, count=count, parallel=parallel if count > 1 else "layer",
        memory_bytes=gpu.memory_bytes * count, usable_memory_bytes=usable * count, usable_rule=rule,
        bandwidth_bytes_per_s=gpu.bandwidth_gb_per_s * 1e9,
        fp16_flops=gpu.fp16_tensor_tflops * 1e12 if gpu.fp16_tensor_tflops else None,
        fp8_flops=gpu.fp8_tensor_tflops * 1e12 if gpu.fp8_tensor_tflops else None,
        backend=gpu.backends[0], backends=tuple(gpu.backends), unified=gpu.unified_memory, tdp_w=gpu.tdp_w,
        interconnect_bytes_per_s=link, fp16_accumulate_doubles=geforce_rate(gpu), hbm=is_hbm(gpu.memory_type),
        graphs=not pre_ampere(gpu),
    )


AMPERE_LAUNCH = date(2020, 5, 14)  # A100, the first Ampere (compute capability 8.0) part


def pre_ampere(gpu: Gpu) -> bool:
    """NVIDIA parts launched before Ampere (Pascal, Volta, Turing: compute capability below 8.0), for which llama.cpp
    disables CUDA graphs (ggml-cuda.cu, ``cc < GGML_CUDA_CC_AMPERE``). The catalogue has no architecture field; the
    launch date separates them (every catalogued NVIDIA part launched since 2020-05-14 is Ampere or newer)."""
    return gpu.vendor == "nvidia" and gpu.launch_date is not None and gpu.launch_date < AMPERE_LAUNCH


def is_hbm(memory_type: str | None) -> bool:
    """Whether a catalogue memory type is stacked HBM (HBM2, HBM2e, HBM3, HBM3e …)."""
    return bool(memory_type) and memory_type.upper().startswith("HBM")
