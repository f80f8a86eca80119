"""``check``: validate the catalogue without building."""

from __future__ import annotations

import argparse
from pathlib import Path

from ..catalog.check import check_catalog
from ..catalog.load import load_catalog


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``check`` subcommand."""
    parser = subparsers.add_parser("check", help="validate every catalogue file", description=__doc__)
    parser.add_argument("--catalog", type=Path, default=Path("catalog"), help="catalogue folder (default: catalog)")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Load and check the catalogue; problems are raised as one line each."""
    catalog = check_catalog(load_catalog(args.catalog), args.catalog)
    print(f"catalogue ok: {len(catalog.models)} models, {len(catalog.gpus)} GPUs, "
          f"{len(catalog.offers())} cloud offers from {len(catalog.clouds)} providers")
    return 0
