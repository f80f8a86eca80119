"""Cost arithmetic on round numbers."""

from __future__ import annotations

import pytest

from generator.estimate import cost


def test_usd_per_million_tokens() -> None:
    # 100 tokens/s = 360,000 tokens/h; $3.60/h → $10 per million.
    assert cost.usd_per_million_tokens(100, 3.60) == pytest.approx(10.0)
    with pytest.raises(ValueError):
        cost.usd_per_million_tokens(0, 1.0)


def test_owned_cost_defaults() -> None:
    owned = cost.owned_cost(price_usd=2628, tdp_w=400)
    # $2,628 / (36 × 730 h) = $0.10/h; 0.4 kW × 1.0 × $0.15 = $0.06/h.
    assert owned.amortisation_usd_per_hour == pytest.approx(0.10)
    assert owned.power_usd_per_hour == pytest.approx(0.06)
    assert owned.usd_per_hour == pytest.approx(0.16)
    assert dict(owned.assumptions)["cost.power"].startswith("400 W")


def test_break_even_months() -> None:
    # Saving $1.00 − $0.06 = $0.94/h over 730 h/month; $1,372.40 pays off in 2 months.
    assert cost.rent_or_buy(cost.Ownership(1372.4, 400), None, None, 1.00).breakeven_months == pytest.approx(2.0)
    assert cost.rent_or_buy(cost.Ownership(1000, 400), None, None, 0.05).breakeven_months is None


def test_cheapest_offer_per_million_tokens() -> None:
    offers = [("a", 2.0, 1), ("b", 1.0, 1), ("c", 1.5, 2)]
    key, usd = cost.cheapest(offers, tokens_per_s=100)
    assert key == "b" and usd == pytest.approx(1.0 / 0.36)
    assert cost.cheapest([], 100) is None


def test_serving_price_splits_the_gpu_hour_between_output_and_prompts() -> None:
    from generator.estimate.serving import ServingPoint

    point = ServingPoint(concurrency=64, output_tokens_per_s_per_gpu=1000.0, total_tokens_per_s_per_gpu=1500.0,
                         tokens_per_s_per_user=25.0, ttft_s=0.5, step_s=0.04, prefill_share=0.25)
    price = cost.serving_price(point, 2.0)
    # Output: $2 × 0.75 = $1.50/h over 3.6M tokens/h → $0.41667; input: $0.50/h over 1.8M tokens/h → $0.27778.
    assert price.output_usd_per_mtok == pytest.approx(1.5 / 3.6)
    assert price.input_usd_per_mtok == pytest.approx(0.5 / 1.8)


def test_rent_or_buy_at_the_defaults_matches_the_owned_cost_and_break_even() -> None:
    # $2,628 over 3 years × 730 h = $0.10/h; 400 W × $0.15/kWh = $0.06/h: $0.16/h; 100 tok/s = 0.36M tok/h.
    own = cost.Ownership(price_usd=2628, power_w=400)
    r = cost.rent_or_buy(own, single_tokens_per_s=100, batched_tokens_per_s=400, rent_usd_per_hour=1.00)
    assert r.hours_per_month == 730.0
    assert r.power_usd_per_month == pytest.approx(0.06 * 730)
    assert r.single_usd_per_mtok == pytest.approx(0.16 / 0.36)
    assert r.batched_usd_per_mtok == pytest.approx(0.16 / 1.44)
    # Saving $1.00 − $0.06 = $0.94/h over 730 h a month.
    assert r.breakeven_months == pytest.approx(2628 / (0.94 * 730))


def test_rent_or_buy_with_the_buyers_own_numbers() -> None:
    # 8 h a day = 243.33 h a month; $1,200 over 2 years: $1,200 / (24 × 243.33 h) = $0.2055/h; 300 W at $0.40 = $0.12/h.
    own = cost.Ownership(price_usd=1200, power_w=300, usd_per_kwh=0.40, hours_per_day=8, years=2)
    r = cost.rent_or_buy(own, 50, None, rent_usd_per_hour=0.50)
    hours = 8 * 365 / 12
    assert r.power_usd_per_month == pytest.approx(0.12 * hours)
    assert r.single_usd_per_mtok == pytest.approx((1200 / (24 * hours) + 0.12) / 0.18)
    assert r.batched_usd_per_mtok is None
    assert r.breakeven_months == pytest.approx(1200 / (0.38 * hours))


def test_rent_or_buy_without_a_price_power_or_cheaper_rent() -> None:
    no_price = cost.rent_or_buy(cost.Ownership(None, 300), 50, 200, 0.50)
    assert (no_price.single_usd_per_mtok, no_price.batched_usd_per_mtok, no_price.breakeven_months) == (None, None, None)
    assert no_price.power_usd_per_month == pytest.approx(0.045 * 730)
    # No published draw (a Mac): electricity is left out, not guessed.
    mac = cost.rent_or_buy(cost.Ownership(1999, None), 36, None, 1.0)
    assert mac.power_usd_per_month == 0.0 and mac.single_usd_per_mtok == pytest.approx(1999 / 26280 / (36 * 3600) * 1e6)
    # Renting for less than the electricity: buying never pays off.
    assert cost.rent_or_buy(cost.Ownership(1000, 400), 50, None, 0.05).breakeven_months is None
    with pytest.raises(ValueError):
        cost.rent_or_buy(cost.Ownership(1000, 400, hours_per_day=0), 50, None, 1.0)


def test_rent_equivalent_scales_the_cloud_hour_by_the_speeds() -> None:
    # A cloud GPU twice as fast at $2/h rents the tokens of one hour on a GPU making half as many for $1.
    assert cost.rent_equivalent_usd_per_hour(2.0, cloud_tokens_per_s=200, local_tokens_per_s=100) == pytest.approx(1.0)
    assert cost.rent_equivalent_usd_per_hour(2.0, 100, 100) == 2.0
