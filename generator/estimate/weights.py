"""Weight bytes as stored, per tensor: GGUF files by llama.cpp's recipe, vLLM-style checkpoints by format.

GGUF: every tensor gets the type ``quant.gguf_type`` gives it; tensors llama-quantize leaves alone (norms,
biases, routers, conv kernels: 1-D or excluded by name) stay F32 as the converter writes them. Each tensor's
data is padded to the 32-byte GGUF alignment. Metadata is dominated by the tokenizer: per vocabulary entry a
string (~7 bytes + u64 length), an f32 score and an i32 type, plus a BPE merge string of similar size; we count
``GGUF_METADATA_BYTES_PER_TOKEN`` (44) bytes per vocabulary entry (Llama-3: 5.6 MB).

vLLM-style checkpoints (safetensors): BF16 stores everything in 2 bytes. FP8 (block scales, DeepSeek/Qwen
style): quantisable matrices 1 byte + an fp32 scale per 128×128 block. AWQ-INT4: 4-bit weights + per group of
128 inputs an fp16 scale and a 4-bit zero point. NVFP4 (ModelOpt): 4-bit + an fp8 scale per 16 + two fp32
per-tensor scales. MXFP4 (gpt-oss as released): routed experts 4-bit + an e8m0 scale per 32, the rest BF16. The FP8
release of DeepSeek-V4 (``expert_dtype: fp4``) stores its routed experts the MXFP4 way (e2m1 pairs + a ue8m0 scale per
32 inputs, DeepSeek inference/model.py ``Linear``) and the other matrices as FP8.
In all of them embeddings, output head, routers and norms stay BF16.
"""

from __future__ import annotations

import math
from bisect import bisect_left
from dataclasses import dataclass
from functools import cache, cached_property

from .architecture import Architecture, Tensor
from .quant import FTYPE_BASE, GGML_TYPES, RecipeState, allows_quantization, category, category_type

GGUF_ALIGNMENT = 32
GGUF_METADATA_BYTES_PER_TOKEN = 44
_LLAMA_70B_TYPES = ("llama", "qwen2")


@dataclass(frozen=True)
class Weights:
    """Bytes of one model at one quant, split the ways placement and speed need."""

    quant: str
    file_bytes: int
    embed_bytes: int  # token_embd (a lookup; llama.cpp keeps it in system RAM)
    output_bytes: int  # output head incl. output_norm (0 extra when tied: the head reads token_embd)
    layer_bytes: tuple[int, ...]  # per stored block, everything in it
    expert_bytes: tuple[int, ...]  # per stored block, the routed experts
    main_layers: int  # blocks that run per token (stored MTP blocks come after them)

    @property
    def expert_total_bytes(self) -> int:
        """Routed-expert bytes of the main blocks."""
        return sum(self.expert_bytes[: self.main_layers])

    @property
    def dense_read_bytes(self) -> int:
        """Non-expert bytes read per decoded token: main blocks and output head, not token_embd."""
        main = sum(self.layer_bytes[: self.main_layers]) - self.expert_total_bytes
        return main + self.output_bytes

    @cached_property
    def cumulative_expert_bytes(self) -> tuple[int, ...]:
        """Expert bytes of the first n blocks, n = 0..main_layers (for --n-cpu-moe style offload)."""
        return _cumsum(self.expert_bytes[: self.main_layers])

    @cached_property
    def cumulative_dense_bytes(self) -> tuple[int, ...]:
        """Non-expert bytes of the first n blocks, n = 0..main_layers (for -ngl style offload)."""
        return _cumsum(tuple(a - b for a, b in zip(self.layer_bytes[: self.main_layers], self.expert_bytes)))


def _cumsum(values: tuple[int, ...]) -> tuple[int, ...]:
    out, acc = [0], 0
    for v in values:
        acc += v
        out.append(acc)
    return tuple(out)


def first_index_at_least(cumulative: tuple[int, ...], needed: int) -> int | None:
    """Smallest n with cumulative[n] >= needed, or None."""
    n = bisect_left(cumulative, needed)
    return n if n < len(cumulative) else None


@cache  # the same few shapes recur in every block
def tensor_bytes(type_name: str, ne: tuple[int, ...]) -> int:
    """Bytes of a ggml tensor of ``type_name`` and shape ``ne`` (rows of ne[0] elements)."""
    return GGML_TYPES[type_name].row_bytes(ne[0]) * math.prod(ne[1:])


