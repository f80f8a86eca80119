"""Typical error of each speed figure per backend and architecture class, from the cross-validated statistics the
fit script stored.

A band is the median absolute error of the newest constants set on GPUs left out of the fit (leave one GPU out) or on
publications left out of it (leave one source out), whichever is larger, over the held-out rows of the page's own
architecture class (dense, mixture of experts, hybrid linear attention) on that backend. A class with fewer than
``FEW_ROWS`` held-out decode and prefill rows is marked "few measurements" and one without any
"not validated"; its figures are then the backend's over all classes. ROCm is split by GPU generation: CDNA (AMD
Instinct, datacenter) and RDNA (Radeon) run different kernels (MFMA vs WMMA, wave64 vs wave32), so a generation counts
only its own rows: fewer than ``FEW_ROWS`` of them make its band "few measurements", none "not validated", whatever
the class. A backend without measurements of its own
borrows CUDA's constants, and its band widens to the larger of CUDA's band and the measured cost of borrowing (another
family's rows predicted with CUDA's constants of the same engine era).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import cache
from typing import Literal

from . import speed
from .architecture import Architecture

KINDS = {"decode": "decode_tps", "prefill": "prefill_tps", "ttft": "ttft_s"}
CLASSES = ("dense", "moe", "hybrid")
FEW_ROWS = 8  # fewer held-out rows than this: the page says "few measurements" instead of a precise-looking band
Status = Literal["validated", "few", "none"]


@dataclass(frozen=True)
class ErrorBand:
    """Median absolute cross-validated error of decode, prefill and time to first token for one backend and class."""

    backend: str
    decode: float
    prefill: float
    ttft: float
    group: str  # the backend-era(-class) whose held-out rows give the figures
    borrowed_from: str | None = None
    architecture: str = "dense"  # the architecture class the band is for
    rows: int = 0  # held-out decode and prefill rows of that class on this backend's constants
    generation: str = ""  # the GPU generation the band is for ("rdna", "cdna" on ROCm; "" elsewhere)
    generation_measured: bool = True  # whether any of the backend's calibration rows ran on that generation
    by_generation: bool = False  # the row count is the GPU generation's own, fewer than its class has on the backend
    offload: bool = False  # a setup with experts in system RAM: the rows are the offload fit's (``offload_band``)

    @property
    def status(self) -> Status:
        """validated (≥ FEW_ROWS rows), few (some) or none (no held-out row of this class)."""
        return "validated" if self.rows >= FEW_ROWS else "few" if self.rows else "none"

    @property
    def few(self) -> bool:
        """Some held-out rows of this class, fewer than FEW_ROWS: a rough guide."""
        return self.status == "few"

    @property
    def not_validated(self) -> bool:
        """No held-out row of this class on this backend."""
        return self.status == "none"


def offload_decode_error() -> float:
    """The offload fit's cross-validated decode error: the larger median of leaving one source or one GPU out."""
    from . import offload_constants

    return max(err for _, _, err in offload_constants.CV_STATS)


def offload_band(band: ErrorBand) -> ErrorBand:
    """The band of a setup that keeps experts in system RAM: its rows are the offload fit's decode runs
    (calibrate/fit_offload), its decode error ``offload_decode_error``. Prefill with experts in RAM has no
    measurement, so while those runs are fewer than ``FEW_ROWS`` the whole band reads "few measurements"; more decode
    runs will need a status per figure before this band may print one."""
    from . import offload_constants

    return replace(band, decode=offload_decode_error(), group="offload", rows=offload_constants.ROWS, offload=True,
                   by_generation=False)


def architecture_class(arch: Architecture) -> str:
    """dense, moe (routed experts, attention only) or hybrid (linear-attention / state-space layers)."""
    if any(layer.attention in ("linear", "mamba") for layer in arch.main_layers):
        return "hybrid"
    return "moe" if arch.n_experts > 0 else "dense"


def generation(backend: str, segment: str) -> str:
    """The GPU generation a band is split by: on ROCm "cdna" for datacenter parts (AMD Instinct), else "rdna"; ""
    on every other backend."""
    if speed.family(backend) != "rocm":
        return ""
    return "cdna" if segment == "datacenter" else "rdna"


def _cv(group: str, kind: str) -> tuple[int, float] | None:
    """(held-out rows, band) of a group: the larger median error of leaving one GPU out and leaving one source out."""
    from .constants import CV_STATS

    medians = {method: (n, m) for method, g, k, n, m, _, _ in CV_STATS if g == group and k == kind}
    if "gpu" not in medians:
        return None
    return medians["gpu"][0], max(m for method, (_, m) in medians.items() if method in ("gpu", "source"))


def _borrow_median(lender: str, kind: str) -> float:
    """The largest median error of another family's rows predicted with ``lender``'s constants of the same era."""
    from .constants import BORROW_STATS

    return max((m for _f, _e, who, k, m in BORROW_STATS if who == lender and k == kind), default=0.0)


@cache
def error_band(backend: str, arch_class: str = "dense", gpu_generation: str = "",
               generation_rows: int | None = None) -> ErrorBand:
    """The typical ±error of a speed figure on ``backend`` for a model of ``arch_class`` on a GPU of ``gpu_generation``
    (``generation_rows``: the backend's calibration rows on that generation, None where bands are not split by
    generation; module docstring)."""
    from .constants import ERA_CONSTANTS

    c = speed.constants_for(backend)
    lender = c.borrowed_from or c.family
    era = next(e for (f, e), k in ERA_CONSTANTS.items() if f == lender and k.engine == c.engine)
    family_group, class_group = f"{lender} {era}", f"{lender} {era} {arch_class}"
    rows = sum((_cv(class_group, kind) or (0, 0.0))[0] for kind in ("decode_tps", "prefill_tps"))
    by_generation = generation_rows is not None and generation_rows < rows
    rows = rows if generation_rows is None else min(rows, generation_rows)
    group = class_group if rows else family_group
    values = {}
    for name, kind in KINDS.items():
        # A quantity without rows of this class takes the backend's figure over all classes; one without any rows
        # (TTFT needs paired decode and prefill rows) the prefill band, as TTFT is mostly prefill.
        own = _cv(group, kind) or _cv(family_group, kind) or _cv(group, "prefill_tps") or (0, 0.0)
        borrowing = _borrow_median(lender, kind if kind != "ttft_s" else "prefill_tps") if c.borrowed_from else 0.0
        values[name] = max(own[1], borrowing)
    return ErrorBand(speed.family(backend), values["decode"], values["prefill"], values["ttft"], group,
                     c.borrowed_from, arch_class, rows, gpu_generation, generation_rows != 0, by_generation)
