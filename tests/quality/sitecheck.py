"""Site gate: links, hreflang, canonicals, sitemaps, unique titles and near-duplicate pages of a built site folder.

Usage: python -m tests.quality.sitecheck site/ [--base-url URL]   (prints problems, exits 1 if any)
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from array import array
from collections import defaultdict
from collections.abc import Callable, Iterable
from concurrent.futures import ProcessPoolExecutor
from functools import partial
from pathlib import Path

from .neardup import near_duplicates
from .pagescan import PageInfo, scan_file
from .sitemaps import read_sitemaps
from .sitepaths import DEFAULT_BASE_URL, file_of, normalise_base, site_path_of

NEAR_DUPLICATE_THRESHOLD = 0.9
_PARALLEL_FROM = 200  # below this many pages a process pool costs more than it saves


def site_files(site_dir: Path) -> set[str]:
    """Every file below ``site_dir`` as a site-relative POSIX path."""
    found: set[str] = set()
    for folder, _, names in os.walk(site_dir):
        rel = Path(folder).relative_to(site_dir).as_posix()
        prefix = "" if rel == "." else rel + "/"
        found.update(prefix + name for name in names)
    return found


def scan_pages(site_dir: Path, paths: list[str], base_url: str, jobs: int | None = None) -> dict[str, PageInfo]:
    """Scan every page, in worker processes when there are many."""
    scan = partial(scan_file, site_dir, base_url=base_url)
    jobs = jobs or os.cpu_count() or 1
    if jobs == 1 or len(paths) < _PARALLEL_FROM:
        return {p: scan(p) for p in paths}
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        infos = pool.map(scan, paths, chunksize=max(1, min(256, len(paths) // (jobs * 8))))
        return {info.path: info for info in infos}


def _page_at(url: str, base_url: str) -> str | None:
    site_path = site_path_of(url, base_url)
    return None if site_path is None else file_of(site_path)


def _primary(lang: str) -> str:
    return lang.split("-")[0].lower()


def _indexable(page: PageInfo) -> bool:
    return not page.noindex and page.path.rsplit("/", 1)[-1] != "404.html"


def check_basics(page: PageInfo) -> Iterable[str]:
    """Language, title, description and a single <main> with text."""
    if not page.lang:
        yield "<html> has no lang attribute"
    if not page.title:
        yield "no <title> or an empty one"
    if _indexable(page) and not (page.description or "").strip():
        yield 'no <meta name="description"> or an empty one'
    if page.main_count != 1:
        yield f"has {page.main_count} <main> elements, expected 1"
    elif page.main_words == 0:
        yield "<main> holds no text"


def check_links(page: PageInfo, files: set[str], pages: dict[str, PageInfo]) -> Iterable[str]:
    """Every internal href/src names a file in the site, and every fragment an id on its target page."""
    for link in page.links:
        if link.error:
            yield f"link {link.href!r} {link.error}"
        elif link.target not in files:
            if f"{link.target}/index.html" in files:
                yield f"link {link.href!r} names a folder without its trailing slash (a redirect on most hosts)"
            else:
                yield f"broken link {link.href!r}: no file {link.target}"
        elif link.fragment and link.fragment.lower() != "top":
            target = pages.get(link.target)
            if target is None or link.fragment not in target.ids:
                yield f"broken link {link.href!r}: no id {link.fragment!r} on {link.target}"


class _SiteIndex:
    """Cross-page facts the hreflang, canonical and sitemap checks share."""

    def __init__(self, pages: dict[str, PageInfo], base_url: str):
        self.pages = pages
        self.base_url = base_url
        self.languages = sorted(
            {code for p in pages.values() if _indexable(p) for code, _ in p.alternates if code != "x-default"}
        )

    def page_at(self, url: str) -> str | None:
        return _page_at(url, self.base_url)

    def alternate_targets(self, page: PageInfo) -> dict[str, str | None]:
        return {code: self.page_at(href) for code, href in page.alternates}


def check_canonical(page: PageInfo, site: _SiteIndex) -> Iterable[str]:
    """One canonical link, absolute under the base URL, naming this very page."""
    if len(page.canonicals) != 1:
        yield f"has {len(page.canonicals)} canonical links, expected 1"
    for href in page.canonicals:
        target = site.page_at(href)
        if target is None:
            yield f"canonical {href!r} is not an absolute URL under {site.base_url}"
        elif target != page.path:
            yield f"canonical {href!r} names {target}, not this page"


def check_hreflang(page: PageInfo, site: _SiteIndex) -> Iterable[str]:
    """Alternates for every language and x-default; each partner exists, is in that language and links back."""
    codes = [code for code, _ in page.alternates]
    for code in sorted({c for c in codes if codes.count(c) > 1}):
        yield f"hreflang {code} listed twice"
    targets = site.alternate_targets(page)
    for code in [*site.languages, "x-default"]:
        if code not in targets:
            yield f"missing hreflang partner: no alternate for {code}"
    own = _primary(page.lang)
    for code, href in dict(page.alternates).items():
        target = targets[code]
        partner = site.pages.get(target) if target else None
        if partner is None:
            yield f"missing hreflang partner: {code} → {href} has no page in the site"
            continue
        if not _indexable(partner):
            yield f"hreflang {code} → {href} is a noindex page"
        if code == "x-default":
            continue
        if _primary(code) == own and target != page.path:
            yield f"hreflang {code} (this page's own language) points to {target}, not to this page"
        if target == page.path:
            continue
        if _primary(partner.lang) != _primary(code):
            yield f"hreflang {code} → {target}, whose <html lang> is {partner.lang!r}"
        if page.path not in site.alternate_targets(partner).values():
            yield f"non-reciprocal hreflang: {code} → {target}, which has no alternate back to this page"
        if target not in page.anchor_targets:
            yield f"no language-switch link to the {code} version ({target})"
    if own and own not in map(_primary, targets):
        yield f"no hreflang alternate for the page's own language {page.lang!r}"


def check_sitemaps(site_dir: Path, site: _SiteIndex) -> Iterable[str]:
    """Every indexable page is in a sitemap under its canonical URL, with the page's alternates; nothing else is."""
    sitemaps = read_sitemaps(site_dir, site.base_url)
    yield from sitemaps.problems
    listed: dict[str, str] = {}
    for entry in sitemaps.entries:
        target = site.page_at(entry.loc)
        page = site.pages.get(target) if target else None
        if target is None or page is None:
            yield f"{entry.sitemap}: lists {entry.loc}, which has no page in the site"
            continue
        if target in listed:
            yield f"{entry.sitemap}: lists {target} twice ({listed[target]} and {entry.loc})"
            continue
        listed[target] = entry.loc
        if not _indexable(page):
            yield f"{target}: noindex page listed in {entry.sitemap}"
            continue
        if page.canonicals and page.canonicals[0] != entry.loc:
            yield f"{target}: canonical {page.canonicals[0]} differs from the sitemap URL {entry.loc}"
        if entry.alternates != dict(page.alternates):
            yield (f"{target}: hreflang alternates in {entry.sitemap} {entry.alternates} differ from the page's "
                   f"{dict(page.alternates)}")
    for path, page in site.pages.items():
        if _indexable(page) and path not in listed:
            yield f"{path}: not listed in any sitemap"


