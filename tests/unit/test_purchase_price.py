"""Rent-or-buy uses a current street price where one is catalogued, else the catalogued price, and says which."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import yaml

from generator.catalog.schema import Gpu
from generator.views.common import purchase_price

FIXTURE = Path(__file__).parents[1] / "fixtures" / "project" / "catalog" / "gpus"


def _gpu(name: str) -> Gpu:
    return Gpu.model_validate(yaml.safe_load((FIXTURE / f"{name}.yaml").read_text(encoding="utf-8")))


def test_launch_list_price_when_no_street_price() -> None:
    assert purchase_price(_gpu("rx-7900-xtx")) == (999, "msrp", dt.date(2022, 11, 3))


def test_street_price_wins_over_the_launch_list_price() -> None:
    gpu = _gpu("rx-7900-xtx").model_copy(update={"street_price_usd": 849.0, "street_price_date": dt.date(2026, 10, 1)})
    assert purchase_price(gpu) == (849.0, "street", dt.date(2026, 10, 1))


def test_no_price_no_rent_or_buy() -> None:
    gpu = _gpu("rx-7900-xtx").model_copy(update={"price_usd": None, "price_kind": None, "price_date": None})
    assert purchase_price(gpu) is None
