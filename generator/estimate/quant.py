"""Quantisation formats: ggml block types, llama.cpp file types (recipes) and vLLM-style checkpoint formats.

Block sizes and bytes per block are ggml's (``ggml-common.h`` struct layouts; ``QK_K = 256``).
The per-tensor recipe follows ``llama_tensor_get_type_impl`` and ``tensor_type_fallback`` in llama.cpp's
``src/llama-quant.cpp`` (read at commit 007dbbf3, 2026-11-30). Assumptions: no user overrides, no Falcon
special cases, and an importance matrix is present (published GGUFs are imatrix-calibrated; llama.cpp requires
one for the IQ1/IQ2/IQ3_XXS types). MTP, n_gqa, n_expert and the 70B rule are taken from the architecture.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import Literal

Family = Literal["gguf", "vllm"]


@dataclass(frozen=True)
class GgmlType:
    """A ggml tensor type: elements per block and bytes per block."""

    name: str
    block: int
    block_bytes: int

    def row_bytes(self, n: int) -> int:
        """Bytes of a row of ``n`` elements (``n`` must be a multiple of the block)."""
        return n // self.block * self.block_bytes

    @property
    def bits_per_weight(self) -> float:
        """Bits per element including block scales."""
        return 8 * self.block_bytes / self.block


GGML_TYPES: dict[str, GgmlType] = {t.name: t for t in (
    GgmlType("F32", 1, 4), GgmlType("F16", 1, 2), GgmlType("BF16", 1, 2),
    GgmlType("Q8_0", 32, 34), GgmlType("Q6_K", 256, 210), GgmlType("Q5_K", 256, 176), GgmlType("Q5_1", 32, 24),
    GgmlType("Q5_0", 32, 22), GgmlType("Q4_K", 256, 144), GgmlType("Q4_1", 32, 20), GgmlType("Q4_0", 32, 18),
    GgmlType("IQ4_NL", 32, 18), GgmlType("IQ4_XS", 256, 136), GgmlType("MXFP4", 32, 17),
    GgmlType("NVFP4", 64, 36), GgmlType("Q3_K", 256, 110), GgmlType("IQ3_S", 256, 110),
    GgmlType("IQ3_XXS", 256, 98), GgmlType("Q2_K", 256, 84), GgmlType("IQ2_S", 256, 82),
    GgmlType("IQ2_XS", 256, 74), GgmlType("IQ2_XXS", 256, 66), GgmlType("IQ1_M", 256, 56),
    GgmlType("IQ1_S", 256, 50), GgmlType("TQ1_0", 256, 54), GgmlType("TQ2_0", 256, 66),
)}

# llama.cpp file type -> default tensor type (llama_ftype_get_default_type)
FTYPE_BASE: dict[str, str] = {
    "F16": "F16", "BF16": "BF16", "Q8_0": "Q8_0", "Q4_0": "Q4_0", "Q4_1": "Q4_1", "Q5_0": "Q5_0", "Q5_1": "Q5_1",
    "Q2_K": "Q2_K", "Q2_K_S": "Q2_K", "Q3_K_S": "Q3_K", "Q3_K_M": "Q3_K", "Q3_K_L": "Q3_K", "Q4_K_S": "Q4_K",
    "Q4_K_M": "Q4_K", "Q5_K_S": "Q5_K", "Q5_K_M": "Q5_K", "Q6_K": "Q6_K", "IQ2_XXS": "IQ2_XXS", "IQ2_XS": "IQ2_XS",
    "IQ2_S": "IQ2_XS", "IQ2_M": "IQ2_S", "IQ3_XXS": "IQ3_XXS", "IQ3_XS": "IQ3_S", "IQ3_S": "IQ3_S",
    "IQ3_M": "IQ3_S", "IQ1_S": "IQ1_S", "IQ1_M": "IQ1_M", "IQ4_NL": "IQ4_NL", "IQ4_XS": "IQ4_XS",
    "MXFP4_MOE": "MXFP4", "TQ1_0": "TQ1_0", "TQ2_0": "TQ2_0",
}

# tensor_type_fallback: when ne[0] is not a multiple of the target's block
_FALLBACK = {"IQ1_S": "IQ4_NL", "IQ1_M": "IQ4_NL", "IQ2_XXS": "IQ4_NL", "IQ2_XS": "IQ4_NL", "IQ2_S": "IQ4_NL",
             "IQ3_XXS": "IQ4_NL", "IQ3_S": "IQ4_NL", "IQ4_XS": "IQ4_NL", "Q2_K": "Q4_0", "Q3_K": "Q4_0",
             "TQ1_0": "Q4_0", "TQ2_0": "Q4_0", "Q4_K": "Q5_0", "Q5_K": "Q5_1", "Q6_K": "Q8_0"}


@dataclass(frozen=True)
class QuantInfo:
    """A quant as the pages name it: family (GGUF file or vLLM checkpoint), nominal bits, engines that load it."""

    name: str
    family: Family
    nominal_bits: float
    engines: tuple[str, ...]
    description: str


_GGUF_ENGINES = ("llama.cpp", "ollama")
_ALL_ENGINES = ("llama.cpp", "ollama", "vllm")

QUANTS: tuple[QuantInfo, ...] = (
    QuantInfo("BF16", "vllm", 16.0, _ALL_ENGINES, "bfloat16 weights as published"),
    QuantInfo("F16", "gguf", 16.0, _GGUF_ENGINES, "GGUF float16"),
    QuantInfo("FP8", "vllm", 8.0, ("vllm",), "FP8 e4m3 weights, fp32 scale per 128×128 block"),
    QuantInfo("Q8_0", "gguf", 8.5, _GGUF_ENGINES, "GGUF 8-bit, block 32"),
    QuantInfo("Q6_K", "gguf", 6.5625, _GGUF_ENGINES, "GGUF 6-bit k-quant"),
    QuantInfo("Q5_K_M", "gguf", 5.5, _GGUF_ENGINES, "GGUF 5-bit k-quant mix"),
    QuantInfo("Q4_K_M", "gguf", 4.5, _GGUF_ENGINES, "GGUF 4-bit k-quant mix"),
    QuantInfo("IQ4_XS", "gguf", 4.25, _GGUF_ENGINES, "GGUF 4-bit i-quant"),
    QuantInfo("Q3_K_M", "gguf", 3.4375, _GGUF_ENGINES, "GGUF 3-bit k-quant mix"),
    QuantInfo("Q2_K", "gguf", 2.625, _GGUF_ENGINES, "GGUF 2-bit k-quant mix"),
    QuantInfo("IQ2_XXS", "gguf", 2.0625, _GGUF_ENGINES, "GGUF 2-bit i-quant"),
    QuantInfo("IQ1_S", "gguf", 1.5625, _GGUF_ENGINES, "GGUF 1.5-bit i-quant"),
    QuantInfo("MXFP4_MOE", "gguf", 4.25, _GGUF_ENGINES, "GGUF: MoE experts MXFP4, the rest Q8_0"),
    QuantInfo("AWQ-INT4", "vllm", 4.0, ("vllm",), "INT4 weights, fp16 scale + 4-bit zero per group of 128"),
    QuantInfo("NVFP4", "vllm", 4.5, ("vllm",), "FP4 e2m1 weights, fp8 scale per 16"),
)

# Formats the estimator also knows (calibration rows, GGUF listings) beyond the pages' list.
EXTRA_QUANTS: tuple[QuantInfo, ...] = tuple(
    QuantInfo(name, "gguf", GGML_TYPES[FTYPE_BASE[name]].bits_per_weight, _GGUF_ENGINES, "GGUF " + name)
    for name in ("Q4_0", "Q4_1", "Q5_0", "Q5_1", "Q2_K_S", "Q3_K_S", "Q3_K_L", "Q4_K_S", "Q5_K_S", "IQ2_XS",
                 "IQ2_S", "IQ2_M", "IQ3_XXS", "IQ3_XS", "IQ3_S", "IQ3_M", "IQ1_M", "IQ4_NL")
) + (QuantInfo("MXFP4", "vllm", 4.25, ("vllm",), "MoE experts MXFP4, the rest BF16 (gpt-oss as released)"),)

QUANT_INFO: dict[str, QuantInfo] = {q.name: q for q in QUANTS + EXTRA_QUANTS}


def quant_info(name: str) -> QuantInfo:
    """The quant called ``name`` (case-insensitive); KeyError with the known names otherwise."""
    found = QUANT_INFO.get(name) or QUANT_INFO.get(name.upper())
    if found is None:
        raise KeyError(f"unknown quant {name!r}; known: {', '.join(QUANT_INFO)}")
    return found


# ---------------------------------------------------------------------------------------------- GGUF recipe

_IQ2_FAMILY = {"IQ2_XXS", "IQ2_XS", "IQ1_S", "IQ2_S", "IQ2_M", "IQ1_M"}
_OUTPUT_Q5K = {"IQ2_XXS", "IQ2_XS", "IQ3_XXS", "IQ1_S", "IQ2_S", "IQ2_M", "IQ1_M"}
_ATTN_OUT_Q5K_8EXP = {"Q2_K", "IQ3_XS", "IQ3_XXS", "Q3_K_S", "Q3_K_M", "IQ4_NL", "Q4_K_S", "Q4_K_M", "IQ3_S",
                      "IQ3_M", "IQ4_XS"}


def use_more_bits(i: int, n: int) -> bool:
    """llama.cpp's layer pick for extra bits: first and last eighth and every third layer between."""
    return i < n // 8 or i >= 7 * n // 8 or (i - n // 8) % 3 == 2


