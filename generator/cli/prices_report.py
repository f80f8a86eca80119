"""``prices-report``: every cloud offer by age, oldest first, then the stale ones grouped by provider with the pages to
read again, so a maintainer knows which prices to re-read and where."""

from __future__ import annotations

import argparse
import datetime as dt
from pathlib import Path

from ..catalog.freshness import STALE_AFTER_DAYS, PriceAge, price_ages
from ..catalog.load import load_catalog


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``prices-report`` subcommand."""
    parser = subparsers.add_parser("prices-report", help="list cloud offers by age", description=__doc__)
    parser.add_argument("--catalog", type=Path, default=Path("catalog"), help="catalogue folder (default: catalog)")
    parser.add_argument("--as-of", type=dt.date.fromisoformat, default=None, metavar="YYYY-MM-DD",
                        help="reference date for the ages (default: today)")
    parser.add_argument("--stale", action="store_true", help=f"only offers older than {STALE_AFTER_DAYS} days")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Print one line per offer (age, date checked, file and field, GPU, tier, price, instance and URL), then the
    stale offers by provider."""
    as_of = args.as_of or dt.date.today()
    ages = [a for a in price_ages(load_catalog(args.catalog), as_of) if a.stale or not args.stale]
    print(f"{len(ages)} cloud offers as of {as_of}, oldest first; older than {STALE_AFTER_DAYS} days marked '!'")
    for a in ages:
        o = a.offer
        print(f"{'!' if a.stale else ' '} {a.days:4d} d  {o.checked}  {args.catalog.name}/{a.where:<32}  {o.gpu:<24} "
              f"{o.tier:<10} {o.price_usd_per_hour:>9.2f} USD/h  {o.instance}  {o.url}")
    stale = [a for a in ages if a.stale]
    if stale:
        print()
        print(by_provider(stale, args.catalog.name))
    return 0


def by_provider(stale: list[PriceAge], catalog_name: str) -> str:
    """Stale offers grouped by provider (most stale first): the provider's file and price page, then each URL to
    re-read with the offers read from it."""
    groups: dict[str, list[PriceAge]] = {}
    for a in stale:
        groups.setdefault(a.provider.id, []).append(a)
    lines = [f"Stale offers by provider: {len(stale)} offers of {len(groups)} providers, the pages to read again"]
    for items in sorted(groups.values(), key=lambda group: (-len(group), group[0].provider.id)):
        provider = items[0].provider
        lines.append(f"{provider.name} ({catalog_name}/clouds/{provider.id}.yaml, {len(items)} stale, oldest "
                     f"{max(a.days for a in items)} d; price page {provider.url})")
        urls: dict[str, list[PriceAge]] = {}
        for a in items:
            urls.setdefault(a.offer.url, []).append(a)
        for url, read in urls.items():
            offers = ", ".join(f"offers.{a.index} {a.offer.gpu}" for a in sorted(read, key=lambda a: a.index))
            lines.append(f"  re-read {url}  ({offers}; checked {min(a.offer.checked for a in read)})")
    return "\n".join(lines)
