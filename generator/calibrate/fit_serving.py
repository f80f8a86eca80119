"""Fit the serving constants per engine on generator/data/serving/ and write serving_constants.py.

Run ``python -m generator.cli.fit_serving`` (it reads catalog/ and writes serving_constants.py; this module does no I/O).
Per engine and backend (cuda, rocm), up to four constants (bandwidth efficiency, compute efficiency, fixed seconds per
step, latency of one collective between tensor-parallel GPUs) minimise a soft-L1 loss on ln(predicted / measured) of
throughput per GPU and tokens/s per user over that group's rows, each row weighted 1 / √(rows of its source); the
fixed latency per request is then fitted on the TTFT of rows at low load. A group fits only the constants its rows
can tell apart (see ``fields_for``); the rest come from a donor group. The bandwidth efficiency stays at most
``MAX_BANDWIDTH_EFFICIENCY`` (what a memory-bound GEMV reaches), the compute efficiency at most 1. Cross-validation
refits on the training rows of each fold: leave one GPU out and leave one source out.
"""

from __future__ import annotations

import datetime
import math
from collections.abc import Callable, Iterable
from dataclasses import replace
from pathlib import Path
from typing import Any

from ..estimate.serving import SERVING_ENGINES, ServingConstants
from ..estimate.speed import ALL_REDUCE_LATENCY_S
from . import serving_cases as sc
from .fit_speed import LOSS_SCALE, nelder_mead

CONSTANTS_PATH = Path(__file__).resolve().parent.parent / "estimate" / "serving_constants.py"
# The collective latency starts (and stays, for groups without runs on one GPU next to tensor-parallel runs) at the
# speed model's assumed small-message all-reduce latency: on tensor-parallel runs alone it is one number with the
# fixed step cost.
FIELDS = ("bandwidth_efficiency", "compute_efficiency", "step_s", "all_reduce_s")
# Upper bounds: a decode GEMV streams weights at about 80-90 % of datasheet HBM/GDDR bandwidth (the share the
# llama.cpp fit and public GEMV microbenchmarks land in); tensor-core GEMMs cannot beat the datasheet rate.
MAX_BANDWIDTH_EFFICIENCY = 0.9
BOUNDS = {"bandwidth_efficiency": MAX_BANDWIDTH_EFFICIENCY, "compute_efficiency": 1.0}
FITTED_KINDS = ("output_per_gpu", "total_per_gpu", "user_tps")
START = ServingConstants("start", bandwidth_efficiency=0.7, compute_efficiency=0.4, step_s=2e-3,
                         all_reduce_s=ALL_REDUCE_LATENCY_S)


def _with(c: ServingConstants, logs: Iterable[float], fields: tuple[str, ...] = FIELDS) -> ServingConstants:
    values: dict[str, Any] = {name: math.exp(v) for name, v in zip(fields, logs)}
    for name, bound in BOUNDS.items():
        if name in values:
            values[name] = min(values[name], bound)
    return replace(c, **values)


def _soft_l1(r: float) -> float:
    return 2 * LOSS_SCALE**2 * (math.sqrt(1 + (r / LOSS_SCALE) ** 2) - 1)


def source_weights(cases: list[sc.Case]) -> dict[str, float]:
    """Weight of each row by its source: 1 / √(rows of that source), so that one source's many rows of one model
    do not outvote every other source (with 1 / rows, a two-row write-up would outvote a 400-row sweep)."""
    counts: dict[str, int] = {}
    for case in cases:
        counts[case.row.source] = counts.get(case.row.source, 0) + 1
    return {source: n ** -0.5 for source, n in counts.items()}


def fit_cases(cases: list[sc.Case], engine: str, start: ServingConstants = START,
              fields: tuple[str, ...] = FIELDS) -> ServingConstants:
    """Constants (``fields`` of them, the rest from ``start``) minimising the robust log error of throughput and
    per-user speed over ``cases``."""
    start = replace(start, engine=engine)
    weight = source_weights(cases)

    def loss(x: list[float]) -> float:
        c = _with(start, x, fields)
        total = 0.0
        for case in cases:
            for kind, e in sc.errors(case, c).items():
                if kind in FITTED_KINDS:
                    total += weight[case.row.source] * _soft_l1(math.log(1 + e))
        return total

    best = [math.log(max(getattr(start, f), 1e-5)) for f in fields]
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


SATURATED = 64  # rows at this concurrency or more (or offline maxima) pin the compute efficiency
SPREAD = 16  # per-user rows of one model over this ratio of concurrencies pin the bandwidth efficiency