def check_robots(site_dir: Path, base_url: str) -> Iterable[str]:
    """robots.txt exists and names the root sitemap."""
    robots = site_dir / "robots.txt"
    if not robots.is_file():
        yield "robots.txt: missing"
        return
    lines = [line.strip() for line in robots.read_text(encoding="utf-8", errors="replace").splitlines()]
    wanted = f"{base_url}sitemap.xml"
    if not any(line.lower().startswith("sitemap:") and line[8:].strip() == wanted for line in lines):
        yield f"robots.txt: no 'Sitemap: {wanted}' line"


def check_unique(pages: Iterable[PageInfo], field: str, label: str) -> Iterable[str]:
    """No two indexable pages share a title (or a description)."""
    users: dict[str, list[str]] = defaultdict(list)
    for page in pages:
        value = getattr(page, field)
        if value and _indexable(page):
            users[value].append(page.path)
    for value, paths in users.items():
        if len(paths) > 1:
            first, *others = sorted(paths)
            yield f"{first}: duplicate {label} {value!r}, also on {', '.join(others)}"


def page_group(path: str) -> str:
    """Pages compared for near-duplicates: same language folder, same section, same depth (e.g. all pair pages)."""
    parts = path.split("/")
    return f"{'/'.join(parts[: min(2, len(parts) - 1)])}#{len(parts)}"


