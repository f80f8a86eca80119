"""A model's architecture, normalised from its Hugging Face config.json into per-layer, per-tensor shapes.

Tensors carry llama.cpp's GGUF names and ggml shapes (``ne[0]`` is the row length, i.e. the input features),
because the GGUF quantisation recipe decides types by name, layer and ``ne[0]``. The same list serves the
vLLM-style checkpoints (BF16, FP8, AWQ, NVFP4), whose formats depend on the tensor's role only.

MTP rule: ``total_params()`` counts multi-token-prediction layers (they are in the published checkpoint);
GGUF files keep them only for the GLM-4.5 family (``glm4_moe``, whose converter writes the nextn block as an
extra ``blk.N``: llama-bench reports 110.47 B parameters for GLM-4.5-Air with it, 106.85 B without);
the DeepSeek, Kimi, Qwen3.5 and MiniMax converters drop them. Vision towers are not part of the text
architecture (llama.cpp keeps them in a separate mmproj file).
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, Literal, cast

AttentionKind = Literal["full", "sliding", "chunked", "mla", "compressed", "linear", "mamba", "none"]
FfnKind = Literal["dense", "moe", "none"]
Role = Literal["embed", "output", "attn", "ffn", "expert", "shared", "router", "norm", "ssm", "mtp"]

GGUF_KEEPS_MTP = frozenset({"glm4_moe"})


class ConfigError(ValueError):
    """A config.json that cannot describe a model: names the field at fault."""

    def __init__(self, field_name: str, message: str):
        self.field = field_name
        self.message = message
        super().__init__(f"{field_name}: {message}")


@dataclass(frozen=True)
class Tensor:
    """One stored tensor: GGUF name, ggml shape (ne[0] = row length), role and block index (-1 outside blocks)."""

    name: str
    ne: tuple[int, ...]
    role: Role
    layer: int = -1

    @property
    def elements(self) -> int:
        """Number of elements."""
        return math.prod(self.ne)

    @property
    def is_matrix(self) -> bool:
        """Whether the tensor is a 2-D/3-D weight that quantisers touch (weights, not biases or norms)."""
        return len(self.ne) >= 2 and self.ne[1] > 1 and self.name.endswith("weight") and "_norm" not in self.name


@dataclass(frozen=True)
class Layer:
    """One block: its token mixer (with KV/state shape) and its feed-forward kind."""

    index: int
    attention: AttentionKind
    ffn: FfnKind
    n_heads: int = 0
    n_kv_heads: int = 0  # KV heads stored per token (1 for the MLA latent)
    head_dim_k: int = 0  # elements per KV head for K (kv_lora_rank + qk_rope_head_dim for MLA)
    head_dim_v: int = 0  # elements per KV head for V (0 for MLA: V-less cache)
    value_dim: int = 0  # width attention multiplies values by, per head (kv_lora_rank for absorbed MLA)
    window: int | None = None  # sliding window or attention chunk, tokens
    conv_state: int = 0  # recurrent conv state elements per sequence
    ssm_state: int = 0  # recurrent SSM / delta-rule state elements per sequence
    mtp: bool = False
    index_dim: int = 0  # sparse-attention indexer key width (DeepSeek-V3.2 / GLM-5 DSA), cached by vLLM
    compress_ratio: int = 0  # DeepSeek-V4: tokens pooled into one compressed KV row (0: sliding window only)
    index_topk: int = 0  # DeepSeek-V4: compressed rows the indexer selects per query (0: all are read)
    index_heads: int = 0  # DeepSeek-V4: lightning-indexer query heads (they score every compressed row)


@dataclass(frozen=True)
class Architecture:
    """Normalised text architecture; equality and hashing use the config fingerprint only."""

    fingerprint: str
    model_type: str = field(compare=False)
    hidden_size: int = field(compare=False)
    vocab_size: int = field(compare=False)
    n_heads: int = field(compare=False)
    tied_embeddings: bool = field(compare=False)
    context_length: int = field(compare=False)
    n_experts: int = field(compare=False)
    experts_per_token: int = field(compare=False)
    layers: tuple[Layer, ...] = field(compare=False)
    tensors: tuple[Tensor, ...] = field(compare=False)
    dtype_bytes: int = field(compare=False, default=2)
    ssm_dtype_bytes: int = field(compare=False, default=2)  # vLLM recurrent-state dtype (mamba_ssm_cache_dtype)
    fp4_experts: bool = field(compare=False, default=False)  # routed experts released as FP4 (DeepSeek-V4 expert_dtype)

    @property
    def n_layers(self) -> int:
        """Number of main (non-MTP) blocks."""
        return len(self.main_layers)

    @cached_property
    def main_layers(self) -> tuple[Layer, ...]:
        """Blocks that run for every token (MTP blocks excluded)."""
        return tuple(layer for layer in self.layers if not layer.mtp)

    @cached_property
    def gguf_tensors(self) -> tuple[Tensor, ...]:
        """Tensors a GGUF conversion stores, in llama.cpp's loader order (non-block first, then by block, then name)."""
        keep_mtp = self.model_type in GGUF_KEEPS_MTP
        kept = [t for t in self.tensors if keep_mtp or t.layer < 0 or not self.layers[t.layer].mtp]
        return tuple(sorted(kept, key=lambda t: (t.layer, t.name)))

    @property
    def gguf_layer_count(self) -> int:
        """Blocks in the GGUF file (llama.cpp ``n_layer_all``)."""
        return len(self.layers) if self.model_type in GGUF_KEEPS_MTP else self.n_layers

    @property
    def n_gqa(self) -> int:
        """llama.cpp ``hparams.n_gqa()`` of layer 0 (0 when layer 0 has no KV heads)."""
        first = self.layers[0]
        if first.attention == "mla":
            return first.n_heads
        if first.n_kv_heads == 0 or first.attention in ("linear", "mamba", "none"):
            return 0
        return first.n_heads // first.n_kv_heads

    def _is_mtp(self, tensor: Tensor) -> bool:
        return tensor.layer >= 0 and self.layers[tensor.layer].mtp

    @cached_property
    def _counts(self) -> tuple[int, int, int]:
        total = sum(t.elements for t in self.tensors)
        main = sum(t.elements for t in self.tensors if not self._is_mtp(t))
        routed = sum(t.elements for t in self.tensors if t.role == "expert" and not self._is_mtp(t))
        return total, main, routed

    def total_params(self) -> int:
        """Parameters in the published checkpoint's text model (MTP layers included, vision excluded)."""
        return self._counts[0]

    def active_params(self) -> int:
        """Parameters one token uses in the main model: no MTP, only the routed share of the experts."""
        _, main, routed = self._counts
        if self.n_experts == 0:
            return main
        return main - routed + routed * self.experts_per_token // self.n_experts


