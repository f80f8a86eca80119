"""Quality loss per quantization: published KL divergence against the 16-bit model, and a plain-language grade.

The figures (``generator/data/quant_quality.csv``) are llama.cpp's own LLaMA 3 8B scoreboard in
``tools/perplexity/README.md``, one URL and read date per row (read through a stored copy of the repository; no
per-family measurements were found in that material). A model released in a low-precision format (gpt-oss in
MXFP4) loses nothing when served in that format: its grade is "native".
"""

from __future__ import annotations

import csv
import datetime as dt
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Literal

DATA_PATH = Path(__file__).resolve().parent.parent / "data" / "quant_quality.csv"

Grade = Literal["native", "near_lossless", "good", "noticeable", "heavy", "unmeasured"]

# Upper bounds of mean KL divergence (nats per token, against FP16) for each grade, best first.
GRADE_BOUNDS: tuple[tuple[Grade, float], ...] = (("near_lossless", 0.01), ("good", 0.05), ("noticeable", 0.15))
# Grades at or above the recommendation floor (the 4-bit K-quant class: Q4_K_M, IQ4_XS and better).
AT_FLOOR: frozenset[Grade] = frozenset({"native", "near_lossless", "good"})
# File types that keep a model's released low-precision weights as they are, by native format.
NATIVE_QUANTS = {"mxfp4": frozenset({"MXFP4_MOE", "MXFP4"}), "fp8": frozenset({"FP8"})}


@dataclass(frozen=True)
class QualityFigure:
    """One published measurement of a quantization against the 16-bit model."""

    quant: str
    kld: float
    ppl_delta: float
    imatrix: str
    model: str
    url: str
    read: dt.date
    note: str


@cache
def figures() -> dict[str, QualityFigure]:
    """The published figures by quant name (read once)."""
    with DATA_PATH.open(newline="", encoding="utf-8") as handle:
        return {row["quant"]: QualityFigure(row["quant"], float(row["kld_vs_f16"]), float(row["ppl_delta"]),
                                            row["imatrix"], row["model"], row["url"], dt.date.fromisoformat(row["read"]),
                                            row["note"])
                for row in csv.DictReader(handle)}


def grade_of_kld(kld: float) -> Grade:
    """The grade of a mean KL divergence, by :data:`GRADE_BOUNDS`."""
    return next((grade for grade, bound in GRADE_BOUNDS if kld < bound), "heavy")


def grade(quant: str, native_format: str = "bf16") -> Grade:
    """The grade of ``quant`` for a model published in ``native_format``; "unmeasured" without a figure."""
    if quant in NATIVE_QUANTS.get(native_format, ()):
        return "native"
    figure = figures().get(quant)
    return grade_of_kld(figure.kld) if figure else "unmeasured"


def at_floor(quant: str, native_format: str = "bf16") -> bool:
    """Whether ``quant`` is graded at the quality floor (good or better, or the native release); the site's one floor,
    ``sitedata.policy.meets_floor``, also admits unmeasured K- and i-quants by their bits."""
    return grade(quant, native_format) in AT_FLOOR
