"""``python -m generator.cli.fit_constants``: fit the speed constants on the calibration file, cross-validate them
and write generator/estimate/constants.py (the catalogue's GPU figures where it has them)."""

from __future__ import annotations

import argparse
import statistics
from pathlib import Path

from ..calibrate import fit_speed, speed_cases
from ..calibrate.fit_speed import (
    CONSTANTS_PATH,
    borrow_rows,
    fit,
    leave_one_gpu_out,
    leave_one_model_out,
    leave_one_source_out,
    render,
    statistics_rows,
    ttft_points,
)
from ..catalog.load import load_catalog


def _format(stats: list[tuple]) -> str:
    return "\n".join(f"  {m:6s} {g:14s} {k:12s} rows {n:4d}  median {md:6.1%}  worst {w:8.1%}  within ±30% {s:6.1%}"
                     for m, g, k, n, md, w, s in stats)


def main(argv: list[str] | None = None) -> int:
    """Fit, cross-validate, print the statistics and write constants.py unless --dry-run."""
    parser = argparse.ArgumentParser(prog="python -m generator.cli.fit_constants", description=fit_speed.__doc__)
    parser.add_argument("--catalog", type=Path, default=Path("catalog"))
    parser.add_argument("--dry-run", action="store_true", help="print only; do not write constants.py")
    args = parser.parse_args(argv)
    gpus = _catalog_gpus(args.catalog)
    facts = speed_cases.gpu_facts(gpus)
    rows = speed_cases.load_measurements()
    cases = speed_cases.speed_cases(rows, facts, catalog_models(args.catalog))
    constants = fit(cases)
    for group, c in sorted(constants.items()):
        print(group, c)
    held = (leave_one_gpu_out(cases, constants) + leave_one_source_out(cases, constants)
            + leave_one_model_out(cases, constants))
    held += ttft_points(held)
    stats = statistics_rows(held)
    borrow = borrow_rows(cases, constants)
    in_sample = [(c.row.kind, speed_cases.predict(c, constants[c.group]) / c.row.value - 1)
                 for c in speed_cases.fitted(cases)]
    fit_stats = []
    for kind in speed_cases.SPEED_KINDS:
        errors = [abs(e) for k, e in in_sample if k == kind]
        fit_stats.append((kind, len(errors), round(statistics.median(errors), 4), round(max(errors), 4),
                          round(sum(e <= speed_cases.WITHIN for e in errors) / len(errors), 4)))
    sizes = speed_cases.filesize_points(rows) or []
    size_errors = [abs(p.error) for p in sizes]
    size_stats = (len(size_errors), round(statistics.median(size_errors), 4), round(max(size_errors), 4),
                  round(sum(e <= speed_cases.WITHIN for e in size_errors) / len(size_errors), 4)) if sizes else (0, 0.0, 0.0, 0.0)
    print(_format(stats))
    print("borrowed:", borrow)
    if not args.dry_run:
        CONSTANTS_PATH.write_text(render(constants, stats, borrow, fit_stats, held, size_stats), encoding="utf-8")
        print(f"wrote {CONSTANTS_PATH}")
    return 0
def _catalog_gpus(folder: Path) -> dict:
    if not (folder / "gpus").is_dir():
        return {}
    try:
        return dict(load_catalog(folder).gpus)
    except Exception as error:  # noqa: BLE001 - a half-written catalogue must not stop a fit: say so, use the fallback
        print(f"catalogue not loaded ({error.__class__.__name__}); using the fallback GPU table")
        return {}


def catalog_models(folder: Path) -> dict:
    """The catalogue's models as the estimator sees them (api.ModelSpec by id), for the calibration rows of catalogued
    models; empty when the catalogue cannot be read (those rows are then left out)."""
    from ..sitedata.adapters import model_spec

    try:
        return {m.id: model_spec(m) for m in load_catalog(folder).models.values()}
    except Exception as error:  # noqa: BLE001 - a half-written catalogue must not stop a fit: say so, fit the Llama rows
        print(f"catalogue models not loaded ({error.__class__.__name__}); rows of catalogued models left out")
        return {}


if __name__ == "__main__":
    raise SystemExit(main())
