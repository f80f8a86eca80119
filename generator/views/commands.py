"""Launch commands for llama.cpp, Ollama, MLX, vLLM and SGLang that match the numbers shown on a page.

Each command names only published weights from the catalogue (a GGUF repository that has the quant, an Ollama
library tag, an MLX repository, a Hugging Face checkpoint), the chat release where the catalogue's repository is a
base model, and only engines a source shows running the architecture (``estimate.engines``). Without a published
file the llama.cpp command builds one from the original checkpoint with llama.cpp's converter and quantizer, at a
quant that needs no importance matrix (the recommendation never picks one to build).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..catalog.schema import Gpu, Model
from ..estimate import engines, vllm_support
from ..estimate.estimator import Estimate, native_format
from ..estimate.quant import quant_info
from ..estimate.serving_setup import ServingPlan
from ..sitedata import VllmSetup

LLAMA_KV_FLAGS = {"f16": "", "q8_0": " --cache-type-k q8_0 --cache-type-v q8_0",
                  "q4_0": " --cache-type-k q4_0 --cache-type-v q4_0"}
VLLM_KV_FLAGS = {"f16": "", "q8_0": " --kv-cache-dtype fp8", "q4_0": " --kv-cache-dtype fp8"}
OLLAMA_KV = {"f16": "", "q8_0": "OLLAMA_KV_CACHE_TYPE=q8_0 ", "q4_0": "OLLAMA_KV_CACHE_TYPE=q4_0 "}
SPLIT = re.compile(r"-\d{5}-of-\d{5}")  # a split GGUF file's part name
LOGIN = "hf auth login\n"  # a gated repository: log in (after accepting the licence on its model page)


@dataclass(frozen=True)
class Command:
    """One engine's command line, with the engine label and an optional remark key (``text`` empty: none runs)."""

    engine: str
    text: str
    remark: str | None = None
    serves: str | None = None  # the quant the command loads, where it is not the page's (or not recorded)
    size_bytes: int | None = None  # the published size of what it loads, where catalogued
    skipped: tuple[str, ...] = ()  # checkpoint formats left out because vLLM's kernels do not run them on this GPU
    gated: bool = False  # downloads a gated repository: the page says to accept its licence and log in


def chat_repo(model: Model) -> str:
    """The repository chat commands serve: the chat release where the catalogue's repository is a base model."""
    return model.chat_repo or model.hf_repo


def served_repo(model: Model, repo: str) -> str:
    """``repo``, or the chat release in place of the model's own base repository."""
    return chat_repo(model) if repo == model.hf_repo else repo


def serving_checkpoint(model: Model, precision: str, backend: str = "cuda") -> tuple[str, bool]:
    """(the repository a serving command loads, whether it quantizes to FP8 on load): where the plan serves FP8, the
    chat release's own FP8 release (``<chat repo>-FP8``), else another catalogued FP8 checkpoint vLLM loads on
    ``backend`` (NVIDIA's, Red Hat's: no 16-bit download, and it loads where the 16-bit weights would not fit), else
    the chat release quantized on load; at other precisions the chat release itself."""
    repo = chat_repo(model)
    if precision != "FP8" or native_format(model.config) == "fp8":
        return repo, False
    released = [c.repo for c in model.checkpoints
                if c.quant == "FP8" and vllm_support.loads_checkpoint(c.repo, c.quant, backend)]
    if released:
        return (f"{repo}-FP8" if f"{repo}-FP8" in released else released[0]), False
    return repo, True


def is_gated(model: Model, repo: str) -> bool:
    """Whether downloading ``repo`` needs a login: a gated model's repositories under its own organisation."""
    return bool(model.gated) and repo.split("/")[0] in {model.hf_repo.split("/")[0], chat_repo(model).split("/")[0]}


