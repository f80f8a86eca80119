"""What tokens cost: rented by the hour, or owned (purchase amortised plus electricity), and when buying pays off."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import NamedTuple

from .serving import ServingPoint

HOURS_PER_MONTH = 730.0  # 8760 h / 12
DEFAULT_AMORTISATION_MONTHS = 36
DEFAULT_USD_PER_KWH = 0.15
DEFAULT_UTILISATION = 1.0  # share of TDP drawn while generating
DEFAULT_HOURS_PER_DAY = 24.0  # around the clock: HOURS_PER_MONTH of use


def usd_per_million_tokens(tokens_per_s: float, usd_per_hour: float) -> float:
    """Cost of one million output tokens at ``tokens_per_s`` (aggregate) on hardware costing ``usd_per_hour``."""
    if tokens_per_s <= 0:
        raise ValueError("tokens_per_s must be positive")
    return usd_per_hour / (tokens_per_s * 3600.0) * 1e6


class ServingPrice(NamedTuple):
    """What one million output and one million input (prompt) tokens cost at a batched serving point."""

    output_usd_per_mtok: float
    input_usd_per_mtok: float


def serving_price(point: ServingPoint, usd_per_gpu_hour: float) -> ServingPrice:
    """Cost per 1M output and input tokens at a serving point on GPUs priced at ``usd_per_gpu_hour``: the hour is split
    between output and prompts by the share of the GPUs' time prefill takes, so the two prices add up to the hour."""
    output_rate = point.output_tokens_per_s_per_gpu
    return ServingPrice(usd_per_million_tokens(output_rate, usd_per_gpu_hour * (1 - point.prefill_share)),
                        usd_per_million_tokens(point.total_tokens_per_s_per_gpu - output_rate,
                                               usd_per_gpu_hour * point.prefill_share))


@dataclass(frozen=True)
class OwnedCost:
    """Hourly cost of owned hardware and the assumptions behind it."""

    amortisation_usd_per_hour: float
    power_usd_per_hour: float
    assumptions: tuple[tuple[str, str], ...]

    @property
    def usd_per_hour(self) -> float:
        """Amortisation plus electricity per hour of use."""
        return self.amortisation_usd_per_hour + self.power_usd_per_hour


def power_usd_per_hour(tdp_w: float, utilisation: float = DEFAULT_UTILISATION,
                       usd_per_kwh: float = DEFAULT_USD_PER_KWH) -> float:
    """Electricity per hour: TDP × utilisation × price per kWh."""
    return tdp_w * utilisation / 1000.0 * usd_per_kwh


def owned_cost(price_usd: float, tdp_w: float, months: float = DEFAULT_AMORTISATION_MONTHS,
               utilisation: float = DEFAULT_UTILISATION, usd_per_kwh: float = DEFAULT_USD_PER_KWH,
               hours_per_month: float = HOURS_PER_MONTH) -> OwnedCost:
    """Purchase price spread over ``months`` of ``hours_per_month`` use, plus power at TDP × utilisation."""
    if months <= 0 or hours_per_month <= 0:
        raise ValueError("months and hours_per_month must be positive")
    amortisation = price_usd / (months * hours_per_month)
    power = power_usd_per_hour(tdp_w, utilisation, usd_per_kwh)
    return OwnedCost(amortisation, power, (
        ("cost.amortisation", f"${price_usd:,.0f} over {months} months × {hours_per_month:.0f} h"),
        ("cost.power", f"{tdp_w:.0f} W TDP × {utilisation:.0%} × ${usd_per_kwh:.2f}/kWh"),
        ("cost.excluded", "host computer, resale value, cooling, maintenance"),
    ))


def cheapest(offers: Iterable[tuple[str, float, int]], tokens_per_s: float) -> tuple[str, float] | None:
    """(offer key, USD per 1M tokens) of the cheapest (key, usd_per_hour, gpu_count) offer; None when empty.

    ``tokens_per_s`` is what the whole offer (all its GPUs) produces; offers are compared at that speed.
    """
    priced = [(key, usd_per_million_tokens(tokens_per_s, usd)) for key, usd, _ in offers]
    return min(priced, key=lambda item: (item[1], item[0])) if priced else None


@dataclass(frozen=True)
class Ownership:
    """A buyer's own numbers: purchase price (None: no price known), the machine's draw while generating (None:
    unpublished, so electricity is left out), electricity price, hours of use per day and amortisation period."""

    price_usd: float | None
    power_w: float | None
    usd_per_kwh: float = DEFAULT_USD_PER_KWH
    hours_per_day: float = DEFAULT_HOURS_PER_DAY
    years: float = DEFAULT_AMORTISATION_MONTHS / 12


@dataclass(frozen=True)
class RentOrBuy:
    """What owning costs against renting: power per month, $ per 1M output tokens on the owned machine (one sequence
    and batched) and the months after which buying beats renting; None where an input is missing."""

    hours_per_month: float
    power_usd_per_month: float
    single_usd_per_mtok: float | None
    batched_usd_per_mtok: float | None
    breakeven_months: float | None


def rent_equivalent_usd_per_hour(cloud_usd_per_hour: float, cloud_tokens_per_s: float,
                                 local_tokens_per_s: float) -> float:
    """What renting costs for the tokens one hour of the owned machine makes: the cloud hour scaled by the two
    speeds (1:1 when the cloud rents the same GPU)."""
    if cloud_tokens_per_s <= 0:
        raise ValueError("cloud_tokens_per_s must be positive")
    return cloud_usd_per_hour * local_tokens_per_s / cloud_tokens_per_s


def rent_or_buy(own: Ownership, single_tokens_per_s: float | None, batched_tokens_per_s: float | None,
                rent_usd_per_hour: float | None) -> RentOrBuy:
    """The calculator's formula (``templates/assets/rentbuy.js`` computes the same, step for step).

    Per hour of use: amortisation = price / (years × 12 × hours a month), power = W / 1000 × $/kWh; $ per 1M tokens
    = (amortisation + power) / (tokens/s × 3600) × 10⁶; break-even = price / ((rent − power) × hours a month),
    none when renting costs no more than the power. Hours a month = hours a day × 365 / 12.
    """
    if not (own.hours_per_day > 0 and own.years > 0 and own.usd_per_kwh >= 0):
        raise ValueError("hours_per_day and years must be positive, usd_per_kwh not negative")
    hours_per_month = own.hours_per_day * 365 / 12
    power_per_hour = power_usd_per_hour(own.power_w or 0.0, DEFAULT_UTILISATION, own.usd_per_kwh)
    price = own.price_usd if own.price_usd is not None and own.price_usd > 0 else None
    owned = (owned_cost(price, own.power_w or 0.0, own.years * 12, DEFAULT_UTILISATION, own.usd_per_kwh,
                        hours_per_month).usd_per_hour if price is not None else None)

    def per_mtok(tokens_per_s: float | None) -> float | None:
        if owned is None or not tokens_per_s or tokens_per_s <= 0:
            return None
        return usd_per_million_tokens(tokens_per_s, owned)

    breakeven = None
    if price is not None and rent_usd_per_hour is not None and rent_usd_per_hour - power_per_hour > 0:
        breakeven = price / ((rent_usd_per_hour - power_per_hour) * hours_per_month)
    return RentOrBuy(hours_per_month, power_per_hour * hours_per_month, per_mtok(single_tokens_per_s),
                     per_mtok(batched_tokens_per_s), breakeven)