def fields_for(cases: list[sc.Case]) -> tuple[str, ...]:
    """The constants a group's rows can tell apart: the compute efficiency needs saturated rows; the per-step cost
    needs measured per-user speeds; the bandwidth efficiency needs them for two models or over a wide range of
    concurrency (one model at a few loads cannot tell bytes from fixed cost); the collective latency needs them both
    on one GPU and tensor parallel (else it is one number with the per-step cost)."""
    loaded = [c for c in cases if c.row.user_tps]
    saturated = any(c.row.concurrency is None or c.row.concurrency >= SATURATED for c in cases)
    levels = [c.row.concurrency for c in loaded if c.row.concurrency]
    spread = len({c.row.model for c in loaded}) > 1 or (levels and max(levels) >= SPREAD * min(levels))
    parallel = {c.row.tensor_parallel > 1 for c in loaded}
    return ((("bandwidth_efficiency",) if spread else ()) + (("compute_efficiency",) if saturated else ())
            + (("step_s",) if loaded else ()) + (("all_reduce_s",) if len(parallel) > 1 else ()))


def fit_request_s(cases: list[sc.Case], c: ServingConstants) -> ServingConstants:
    """The fixed latency per request, from the TTFT of rows at low load (``sc.LOW_CONCURRENCY`` requests or fewer,
    where queueing is small); ``c`` unchanged when the group has none."""
    low = [case for case in cases if case.row.ttft and case.row.concurrency is not None
           and case.row.concurrency <= sc.LOW_CONCURRENCY]
    if not low:
        return c
    weight = source_weights(low)

    def loss(x: list[float]) -> float:
        trial = replace(c, request_s=math.exp(x[0]))
        return sum(weight[case.row.source] * _soft_l1(math.log(1 + sc.errors(case, trial)["ttft"])) for case in low)

    return replace(c, request_s=math.exp(nelder_mead(loss, [math.log(0.02)], iterations=200, tolerance=1e-8)[0]))


def fit(cases: list[sc.Case]) -> dict[str, ServingConstants]:
    """Constants per engine/backend group.

    Groups fit the constants their rows determine (``fields_for``), in order of how many they determine; the rest
    come from a donor group fitted before (another engine on the same backend, else the same engine on another).
    Groups without rows borrow a donor's constants."""
    fitted: dict[str, ServingConstants] = {}
    by_group = {k: [c for c in cases if group(c) == k] for k in GROUPS}
    fields = {k: fields_for(by_group[k]) for k in GROUPS}
    for k in sorted(GROUPS, key=lambda g: (-len(fields[g]), GROUPS.index(g))):
        donor = _donor(k, fitted)
        if not fields[k]:
            fitted[k] = replace(donor or START, engine=k, fitted="", borrowed_from=donor.engine if donor else "")
            continue
        complete = {"bandwidth_efficiency", "compute_efficiency", "step_s"} <= set(fields[k])
        start = START if complete or donor is None else donor
        constants = fit_request_s(by_group[k], fit_cases(by_group[k], k, start, fields[k]))
        fitted[k] = replace(constants, borrowed_from="" if complete or donor is None else donor.engine)
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
             f"Fitted on {rows} rows of generator/data/serving/ (see calibrate/serving_cases.py for which rows) on "
             f"{datetime.date.today().isoformat()}; ``fitted`` is the date of the newest measurement of each group.",
             "CV_STATS: cross-validated (leave one GPU out, leave one source out); FIT_STATS: in-sample.",
             '"""', "", "from __future__ import annotations", "", "from .serving import ServingConstants", "",
             "CONSTANTS: dict[str, ServingConstants] = {"]
    for name, c in constants.items():
        lines.append(f"    {name!r}: ServingConstants({name!r}, bandwidth_efficiency={c.bandwidth_efficiency!r}, "
                     f"compute_efficiency={c.compute_efficiency!r}, step_s={c.step_s!r}, "
                     f"all_reduce_s={c.all_reduce_s!r}, request_s={c.request_s!r}, "
                     f"fitted={c.fitted!r}, "
                     f"borrowed_from={c.borrowed_from!r}),")
    lines += ["}", "", "# (kind, validation, rows, median |error|, share within ±25 %)",
              f"CV_STATS: tuple[tuple[str, str, int, float, float], ...] = {tuple(cv)!r}",
              f"FIT_STATS: tuple[tuple[str, str, int, float, float], ...] = {tuple(in_sample)!r}", ""]
    return "\n".join(lines)