def runs_on(model: Model, engine: engines.Engine) -> bool:
    """Whether a source shows ``engine`` running the model's architecture (llama.cpp: or a GGUF is published)."""
    if engine == "llama.cpp" and model.gguf:
        return True
    return engines.runs(engines.architecture(model.config), engine)


# Hugging Face resolves ``repo:TAG`` (llama.cpp's -hf, Ollama's hf.co/) by the quant label in a GGUF file's name;
# llama.cpp's MXFP4_MOE files (gpt-oss) are named "mxfp4", so that is their label.
HF_TAGS = {"MXFP4_MOE": "MXFP4"}


def hf_tag(quant: str) -> str:
    """The tag Hugging Face gives a GGUF file of this quant."""
    return HF_TAGS.get(quant, quant)


def gguf_reference(model: Model, quant: str) -> str | None:
    """``repo:TAG`` of a catalogued GGUF repository that publishes this quant."""
    for repo in model.gguf:
        if any(f.quant == quant for f in repo.files):
            return f"{repo.repo}:{hf_tag(quant)}"
    return None


def _layers(estimate: Estimate) -> str:
    """``-ngl`` and, for an offloaded mixture of experts, ``--n-cpu-moe`` from the estimate's memory split."""
    offload = estimate.offload
    if offload is None:
        return "-ngl 999"
    layers = "-ngl 999" if offload.gpu_layers >= offload.n_layers else f"-ngl {offload.gpu_layers}"
    return f"{layers} --n-cpu-moe {offload.cpu_moe_layers}" if offload.cpu_moe_layers else layers


def _build_steps(model: Model, quant: str) -> str:
    """Download the chat checkpoint, convert it to a BF16 GGUF and quantize it with llama.cpp's tools (a quant
    that needs no importance matrix: the recommendation builds no other)."""
    repo = chat_repo(model)
    name = repo.split("/")[1]
    return (f"{LOGIN if is_gated(model, repo) else ''}hf download {repo} --local-dir {name}\n"
            f"python convert_hf_to_gguf.py {name} --outtype bf16 --outfile {name}-BF16.gguf\n"
            f"llama-quantize {name}-BF16.gguf {name}-{quant}.gguf {quant}\n")


def llama_cpp(model: Model, quant: str, estimate: Estimate, context_tokens: int, kv_type: str) -> Command:
    """``llama-server`` with context, KV type, flash attention and the offload flags the estimate implies."""
    reference = gguf_reference(model, quant)
    if reference:
        login = LOGIN if is_gated(model, reference.split(":")[0]) else ""
        prefix, source = login, f"-hf {reference}"
    else:
        prefix, source = _build_steps(model, quant), f"-m {chat_repo(model).split('/')[1]}-{quant}.gguf"
    text = (f"{prefix}llama-server {source} \\\n  -c {context_tokens} {_layers(estimate)} -fa on"
            f"{LLAMA_KV_FLAGS.get(kv_type, '')} \\\n  --host 127.0.0.1 --port 8080")
    return Command("llama.cpp", text, None if reference else "built", gated=prefix.startswith(LOGIN))


def mlx(model: Model, gpu: Gpu, quant: str, file_bytes: int) -> Command | None:
    """``mlx_lm.server`` on Apple silicon with the catalogued MLX repository of the most bits at or below the
    page's quant's (and no larger than its file, where the size is known); None elsewhere or without one."""
    if "metal" not in gpu.backends:
        return None
    bits = quant_info(quant).nominal_bits
    fitting = [r for r in model.mlx if r.bits <= bits and (r.size_bytes is None or r.size_bytes <= file_bytes)]
    if not fitting:
        return None
    repo = max(fitting, key=lambda r: (r.bits, r.repo))
    text = f"pip install mlx-lm\nmlx_lm.server --model {repo.repo} --host 127.0.0.1 --port 8080"
    return Command("MLX", text, "mlx", f"{repo.bits}-bit", repo.size_bytes)


def unsupported(engine: str, arch: str) -> Command:
    """No command: no source we read shows this engine running the architecture (the page says so)."""
    return Command(engine, "", "unsupported", arch)


