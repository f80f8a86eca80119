"""KV cache and recurrent state bytes, as each engine allocates them.

Rule for ``sequences``: the cache is sized for ``sequences × context`` tokens (every sequence gets the full
context; llama.cpp shares one pool of cells between its slots, so we give the pool sequences × context cells).

llama.cpp (``llama-kv-cache.cpp``, ``llama-kv-cache-iswa.cpp``, ``llama-memory-recurrent.cpp``):
* cells = pad(sequences × context, 256); K row = ``n_kv_heads × head_dim_k`` elements of the K type, V likewise;
  quantised types are stored in blocks of 32 (q8_0: 34 bytes, q4_0: 18 bytes).
* sliding-window and chunked layers (unified cache): min(cells, pad(window × sequences + n_ubatch, 256)) cells.
* MLA: the compressed latent only, ``kv_lora_rank + qk_rope_head_dim`` per token and layer, no V (V-less cache,
  llama.cpp PR #19067).
* K and V rows may differ in width (MiMo-V2: 192 and 128 per head; ``n_embd_k_gqa(il)`` / ``n_embd_v_gqa(il)``).
* Linear attention / Mamba: conv + recurrent state per sequence per layer, always F32. Kimi Delta Attention
  (``llama-hparams.cpp``): conv 3 × (d_conv − 1) × n_head × head_dim (q, k, v windows), state head_dim² × n_head.
* DeepSeek-V4 compressed attention (``llama-kv-cache-dsv4.cpp``): a K-only iSWA cache holding every layer's last
  window, K-only caches of max(1, ceil(cells / ratio)) compressed rows (and indexer keys for the ratio-4 layers),
  and per-sequence F32 compressor states.
Ollama runs llama.cpp, so the same rules apply.

vLLM (``vllm/v1/kv_cache_interface.py``): pages of 16 tokens; full attention ``ceil(context/16)`` pages per
sequence; sliding window ``ceil(min(window − 1 + max_num_batched_tokens, context)/16) + 1`` pages; chunked local
attention ``ceil(min(chunk + max_num_batched_tokens, context)/16)`` pages; MLA latent of 576 elements with one
"head", not split across tensor-parallel ranks, plus for DSA models (DeepSeek-V3.2, GLM-5) the indexer's key cache
(``index_head_dim`` fp8 + an fp32 scale per 128: 132 bytes per token and layer; llama.cpp runs them dense, without
it); GQA heads split across ranks (replicated when fewer than the
ranks); K and V pages of head_size + head_size_v per head (FullAttentionSpec, SlidingWindowSpec); Mamba conv state
per sequence in the model dtype, SSM state in ``mamba_ssm_cache_dtype`` when the config names it (else the model
dtype), except Kimi Delta Attention, whose recurrent state is always float32 (``mamba_utils.kda_state_dtype``).
DeepSeek-V4 (``models/deepseek_v4``): every cache is a paged spec with its own block size (window, compressed rows,
indexer keys, compressor states; see ``_compressed_layout``). Not modelled: vLLM pads attention pages of hybrid models
to the Mamba page size, and unifies DeepSeek-V4's page sizes across its cache groups.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import Literal

from .architecture import Architecture, Layer

Engine = Literal["llama.cpp", "ollama", "vllm"]

LLAMA_CPP_PAD = 256
LLAMA_CPP_UBATCH = 512
VLLM_BLOCK = 16
VLLM_MAX_BATCHED_TOKENS = 8192  # vLLM V1 default max_num_batched_tokens for `vllm serve` (assumption)

# bytes per block of 32 elements (ggml) or per element (vLLM fp8)
_LLAMA_KV_TYPES = {"f32": (1, 4), "f16": (1, 2), "bf16": (1, 2), "q8_0": (32, 34), "q5_1": (32, 24),
                   "q5_0": (32, 22), "q4_1": (32, 20), "q4_0": (32, 18), "iq4_nl": (32, 18)}
_VLLM_KV_TYPES = {"auto": (1, 2), "bf16": (1, 2), "f16": (1, 2), "fp8": (1, 1), "fp8_e4m3": (1, 1),
                  "fp8_e5m2": (1, 1)}

KV_TYPES: dict[str, tuple[str, ...]] = {
    "llama.cpp": tuple(_LLAMA_KV_TYPES), "ollama": ("f16", "q8_0", "q4_0"), "vllm": tuple(_VLLM_KV_TYPES),
}


def llama_cpp_bytes_per_element(kv_type: str) -> float:
    """Bytes per cached K or V element of a llama.cpp cache type, block scales included (q8_0: 34 / 32)."""
    block, block_bytes = _LLAMA_KV_TYPES[kv_type]
    return block_bytes / block


def _pad(n: int, to: int) -> int:
    return -(-n // to) * to


def _row(n: int, kv_type: tuple[int, int]) -> int:
    block, size = kv_type
    return -(-n // block) * size


@dataclass(frozen=True)
class KvLayout:
    """KV bytes per cached token by attention kind, for one model, engine, KV type and tensor-parallel degree."""

    engine: str
    full_bytes_per_token: int  # all full-context layers together
    windowed: tuple[tuple[int, int], ...]  # (bytes per token of the group, window or chunk in tokens)
    chunked: tuple[bool, ...]  # per windowed group: chunked local attention (vLLM sizes it differently)
    state_bytes_per_sequence: int
    # DeepSeek-V4 compressed rows: (bytes per row of the group, tokens per row, rows a query reads or 0 for all)
    compressed: tuple[tuple[int, int, int], ...] = ()
    # vLLM DeepSeek-V4: every cache as pages, (page bytes of the group, tokens per page, window or 0 for the whole
    # context); when present these alone size vLLM's memory (window, compressed rows and states included)
    pages: tuple[tuple[int, int, int], ...] = ()


def _layer_token_bytes(layer: Layer, kv: tuple[int, int], tp: int, engine: str) -> int:
    if layer.attention == "mla":
        index = layer.index_dim + layer.index_dim // 128 * 4 if engine == "vllm" else 0  # fp8 key + fp32 scale
        return (_row(layer.head_dim_k, kv) + index) * tp  # the latent is replicated on every rank
    heads = layer.n_kv_heads
    per_rank = max(1, heads // tp) if tp > 1 else heads
    return (_row(per_rank * layer.head_dim_k, kv) + _row(per_rank * layer.head_dim_v, kv)) * tp


@cache
def kv_layout(arch: Architecture, engine: str, kv_type: str, tp: int = 1) -> KvLayout:
    """Per-token KV bytes of ``arch`` under ``engine`` with cache type ``kv_type`` on ``tp`` tensor-parallel ranks."""
    if kv_type not in KV_TYPES.get(engine, ()):
        raise ValueError(f"KV type {kv_type!r} is not available on {engine}; choose one of "
                         f"{', '.join(KV_TYPES.get(engine, ()))}")
    kv = (_VLLM_KV_TYPES if engine == "vllm" else _LLAMA_KV_TYPES)[kv_type]
    if any(layer.attention == "compressed" for layer in arch.main_layers):
        return _compressed_layout(arch, engine, kv_type, kv, tp)
    full = 0
    groups: dict[tuple[int, bool], int] = {}
    state = 0
    for layer in arch.main_layers:
        if layer.attention in ("linear", "mamba"):
            state += _state_bytes(arch, layer, engine) * (tp if engine == "vllm" else 1)
        elif layer.attention in ("sliding", "chunked"):
            key = (layer.window or 0, layer.attention == "chunked")
            groups[key] = groups.get(key, 0) + _layer_token_bytes(layer, kv, tp, engine)
        elif layer.attention != "none":
            full += _layer_token_bytes(layer, kv, tp, engine)
    ordered = sorted(groups.items())
    return KvLayout(engine, full, tuple((b, w) for (w, _), b in ordered), tuple(c for (_, c), _ in ordered), state)


def _compressor_state_bytes(ratio: int, dim: int) -> int:
    """One DeepSeek-V4 compressor's float32 carry per sequence: kv and score rows of the unfinished windows.

    llama.cpp (llama-kv-cache-dsv4.cpp, llama_dsv4_comp_state): two F32 tensors of state_size × n_embd_state,
    state_size 2 × 4 and n_embd_state 2 × dim for the overlapping ratio-4 compressor, 128 and dim for ratio 128.
    vLLM (compressor.py, CompressorStateCache): the same coff × ratio slots of 2 × coff × dim float32."""
    coff = 2 if ratio == 4 else 1
    return 2 * (coff * ratio) * (coff * dim) * 4


def _compressed_layout(arch: Architecture, engine: str, kv_type: str, kv: tuple[int, int], tp: int) -> KvLayout:
    """DeepSeek-V4: a K=V row per token in a sliding window, compressed rows, indexer keys, compressor states."""
    layers = [layer for layer in arch.main_layers if layer.attention == "compressed"]
    window = layers[0].window or 0
    state = sum(_compressor_state_bytes(layer.compress_ratio, layer.head_dim_k) for layer in layers
                if layer.compress_ratio) + sum(_compressor_state_bytes(4, layer.index_dim) for layer in layers
                                               if layer.index_dim)
    if engine != "vllm":
        # llama-kv-cache-dsv4.cpp: kv_raw is an iSWA cache, K only, with every layer in its window half;
        # kv_csa / kv_hca hold dsv4_comp_size(kv_size, ratio) = max(1, ceil(kv_size / ratio)) K-only rows of
        # head_dim for the ratio-4 / ratio-128 layers, kv_lid the same count of index_head_dim rows (ratio-4 layers)
        row = sum(_row(layer.head_dim_k, kv) for layer in layers)
        groups: dict[tuple[int, int], int] = {}
        for layer in layers:
            if layer.compress_ratio:
                key = (layer.compress_ratio, layer.index_topk)
                groups[key] = groups.get(key, 0) + _row(layer.head_dim_k, kv)
            if layer.index_dim:
                groups[(4, 0)] = groups.get((4, 0), 0) + _row(layer.index_dim, kv)
        compressed = tuple((b, r, k) for (r, k), b in sorted(groups.items()))
        return KvLayout(engine, 0, ((row, window),), (False,), state, compressed)
    # vLLM models/deepseek_v4/attention.py: an fp8 KV cache uses the fp8_ds_mla layout (448 fp8 NoPE + 64 bf16 RoPE
    # values + 8 scale bytes = 584 B per token, pages aligned to 576 B); "auto" keeps plain bf16 rows (pages aligned
    # to 512 B). The SWA cache pages 64 tokens, the compressed caches 256 (64 ratio-4 rows or 2 ratio-128 rows), the
    # indexer keys 128 fp8 + a float32 scale per row, the compressor states 4 (ratio 4) or 8 (ratio 128) slots.
    ds_mla = kv_type.startswith("fp8")
    token = 584 if ds_mla else layers[0].head_dim_k * 2
    align = 576 if ds_mla else 512
    state_align = 576 if ds_mla else 1

    def page(rows: int, width: int, to: int) -> int:
        return _pad(rows * width, to)

    pages: dict[tuple[int, int], int] = {}

    def add(page_bytes: int, block: int, win: int) -> None:
        pages[(block, win)] = pages.get((block, win), 0) + page_bytes * tp  # one latent row, replicated per rank

    reads: dict[tuple[int, int], int] = {}
    for layer in layers:
        add(page(64, token, align), 64, window)
        r = layer.compress_ratio
        if r:
            add(page(256 // r, token, align), 256, 0)
            coff = 2 if r == 4 else 1
            add(page(4 if r == 4 else 8, 2 * coff * layer.head_dim_k * 4, state_align), 4 if r == 4 else 8, coff * r)
            reads[(r, layer.index_topk)] = reads.get((r, layer.index_topk), 0) + token * tp
        if layer.index_dim:
            key_bytes = layer.index_dim + layer.index_dim // 128 * 4
            add(page(64, key_bytes, align), 256, 0)
            add(page(4, 2 * 2 * layer.index_dim * 4, state_align), 4, 8)
            reads[(4, 0)] = reads.get((4, 0), 0) + key_bytes * tp
    compressed = tuple((b, r, k) for (r, k), b in sorted(reads.items()))
    paged = tuple((b, block, win) for (block, win), b in sorted(pages.items()))
    return KvLayout(engine, 0, ((token * len(layers) * tp, window),), (False,), state * tp, compressed, paged)


def _vllm_pages(block: int, window: int, context: int) -> int:
    """Pages vLLM budgets per sequence: FullAttentionSpec / MLAAttentionSpec cdiv(max_model_len, block_size);
    SlidingWindowSpec (and SlidingWindowMLASpec) cdiv(min(window − 1 + max_num_batched_tokens, max_model_len),
    block_size) + 1."""
    if not window:
        return -(-context // block)
    return -(-min(window - 1 + VLLM_MAX_BATCHED_TOKENS, context) // block) + 1


def _state_bytes(arch: Architecture, layer: Layer, engine: str) -> int:
    if engine != "vllm":
        return 4 * (layer.conv_state + layer.ssm_state)  # llama.cpp keeps recurrent state in F32
    return arch.dtype_bytes * layer.conv_state + arch.ssm_dtype_bytes * layer.ssm_state


def llama_cpp_cells(context: int, sequences: int) -> int:
    """KV cells llama.cpp allocates for ``sequences`` slots of ``context`` tokens (one shared pool)."""
    return _pad(context * sequences, LLAMA_CPP_PAD)


def window_cells(window: int, sequences: int, cells: int) -> int:
    """Cells of a sliding-window layer in llama.cpp's unified iSWA cache."""
    return min(cells, _pad(window * sequences + LLAMA_CPP_UBATCH, LLAMA_CPP_PAD))


