"""Each page's template context: common head data, breadcrumbs, JSON-LD and the page type's view."""

from __future__ import annotations

from typing import Any

from ..i18n import DEFAULT_LANGUAGE
from ..sitedata import SiteData
from ..views import registry
from ..views.nav import OG_LOCALE, nav, other_languages
from ..views.plan import API, API_KINDS, IMAGE_KINDS, Page
from . import api, seo, social
from .render import Renderer

LANGUAGE_NAMES = {"en": "English", "de": "Deutsch"}
LAST_VIEW = ("last view",)  # a language's one-slot memo: the view of its last page, by subject (read by the
# subject's image and, in English, its JSON document, both planned after the page)


def root_prefix(page: Page) -> str:
    """Relative path from the page to the site root; the 404 page, served at any URL, uses absolute links."""
    if page.key.kind == "notfound":
        return "/"
    return "../" * page.url_path.count("/")


def page_context(site: SiteData, renderer: Renderer, page: Page, base_url: str) -> dict[str, Any]:
    """Everything one template needs, numbers unformatted."""
    language = page.language
    lang = renderer.lang(language)
    view = registry.VIEWS[page.key.kind](site, page.key, lang)
    if page.key.kind in IMAGE_KINDS or (language == DEFAULT_LANGUAGE and page.key.kind in API_KINDS):
        lang.memo[LAST_VIEW] = (page.key, view)
    og_image = social.image_meta(page.key, language, view, lang, base_url)
    names = renderer.asset_names
    head = view.head
    jsonld = [seo.breadcrumb_ld(head.breadcrumbs, base_url)] if head.breadcrumbs else []
    if page.key.kind in ("pair", "model", "gpu", "compare", "methodology"):
        jsonld.append(seo.article_ld(head.title, head.description, base_url + page.url_path, language, head.modified))
    return {
        "page": page,
        "root": root_prefix(page),
        "nav": nav(language),
        "site": {"base_url": base_url, "css": names["css"], "js": names["js"], "rentbuy": names["rentbuy"],
                 "finder": names["finder"], "language_names": LANGUAGE_NAMES},
        "title": head.title,
        "description": head.description,
        "breadcrumbs": head.breadcrumbs,
        "og_locale": OG_LOCALE.get(language, OG_LOCALE["en"]),
        "languages": other_languages(page.alternates(), language, LANGUAGE_NAMES),
        "jsonld": jsonld,
        "api_path": page.key.api_path() if page.key.kind in API_KINDS else None,
        "og_image": og_image,
        "v": view,
    }


def render_page(site: SiteData, renderer: Renderer, page: Page, base_url: str) -> bytes:
    """One planned file's bytes: a page's HTML, a subject's preview image (from its page's view) or its JSON
    document (from the English view)."""
    renderer.start_subject(page.key)
    if page.image:
        lang = renderer.lang(page.language)
        key, view = lang.memo.get(LAST_VIEW, (None, None))
        if key != page.key:  # its page was not rendered just before in this process
            view = registry.VIEWS[page.key.kind](site, page.key, lang)
        return social.image_bytes(page.key, view, lang)
    if page.language == API:
        lang = renderer.lang(DEFAULT_LANGUAGE)
        key, view = lang.memo.pop(LAST_VIEW, (None, None))
        if key != page.key:  # its English page was not rendered just before in this process
            view = registry.VIEWS[page.key.kind](site, page.key, lang)
        return api.document_bytes(page.key, view)
    return renderer.render(page.language, page.template, page_context(site, renderer, page, base_url)).encode()
