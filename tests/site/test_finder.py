"""The home page finder: its data file carries the pair and model pages' figures (fixture site, and a 50-pair sample
of the real site), validates against its schema, and the page shows those figures in a real Chromium; example
pairs are never below the quality floor."""

from __future__ import annotations

import json
import random
import re
from pathlib import Path

import jsonschema
import pytest

from generator.i18n import formatter
from generator.pages import api_schema
from generator.pages.finder import shown_speed
from tests.quality.browser import launch_options
from tests.site.test_opendata import _kpis, _nbsp

FINDER = Path("api/v1/finder.json")
FLOOR = {"native", "near_lossless", "good"}
RUNS = {"fits", "tight", "offload"}


def _json(site: Path, path: str | Path) -> dict:
    return json.loads((site / path).read_text(encoding="utf-8"))


def _runs(doc: dict) -> dict[tuple[str, str], dict]:
    """The finder's rows by (model id, GPU id), as named values."""
    found = {}
    for gpu in doc["gpus"]:
        for row in gpu["runs"]:
            named = dict(zip(doc["run_columns"], row))
            found[(doc["models"][named["model"]]["id"], gpu["id"])] = named
    return found


def _check_pair(site: Path, doc: dict, runs: dict, model_id: str, gpu_id: str) -> None:
    """The pair is listed exactly when its page recommends a setup that runs at or above the floor, with its page's
    quant, memory, decode speed and context (the pair's JSON document is built from the view its page renders)."""
    pair = _json(site, f"api/v1/models/{model_id}/{gpu_id}.json")
    e, setup = pair["estimate"], pair["setup"]
    # The site's one floor (policy.meets_floor): every measured grade at the floor, plus unmeasured K-/i-quants by bits.
    assert setup["at_quality_floor"] if setup["quality_grade"] in FLOOR else (
        not setup["at_quality_floor"] or setup["quality_grade"] == "unmeasured")
    listed = e["verdict"] in RUNS and setup["at_quality_floor"]
    assert ((model_id, gpu_id) in runs) == listed, (model_id, gpu_id)
    if not listed:
        return
    row = runs[(model_id, gpu_id)]
    assert doc["quants"][row["quant"]] == setup["quant"]
    assert doc["quality_grades"][row["quality_grade"]] == setup["quality_grade"]
    assert doc["verdicts"][row["verdict"]] == e["verdict"]
    assert row["total_bytes"] == e["total_bytes"]
    assert row["decode_tokens_per_s"] == shown_speed(e["decode_tokens_per_s"])
    assert row["max_context_tokens"] == e["max_context_tokens"]
    kpis = _kpis(site / "en" / "models" / model_id / gpu_id / "index.html")  # and the page's own text
    fmt = formatter("en")
    assert kpis["Decode speed"] == f"{fmt.sig(row['decode_tokens_per_s'])} tok/s"
    assert kpis["Memory needed"].startswith(_nbsp(fmt.gib(row["total_bytes"])))
    assert kpis["Recommended quantization"].startswith(setup["quant"])


def _check_model(site: Path, doc: dict, model: dict) -> None:
    """The model finder's serving rows are the model page's (its JSON document)."""
    page = _json(site, f"api/v1/models/{model['id']}.json")
    assert [(s["precision"], doc["gpus"][s["gpu"]]["id"], s["gpu_count"], s["usd_per_million_output_tokens"])
            for s in model["serving"]] == [(s["precision"], s["gpu"]["id"], s["gpu_count"],
                                            s["usd_per_million_output_tokens"]) for s in page["cheapest_serving"]]


def test_the_finder_lists_every_floor_pair_with_its_pages_figures(fixture_site: Path):
    doc = _json(fixture_site, FINDER)
    jsonschema.validate(doc, api_schema.schema("finder"))
    runs = _runs(doc)
    assert runs  # the fixture has pairs at the floor
    for model in doc["models"]:
        for gpu in doc["gpus"]:
            _check_pair(fixture_site, doc, runs, model["id"], gpu["id"])
        _check_model(fixture_site, doc, model)


def test_example_pairs_are_at_the_floor_and_show_their_quant(fixture_site: Path):
    index = _json(fixture_site, "api/v1/index.json")
    assert index["popular_pairs"]
    page = (fixture_site / "en" / "index.html").read_text(encoding="utf-8")
    for pair in index["popular_pairs"]:
        doc = _json(fixture_site, pair["pair_json_path"])
        assert doc["setup"]["at_quality_floor"] and doc["estimate"]["verdict"] == "fits"
        assert pair["quant"] == doc["setup"]["quant"] and f"<small>{pair['quant']} (" in page


