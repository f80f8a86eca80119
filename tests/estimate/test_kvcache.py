"""KV cache and recurrent state, byte for byte as each engine allocates it."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from generator.estimate.kvcache import kv_cache_bytes, kv_layout, kvcache_bytes_per_1k
from tests.estimate.fixtures import (
    ALL,
    DEEPSEEK_V3,
    DEEPSEEK_V4_FLASH,
    GPT_OSS_20B,
    KIMI_LINEAR,
    LLAMA4_SCOUT,
    LLAMA_8B,
    MIMO_V2_FLASH,
    QWEN3_30B,
    QWEN35_35B,
    arch,
)


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
    # the pages' "per 1K tokens": one 1,024-token sequence, SWA layers at their 768 cells (not 1,024, not 0)
    assert kvcache_bytes_per_1k(arch(GPT_OSS_20B)) == full * 1024 + swa * 768 == 44_040_192
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


def test_mimo_v2_hybrid_sliding_window_k_and_v_widths():
    """MiMo-V2-Flash, 9 full layers (4 KV heads) and 39 sliding layers (8 KV heads, window 128), K 192 and V 128 wide.

    llama.cpp (llama-kv-cache.cpp: a K row of n_embd_k_gqa(il) = n_head_kv(il) × n_embd_head_k and a V row of
    n_head_kv(il) × n_embd_head_v per cell; llama-kv-cache-iswa.cpp: the SWA cache holds
    GGML_PAD(min(size_base, n_swa × n_seq_max + n_ubatch), n_pad) cells), f16 at 32,768 tokens, one sequence:
      full  9 × 4 × (192 + 128) × 2 = 23,040 B/token × 32,768 cells       =   754,974,720
      SWA  39 × 8 × (192 + 128) × 2 = 199,680 B/token × pad(128 + 512) = 768 = 153,354,240 → 908,328,960 B.
    vLLM (kv_cache_interface.py: FullAttentionSpec and SlidingWindowSpec pages are block_size × num_kv_heads ×
    (head_size + head_size_v) × dtype; SlidingWindowSpec holds cdiv(min(window − 1 + max_num_batched_tokens,
    max_model_len), 16) + 1 pages): full as above, SWA (cdiv(127 + 8192, 16) + 1) × 16 = 8,336 slots × 199,680
      = 1,664,532,480 → 2,419,507,200 B.
    With 8 tensor-parallel ranks the 4 full-attention KV heads are replicated (mimo_v2_flash.py: num_kv_heads =
    max(1, total_num_kv_heads // tp_size)): every rank holds 1 head, 8 heads' worth in all."""
    a = arch(MIMO_V2_FLASH)
    full, swa = 9 * 4 * (192 + 128) * 2, 39 * 8 * (192 + 128) * 2
    assert (full, swa) == (23_040, 199_680)
    assert kv_cache_bytes(kv_layout(a, "llama.cpp", "f16"), 32768) == full * 32768 + swa * 768 == 908_328_960
    assert kv_cache_bytes(kv_layout(a, "vllm", "auto"), 32768) == full * 32768 + swa * 8336 == 2_419_507_200
    assert kv_layout(a, "vllm", "auto", tp=8).full_bytes_per_token == 9 * 8 * (192 + 128) * 2


def test_kimi_linear_kda_state_and_mla_latent():
    """Kimi-Linear: 7 MLA layers cache the 512 + 64 latent; 20 KDA layers keep a fixed state per sequence.

    llama.cpp (llama-hparams.cpp: n_embd_r() = 3 × (ssm_d_conv − 1) × n_head × n_embd_head_kda for the q, k, v conv
    windows, n_embd_s() = n_embd_head_kda² × n_head; llama-memory-recurrent.cpp stores both F32; kimi-linear.cpp
    caches the MLA latent K only): per KDA layer (3 × 3 × 4,096 + 128 × 128 × 32) × 4 = 2,244,608 B,
    20 layers 44,892,160 B per sequence; MLA 7 × 576 × 2 = 8,064 B per token. f16 at 65,536 tokens, 2 sequences:
      8,064 × 131,072 cells + 2 × 44,892,160 = 1,146,748,928 B.
    vLLM (mamba_utils.py: kda_state_shape gives conv (4,096, 3) for each of q, k, v and a (32, 128, 128) recurrent
    state; kda_state_dtype keeps the conv windows in the model dtype and the recurrent state in float32):
      per KDA layer 36,864 × 2 + 524,288 × 4 = 2,170,880 B, 20 layers 43,417,600 B per sequence;
      65,536 tokens, 1 sequence: 8,064 × 65,536 + 43,417,600 = 571,899,904 B."""
    a = arch(KIMI_LINEAR)
    latent = 7 * (512 + 64) * 2
    llama_state = 20 * (3 * 3 * 4096 + 128 * 128 * 32) * 4
    vllm_state = 20 * (3 * 3 * 4096 * 2 + 32 * 128 * 128 * 4)
    assert (latent, llama_state, vllm_state) == (8_064, 44_892_160, 43_417_600)
    assert kv_cache_bytes(kv_layout(a, "llama.cpp", "f16"), 65536, 2) == latent * 131072 + 2 * llama_state \
        == 1_146_748_928
    assert kv_cache_bytes(kv_layout(a, "vllm", "auto"), 65536) == latent * 65536 + vllm_state == 571_899_904


def test_deepseek_v4_compressed_cache_llama_cpp():
    """DeepSeek-V4-Flash in llama.cpp (llama-kv-cache-dsv4.cpp, llama_kv_cache_dsv4 constructor), f16, 65,536 tokens.

    kv_raw: an iSWA cache made K-only (dsv4_make_k_only) with all 43 layers in its window half: 43 × 512 × 2 =
      44,032 B/token × pad(128 + 512, 256) = 768 cells                                  =  33,816,576
    kv_csa: the 21 ratio-4 layers, dsv4_comp_size(65,536, 4) = ceil(65,536 / 4) = 16,384 rows of 512 × 2 B
      = 21,504 B/row                                                                    = 352,321,536
    kv_lid: indexer keys of the same 21 layers, 16,384 rows of 128 × 2 B = 5,376 B/row  =  88,080,384
    kv_hca: the 20 ratio-128 layers, ceil(65,536 / 128) = 512 rows × 20,480 B            =  10,485,760
    compressor states (llama_dsv4_comp_state: kv + score, F32, per sequence): csa 2 × 8 × 1,024 × 4 = 65,536,
      lid 2 × 8 × 256 × 4 = 16,384 per ratio-4 layer, hca 2 × 128 × 512 × 4 = 524,288 per ratio-128 layer
      = 21 × 81,920 + 20 × 524,288                                                      =  12,206,080
    total 496,910,336 B; with 2 sequences the pool doubles (131,072 cells) but the window stays at 768 cells."""
    layout = kv_layout(arch(DEEPSEEK_V4_FLASH), "llama.cpp", "f16")
    states = 21 * (2 * 8 * 1024 * 4 + 2 * 8 * 256 * 4) + 20 * 2 * 128 * 512 * 4
    assert states == layout.state_bytes_per_sequence == 12_206_080
    one = 44_032 * 768 + 21_504 * 16_384 + 5_376 * 16_384 + 20_480 * 512 + states
    assert kv_cache_bytes(layout, 65536) == one == 496_910_336
    two = 44_032 * 768 + (21_504 + 5_376) * 32_768 + 20_480 * 1_024 + 2 * states
    assert kv_cache_bytes(layout, 65536, 2) == two == 960_004_096
    q8 = kv_layout(arch(DEEPSEEK_V4_FLASH), "llama.cpp", "q8_0")
    assert q8.compressed == ((21 * 4 * 34, 4, 0), (21 * 16 * 34, 4, 512), (20 * 16 * 34, 128, 0))  # 32-blocks


def test_deepseek_v4_compressed_cache_vllm():
    """DeepSeek-V4-Flash in vLLM with an fp8 KV cache (the fp8_ds_mla layout), one sequence of 65,536 tokens.

    Page sizes (kv_cache_interface.py: MLAAttentionSpec / SlidingWindowMLASpec pages of storage_block_size ×
    584 B for model_version deepseek_v4, page_size_padded rounded up to the 576 B alignment; attention.py,
    sparse_swa.py, compressor.py for the block sizes and widths):
      SWA cache (every layer, block 64, window 128): 64 × 584 = 37,376 → 37,440; 43 layers 1,609,920 per page
      block 256 caches: ratio-4 KV 64 rows → 37,440 (21 layers), indexer keys 64 × (128 + 4) = 8,448 → 8,640
        (21), ratio-128 KV 2 × 584 = 1,168 → 1,728 (20): 1,002,240 per page
      compressor states, float32 (CompressorStateCache): ratio 4 block 4 × 2 × 2 × 512 × 4 = 32,768 → 32,832,
        its indexer's 4 × 2 × 2 × 128 × 4 = 8,192 → 8,640 (window 8, 21 layers each: 870,912 per page);
        ratio 128 block 8 × 2 × 512 × 4 = 32,768 → 32,832 (window 128, 20 layers: 656,640 per page)
    Pages per sequence: full cdiv(65,536, 256) = 256; sliding cdiv(min(window − 1 + 8,192, 65,536), block) + 1:
      SWA cdiv(8,319, 64) + 1 = 131, ratio-4 states cdiv(8,199, 4) + 1 = 2,051, ratio-128 cdiv(8,319, 8) + 1 = 1,041
    1,609,920 × 131 + 1,002,240 × 256 + 870,912 × 2,051 + 656,640 × 1,041 = 2,937,275,712 B."""
    layout = kv_layout(arch(DEEPSEEK_V4_FLASH), "vllm", "fp8")
    assert sorted(layout.pages) == [(656_640, 8, 128), (870_912, 4, 8), (1_002_240, 256, 0), (1_609_920, 64, 128)]
    expected = 1_609_920 * 131 + 1_002_240 * 256 + 870_912 * 2_051 + 656_640 * 1_041
    assert kv_cache_bytes(layout, 65536) == expected == 2_937_275_712
    assert kv_cache_bytes(layout, 65536, 3) == 3 * expected  # every sequence gets its own pages
    # plain bf16 rows ("auto"): 64 × 1,024 B pages, no 576 B alignment on the states
    auto = kv_layout(arch(DEEPSEEK_V4_FLASH), "vllm", "auto")
    assert (65_536 * 43, 64, 128) in auto.pages and (20 * 32_768, 8, 128) in auto.pages


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