# ---------------------------------------------------------------------------------------------- parsing


# transformers defaults for keys that sparse configs omit (configuration_gemma2.py, configuration_gemma3.py,
# configuration_gemma4.py: Gemma ties its embeddings; Gemma3TextConfig: vocab 262208, 5 local : 1 global).
_MODEL_DEFAULTS: dict[str, dict[str, Any]] = {
    "gemma2": {"tie_word_embeddings": True},
    "gemma3_text": {"tie_word_embeddings": True, "vocab_size": 262208, "sliding_window_pattern": 6,
                    "head_dim": 256, "max_position_embeddings": 131072, "num_attention_heads": 8,
                    "num_key_value_heads": 4},
    "gemma4_text": {"tie_word_embeddings": True},
}


def _text(config: Mapping[str, Any]) -> dict[str, Any]:
    """The text model's fields: ``text_config`` merged over top-level keys, then model-type defaults."""
    if not isinstance(config, Mapping):
        raise ConfigError("config", "must be a JSON object")
    nested = config.get("text_config")
    merged = dict(config)
    if isinstance(nested, Mapping):
        merged = {**{k: v for k, v in config.items() if k != "text_config"}, **nested}
    defaults = _MODEL_DEFAULTS.get(str(merged.get("model_type", "")), {})
    return {**defaults, **{k: v for k, v in merged.items() if v is not None or k not in defaults}}


# Upper bounds far above any published model (layers: 126 for Llama 3.1 405B; experts: 512; vocabulary: 262,144),
# low enough that a mistyped or hostile number cannot make the parser build billions of tensors. Other integers
# (sizes, context lengths, windows) share the default bound.
_LAYER_BOUND = 4_096
_BOUNDS = {
    "num_hidden_layers": _LAYER_BOUND, "num_layers": _LAYER_BOUND, "n_layer": _LAYER_BOUND,
    "num_nextn_predict_layers": 64, "mtp_num_hidden_layers": 64,
    "num_attention_heads": 4_096, "n_head": 4_096, "num_key_value_heads": 4_096, "num_global_key_value_heads": 4_096,
    "n_routed_experts": 65_536, "num_experts": 65_536, "num_local_experts": 65_536, "moe_num_experts": 65_536,
    "hidden_size": 2**20, "d_model": 2**20, "n_embd": 2**20, "head_dim": 65_536, "attention_head_dim": 65_536,
    "vocab_size": 2**24,
}
_DEFAULT_BOUND = 2**30


def _int(cfg: Mapping[str, Any], *names: str, default: int | None = None) -> int:
    for name in names:
        value = cfg.get(name)
        if value is None:
            continue
        if isinstance(value, list) and value:  # per-layer lists (Hunyuan): the largest entry, conservatively
            value = max(value, key=lambda v: v if isinstance(v, (int, float)) and not isinstance(v, bool) else -1)
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) \
                or value < 0 or value != int(value):
            raise ConfigError(name, f"must be a non-negative integer, got {value!r}")
        bound = _BOUNDS.get(name, _DEFAULT_BOUND)
        if value > bound:
            raise ConfigError(name, f"must be at most {bound:,}, got {value:,}")
        return int(value)
    if default is None:
        raise ConfigError(names[0], "is required")
    return default


def _dtype_bytes(cfg: Mapping[str, Any]) -> int:
    dtype = str(cfg.get("torch_dtype") or cfg.get("dtype") or "bfloat16")
    return 4 if dtype == "float32" else 2


def _ssm_dtype_bytes(cfg: Mapping[str, Any]) -> int:
    if cfg.get("model_type") == "kimi_linear":  # vLLM mamba_utils.kda_state_dtype: recurrent state always float32
        return 4
    dtype = cfg.get("mamba_ssm_cache_dtype") or cfg.get("mamba_ssm_dtype")
    return 4 if dtype == "float32" else _dtype_bytes(cfg)