def vllm(model: Model, setup: VllmSetup | None, gpu: Gpu, context_tokens: int, kv_type: str, utilisation: float,
         skipped: tuple[str, ...] = (), runnable: bool = True) -> Command | None:
    """``vllm serve`` of a checkpoint that fits, with max length, memory utilisation, tensor parallel size and KV
    dtype; an empty command with a remark when no catalogued checkpoint fits even eight GPUs; None on Apple GPUs.
    ``skipped``: formats left out because vLLM does not run them on this GPU (the page says so); ``runnable``: some
    catalogued checkpoint is in a format vLLM runs here (else only the skipped formats are the reason)."""
    if "cuda" not in gpu.backends and "rocm" not in gpu.backends:
        return None
    engine = "vLLM (ROCm)" if "cuda" not in gpu.backends else "vLLM"
    if setup is None:
        return Command(engine, "", "vllm_none_fits" if runnable else None, skipped=skipped)
    tp = f" --tensor-parallel-size {setup.gpu_count}" if setup.gpu_count > 1 else ""
    repo = served_repo(model, setup.repo)
    login = LOGIN if is_gated(model, repo) else ""
    text = (f"{login}vllm serve {repo} \\\n  --max-model-len {context_tokens} --gpu-memory-utilization {utilisation:.2f}"
            f"{tp}{VLLM_KV_FLAGS.get(kv_type, '')}")
    return Command(engine, text, "vllm_multi_gpu" if setup.gpu_count > 1 else None, skipped=skipped, gated=bool(login))


def ollama(model: Model, quant: str, file_bytes: int, context_tokens: int, kv_type: str) -> Command | None:
    """``ollama run`` of a library tag with this quant (one whose name states it first: a bare tag such as
    ``qwen3:235b`` can be moved to other weights), else of a catalogued single-file GGUF with it (Ollama pulls
    ``hf.co/<repo>:<quant>``; it cannot pull split files), else of the largest published single file no larger than
    this quant's (another quantization, said so), else of the best library tag no larger (``_no_larger``, said so);
    else a note that nothing Ollama pulls is that small, where the model has tags or single files at all and each of
    those files has a recorded size (one without could be smaller: then no command and no note)."""
    env = f"OLLAMA_CONTEXT_LENGTH={context_tokens} OLLAMA_FLASH_ATTENTION=1 {OLLAMA_KV.get(kv_type, '')}"
    same = [t for t in model.ollama if t.quant == quant or {t.quant, quant} == {"MXFP4", "MXFP4_MOE"}]
    if same:
        tag = min(same, key=lambda t: not _names_quant(t.tag, quant))
        return Command("Ollama", f"{env}ollama serve &\nollama run {tag.tag}", serves=quant)
    # a recorded single file only: a quant recorded without its file name may be split
    files = [(f.size_bytes, repo.repo, f.quant) for repo in model.gguf for f in repo.files
             if f.file and not SPLIT.search(f.file)]
    same_files = [f for f in files if f[2] == quant]
    smaller = sorted((f for f in files if f[0] is not None and f[0] <= file_bytes), key=lambda f: (f[0], f[1], f[2]))
    if same_files or smaller:
        size, repo, served = (same_files or smaller)[-1]
        return Command("Ollama", f"{env}ollama serve &\nollama run hf.co/{repo}:{hf_tag(served)}",
                       None if served == quant else "ollama_smaller_quant", served, size)
    fitting = [t for t in model.ollama if _no_larger(t.quant, t.size_bytes, quant, file_bytes)]
    if fitting:
        tag = max(fitting, key=lambda t: (quant_info(t.quant).nominal_bits if t.quant else 0.0,
                                          _names_quant(t.tag, t.quant)))
        return Command("Ollama", f"{env}ollama serve &\nollama run {tag.tag}",
                       "ollama_other_quant" if tag.quant else "ollama_quant_unknown", tag.quant, tag.size_bytes)
    known = all(f[0] is not None for f in files)
    return Command("Ollama", "", "ollama_none") if (model.ollama or files) and known else None


