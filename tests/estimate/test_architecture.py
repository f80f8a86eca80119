"""Architecture parsing: shapes per attention kind, parameter counts against hand arithmetic and published totals."""

from __future__ import annotations

import pytest

from generator.estimate.architecture import ConfigError, parse_hf_config
from tests.estimate.fixtures import (
    DEEPSEEK_V3,
    DEEPSEEK_V4_FLASH,
    DEEPSEEK_V4_PRO,
    GPT_OSS_20B,
    KIMI_LINEAR,
    LLAMA4_SCOUT,
    LLAMA_8B,
    MIMO_V2_FLASH,
    NEMOTRON_NANO,
    QWEN3_30B,
    QWEN35_35B,
    arch,
    config,
)


def test_llama_8b_gqa_shapes_and_exact_parameter_count():
    a = arch(LLAMA_8B)
    first = a.layers[0]
    assert (first.attention, first.n_heads, first.n_kv_heads, first.head_dim_k) == ("full", 32, 8, 128)  # 4096 / 32
    embed = 128256 * 4096 * 2  # token_embd + untied output
    layer = (4096 * 4096 * 2  # attn_q, attn_output
             + 4096 * 1024 * 2  # attn_k, attn_v (8 KV heads × 128)
             + 3 * 4096 * 14336  # ffn gate, up, down
             + 2 * 4096)  # attn_norm, ffn_norm
    assert a.total_params() == embed + 32 * layer + 4096 == 8_030_261_248


def test_qwen3_30b_moe_parameter_count_by_hand():
    a = arch(QWEN3_30B)
    assert {layer.ffn for layer in a.layers} == {"moe"} and (a.n_experts, a.experts_per_token) == (128, 8)
    attention = 2048 * 4096 * 2 + 2048 * 512 * 2 + 2 * 128  # q, o; k, v (4 × 128); q_norm, k_norm
    experts = 3 * 2048 * 768 * 128  # gate, up, down of 128 experts
    layer = attention + 2048 * 128 + experts + 2 * 2048  # + router + norms
    assert a.total_params() == 151936 * 2048 * 2 + 48 * layer + 2048 == 30_532_122_624
    routed = 48 * experts
    assert a.active_params() == a.total_params() - routed + routed * 8 // 128


def test_mla_latent_and_mtp_layer():
    a = arch(DEEPSEEK_V3)
    mla = a.layers[0]
    assert (mla.attention, mla.n_kv_heads, mla.head_dim_k, mla.head_dim_v) == ("mla", 1, 512 + 64, 0)
    assert len(a.layers) == 62 and a.layers[-1].mtp and a.n_layers == 61
    assert [layer.ffn for layer in a.layers[:4]] == ["dense", "dense", "dense", "moe"]  # first_k_dense_replace 3
    assert all(t.layer < 61 for t in a.gguf_tensors)  # the DeepSeek converter drops the MTP block
    assert abs(a.active_params() / 37e9 - 1) < 0.02  # "37B activated" (model card)


def test_gpt_oss_alternates_sliding_and_full_layers():
    a = arch(GPT_OSS_20B)
    kinds = [(layer.attention, layer.window) for layer in a.layers]
    assert kinds[:2] == [("sliding", 128), ("full", None)] and kinds.count(("sliding", 128)) == 12
    assert a.layers[0].head_dim_k == 64  # explicit head_dim, not 2880 / 64


def test_qwen35_nested_text_config_hybrid_layers():
    a = arch(QWEN35_35B)
    assert a.vocab_size == 248320 and not a.tied_embeddings
    kinds = [layer.attention for layer in a.main_layers]
    assert kinds.count("linear") == 30 and kinds.count("full") == 10 and kinds[3] == "full"
    linear = a.layers[0]
    assert linear.conv_state == 3 * (2 * 16 * 128 + 32 * 128)  # (kernel − 1) × conv channels
    assert linear.ssm_state == 32 * 128 * 128  # value heads × key dim × value dim