def _layer_plan(cfg: Mapping[str, Any], n_layers: int) -> list[str]:
    """Per-layer mixer: full, sliding, chunked, linear, mamba or none (MLA decided later)."""
    pattern = _nemotron_pattern(cfg)
    if pattern:
        if len(pattern) != n_layers:
            raise ConfigError("hybrid_override_pattern", f"has {len(pattern)} entries for {n_layers} layers")
        return [{"M": "mamba", "*": "full"}.get(ch, "none") for ch in pattern]
    if isinstance(cfg.get("compress_ratios"), list):  # DeepSeek-V4: every layer has a window, most also compress
        return ["compressed"] * n_layers
    kda = _kda_layers(cfg)
    if kda is not None:  # Kimi-Linear: 1-based KDA layer numbers, the others MLA (vLLM KimiLinearConfig.is_kda_layer)
        return ["linear" if i + 1 in kda else "full" for i in range(n_layers)]
    hybrid = cfg.get("hybrid_layer_pattern")
    if isinstance(hybrid, list) and hybrid:  # MiMo-V2: 1 = sliding window, 0 = full (vLLM mimo_v2_flash.py)
        if len(hybrid) < n_layers or any(v not in (0, 1) for v in hybrid):
            raise ConfigError("hybrid_layer_pattern", f"must list 0 or 1 for each of the {n_layers} layers")
        return ["sliding" if hybrid[i] else "full" for i in range(n_layers)]
    types = cfg.get("layer_types")
    if isinstance(types, list) and types:
        if len(types) < n_layers:
            raise ConfigError("layer_types", f"has {len(types)} entries for {n_layers} layers")
        names = {"full_attention": "full", "attention": "full", "sliding_attention": "sliding",
                 "chunked_attention": "chunked", "linear_attention": "linear", "mamba": "mamba"}
        unknown = sorted({t for t in types if t not in names})
        if unknown:
            raise ConfigError("layer_types", f"unknown layer type {unknown[0]!r}")
        return [names[t] for t in types[:n_layers]]
    interval = cfg.get("full_attention_interval")
    if isinstance(interval, int) and interval > 0 and cfg.get("linear_num_value_heads"):
        return ["full" if (i + 1) % interval == 0 else "linear" for i in range(n_layers)]
    if cfg.get("attention_chunk_size"):
        step = _int(cfg, "no_rope_layer_interval", default=4)
        return ["full" if (i + 1) % step == 0 else "chunked" for i in range(n_layers)]
    window = cfg.get("sliding_window")
    period = cfg.get("sliding_window_pattern") or cfg.get("_sliding_window_pattern")
    if window and period:
        return ["full" if (i + 1) % int(period) == 0 else "sliding" for i in range(n_layers)]
    if window and cfg.get("model_type") == "gemma2":
        return ["sliding" if i % 2 == 0 else "full" for i in range(n_layers)]
    return ["full"] * n_layers


_BLOCK_CHARS = {"mamba": "M", "attention": "*", "moe": "E", "mlp": "-"}


def _kda_layers(cfg: Mapping[str, Any]) -> set[int] | None:
    """Kimi Delta Attention layer numbers (1-based) from ``linear_attn_config``, or None for other models."""
    linear = cfg.get("linear_attn_config")
    if not isinstance(linear, Mapping):
        return None
    layers = linear.get("kda_layers")
    if not isinstance(layers, list) or not all(isinstance(v, int) and not isinstance(v, bool) for v in layers):
        raise ConfigError("linear_attn_config.kda_layers", "must be a list of layer numbers")
    return set(layers)


def _nemotron_pattern(cfg: Mapping[str, Any], key: str = "") -> str:
    """Nemotron-H block pattern ("M" Mamba-2, "*" attention, "E" MoE, "-" MLP) from either spelling."""
    pattern = cfg.get(key + "hybrid_override_pattern")
    if isinstance(pattern, str):
        return pattern
    blocks = cfg.get(key + "layers_block_type")
    if isinstance(blocks, list):
        if any(b not in _BLOCK_CHARS for b in blocks):
            raise ConfigError(key + "layers_block_type", "has an unknown block type")
        return "".join(_BLOCK_CHARS[b] for b in blocks)
    return ""


def _ffn_plan(cfg: Mapping[str, Any], plan: list[str], n_experts: int) -> list[str]:
    """Per-layer feed-forward: dense, moe or none."""
    pattern = _nemotron_pattern(cfg)
    if pattern:
        return [{"E": "moe", "-": "dense"}.get(ch, "none") for ch in pattern]
    n = len(plan)
    if n_experts == 0:
        return ["dense"] * n
    per_layer = cfg.get("moe_layer_freq")
    if isinstance(per_layer, list):  # MiMo-V2: one 0/1 flag per layer
        if len(per_layer) < n:
            raise ConfigError("moe_layer_freq", f"has {len(per_layer)} entries for {n} layers")
        return ["moe" if per_layer[i] else "dense" for i in range(n)]
    first_dense = _int(cfg, "first_k_dense_replace", default=0)
    only_dense = set(cfg.get("mlp_only_layers") or [])
    step = _int(cfg, "decoder_sparse_step", "interleave_moe_layer_step", default=1) or 1
    freq = _int(cfg, "moe_layer_freq", default=1) or 1
    return ["dense" if i < first_dense or i in only_dense or (i + 1) % step or (i - first_dense) % freq else "moe"
            for i in range(n)]


_PARSED: dict[str, Architecture] = {}  # by fingerprint: the catalogue check and the estimate stage parse each once


