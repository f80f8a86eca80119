"""The page plan: every page's URL, language, template and translation links, decided before anything renders."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

from ..catalog.schema import Catalog
from .i18n import DEFAULT_LANGUAGE, LANGUAGES

API = "api"  # the open-data documents' pseudo-language: one JSON file per subject, planned beside its pages
API_ROOT = "api/v1/"
API_KINDS = ("index", "model", "gpu", "pair")


@dataclass(frozen=True)
class PageKey:
    """What a page is about, independent of language."""

    kind: str  # index | pair | model | gpu | compare | methodology | notfound
    model: str | None = None
    gpu: str | None = None

    def url_path(self, language: str) -> str:
        """The page's URL path below the site root, ending in ``/`` (or ``.html`` for the 404 page)."""
        if self.kind == "notfound":
            return "404.html" if language == DEFAULT_LANGUAGE else f"{language}/404.html"
        kind = self.kind
        if kind == "pair":
            return f"{language}/models/{self.model}/{self.gpu}/"
        if kind == "model":
            return f"{language}/models/{self.model}/"
        if kind == "gpu":
            return f"{language}/gpus/{self.gpu}/"
        if kind == "compare":
            return f"{language}/compare/{self.model}/"
        return f"{language}/{'methodology/' if kind == 'methodology' else ''}"

    def api_path(self) -> str:
        """The site path of the subject's JSON document (index, model, GPU and pair subjects have one)."""
        if self.kind == "pair":
            return f"{API_ROOT}models/{self.model}/{self.gpu}.json"
        if self.kind == "model":
            return f"{API_ROOT}models/{self.model}.json"
        if self.kind == "gpu":
            return f"{API_ROOT}gpus/{self.gpu}.json"
        return f"{API_ROOT}index.json"


@dataclass(frozen=True)
class Page:
    """One output page in one language."""

    key: PageKey
    language: str

    @cached_property  # asked for several times per page by the planner, the digests, the writer and the sitemaps
    def url_path(self) -> str:
        return self.key.api_path() if self.language == API else self.key.url_path(self.language)

    @cached_property
    def output_path(self) -> str:
        path = self.url_path
        return path if path.endswith((".html", ".json")) else f"{path}index.html"

    @property
    def template(self) -> str:
        return f"{self.key.kind}.html"

    def alternates(self) -> dict[str, str]:
        """URL paths of this page in every language, plus x-default (English)."""
        paths = {language: self.key.url_path(language) for language in LANGUAGES}
        paths["x-default"] = paths[DEFAULT_LANGUAGE]
        return paths

    @property
    def in_sitemap(self) -> bool:
        return self.key.kind != "notfound" and self.language != API


def plan_keys(catalog: Catalog) -> list[PageKey]:
    """Every page subject, in a stable order: index, methodology, models, GPUs, comparisons, then pairs model by model."""
    keys = [PageKey("index"), PageKey("methodology"), PageKey("notfound")]
    keys += [PageKey("model", model=m) for m in sorted(catalog.models)]
    keys += [PageKey("gpu", gpu=g) for g in sorted(catalog.gpus)]
    keys += [PageKey("compare", model=m) for m in sorted(catalog.models)]
    keys += [PageKey("pair", model=m, gpu=g) for m in sorted(catalog.models) for g in sorted(catalog.gpus)]
    return keys


def plan_pages(catalog: Catalog) -> list[Page]:
    """Every page in every language, each subject's JSON document after its pages."""
    return [Page(key, language) for key in plan_keys(catalog)
            for language in (*LANGUAGES, *((API,) if key.kind in API_KINDS else ()))]
