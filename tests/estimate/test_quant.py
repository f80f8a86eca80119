"""ggml block types and llama.cpp's per-tensor recipe rules (src/llama-quant.cpp)."""

from __future__ import annotations

import pytest

from generator.estimate.quant import (
    GGML_TYPES,
    QUANTS,
    RecipeState,
    allows_quantization,
    category,
    fallback,
    gguf_type,
    quant_info,
    use_more_bits,
)


@pytest.mark.parametrize("name, bpw", [("Q8_0", 8.5), ("Q6_K", 6.5625), ("Q5_K", 5.5), ("Q4_K", 4.5),
                                       ("IQ4_XS", 4.25), ("MXFP4", 4.25), ("Q3_K", 3.4375), ("Q2_K", 2.625),
                                       ("IQ2_XXS", 2.0625), ("IQ1_S", 1.5625), ("F16", 16.0)])
def test_bits_per_weight_from_block_layouts(name, bpw):
    assert GGML_TYPES[name].bits_per_weight == bpw


def test_use_more_bits_picks_first_and_last_eighth_and_every_third():
    # n = 32: n/8 = 4 → layers 0-3, 28-31, and i with (i − 4) % 3 == 2 → 6, 9, ..., 27
    assert [i for i in range(32) if use_more_bits(i, 32)] == [0, 1, 2, 3, 6, 9, 12, 15, 18, 21, 24, 27, 28, 29, 30, 31]


@pytest.mark.parametrize("target, ne0, expected", [
    ("Q4_K", 2880, "Q5_0"), ("Q6_K", 2880, "Q8_0"), ("IQ2_XXS", 2880, "IQ4_NL"), ("Q2_K", 2880, "Q4_0"),
    ("Q5_K", 2880, "Q5_1"), ("Q4_K", 4096, "Q4_K"), ("Q4_K", 100, "F16"),
])
def test_shape_fallback(target, ne0, expected):
    assert fallback(target, ne0) == expected


def test_categories_match_by_substring():
    assert category("blk.3.ffn_down_exps.weight") == "ffn_down"
    assert category("blk.0.attn_qkv.weight") == "attn_qkv"
    assert category("blk.0.attn_k_b.weight") == "other"  # MLA's split kv_b is not attn_k
    assert category("token_embd.weight") == "token_embd" and category("output.weight") == "output"


def test_norms_routers_and_conv_kernels_stay_unquantised():
    assert not allows_quantization("blk.0.attn_norm.weight", (4096,))
    assert not allows_quantization("blk.0.ffn_gate_inp.weight", (2048, 128))
    assert not allows_quantization("blk.0.ssm_conv1d.weight", (4, 8192))
    assert allows_quantization("blk.0.ffn_up_exps.weight", (2048, 768, 128))


def _state(**kw):
    base = dict(n_attention_wv=32, n_layer_all=32, n_gqa=4, n_expert=0, is_70b=False, tied=False)
    return RecipeState(**{**base, **kw})


def test_q4_k_m_output_and_bumps():
    st = _state()
    assert gguf_type("Q4_K_M", "output.weight", (4096, 128256), -1, st) == "Q6_K"
    assert gguf_type("Q4_K_M", "blk.0.attn_v.weight", (4096, 1024), 0, st) == "Q6_K"  # i_attention_wv 0
    assert gguf_type("Q4_K_M", "blk.4.attn_v.weight", (4096, 1024), 4, st) == "Q6_K"  # counter is now 1
    assert gguf_type("Q4_K_M", "blk.0.ffn_down.weight", (14336, 4096), 0, st) == "Q6_K"
    assert gguf_type("Q4_K_M", "blk.0.ffn_up.weight", (4096, 14336), 0, st) == "Q4_K"


def test_eight_expert_and_iq_rules():
    mixtral = _state(n_expert=8)
    assert gguf_type("Q4_K_M", "blk.0.attn_k.weight", (4096, 1024), 0, mixtral) == "Q8_0"
    assert gguf_type("Q4_K_M", "blk.0.attn_v.weight", (4096, 1024), 0, mixtral) == "Q8_0"
    assert gguf_type("Q2_K", "blk.0.attn_output.weight", (4096, 4096), 0, mixtral) == "Q5_K"
    st = _state()
    assert gguf_type("IQ2_XXS", "output.weight", (4096, 128256), -1, st) == "Q5_K"
    assert gguf_type("IQ2_XXS", "token_embd.weight", (4096, 128256), -1, st) == "Q2_K"
    assert gguf_type("IQ1_S", "blk.0.attn_output.weight", (4096, 4096), 0, st) == "IQ2_XXS"


def test_mxfp4_moe_recipe():
    st = _state(n_expert=32)
    assert gguf_type("MXFP4_MOE", "blk.0.ffn_up_exps.weight", (2880, 2880, 32), 0, st) == "MXFP4"
    assert gguf_type("MXFP4_MOE", "blk.0.attn_q.weight", (2880, 4096), 0, st) == "Q8_0"
    assert gguf_type("MXFP4_MOE", "output.weight", (2880, 201088), -1, st) == "Q8_0"


def test_quant_metadata_lists_the_page_names():
    assert [q.name for q in QUANTS] == ["BF16", "F16", "FP8", "Q8_0", "Q6_K", "Q5_K_M", "Q4_K_M", "IQ4_XS", "Q3_K_M",
                                        "Q2_K", "IQ2_XXS", "IQ1_S", "MXFP4_MOE", "AWQ-INT4", "NVFP4"]
    assert quant_info("q4_k_m").family == "gguf" and quant_info("NVFP4").family == "vllm"
    with pytest.raises(KeyError):
        quant_info("Q7_K")
