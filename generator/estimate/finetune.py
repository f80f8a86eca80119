"""Fine-tuning memory per GPU: QLoRA, LoRA and full fine-tuning, with every assumption in the result.

Rules (bytes per parameter unless stated):
* Full fine-tuning, mixed-precision AdamW: 2 (16-bit weights) + 2 (16-bit gradients) + 4 (FP32 master weights)
  + 4 + 4 (Adam first and second moments) = 16. With an 8-bit optimizer the moments take 1 + 1 → 10.
  ZeRO stage 1 shards the FP32 master weights and moments across the GPUs, stage 2 also the gradients,
  stage 3 also the 16-bit weights (Rajbhandari et al., "ZeRO", arXiv:1910.02054).
* LoRA: frozen 16-bit base (2 per parameter); the adapters train with the optimizer rule above.
* QLoRA: block matrices in NF4 with double quantisation, 4 + 8/64 + 32/(64·256) = 4.127 bits per parameter
  (Dettmers et al., "QLoRA", arXiv:2305.14314, §2: 64-weight blocks, 8-bit absmax constants in 256-blocks);
  embeddings, output head, norms and biases stay 16-bit.
* LoRA adapters: rank × (in + out) per adapted matrix — every attention projection and dense/shared MLP
  projection; routed experts only when ``lora_experts`` (each expert gets its own adapter).
* Activations with gradient checkpointing (one checkpoint per layer): n_layers × seq × batch × hidden × 2 bytes
  for the checkpoints, plus one layer recomputed in full: seq × batch × hidden × 34 bytes (Korthikanti et al.,
  "Reducing Activation Recomputation", arXiv:2205.05198, eq. 1 with flash attention, which removes the
  5·heads·seq/hidden score term), plus FP32 logits: seq × batch × vocab × 4 bytes.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from typing import Literal, Protocol, cast

Method = Literal["qlora", "lora", "full"]
Optimizer = Literal["adamw", "adamw8bit"]

NF4_BITS_PER_PARAM = 4 + 8 / 64 + 32 / (64 * 256)
OPTIMIZER_BYTES = {"adamw": 12, "adamw8bit": 6}  # FP32 master + moments (4 + 4 + 4, or 4 + 1 + 1)
HALF_BYTES = 2  # a 16-bit weight or gradient
# The defaults of finetune_memory (the pages' setup).
MICRO_BATCH = 1
OPTIMIZER: Optimizer = "adamw"
LORA_RANK = 16
LORA_EXPERTS = False
ADAPTED_ROLES = frozenset({"attn", "ffn", "shared"})
QUANTIZED_ROLES = frozenset({"attn", "ffn", "shared", "expert", "router", "ssm"})
LAYER_ACTIVATION_BYTES_PER_HIDDEN = 34


class TensorLike(Protocol):
    """What finetune needs of a tensor (architecture.Tensor satisfies it)."""

    ne: tuple[int, ...]
    role: str

    @property
    def elements(self) -> int: ...

    @property
    def is_matrix(self) -> bool: ...


class ArchitectureLike(Protocol):
    """What finetune needs of an architecture (architecture.Architecture satisfies it)."""

    hidden_size: int
    vocab_size: int

    def __hash__(self) -> int: ...  # _sums caches per architecture
    tensors: Sequence[TensorLike]

    @property
    def n_layers(self) -> int: ...


@dataclass(frozen=True)
class FinetuneEstimate:
    """Per-GPU memory of one fine-tuning setup; ``assumptions`` lists every rule used."""

    method: Method
    seq_len: int  # tokens per training sequence the activations were sized for
    weights_bytes: int
    trainable_params: int
    gradients_bytes: int
    optimizer_bytes: int
    activations_bytes: int
    total_bytes: int
    assumptions: tuple[tuple[str, str], ...]


@dataclass(frozen=True)
class _Sums:
    """Per-architecture tensor sums, walked once (``_sums`` is cached on the hashable architecture)."""

    params: int
    quantized_params: int  # block matrices QLoRA stores in NF4
    adapter_width: int  # Σ (in + out) over the adapted attention and dense/shared MLP matrices
    expert_adapter_width: int  # the same over routed experts, each expert counted


@cache
def _sums(arch: ArchitectureLike) -> _Sums:
    params = quantized = dense = experts = 0
    for t in arch.tensors:
        params += t.elements
        if not t.is_matrix:
            continue
        if t.role in QUANTIZED_ROLES:
            quantized += t.elements
        width = (t.ne[0] + t.ne[1]) * (t.ne[2] if len(t.ne) > 2 else 1)
        if t.role in ADAPTED_ROLES:
            dense += width
        elif t.role == "expert":
            experts += width
    return _Sums(params, quantized, dense, experts)


def lora_params(arch: ArchitectureLike, rank: int, lora_experts: bool = False) -> int:
    """Adapter parameters: rank × (in + out) for every adapted matrix (each expert separately when included)."""
    sums = _sums(arch)
    return rank * (sums.adapter_width + (sums.expert_adapter_width if lora_experts else 0))


def activation_bytes(arch: ArchitectureLike, seq_len: int, micro_batch: int) -> int:
    """Checkpointed activations: per-layer checkpoints, one layer recomputed in full, FP32 logits."""
    tokens = seq_len * micro_batch
    checkpoints = arch.n_layers * tokens * arch.hidden_size * 2
    one_layer = tokens * arch.hidden_size * LAYER_ACTIVATION_BYTES_PER_HIDDEN
    logits = tokens * arch.vocab_size * 4
    return checkpoints + one_layer + logits


def _base_weights(arch: ArchitectureLike, method: Method) -> int:
    sums = _sums(arch)
    if method != "qlora":
        return 2 * sums.params
    return round(sums.quantized_params * NF4_BITS_PER_PARAM / 8) + 2 * (sums.params - sums.quantized_params)


def full_bytes_per_param(optimizer: Optimizer = OPTIMIZER) -> int:
    """Bytes per parameter of full fine-tuning: 16-bit weights and gradients plus the optimizer's state."""
    return 2 * HALF_BYTES + OPTIMIZER_BYTES[optimizer]


