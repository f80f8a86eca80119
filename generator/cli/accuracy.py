"""``accuracy``: the estimator against the measured calibration rows — per kind rows, median and worst error."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from ..estimate import calibration, constants

KIND_NAMES = {"filesize": "filesize", "decode_tps": "decode", "prefill_tps": "prefill"}


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``accuracy`` subcommand."""
    parser = subparsers.add_parser("accuracy", help="estimator error on the calibration measurements",
                                   description=__doc__)
    parser.add_argument("--catalog", type=Path, default=Path("catalog"), help="catalogue folder (default: catalog)")
    parser.add_argument("--data", type=Path, default=calibration.DATA_PATH, help="calibration CSV")
    parser.add_argument("--json", action="store_true", help="print the statistics as JSON")
    parser.set_defaults(func=run)


def summary(reports: list[calibration.KindReport]) -> list[dict[str, Any]]:
    """One plain row per kind: rows, median and worst absolute error, share within ±30 %."""
    return [{"kind": KIND_NAMES.get(r.kind, r.kind), "rows": r.rows, "median_abs_error": r.median_abs_error,
             "worst_abs_error": r.worst_abs_error, "within_30": r.within_30} for r in reports]


def format_table(rows: list[dict[str, Any]]) -> str:
    """The summary as an aligned text table."""
    lines = [f"{'kind':<9} {'rows':>5} {'median':>8} {'worst':>8} {'±30%':>7}"]
    lines += [f"{r['kind']:<9} {r['rows']:>5} {r['median_abs_error']:>8.1%} {r['worst_abs_error']:>8.1%} "
              f"{r['within_30']:>7.1%}" for r in rows]
    return "\n".join(lines)


def holdout_rows() -> list[dict[str, Any]]:
    """The fit script's hold-out statistics (constants fitted without the hold-out GPUs, scored on them)."""
    return [{"kind": KIND_NAMES[k], "rows": n, "median_abs_error": m, "worst_abs_error": w, "within_30": s}
            for k, n, m, w, s in constants.HOLDOUT_STATS]


def run(args: argparse.Namespace) -> int:
    """Print the accuracy table (and the stored hold-out table)."""
    gpus = _catalog_gpus(args.catalog)
    rows = summary(calibration.accuracy_report(gpus, args.data))
    serving = serving_rows(args.catalog)
    if args.json:
        print(json.dumps({"in_sample": rows, "holdout": holdout_rows(),
                          "holdout_gpus": list(constants.HOLDOUT_GPUS), "serving": serving}, indent=1))
        return 0
    print(f"Estimator vs {args.data.name} (absolute relative error)")
    print(format_table(rows))
    print(f"\nHold-out (speed constants fitted without {', '.join(constants.HOLDOUT_GPUS)}; scored on them)")
    print(format_table(holdout_rows()))
    print("\nServing (vLLM, SGLang, TensorRT-LLM) vs generator/data/serving/: cross-validated and in-sample")
    print(format_serving(serving))
    return 0


def serving_rows(catalog: Path) -> list[dict[str, Any]]:
    """Serving error: the fit script's cross-validated statistics and the shipped constants' in-sample error."""
    from ..estimate import serving_calibration, serving_constants

    rows = [{"kind": k, "validation": v, "rows": n, "median_abs_error": m, "within_25": w}
            for k, v, n, m, w in serving_constants.CV_STATS]
    if (catalog / "models").is_dir():
        from ..estimate.fit_serving import group
        from .fit_serving import load_cases

        cases = load_cases(catalog)
        errs = [serving_calibration.errors(c, serving_constants.CONSTANTS[group(c)]) for c in cases]
        rows += [{"kind": s.kind, "validation": "in-sample", "rows": s.rows, "median_abs_error": s.median_abs_error,
                  "within_25": s.within} for s in serving_calibration.stats(errs)]
    return rows


def format_serving(rows: list[dict[str, Any]]) -> str:
    """The serving statistics as an aligned text table."""
    lines = [f"{'kind':<19} {'validation':<21} {'rows':>5} {'median':>8} {'±25%':>7}"]
    lines += [f"{r['kind']:<19} {r['validation']:<21} {r['rows']:>5} {r['median_abs_error']:>8.1%} "
              f"{r['within_25']:>7.1%}" for r in rows]
    return "\n".join(lines)


def _catalog_gpus(folder: Path) -> dict:
    if not (folder / "gpus").is_dir() or not any((folder / "gpus").glob("*.yaml")):
        return {}
    from ..catalog.load import load_catalog

    return dict(load_catalog(folder).gpus)
