"""Fine-tuning memory on a tiny hand-built architecture."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from generator.estimate import finetune


@dataclass(frozen=True)
class T:
    ne: tuple[int, ...]
    role: str

    @property
    def elements(self) -> int:
        n = 1
        for d in self.ne:
            n *= d
        return n

    @property
    def is_matrix(self) -> bool:
        return len(self.ne) >= 2


@dataclass(frozen=True)
class Arch:
    hidden_size: int
    vocab_size: int
    tensors: tuple[T, ...]
    n_layers: int = 1


# One layer: q (100×100), an MLP up (100×400), 4 experts (100×50 each), embedding 1000×100, a norm of 100.
ARCH = Arch(100, 1000, (T((100, 1000), "embed"), T((100, 100), "attn"), T((100, 400), "ffn"),
                        T((100, 50, 4), "expert"), T((100,), "norm")))
PARAMS = 100_000 + 10_000 + 40_000 + 20_000 + 100


def test_lora_params_with_and_without_experts() -> None:
    assert finetune.lora_params(ARCH, 8) == 8 * (200 + 500)
    assert finetune.lora_params(ARCH, 8, lora_experts=True) == 8 * (200 + 500 + 4 * 150)


def test_activations_formula() -> None:
    # 1 layer × 10 tokens × 100 × 2 + 10 × 100 × 34 + 10 × 1000 × 4
    assert finetune.activation_bytes(ARCH, seq_len=5, micro_batch=2) == 2_000 + 34_000 + 40_000


def test_full_finetune_16_bytes_per_param_and_zero3() -> None:
    est = finetune.finetune_memory(ARCH, "full", seq_len=5, micro_batch=2)
    assert est.weights_bytes + est.gradients_bytes + est.optimizer_bytes == 16 * PARAMS
    assert est.total_bytes == 16 * PARAMS + 76_000
    sharded = finetune.finetune_memory(ARCH, "full", seq_len=5, micro_batch=2, gpu_count=4, zero_stage=3)
    assert sharded.weights_bytes + sharded.gradients_bytes + sharded.optimizer_bytes == 16 * PARAMS // 4
    eight_bit = finetune.finetune_memory(ARCH, "full", seq_len=5, micro_batch=2, optimizer="adamw8bit")
    assert eight_bit.weights_bytes + eight_bit.gradients_bytes + eight_bit.optimizer_bytes == 10 * PARAMS


def test_qlora_nf4_with_double_quant() -> None:
    est = finetune.finetune_memory(ARCH, "qlora", lora_rank=8)
    quantized = 10_000 + 40_000 + 20_000
    base = round(quantized * 4.126953125 / 8) + 2 * (PARAMS - quantized)
    adapters = 8 * 700
    assert est.weights_bytes == base + 2 * adapters
    assert est.trainable_params == adapters
    assert est.optimizer_bytes == 12 * adapters
    assert any("experts excluded" in v for _, v in est.assumptions)


def test_lora_base_is_16_bit() -> None:
    est = finetune.finetune_memory(ARCH, "lora", lora_rank=8)
    assert est.weights_bytes == 2 * PARAMS + 2 * 8 * 700


def test_rejects_bad_arguments() -> None:
    with pytest.raises(ValueError):
        finetune.finetune_memory(ARCH, "lora", seq_len=0)


class CountingArch:
    """ARCH's shapes, counting how often the tensor list is walked (hashable by identity)."""

    hidden_size, vocab_size, n_layers = 100, 1000, 1

    def __init__(self) -> None:
        self.walks = 0

    @property
    def tensors(self) -> tuple[T, ...]:
        self.walks += 1
        return ARCH.tensors


def test_per_architecture_sums_are_computed_once() -> None:
    arch = CountingArch()
    first = finetune.finetune_memory(arch, "qlora", lora_rank=8)
    walks = arch.walks
    assert walks > 0 and first == finetune.finetune_memory(ARCH, "qlora", lora_rank=8)
    for method in ("qlora", "lora", "full"):
        for rank in (8, 16, 64):
            finetune.finetune_memory(arch, method, seq_len=4096, lora_rank=rank, lora_experts=rank == 64)
    assert arch.walks == walks