def test_llama4_chunked_and_nemotron_pattern():
    scout = arch(LLAMA4_SCOUT)
    kinds = [layer.attention for layer in scout.layers]
    assert kinds.count("chunked") == 36 and kinds[3] == "full" and scout.layers[0].window == 8192
    nano = arch(NEMOTRON_NANO)
    counts = {k: sum(1 for layer in nano.layers if layer.attention == k) for k in ("mamba", "full", "none")}
    assert counts == {"mamba": 23, "full": 6, "none": 23}


def test_mimo_v2_hybrid_sliding_pattern_and_parameter_count_by_hand():
    """MiMo-V2-Flash: ``hybrid_layer_pattern`` 1 = sliding window, 0 = full (vLLM mimo_v2_flash.py
    ``is_compressed_softmax_layer``); sliding layers take the ``swa_*`` shapes, V is 128 wide against K's 192."""
    a = arch(MIMO_V2_FLASH)
    full = [layer.index for layer in a.layers if layer.attention == "full"]
    assert full == [0, 5, 11, 17, 23, 29, 35, 41, 47]
    swa, ga = a.layers[1], a.layers[0]
    assert (swa.attention, swa.window, swa.n_kv_heads, swa.head_dim_k, swa.head_dim_v) == ("sliding", 128, 8, 192, 128)
    assert (ga.n_kv_heads, ga.head_dim_k, ga.head_dim_v) == (4, 192, 128)
    assert [layer.ffn for layer in a.layers[:2]] == ["dense", "moe"]  # moe_layer_freq is a per-layer list
    h = 4096
    q_o = h * 64 * 192 + 64 * 128 * h  # q (64 heads × 192), o (64 heads × 128 values)
    ga_layer = q_o + h * 4 * 192 + h * 4 * 128  # k, v of 4 KV heads
    swa_layer = q_o + h * 8 * 192 + h * 8 * 128 + 64  # k, v of 8 KV heads, one sink bias per head
    moe = 256 * 3 * h * 2048 + h * 256 + 256  # experts, router, e_score_correction_bias
    total = (2 * 152576 * h + 9 * ga_layer + 39 * swa_layer + 3 * h * 16384 + 47 * moe
             + 48 * 2 * h + h)  # + per-layer norms and the final norm
    assert a.total_params() == total == 308_778_780_864  # model card: "309B total parameters"


def test_kimi_linear_kda_and_mla_layers_parameter_count_by_hand():
    """Kimi-Linear: 1-based ``linear_attn_config.kda_layers`` are Kimi Delta Attention (vLLM
    ``KimiLinearConfig.is_kda_layer``), the rest MLA without a q LoRA; shapes from vLLM layers/kda.py."""
    a = arch(KIMI_LINEAR)
    kinds = [layer.attention for layer in a.layers]
    assert [i + 1 for i, kind in enumerate(kinds) if kind == "mla"] == [4, 8, 12, 16, 20, 24, 27]
    assert kinds.count("linear") == 20 and a.context_length == 1_048_576  # model_max_length
    kda = a.layers[0]
    assert kda.conv_state == 3 * 3 * 32 * 128  # q, k, v windows of kernel − 1 = 3 columns over 32 heads × 128
    assert kda.ssm_state == 32 * 128 * 128
    assert (a.layers[3].head_dim_k, a.ssm_dtype_bytes) == (512 + 64, 4)  # latent; float32 KDA state in vLLM
    h, proj = 2304, 32 * 128
    kda_layer = (3 * h * proj + proj * h + 3 * 4 * proj  # q, k, v, o; q, k, v conv kernels
                 + 2 * h * 128 + 2 * 128 * proj + h * 32 + proj + 32 + 128)  # f/g low-rank, b, dt_bias, A_log, o_norm
    mla_layer = h * 32 * 192 + h * 576 + 512 + 512 * 32 * (128 + 128) + 32 * 128 * h
    moe = 256 * 3 * h * 1024 + h * 256 + 256 + 3 * h * 1024  # experts, router, bias, one shared expert
    total = 2 * 163840 * h + 20 * kda_layer + 7 * mla_layer + 3 * h * 9216 + 26 * moe + 27 * 2 * h + h
    assert a.total_params() == total == 49_122_681_728  # the checkpoint's safetensors total (fixtures/README.md)