def vllm_tokens(context: int) -> int:
    """Token slots vLLM pages for one full-attention sequence of ``context`` tokens."""
    return _pad(context, VLLM_BLOCK)


def vllm_window_tokens(window: int, chunked: bool, context: int) -> int:
    """Token slots vLLM pages for one sliding-window (or chunked) sequence."""
    if chunked:
        return _pad(min(window + VLLM_MAX_BATCHED_TOKENS, context), VLLM_BLOCK)
    return _pad(min(window - 1 + VLLM_MAX_BATCHED_TOKENS, context), VLLM_BLOCK) + VLLM_BLOCK


def kv_cache_bytes(layout: KvLayout, context: int, sequences: int = 1) -> int:
    """Bytes of KV cache and recurrent state for ``sequences`` sequences of ``context`` tokens."""
    if context <= 0 or sequences <= 0:
        if context < 0 or sequences < 0:
            raise ValueError("context and sequences must not be negative")
        return 0
    if layout.pages:
        return sequences * sum(b * _vllm_pages(block, window, context) for b, block, window in layout.pages)
    total = layout.state_bytes_per_sequence * sequences
    if layout.engine == "vllm":
        per_seq = layout.full_bytes_per_token * vllm_tokens(context) + sum(
            b * vllm_window_tokens(w, c, context) for (b, w), c in zip(layout.windowed, layout.chunked))
        return per_seq * sequences + total
    cells = -(-(context * sequences) // LLAMA_CPP_PAD) * LLAMA_CPP_PAD  # llama_cpp_cells, inlined: hot path
    total += layout.full_bytes_per_token * cells
    for b, w in layout.windowed:
        total += b * window_cells(w, sequences, cells)
    for b, ratio, _ in layout.compressed:
        total += b * max(1, -(-cells // ratio))
    return total


def kvcache_bytes_per_1k(model: object) -> int:
    """KV cache and recurrent state of one 1,024-token sequence at f16 in llama.cpp, windowed layers holding at most
    their window: the pages' "per 1K tokens" (``model`` is an Architecture or has ``architecture``)."""
    arch = getattr(model, "architecture", model)
    return kv_cache_bytes(kv_layout(arch, "llama.cpp", "f16"), 1024)
