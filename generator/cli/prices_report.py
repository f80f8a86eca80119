"""``prices-report``: every cloud offer by age, oldest first, so a maintainer knows which prices to read again."""

from __future__ import annotations

import argparse
import datetime as dt
from pathlib import Path

from ..catalog.freshness import STALE_AFTER_DAYS, price_ages
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
    """Print one line per offer: age, date checked, file and field, GPU, tier, price, instance and URL."""
    as_of = args.as_of or dt.date.today()
    ages = [a for a in price_ages(load_catalog(args.catalog), as_of) if a.stale or not args.stale]
    print(f"{len(ages)} cloud offers as of {as_of}, oldest first; older than {STALE_AFTER_DAYS} days marked '!'")
    for a in ages:
        o = a.offer
        print(f"{'!' if a.stale else ' '} {a.days:4d} d  {o.checked}  {args.catalog.name}/{a.where:<32}  {o.gpu:<24} "
              f"{o.tier:<10} {o.price_usd_per_hour:>9.2f} USD/h  {o.instance}  {o.url}")
    return 0