def check_near_duplicates(
    pages: Iterable[PageInfo], threshold: float, group: Callable[[str], str] = page_group, limit: int = 200
) -> Iterable[str]:
    """No two pages of one group have <main> texts whose word 5-shingle sets are more than ``threshold`` alike."""
    groups: dict[str, list[PageInfo]] = defaultdict(list)
    for page in pages:
        if _indexable(page) and page.shingles:
            groups[group(page.path)].append(page)
    for members in groups.values():
        full = [array("q", m.shingles) for m in members]
        pairs = near_duplicates(full, [array("q", m.sample) for m in members], threshold, limit)
        for i, j, score in pairs:
            yield (
                f"{members[i].path}: near-duplicate <main> text, {score:.0%} alike {members[j].path} "
                f"(word 5-shingle Jaccard above {threshold:.0%})"
            )
        if len(pairs) >= limit:
            yield f"{members[0].path}: stopped after {limit} near-duplicate pairs in this group of pages"


def check_json(site_dir: Path, files: Iterable[str]) -> Iterable[str]:
    """Every .json file parses."""
    for rel in sorted(f for f in files if f.endswith(".json")):
        try:
            json.loads((site_dir / rel).read_bytes())
        except ValueError as error:
            yield f"{rel}: not valid JSON ({error})"


def check_site(
    site_dir: Path,
    base_url: str = DEFAULT_BASE_URL,
    *,
    near_duplicate_threshold: float = NEAR_DUPLICATE_THRESHOLD,
    jobs: int | None = None,
) -> list[str]:
    """Every problem found in the built site at ``site_dir``, as ``path: message`` lines (empty when clean)."""
    site_dir = Path(site_dir)
    base_url = normalise_base(base_url)
    files = site_files(site_dir)
    pages = scan_pages(site_dir, sorted(f for f in files if f.endswith(".html")), base_url, jobs)
    site = _SiteIndex(pages, base_url)
    problems: list[str] = []
    for path, page in pages.items():
        per_page = [*check_basics(page), *check_links(page, files, pages)]
        if _indexable(page):
            per_page += [*check_canonical(page, site), *check_hreflang(page, site)]
        problems += [f"{path}: {message}" for message in per_page]
    problems += check_sitemaps(site_dir, site)
    problems += check_robots(site_dir, base_url)
    problems += check_unique(pages.values(), "title", "title")
    problems += check_unique(pages.values(), "description", "meta description")
    problems += check_near_duplicates(pages.values(), near_duplicate_threshold)
    problems += check_json(site_dir, files)
    if "index.html" not in files:
        problems.append("index.html: missing (the site root has no page)")
    return problems


def main(argv: list[str] | None = None) -> int:
    """CLI: print every problem, exit 1 if there is any."""
    parser = argparse.ArgumentParser(prog="python -m tests.quality.sitecheck", description=__doc__.splitlines()[0])
    parser.add_argument("site", type=Path, nargs="?", default=Path("site"))
    parser.add_argument("--base-url", default=DEFAULT_BASE_URL)
    parser.add_argument("--threshold", type=float, default=NEAR_DUPLICATE_THRESHOLD, help="near-duplicate Jaccard")
    parser.add_argument("--jobs", type=int, default=None, help="worker processes (default: all cores)")
    args = parser.parse_args(argv)
    if not args.site.is_dir():
        print(f"{args.site}: no such folder (build the site first)", file=sys.stderr)
        return 2
    started = time.perf_counter()
    problems = check_site(args.site, args.base_url, near_duplicate_threshold=args.threshold, jobs=args.jobs)
    for problem in problems:
        print(problem)
    pages = sum(1 for f in site_files(args.site) if f.endswith(".html"))
    print(
        f"sitecheck: {pages} pages, {len(problems)} problems, {time.perf_counter() - started:.1f} s", file=sys.stderr
    )
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
