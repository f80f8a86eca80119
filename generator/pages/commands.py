"""Launch commands for llama.cpp, vLLM and Ollama that match the numbers shown on a page."""

from __future__ import annotations

from dataclasses import dataclass

from ..catalog.schema import Gpu, Model
from ..estimate.api import Estimate
from ..estimate.serving_setup import ServingPlan

LLAMA_KV_FLAGS = {"f16": "", "q8_0": " --cache-type-k q8_0 --cache-type-v q8_0", "q4_0": " --cache-type-k q4_0 --cache-type-v q4_0"}
VLLM_KV_FLAGS = {"f16": "", "q8_0": " --kv-cache-dtype fp8", "q4_0": " --kv-cache-dtype fp8"}
VLLM_QUANTS = {"BF16", "F16", "FP8", "AWQ-INT4", "NVFP4", "MXFP4_MOE"}


@dataclass(frozen=True)
class Command:
    """One engine's command line, with the engine label and an optional remark key."""

    engine: str
    text: str
    remark: str | None = None


def gguf_reference(model: Model, quant: str) -> str | None:
    """``repo:QUANT`` of a catalogued GGUF repository that publishes this quant."""
    for repo in model.gguf:
        if any(f.quant == quant for f in repo.files):
            return f"{repo.repo}:{quant}"
    return None


def llama_cpp(model: Model, quant: str, estimate: Estimate, context_tokens: int, kv_type: str) -> Command:
    """``llama-server`` with context, KV type, flash attention and the offload flags the estimate implies."""
    reference = gguf_reference(model, quant)
    source = f"-hf {reference}" if reference else f"-m {model.id}-{quant}.gguf"
    offload = estimate.offload
    if offload is None:
        layers = "-ngl 999"
    elif getattr(offload, "cpu_moe_layers", 0):
        layers = f"-ngl 999 --n-cpu-moe {offload.cpu_moe_layers}"
    else:
        layers = f"-ngl {offload.gpu_layers}"
    text = (f"llama-server {source} \\\n  --ctx-size {context_tokens} {layers} --flash-attn on"
            f"{LLAMA_KV_FLAGS.get(kv_type, '')} \\\n  --host 127.0.0.1 --port 8080")
    return Command("llama.cpp", text, None if reference else "no_gguf_repo")


def vllm(model: Model, gpu: Gpu, gpu_count: int, context_tokens: int, kv_type: str, utilisation: float) -> Command | None:
    """``vllm serve`` with max length, memory utilisation, tensor parallel size and KV dtype; None on Apple GPUs."""
    if "cuda" not in gpu.backends and "rocm" not in gpu.backends:
        return None
    tp = f" --tensor-parallel-size {gpu_count}" if gpu_count > 1 else ""
    text = (f"vllm serve {model.hf_repo} \\\n  --max-model-len {context_tokens} --gpu-memory-utilization {utilisation:.2f}"
            f"{tp}{VLLM_KV_FLAGS.get(kv_type, '')}")
    return Command("vLLM (ROCm)" if "cuda" not in gpu.backends else "vLLM", text)


def ollama(model: Model, quant: str, context_tokens: int) -> Command | None:
    """``ollama run`` of a catalogued tag with the page's context length; None without a tag."""
    tags = [t for t in model.ollama if t.quant in (None, quant)] or list(model.ollama)
    if not tags:
        return None
    return Command("Ollama", f"OLLAMA_CONTEXT_LENGTH={context_tokens} ollama serve &\nollama run {tags[0].tag}",
                   None if tags[0].quant == quant else "ollama_other_quant")


def vllm_serving(model: Model, gpu: Gpu, plan: ServingPlan, utilisation: float) -> Command | None:
    """``vllm serve`` at the serving plan's operating point: precision, tensor parallel size, request length,
    concurrent requests and KV dtype, so the command serves what the page's serving numbers describe."""
    if "cuda" not in gpu.backends and "rocm" not in gpu.backends:
        return None
    seqs = plan.operating.concurrency if plan.operating else plan.max_concurrency
    quantize = " --quantization fp8" if plan.precision == "FP8" and model_native(model) != "fp8" else ""
    kv = " --kv-cache-dtype fp8" if plan.kv_type == "fp8" else ""
    text = (f"vllm serve {model.hf_repo} \\\n  --tensor-parallel-size {plan.tensor_parallel}"
            f" --max-model-len {plan.prompt_tokens + plan.output_tokens} --max-num-seqs {seqs}{quantize}{kv}"
            f" \\\n  --gpu-memory-utilization {utilisation:.2f}")
    return Command("vLLM (ROCm)" if "cuda" not in gpu.backends else "vLLM", text, "serving")


def model_native(model: Model) -> str:
    """The checkpoint's own weight format (fp8, mxfp4 or bf16) as its config.json declares it."""
    method = str((model.config.get("quantization_config") or {}).get("quant_method", "")).lower()
    return method if method in ("mxfp4", "fp8") else "bf16"