def test_deepseek_v4_compressed_layers_and_parameter_count_by_hand():
    """DeepSeek-V4-Flash: compress_ratios gives each layer its pooling (0 = window only); shapes from DeepSeek's
    inference/model.py (Attention, Compressor, Indexer, Gate, Block) and vLLM deepseek_v4 hyper_connection.py."""
    a = arch(DEEPSEEK_V4_FLASH)
    ratios = [layer.compress_ratio for layer in a.main_layers]
    assert ratios[:4] == [0, 0, 4, 128] and ratios.count(4) == 21 and ratios.count(128) == 20 and len(ratios) == 43
    c4 = a.layers[2]
    assert (c4.attention, c4.n_kv_heads, c4.head_dim_k, c4.head_dim_v, c4.window) == ("compressed", 1, 512, 0, 128)
    assert (c4.index_dim, c4.index_topk, c4.index_heads, a.layers[3].index_dim) == (128, 512, 64, 0)
    assert a.layers[-1].mtp and a.layers[-1].compress_ratio == 0 and a.fp4_experts
    h, hc = 4096, 4 * 4096
    attention = (h * 1024 + 1024 + 1024 * 64 * 512 + h * 512 + 512  # wq_a, q_norm, wq_b, wkv, kv_norm
                 + (64 * 512 // 8) * (8 * 1024) + 8 * 1024 * h + 64)  # grouped wo_a, wo_b, attn_sink
    hyper = 2 * (24 * hc + 24 + 3)  # attn and ffn: fn (mix 24 × 4·4096), base, scale
    moe = 256 * h + 256 * 3 * h * 2048 + 3 * h * 2048  # router, experts, shared expert
    block = 2 * h + hyper + attention + moe
    compressor4 = 4 * 1024 + 2 * h * 1024 + 512  # overlapping: ape, wkv, wgate twice as wide; norm
    compressor128 = 128 * 512 + 2 * h * 512 + 512
    indexer = 1024 * 64 * 128 + h * 64 + (4 * 256 + 2 * h * 256 + 128)  # wq_b, weights_proj, its compressor
    routing = 40 * 256 + 3 * 129280 * 6  # score bias on 40 layers, a token → 6 experts table on the 3 hash layers
    head = 2 * 129280 * h + h + (4 * hc + 4 + 1)  # embedding, head, final norm, hyper-connection head
    total = 43 * block + 21 * (compressor4 + indexer) + 20 * compressor128 + routing + head
    mtp = sum(t.elements for t in a.tensors if t.layer >= 0 and a.layers[t.layer].mtp)
    assert a.total_params() - mtp == total == 284_334_567_511  # model card: 284B
    assert mtp == 2 * h * h + 3 * h + block + 256 + (4 * hc + 4 + 1)  # e/h_proj, norms, block, bias, hyper head
    assert abs(arch(DEEPSEEK_V4_PRO).total_params() / 1.6e12 - 1) < 0.01  # model card: 1.6T


PUBLISHED = {  # fixture: published parameter count (sources in fixtures/README.md)
    "meta-llama--Meta-Llama-3.1-8B": 8_030_261_248, "meta-llama--Meta-Llama-3.1-70B": 70_553_706_496,
    "meta-llama--Meta-Llama-3.1-405B": 405_853_388_800, "Qwen--Qwen3-8B": 8_190_735_360,
    "Qwen--Qwen3-30B-A3B": 30_532_122_624, "Qwen--Qwen3-235B-A22B": 235_093_634_560,
    "deepseek-ai--DeepSeek-V3": 684_531_386_000, "moonshotai--Kimi-K2-Instruct": 1_026_470_731_056,
    "mistralai--Mixtral-8x7B-v0.1": 46_702_792_704, "nvidia--NVIDIA-Nemotron-3-Nano-30B-A3B-BF16": 31_577_937_344,
    "zai-org--GLM-5": 753_864_139_008, "MiniMaxAI--MiniMax-M2.5": 228_703_644_928,
    "openai--gpt-oss-20b": 20.91e9, "openai--gpt-oss-120b": 116.83e9,
}


@pytest.mark.parametrize("name", sorted(PUBLISHED))
def test_total_params_within_one_percent_of_published(name):
    assert abs(arch(name).total_params() / PUBLISHED[name] - 1) < 0.01


def test_glm_moe_keeps_mtp_block_in_gguf():
    cfg = {"model_type": "glm4_moe", "hidden_size": 64, "num_hidden_layers": 2, "vocab_size": 100,
           "num_attention_heads": 4, "num_key_value_heads": 2, "head_dim": 16, "intermediate_size": 128,
           "moe_intermediate_size": 32, "n_routed_experts": 4, "num_experts_per_tok": 2, "first_k_dense_replace": 1,
           "n_shared_experts": 1, "num_nextn_predict_layers": 1}
    a = parse_hf_config(cfg)
    assert a.gguf_layer_count == 3 and any(t.layer == 2 for t in a.gguf_tensors)
    assert a.active_params() < a.total_params()


@pytest.mark.parametrize("change, field", [
    ({"hidden_size": None}, "hidden_size"),
    ({"num_hidden_layers": -1}, "num_hidden_layers"),
    ({"num_attention_heads": "many"}, "num_attention_heads"),
    ({"layer_types": ["full_attention"] * 3}, "layer_types"),
    ({"layer_types": ["warp_attention"] * 32}, "layer_types"),
    ({"hybrid_layer_pattern": [0, 1], "sliding_window": 128}, "hybrid_layer_pattern"),
    ({"linear_attn_config": {"kda_layers": "1-3"}}, "linear_attn_config.kda_layers"),
    ({"compress_ratios": [0, 8] * 16, "q_lora_rank": 64, "o_groups": 8, "o_lora_rank": 64, "sliding_window": 128,
      "hc_mult": 4}, "compress_ratios"),
])
def test_unusable_configs_name_the_field(change, field):
    cfg = {**config(LLAMA_8B), **change}
    with pytest.raises(ConfigError) as error:
        parse_hf_config(cfg)
    assert error.value.field == field


def test_config_must_be_an_object():
    with pytest.raises(ConfigError):
        parse_hf_config(["not", "a", "config"])  # type: ignore[arg-type]


def test_gemma4_global_layers_share_k_and_v():
    # Gemma 4 31B text_config (catalog/models/gemma-4-31b.yaml): 50 sliding layers (16 KV heads × 256) and 10 global
    # layers (4 KV heads × 512) whose V is the K projection (attention_k_eq_v; mlx-lm gemma4_text.py builds no v_proj).
    cfg = {"model_type": "gemma4_text", "hidden_size": 5376, "intermediate_size": 21504, "num_hidden_layers": 60,
           "num_attention_heads": 32, "num_key_value_heads": 16, "head_dim": 256, "global_head_dim": 512,
           "num_global_key_value_heads": 4, "attention_k_eq_v": True, "sliding_window": 1024,
           "layer_types": (["sliding_attention"] * 5 + ["full_attention"]) * 10, "vocab_size": 262144,
           "tie_word_embeddings": True, "max_position_embeddings": 262144}
    h = 5376
    sliding = h * 32 * 256 * 2 + h * 16 * 256 * 2 + 3 * h * 21504
    full = h * 32 * 512 * 2 + h * 4 * 512 + 3 * h * 21504
    matrices = 262144 * h + 50 * sliding + 10 * full  # 30.70 B; norms add ~0.001 %
    arch = parse_hf_config(cfg)
    assert arch.total_params() == pytest.approx(matrices, rel=1e-4)
    separate_v = parse_hf_config({**cfg, "attention_k_eq_v": False})
    assert separate_v.total_params() - arch.total_params() == 10 * h * 4 * 512
