"""Methodology data: the fitted constants, the engines they describe and the estimator's measured error."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..estimate import bands
from ..estimate import constants as fitted

CALIBRATION_DATE = "2026-09-02"  # newest measurements bundled: llama.cpp pull request 24546 (comment of 2026-09-02)


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
    measured = measured_generations(gpus)
    keys = sorted({(backend, bands.generation(backend, gpu.segment)) for gpu in gpus.values() for backend in gpu.backends})
    return {(backend, gen, cls): bands.error_band(backend, cls, gen, not gen or (backend, gen) in measured)
            for backend, gen in keys for cls in bands.CLASSES}


def measured_generations(gpus: Mapping[str, Any]) -> set[tuple[str, str]]:
    """(backend family, GPU generation) pairs some calibration row ran on, from the GPUs of each fitted group."""
    return {(family, bands.generation(family, gpus[gpu_id].segment))
            for (family, _era), ids in fitted.ROW_GPUS.items() for gpu_id in ids if gpu_id in gpus}
