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
    assert cost.break_even_months(1372.4, 1.00, 400) == pytest.approx(2.0)
    assert cost.break_even_months(1000, 0.05, 400) is None


def test_cheapest_offer() -> None:
    offers = [("a", 2.0, 1), ("b", 1.0, 1), ("c", 1.5, 2)]
    key, usd = cost.cheapest(offers, tokens_per_s=100)
    assert key == "b" and usd == pytest.approx(1.0 / 0.36)
    assert cost.cheapest([], 100) is None
