"""``build``: render the catalogue into a static site."""

from __future__ import annotations

import argparse
import datetime as dt
import sys
from pathlib import Path


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``build`` subcommand."""
    parser = subparsers.add_parser("build", help="build the static site", description=__doc__)
    parser.add_argument("--project", type=Path, default=Path("."), help="folder with catalog/, templates/, locales/")
    parser.add_argument("--out", type=Path, default=Path("site"), help="output folder (default: site)")
    parser.add_argument("--base-url", default="https://vram-atlas.example/", help="absolute URL the site is served at")
    parser.add_argument("--jobs", "-j", type=int, default=None,
                        help="worker processes, 1 to 64 (default: all cores, at most 64; 1: serial)")
    parser.add_argument("--strict", action="store_true", help="fail on any warning")
    parser.add_argument("--quiet", "-q", action="store_true", help="no progress output")
    parser.add_argument("--force", action="store_true", help="render every page, ignoring the previous build")
    parser.add_argument("--clean", action="store_true",
                        help="remove every file in the output folder that this build does not write (CNAME too); "
                             "needed to build into a non-empty folder no earlier build recorded as its own")
    parser.add_argument("--prices-as-of", type=dt.date.fromisoformat, default=None, metavar="YYYY-MM-DD",
                        help="date cloud price ages count to (default: the newest price date in the catalogue)")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Build and print the one-line summary."""
    from ..build import BuildOptions, build  # the pipeline imports every stage: only load it when building

    base_url = args.base_url if args.base_url.endswith("/") else args.base_url + "/"
    report = build(BuildOptions(project=args.project, out_dir=args.out, base_url=base_url, jobs=args.jobs,
                                strict=args.strict, quiet=args.quiet, force=args.force, clean=args.clean,
                                prices_as_of=args.prices_as_of))
    for warning in report.warnings:
        print(f"warning: {warning}", file=sys.stderr)
    print(report.summary())
    return 0