def _names_quant(tag: str, quant: str | None) -> bool:
    """Whether an Ollama tag's name states its quantization (``qwen3:14b-q4_K_M``; F16 is written ``fp16``)."""
    name = tag.split(":", 1)[1].lower()
    return quant is not None and (quant.lower() in name or (quant == "F16" and "fp16" in name))


def _no_larger(tag_quant: str | None, tag_bytes: int | None, quant: str, file_bytes: int) -> bool:
    """Whether a library tag is no larger than the page's file: by its recorded size, else by its quantization's
    bits per weight; a tag with neither recorded passes (its command says the quant is not recorded)."""
    if tag_bytes is not None:
        return tag_bytes <= file_bytes
    if tag_quant is not None:
        return quant_info(tag_quant).nominal_bits <= quant_info(quant).nominal_bits
    return True


def vllm_serving(model: Model, gpu: Gpu, plan: ServingPlan, context_tokens: int, utilisation: float) -> Command | None:
    """``vllm serve`` at the serving plan's operating point (precision, tensor parallel size, concurrent requests,
    KV dtype), so the command serves what the page's serving numbers describe, accepting requests up to the page's
    context (``context_tokens``: the view checks that the plan's KV cache holds one such request, as vLLM does
    before it starts)."""
    if "cuda" not in gpu.backends and "rocm" not in gpu.backends:
        return None
    seqs = plan.operating.concurrency if plan.operating else plan.max_concurrency
    repo, on_load = serving_checkpoint(model, plan.precision, gpu.backends[0])  # the plan's backend (device_spec)
    quantize = " --quantization fp8" if on_load else ""
    kv = " --kv-cache-dtype fp8" if plan.kv_type == "fp8" else ""
    login = LOGIN if is_gated(model, repo) else ""
    text = (f"{login}vllm serve {repo} \\\n  --tensor-parallel-size {plan.tensor_parallel}"
            f" --max-model-len {context_tokens} --max-num-seqs {seqs}{quantize}{kv}"
            f" \\\n  --gpu-memory-utilization {utilisation:.2f}")
    return Command("vLLM (ROCm)" if "cuda" not in gpu.backends else "vLLM", text, "serving", gated=bool(login))


SGLANG_FP8_KV = "fp8_e5m2"  # SGLang's FP8 KV dtypes are fp8_e5m2 and fp8_e4m3; e5m2 needs no KV scaling factors


def sglang_serving(model: Model, gpu: Gpu, plan: ServingPlan, context_tokens: int) -> Command | None:
    """``sglang.launch_server`` with the checkpoint, precision, tensor parallel size, request length, concurrent
    requests and KV size of the serving plan's operating point, up to the page's context (flags as sgl-project/sglang
    ``server_args.py`` names them: ``--tp-size``, ``--context-length``, ``--max-running-requests``)."""
    if "cuda" not in gpu.backends and "rocm" not in gpu.backends:
        return None
    seqs = plan.operating.concurrency if plan.operating else plan.max_concurrency
    repo, on_load = serving_checkpoint(model, plan.precision, gpu.backends[0])  # the plan's backend (device_spec)
    quantize = " --quantization fp8" if on_load else ""
    kv = f" --kv-cache-dtype {SGLANG_FP8_KV}" if plan.kv_type == "fp8" else ""
    login = LOGIN if is_gated(model, repo) else ""
    text = (f"{login}python -m sglang.launch_server --model-path {repo} \\\n  --tp-size {plan.tensor_parallel}"
            f" --context-length {context_tokens} --max-running-requests {seqs}{quantize}{kv}")
    return Command("SGLang (ROCm)" if "cuda" not in gpu.backends else "SGLang", text, "sglang_serving",
                   gated=bool(login))
