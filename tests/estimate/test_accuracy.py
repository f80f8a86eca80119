"""``python -m generator accuracy`` output format."""

from __future__ import annotations

import json
import re

from generator.__main__ import main


def test_table_lists_each_kind(capsys) -> None:
    assert main(["accuracy"]) == 0
    out = capsys.readouterr().out
    for kind in ("filesize", "decode", "prefill"):
        assert re.search(rf"^{kind}\s+\d+\s+\d+\.\d%\s+\d+\.\d%\s+\d+\.\d%$", out, re.M), kind
    assert "Hold-out" in out


def test_json(capsys) -> None:
    assert main(["accuracy", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    kinds = [row["kind"] for row in data["in_sample"]]
    assert kinds == ["filesize", "decode", "prefill"]
    assert data["in_sample"][1]["rows"] == 398
    assert {row["kind"] for row in data["holdout"]} == {"decode", "prefill"}


def test_serving_section_reports_cross_validated_error(capsys) -> None:
    assert main(["accuracy", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)["serving"]
    validations = {(r["kind"], r["validation"]) for r in rows}
    for kind in ("throughput_per_gpu", "user_tps"):
        for validation in ("leave one GPU out", "leave one source out", "in-sample"):
            assert (kind, validation) in validations
    assert all(0 <= r["median_abs_error"] < 10 and r["rows"] > 0 for r in rows)