@cache  # asked once per tensor and file type: the same few thousand names each time
def category(name: str) -> str:
    """llama.cpp ``tensor_get_category`` on a GGUF tensor name."""
    if name == "output.weight":
        return "output"
    if name in ("token_embd.weight", "per_layer_token_embd.weight"):
        return "token_embd"
    for needle, cat in (("attn_qkv.weight", "attn_qkv"), ("attn_kv_b.weight", "attn_kv_b"),
                        ("attn_v.weight", "attn_v"), ("attn_k.weight", "attn_k"), ("attn_q.weight", "attn_q"),
                        ("attn_output.weight", "attn_output"), ("ffn_up", "ffn_up"), ("ffn_gate", "ffn_gate"),
                        ("ffn_down", "ffn_down")):
        if needle in name:
            return cat
    return "other"


@cache
def allows_quantization(name: str, ne: tuple[int, ...]) -> bool:
    """llama.cpp ``tensor_allows_quantization``: 2-D/3-D weights except norms, routers and conv kernels."""
    dims = len(ne)
    while dims > 1 and ne[dims - 1] == 1:
        dims -= 1
    return (dims >= 2 and name.endswith("weight") and "_norm.weight" not in name
            and "ffn_gate_inp.weight" not in name and "ssm_conv1d" not in name)