@pytest.mark.slow
def test_a_sample_of_50_real_pairs_matches_the_pair_pages(real_site: Path):
    doc = _json(real_site, FINDER)
    jsonschema.validate(doc, api_schema.schema("finder"))
    runs = _runs(doc)
    pairs = sorted((m["id"], g["id"]) for m in doc["models"] for g in doc["gpus"])
    sample = random.Random(28).sample(sorted(runs), 25) + random.Random(29).sample(pairs, 25)  # listed or not
    for model_id, gpu_id in sample:
        _check_pair(real_site, doc, runs, model_id, gpu_id)
    for model in random.Random(28).sample(doc["models"], 10):
        _check_model(real_site, doc, model)
    for pair in _json(real_site, "api/v1/index.json")["popular_pairs"]:
        example = _json(real_site, pair["pair_json_path"])
        assert example["setup"]["at_quality_floor"] and example["estimate"]["verdict"] == "fits"


# --- Chromium -----------------------------------------------------------------------------------------------

playwright = pytest.importorskip("playwright.sync_api")


@pytest.fixture(scope="module")
def browser():
    with playwright.sync_playwright() as p:
        chromium = p.chromium.launch(**launch_options())
        yield chromium
        chromium.close()


def _open(browser, url: str):
    page = browser.new_context(viewport={"width": 1280, "height": 900}).new_page()
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(url)
    page.wait_for_selector("#finder:not([hidden]) #finder-out table")
    return page, errors


def _plain(text: str) -> str:
    return " ".join(text.replace("\u00a0", " ").split())


@pytest.mark.browser
@pytest.mark.parametrize("language", ["en", "de"])
def test_choosing_a_gpu_shows_its_models_with_the_pair_pages_figures(browser, server, fixture_site: Path, language):
    page, errors = _open(browser, f"{server}{language}/")
    decode_label = {"en": "Decode speed", "de": "Decode-Geschwindigkeit"}[language]
    for gpu_id in ("rx-7900-xtx", "mi300x"):
        page.select_option("#f-gpu", gpu_id)
        rows = page.locator("#finder-out tbody tr")
        shown = {}
        for i in range(rows.count()):
            link = rows.nth(i).locator("th a")
            shown[link.get_attribute("href").split("/")[-3]] = (
                link.get_attribute("href"), [_plain(c) for c in rows.nth(i).locator("td").all_inner_texts()])
        expected = [m for m in ("deepseek-v3", "gpt-oss-20b", "llama-3.1-8b")
                    if (d := _json(fixture_site, f"api/v1/models/{m}/{gpu_id}.json"))["estimate"]["verdict"] in RUNS
                    and d["setup"]["at_quality_floor"]]
        assert sorted(shown) == expected and expected
        for model_id, (href, cells) in shown.items():
            assert href.endswith(f"{language}/models/{model_id}/{gpu_id}/")
            pair_page = fixture_site / language / "models" / model_id / gpu_id / "index.html"
            kpis = _kpis(pair_page)
            quant = _json(fixture_site, f"api/v1/models/{model_id}/{gpu_id}.json")["setup"]["quant"]
            assert cells[0].startswith(quant)
            assert _plain(kpis[{"en": "Memory needed", "de": "Speicherbedarf"}[language]]).startswith(cells[1])
            assert _plain(kpis[decode_label]) == cells[2]
    page.click("label[for=ff-offload]")  # the fixture's setups all fit: the offload filter empties the list
    assert page.locator("#finder-out tbody tr").count() == 0
    assert errors == []


@pytest.mark.browser
def test_the_model_finder_and_the_grouped_lists(browser, server):
    page, errors = _open(browser, f"{server}en/")
    page.click("label[for=fm-model]")
    page.select_option("#f-model", "gpt-oss-20b")
    picks = page.locator(".finder-picks li")
    assert picks.count() >= 2 and "Best single GPU" in picks.first.inner_text()
    assert re.search(r"Cheapest serving \(\w+\)", page.locator(".finder-picks").inner_text())
    page.click("label[for=fm-memory]")
    page.fill("#f-vram", "8")
    assert "Llama 3.1 8B" in page.locator("#finder-out").inner_text()
    page.fill("#search", "llama")  # the groups follow in a task after the input event: expect() waits for it
    playwright.expect(page.locator("details.group[open]")).to_have_count(1)
    playwright.expect(page.locator("li[data-name]:visible")).to_have_count(1)
    assert errors == []
