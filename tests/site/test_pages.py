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
        assert f"0 {unit}" not in text and "max context 0" not in text
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
    assert "stündlich auf Abruf" in text and "Datentyp des KV-Cache" in text


def test_offer_tables_show_marketed_vram_tier_and_price_age(fixture_site: Path):
    """The fixture's offers are checked 2026-05-28, its newest price date and so the default reference date."""
    text = _text(fixture_site / "en" / "models" / "gpt-oss-20b" / "mi300x" / "index.html")
    # 192 GiB per MI300X, as the provider states it: 192 GB (not 206 GB)
    assert "192 GB $1.99" in text and "hourly on demand May 28, 2026 0 days old" in text
    assert "possibly stale" not in text
    assert "Ages count to May 28, 2026; a price older than 120 days may have changed." in text
    # both offers are on demand: the pair page lists the cheapest and links to the GPU page for the other
    assert "$15.92" not in text and "all 2 cloud offers for this GPU" in text
    gpu = _text(fixture_site / "de" / "gpus" / "mi300x" / "index.html")
    assert "192 GB 1,99 $ auf Abruf 28.05.2026 0 Tage alt" in gpu
    assert "1.536 GB 15,92 $ auf Abruf" in gpu  # eight GPUs: 1536 GB, not 1649


def test_datacenter_pair_page_serves_many_users_at_the_command_s_operating_point(fixture_site: Path):
    page = fixture_site / "en" / "models" / "gpt-oss-20b" / "mi300x" / "index.html"
    text = _text(page)
    assert "Serving many users with vLLM" in text
    point = re.search(r"Recommended operating point: ([\d,]+) concurrent requests, ([\d,.]+) output tok/s per GPU "
                      r"at ([\d.]+) tok/s per user", text)
    assert point and float(point.group(3)) >= 20
    assert re.search(r"per 1M output tokens and \$[\d.]+ per 1M input tokens", text)
    command = _head(page, r"(vllm serve [^<]*)")
    assert f"--max-num-seqs {point.group(1).replace(',', '')}" in command
    assert "--max-model-len 2048" in command and "--tensor-parallel-size 1" in command
    assert '<svg class="chart"' in page.read_text(encoding="utf-8").split('id="serving"')[1].split("</section>")[0]


def test_consumer_pair_page_has_no_serving_section(fixture_site: Path):
    assert "Serving many users" not in _text(fixture_site / "en" / "models" / "llama-3.1-8b" / "rx-7900-xtx" / "index.html")
