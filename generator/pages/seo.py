"""Sitemaps with hreflang alternates, robots.txt, the root page and JSON-LD blocks."""

from __future__ import annotations

from collections.abc import Sequence
from html import escape
from typing import Any

from .. import urls
from ..catalog.schema import Catalog
from ..i18n import LANGUAGES
from ..views.plan import Page

SITEMAP_NS = 'xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:xhtml="http://www.w3.org/1999/xhtml"'
ROOT_PAGE = """<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>VRAM Atlas: can this GPU run this LLM?</title>
<meta name="description" content="Memory, speed and cost of every catalogued LLM on every catalogued GPU, in English and German.">
<meta name="robots" content="noindex, follow">
<link rel="canonical" href="{base}{en}">
<meta http-equiv="refresh" content="0; url={en}">
</head>
<body>
<main><h1>VRAM Atlas</h1><p><a href="{en}" hreflang="en">English</a> · <a href="{de}" hreflang="de" lang="de">Deutsch</a></p></main>
</body>
</html>
"""  # noqa: E501 - the root page's HTML as it is written


def _sitemap(pages: list[Page], language: str, base_url: str) -> bytes:
    rows = [f'<?xml version="1.0" encoding="UTF-8"?>\n<urlset {SITEMAP_NS}>']
    for page in pages:
        if page.language != language or not page.in_sitemap:
            continue
        alternates = "".join(f'<xhtml:link rel="alternate" hreflang="{escape(lang)}" href="{escape(base_url + path)}"/>'
                             for lang, path in page.alternates().items())
        rows.append(f"<url><loc>{escape(base_url + page.url_path, quote=False)}</loc>{alternates}</url>")
    rows.append("</urlset>\n")
    return "\n".join(rows).encode()


def site_paths() -> tuple[str, ...]:
    """The files :func:`site_files` writes, in its order."""
    return (urls.SITEMAP_INDEX, urls.ROBOTS, "index.html", *(urls.sitemap(language) for language in LANGUAGES))


def site_files(catalog: Catalog, pages: list[Page], base_url: str) -> list[tuple[str, bytes]]:
    """Sitemap index, one sitemap per language, robots.txt and the root page (they follow from the page list and
    the base URL alone)."""
    del catalog
    index = ['<?xml version="1.0" encoding="UTF-8"?>\n<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">']
    index += [f"<sitemap><loc>{escape(base_url, quote=False)}{urls.sitemap(language)}</loc></sitemap>" for language in LANGUAGES]
    index.append("</sitemapindex>\n")
    files = [(urls.SITEMAP_INDEX, "\n".join(index).encode()),
             (urls.ROBOTS, f"User-agent: *\nAllow: /\nSitemap: {base_url}{urls.SITEMAP_INDEX}\n".encode()),
             ("index.html", ROOT_PAGE.format(base=base_url, en=urls.index("en"), de=urls.index("de")).encode())]
    files += [(urls.sitemap(language), _sitemap(pages, language, base_url)) for language in LANGUAGES]
    return files


def breadcrumb_ld(crumbs: Sequence[Any], base_url: str) -> dict[str, Any]:
    """schema.org BreadcrumbList matching the visible breadcrumb."""
    return {"@context": "https://schema.org", "@type": "BreadcrumbList",
            "itemListElement": [{"@type": "ListItem", "position": i + 1, "name": c.name, "item": base_url + c.path}
                                for i, c in enumerate(crumbs)]}


def article_ld(title: str, description: str, url: str, language: str, modified: str) -> dict[str, Any]:
    """schema.org TechArticle for a report page."""
    return {"@context": "https://schema.org", "@type": "TechArticle", "headline": title, "description": description,
            "url": url, "inLanguage": language, "dateModified": modified,
            "publisher": {"@type": "Organization", "name": "VRAM Atlas"}}
