"""Lighthouse gate: the npm package's CLI (mobile preset) in headless Chromium, four category scores per URL."""

from __future__ import annotations

import json
import os
import subprocess
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from .folderserver import serve_folder
from .vnu import REPO_ROOT, ToolMissing

LIGHTHOUSE = REPO_ROOT / "node_modules" / ".bin" / "lighthouse"
CATEGORIES = ("performance", "accessibility", "best-practices", "seo")
DEBIAN_CHROMIUM = Path("/usr/bin/chromium")
CHROME_FLAGS = (
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
    "--disable-dev-shm-usage",
)


def chromium_path() -> str:
    """Debian's Chromium where installed, else the one Playwright downloaded."""
    if DEBIAN_CHROMIUM.exists():
        return str(DEBIAN_CHROMIUM)
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        raise ToolMissing("no /usr/bin/chromium and no Playwright: run `make browser`") from None
    with sync_playwright() as playwright:
        path = playwright.chromium.executable_path
    if not Path(path).exists():
        raise ToolMissing("no /usr/bin/chromium and no Playwright Chromium: run `make browser`")
    return path


def lighthouse_command(url: str) -> list[str]:
    """The Lighthouse command line for ``url``: JSON report on stdout, the four scored categories only."""
    if not LIGHTHOUSE.exists():
        raise ToolMissing(f"{LIGHTHOUSE} not found: run `make node` (npm ci)")
    return [
        str(LIGHTHOUSE),
        url,
        "--output=json",
        "--output-path=stdout",
        "--quiet",
        "--disable-full-page-screenshot",  # a picture for the HTML report only: 1.7 s of each run
        f"--only-categories={','.join(CATEGORIES)}",
        f"--chrome-flags={' '.join(CHROME_FLAGS)}",
    ]


def scores(report: dict) -> dict[str, float]:
    """Category id → score (0–1) from a Lighthouse JSON report; a category Lighthouse could not score is 0."""
    categories = report.get("categories", {})
    return {c: float(categories.get(c, {}).get("score") or 0.0) for c in CATEGORIES}


def failed_audits(report: dict, category: str) -> list[str]:
    """Titles of the audits that cost ``category`` points, for the message when it scores too low."""
    audits = report.get("audits", {})
    refs = report.get("categories", {}).get(category, {}).get("auditRefs", [])
    return [
        audits[r["id"]].get("title", r["id"])
        for r in refs
        if r.get("weight") and r["id"] in audits and (audits[r["id"]].get("score") or 0) < 1
    ]


def run_lighthouse_report(url: str, timeout: float = 180) -> dict:
    """The full Lighthouse JSON report for ``url``."""
    env = {**os.environ, "CHROME_PATH": chromium_path()}
    done = subprocess.run(
        lighthouse_command(url), capture_output=True, text=True, env=env, timeout=timeout, check=False
    )
    try:
        report = json.loads(done.stdout)
    except json.JSONDecodeError:
        raise RuntimeError(f"lighthouse exited {done.returncode} without a report: {done.stderr[-2000:]}") from None
    if report.get("runtimeError"):
        raise RuntimeError(f"lighthouse could not audit {url}: {report['runtimeError'].get('message')}")
    return report


def run_lighthouse(url: str) -> dict[str, float]:
    """Lighthouse scores (0–1) for performance, accessibility, best-practices and seo of ``url``."""
    return scores(run_lighthouse_report(url))


MINIMUM_SCORE = 0.95
PARALLEL_RUNS = 2
# Scores that depend on the page alone. Performance also depends on how busy the machine is (FCP, LCP and TBT are
# timings: 0.81-0.94 on a loaded laptop for pages that score 1.0 on an idle one), so it is a benchmark (`make
# audit`), and tests hold the pages to BUDGETS instead.
LOAD_FREE_CATEGORIES = ("accessibility", "best-practices", "seo")
# Performance budgets that do not depend on load: transferred bytes (gzipped text, as the local server and static
# hosts send it) and requests per page, render-blocking resources, layout shift (each as Lighthouse measures it: its
# audits' figures, not its timings). The home page is the heaviest: its finder data (api/v1/finder.json).
BUDGETS = {"bytes": 160_000, "requests": 6, "render-blocking": 1, "layout-shift": 0.0}


def budget_figures(report: dict) -> dict[str, float]:
    """The figures :data:`BUDGETS` limits, from a Lighthouse JSON report (a missing audit counts as over budget)."""
    audits = report.get("audits", {})

    def items(audit: str) -> float:
        found = audits.get(audit, {}).get("details", {}).get("items")
        return float(len(found)) if isinstance(found, list) else float("inf")

    def value(audit: str) -> float:
        found = audits.get(audit, {}).get("numericValue")
        return float(found) if isinstance(found, (int, float)) else float("inf")

    return {"bytes": value("total-byte-weight"), "requests": items("network-requests"),
            "render-blocking": items("render-blocking-resources"), "layout-shift": value("cumulative-layout-shift")}


def default_pages(site_dir: Path, language: str = "en") -> list[str]:
    """One page of each kind: the language index, a model, a GPU, a model × GPU pair and a comparison (URL paths)."""
    root = Path(site_dir) / language
    models = sorted(p.parent for p in root.glob("models/*/index.html"))
    gpus = sorted(p.parent for p in root.glob("gpus/*/index.html"))
    pairs = sorted(p.parent for p in root.glob("models/*/*/index.html"))
    comparisons = sorted(p.parent for p in root.glob("compare/*/index.html"))
    chosen = [root, *models[:1], *gpus[:1], *pairs[:1], *comparisons[:1]]
    return [p.relative_to(site_dir).as_posix() + "/" for p in chosen if (p / "index.html").is_file()]


def audit_site(
    site_dir: Path, pages: list[str], production_base: str, minimum: float = MINIMUM_SCORE,
    categories: tuple[str, ...] = CATEGORIES, budgets: dict[str, float] | None = None,
) -> tuple[dict[str, dict[str, float]], list[str]]:
    """Lighthouse scores and budget figures for each page of ``site_dir`` served locally, and a message for every
    score of ``categories`` below ``minimum`` and every figure over its ``budgets`` limit."""
    results: dict[str, dict[str, float]] = {}
    failures: list[str] = []
    # Much of a Lighthouse run is waiting for the network and the main thread to go quiet, which two runs at once
    # overlap. Only the performance score, a timing, needs the machine to itself.
    workers = 1 if "performance" in categories else PARALLEL_RUNS
    with serve_folder(site_dir, production_base) as base, ThreadPoolExecutor(workers) as pool:
        reports = list(pool.map(lambda page: run_lighthouse_report(base + page.lstrip("/")), pages))
    for page, report in zip(pages, reports):
        page_scores = scores(report)
        figures = budget_figures(report)
        results[page] = {**page_scores, **figures}
        for category in categories:
            if page_scores[category] < minimum:
                missed = "; ".join(failed_audits(report, category)) or "no single audit named"
                failures.append(f"{page}: {category} {page_scores[category]:.2f} < {minimum:.2f} ({missed})")
        for name, limit in (budgets or {}).items():
            if figures[name] > limit:
                failures.append(f"{page}: {name} {figures[name]:g} over the budget of {limit:g}")
    return results, failures
