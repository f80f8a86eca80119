"""``check``: validate the catalogue without building, and report how old its cloud prices are."""

from __future__ import annotations

import argparse
import datetime as dt
from pathlib import Path

from ..catalog.check import check_catalog
from ..catalog.freshness import STALE_AFTER_DAYS, price_ages
from ..catalog.load import load_catalog


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``check`` subcommand."""
    parser = subparsers.add_parser("check", help="validate every catalogue file", description=__doc__)
    parser.add_argument("--catalog", type=Path, default=Path("catalog"), help="catalogue folder (default: catalog)")
    parser.add_argument("--as-of", type=dt.date.fromisoformat, default=None, metavar="YYYY-MM-DD",
                        help="reference date for price ages (default: today)")
    parser.add_argument("--strict", action="store_true", help="fail on any warning (exit 1), e.g. a stale price")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Load and check the catalogue; problems are raised as one line each. Prices past their age only warn (on
    stdout, exit 0): the same catalogue must not pass today and fail next month, unless ``--strict`` asks that
    any warning fail the check (same lines, exit 1)."""
    catalog = check_catalog(load_catalog(args.catalog), args.catalog)
    print(f"catalogue ok: {len(catalog.models)} models, {len(catalog.gpus)} GPUs, "
          f"{len(catalog.offers())} cloud offers from {len(catalog.clouds)} providers")
    ages = price_ages(catalog, args.as_of or dt.date.today())
    if ages:
        oldest = ages[0]
        print(f"oldest price: {oldest.offer.checked} ({oldest.days} days), {args.catalog.name}/{oldest.where}")
    warnings: list[str] = []
    stale = [a for a in ages if a.stale]
    if stale:
        warnings.append(f"{len(stale)} of {len(ages)} cloud prices are older than {STALE_AFTER_DAYS} days; "
                        "`make prices-report` lists them")
    for warning in warnings:
        print(f"warning: {warning}")
    return 1 if args.strict and warnings else 0
