"""The rent-or-buy calculator in Chromium: its script repeats ``cost.rent_or_buy`` on the page's embedded figures,
in both languages, keeps its inputs in the address, and leaves the console clean."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from generator.estimate import cost
from tests.quality.browser import PageErrors

pytestmark = pytest.mark.browser

PAIR = "models/llama-3.1-8b/rx-7900-xtx/"  # priced GPU ($999 list), not rented: compared with the cloud's cheapest
RENTED = "models/llama-3.1-8b/mi300x/"  # priced and rented: compared with its own cheapest offer
OUTS = ("breakeven", "power-month", "local-single", "local-batched")


def _open(page: Any, url: str) -> PageErrors:
    errors = PageErrors().watch(page)
    page.goto(url, wait_until="networkidle")
    return errors


def _values(page: Any) -> dict[str, float | None]:
    """Each output's number as the script computed it (``data-value``; None where it shows a dash)."""
    found = page.eval_on_selector_all(
        "#cost dl.kpis output[data-out]", "els => els.map(e => [e.dataset.out, e.dataset.value])")
    return {key: float(value) if value else None for key, value in found}


def _texts(page: Any) -> dict[str, str]:
    return dict(page.eval_on_selector_all("#cost dl.kpis output[data-out]",
                                          "els => els.map(e => [e.dataset.out, e.textContent])"))


def _embedded(page: Any) -> dict[str, float | None]:
    data = page.eval_on_selector("#rentbuy", "f => Object.assign({}, f.dataset)")
    return {k: float(data[k]) if data[k] else None for k in ("powerW", "singleTps", "batchedTps", "rentUsdPerHour")}


def _python(page: Any, price: float | None, kwh: float, hours: float, years: float) -> cost.RentOrBuy:
    """What the estimator's formula gives for these inputs and the page's embedded figures."""
    d = _embedded(page)
    return cost.rent_or_buy(cost.Ownership(price, d["powerW"], kwh, hours, years), d["singleTps"], d["batchedTps"],
                            d["rentUsdPerHour"])


def _assert_same(js: dict[str, float | None], py: cost.RentOrBuy) -> None:
    expected = {"breakeven": py.breakeven_months, "power-month": py.power_usd_per_month,
                "local-single": py.single_usd_per_mtok, "local-batched": py.batched_usd_per_mtok}
    for key, value in expected.items():
        if value is None:
            assert js[key] is None, key
        else:
            assert js[key] == pytest.approx(value, rel=1e-12), key


def _server_texts(site: Path, path: str) -> dict[str, str]:
    """The outputs as the page states them without script (the view's figures, formatted by Python)."""
    html = (site / path / "index.html").read_text(encoding="utf-8")
    kpis = html[html.index('<dl class="kpis" aria-live="polite">'):]
    kpis = kpis[:kpis.index("</dl>")]
    return dict(re.findall(r'<output data-out="([\w-]+)">([^<]*)</output>', kpis))


@pytest.mark.parametrize("lang", ["en", "de"])
def test_the_script_matches_the_python_figures_of_a_prefilled_page(page: Any, site_server: Any, fixture_site: Path,
                                                                    lang: str) -> None:
    base = site_server(fixture_site)
    for path in (PAIR, RENTED):
        errors = _open(page, base + f"{lang}/{path}")
        # Run on load with the defaults, the script writes what the page said without it, character for character
        assert _texts(page) == _server_texts(fixture_site, f"{lang}/{path}")
        # and the numbers are the estimator's: the open data of the same view (rent_vs_buy at the defaults).
        doc = json.loads((fixture_site / "api/v1" / (path.rstrip("/") + ".json")).read_text(encoding="utf-8"))
        rent, js = doc["rent_vs_buy"], _values(page)
        assert js["breakeven"] == pytest.approx(rent["breakeven_months"], rel=1e-12)
        assert js["power-month"] == pytest.approx(rent["power_usd_per_month"], rel=1e-12)
        assert js["local-single"] == pytest.approx(rent["owned"]["usd_per_million_tokens"], rel=1e-12)
        assert _embedded(page)["singleTps"] == pytest.approx(doc["estimate"]["decode_tokens_per_s"], rel=1e-12)
        _assert_same(js, _python(page, 999 if path == PAIR else 15000, 0.15, 24, 3))
        errors.assert_clean()


