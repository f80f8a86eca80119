"""Fit the speed constants per backend family on the calibration file and write constants.py.

Run ``python -m generator.cli.fit_constants`` (reads catalog/gpus when present: the command does the I/O, this
module only fits). Decode constants are fitted on decode rows first, then prefill constants on prefill rows with
the decode constants held. The loss is a soft-L1 (robust) loss on ln(predicted / measured), minimised by a
Nelder–Mead search in log-parameter space; no row is special-cased. A second fit without the hold-out GPUs
(``calibration.holdout_gpus``) measures the error on GPUs the constants never saw.

``flops_per_byte`` (the FLOPS that stand in for a GPU without a FLOPS figure) is fitted last, on the family's
prefill rows with every GPU's FLOPS hidden and the other constants held; a family where no calibration GPU has a
FLOPS figure (Metal: Apple publishes none) fits it together with the other prefill constants, with
``compute_efficiency`` fixed at 1 because the two are then one product, and the bandwidth-bound prefill traffic
(``dequant_bytes_per_weight``, ``score_bytes``) fixed at 0 because, with FLOPS proportional to bandwidth, it is one
term with ``dequant_factor`` and ``attention_efficiency``.
"""

from __future__ import annotations

import dataclasses
import math
from pathlib import Path
from typing import Callable, Sequence

from . import calibration
from .backend import BackendConstants
from .calibration import Case

CONSTANTS_PATH = Path(__file__).resolve().parent / "constants.py"
LOSS_SCALE = 0.1  # soft-L1 turns from quadratic to linear at 10 % error
DECODE_FIELDS = ("bandwidth_efficiency", "bandwidth_ceiling_bytes_per_s", "kv_efficiency", "launch_s",
                 "launch_per_layer_s", "split_s")
PREFILL_FIELDS = ("compute_efficiency", "attention_efficiency", "dequant_factor", "dequant_bytes_per_weight",
                  "score_bytes", "pipeline_efficiency")
MULTI_GPU_FIELDS = frozenset({"split_s", "pipeline_efficiency"})  # identifiable only from multi-GPU rows
EFFICIENCIES = ("bandwidth_efficiency", "kv_efficiency", "compute_efficiency", "attention_efficiency",
                "pipeline_efficiency")
FACTORS = ("dequant_factor",)
UNRATED_FIXED = ("compute_efficiency", "dequant_bytes_per_weight", "score_bytes")  # see fit_family  # extra work per quantised FLOP: a factor below 1 is not physical
START = BackendConstants("start", bandwidth_efficiency=0.8, bandwidth_ceiling_bytes_per_s=1.5e12, kv_efficiency=0.3,
                         launch_s=1e-3, launch_per_layer_s=3e-5, split_s=2e-4, compute_efficiency=0.4,
                         attention_efficiency=0.5, dequant_factor=1.05, pipeline_efficiency=0.8,
                         flops_per_byte=50.0, dequant_bytes_per_weight=3.5, score_bytes=25.0)
FLOOR = 1e-7  # fixed-cost terms may shrink to (almost) nothing but stay positive in log space


def nelder_mead(f: Callable[[list[float]], float], x0: Sequence[float], step: float = 0.5, iterations: int = 3000,
                tolerance: float = 1e-10) -> list[float]:
    """Minimise ``f`` from ``x0`` with the Nelder–Mead simplex (reflection 1, expansion 2, contraction ½, shrink ½)."""
    n = len(x0)
    simplex = [list(x0)] + [[x + (step if i == j else 0.0) for j, x in enumerate(x0)] for i in range(n)]
    values = [f(p) for p in simplex]
    for _ in range(iterations):
        order = sorted(range(n + 1), key=values.__getitem__)
        simplex, values = [simplex[i] for i in order], [values[i] for i in order]
        if values[-1] - values[0] < tolerance:
            break
        centroid = [sum(p[j] for p in simplex[:-1]) / n for j in range(n)]
        worst = simplex[-1]
        reflected = [c + (c - w) for c, w in zip(centroid, worst)]
        fr = f(reflected)
        if fr < values[0]:
            expanded = [c + 2 * (c - w) for c, w in zip(centroid, worst)]
            fe = f(expanded)
            simplex[-1], values[-1] = (expanded, fe) if fe < fr else (reflected, fr)
        elif fr < values[-2]:
            simplex[-1], values[-1] = reflected, fr
        else:
            contracted = [c + 0.5 * (w - c) for c, w in zip(centroid, worst)]
            fc = f(contracted)
            if fc < values[-1]:
                simplex[-1], values[-1] = contracted, fc
            else:
                best = simplex[0]
                simplex = [best] + [[b + 0.5 * (p - b) for b, p in zip(best, q)] for q in simplex[1:]]
                values = [values[0]] + [f(p) for p in simplex[1:]]
    return simplex[min(range(n + 1), key=values.__getitem__)]


def soft_l1(residuals: Sequence[float]) -> float:
    """Σ 2s²(√(1 + (r/s)²) − 1): quadratic for small log errors, linear for outliers."""
    s = LOSS_SCALE
    return sum(2 * s * s * (math.sqrt(1 + (r / s) ** 2) - 1) for r in residuals)


def _with(c: BackendConstants, fields: Sequence[str], logs: Sequence[float]) -> BackendConstants:
    values = {name: max(math.exp(v), FLOOR) for name, v in zip(fields, logs)}
    for name in EFFICIENCIES:
        if name in values:
            values[name] = min(values[name], 1.0)  # an efficiency above 1 is not physical
    for name in FACTORS:
        if name in values:
            values[name] = max(values[name], 1.0)
    return dataclasses.replace(c, **values)


