"""Which checkpoint formats vLLM's kernels run on which GPU, so that a page never prints a command that fails.

Sources, read 2026-12-01:
* vLLM docs, "Supported Hardware" for quantization methods
  (https://docs.vllm.ai/en/latest/features/quantization/supported_hardware.html; vllm-project/vllm
  docs/features/quantization/supported_hardware.md at commits 5ee0c1f91ca310f2c3abef3c64dbf52bb6df0ab9 and
  01129ffb187a16881403d7a1f6248b800a8edd5b, same rows): FP8 (W8A8) on Ada (SM 8.9), Hopper (SM 9.0) and AMD GPUs,
  not Volta, Turing or Ampere; Marlin (GPTQ/AWQ/FP8) on Ampere (SM 8.0) and newer, not on AMD; AWQ not on AMD.
* vLLM recipes, gpt-oss (https://github.com/vllm-project/recipes/blob/main/OpenAI/GPT-OSS.md, commit
  59dc5f185d181041960623e355715e0ad46e967e): the MXFP4 release runs on H100/H200/B200, on Ampere with Marlin's
  MXFP4 MoE kernel, and on AMD MI300X, MI325X, MI355X and Radeon AI PRO R9700 only.

* vLLM docs, "GPU" installation requirements (https://docs.vllm.ai/en/v0.31.0/getting_started/installation/gpu/,
  read 2026-12-02): NVIDIA "compute capability 7.5 or higher (e.g., T4, RTX20xx, A100, L4, H100, B200)" (earlier
  releases, e.g. v0.14.0, said 7.0; the pages print commands for current vLLM); AMD "MI200s (gfx90a), MI300 (gfx942),
  MI350 (gfx950), Radeon RX 7900 series (gfx1100/1101), Radeon RX 9000 series (gfx1200/1201), Ryzen AI MAX / AI 300
  Series (gfx1151/1150)" (v0.14.0 page). The LLVM targets of the catalogued Radeon cards are those of AMD's ROCm
  system requirements (rocm.docs.amd.com install-on-windows docs-7.2 and docs-6.0.2 GPU tables: W7900, RX 7900
  XTX/XT gfx1100, RX 7800 XT gfx1101, R9700 gfx1201, RX 6800 XT / 6900 XT gfx1030, which vLLM does not list) and
  LLVM's AMDGPUUsage (RX 7900 GRE gfx1100). SGLang's commands follow the same GPUs.

The catalogue has no compute-capability field, so the rule reads sourced GPU facts instead:
* FP8 W8A8 needs FP8 tensor cores (NVIDIA SM 8.9+, AMD CDNA3+/RDNA4): a GPU qualifies when its FP8 tensor rate is
  catalogued. A GPU whose FP8 rate is not catalogued is undecided and gets no FP8 checkpoint, except a dense model's
  FP8 checkpoint on NVIDIA Ampere or newer, which Marlin runs weight-only (the table's Marlin row). FP8 mixture-of-
  experts checkpoints are left out there: vLLM's maintainers (Red Hat AI on huggingface.co
  neuralmagic/DeepSeek-Coder-V2-Instruct-FP8 discussion 1) say FP8 MoE runs only on SM 8.9+.
* Marlin and MXFP4 on NVIDIA need Ampere (SM 8.0) or newer: an NVIDIA part launched on or after the A100
  (``device.pre_ampere``'s date rule); an unknown launch date is undecided and gets none.
* BF16 runs on every CUDA and ROCm GPU vLLM supports (it casts to FP16 where BF16 is missing).
* NVIDIA's quantized checkpoints are made with its TensorRT Model Optimizer (their model cards, e.g.
  huggingface.co/nvidia/Llama-3.1-405B-Instruct-FP8: "quantized with TensorRT Model Optimizer", supported hardware
  NVIDIA Blackwell, Hopper, Lovelace), whose format (quant_method "modelopt") vLLM's ROCm platform does not list
  (vllm/platforms/rocm.py, ``supported_quantization``): AMD pages never load them.
Anything else (NVFP4, formats not listed here, Metal, Vulkan, SYCL) is not printed.
"""

