"""Methodology data: the fitted constants, the engines they describe and the estimator's measured error."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, NamedTuple

from ..estimate import bands, cost, fidelity, finetune, kvcache, offload_constants, quant, runtime, speed, verdict
from ..estimate import constants as fitted
from .compute import FINETUNE_SEQ_LEN
from .policy import OLDER_LAUNCH_YEAR, READING_TOKENS_PER_S

CALIBRATION_DATE = "2026-09-02"  # newest measurements bundled: llama.cpp pull request 24546 (comment of 2026-09-02)


class Figure(NamedTuple):
    """A code constant as the methodology prose prints it: the value and its decimals (None: a year, as written)."""

    value: float
    digits: int | None = 0


# The quantizations whose measured KLD the prose quotes, at two or three significant digits
_KLD_DIGITS = {"Q8_0": 4, "Q6_K": 4, "Q5_K_M": 3, "Q4_K_M": 3, "IQ4_XS": 3, "Q3_K_M": 3, "Q2_K": 2, "IQ2_XXS": 2,
               "IQ1_S": 2}


def prose_figures() -> dict[str, Figure]:
    """The constants the methodology prose names, by the ``{placeholder}`` that prints each (both languages)."""
    q4_k = quant.GGML_TYPES["Q4_K"]
    bounds = dict(fidelity.GRADE_BOUNDS)
    return {
        "fit_margin_percent": Figure(verdict.TIGHT_FRACTION * 100),
        "vllm_gpu_memory_utilization": Figure(runtime.VLLM_GPU_MEMORY_UTILIZATION, 2),
        "compute_buffer_ubatch": Figure(kvcache.LLAMA_CPP_UBATCH),
        "prefill_ubatch": Figure(kvcache.LLAMA_CPP_UBATCH),
        # tokens per expert in a micro-batch of a 128-expert, top-8 model, the prose's example
        "moe_example_tokens": Figure(kvcache.LLAMA_CPP_UBATCH * 8 / 128),
        "kv_f16_bytes": Figure(kvcache.llama_cpp_bytes_per_element("f16")),
        "kv_q8_0_bytes": Figure(kvcache.llama_cpp_bytes_per_element("q8_0"), 4),
        "kv_q4_0_bytes": Figure(kvcache.llama_cpp_bytes_per_element("q4_0"), 4),
        "q4_k_block_bytes": Figure(q4_k.block_bytes),
        "q4_k_block": Figure(q4_k.block),
        "q4_k_bits": Figure(q4_k.bits_per_weight, 1),
        "kld_near_lossless": Figure(bounds["near_lossless"], 2),
        "kld_good": Figure(bounds["good"], 2),
        "kld_noticeable": Figure(bounds["noticeable"], 2),
        "few_rows": Figure(bands.FEW_ROWS),
        "lora_rank": Figure(finetune.LORA_RANK),
        "full_finetune_bytes": Figure(finetune.full_bytes_per_param()),
        "finetune_seq_len": Figure(FINETUNE_SEQ_LEN),
        "finetune_micro_batch": Figure(finetune.MICRO_BATCH),
        "amortisation_months": Figure(cost.DEFAULT_AMORTISATION_MONTHS),
        "older_launch_year": Figure(OLDER_LAUNCH_YEAR, None),
        "reading_tokens_per_s": Figure(READING_TOKENS_PER_S, 1),
        "host_bandwidth_gbs": Figure(speed.DEFAULT_HOST_BANDWIDTH_BYTES_PER_S / 1e9, 1),
        "host_read_percent": Figure(speed.HOST_READ_EFFICIENCY * 100, 0),
        "offload_rows": Figure(offload_constants.ROWS),
        "offload_sources": Figure(offload_constants.SOURCES),
        "offload_cv_percent": Figure(bands.offload_decode_error() * 100, 0),
    } | {f"kld_{name}": Figure(fidelity.figures()[name].kld, digits) for name, digits in _KLD_DIGITS.items()}


def constants_table() -> list[dict]:
    """The fitted speed constants, one row per backend-era set and constant, for the methodology page."""
    return [{"backend": f"{family} {era}", "name": name, "value": value}
            for (family, era), constants in sorted(fitted.ERA_CONSTANTS.items())
            for name, value in vars(constants).items() if isinstance(value, float)]


def engines() -> list[dict]:
    """Per backend-era constants set: the engine builds it describes, and whether the pages use it."""
    newest = {id(c) for c in fitted.CONSTANTS.values()}
    return [{"backend": f"{family} {era}", "engine": c.engine, "current": id(c) in newest}
            for (family, era), c in sorted(fitted.ERA_CONSTANTS.items())]


def cross_validated_rows() -> list[dict]:
    """The cross-validated error rows (leave one GPU out, leave one source out) and the file-size row."""
    rows = [{"method": m, "group": g, "kind": k, "rows": n, "median": md, "worst": w, "within": s}
            for m, g, k, n, md, w, s in fitted.CV_STATS]
    n, md, w, s = fitted.FILESIZE_STATS
    rows.append({"method": "formula", "group": "all", "kind": "filesize", "rows": n, "median": md, "worst": w,
                 "within": s})
    return rows


def held_out_points() -> dict[str, tuple[tuple[float, float], ...]]:
    """Per kind, (measured, estimated) of every calibration row predicted with its GPU left out of the fit."""
    points: dict[str, list[tuple[float, float]]] = {}
    for kind, _f, _e, measured, predicted in fitted.CV_POINTS:
        points.setdefault(kind, []).append((measured, predicted))
    return {kind: tuple(rows) for kind, rows in points.items()}


def error_bands(gpus: Mapping[str, Any]) -> dict[tuple[str, str, str], bands.ErrorBand]:
    """Typical cross-validated error of the speed figures per backend, GPU generation (ROCm: RDNA, CDNA) and
    architecture class, shown beside every speed figure; keyed (backend, generation, class)."""
    rows = generation_rows(gpus)
    keys = sorted({(backend, bands.generation(backend, gpu.segment)) for gpu in gpus.values() for backend in gpu.backends})
    return {(backend, gen, cls): bands.error_band(backend, cls, gen, rows.get((speed.family(backend), gen), 0) if gen else None)
            for backend, gen in keys for cls in bands.CLASSES}


def generation_rows(gpus: Mapping[str, Any]) -> dict[tuple[str, str], int]:
    """Held-out calibration rows per (backend family, GPU generation), from the GPUs of each fitted group."""
    out: dict[tuple[str, str], int] = {}
    for (family, _era), counted in fitted.ROW_GPUS.items():
        for gpu_id, n in counted:
            if gpu_id in gpus:
                key = (family, bands.generation(family, gpus[gpu_id].segment))
                out[key] = out.get(key, 0) + n
    return out