@cache
def fallback(type_name: str, ne0: int) -> str:
    """``tensor_type_fallback``: a compatible type when ``ne0`` is not a multiple of the block."""
    if ne0 % GGML_TYPES[type_name].block == 0:
        return type_name
    alt = _FALLBACK.get(type_name, "F16")
    return alt if ne0 % GGML_TYPES[alt].block == 0 else "F16"


@dataclass
class RecipeState:
    """Counters and model facts the recipe reads (``quantize_state_impl`` + hparams)."""

    n_attention_wv: int
    n_layer_all: int
    n_gqa: int
    n_expert: int
    is_70b: bool
    tied: bool
    has_imatrix: bool = True
    i_attention_wv: int = 0
    i_ffn_down: int = 0


def gguf_type(ftype: str, name: str, ne: tuple[int, ...], layer: int, st: RecipeState) -> str:
    """The ggml type llama-quantize gives one (quantisable) tensor, after the shape fallback."""
    return category_type(ftype, category(name), ne, layer, st)


def category_type(ftype: str, cat: str, ne: tuple[int, ...], layer: int, st: RecipeState) -> str:
    """:func:`gguf_type` for a tensor whose category is known (a whole file's tensors: see ``weights``)."""
    base = FTYPE_BASE[ftype]
    if base in ("F16", "BF16", "F32"):
        return base
    return fallback(_recipe(ftype, base, cat, ne, layer, st), ne[0])


