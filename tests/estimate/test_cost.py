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


def test_serving_price_splits_the_gpu_hour_between_output_and_prompts() -> None:
    from generator.estimate.serving import ServingPoint

    point = ServingPoint(concurrency=64, output_tokens_per_s_per_gpu=1000.0, total_tokens_per_s_per_gpu=1500.0,
                         tokens_per_s_per_user=25.0, ttft_s=0.5, step_s=0.04, prefill_share=0.25)
    price = cost.serving_price(point, 2.0)
    # Output: $2 × 0.75 = $1.50/h over 3.6M tokens/h → $0.41667; input: $0.50/h over 1.8M tokens/h → $0.27778.
    assert price.output_usd_per_mtok == pytest.approx(1.5 / 3.6)
    assert price.input_usd_per_mtok == pytest.approx(0.5 / 1.8)