@cache
def _stored_bytes(type_name: str, ne: tuple[int, ...]) -> int:
    """Bytes a tensor takes in a GGUF file: its data padded to the alignment."""
    return -(-tensor_bytes(type_name, ne) // GGUF_ALIGNMENT) * GGUF_ALIGNMENT


@cache
def _attention_wv_count(arch: Architecture) -> int:
    return sum(1 for t in arch.gguf_tensors
               if any(k in t.name for k in ("attn_v.weight", "attn_qkv.weight", "attn_kv_b.weight")))


def _recipe_state(arch: Architecture) -> RecipeState:
    n_attention_wv = _attention_wv_count(arch)
    gqa_70b = arch.layers[0].n_kv_heads not in (0, arch.n_heads)
    is_70b = arch.model_type in _LLAMA_70B_TYPES and arch.n_layers == 80 and gqa_70b
    return RecipeState(n_attention_wv, arch.gguf_layer_count, arch.n_gqa, arch.n_experts, is_70b,
                       arch.tied_embeddings)


@cache
def _categories(arch: Architecture) -> tuple[str | None, ...]:
    """Each stored tensor's recipe category; None where llama-quantize leaves it as the converter wrote it (F32)."""
    return tuple(category(t.name) if allows_quantization(t.name, t.ne) else None for t in arch.gguf_tensors)


def gguf_types(arch: Architecture, ftype: str) -> tuple[tuple[Tensor, str], ...]:
    """Each stored tensor with the type llama-quantize gives it for file type ``ftype``."""
    state = _recipe_state(arch)
    return tuple((t, "F32" if cat is None else category_type(ftype, cat, t.ne, t.layer, state))
                 for t, cat in zip(arch.gguf_tensors, _categories(arch)))


def checkpoint_bytes(fmt: str, t: Tensor) -> int:
    """Bytes of one tensor in a vLLM-style checkpoint of format ``fmt``."""
    n = t.elements
    quantisable = allows_quantization(t.name, t.ne) and t.role not in ("embed", "output", "router")
    if fmt == "BF16" or not quantisable or (fmt == "MXFP4" and t.role != "expert"):
        return 2 * n
    rows = math.prod(t.ne[1:])
    if fmt == "FP8":
        return n + math.ceil(t.ne[0] / 128) * math.ceil(t.ne[1] / 128) * math.prod(t.ne[2:]) * 4
    if fmt == "AWQ-INT4":
        return n // 2 + math.ceil(t.ne[0] / 128) * rows * 5 // 2
    if fmt == "NVFP4":
        return n // 2 + n // 16 + 8
    if fmt == "MXFP4":
        return n // 2 + n // 32
    raise KeyError(fmt)


CHECKPOINT_FORMATS = ("BF16", "FP8", "AWQ-INT4", "NVFP4", "MXFP4")


@cache
def weights(arch: Architecture, quant: str, kept_expert_type: str | None = None) -> Weights:
    """Stored bytes of ``arch`` at ``quant`` (a llama.cpp file type or a checkpoint format).

    ``kept_expert_type``: the ggml type the GGUF converter already wrote the routed experts in, which every llama.cpp
    file type keeps. gpt-oss ships its experts in MXFP4 and ``convert_hf_to_gguf.py`` (GptOssModel.repack_mxfp4)
    writes them with ``raw_dtype=MXFP4`` whatever the output type; ``llama-quantize`` refuses to requantise an already
    quantised tensor unless ``--allow-requantize`` is given (``llama_model_quantize_impl``), so a Q8_0 or Q4_K_M
    file of gpt-oss keeps MXFP4 experts and only the other tensors change type."""
    if quant in FTYPE_BASE and quant != "BF16" or quant == "BF16-GGUF":
        sizes = [_stored_bytes(kept_expert_type if kept_expert_type and t.role == "expert" else ty, t.ne)
                 for t, ty in gguf_types(arch, quant.removesuffix("-GGUF"))]
    elif quant in CHECKPOINT_FORMATS:
        fp4 = quant == "FP8" and arch.fp4_experts  # DeepSeek-V4 as released: FP8, routed experts FP4 (MXFP4 layout)
        sizes = [checkpoint_bytes("MXFP4" if fp4 and t.role == "expert" else quant, t) for t in arch.gguf_tensors]
    else:
        raise KeyError(f"no size rule for quant {quant!r}")
    n_blocks = arch.gguf_layer_count
    layer, expert = [0] * n_blocks, [0] * n_blocks
    embed = output = 0
    for t, size in zip(arch.gguf_tensors, sizes):
        if t.layer >= 0:
            layer[t.layer] += size
            if t.role == "expert":
                expert[t.layer] += size
        elif t.role == "embed":
            embed += size
        else:
            output += size
    if arch.tied_embeddings:
        output += embed
    file_bytes = sum(sizes)
    if quant not in CHECKPOINT_FORMATS:
        file_bytes += GGUF_METADATA_BYTES_PER_TOKEN * arch.vocab_size
    return Weights(quant, file_bytes, embed, output, tuple(layer), tuple(expert), arch.n_layers)