def _fit_fields(cases: list[Case], start: BackendConstants, fields: Sequence[str]) -> BackendConstants:
    x0 = [math.log(max(getattr(start, name), FLOOR)) for name in fields]

    def loss(x: list[float]) -> float:
        c = _with(start, fields, x)
        return soft_l1([calibration.log_error(case, c) for case in cases])

    best = x0
    for _ in range(3):  # restarts from the last optimum escape early simplex collapse
        best = nelder_mead(loss, best)
    return _with(start, fields, best)


def fit_family(cases: list[Case], family: str, start: BackendConstants = START) -> BackendConstants:
    """Decode constants on the family's decode rows, then prefill constants and flops_per_byte on its prefill rows.

    Constants the family's rows cannot identify (multi-GPU terms without multi-GPU rows) keep ``start``'s values.
    """
    mine = [c for c in cases if c.family == family]
    multi = any(c.device.gpu_count > 1 for c in mine)
    start = dataclasses.replace(start, family=family)
    usable = lambda fields: [f for f in fields if multi or f not in MULTI_GPU_FIELDS]  # noqa: E731
    decode = [c for c in mine if c.row.kind == "decode_tps"]
    if decode:
        start = _fit_fields(decode, start, usable(DECODE_FIELDS))
    prefill = [c for c in mine if c.row.kind == "prefill_tps"]
    rated = [c for c in prefill if c.device.fp16_flops is not None]
    if rated:
        start = _fit_fields(rated, start, usable(PREFILL_FIELDS))
        start = _fit_fields(calibration.without_flops(prefill), start, ["flops_per_byte"])
    elif prefill:
        # With F = flops_per_byte × bandwidth for every GPU, traffic over the bandwidth is indistinguishable from
        # FLOPs over F: the dequantisation and score traffic fold into dequant_factor and attention_efficiency.
        start = dataclasses.replace(start, compute_efficiency=1.0, dequant_bytes_per_weight=0.0, score_bytes=0.0)
        fields = [f for f in usable(PREFILL_FIELDS) if f not in UNRATED_FIXED] + ["flops_per_byte"]
        start = _fit_fields(prefill, start, fields)
    return start


def fit(cases: list[Case]) -> dict[str, BackendConstants]:
    """Constants for every family in ``cases``; CUDA first, the others start from (and borrow unidentified terms of) it."""
    families = sorted({c.family for c in cases}, key=lambda f: (f != "cuda", f))
    out: dict[str, BackendConstants] = {}
    for family in families:
        out[family] = fit_family(cases, family, out.get("cuda", START))
    return out


def stats_rows(points: list[calibration.Point]) -> list[tuple[str, int, float, float, float]]:
    """(kind, rows, median |error|, worst |error|, share within ±30 %) per speed kind."""
    out = []
    for kind in calibration.SPEED_KINDS:
        r = calibration.summarize(kind, [p for p in points if p.kind == kind])
        out.append((kind, r.rows, round(r.median_abs_error, 4), round(r.worst_abs_error, 4), round(r.within_30, 4)))
    return out


def render(constants: dict[str, BackendConstants], holdout: frozenset[str],
           fit_stats: list[tuple], holdout_stats: list[tuple], fallback_stats: list[tuple],
           gpu_sources: dict[str, str]) -> str:
    """The text of constants.py."""
    lines = [
        '"""Fitted speed constants per backend family. GENERATED by generator/estimate/fit_constants.py — do not edit.',
        "",
        "Fitted on generator/data/measurements.csv (llama.cpp llama-bench, May 2024 builds). HOLDOUT_STATS come from a",
        "second fit without the HOLDOUT_GPUS, evaluated on those GPUs only; FIT_STATS are in-sample for CONSTANTS.",
        "FLOPS_FALLBACK_STATS: the same hold-out with every GPU's FLOPS hidden (flops_per_byte × bandwidth instead).",
        '"""',
        "",
        "from __future__ import annotations",
        "",
        "from .backend import BackendConstants",
        "",
        "CONSTANTS: dict[str, BackendConstants] = {",
    ]
    for family, c in constants.items():
        args = ", ".join(f"{f.name}={getattr(c, f.name)!r}" for f in dataclasses.fields(c)
                         if f.name not in ("family", "fitted"))
        lines.append(f"    {family!r}: BackendConstants({family!r}, {args}),")
    lines += ["}", "", f"HOLDOUT_GPUS: tuple[str, ...] = {tuple(sorted(holdout))!r}", "",
              "# (kind, rows, median |error|, worst |error|, share within ±30 %)",
              f"FIT_STATS: tuple[tuple[str, int, float, float, float], ...] = {tuple(fit_stats)!r}",
              f"HOLDOUT_STATS: tuple[tuple[str, int, float, float, float], ...] = {tuple(holdout_stats)!r}",
              f"FLOPS_FALLBACK_STATS: tuple[tuple[str, int, float, float, float], ...] = {tuple(fallback_stats)!r}",
              "",
              "# Where each calibration GPU's bandwidth and FP16 FLOPS were read at fit time.",
              "GPU_SOURCES: dict[str, str] = {"]
    lines += [f"    {k!r}: {v!r}," for k, v in sorted(gpu_sources.items())]
    lines += ["}", ""]
    return "\n".join(lines)
