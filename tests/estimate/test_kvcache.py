"""KV cache and recurrent state, byte for byte as each engine allocates it."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from generator.estimate.kvcache import kv_cache_bytes, kv_layout, kvcache_bytes_per_1k
from tests.estimate.fixtures import (ALL, DEEPSEEK_V3, GPT_OSS_20B, LLAMA4_SCOUT, LLAMA_8B, QWEN35_35B, QWEN3_30B,
                                     arch)


def test_gqa_llama_8b():
    per_token = 32 * 8 * 128 * 2 * 2  # layers × KV heads × head dim × (K, V) × f16
    assert per_token == 131_072
    assert kv_cache_bytes(kv_layout(arch(LLAMA_8B), "llama.cpp", "f16"), 8192) == per_token * 8192
    q8 = 32 * 2 * (1024 // 32 * 34)  # a 1024-element row of q8_0 is 32 blocks of 34 bytes
    assert kv_cache_bytes(kv_layout(arch(LLAMA_8B), "llama.cpp", "q8_0"), 8192) == q8 * 8192 == 570_425_344
    assert kv_cache_bytes(kv_layout(arch(LLAMA_8B), "llama.cpp", "f16"), 8000) == per_token * 8192  # padded to 256
    assert kv_cache_bytes(kv_layout(arch(LLAMA_8B), "vllm", "auto"), 8000) == per_token * 8000  # pages of 16


def test_mla_latent_is_v_less():
    per_token = 61 * (512 + 64) * 2  # layers × (kv_lora_rank + qk_rope_head_dim) × f16, no V
    for engine, kv in (("llama.cpp", "f16"), ("vllm", "auto")):
        assert kv_cache_bytes(kv_layout(arch(DEEPSEEK_V3), engine, kv), 4096) == per_token * 4096 == 287_834_112
    # tensor parallel replicates the latent on every rank
    assert kv_layout(arch(DEEPSEEK_V3), "vllm", "auto", tp=8).full_bytes_per_token == 8 * per_token


def test_sliding_window_gpt_oss_20b():
    per_layer = 8 * 64 * 2 * 2  # KV heads × head dim × (K, V) × f16 = 2048 bytes per token
    full, swa = 12 * per_layer, 12 * per_layer
    # llama.cpp: SWA layers hold min(n_ctx, pad(n_swa × n_seq + n_ubatch, 256)) = pad(128 + 512) = 768 cells
    assert kv_cache_bytes(kv_layout(arch(GPT_OSS_20B), "llama.cpp", "f16"), 8192) == full * 8192 + swa * 768
    # two sequences: pad(2 × 128 + 512, 256) = 768 cells still, full layers 16,384 cells
    assert kv_cache_bytes(kv_layout(arch(GPT_OSS_20B), "llama.cpp", "f16"), 8192, 2) == full * 16384 + swa * 768
    # vLLM: (ceil(min(128 − 1 + 8192, 8192) / 16) + 1) pages of 16 tokens per sequence
    assert kv_cache_bytes(kv_layout(arch(GPT_OSS_20B), "vllm", "auto"), 8192) == full * 8192 + swa * (8192 + 16)
    # at a long context the window layers stop growing: vLLM ceil((127 + 8192) / 16) + 1 = 521 pages
    assert kv_cache_bytes(kv_layout(arch(GPT_OSS_20B), "vllm", "auto"), 65536) == full * 65536 + swa * 521 * 16


def test_chunked_attention_llama4_scout():
    full = 12 * 8 * 128 * 2 * 2  # 12 global layers
    chunked = 36 * 8 * 128 * 2 * 2
    cells = 32768
    assert kv_cache_bytes(kv_layout(arch(LLAMA4_SCOUT), "llama.cpp", "f16"), cells) == full * cells + chunked * 8704


def test_hybrid_linear_attention_qwen35():
    attention = 10 * 2 * 256 * 2 * 2  # 10 full layers × 2 KV heads × 256 × (K, V) × f16 = 20,480 bytes per token
    conv = 3 * (2 * 16 * 128 + 32 * 128)  # (kernel − 1) × (q, k channels + v channels)
    state = 32 * 128 * 128  # value heads × key dim × value dim
    per_sequence = 30 * (conv + state) * 4  # 30 linear layers, F32 in llama.cpp
    assert per_sequence == 65_863_680
    got = kv_cache_bytes(kv_layout(arch(QWEN35_35B), "llama.cpp", "f16"), 8192, 2)
    assert got == attention * 16384 + 2 * per_sequence


def test_moe_qwen3_30b_and_per_1k_helper():
    per_token = 48 * 4 * 128 * 2 * 2
    assert kv_cache_bytes(kv_layout(arch(QWEN3_30B), "llama.cpp", "f16"), 4096) == per_token * 4096
    assert kvcache_bytes_per_1k(arch(QWEN3_30B)) == per_token * 1024


def test_kv_types_belong_to_engines():
    with pytest.raises(ValueError):
        kv_layout(arch(LLAMA_8B), "llama.cpp", "fp8")
    with pytest.raises(ValueError):
        kv_layout(arch(LLAMA_8B), "vllm", "q4_0")


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(ALL), st.sampled_from(["llama.cpp", "vllm"]), st.integers(1, 300_000), st.integers(0, 50_000),
       st.integers(1, 8), st.integers(0, 7))
def test_more_context_or_sequences_never_need_less(name, engine, ctx, extra, seqs, more):
    layout = kv_layout(arch(name), engine, "f16" if engine == "llama.cpp" else "auto")
    base = kv_cache_bytes(layout, ctx, seqs)
    assert kv_cache_bytes(layout, ctx + extra, seqs) >= base
    assert kv_cache_bytes(layout, ctx, seqs + more) >= base


@settings(max_examples=30, deadline=None)
@given(st.sampled_from(ALL), st.integers(1, 200_000))
def test_more_kv_bits_never_need_less(name, ctx):
    sizes = [kv_cache_bytes(kv_layout(arch(name), "llama.cpp", t), ctx) for t in ("q4_0", "q8_0", "f16", "f32")]
    assert sizes == sorted(sizes)


def test_dsa_indexer_keys_are_cached_by_vllm_only():
    glm5 = arch("zai-org--GLM-5")
    latent = 78 * (512 + 64) * 2  # 78 layers of the bf16 MLA latent
    assert kv_layout(glm5, "llama.cpp", "f16").full_bytes_per_token == latent
    assert kv_layout(glm5, "vllm", "auto").full_bytes_per_token == latent + 78 * (128 + 4)  # fp8 key + fp32 scale
