"""The fitted speed constants of one backend family: their shape (``constants.py`` holds the values)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class BackendConstants:
    """Fitted constants of one backend family (llama.cpp kernels on CUDA, ROCm, Metal, other)."""

    family: str
    bandwidth_efficiency: float
    hbm_bandwidth_efficiency: float
    kv_efficiency: float
    launch_s: float
    launch_per_layer_s: float
    split_s: float
    compute_efficiency: float
    attention_efficiency: float
    dequant_factor: float
    pipeline_efficiency: float
    # Dense FP16 FLOPS per byte/s of datasheet bandwidth for GPUs without a FLOPS figure: the compute-to-bandwidth
    # balance that best predicts this family's measured prefill rows with every GPU's FLOPS hidden (fit_constants).
    flops_per_byte: float | None = None
    # Prefill memory traffic (bandwidth-bound passes, datasheet bandwidth): bytes per block-quantised weight per
    # micro-batch (dequantisation to F16 before the GEMMs) and bytes per attention score (materialised KQ scores).
    dequant_bytes_per_weight: float = 0.0
    score_bytes: float = 0.0
    # Per-layer launch cost where each kernel is launched one by one: llama.cpp disables CUDA graphs below compute
    # capability 8.0 (ggml-cuda.cu: ``cc < GGML_CUDA_CC_AMPERE`` sets ``disable_due_to_gpu_arch``).
    launch_per_layer_ungraphed_s: float = 0.0
    # Current builds' quantised matmul (MMQ) runs at this many matmul FLOPs per non-tensor FP32 FLOP of the GPU where
    # that is slower than the tensor path; None: the era's kernels have no such limit (2024: dequantise + cuBLAS).
    mmq_flops_per_fp32_flop: float | None = None
    # F16 GEMM TFLOPS per W of board power (the catalogued TDP): cuBLAS tensor-core GEMMs at a micro-batch of 512 hold
    # the board at its power limit before they reach the tensor rate on parts whose tensor rate outgrew their power
    # budget (Ada workstation cards, A100, H100); None: no such bound (fitted on the 2024 CUDA rows).
    gemm_tflops_per_watt: float | None = None
    # Quantised matmul on NVIDIA cards without tensor cores but with dp4a (Pascal, compute capability 6.1): matmul
    # FLOPs per non-tensor FP32 FLOP. ggml_cuda_should_use_mmq (ggml-cuda/mmq.cu) keeps MMQ at every batch size where
    # FP16 MMA is missing, and MMQ then multiplies int8 blocks with __dp4a on the FP32 pipes; None: not fitted.
    dp4a_flops_per_fp32_flop: float | None = None
    # Mixture of experts (llama.cpp MUL_MAT_ID): a fixed cost per MoE block per decode step (router, top-k, ids, gather),
    # the share of η_bw the small per-expert GEMVs reach, and the tokens per expert at which an expert's GEMM reaches
    # half the dense GEMM rate (prefill: each expert sees about ubatch × k / E tokens). Neutral where not fitted.
    moe_layer_s: float = 0.0
    # Decode bandwidth efficiency on LPDDR unified memory (DGX Spark, Strix Halo); None: as on other memory.
    lpddr_bandwidth_efficiency: float | None = None
    expert_bandwidth_efficiency: float = 1.0
    expert_tokens_half: float = 0.0
    # Hybrid models: a fixed cost per recurrent (linear-attention or SSM) layer per decode step; 0 where not fitted.
    recurrent_layer_s: float = 0.0
    # Flash attention in decode (one query row per sequence: llama.cpp's vec kernels, which run on the vector units,
    # not the matrix units of the prefill kernels): its FLOPs' share of the GEMM rate F; None: attention_efficiency.
    decode_attention_efficiency: float | None = None
    engine: str = ""  # the engine builds the constants describe (fitted on their measurements)
    borrowed_from: str | None = None  # family whose fitted constants this family uses for lack of its own rows

    @property
    def fitted(self) -> bool:
        """Whether the constants were fitted on this family's own measurements."""
        return self.borrowed_from is None

    def assumptions(self) -> tuple[tuple[str, str], ...]:
        """The constants as (key, value) pairs for the pages."""
        borrowed = f" (no measurements of its own: constants of {self.borrowed_from})" if self.borrowed_from else ""
        return (
            ("speed.family", self.family + borrowed),
            ("speed.engine", self.engine),
            ("speed.bandwidth_efficiency", f"{self.bandwidth_efficiency:.3f}"),
            ("speed.hbm_bandwidth_efficiency", f"{self.hbm_bandwidth_efficiency:.3f}"),
            ("speed.kv_efficiency", f"{self.kv_efficiency:.3f}"),
            ("speed.launch_s", f"{self.launch_s:.2e} + {self.launch_per_layer_s:.2e} × layers (without CUDA graphs "
                               f"{self.launch_per_layer_ungraphed_s:.2e} × layers)"),
            ("speed.split_s", f"{self.split_s:.2e} per extra GPU (layer split)"),
            ("speed.compute_efficiency", f"{self.compute_efficiency:.3f}"),
            ("speed.attention_efficiency", f"{self.attention_efficiency:.3f}"),
            ("speed.decode_attention_efficiency",
             "—" if self.decode_attention_efficiency is None else f"{self.decode_attention_efficiency:.3f}"),
            ("speed.dequant_factor", f"{self.dequant_factor:.3f}"),
            ("speed.pipeline_efficiency", f"{self.pipeline_efficiency:.3f}"),
            ("speed.flops_per_byte", "—" if self.flops_per_byte is None else f"{self.flops_per_byte:.1f}"),
            ("speed.dequant_bytes_per_weight", f"{self.dequant_bytes_per_weight:.2f}"),
            ("speed.score_bytes", f"{self.score_bytes:.1f}"),
            ("speed.lpddr_bandwidth_efficiency",
             "—" if self.lpddr_bandwidth_efficiency is None else f"{self.lpddr_bandwidth_efficiency:.3f}"),
            ("speed.moe_layer_s", f"{self.moe_layer_s:.2e} per MoE block"),
            ("speed.expert_bandwidth_efficiency", f"{self.expert_bandwidth_efficiency:.3f}"),
            ("speed.expert_tokens_half", f"{self.expert_tokens_half:.0f}"),
            ("speed.recurrent_layer_s", f"{self.recurrent_layer_s:.2e} per recurrent layer"),
            ("speed.mmq_flops_per_fp32_flop",
             "—" if self.mmq_flops_per_fp32_flop is None else f"{self.mmq_flops_per_fp32_flop:.2f}"),
        )