def _recipe(ftype: str, new: str, cat: str, ne: tuple[int, ...], layer: int, st: RecipeState) -> str:
    """``llama_tensor_get_type_impl`` without Falcon and user overrides."""
    attn_v_like = cat in ("attn_v", "attn_qkv", "attn_kv_b")
    moe = st.n_expert > 1
    if cat == "output" or (st.tied and cat == "token_embd"):
        if ftype == "MXFP4_MOE" or ne[0] % GGML_TYPES[new].block:
            return "Q8_0"
        if ftype in _OUTPUT_Q5K:
            return "Q5_K"
        return new if new == "Q8_0" else "Q6_K"
    if ftype == "MXFP4_MOE":
        return "MXFP4" if len(ne) > 2 and ne[2] > 1 else "Q8_0"
    if cat == "token_embd":
        if ftype in ("IQ2_XXS", "IQ2_XS", "IQ1_S", "IQ1_M"):
            return "Q2_K"
        if ftype in ("IQ2_S", "IQ2_M", "IQ3_XXS"):
            return "IQ3_S"
        return "Q4_K" if ftype in ("TQ1_0", "TQ2_0") else new
    if ftype in _IQ2_FAMILY:
        low = "IQ3_S" if ftype in ("IQ2_S", "IQ2_M") else "Q2_K"
        if attn_v_like:
            st.i_attention_wv += 1
            return "Q4_K" if st.n_gqa >= 4 or st.n_expert >= 4 else low
        if st.n_expert == 8 and cat == "attn_k":
            return "Q4_K"
        if cat == "ffn_down":
            st.i_ffn_down += 1
            return low if st.i_ffn_down - 1 < st.n_layer_all // 8 else new
        if cat == "attn_output":
            if st.n_expert == 8:
                return "Q5_K"
            return "IQ2_XXS" if ftype in ("IQ1_S", "IQ1_M") else "IQ3_S" if ftype in ("IQ2_S", "IQ2_M") else new
        return new
    if attn_v_like:
        new = _attn_v(ftype, new, st)
        st.i_attention_wv += 1
        return new
    if cat == "attn_k":
        if st.n_expert == 8:
            return "Q8_0"
        return {"IQ3_XS": "IQ3_XXS", "IQ3_XXS": "IQ2_S"}.get(ftype, new)
    if cat == "attn_q":
        return {"IQ3_XS": "IQ3_XXS", "IQ3_XXS": "IQ2_S"}.get(ftype, new)
    if cat == "ffn_down":
        i = layer if moe else st.i_ffn_down
        st.i_ffn_down += 1
        return _ffn_down(ftype, new, i, st.n_layer_all, st)
    if cat == "attn_output":
        if st.n_expert == 8:
            return "Q5_K" if ftype in _ATTN_OUT_Q5K_8EXP else new
        return {"Q2_K": "Q3_K", "IQ3_XXS": "IQ3_S", "Q3_K_M": "Q4_K", "Q3_K_L": "Q5_K", "IQ3_M": "Q4_K"}.get(ftype, new)
    if cat in ("ffn_gate", "ffn_up") and ftype == "IQ3_XS":
        n = st.n_layer_all
        return "IQ3_XXS" if n // 8 <= layer < 7 * n // 8 else new
    return new


def _attn_v(ftype: str, new: str, st: RecipeState) -> str:
    gqa4, i, n = st.n_gqa >= 4, st.i_attention_wv, st.n_attention_wv
    if ftype == "Q2_K":
        new = "Q4_K" if gqa4 else "Q3_K"
    elif ftype == "Q2_K_S" and gqa4:
        new = "Q4_K"
    elif ftype == "IQ3_XXS":
        new = "Q4_K" if gqa4 else "IQ3_S" if not st.has_imatrix else "IQ3_XXS"
    elif ftype in ("IQ3_XS", "IQ3_S") and gqa4:
        new = "Q4_K"
    elif ftype == "IQ3_M":
        new = "Q4_K"
    elif ftype == "Q3_K_M":
        new = "Q5_K" if i < 2 else "Q4_K"
    elif ftype == "Q3_K_L":
        new = "Q5_K"
    elif ftype in ("IQ4_NL", "IQ4_XS") and gqa4:
        new = "Q5_K"
    elif ftype in ("Q4_K_M", "Q5_K_M") and use_more_bits(i, n):
        new = "Q6_K"
    elif ftype == "Q4_K_S" and i < 4:
        new = "Q5_K"
    if st.is_70b and new in ("Q3_K", "Q4_K"):
        new = "Q5_K"
    return "Q8_0" if st.n_expert == 8 else new


def _ffn_down(ftype: str, new: str, i: int, n: int, st: RecipeState) -> str:
    if ftype == "Q2_K":
        return "Q3_K"
    if ftype == "Q2_K_S":
        return "Q4_K" if i < n // 8 else new
    if ftype == "IQ3_XXS" and not st.has_imatrix:
        return "Q4_K" if i < n // 8 else "Q3_K"
    if ftype == "Q3_K_M":
        return "Q5_K" if i < n // 16 else "Q4_K"
    if ftype == "IQ3_M" and (i < n // 8 or (st.n_expert == 8 and use_more_bits(i, n))):
        return "Q4_K"
    if ftype == "Q3_K_L":
        return "Q5_K"
    if ftype == "Q4_K_M":
        return "Q6_K" if use_more_bits(i, n) else new
    if i < n // 8 and ftype in ("IQ4_NL", "IQ4_XS") and not st.has_imatrix:
        return "Q5_K"
    if ftype == "Q5_K_M" and use_more_bits(i, n):
        return "Q6_K"
    if ftype == "Q4_K_S" and i < n // 8:
        return "Q5_K"
    if ftype in ("Q4_0", "Q5_0") and st.has_imatrix and i < n // 8:
        return "Q4_1" if ftype == "Q4_0" else "Q5_1"
    return new
