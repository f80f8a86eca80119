"""The rent-or-buy block: what owning is compared with, the calculator's defaults, and what the page says without a
price, without a published power draw (a Mac) and without a cloud to compare with."""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from types import SimpleNamespace

import pytest
import yaml
from babel.support import NullTranslations

from generator.catalog.schema import Gpu
from generator.estimate import cost
from generator.pages.render import make_environment
from generator.sitedata.policy import PairResult, cheapest_cloud
from generator.views.common import CloudBasis, rentbuy_view

ROOT = Path(__file__).resolve().parents[2]
FIXTURE = ROOT / "tests" / "fixtures" / "project" / "catalog" / "gpus"


def _gpu(**update) -> Gpu:
    gpu = Gpu.model_validate(yaml.safe_load((FIXTURE / "rx-7900-xtx.yaml").read_text(encoding="utf-8")))
    return gpu.model_copy(update=update)


def _render(view, model_page: bool = True) -> str:
    env = make_environment(ROOT / "templates", NullTranslations(), "en")
    return env.get_template("partials/rentbuy.html").render(p=view, gpu_name="Test GPU", model_page=model_page)


def _offer(provider: str, usd_per_hour: float, gpu_count: int = 1):
    return (SimpleNamespace(name=provider), SimpleNamespace(price_usd_per_hour=usd_per_hour, gpu_count=gpu_count,
                                                            instance=f"{provider} box", checked=dt.date(2026, 11, 1)))


def _pick(verdict: str, tokens_per_s: float, quant: str = "Q4_K_M") -> PairResult:
    return PairResult(quant, SimpleNamespace(verdict=verdict, decode_tokens_per_s=tokens_per_s,
                                                batched_tokens_per_s=tokens_per_s * 10))


def test_the_cloud_pick_is_the_cheapest_per_token_not_per_hour() -> None:
    catalog = SimpleNamespace(gpus={g: SimpleNamespace(name=g.upper()) for g in "abcd"})
    picks = {"a": _pick("fits", 50), "b": _pick("tight", 200), "c": _pick("no_fit", 0), "d": _pick("fits", 100)}
    # a: $1/h at 50 tok/s = $5.56 per 1M; b: $8 for 4 GPUs = $2/GPU-hour at 200 tok/s = $2.78; c does not fit; d unrented.
    offers = {"a": [_offer("P", 1.0)], "b": [_offer("Q", 8.0, 4)], "c": [_offer("R", 0.10)], "d": []}
    pick = cheapest_cloud(catalog, "bf16", picks, offers)
    assert (pick.gpu, pick.gpu_name, pick.provider, pick.usd_per_gpu_hour) == ("b", "B", "Q", 2.0)
    assert pick.single_usd_per_mtok == pytest.approx(2.0 / (200 * 3600) * 1e6)
    assert cheapest_cloud(catalog, "bf16", {"c": picks["c"], "d": picks["d"]}, offers) is None


def test_the_cloud_pick_meets_the_quality_floor_where_a_rented_gpu_does() -> None:
    catalog = SimpleNamespace(gpus={g: SimpleNamespace(name=g.upper()) for g in "ab"})
    # a: 1-bit at $0.50/h and 100 tok/s ($1.39 per 1M), b: Q4_K_M at $2/h and 100 tok/s ($5.56 per 1M)
    picks = {"a": _pick("fits", 100, "IQ1_S"), "b": _pick("fits", 100)}
    offers = {"a": [_offer("P", 0.5)], "b": [_offer("Q", 2.0)]}
    assert cheapest_cloud(catalog, "bf16", picks, offers).gpu == "b"
    assert cheapest_cloud(catalog, "bf16", {"a": picks["a"]}, offers).gpu == "a"  # below the floor only when alone


def test_a_dated_price_is_the_default_with_its_source() -> None:
    view = rentbuy_view(_gpu(), None, 50.0, 500.0)
    assert (view.price_usd, view.price_kind, view.price_date) == (999, "msrp", dt.date(2022, 11, 3))
    assert view.inputs == {"price": "999", "kwh": "0.15", "hours": "24", "years": "3"}
    assert view.price_source.link and view.price_source.host == "mybroadband.co.za"
    html = _render(view)
    assert 'name="price" type="number" min="0" step="any" inputmode="decimal" value="999"' in html
    assert "Default price: $999 (launch list price, Nov 3, 2022). Source: <a href=\"https://mybroadband.co.za/" in html
    assert "No public list price" not in html
    # Nothing to compare with: no break-even, and the page says why.
    assert '<output data-out="breakeven">—</output>' in html and "nothing to compare owning with" in html


def test_no_price_leaves_the_field_empty_and_says_so() -> None:
    gpu = _gpu(price_usd=None, price_kind=None, price_date=None)
    cloud = CloudBasis("Cloud, 1x GPU", "Test GPU", True, 2.0, 11.1, 1.1, 2.0, False)
    view = rentbuy_view(gpu, cloud, 50.0, 500.0)
    assert view.price_usd is None and view.inputs["price"] == "" and not view.never
    assert (view.result.single_usd_per_mtok, view.result.breakeven_months) == (None, None)
    html = _render(view)
    assert 'value="" placeholder="your quote"' in html
    assert "<strong>No public list price; enter your quote.</strong>" in html
    assert '<output data-out="breakeven">—</output>' in html and '<output data-out="local-single">—</output>' in html
    assert '<p class="rentbuy-line" hidden>' in html  # the local-vs-cloud line waits for a price


def test_a_mac_is_bought_or_a_gpu_rented_and_its_unpublished_power_is_not_guessed() -> None:
    mac = _gpu(vendor="apple", segment="unified", unified_memory=True, tdp_w=None)
    cloud = CloudBasis("Cloud, 1x H100", "NVIDIA H100", False, 2.0, 5.0, 0.5, 1.0, True)
    view = rentbuy_view(mac, cloud, 50.0, 500.0)
    assert view.apple and view.power_w is None and view.result.power_usd_per_month == 0.0
    assert view.result.breakeven_months == pytest.approx(999 / (1.0 * 730))
    html = _render(view)
    assert "Buy the Mac or rent a GPU" in html and "on your own Mac" in html
    assert "No published power draw for Test GPU, so electricity is not counted." in html
    assert '<output data-out="power-month">—</output>' in html
    assert "owning it is compared with the cloud GPU that makes these tokens cheapest: NVIDIA H100" in html
    assert "vs $5.00 on Cloud, 1x H100 (NVIDIA H100)." in html
    assert '$2.00 per GPU-hour), rented for as many tokens as one hour on Test GPU makes. <strong class="stale">' in html


def test_renting_for_less_than_the_electricity_never_pays_off() -> None:
    view = rentbuy_view(_gpu(), CloudBasis("Cheap, 1x GPU", "AMD Radeon RX 7900 XTX", True, 0.01, 0.1, 0.01, 0.01, False),
                        50.0, 500.0)
    assert view.never and '<output data-out="breakeven">never</output>' in _render(view)
    assert view.result == cost.rent_or_buy(cost.Ownership(999, 355), 50.0, 500.0, 0.01)
