"""Serving fit: which constants a group's rows can pin, bounds, source weights, the low-concurrency rows."""

from __future__ import annotations

import csv
import math

from generator.calibrate import fit_serving
from generator.calibrate import serving_cases as sc


def _row(source: str = "s", model: str = "m", concurrency: int | None = 4, tp: int = 1, gpus: int = 1,
         user_tps: float | None = 100.0) -> sc.Row:
    return sc.Row(source, "2025-10", model, "h100-sxm", gpus, "vllm", "BF16", tp, False, False, 1000, 1000,
                  concurrency, user_tps=user_tps)


def _cases(*rows: sc.Row) -> list[sc.Case]:
    return [sc.Case(r, None) for r in rows]  # fields_for and source_weights read the rows only


def test_one_model_at_a_few_loads_pins_only_the_step_cost() -> None:
    assert fit_serving.fields_for(_cases(_row(concurrency=1), _row(concurrency=8))) == ("step_s",)


def test_two_models_or_a_wide_load_range_pin_the_bandwidth() -> None:
    two = _cases(_row(model="a"), _row(model="b"))
    wide = _cases(_row(concurrency=4), _row(concurrency=64))
    assert fit_serving.fields_for(two) == ("bandwidth_efficiency", "step_s")
    assert fit_serving.fields_for(wide) == ("bandwidth_efficiency", "compute_efficiency", "step_s")


def test_collective_latency_needs_one_gpu_and_tensor_parallel_runs() -> None:
    both = _cases(_row(model="a"), _row(model="b", tp=8, gpus=8))
    assert fit_serving.fields_for(both)[-1] == "all_reduce_s"
    assert "all_reduce_s" not in fit_serving.fields_for(_cases(_row(model="a", tp=8), _row(model="b", tp=8)))


def test_offline_maxima_pin_only_the_compute_efficiency() -> None:
    assert fit_serving.fields_for(_cases(_row(concurrency=None, user_tps=None))) == ("compute_efficiency",)


def test_bandwidth_efficiency_is_capped_at_a_gemv_share() -> None:
    c = fit_serving._with(fit_serving.START, [math.log(1.5), math.log(2.0)], ("bandwidth_efficiency",
                                                                              "compute_efficiency"))
    assert c.bandwidth_efficiency == fit_serving.MAX_BANDWIDTH_EFFICIENCY == 0.9
    assert c.compute_efficiency == 1.0


def test_source_weights_are_one_over_root_rows() -> None:
    w = fit_serving.source_weights(_cases(*[_row(source="big")] * 16, _row(source="small")))
    assert w == {"big": 0.25, "small": 1.0}


def test_low_concurrency_rows_are_sourced_and_in_range() -> None:
    raw = list(csv.DictReader((sc.DATA_DIR / "low_concurrency.csv").open(encoding="utf-8")))
    rows = sc._low_concurrency(sc.DATA_DIR / "low_concurrency.csv")
    assert len(rows) == len(raw) == 20
    assert all(r["url"].startswith("https://") and r["date"] and r["engine_version"] for r in raw)
    assert all(1 <= r.concurrency <= sc.LOW_CONCURRENCY and r.gpu_count == 1 and r.user_tps > 0 for r in rows)


def test_user_tps_low_scores_one_gpu_at_up_to_8_requests() -> None:
    from pathlib import Path

    from generator.cli.fit_serving import load_cases
    from generator.estimate.serving_constants import CONSTANTS

    cases = load_cases(Path("catalog"))
    low = [c for c in cases if "user_tps_low" in sc.errors(c, CONSTANTS[fit_serving.group(c)])]
    assert {c.row.source for c in low} >= {"gpustack-qwen3-8b", "gpu-conc", "musgrave-a100", "joshua8-5090"}
    assert all(c.row.gpu_count == 1 and c.row.concurrency <= sc.LOW_CONCURRENCY for c in low)
    assert len(low) == 20  # the InferenceX rows at 4-8 requests run on 4-8 GPUs: scored as user_tps only


def test_written_constants_respect_the_bounds() -> None:
    from generator.estimate.serving_constants import CONSTANTS

    assert all(0 < c.bandwidth_efficiency <= fit_serving.MAX_BANDWIDTH_EFFICIENCY and 0 < c.compute_efficiency <= 1
               and c.step_s >= 0 and c.request_s >= 0 for c in CONSTANTS.values())
