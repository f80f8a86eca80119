"""Stored weight bytes: hand-derived GGUF and checkpoint sizes, published sizes, monotonicity in bits."""

from __future__ import annotations

import statistics

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from generator.estimate.architecture import Tensor
from generator.estimate.weights import GGUF_METADATA_BYTES_PER_TOKEN, checkpoint_bytes, gguf_types, weights
from tests.estimate.fixtures import ALL, GPT_OSS_20B, LLAMA_8B, LLAMA_70B, QWEN3_30B, arch


def test_llama_8b_q4_k_m_by_hand():
    # Q4_K: 144 bytes per 256; Q6_K: 210 per 256; norms F32. use_more_bits marks 16 of 32 layers.
    token_embd = 128256 * (4096 // 256 * 144)  # base type Q4_K
    output = 128256 * (4096 // 256 * 210)  # Q6_K
    layer = (2 * 4096 * (4096 // 256 * 144)  # attn_q, attn_output: 4096 rows of Q4_K
             + 2 * 1024 * (4096 // 256 * 144)  # attn_k, attn_v: 1024 rows
             + 3 * 14336 * 2304 // 2304 * 2304  # ffn_gate, ffn_up (14336 rows) and ffn_down (4096 rows of 14336)
             + 2 * 4096 * 4)  # attn_norm, ffn_norm
    assert 14336 * 2304 == 4096 * (14336 // 256 * 144)  # ffn_down has the same Q4_K size as gate/up
    bump = 1024 * (3360 - 2304) + 4096 * (14336 // 256 * (210 - 144))  # attn_v and ffn_down to Q6_K
    expected = token_embd + output + 4096 * 4 + 32 * layer + 16 * bump + GGUF_METADATA_BYTES_PER_TOKEN * 128256
    assert weights(arch(LLAMA_8B), "Q4_K_M").file_bytes == expected == 4_918_541_312


def test_llama_8b_bf16_checkpoint_is_two_bytes_per_parameter():
    assert weights(arch(LLAMA_8B), "BF16").file_bytes == 2 * 8_030_261_248


@pytest.mark.parametrize("fmt, expected", [
    ("FP8", 4096 * 4096 + 32 * 32 * 4),  # one byte + fp32 scale per 128 × 128 block
    ("AWQ-INT4", 4096 * 4096 // 2 + 32 * 4096 * 5 // 2),  # 4 bits + (fp16 scale + 4-bit zero) per 128 inputs
    ("NVFP4", 4096 * 4096 // 2 + 4096 * 4096 // 16 + 8),  # 4 bits + fp8 scale per 16 + two fp32 scales
    ("BF16", 4096 * 4096 * 2),
])
def test_checkpoint_formats_per_tensor(fmt, expected):
    assert checkpoint_bytes(fmt, Tensor("blk.0.attn_q.weight", (4096, 4096), "attn", 0)) == expected


def test_embeddings_stay_bf16_in_quantised_checkpoints():
    embed = Tensor("token_embd.weight", (4096, 128256), "embed")
    assert checkpoint_bytes("AWQ-INT4", embed) == 2 * 4096 * 128256


def test_moe_recipe_uses_layer_index_from_name():
    types = dict((t.name, ty) for t, ty in gguf_types(arch(QWEN3_30B), "Q4_K_M"))
    assert types["blk.0.ffn_down_exps.weight"] == "Q6_K"  # 48 layers: first eighth
    assert types["blk.7.ffn_down_exps.weight"] == "Q4_K"  # (7 − 6) % 3 = 1
    assert types["blk.8.ffn_down_exps.weight"] == "Q6_K"  # (8 − 6) % 3 = 2
    assert types["blk.0.ffn_gate_inp.weight"] == "F32"


def test_gpt_oss_widths_fall_back_from_k_quants():
    types = dict((t.name, ty) for t, ty in gguf_types(arch(GPT_OSS_20B), "Q4_K_M"))
    assert types["blk.1.ffn_gate_exps.weight"] == "Q5_0"  # 2880 is not a multiple of 256
    mx = dict((t.name, ty) for t, ty in gguf_types(arch(GPT_OSS_20B), "MXFP4_MOE"))
    assert mx["blk.1.ffn_gate_exps.weight"] == "MXFP4" and mx["blk.1.attn_q.weight"] == "Q8_0"


def test_llama_70b_gets_the_70b_attn_v_rule():
    types = dict((t.name, ty) for t, ty in gguf_types(arch(LLAMA_70B), "Q3_K_S"))
    assert types["blk.40.attn_v.weight"] == "Q5_K"  # Q3_K bumped for 70B models


# Published sizes (GiB): llama.cpp tools/quantize/quantize.cpp QUANT_OPTIONS "@ Llama-3-8B" (commit 03161a4e) and
# the Llama-3-70B table in github.com/XiongjieDai/GPU-Benchmarks-on-LLM-Inference README (commit aa72e0ec).
PUBLISHED_GIB = [
    (LLAMA_8B, "Q4_0", 4.34), (LLAMA_8B, "Q2_K", 2.96), (LLAMA_8B, "Q3_K_M", 3.74), (LLAMA_8B, "Q4_K_M", 4.58),
    (LLAMA_8B, "Q5_K_M", 5.33), (LLAMA_8B, "Q6_K", 6.14), (LLAMA_8B, "Q8_0", 7.96), (LLAMA_8B, "F16", 14.96),
    (LLAMA_70B, "IQ1_S", 14.29), (LLAMA_70B, "IQ2_XXS", 17.79), (LLAMA_70B, "IQ2_M", 22.46),
    (LLAMA_70B, "Q2_K", 24.56), (LLAMA_70B, "IQ3_XS", 27.29), (LLAMA_70B, "IQ3_M", 29.74),
    (LLAMA_70B, "IQ4_XS", 35.30), (LLAMA_70B, "Q4_K_S", 37.58), (LLAMA_70B, "Q4_K_M", 39.60),
    (LLAMA_70B, "Q5_K_M", 46.52), (LLAMA_70B, "Q6_K", 53.91), (LLAMA_70B, "Q8_0", 69.83),
]


def test_file_sizes_match_published_llama_3_files():
    errors = [abs(weights(arch(name), quant).file_bytes / 2**30 / gib - 1) for name, quant, gib in PUBLISHED_GIB]
    assert max(errors) < 0.01 and statistics.median(errors) < 0.002


LADDER = ("IQ1_S", "IQ2_XXS", "Q2_K", "Q3_K_M", "IQ4_XS", "Q4_K_M", "Q5_K_M", "Q6_K", "Q8_0", "F16")
# Models whose every quantised row length is a multiple of 256: no shape fallback reorders the ladder.
BLOCK_ALIGNED = tuple(n for n in ALL if all(t.ne[0] % 256 == 0 for t, ty in gguf_types(arch(n), "Q4_K_M")
                                            if ty not in ("F32",)))


@settings(max_examples=30, deadline=None)
@given(st.sampled_from(BLOCK_ALIGNED), st.integers(0, len(LADDER) - 2))
def test_more_bits_never_smaller(name, i):
    a = arch(name)
    assert weights(a, LADDER[i]).file_bytes <= weights(a, LADDER[i + 1]).file_bytes


def test_shape_fallback_can_reorder_the_ladder():
    # Nemotron-3-Nano's hidden size 2688 is not a multiple of 256: Q3_K falls back to Q4_0 (4.5 bpw), and Q3_K_M's
    # Q4_K ffn_down to Q5_0 (5.5 bpw), while IQ4_XS falls back to IQ4_NL (4.5 bpw) — the file comes out larger.
    a = arch("nvidia--NVIDIA-Nemotron-3-Nano-30B-A3B-BF16")
    assert "nvidia--NVIDIA-Nemotron-3-Nano-30B-A3B-BF16" not in BLOCK_ALIGNED and len(BLOCK_ALIGNED) >= 8
    assert weights(a, "Q3_K_M").file_bytes > weights(a, "IQ4_XS").file_bytes
