"""``accuracy``: the estimator's cross-validated error on the calibration rows, per backend, engine era and quantity.

Speed (decode, prefill, time to first token): leave one GPU out and leave one source out, as stored by the fit
script (``python -m generator.cli.fit_constants`` refits and recomputes them). File size: the per-tensor size
formula against published GGUF sizes (nothing is fitted, so its error needs no hold-out). The in-sample error of the
stored constants is printed last, for reference.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from ..calibrate import speed_cases
from ..estimate import constants
from .fit_constants import catalog_models

KIND_NAMES = {"filesize": "file size", "decode_tps": "decode", "prefill_tps": "prefill", "ttft_s": "TTFT"}
METHOD_NAMES = {"gpu": "leave one GPU out", "source": "leave one source out", "model": "leave one model out"}


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``accuracy`` subcommand."""
    parser = subparsers.add_parser("accuracy", help="estimator error on the calibration measurements",
                                   description=__doc__)
    parser.add_argument("--catalog", type=Path, default=Path("catalog"), help="catalogue folder (default: catalog)")
    parser.add_argument("--data", type=Path, default=speed_cases.DATA_PATH, help="calibration CSV")
    parser.add_argument("--json", action="store_true", help="print the statistics as JSON")
    parser.set_defaults(func=run)


def cross_validated() -> list[dict[str, Any]]:
    """The stored cross-validated rows plus the file-size row, one dict each."""
    out = [{"method": METHOD_NAMES[m], "group": g, "kind": KIND_NAMES[k], "rows": n, "median_abs_error": md,
            "worst_abs_error": w, "within_30": s} for m, g, k, n, md, w, s in constants.CV_STATS]
    n, md, w, s = constants.FILESIZE_STATS
    out.append({"method": "formula (nothing fitted)", "group": "all", "kind": KIND_NAMES["filesize"], "rows": n,
                "median_abs_error": md, "worst_abs_error": w, "within_30": s})
    return out


def summary(reports: list[speed_cases.KindReport]) -> list[dict[str, Any]]:
    """One plain row per kind: rows, median and worst absolute error, share within ±30 %."""
    return [{"kind": KIND_NAMES.get(r.kind, r.kind), "rows": r.rows, "median_abs_error": r.median_abs_error,
             "worst_abs_error": r.worst_abs_error, "within_30": r.within_30} for r in reports]


def format_table(rows: list[dict[str, Any]]) -> str:
    """Rows as an aligned text table (method and group columns when present)."""
    wide = "method" in rows[0] if rows else False
    head = f"{'method':<24} {'group':<24} " if wide else ""
    lines = [f"{head}{'kind':<9} {'rows':>5} {'median':>8} {'worst':>9} {'±30%':>7}"]
    for r in rows:
        lead = f"{r['method']:<24} {r['group']:<24} " if wide else ""
        lines.append(f"{lead}{r['kind']:<9} {r['rows']:>5} {r['median_abs_error']:>8.1%} {r['worst_abs_error']:>9.1%} "
                     f"{r['within_30']:>7.1%}")
    return "\n".join(lines)


def run(args: argparse.Namespace) -> int:
    """Print the cross-validated table, then the in-sample one."""
    gpus = _catalog_gpus(args.catalog)
    models = catalog_models(args.catalog) if gpus else {}
    in_sample = summary(speed_cases.accuracy_report(gpus, args.data, models=models))
    cv = cross_validated()
    serving = serving_rows(args.catalog)
    offload = offload_rows()
    if args.json:
        print(json.dumps({"cross_validated": cv, "in_sample": in_sample, "serving": serving, "offload": offload},
                         indent=1))
        return 0
    print(f"Cross-validated error on {args.data.name} (absolute relative error; groups are backend and engine era)")
    print(format_table(cv))
    print("\nIn-sample, for reference (the constants scored on the rows they were fitted on)")
    print(format_table(in_sample))
    print("\nServing (vLLM, SGLang, TensorRT-LLM) vs generator/data/serving/: cross-validated and in-sample")
    print(format_serving(serving))
    print("\nDecode with experts in system RAM (llama.cpp) vs generator/data/offload.csv: one fitted efficiency")
    print("\n".join(f"{r['validation']:<21} {r['rows']:>5} {r['median_abs_error']:>8.1%}" for r in offload))
    return 0


def offload_rows() -> list[dict[str, Any]]:
    """Offload error: the fit script's cross-validated and in-sample statistics."""
    from ..estimate import offload_constants as oc

    return [{"validation": v, "rows": n, "median_abs_error": m} for v, n, m in oc.CV_STATS] + [
        {"validation": "in-sample", "rows": oc.ROWS, "median_abs_error": oc.IN_SAMPLE_MEDIAN_ERROR}]


def serving_rows(catalog: Path) -> list[dict[str, Any]]:
    """Serving error: the fit script's cross-validated statistics and the shipped constants' in-sample error."""
    from ..calibrate import serving_cases
    from ..estimate import serving_constants

    rows = [{"kind": k, "validation": v, "rows": n, "median_abs_error": m, "within_25": w}
            for k, v, n, m, w in serving_constants.CV_STATS]
    if (catalog / "models").is_dir():
        from ..calibrate.fit_serving import group
        from .fit_serving import load_cases

        cases = load_cases(catalog)
        errs = [serving_cases.errors(c, serving_constants.CONSTANTS[group(c)]) for c in cases]
        rows += [{"kind": s.kind, "validation": "in-sample", "rows": s.rows, "median_abs_error": s.median_abs_error,
                  "within_25": s.within} for s in serving_cases.stats(errs)]
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
