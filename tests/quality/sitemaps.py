"""Reading a site's sitemaps: the sitemap index at the root, the URL sets it names, their hreflang alternates."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from pathlib import Path

from .sitepaths import file_of, site_path_of

_SM = "{http://www.sitemaps.org/schemas/sitemap/0.9}"
_XHTML = "{http://www.w3.org/1999/xhtml}"
MAX_URLS = 50_000
MAX_BYTES = 50 * 1024 * 1024


@dataclass
class SitemapEntry:
    """One <url> of a sitemap: its loc, its hreflang alternates, the sitemap file that lists it."""

    loc: str
    alternates: dict[str, str]
    sitemap: str


@dataclass
class Sitemaps:
    """Every <url> entry found from the root sitemap, plus what was wrong on the way."""

    entries: list[SitemapEntry] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)


def _text(element: ET.Element | None) -> str:
    return (element.text or "").strip() if element is not None else ""


def _read_urlset(root: ET.Element, rel: str, found: Sitemaps) -> None:
    for url in root.iter(f"{_SM}url"):
        loc = _text(url.find(f"{_SM}loc"))
        alternates: dict[str, str] = {}
        for link in url.iter(f"{_XHTML}link"):
            if link.get("rel") == "alternate" and link.get("hreflang"):
                code = link.get("hreflang", "").lower()
                if code in alternates:
                    found.problems.append(f"{rel}: {loc} lists hreflang {code} twice")
                alternates[code] = link.get("href", "")
        found.entries.append(SitemapEntry(loc, alternates, rel))


def read_sitemaps(site_dir: Path, base_url: str, root: str = "sitemap.xml") -> Sitemaps:
    """Follow the sitemap index at ``root`` (or a plain URL set there) and collect every <url> entry."""
    found = Sitemaps()
    queue, visited = [root], set()
    while queue:
        rel = queue.pop(0)
        if rel in visited:
            continue
        visited.add(rel)
        path = site_dir / rel
        if not path.is_file():
            found.problems.append(f"{rel}: sitemap missing")
            continue
        if path.stat().st_size > MAX_BYTES:
            found.problems.append(f"{rel}: sitemap larger than 50 MiB")
        try:
            tree = ET.parse(path).getroot()
        except ET.ParseError as error:
            found.problems.append(f"{rel}: sitemap is not well-formed XML ({error})")
            continue
        if tree.tag == f"{_SM}sitemapindex":
            for loc in (_text(s.find(f"{_SM}loc")) for s in tree.iter(f"{_SM}sitemap")):
                site_path = site_path_of(loc, base_url)
                if site_path is None:
                    found.problems.append(f"{rel}: sitemap {loc} is not under {base_url}")
                else:
                    queue.append(file_of(site_path))
        elif tree.tag == f"{_SM}urlset":
            before = len(found.entries)
            _read_urlset(tree, rel, found)
            if len(found.entries) - before > MAX_URLS:
                found.problems.append(f"{rel}: more than {MAX_URLS} URLs in one sitemap")
        else:
            found.problems.append(f"{rel}: root element is {tree.tag}, not a sitemap index or URL set")
    return found
