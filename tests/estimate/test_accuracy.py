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
