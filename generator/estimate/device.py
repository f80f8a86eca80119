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

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date
from typing import Literal

from .speed import MmqKernel

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
    lpddr: bool = False  # LPDDR unified memory (DGX Spark, Strix Halo): its own decode bandwidth efficiency
    graphs: bool = True  # llama.cpp replays decode steps as CUDA graphs (not on NVIDIA parts older than Ampere)
    ampere_or_newer: bool = False  # an NVIDIA part known to be Ampere (SM 8.0) or newer (see ``ampere_or_newer``)
    fp32_flops: float | None = None  # per GPU, non-tensor FP32 (bounds current llama.cpp's quantised matmul)
    mmq: MmqKernel = "mma"  # llama.cpp's quantised-matmul kernel: "dp4a" on NVIDIA Pascal (see ``pascal_dp4a``)
    pre_turing: bool = False  # an NVIDIA part known to be older than Turing (SM below 7.5; see ``pre_turing``)
    vector_attention: bool = False  # llama.cpp's flash attention runs on the vector units (see ``vector_attention``)

    @property
    def per_gpu_usable_bytes(self) -> int:
        """Usable memory of one GPU."""
        return self.usable_memory_bytes // self.count


def geforce_rate(vendor: str, name: str) -> bool:
    """True for NVIDIA GeForce cards, whose FP16 tensor rate with FP32 accumulate (the catalogued figure) is half
    their FP16-accumulate rate (Ampere GA102 and Ada whitepapers); TITAN, workstation and datacenter parts run both
    at one rate. llama.cpp's cuBLAS F16 GEMMs accumulate in FP16, so the speed model doubles the figure for these."""
    return vendor == "nvidia" and "geforce" in name.lower()


def usable_memory(memory_bytes: int, catalogued: int | None, unified: bool, backends: Sequence[str]) -> tuple[int, str]:
    """Usable memory of one GPU and the rule that gave it (``catalogued``: a sourced usable figure, if any)."""
    if catalogued is not None:
        return catalogued, "catalogue usable_memory_bytes"
    if unified and "metal" in backends:
        num, den = APPLE_SMALL_SHARE if memory_bytes <= APPLE_SMALL_LIMIT_BYTES else APPLE_LARGE_SHARE
        return memory_bytes * num // den, f"Apple GPU working set {num}/{den} of unified memory"
    return memory_bytes, "whole memory (engine context counted separately)"


AMPERE_LAUNCH = date(2020, 5, 14)  # A100, the first Ampere (compute capability 8.0) part


def pre_ampere(vendor: str, launch_date: date | None) -> bool:
    """NVIDIA parts launched before Ampere (Pascal, Volta, Turing: compute capability below 8.0), for which llama.cpp
    disables CUDA graphs (ggml-cuda.cu, ``cc < GGML_CUDA_CC_AMPERE``). The catalogue has no architecture field; the
    launch date separates them (every catalogued NVIDIA part launched since 2020-05-14 is Ampere or newer)."""
    return vendor == "nvidia" and launch_date is not None and launch_date < AMPERE_LAUNCH


VOLTA_LAUNCH = date(2017, 6, 21)  # Tesla V100 PCIe (TechPowerUp release date), the first part with tensor cores


def pascal_dp4a(vendor: str, launch_date: date | None) -> bool:
    """NVIDIA parts launched before Volta, i.e. Pascal without tensor cores, on which llama.cpp's quantised matmul (MMQ)
    runs on dp4a at every batch size (ggml-cuda/mmq.cu ``ggml_cuda_should_use_mmq``: no FP16 MMA). Compute capability
    6.1 is assumed: the catalogue holds no GP100 (6.0) or Maxwell part, which lack dp4a."""
    return vendor == "nvidia" and launch_date is not None and launch_date < VOLTA_LAUNCH


def mmq_kernel(vendor: str, launch_date: date | None) -> MmqKernel:
    """The quantised-matmul kernel llama.cpp picks for a catalogued GPU: dp4a on Pascal (``pascal_dp4a``), else MMA."""
    return "dp4a" if pascal_dp4a(vendor, launch_date) else "mma"


TURING_LAUNCH = date(2018, 8, 13)  # Quadro RTX 8000/6000 (TechPowerUp release date), the first Turing (SM 7.5) parts


def pre_turing(vendor: str, launch_date: date | None) -> bool:
    """NVIDIA parts known to be older than Turing (compute capability below 7.5, which current vLLM does not run) by
    the launch-date rule: every catalogued NVIDIA part launched since 2018-08-13 is Turing or newer, the V100 (7.0)
    and P40 (6.1) launched before; an unknown launch date (recent datacenter parts) counts as newer."""
    return vendor == "nvidia" and launch_date is not None and launch_date < TURING_LAUNCH


def ampere_or_newer(vendor: str, launch_date: date | None) -> bool:
    """NVIDIA parts known to be Ampere or newer (compute capability 8.0+) by the same launch-date rule; False when
    the launch date is unknown (undecided). On Vulkan these run llama.cpp's NV_coopmat2 kernels (``speed.kernel_family``):
    every measured row is of Ampere or newer cards; Turing stays with Vulkan's constants, as no source found says its
    driver offers coopmat2 (llama.cpp pull request 19290 tunes a coopmat1 path on Turing)."""
    return vendor == "nvidia" and launch_date is not None and launch_date >= AMPERE_LAUNCH


def is_lpddr(vendor: str, memory_type: str | None) -> bool:
    """Whether a catalogue GPU has LPDDR unified memory beside the discrete cards of its backend (GB10, Strix Halo:
    LPDDR5, LPDDR5X …). Apple's GPUs all have unified memory, so the Metal family's η_bw is already theirs."""
    return vendor != "apple" and memory_type is not None and memory_type.upper().startswith("LPDDR")


def is_hbm(memory_type: str | None) -> bool:
    """Whether a catalogue memory type is stacked HBM (HBM2, HBM2e, HBM3, HBM3e …)."""
    return memory_type is not None and memory_type.upper().startswith("HBM")


def vector_attention(vendor: str, memory_type: str | None) -> bool:
    """AMD GPUs without HBM (RDNA: Radeon cards and Ryzen APUs; every CDNA Instinct part carries HBM), whose flash
    attention the speed model runs at the vector FP32 rate. llama.cpp (ggml-cuda/fattn.cu,
    ``ggml_cuda_get_best_fattn_kernel``) takes MMA kernels on NVIDIA tensor cores and on CDNA's MFMA units; on RDNA it
    takes a WMMA kernel only for some head sizes and batch widths (RDNA 4 first) and otherwise its TILE kernel on the
    vector ALUs. The AMD rows measured on RDNA GPUs, ROCm and Vulkan alike, follow the vector rate (methodology)."""
    return vendor == "amd" and not is_hbm(memory_type)
