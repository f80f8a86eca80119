"""Each page's template context: common head data, breadcrumbs, JSON-LD and the page type's view."""

from __future__ import annotations

from typing import Any

from .plan import Page
from .render import Renderer
from . import seo, views
from ..results import Results

LANGUAGE_NAMES = {"en": "English", "de": "Deutsch"}


def root_prefix(page: Page) -> str:
    """Relative path from the page to the site root; the 404 page, served at any URL, uses absolute links."""
    if page.key.kind == "notfound":
        return "/"
    return "../" * page.url_path.count("/")


def page_context(results: Results, renderer: Renderer, page: Page, base_url: str) -> dict[str, Any]:
    """Everything one template needs, numbers unformatted."""
    language = page.language
    lang = renderer.lang(language)
    view = views.VIEWS[page.key.kind](results, page.key, lang)
    names = renderer.asset_names
    crumbs = view.pop("breadcrumbs")
    jsonld = [seo.breadcrumb_ld(crumbs, base_url)] if crumbs else []
    if page.key.kind in ("pair", "model", "gpu", "methodology"):
        jsonld.append(seo.article_ld(view["title"], view["description"], base_url + page.url_path, language,
                                     view.pop("modified")))
    return {
        "page": page,
        "root": root_prefix(page),
        "site": {"base_url": base_url, "css": names["css"], "js": names["js"], "language_names": LANGUAGE_NAMES},
        "title": view.pop("title"),
        "description": view.pop("description"),
        "breadcrumbs": crumbs,
        "jsonld": jsonld,
        "v": view,
    }
