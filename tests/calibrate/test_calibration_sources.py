"""The calibration rows: each cites where it was published, none comes from material reserved for validation, and
every speed row of the 2025-26 builds is scored by the fit."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from generator.calibrate import speed_cases
from generator.catalog.load import load_catalog
from generator.cli.fit_constants import catalog_models

# Material reserved for independent validation (shared/calibration/README.md): no row may come from it. Discussion
# 15013 (and its scrape, willitrun) is reserved except the Llama-2-7B Q4_0 rows released for calibration
# (measurements-2025-cuda.csv there).
RESERVED = (r"llama\.cpp/discussions/(10879|15021|4167)\b", r"llama\.cpp/pull/(27841|18816|17576|18666|17505)\b",
            r"willitrun", r"localscore", r"geerlingguy/ai-benchmarks", r"localmaxxing", r"llmfit",
            r"llamacpp-rocm/pull/88\b", r"rocm\.blogs\.amd\.com", r"llm-d/llm-d/pull/1233\b", r"vllm/pull/43232\b",
            r"recipes/pull/(443|431)\b", r"inferencemax|inferencex", r"mlcommons|inference_results_v[56]")
RELEASED_15013 = ("Llama-2-7B", "Q4_0")


@pytest.fixture(scope="module")
def rows() -> list[speed_cases.Measurement]:
    return speed_cases.load_measurements()


def test_no_row_comes_from_reserved_material(rows) -> None:
    for row in rows:
        if "discussions/15013" in row.source:  # the released part (its README names the scrape it was taken from)
            assert (row.model, row.quant) == RELEASED_15013, row
            continue
        assert not any(re.search(p, row.source + " " + row.notes, re.IGNORECASE) for p in RESERVED), row


def test_no_offload_row_comes_from_reserved_material() -> None:
    from generator.calibrate import fit_offload

    with fit_offload.DATA_PATH.open(encoding="utf-8") as handle:
        text = handle.read()
    assert "discussions/15013" not in text
    assert not any(re.search(p, text, re.IGNORECASE) for p in RESERVED)


def test_the_reserved_patterns_catch_a_reserved_source() -> None:
    assert re.search(RESERVED[0], "https://github.com/ggml-org/llama.cpp/discussions/10879 via x")
    assert not re.search(RESERVED[0], "https://github.com/ggml-org/llama.cpp/discussions/108790")
    assert re.search(RESERVED[1], "https://github.com/ggml-org/llama.cpp/pull/18816 (comment)")


def test_current_rows_cite_a_public_url_and_run_the_default_layer_split(rows) -> None:
    current = [r for r in rows if r.era == speed_cases.ERA_CURRENT]
    assert len(current) > 500
    for row in current:
        assert row.source.startswith("https://"), row
        # llama.cpp's tensor and row split run other code paths than the modelled layer split
        assert not re.search(r"-sm (tensor|row)\b", row.notes) or "-sm layer" in row.notes, row


def test_every_current_speed_row_is_scored(rows) -> None:
    """No row drops out silently: each has a catalogued GPU and model and a file size to predict it with (rows run
    with flash attention off are left out by design: the model follows current builds' default)."""
    gpus = dict(load_catalog(Path("catalog")).gpus)
    cases = speed_cases.speed_cases(rows, speed_cases.gpu_facts(gpus), catalog_models(Path("catalog")))
    scored = {c.row for c in cases if c.era == speed_cases.ERA_CURRENT}
    expected = {r for r in rows if r.era == speed_cases.ERA_CURRENT and r.kind in speed_cases.SPEED_KINDS
                and not r.flash_attention_off}
    assert scored == expected
