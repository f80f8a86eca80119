"""``python -m generator.cli.fit_constants``: fit the speed constants on the calibration file and write
generator/estimate/constants.py (the catalogue's GPU figures where it has them)."""

from __future__ import annotations

import argparse
from pathlib import Path

from ..catalog.load import load_catalog
from ..estimate import calibration, fit_constants
from ..estimate.fit_constants import CONSTANTS_PATH, fit, render, stats_rows


def _format(title: str, stats: list[tuple]) -> str:
    return "\n".join([title] + [f"  {k:12s} rows {n:4d}  median {m:6.1%}  worst {w:7.1%}  within ±30% {s:6.1%}"
                                for k, n, m, w, s in stats])


def main(argv: list[str] | None = None) -> int:
    """Fit, print fit and hold-out statistics, and write constants.py unless --dry-run."""
    parser = argparse.ArgumentParser(prog="python -m generator.cli.fit_constants", description=fit_constants.__doc__)
    parser.add_argument("--catalog", type=Path, default=Path("catalog"))
    parser.add_argument("--dry-run", action="store_true", help="print only; do not write constants.py")
    args = parser.parse_args(argv)
    gpus = _catalog_gpus(args.catalog)
    facts = calibration.gpu_facts(gpus)
    cases = calibration.speed_cases(calibration.load_measurements(), facts)
    holdout = calibration.holdout_gpus(cases)
    train = [c for c in cases if c.gpu_id not in holdout]
    held = [c for c in cases if c.gpu_id in holdout]
    held_constants = fit(train)
    holdout_stats = stats_rows(calibration.speed_points(held, held_constants))
    fallback_stats = stats_rows(calibration.speed_points(calibration.without_flops(held), held_constants))
    constants = fit(cases)
    fit_stats = stats_rows(calibration.speed_points(cases, constants))
    for c in constants.values():
        print(c)
    print(_format("in-sample (all rows)", fit_stats))
    print(_format(f"hold-out ({', '.join(sorted(holdout))}; fitted without them)", holdout_stats))
    print(_format("hold-out with every GPU's FLOPS hidden (flops_per_byte fallback)", fallback_stats))
    if not args.dry_run:
        sources = {g: f"{f.source} ({f.note})" if f.note else f.source for g, f in facts.items()
                   if g in {c.gpu_id for c in cases}}
        CONSTANTS_PATH.write_text(render(constants, holdout, fit_stats, holdout_stats, fallback_stats, sources), encoding="utf-8")
        print(f"wrote {CONSTANTS_PATH}")
    return 0


def _catalog_gpus(folder: Path) -> dict:
    if not (folder / "gpus").is_dir():
        return {}
    try:
        return dict(load_catalog(folder).gpus)
    except Exception as error:  # a half-written catalogue must not stop a fit: say so and use the fallback table
        print(f"catalogue not loaded ({error.__class__.__name__}); using the fallback GPU table")
        return {}


if __name__ == "__main__":
    raise SystemExit(main())
