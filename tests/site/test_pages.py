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
    assert "--max-model-len 8192" in command and "--tensor-parallel-size 1" in command  # the page's context
    assert '<svg class="chart"' in page.read_text(encoding="utf-8").split('id="serving"')[1].split("</section>")[0]


def _section(page: Path, section_id: str) -> str:
    text = page.read_text(encoding="utf-8")
    return text[text.index(f'<section id="{section_id}"'):].split("</section>")[0]


def _cells(fragment: str) -> list[str]:
    return [" ".join(html.unescape(re.sub(r"<[^>]+>", " ", c)).split())
            for c in re.findall(r"<t[hd][^>]*>(.*?)</t[hd]>", fragment, re.S)]


def test_model_page_shows_the_cheapest_serving_setup_at_its_pair_page_s_operating_point(fixture_site: Path):
    """Each row links to a pair page whose serving section serves the row's precision on the row's GPUs, and the
    row's cost, throughput per GPU, speed per user and concurrency are that page's operating point, as printed."""
    checked = 0
    for model in ("gpt-oss-20b", "llama-3.1-8b"):
        section = _section(fixture_site / "en" / "models" / model / "index.html", "serving")
        rows = re.findall(r'<tr data-precision="([^"]+)" data-gpu="([^"]+)" data-gpus="(\d+)" data-tp="(\d+)" '
                          r'data-seqs="(\d+)">(.*?)</tr>', section, re.S)
        assert rows, model
        assert len({row[0] for row in rows}) == len(rows)  # one row per precision
        for precision, gpu, count, tp, seqs, body in rows:
            assert f'href="../../models/{model}/{gpu}/#serving"' in body or f"/models/{model}/{gpu}/#serving" in body
            pair = fixture_site / "en" / "models" / model / gpu / "index.html"
            serving = _section(pair, "serving")
            assert f'data-precision="{precision}" data-tp="{tp}"' in serving and f'data-seqs="{seqs}"' in serving
            assert f"{count} × " in _text(pair)
            cells = _cells(body)
            cost, tput, user, concurrency = cells[2:6]
            text = _text(pair)
            assert (f"Recommended operating point: {concurrency} concurrent requests, {tput} output tok/s per GPU "
                    f"at {user} tok/s per user") in text
            assert f"{cost} per 1M output tokens" in text
            assert float(user) >= 20
            checked += 1
    assert checked >= 2


def test_consumer_pair_page_has_no_serving_section(fixture_site: Path):
    assert "Serving many users" not in _text(fixture_site / "en" / "models" / "llama-3.1-8b" / "rx-7900-xtx" / "index.html")


def test_licences_show_their_names_not_identifiers(fixture_site: Path):
    """Issue 17: pages printed the catalogue's identifiers ("Lizenz: mit", "apache-2.0")."""
    for language, licence_label in (("en", "Licence"), ("de", "Lizenz")):
        for model, identifier, name in (("llama-3.1-8b", "llama3.1", "Llama 3.1 Community License Agreement"),
                                        ("gpt-oss-20b", "apache-2.0", "Apache License 2.0"),
                                        ("deepseek-v3", "deepseek-model-license", "DeepSeek License Agreement")):
            text = _text(fixture_site / language / "models" / model / "index.html")
            assert f"{licence_label} {name}" in text and f"{licence_label} {identifier}" not in text, (language, model)


def test_every_catalogued_licence_has_a_name():
    import yaml

    from generator.catalog.licences import LICENCES
    catalog = Path(__file__).resolve().parents[2] / "catalog" / "models"
    used = {yaml.safe_load(p.read_text(encoding="utf-8")).get("license") for p in catalog.glob("*.yaml")} - {None}
    assert used and used <= set(LICENCES), used - set(LICENCES)


def test_model_summary_gives_8k_figures_and_counts_gpus_at_the_precision_it_names(fixture_site: Path):
    """Issue 17: the "… with 8K context" figures came from the 4K row of the requirement table, and the GPU count
    was at each GPU's best quantization, after a sentence about Q4_K_M and BF16."""
    from generator.catalog.load import load_catalog
    from generator.estimate import estimator
    from generator.i18n import formatter
    from generator.sitedata import SiteData
    from generator.sitedata.policy import meets_floor
    site = SiteData(load_catalog(Path(__file__).resolve().parents[1] / "fixtures" / "project" / "catalog"))
    gib = formatter("en").gib
    counts = {}
    for model_id in sorted(site.models):
        eight_k = {q: estimator.estimate(site.models[model_id], site.reference_device(),
                                         estimator.Request(quant=q, context_tokens=8192), limits=False).total_bytes
                   for q in ("Q4_K_M", "BF16")}
        four_k = site.model_requirements(model_id)[0]
        assert four_k["context"] == 4096 and four_k["cells"]["Q4_K_M"]["total_bytes"] < eight_k["Q4_K_M"]
        counts[model_id] = sum(1 for g in site.catalog.gpus
                               if site.pick(model_id, g).estimate.verdict in ("fits", "tight")
                               and meets_floor(site.pick(model_id, g).quant, site.models[model_id].native_format))
        description = _head(fixture_site / "en" / "models" / model_id / "index.html",
                            r'<meta name="description" content="([^"]*)"')
        assert (f"needs {gib(eight_k['Q4_K_M'])} at Q4_K_M and {gib(eight_k['BF16'])} at BF16 with 8K context; "
                f"at or above the quality floor it fits fully on {counts[model_id]} of 2 catalogued "
                "GPUs.") in description
        page = (fixture_site / "en" / "models" / model_id / "index.html").read_text()
        assert f"{counts[model_id]} of the catalogued GPUs hold it fully" in page  # one definition of "fits" (#25)
    assert counts["deepseek-v3"] == 0  # 671B at Q4_K_M fits neither GPU, though a smaller quantization fits the MI300X
    # IQ1_S would fit the MI300X, but no catalogued repository publishes it and building it needs an importance
    # matrix (a calibration file): the pick is the smallest quant built without one, offloaded
    assert site.quant_estimate("deepseek-v3", "mi300x", "IQ1_S").verdict in ("fits", "tight")
    assert (site.pairs[("deepseek-v3", "mi300x")].quant, site.pairs[("deepseek-v3", "mi300x")].estimate.verdict) \
        == ("Q2_K", "offload")


def test_the_batched_figure_shows_only_where_two_or_more_sequences_fit(fixture_site: Path):
    """A setup that holds one sequence (or offloads weights) has nothing to batch: no "Batched, 0 sequences"."""
    shown, left_out = set(), set()
    for page in sorted((fixture_site / "en" / "models").glob("*/*/index.html")):
        text = _text(page)
        if not re.search(r"Decode \(one sequence\) [\d.,]+ tok/s", text):
            continue  # the setup does not run
        found = re.findall(r"Batched, ([\d,]+) sequences", text)
        (shown if found else left_out).add(page.parent.relative_to(fixture_site).as_posix())
        assert all(int(n.replace(",", "")) >= 2 for n in found), page
    assert shown and left_out  # both kinds occur among the fixture's pairs