def finetune_memory(model: object, method: Method, seq_len: int = 2048, micro_batch: int = MICRO_BATCH,
                    gpu_count: int = 1, optimizer: Optimizer = OPTIMIZER, lora_rank: int = LORA_RANK,
                    lora_experts: bool = LORA_EXPERTS,
                    zero_stage: int = 0) -> FinetuneEstimate:
    """Memory per GPU to fine-tune ``model`` (an Architecture, or anything with an ``architecture`` attribute)."""
    if seq_len < 1 or micro_batch < 1 or gpu_count < 1 or lora_rank < 1 or zero_stage not in (0, 1, 2, 3):
        raise ValueError("seq_len, micro_batch, gpu_count and lora_rank must be positive; zero_stage 0–3")
    arch = cast(ArchitectureLike, getattr(model, "architecture", model))
    shards = gpu_count if zero_stage else 1
    full = method == "full"
    trainable = _sums(arch).params if full else lora_params(arch, lora_rank, lora_experts)
    base = _base_weights(arch, method)
    adapters = 0 if full else 2 * trainable
    weights = (base + adapters) // (gpu_count if zero_stage >= 3 else 1)
    gradients = 2 * trainable // (gpu_count if zero_stage >= 2 else 1)
    optimizer_state = OPTIMIZER_BYTES[optimizer] * trainable // shards
    activations = activation_bytes(arch, seq_len, micro_batch)
    total = weights + gradients + optimizer_state + activations
    return FinetuneEstimate(method, seq_len, weights, trainable, gradients, optimizer_state, activations, total, (
        ("finetune.method", method),
        ("finetune.base_weights", "NF4 + double quant, 4.127 bits/param on block matrices; rest 16-bit"
         if method == "qlora" else "16-bit, 2 bytes/param"),
        ("finetune.trainable", "all parameters" if full else
         f"LoRA rank {lora_rank} on attention and dense/shared MLP projections"
         + (", routed experts included" if lora_experts else ", routed experts excluded")),
        ("finetune.optimizer", f"{optimizer}: 2 B gradients + {OPTIMIZER_BYTES[optimizer]} B master weights and "
                               "moments per trainable parameter"),
        ("finetune.sharding", f"ZeRO stage {zero_stage} across {gpu_count} GPU(s)" if zero_stage else "none"),
        ("finetune.activations", f"gradient checkpointing per layer, seq {seq_len} × micro-batch {micro_batch}: "
                                 "L·s·b·h·2 + s·b·h·34 + s·b·vocab·4 bytes"),
        ("finetune.excluded", "CUDA context, allocator fragmentation, framework buffers"),
    ))