from __future__ import annotations

from .device import DeviceSpec

SOURCE_URL = "https://docs.vllm.ai/en/latest/features/quantization/supported_hardware.html"
GPU_SOURCE_URL = "https://docs.vllm.ai/en/v0.31.0/getting_started/installation/gpu/"
READ = "2026-12-01"
# Catalogued AMD GPUs of the LLVM targets vLLM's ROCm build lists (gfx90a, gfx942, gfx950, gfx1100/1101,
# gfx1200/1201, gfx1151); RX 6800 XT / 6900 XT (gfx1030) are not among them.
VLLM_ROCM = ("mi210", "mi250x", "mi300x", "mi325x", "mi355x", "radeon-pro-w7900", "rx-7800-xt", "rx-7900-gre",
             "rx-7900-xt", "rx-7900-xtx", "radeon-ai-pro-r9700", "ryzen-ai-max-395-128gb", "rx-9070-xt", "rx-9070",
             "rx-9060-xt-16gb")
# AMD parts the gpt-oss recipe names for MXFP4 (catalogue ids).
MXFP4_AMD = ("mi300x", "mi325x", "mi355x", "radeon-ai-pro-r9700")
VLLM_BACKENDS = ("cuda", "rocm")
MODELOPT_ORGS = ("nvidia",)  # Hugging Face organisations whose quantized checkpoints are Model Optimizer ones


def runs_on(device: DeviceSpec) -> bool:
    """Whether current vLLM (and SGLang) run on the GPU at all: CUDA at compute capability 7.5+, the ROCm list."""
    if device.backend == "cuda":
        return not device.pre_turing
    return device.backend == "rocm" and device.id in VLLM_ROCM


def runs_format(quant: str, device: DeviceSpec, moe: bool) -> bool:
    """Whether vLLM's kernels load a ``quant`` checkpoint (BF16, FP8, MXFP4, AWQ-INT4) of a model (``moe``: a
    mixture of experts) on ``device`` (see above)."""
    if not runs_on(device):
        return False
    if quant == "BF16":
        return True
    if quant == "FP8":
        return device.fp8_flops is not None or (device.backend == "cuda" and device.ampere_or_newer and not moe)
    if quant == "MXFP4":
        return device.ampere_or_newer if device.backend == "cuda" else device.id in MXFP4_AMD
    if quant == "AWQ-INT4":
        return device.backend == "cuda" and device.ampere_or_newer
    return False


def loads_checkpoint(repo: str, quant: str, backend: str) -> bool:
    """Whether vLLM on ``backend`` loads this repository's quantization method (see above: not NVIDIA's Model
    Optimizer checkpoints on ROCm); the format itself is ``runs_format``'s question."""
    return backend != "rocm" or quant == "BF16" or repo.split("/")[0] not in MODELOPT_ORGS


def split_by_support(candidates: list[tuple[str, str]], device: DeviceSpec, moe: bool
                     ) -> tuple[list[tuple[str, str]], tuple[str, ...]]:
    """(repo, quant) checkpoints vLLM runs on ``device``, in order, and the formats of those its documentation rules
    out there (not those the catalogue leaves undecided)."""
    runnable = [c for c in candidates if runs_format(c[1], device, moe) and loads_checkpoint(*c, device.backend)]
    skipped = tuple(dict.fromkeys(q for _, q in candidates
                                  if not runs_format(q, device, moe) and not _undecided(q, device)))
    return runnable, skipped


def _undecided(quant: str, device: DeviceSpec) -> bool:
    """A format left out only because the catalogue lacks the fact that decides it (an FP8 rate on an NVIDIA part of
    Ampere or newer, which may be Ada or Blackwell): vLLM's documentation does not rule it out, so pages must not
    say it does."""
    return quant == "FP8" and device.backend == "cuda" and device.ampere_or_newer and device.fp8_flops is None
