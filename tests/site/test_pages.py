"""What the fixture pages say: no "0 tok/s" for setups that do not run, German pages without English codes."""

from __future__ import annotations

import html
import re
from pathlib import Path

NO_FIT = "models/deepseek-v3/rx-7900-xtx/index.html"  # 671B parameters on 24 GiB: does not run at all


def _text(page: Path) -> str:
    main = re.search(r"<main.*?</main>", page.read_text(encoding="utf-8"), re.S).group(0)
    return html.unescape(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", re.sub(r"<svg.*?</svg>", "", main, flags=re.S))))


def _head(page: Path, pattern: str) -> str:
    return html.unescape(re.search(pattern, page.read_text(encoding="utf-8")).group(1))


def test_a_setup_that_does_not_run_shows_no_speed_or_context(fixture_site: Path):
    for language, unit in (("en", "tok/s"), ("de", "Token/s")):
        page = fixture_site / language / NO_FIT
        text = _text(page)
        # a speed of zero, not a figure that merely ends in 0 ("69.0 tok/s", "110 tok/s")
        assert not re.search(rf"(?<![\d.,])0 {unit}", text) and "max context 0" not in text
        assert unit not in _head(page, r'<meta name="description" content="([^"]*)"')
        assert unit not in _head(page, r"<title>(.*?)</title>")
        assert re.search(r"Decode[^<]{0,30}</dt><dd>—</dd>", page.read_text(encoding="utf-8"))


def test_fine_tuning_answer_uses_a_lower_case_verdict(fixture_site: Path):
    text = _text(fixture_site / "en" / NO_FIT)
    assert "(does not fit)" in text and "(Does not fit)" not in text


def test_german_pair_page_translates_codes(fixture_site: Path):
    text = _text(fixture_site / "de" / "models" / "gpt-oss-20b" / "mi300x" / "index.html")
    for english in ("hourly", "on-demand", "computed per tensor", "kv_type", "memory_bytes", "Fits with margin"):
        assert english not in text, english
    assert "stündlich · auf Abruf" in text and "Datentyp des KV-Cache" in text
