"""The out-of-sample check rows: public, cited, not from the reserved sources, and every one of them scored."""

from __future__ import annotations

import math
import re
from pathlib import Path

import pytest

from generator.calibrate import speed_cases
from generator.catalog.load import load_catalog
from generator.cli.fit_constants import catalog_models

# Material reserved for independent validation (shared/calibration/README.md): no row may come from it.
RESERVED = (r"llama\.cpp/discussions/(15013|10879|15021|4167)\b", r"llama\.cpp/pull/(27841|18816|17576|18666|17505)\b",
            r"willitrun", r"localscore", r"geerlingguy/ai-benchmarks", r"localmaxxing", r"llmfit",
            r"llamacpp-rocm/pull/88\b", r"rocm\.blogs\.amd\.com", r"llm-d/llm-d/pull/1233\b", r"vllm/pull/43232\b",
            r"recipes/pull/(443|431)\b", r"inferencemax|inferencex", r"mlcommons|inference_results_v[56]")


@pytest.fixture(scope="module")
def rows() -> list[speed_cases.Measurement]:
    return speed_cases.load_measurements(speed_cases.CHECK_PATH)


def test_every_check_row_cites_a_public_url_outside_the_reserved_material(rows) -> None:
    assert len(rows) > 400
    for row in rows:
        assert row.source.startswith("https://github.com/"), row
        assert not any(re.search(p, row.source + " " + row.notes, re.IGNORECASE) for p in RESERVED), row
        assert row.era == speed_cases.ERA_CURRENT and row.kind in ("decode_tps", "prefill_tps", "filesize")
        assert "-sm tensor" not in row.notes and "-sm row" not in row.notes or "-sm layer" in row.notes


def test_the_reserved_patterns_catch_a_reserved_source() -> None:
    assert re.search(RESERVED[0], "https://github.com/ggml-org/llama.cpp/discussions/15013 via x")
    assert not re.search(RESERVED[0], "https://github.com/ggml-org/llama.cpp/discussions/150130")


def test_every_speed_row_of_the_check_is_scored(rows) -> None:
    """No row drops out silently: each has a catalogued GPU and model and a file size to predict it with (rows run
    with flash attention off are left out by design, as in the fit: the model follows current builds' default)."""
    gpus = dict(load_catalog(Path("catalog")).gpus)
    report = speed_cases.check_report(gpus, catalog_models(Path("catalog")))
    scored = {kind: r.rows for group, r in report if group == "all" for kind in [r.kind]}
    assert scored == {kind: sum(r.kind == kind and not r.flash_attention_off for r in rows) for kind in speed_cases.SPEED_KINDS}
    by_group = {(g, r.kind): r for g, r in report}
    assert by_group[("multi-GPU (layer split)", "decode_tps")].rows > 0
    assert all(math.isfinite(r.median_abs_error) and r.rows == len(r.points) for r in by_group.values())