def parse_hf_config(config: Mapping[str, Any]) -> Architecture:
    """Normalise a Hugging Face config.json (text model, nested under ``text_config`` or not)."""
    cfg = _text(config)
    fingerprint = json.dumps(cfg, sort_keys=True, default=str)
    found = _PARSED.get(fingerprint)
    if found is None:
        found = _PARSED[fingerprint] = _parse(cfg, fingerprint)
    return found


def _parse(cfg: Mapping[str, Any], fingerprint: str) -> Architecture:
    hidden = _int(cfg, "hidden_size", "d_model", "n_embd")
    n_layers = _int(cfg, "num_hidden_layers", "num_layers", "n_layer", default=len(_nemotron_pattern(cfg)) or None)
    vocab = _int(cfg, "vocab_size")
    if 0 in (hidden, n_layers, vocab):
        raise ConfigError("hidden_size" if hidden == 0 else "num_hidden_layers" if n_layers == 0 else "vocab_size",
                          "must be positive")
    n_heads = _int(cfg, "num_attention_heads", "n_head")
    if n_heads == 0:
        raise ConfigError("num_attention_heads", "must be positive")
    n_experts = _int(cfg, "n_routed_experts", "num_experts", "num_local_experts", "moe_num_experts", default=0)
    top_k = _int(cfg, "num_experts_per_tok", "num_experts_per_token", "experts_per_token", "top_k_experts", "moe_topk",
                 "moe_k", default=0)
    if n_experts and not 0 < top_k <= n_experts:
        raise ConfigError("num_experts_per_tok", f"must be between 1 and {n_experts}")
    plan = _layer_plan(cfg, n_layers)
    ffn = _ffn_plan(cfg, plan, n_experts)
    builder = _Builder(cfg, hidden, n_heads, n_experts)
    layers: list[Layer] = []
    tensors: list[Tensor] = [Tensor("token_embd.weight", (hidden, vocab), "embed"),
                             Tensor("output_norm.weight", (hidden,), "norm")]
    tied = bool(cfg.get("tie_word_embeddings", False))
    if not tied:
        tensors.append(Tensor("output.weight", (hidden, vocab), "output"))
    for i in range(n_layers):
        layer, block = builder.block(i, plan[i], ffn[i])
        layers.append(layer)
        tensors += block
    if cfg.get("hc_mult"):
        tensors += builder.hyper_head("output_")
    n_mtp = _int(cfg, "num_nextn_predict_layers", "mtp_num_hidden_layers", default=0)
    mtp_pattern = _nemotron_pattern(cfg, "mtp_")
    for j in range(n_mtp):
        i = n_layers + j
        mixer = "full" if "*" in mtp_pattern or plan[-1] == "linear" else plan[-1]  # DeepSeek-V4: ratio 0 slot
        layer, block = builder.block(i, mixer, "moe" if "E" in mtp_pattern else ffn[-1])
        layers.append(Layer(**{**layer.__dict__, "mtp": True}))
        tensors += block + builder.mtp_extra(i)
    context = _int(cfg, "max_position_embeddings", "max_seq_len", "seq_length", "model_max_length", default=0)
    return Architecture(fingerprint, str(cfg.get("model_type", "")), hidden, vocab, n_heads, tied, context,
                        n_experts, top_k, tuple(layers), tuple(tensors), _dtype_bytes(cfg), _ssm_dtype_bytes(cfg),
                        cfg.get("expert_dtype") == "fp4")


