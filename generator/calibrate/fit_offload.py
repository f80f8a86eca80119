"""Fit llama.cpp's system-RAM read efficiency for routed experts kept in RAM, on generator/data/offload.csv.

With ``--n-cpu-moe N`` (or ``-ot exps=CPU``) llama.cpp runs the routed experts of N layers on the CPU, which reads
their weights from system RAM for every token. The speed model charges those bytes at the host's datasheet bandwidth
(channels × 8 bytes × MT/s) times one efficiency, ``speed.HOST_READ_EFFICIENCY``; the CPU's own arithmetic and the
hand-over of each such layer's activations between GPU and CPU are folded into it. One constant, fitted by least
squares on ln(predicted / measured) decode speed and cross-validated leaving one source and one GPU out. Run
``python -m generator.cli.fit_offload`` (it reads catalog/ and writes estimate/offload_constants.py) after every
refit of the speed constants: the GPU side of each row is predicted with them.
"""

from __future__ import annotations

import csv
import dataclasses
import math
import statistics
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..estimate import speed
from ..estimate.estimator import speed_workload
from . import speed_cases

DATA_PATH = Path(__file__).resolve().parent.parent / "data" / "offload.csv"
BOUNDS = (0.05, 1.0)  # a CPU cannot read RAM faster than its datasheet rate


@dataclass(frozen=True)
class OffloadRow:
    """One measured decode speed with routed experts in system RAM (``cpu_moe_layers`` None: every layer's)."""

    model: str
    quant: str
    gpu: str
    backend: str
    cpu_moe_layers: int | None
    host_mt_s: int
    host_channels: int
    value: float
    source: str


@dataclass(frozen=True)
class OffloadCase:
    """A row made ready for prediction: its workload with the experts in RAM, and its GPU and host."""

    row: OffloadRow
    work: speed.Workload
    device: speed.SpeedDevice


def load_rows(path: Path = DATA_PATH) -> list[OffloadRow]:
    """Every row of the offload file, in file order."""
    with path.open(encoding="utf-8", newline="") as handle:
        return [OffloadRow(r["model"], r["quant"], r["gpu"], r["backend"],
                           int(r["cpu_moe_layers"]) if r["cpu_moe_layers"] else None, int(r["host_mt_s"]),
                           int(r["host_channels"]), float(r["value"]), r["source"]) for r in csv.DictReader(handle)]


def cases(rows: Iterable[OffloadRow], models: Mapping[str, Any], gpus: Mapping[str, Any]) -> list[OffloadCase]:
    """Rows of catalogued models (api.ModelSpec) and GPUs (catalogue entries), with the experts of their layers in
    RAM (a share of the expert bytes: every MoE layer holds the same experts) and the host's datasheet bandwidth."""
    found = []
    for row in rows:
        if row.model not in models or row.gpu not in gpus:
            continue
        work = speed_workload(models[row.model], row.quant)
        layers = work.moe_layers or work.n_layers
        in_ram = layers if row.cpu_moe_layers is None else min(row.cpu_moe_layers, layers)
        work = dataclasses.replace(work, host_expert_bytes=round(work.expert_weight_bytes * in_ram / layers))
        device = dataclasses.replace(speed_cases.device_for(speed_cases.catalogue_facts(gpus[row.gpu]), 1),
                                     backend=row.backend,
                                     host_bandwidth_bytes_per_s=row.host_channels * 8 * row.host_mt_s * 1e6)
        found.append(OffloadCase(row, work, device))
    return found


def predict(case: OffloadCase, efficiency: float) -> float:
    """Predicted decode tokens per second (tg128 from an empty context) at a host read ``efficiency``."""
    from ..estimate.constants import ERA_CONSTANTS

    device = dataclasses.replace(case.device, host_read_efficiency=efficiency)
    constants = ERA_CONSTANTS[(speed.kernel_family(device), speed_cases.ERA_CURRENT)]
    return speed.generation_tokens_per_s(case.work, device, constants, new_tokens=128)


def fit(found: list[OffloadCase]) -> float:
    """The efficiency that minimises the squared ln(predicted / measured) over ``found`` (golden-section search)."""
    def loss(e: float) -> float:
        return sum(math.log(predict(c, e) / c.row.value) ** 2 for c in found)
    low, high = BOUNDS
    ratio = (math.sqrt(5) - 1) / 2
    for _ in range(60):
        a, b = high - ratio * (high - low), low + ratio * (high - low)
        low, high = (low, b) if loss(a) < loss(b) else (a, high)
    return round((low + high) / 2, 4)


def errors(found: list[OffloadCase], efficiency: float) -> list[float]:
    """Signed relative error of each case, predicted / measured − 1."""
    return [predict(c, efficiency) / c.row.value - 1 for c in found]


def cross_validate(found: list[OffloadCase], key: Callable[[OffloadCase], str]) -> list[float]:
    """Absolute relative errors of each case, predicted with the efficiency fitted on the rows of other ``key``s."""
    held = []
    for value in sorted({key(c) for c in found}):
        train = [c for c in found if key(c) != value]
        if train:
            held += [abs(e) for e in errors([c for c in found if key(c) == value], fit(train))]
    return held


def summary(errors_: list[float]) -> tuple[int, float]:
    """(rows, median absolute error)."""
    return len(errors_), round(statistics.median(abs(e) for e in errors_), 4) if errors_ else math.nan
