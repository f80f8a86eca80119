"""The page plan: every page's URL, language, template and translation links, decided before anything renders."""

from __future__ import annotations

from dataclasses import dataclass, field

from .. import urls
from ..catalog.schema import Catalog
from ..i18n import DEFAULT_LANGUAGE, LANGUAGES

API = "api"  # the open-data documents' pseudo-language: one JSON file per subject, planned beside its pages
API_KINDS = ("index", "model", "gpu", "pair")
IMAGE_KINDS = ("index", "model", "gpu")


@dataclass(frozen=True)
class PageKey:
    """What a page is about, independent of language."""

    kind: str  # index | pair | model | gpu | compare | methodology | notfound
    model: str = ""  # "" on a page about no one model
    gpu: str = ""  # "" on a page about no one GPU

    def url_path(self, language: str) -> str:
        """The page's URL path below the site root, ending in ``/`` (or ``.html`` for the 404 page)."""
        kind = self.kind
        if kind == "notfound":
            return urls.notfound(language)
        if kind == "pair":
            return urls.pair(language, self.model, self.gpu)
        if kind == "model":
            return urls.model(language, self.model)
        if kind == "gpu":
            return urls.gpu(language, self.gpu)
        if kind == "compare":
            return urls.compare(language, self.model)
        return urls.methodology(language) if kind == "methodology" else urls.index(language)

    def api_path(self) -> str:
        """The site path of the subject's JSON document (index, model, GPU and pair subjects have one)."""
        if self.kind == "pair":
            return urls.api_pair(self.model, self.gpu)
        if self.kind == "model":
            return urls.api_model(self.model)
        if self.kind == "gpu":
            return urls.api_gpu(self.gpu)
        return urls.api_index()

    def image_key(self) -> PageKey:
        """The subject whose social preview image the page shows: a pair or comparison shows its model's, the
        methodology and 404 pages the index's."""
        if self.kind in IMAGE_KINDS:
            return self
        return PageKey("model", model=self.model) if self.kind in ("pair", "compare") else PageKey("index")

    def image_path(self, language: str) -> str:
        """The site path of the social preview image the page shows in ``language``."""
        key = self.image_key()
        if key.kind == "model":
            return urls.image_model(language, key.model)
        if key.kind == "gpu":
            return urls.image_gpu(language, key.gpu)
        return urls.image_index(language)


@dataclass(frozen=True)
class Page:
    """One output page in one language."""

    key: PageKey
    language: str
    image: bool = False  # the subject's social preview image in this language, not its page
    # Asked for several times per page by the planner, the digests, the writer and the sitemaps: set once.
    url_path: str = field(init=False, compare=False, repr=False)
    output_path: str = field(init=False, compare=False, repr=False)

    def __post_init__(self) -> None:
        if self.image:
            path = self.key.image_path(self.language)
        else:
            path = self.key.api_path() if self.language == API else self.key.url_path(self.language)
        object.__setattr__(self, "url_path", path)
        object.__setattr__(self, "output_path",
                           path if path.endswith((".html", ".json", ".png")) else f"{path}index.html")

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
        return self.key.kind != "notfound" and self.language != API and not self.image


def plan_keys(catalog: Catalog) -> list[PageKey]:
    """Every page subject, in a stable order: index, methodology, models, GPUs, comparisons, then pairs model by model."""
    keys = [PageKey("index"), PageKey("methodology"), PageKey("notfound")]
    keys += [PageKey("model", model=m) for m in sorted(catalog.models)]
    keys += [PageKey("gpu", gpu=g) for g in sorted(catalog.gpus)]
    keys += [PageKey("compare", model=m) for m in sorted(catalog.models)]
    keys += [PageKey("pair", model=m, gpu=g) for m in sorted(catalog.models) for g in sorted(catalog.gpus)]
    return keys


def _subject_files(key: PageKey) -> list[Page]:
    """A subject's files: its page in each language, each followed by its image (it reads that page's view), then
    its JSON document (it reads the English view)."""
    files = [page for language in LANGUAGES
             for page in (Page(key, language), *((Page(key, language, image=True),) if key.kind in IMAGE_KINDS else ()))]
    return files + ([Page(key, API)] if key.kind in API_KINDS else [])


def plan_pages(catalog: Catalog) -> list[Page]:
    """Every page in every language with the subject's images and JSON document (see :func:`_subject_files`)."""
    return [page for key in plan_keys(catalog) for page in _subject_files(key)]
