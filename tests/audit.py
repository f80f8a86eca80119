"""Lighthouse audit of a built site: python -m tests.audit [--site site] [--pages en/ en/models/x/ ...].

Serves the site on 127.0.0.1, runs Lighthouse (mobile) on an index, a model, a GPU and a pair page (or the pages
named), prints the four scores and the budget figures per page and exits 1 unless every score is at least 0.95 and
every figure within its budget. The performance score is a timing, so it is checked here, on a quiet machine, and
not in the tests.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from tests.quality.lighthouse import BUDGETS, CATEGORIES, MINIMUM_SCORE, audit_site, default_pages
from tests.quality.sitepaths import DEFAULT_BASE_URL


def main(argv: list[str] | None = None) -> int:
    """Run the audit and report."""
    parser = argparse.ArgumentParser(prog="python -m tests.audit", description=__doc__.splitlines()[0])
    parser.add_argument("--site", type=Path, default=Path("site"))
    parser.add_argument("--pages", nargs="*", help="URL paths below the site root (default: one of each kind)")
    parser.add_argument("--base-url", default=DEFAULT_BASE_URL, help="the production base URL the pages carry")
    parser.add_argument("--minimum", type=float, default=MINIMUM_SCORE)
    args = parser.parse_args(argv)
    if not (args.site / "index.html").is_file():
        print(f"{args.site}: no built site (run make build)", file=sys.stderr)
        return 2
    pages = args.pages or default_pages(args.site)
    results, failures = audit_site(args.site, pages, args.base_url, args.minimum, budgets=BUDGETS)
    columns = [*CATEGORIES, *BUDGETS]
    print(" ".join(f"{c:>15}" for c in columns) + "  page")
    for page, figures in results.items():
        cells = [f"{figures[c]:>15.2f}" if c in CATEGORIES else f"{figures[c]:>15g}" for c in columns]
        print(" ".join(cells) + f"  {page}")
    for failure in failures:
        print(f"FAIL {failure}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
