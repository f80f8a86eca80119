"""Typical error of each speed figure per backend, from the cross-validated statistics the fit script stored.

A backend's band is the median absolute error of its newest constants set on GPUs left out of the fit (leave one
GPU out). A backend without measurements of its own borrows CUDA's constants, and its band widens to the larger of
CUDA's band and the measured cost of borrowing (another family's rows predicted with CUDA's constants of the same
engine era).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

from . import speed

KINDS = {"decode": "decode_tps", "prefill": "prefill_tps", "ttft": "ttft_s"}


@dataclass(frozen=True)
class ErrorBand:
    """Median absolute cross-validated error of decode, prefill and time to first token for one backend."""

    backend: str
    decode: float
    prefill: float
    ttft: float
    group: str  # the backend-era whose held-out rows give the figures
    borrowed_from: str | None = None


def _cv_median(group: str, kind: str) -> float | None:
    from .constants import CV_STATS

    return next((m for method, g, k, _, m, _, _ in CV_STATS if method == "gpu" and g == group and k == kind), None)


def _borrow_median(lender: str, kind: str) -> float:
    """The largest median error of another family's rows predicted with ``lender``'s constants of the same era."""
    from .constants import BORROW_STATS

    return max((m for _f, _e, who, k, m in BORROW_STATS if who == lender and k == kind), default=0.0)


@cache
def error_band(backend: str) -> ErrorBand:
    """The typical ±error of a speed figure on ``backend`` (see the module docstring)."""
    from .constants import ERA_CONSTANTS

    c = speed.constants_for(backend)
    lender = c.borrowed_from or c.family
    era = next(e for (f, e), k in ERA_CONSTANTS.items() if f == lender and k.engine == c.engine)
    group = f"{lender} {era}"
    values = {}
    for name, kind in KINDS.items():
        own = _cv_median(group, kind)
        if own is None:  # no paired rows for this quantity: the prefill band (TTFT is mostly prefill)
            own = _cv_median(group, "prefill_tps") or 0.0
        borrowing = _borrow_median(lender, kind if kind != "ttft_s" else "prefill_tps") if c.borrowed_from else 0.0
        values[name] = max(own, borrowing)
    return ErrorBand(speed.family(backend), values["decode"], values["prefill"], values["ttft"], group,
                     c.borrowed_from)
