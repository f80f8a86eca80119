"""``python -m generator.cli.fit_serving``: fit the serving constants on generator/data/serving/ against the
catalogue's models and GPUs, cross-validate, and write generator/estimate/serving_constants.py."""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from ..calibrate import serving_cases as sc
from ..calibrate.fit_serving import CONSTANTS_PATH, _stat_tuple, cross_validate, fit, group, write
from ..catalog.load import load_catalog
from ..sitedata.adapters import device_spec, model_spec


def load_cases(catalog: Path) -> list[sc.Case]:
    """Calibration rows resolved against the catalogue's models and GPUs."""
    cat = load_catalog(catalog)
    rows = sc.load_rows()
    wanted = {r.model for r in rows}
    models = {m.id: model_spec(m) for m in cat.models.values() if m.id in wanted}
    return sc.cases(rows, models, lambda gpu, count: device_spec(cat.gpus[gpu], count, "tensor")
                    if gpu in cat.gpus else None)


def main(argv: list[str] | None = None) -> int:
    """Fit, cross-validate, write the constants module and print the statistics."""
    parser = argparse.ArgumentParser(prog="python -m generator.cli.fit_serving", description=__doc__)
    parser.add_argument("--catalog", type=Path, default=Path("catalog"))
    parser.add_argument("--no-cv", action="store_true", help="skip cross-validation (quick look)")
    args = parser.parse_args(argv)
    t0 = time.time()
    cases = load_cases(args.catalog)
    print(f"{len(cases)} cases ({time.time() - t0:.1f} s)")
    constants = fit(cases)
    for c in constants.values():
        print(c)
    in_sample = _stat_tuple("in-sample", [sc.errors(c, constants[group(c)]) for c in cases])
    cv: list[tuple[str, str, int, float, float]] = []
    if not args.no_cv:
        cv += _stat_tuple("leave one GPU out", cross_validate(cases, lambda c: c.row.gpu))
        cv += _stat_tuple("leave one source out", cross_validate(cases, lambda c: c.row.source))
    for row in in_sample + cv:
        print(row)
    CONSTANTS_PATH.write_text(write(constants, cv, in_sample, len(cases)), encoding="utf-8")
    print(f"wrote {CONSTANTS_PATH} ({time.time() - t0:.0f} s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