class _Builder:
    """Tensor shapes of one block, per mixer and feed-forward kind."""

    def __init__(self, cfg: Mapping[str, Any], hidden: int, n_heads: int, n_experts: int):
        self.cfg, self.h, self.n_heads, self.n_experts = cfg, hidden, n_heads, n_experts
        self.n_kv = _int(cfg, "num_key_value_heads", default=n_heads)
        if self.n_kv == 0 or n_heads % self.n_kv:
            raise ConfigError("num_key_value_heads", f"must be a positive divisor of num_attention_heads ({n_heads}), "
                              f"got {self.n_kv}")
        self.head_dim = _int(cfg, "head_dim", "attention_head_dim", default=hidden // n_heads)
        if self.head_dim == 0:
            raise ConfigError("head_dim" if cfg.get("head_dim") is not None else "attention_head_dim"
                              if cfg.get("attention_head_dim") is not None else "hidden_size",
                              "must be positive" if hidden >= n_heads else "must be at least num_attention_heads")
        self.model_type = str(cfg.get("model_type", ""))
        self.mla = cfg.get("kv_lora_rank") is not None
        bias = cfg.get("attention_bias")
        self.qkv_bias = bool(bias) or (bias is None and self.model_type in ("qwen2", "qwen2_moe"))
        self.o_bias = bool(bias) and self.model_type in ("gpt_oss",)
        self.qk_norm = bool(cfg.get("use_qk_norm")) and self.model_type != "llama4_text" or self.model_type in (
            "qwen3", "qwen3_moe", "qwen3_next", "qwen3_5_text", "qwen3_5_moe_text", "gemma3_text", "gemma4_text",
            "minimax_m2")
        self.gated_q = bool(cfg.get("attn_output_gate")) or self.model_type == "qwen3_next"
        self.gated_ffn = str(cfg.get("mlp_hidden_act", cfg.get("hidden_act", "silu"))) != "relu2"
        self.dense_ff = _int(cfg, "intermediate_size_mlp", "intermediate_size", "ffn_hidden_size", default=0)
        self.moe_ff = _int(cfg, "moe_intermediate_size", "intermediate_size", default=0)
        self.shared_ff = self._shared_ff()
        self.window = cfg.get("sliding_window") or None
        self.top_k = _int(cfg, "num_experts_per_tok", "num_experts_per_token", default=0)
        self.chunk = cfg.get("attention_chunk_size") or None

    def _shared_ff(self) -> int:
        cfg = self.cfg
        explicit = _int(cfg, "shared_expert_intermediate_size", "moe_shared_expert_intermediate_size",
                        "shared_intermediate_size", default=-1)
        if explicit >= 0:
            return explicit
        if self.model_type == "llama4_text":
            return self.moe_ff
        return _int(cfg, "n_shared_experts", "num_shared_expert", "num_shared_experts", default=0) * self.moe_ff

    def block(self, i: int, mixer: str, ffn: str) -> tuple[Layer, list[Tensor]]:
        """The layer description and tensors of block ``i``."""
        p = f"blk.{i}."
        norm = [Tensor(p + "attn_norm.weight", (self.h,), "norm", i)]
        if mixer == "mamba":
            layer, mix = self._mamba(i, p)
        elif mixer == "linear" and self.cfg.get("linear_attn_config") is not None:
            layer, mix = self._kda(i, p)
        elif mixer == "linear":
            layer, mix = self._linear(i, p)
        elif mixer == "none":
            layer, mix = Layer(i, "none", "dense"), []
        elif mixer == "compressed":
            layer, mix = self._compressed(i, p)
        elif self.mla:
            layer, mix = self._mla(i, p)
        else:
            layer, mix = self._attention(i, p, mixer)
        feed = self._ffn(i, p, ffn)
        if ffn != "none" and mixer != "none" and self.model_type != "nemotron_h":
            norm.append(Tensor(p + "ffn_norm.weight", (self.h,), "norm", i))
        return Layer(**{**layer.__dict__, "ffn": ffn}), norm + mix + feed

    def _attention(self, i: int, p: str, mixer: str) -> tuple[Layer, list[Tensor]]:
        h, hd, nq, nkv = self.h, self.head_dim, self.n_heads, self.n_kv
        window = self.window if mixer == "sliding" else self.chunk if mixer == "chunked" else None
        if mixer != "full" and not window:
            raise ConfigError("sliding_window", f"layer {i} is {mixer} but no window size is given")
        shared_kv = False
        v_dim = 0
        sinks = self.model_type == "gpt_oss"
        if mixer == "sliding" and self.cfg.get("swa_head_dim"):  # MiMo-V2 sliding layers have their own shape
            nq = _int(self.cfg, "swa_num_attention_heads", default=nq)
            nkv = _int(self.cfg, "swa_num_key_value_heads", default=nkv)
            hd = _int(self.cfg, "swa_head_dim")
            v_dim = _int(self.cfg, "swa_v_head_dim", default=hd)
            sinks = bool(self.cfg.get("add_swa_attention_sink_bias"))
        elif mixer == "full" and self.cfg.get("swa_head_dim"):
            sinks = bool(self.cfg.get("add_full_attention_sink_bias"))
        if mixer == "full" and self.cfg.get("global_head_dim"):  # Gemma 4 global layers
            hd = _int(self.cfg, "global_head_dim")
            nkv = _int(self.cfg, "num_global_key_value_heads", default=nkv)
            shared_kv = bool(self.cfg.get("attention_k_eq_v"))
        v_dim = v_dim or _int(self.cfg, "v_head_dim", default=hd)  # MiMo-V2: V narrower than K (192 / 128)
        q_out = nq * hd * (2 if self.gated_q else 1)
        ts = [Tensor(p + "attn_q.weight", (h, q_out), "attn", i), Tensor(p + "attn_k.weight", (h, nkv * hd), "attn", i),
              Tensor(p + "attn_output.weight", (nq * v_dim, h), "attn", i)]
        if not shared_kv:
            ts.append(Tensor(p + "attn_v.weight", (h, nkv * v_dim), "attn", i))
        if self.model_type.startswith("gemma"):
            ts.append(Tensor(p + "post_attention_norm.weight", (h,), "norm", i))
        if self.qkv_bias:
            ts += [Tensor(p + f"attn_{n}.bias", (size,), "attn", i)
                   for n, size in (("q", nq * hd), ("k", nkv * hd), ("v", nkv * v_dim))]
        if self.o_bias:
            ts.append(Tensor(p + "attn_output.bias", (h,), "attn", i))
        if self.qk_norm:  # MiniMax-M2 normalises the whole projection ("per_layer"), the others per head
            q_n, k_n = (nq * hd, nkv * hd) if self.cfg.get("qk_norm_type") == "per_layer" else (hd, hd)
            ts += [Tensor(p + "attn_q_norm.weight", (q_n,), "norm", i), Tensor(p + "attn_k_norm.weight", (k_n,), "norm", i)]
        if sinks:
            ts.append(Tensor(p + "attn_sinks.weight", (nq,), "attn", i))
        kind = cast(AttentionKind, mixer)
        return Layer(i, kind, "dense", nq, nkv, hd, v_dim, v_dim, window), ts

    def _mla(self, i: int, p: str) -> tuple[Layer, list[Tensor]]:
        cfg, h, nq = self.cfg, self.h, self.n_heads
        q_lora = _int(cfg, "q_lora_rank", default=0)
        kv_lora = _int(cfg, "kv_lora_rank")
        rope = _int(cfg, "qk_rope_head_dim")
        nope = _int(cfg, "qk_nope_head_dim")
        v_dim = _int(cfg, "v_head_dim")
        qk = nope + rope
        ts = [Tensor(p + "attn_kv_a_mqa.weight", (h, kv_lora + rope), "attn", i),
              Tensor(p + "attn_kv_a_norm.weight", (kv_lora,), "norm", i),
              Tensor(p + "attn_k_b.weight", (nope, kv_lora, nq), "attn", i),
              Tensor(p + "attn_v_b.weight", (kv_lora, v_dim, nq), "attn", i),
              Tensor(p + "attn_output.weight", (nq * v_dim, h), "attn", i)]
        if q_lora:
            ts += [Tensor(p + "attn_q_a.weight", (h, q_lora), "attn", i),
                   Tensor(p + "attn_q_a_norm.weight", (q_lora,), "norm", i),
                   Tensor(p + "attn_q_b.weight", (q_lora, nq * qk), "attn", i)]
        else:
            ts.append(Tensor(p + "attn_q.weight", (h, nq * qk), "attn", i))
        idx_heads = _int(cfg, "index_n_heads", default=0)
        idx_dim = _int(cfg, "index_head_dim") if idx_heads else 0
        if idx_heads:  # DeepSeek-V3.2 / GLM-5 sparse-attention indexer
            ts += [Tensor(p + "indexer.attn_q_b.weight", (q_lora or h, idx_heads * idx_dim), "attn", i),
                   Tensor(p + "indexer.attn_k.weight", (h, idx_dim), "attn", i),
                   Tensor(p + "indexer.k_norm.weight", (idx_dim,), "norm", i),
                   Tensor(p + "indexer.k_norm.bias", (idx_dim,), "norm", i),
                   Tensor(p + "indexer.proj.weight", (h, idx_heads), "attn", i)]
        return Layer(i, "mla", "dense", nq, 1, kv_lora + rope, 0, kv_lora, index_dim=idx_dim), ts

    def _linear(self, i: int, p: str) -> tuple[Layer, list[Tensor]]:
        """Gated DeltaNet (Qwen3-Next, Qwen3.5) with llama.cpp's tensor names (llama-arch.cpp)."""
        cfg, h = self.cfg, self.h
        nk, nv = _int(cfg, "linear_num_key_heads"), _int(cfg, "linear_num_value_heads")
        dk, dv = _int(cfg, "linear_key_head_dim"), _int(cfg, "linear_value_head_dim")
        kernel = _int(cfg, "linear_conv_kernel_dim", default=4)
        conv_dim = 2 * nk * dk + nv * dv
        if self.model_type == "qwen3_next":  # llama.cpp qwen3next fuses q, k, v, z and b, a
            ts = [Tensor(p + "ssm_in.weight", (h, conv_dim + nv * dv), "ssm", i),
                  Tensor(p + "ssm_ba.weight", (h, 2 * nv), "ssm", i)]
        else:
            ts = [Tensor(p + "attn_qkv.weight", (h, conv_dim), "ssm", i),
                  Tensor(p + "attn_gate.weight", (h, nv * dv), "ssm", i),
                  Tensor(p + "ssm_beta.weight", (h, nv), "ssm", i), Tensor(p + "ssm_alpha.weight", (h, nv), "ssm", i)]
        ts += [Tensor(p + "ssm_conv1d.weight", (kernel, conv_dim), "ssm", i),
               Tensor(p + "ssm_dt.bias", (nv,), "ssm", i), Tensor(p + "ssm_a", (nv,), "ssm", i),
               Tensor(p + "ssm_norm.weight", (dv,), "norm", i), Tensor(p + "ssm_out.weight", (nv * dv, h), "ssm", i)]
        layer = Layer(i, "linear", "dense", conv_state=(kernel - 1) * conv_dim, ssm_state=nv * dk * dv)
        return layer, ts

    def _compressed(self, i: int, p: str) -> tuple[Layer, list[Tensor]]:
        """DeepSeek-V4 attention (DeepSeek inference/model.py ``Attention``, ``Compressor``, ``Indexer``; vLLM
        models/deepseek_v4): one 512-wide K=V row per token kept for a sliding window, plus for compress_ratio 4 or
        128 a learned compressor pooling that many tokens into one row; ratio-4 layers add a lightning indexer."""
        cfg, h, nq = self.cfg, self.h, self.n_heads
        ratios = cfg["compress_ratios"]
        ratio = ratios[i] if i < len(ratios) else 0
        if not isinstance(ratio, int) or isinstance(ratio, bool) or ratio not in (0, 4, 128):
            raise ConfigError("compress_ratios", f"layer {i} has ratio {ratio!r}; DeepSeek-V4 uses 0, 4 or 128")
        hd, q_lora = self.head_dim, _int(cfg, "q_lora_rank")
        groups, o_lora = _int(cfg, "o_groups"), _int(cfg, "o_lora_rank")
        window = _int(cfg, "sliding_window")
        if groups == 0 or nq * hd % groups:
            raise ConfigError("o_groups", f"must divide the {nq * hd} attention output channels")
        ts = [Tensor(p + "attn_q_a.weight", (h, q_lora), "attn", i),
              Tensor(p + "attn_q_a_norm.weight", (q_lora,), "norm", i),
              Tensor(p + "attn_q_b.weight", (q_lora, nq * hd), "attn", i),
              Tensor(p + "attn_kv.weight", (h, hd), "attn", i), Tensor(p + "attn_kv_norm.weight", (hd,), "norm", i),
              Tensor(p + "attn_output_a.weight", (nq * hd // groups, groups * o_lora), "attn", i),
              Tensor(p + "attn_output_b.weight", (groups * o_lora, h), "attn", i),
              Tensor(p + "attn_sinks.weight", (nq,), "attn", i)]
        ts += self._hyper_connection(p + "hc_attn", i) + self._hyper_connection(p + "hc_ffn", i)
        idx_dim = topk = idx_heads = 0
        if ratio:
            ts += self._compressor(p + "compress", ratio, hd, i)
        if ratio == 4:
            idx_heads, idx_dim, topk = _int(cfg, "index_n_heads"), _int(cfg, "index_head_dim"), _int(cfg, "index_topk")
            ts += [Tensor(p + "indexer.attn_q_b.weight", (q_lora, idx_heads * idx_dim), "attn", i),
                   Tensor(p + "indexer.proj.weight", (h, idx_heads), "attn", i)]
            ts += self._compressor(p + "indexer.compress", ratio, idx_dim, i)
        layer = Layer(i, "compressed", "dense", nq, 1, hd, 0, hd, window, index_dim=idx_dim, compress_ratio=ratio,
                      index_topk=topk, index_heads=idx_heads if ratio == 4 else 0)
        return layer, ts

    def _compressor(self, p: str, ratio: int, dim: int, i: int) -> list[Tensor]:
        """A DeepSeek-V4 compressor: ratio-4 ones pool overlapping windows, so their projections are twice as wide."""
        width = dim * (2 if ratio == 4 else 1)
        return [Tensor(p + "_ape", (width, ratio), "attn", i), Tensor(p + "_wkv.weight", (self.h, width), "attn", i),
                Tensor(p + "_wgate.weight", (self.h, width), "attn", i), Tensor(p + "_norm.weight", (dim,), "norm", i)]

    def _hyper_connection(self, p: str, i: int) -> list[Tensor]:
        """Manifold-constrained hyper-connection mixing weights (vLLM deepseek_v4 hyper_connection.py), float32."""
        mult = _int(self.cfg, "hc_mult")
        mix = (2 + mult) * mult
        return [Tensor(p + "_fn", (mult * self.h, mix), "norm", i), Tensor(p + "_base", (mix,), "norm", i),
                Tensor(p + "_scale", (3,), "norm", i)]

    def hyper_head(self, p: str, i: int = -1) -> list[Tensor]:
        """The hyper-connection head that merges the copies before the output norm (DeepSeek-V4)."""
        mult = _int(self.cfg, "hc_mult")
        return [Tensor(p + "hc_head_fn", (mult * self.h, mult), "norm", i),
                Tensor(p + "hc_head_base", (mult,), "norm", i), Tensor(p + "hc_head_scale", (1,), "norm", i)]

    def _kda(self, i: int, p: str) -> tuple[Layer, list[Tensor]]:
        """Kimi Delta Attention (vLLM layers/kda.py): q, k, v each with a short conv, low-rank f and g gates."""
        linear, h = self.cfg["linear_attn_config"], self.h
        n = _int(linear, "num_heads")
        d = _int(linear, "head_dim")
        kernel = _int(linear, "short_conv_kernel_size", default=4)
        proj = n * d
        ts = [Tensor(p + f"attn_{x}.weight", (h, proj), "ssm", i) for x in ("q", "k", "v")]
        ts += [Tensor(p + f"ssm_conv1d_{x}.weight", (kernel, proj), "ssm", i) for x in ("q", "k", "v")]
        ts += [Tensor(p + "ssm_f_a.weight", (h, d), "ssm", i), Tensor(p + "ssm_f_b.weight", (d, proj), "ssm", i),
               Tensor(p + "ssm_g_a.weight", (h, d), "ssm", i), Tensor(p + "ssm_g_b.weight", (d, proj), "ssm", i),
               Tensor(p + "ssm_beta.weight", (h, n), "ssm", i), Tensor(p + "ssm_dt.bias", (proj,), "ssm", i),
               Tensor(p + "ssm_a", (n,), "ssm", i), Tensor(p + "ssm_norm.weight", (d,), "norm", i),
               Tensor(p + "attn_output.weight", (proj, h), "ssm", i)]
        # state per sequence: q, k and v conv windows of kernel − 1 columns, and an n × d × d delta-rule state
        layer = Layer(i, "linear", "dense", conv_state=3 * (kernel - 1) * proj, ssm_state=n * d * d)
        return layer, ts

    def _mamba(self, i: int, p: str) -> tuple[Layer, list[Tensor]]:
        """Mamba-2 (Nemotron-H, Granite-4.0-H)."""
        cfg, h = self.cfg, self.h
        n_heads = _int(cfg, "mamba_num_heads", "mamba_n_heads")
        d_inner = n_heads * _int(cfg, "mamba_head_dim", "mamba_d_head")
        groups = _int(cfg, "n_groups", "mamba_n_groups", default=1)
        d_state = _int(cfg, "ssm_state_size", "mamba_d_state")
        kernel = _int(cfg, "conv_kernel", "mamba_d_conv", default=4)
        conv_dim = d_inner + 2 * groups * d_state
        ts = [Tensor(p + "ssm_in.weight", (h, 2 * d_inner + 2 * groups * d_state + n_heads), "ssm", i),
              Tensor(p + "ssm_conv1d.weight", (kernel, conv_dim), "ssm", i),
              Tensor(p + "ssm_conv1d.bias", (conv_dim,), "ssm", i),
              Tensor(p + "ssm_dt.bias", (n_heads,), "ssm", i), Tensor(p + "ssm_a", (1, n_heads), "ssm", i),
              Tensor(p + "ssm_d", (1, n_heads), "ssm", i),
              Tensor(p + "ssm_norm.weight", (d_inner // groups, groups), "norm", i),
              Tensor(p + "ssm_out.weight", (d_inner, h), "ssm", i)]
        layer = Layer(i, "mamba", "dense", conv_state=(kernel - 1) * conv_dim, ssm_state=d_state * d_inner)
        return layer, ts

    def _ffn(self, i: int, p: str, kind: str) -> list[Tensor]:
        h = self.h
        if kind == "none":
            return []
        post = [Tensor(p + "post_ffw_norm.weight", (h,), "norm", i)] if self.model_type.startswith("gemma") else []
        if kind == "dense":
            return self._mlp(p, "", self.dense_ff, "ffn", i) + post
        e, ff = self.n_experts, self.moe_ff
        if ff == 0:
            raise ConfigError("moe_intermediate_size", "is required for a mixture-of-experts model")
        ts = [Tensor(p + "ffn_gate_inp.weight", (h, e), "router", i)] + post
        if self.cfg.get("enable_moe_block"):  # Gemma 4 MoE layers keep a dense MLP beside the experts
            ts += self._mlp(p, "", self.dense_ff, "ffn", i)
        width = _int(self.cfg, "moe_latent_size", default=0) or h  # Nemotron-3 latent MoE: experts work in a latent
        if width != h:
            ts += [Tensor(p + "ffn_latent_in.weight", (h, width), "ffn", i),
                   Tensor(p + "ffn_latent_out.weight", (width, h), "ffn", i)]
        names = (["gate"] if self.gated_ffn else []) + ["up"]
        ts += [Tensor(p + f"ffn_{n}_exps.weight", (width, ff, e), "expert", i) for n in names]
        ts.append(Tensor(p + "ffn_down_exps.weight", (ff, width, e), "expert", i))
        if self.model_type == "gpt_oss":
            ts += [Tensor(p + "ffn_gate_inp.bias", (e,), "router", i)]
            ts += [Tensor(p + f"ffn_{n}_exps.bias", (ff, e), "expert", i) for n in names]
            ts.append(Tensor(p + "ffn_down_exps.bias", (h, e), "expert", i))
        if i < _int(self.cfg, "num_hash_layers", default=0):  # DeepSeek-V4: a token-id → experts table, no bias
            ts.append(Tensor(p + "ffn_gate_tid2eid", (self.top_k, _int(self.cfg, "vocab_size")), "router", i))
        elif self.cfg.get("topk_method") == "noaux_tc" or self.model_type in ("glm4_moe", "nemotron_h", "minimax_m2",
                                                                                "kimi_linear"):
            ts.append(Tensor(p + "exp_probs_b.bias", (e,), "router", i))
        if self.shared_ff:
            ts += self._mlp(p, "_shexp", self.shared_ff, "shared", i)
            if self.model_type in ("qwen2_moe", "qwen3_next", "qwen3_5_moe_text"):
                ts.append(Tensor(p + "ffn_gate_inp_shexp.weight", (h,), "shared", i))
        return ts

    def _mlp(self, p: str, suffix: str, ff: int, role: Role, i: int) -> list[Tensor]:
        if ff == 0:
            raise ConfigError("intermediate_size", "is required for a dense feed-forward layer")
        names = (["gate"] if self.gated_ffn else []) + ["up"]
        ts = [Tensor(p + f"ffn_{n}{suffix}.weight", (self.h, ff), role, i) for n in names]
        return ts + [Tensor(p + f"ffn_down{suffix}.weight", (ff, self.h), role, i)]

    def mtp_extra(self, i: int) -> list[Tensor]:
        """The projection and norms an MTP block adds to a decoder layer (embedding and head are shared)."""
        p, h = f"blk.{i}.", self.h
        ts = [Tensor(p + "nextn.eh_proj.weight", (2 * h, h), "mtp", i),
              Tensor(p + "nextn.enorm.weight", (h,), "norm", i), Tensor(p + "nextn.hnorm.weight", (h,), "norm", i),
              Tensor(p + "nextn.shared_head_norm.weight", (h,), "norm", i)]
        if self.model_type == "deepseek_v4":  # e_proj + h_proj, and its own hyper-connection head
            return ts + self.hyper_head(p + "nextn.", i)
        if self.model_type.startswith("deepseek") or self.model_type == "glm4_moe":  # these ship embedding + head copies
            vocab = _int(self.cfg, "vocab_size")
            ts += [Tensor(p + "nextn.embed_tokens.weight", (h, vocab), "mtp", i),
                   Tensor(p + "nextn.shared_head_head.weight", (h, vocab), "mtp", i)]
        return ts
