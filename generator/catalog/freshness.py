"""How old each cloud price is, against an explicit reference date (never the wall clock inside a build)."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from .schema import Catalog, CloudOffer, CloudProvider

# A cloud price list changes within months; past this age a page marks the price as possibly stale.
STALE_AFTER_DAYS = 120


@dataclass(frozen=True)
class PriceAge:
    """One cloud offer and its age in days on the reference date."""

    provider: CloudProvider
    index: int
    offer: CloudOffer
    days: int

    @property
    def stale(self) -> bool:
        return is_stale(self.days)

    @property
    def where(self) -> str:
        """File and field of the offer, as ``check`` names them."""
        return f"clouds/{self.provider.id}.yaml offers.{self.index}"


def age_days(checked: dt.date, as_of: dt.date) -> int:
    """Whole days from ``checked`` to ``as_of`` (0 for a date on or after ``as_of``)."""
    return max(0, (as_of - checked).days)


def is_stale(days: int) -> bool:
    """Whether a price of this age may no longer hold."""
    return days > STALE_AFTER_DAYS


def newest_price_date(catalog: Catalog) -> dt.date | None:
    """The newest ``checked`` date of any offer: a build's default reference date, fixed by the catalogue."""
    return max((offer.checked for _, offer in catalog.offers()), default=None)


def price_ages(catalog: Catalog, as_of: dt.date) -> list[PriceAge]:
    """Every offer with its age on ``as_of``, oldest first (then by provider and position)."""
    ages = [PriceAge(provider, i, offer, age_days(offer.checked, as_of))
            for provider in catalog.clouds.values() for i, offer in enumerate(provider.offers)]
    return sorted(ages, key=lambda a: (-a.days, a.provider.id, a.index))