@pytest.mark.parametrize("lang, money, months", [("en", r"^\$\d[\d,]*\.\d{2}$", r"^\d[\d,]*\.\d months$"),
                                                 ("de", r"^\d[\d.]*,\d{2}\u00a0\$$", r"^\d[\d.]*,\d Monate$")])
def test_inputs_to_outputs_in_the_pages_language_and_kept_in_the_address(page: Any, browser: Any, site_server: Any,
                                                                           fixture_site: Path, lang: str, money: str,
                                                                           months: str) -> None:
    base = site_server(fixture_site)
    errors = _open(page, base + f"{lang}/{PAIR}")
    for name, value in (("price", "2500"), ("kwh", "0.32"), ("hours", "8"), ("years", "2")):
        page.fill(f"#rentbuy input[name={name}]", value)
    expected = _python(page, 2500, 0.32, 8, 2)
    _assert_same(_values(page), expected)
    texts = _texts(page)
    assert re.match(months, texts["breakeven"]) and all(re.match(money, texts[k]) for k in OUTS[1:])
    assert "price=2500" in page.url and "kwh=0.32" in page.url and "hours=8" in page.url and "years=2" in page.url
    errors.assert_clean()
    # The address is the result: opened in another browser context, it shows the same figures.
    context = browser.new_context()
    try:
        other = context.new_page()
        other_errors = _open(other, page.url)
        assert other.input_value("#rentbuy input[name=price]") == "2500"
        _assert_same(_values(other), expected)
        assert _texts(other) == texts
        other_errors.assert_clean()
    finally:
        context.close()


def test_no_price_leaves_the_figures_empty_and_dear_power_never_pays_off(page: Any, site_server: Any,
                                                                          fixture_site: Path) -> None:
    base = site_server(fixture_site)
    errors = _open(page, base + f"en/{PAIR}")
    page.fill("#rentbuy input[name=price]", "")
    texts = _texts(page)
    assert (texts["breakeven"], texts["local-single"], texts["local-batched"]) == ("—", "—", "—")
    assert texts["power-month"] != "—" and page.locator(".rentbuy-line").is_hidden()
    page.fill("#rentbuy input[name=price]", "999")  # a quote entered: the break-even and the one-line comparison appear
    assert page.locator(".rentbuy-line").is_visible() and _texts(page)["breakeven"].endswith(" months")
    # Electricity dearer per hour than renting the same tokens: buying never pays off.
    page.fill("#rentbuy input[name=kwh]", "5")
    assert _texts(page)["breakeven"] == "never"
    _assert_same(_values(page), _python(page, 999, 5, 24, 3))
    page.fill("#rentbuy input[name=hours]", "0")  # out of range: nothing computed, nothing thrown
    assert set(_texts(page).values()) == {"—"}
    errors.assert_clean()


def test_the_gpu_page_has_the_same_inputs(page: Any, site_server: Any, fixture_site: Path) -> None:
    base = site_server(fixture_site)
    errors = _open(page, base + "de/gpus/mi300x/")
    assert [page.get_attribute(f"#rentbuy input[name={n}]", "name") for n in ("price", "kwh", "hours", "years")] == \
        ["price", "kwh", "hours", "years"]
    page.fill("#rentbuy input[name=price]", "12000")
    _assert_same({k: v for k, v in _values(page).items()} | {"local-single": None, "local-batched": None},
                 _python(page, 12000, 0.15, 24, 3))
    assert _texts(page)["breakeven"].endswith(" Monate")
    errors.assert_clean()
