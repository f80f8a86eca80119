"""Runtime overhead per engine: llama.cpp compute buffer and backend context, vLLM activation and reserves."""

from __future__ import annotations

from generator.estimate.runtime import GIB, MIB, ffn_width, overhead
from tests.estimate.fixtures import LLAMA_8B, QWEN3_30B, arch


def test_llama_cpp_llama_8b():
    logits = 4 * 512 * (4096 + 128256)  # f32 logits of one 512-token micro-batch: 258 MiB
    assert logits > 4 * 512 * (4096 + 3 * 14336)  # FFN intermediates are smaller
    o = overhead(arch(LLAMA_8B), "llama.cpp", "cuda")
    assert o.fixed_bytes == logits + 457 * MIB and o.per_cell_bytes == 2 * 512  # f16 KQ mask per cell
    assert o.bytes_at(8192) == logits + 457 * MIB + 1024 * 8192
    assert overhead(arch(LLAMA_8B), "llama.cpp", "metal").fixed_bytes == logits + 512 * MIB


def test_layer_split_pays_context_and_intermediates_per_gpu():
    one = overhead(arch(LLAMA_8B), "llama.cpp", "cuda")
    two = overhead(arch(LLAMA_8B), "llama.cpp", "cuda", gpu_count=2)
    assert two.fixed_bytes - one.fixed_bytes == 457 * MIB + 4 * 512 * (4096 + 3 * 14336)


def test_vllm_llama_8b():
    activation = 8192 * 2 * (2 * 14336 + 6 * 4096) + 256 * 128256 * 4  # batched tokens + sampler logits
    o = overhead(arch(LLAMA_8B), "vllm", "cuda")
    assert o.fixed_bytes == activation + int(0.35 * GIB) + int(0.5 * GIB)
    assert o.budget_fraction == 0.9 and o.per_cell_bytes == 0


def test_moe_ffn_width_is_top_k_experts():
    assert ffn_width(arch(QWEN3_30B)) == 8 * 768
    assert ffn_width(arch(LLAMA_8B)) == 14336
