"""Runtime memory beyond weights and KV cache, per engine.

llama.cpp (and Ollama, which runs llama.cpp): flash attention on, n_ubatch 512.
* Compute buffer: the larger of the logits (``4·ubatch·(hidden + vocab)`` bytes, the term Ollama's
  ``GraphSize`` uses for llama.cpp's output graph: Llama-3-8B → 258.5 MiB) and the FFN/MoE intermediates
  (``4·ubatch·(hidden + 3·ffn)``, ffn = dense width or top-k × expert width + shared), plus the f16 KQ mask,
  ``2·ubatch·cells`` bytes, which grows with the context. Intermediates and mask on every GPU of a layer split.
* Backend context per GPU: 457 MiB on CUDA/ROCm and other backends, 512 MiB on Metal (Ollama ``ml/device.go``
  ``MinimumMemory``, its measured allowance for the driver context).
vLLM:
* Budget = ``gpu_memory_utilization`` (0.9) × total memory; the rest stays unused.
* Peak activation of the profiling run: ``max_num_batched_tokens × 2·(2·ffn + 6·hidden)`` bytes (bf16) +
  sampler logits ``max_num_seqs (256) × vocab × 4``: fitted to vLLM issue #10517 (Llama-3.1-8B on an RTX 3090:
  torch peak 17.06 GiB at 20k and 17.98 GiB at 29k batched tokens over 14.99 GiB of weights).
* Non-torch memory (CUDA context, NCCL) 0.35 GiB per GPU (issue #10517, consumer GPU; datacenter boards show less)
  and CUDA graphs 0.5 GiB per GPU (0.36–0.65 GiB in vLLM's logs).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

from .architecture import Architecture
from .kvcache import LLAMA_CPP_UBATCH, VLLM_MAX_BATCHED_TOKENS

MIB = 2**20
GIB = 2**30
CONTEXT_RESERVE_BYTES = {"metal": 512 * MIB}
DEFAULT_CONTEXT_RESERVE_BYTES = 457 * MIB
VLLM_GPU_MEMORY_UTILIZATION = 0.9
VLLM_MAX_NUM_SEQS = 256
VLLM_NON_TORCH_BYTES = int(0.35 * GIB)
VLLM_CUDA_GRAPH_BYTES = int(0.5 * GIB)


@dataclass(frozen=True)
class Overhead:
    """Runtime memory that does not depend on the context (``fixed_bytes``) and what grows per KV cell."""

    fixed_bytes: int
    per_cell_bytes: int  # llama.cpp KQ mask, per cell of the KV pool (0 for vLLM)
    budget_fraction: float  # share of the usable memory the engine may fill (vLLM's utilisation; 1 otherwise)
    assumptions: tuple[tuple[str, str], ...]

    def bytes_at(self, cells: int) -> int:
        """Overhead with a KV pool of ``cells`` cells."""
        return self.fixed_bytes + self.per_cell_bytes * cells


@cache  # a walk over every tensor, wanted by every (quant, engine, backend) preparation
def ffn_width(arch: Architecture) -> int:
    """Widest per-token feed-forward intermediate: dense width or top-k experts plus shared experts."""
    widths = [0]
    for t in arch.tensors:
        if t.layer < 0 or arch.layers[t.layer].mtp:
            continue
        if t.role == "ffn" and "ffn_up" in t.name:
            widths.append(t.ne[1])
    expert = next((t.ne[1] for t in arch.tensors if t.role == "expert" and "ffn_up_exps" in t.name), 0)
    shared = next((t.ne[1] for t in arch.tensors if t.role == "shared" and "ffn_up_shexp" in t.name), 0)
    return max(max(widths), arch.experts_per_token * expert + shared)


def context_reserve_bytes(backend: str) -> int:
    """Driver/runtime context a backend takes on each GPU."""
    return CONTEXT_RESERVE_BYTES.get(backend, DEFAULT_CONTEXT_RESERVE_BYTES)


def llama_cpp_overhead(arch: Architecture, backend: str, gpu_count: int = 1) -> Overhead:
    """Compute buffer and backend context of llama.cpp / Ollama with flash attention, n_ubatch 512."""
    ub, h = LLAMA_CPP_UBATCH, arch.hidden_size
    logits = 4 * ub * (h + arch.vocab_size)
    intermediates = 4 * ub * (h + 3 * ffn_width(arch))
    compute = max(logits, intermediates) + (gpu_count - 1) * intermediates
    reserve = context_reserve_bytes(backend) * gpu_count
    return Overhead(compute + reserve, 2 * ub * gpu_count, 1.0, (
        ("runtime.compute_buffer", f"{compute / MIB:.0f} MiB + KQ mask 2 B × {ub} × KV cells (flash attention, "
                                   f"n_ubatch {ub})"),
        ("runtime.context", f"{reserve / MIB:.0f} MiB backend context ({gpu_count} × "
                            f"{context_reserve_bytes(backend) / MIB:.0f} MiB, Ollama MinimumMemory)"),
    ))


def vllm_overhead(arch: Architecture, gpu_count: int = 1) -> Overhead:
    """Activation peak, non-torch memory and CUDA graphs of vLLM; its budget is 0.9 of the memory."""
    tokens = VLLM_MAX_BATCHED_TOKENS
    activation = tokens * 2 * (2 * ffn_width(arch) + 6 * arch.hidden_size) + VLLM_MAX_NUM_SEQS * arch.vocab_size * 4
    fixed = activation + (VLLM_NON_TORCH_BYTES + VLLM_CUDA_GRAPH_BYTES) * gpu_count
    return Overhead(fixed, 0, VLLM_GPU_MEMORY_UTILIZATION, (
        ("runtime.gpu_memory_utilization", f"{VLLM_GPU_MEMORY_UTILIZATION}"),
        ("runtime.activation_peak", f"{activation / GIB:.2f} GiB at max_num_batched_tokens {tokens}"),
        ("runtime.non_torch", f"{gpu_count} × {VLLM_NON_TORCH_BYTES / GIB:.2f} GiB"),
        ("runtime.cuda_graphs", f"{gpu_count} × {VLLM_CUDA_GRAPH_BYTES / GIB:.2f} GiB"),
    ))


def overhead(arch: Architecture, engine: str, backend: str, gpu_count: int = 1) -> Overhead:
    """Runtime overhead of ``engine`` on ``gpu_count`` GPUs of ``backend``."""
    if engine == "vllm":
        return vllm_overhead(arch, gpu_count)
    return llama_cpp_overhead(arch, backend, gpu_count)
