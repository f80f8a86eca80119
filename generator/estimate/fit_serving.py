"""Fit the serving constants per engine on generator/data/serving/ and write serving_constants.py.

Run ``python -m generator.cli.fit_serving`` (it reads catalog/ and writes serving_constants.py; this module does no I/O).
Per engine and backend (cuda, rocm), three constants (bandwidth efficiency, compute efficiency, fixed seconds per
step) minimise a soft-L1 loss on ln(predicted / measured) of throughput per GPU and tokens/s per user over that
group's rows (TTFT is reported, not fitted). Efficiencies stay at most 1. Groups with only offline maxima fit the
compute efficiency alone; groups without rows borrow a donor's constants (see ``fit``). Cross-validation refits on
the training rows of each fold: leave one GPU out and leave one source out.
"""

from __future__ import annotations

import datetime
import math
from collections.abc import Callable, Iterable
from dataclasses import replace
from pathlib import Path
from typing import Any

from . import serving_calibration as sc
from .fit_constants import nelder_mead, soft_l1
from .serving import SERVING_ENGINES, ServingConstants
from .speed import ALL_REDUCE_LATENCY_S

CONSTANTS_PATH = Path(__file__).resolve().parent / "serving_constants.py"
# The collective latency is not fitted: every calibration run with a measured per-user speed is tensor parallel
# over 4-8 GPUs of one model (DeepSeek-R1, 61 layers), where a fixed step cost and a per-layer collective cost are
# one number; it stays at the speed model's assumed small-message all-reduce latency.
FIELDS = ("bandwidth_efficiency", "compute_efficiency", "step_s")
BOUNDED = ("bandwidth_efficiency", "compute_efficiency")
FITTED_KINDS = ("output_per_gpu", "total_per_gpu", "user_tps")
START = ServingConstants("start", bandwidth_efficiency=0.7, compute_efficiency=0.4, step_s=5e-3,
                         all_reduce_s=ALL_REDUCE_LATENCY_S)


def _with(c: ServingConstants, logs: Iterable[float], fields: tuple[str, ...] = FIELDS) -> ServingConstants:
    values: dict[str, Any] = {name: math.exp(v) for name, v in zip(fields, logs)}
    for name in BOUNDED:
        if name in values:
            values[name] = min(values[name], 1.0)
    return replace(c, **values)


def fit_cases(cases: list[sc.Case], engine: str, start: ServingConstants = START,
              fields: tuple[str, ...] = FIELDS) -> ServingConstants:
    """Constants (``fields`` of them, the rest from ``start``) minimising the robust log error of throughput and
    per-user speed over ``cases``."""
    start = replace(start, engine=engine)

    def loss(x: list[float]) -> float:
        c = _with(start, x, fields)
        residuals = []
        for case in cases:
            for kind, e in sc.errors(case, c).items():
                if kind in FITTED_KINDS:
                    residuals.append(math.log(1 + e))
        return soft_l1(residuals)

    best = [math.log(getattr(start, f)) for f in fields]
    for _ in range(2):
        best = nelder_mead(loss, best, iterations=600, tolerance=1e-7)
    dates = sorted(case.row.date for case in cases if case.row.date[:2] == "20")
    return replace(_with(start, best, fields), fitted=dates[-1] if dates else "")


GROUPS = tuple(f"{e}/{b}" for e in SERVING_ENGINES for b in ("cuda", "rocm") if (e, b) != ("trtllm", "rocm"))


def group(case: sc.Case) -> str:
    """The constants key of a case: engine/backend."""
    return f"{case.row.engine}/{case.setup.backend}"


def _donor(key: str, fitted: dict[str, ServingConstants]) -> ServingConstants | None:
    """Constants to start from (or borrow) for a group: another engine on the same backend, else the same engine."""
    engine, backend = key.split("/")
    same_backend = [k for k in fitted if k.endswith("/" + backend)]
    same_engine = [k for k in fitted if k.startswith(engine + "/")]
    for k in same_backend + same_engine + list(fitted):
        return fitted[k]
    return None


def fit(cases: list[sc.Case]) -> dict[str, ServingConstants]:
    """Constants per engine/backend group.

    Groups with load-dependent rows (a measured per-user speed) fit all four constants. Groups with only offline
    maxima cannot tell the fixed per-step cost from the efficiencies: they fit the compute efficiency only, the rest
    taken from a donor group (another engine on the same backend). Groups without rows borrow a donor's constants."""
    fitted: dict[str, ServingConstants] = {}
    by_group = {k: [c for c in cases if group(c) == k] for k in GROUPS}
    loaded = [k for k in GROUPS if any(c.row.user_tps for c in by_group[k])]
    for k in loaded:
        fitted[k] = fit_cases(by_group[k], k)
    for k in GROUPS:
        if k in fitted:
            continue
        donor = _donor(k, fitted) or START
        if by_group[k]:
            fitted[k] = replace(fit_cases(by_group[k], k, donor, ("compute_efficiency",)), borrowed_from=donor.engine)
        else:
            fitted[k] = replace(donor, engine=k, fitted="", borrowed_from=donor.engine)
    return {k: fitted[k] for k in GROUPS}


def cross_validate(cases: list[sc.Case], key: Callable[[sc.Case], str]) -> list[dict[str, float]]:
    """Errors of every case predicted by constants fitted without its group (``key``)."""
    errs = []
    for held in sorted({key(c) for c in cases}):
        train = [c for c in cases if key(c) != held]
        if not train:
            continue
        constants = fit(train)
        errs += [sc.errors(c, constants[group(c)]) for c in cases if key(c) == held]
    return errs


def _stat_tuple(label: str, errs: list[dict[str, float]]) -> list[tuple[str, str, int, float, float]]:
    return [(s.kind, label, s.rows, round(s.median_abs_error, 4), round(s.within, 4)) for s in sc.stats(errs)]


def write(constants: dict[str, ServingConstants], cv: list[tuple[str, str, int, float, float]],
          in_sample: list[tuple[str, str, int, float, float]], rows: int) -> str:
    """The text of serving_constants.py."""
    lines = ['"""Fitted serving constants per engine. GENERATED by python -m generator.cli.fit_serving — do not edit.',
             "",
             f"Fitted on {rows} rows of generator/data/serving/ (see serving_calibration.py for which rows) on "
             f"{datetime.date.today().isoformat()}; ``fitted`` is the date of the newest measurement of each group.",
             "CV_STATS: cross-validated (leave one GPU out, leave one source out); FIT_STATS: in-sample.",
             '"""', "", "from __future__ import annotations", "", "from .serving import ServingConstants", "",
             "CONSTANTS: dict[str, ServingConstants] = {"]
    for name, c in constants.items():
        lines.append(f"    {name!r}: ServingConstants({name!r}, bandwidth_efficiency={c.bandwidth_efficiency!r}, "
                     f"compute_efficiency={c.compute_efficiency!r}, step_s={c.step_s!r}, "
                     f"all_reduce_s={c.all_reduce_s!r}, fitted={c.fitted!r}, borrowed_from={c.borrowed_from!r}),")
    lines += ["}", "", "# (kind, validation, rows, median |error|, share within ±25 %)",
              f"CV_STATS: tuple[tuple[str, str, int, float, float], ...] = {tuple(cv)!r}",
              f"FIT_STATS: tuple[tuple[str, str, int, float, float], ...] = {tuple(in_sample)!r}", ""]
    return "\n".join(lines)
