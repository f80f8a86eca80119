"""A model page's cheapest serving setup per precision, on the real catalogue: one row per precision the pair pages
serve, each the lowest cost per 1M output tokens among them, priced as the pair page prices it: on an instance that
holds the plan's GPUs."""

from __future__ import annotations

from pathlib import Path

import pytest

from generator.catalog.load import load_catalog
from generator.estimate import cost
from generator.sitedata import SiteData

CATALOG = Path(__file__).resolve().parents[2] / "catalog"
MODEL = "qwen3-32b"  # served at FP8 on GPUs with FP8 tensor cores and at BF16 on the others


@pytest.mark.slow  # serving plans of one model on every catalogued GPU
def test_each_precision_gets_the_cheapest_pair_plan_at_that_precision():
    site = SiteData(load_catalog(CATALOG))
    rows = site.cheapest_serving(MODEL)
    priced: dict[str, list[tuple[float, str]]] = {}
    for gpu_id in sorted(site.catalog.gpus):
        plan = site.serving(MODEL, gpu_id)[0]
        if plan is None or plan.operating is None:
            continue
        # an instance that holds the plan's GPUs (whole replicas); single-GPU listings are never summed (#25)
        offers = [(p, o) for p, o in site.offers_by_gpu[gpu_id]
                  if o.gpu_count >= plan.gpu_count and o.gpu_count % plan.gpu_count == 0]
        if not offers:
            continue
        per_gpu = min(o.price_usd_per_hour / o.gpu_count for _, o in offers)
        priced.setdefault(plan.precision, []).append((cost.serving_price(plan.operating, per_gpu).output_usd_per_mtok,
                                                      gpu_id))
    assert len(priced) >= 2, "the test model should be served at two precisions"
    assert sorted(row.plan.precision for row in rows) == sorted(priced)
    for row in rows:
        assert (row.price.output_usd_per_mtok, row.gpu) == min(priced[row.plan.precision])
        assert row.plan == site.serving(MODEL, row.gpu)[0]  # the pair page's own plan
