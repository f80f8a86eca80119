"""The index page: searchable lists of every model and GPU, and example pairs."""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

from ... import urls
from ...catalog.schema import Gpu, Model
from ...estimate.api import Estimate
from ...sitedata import PAGE_CONTEXT_TOKENS, Results
from ..plan import PageKey
from .common import Head, Lang


class ModelLink(NamedTuple):
    model: Model
    path: str
    search: str  # what the search box matches, lower-case


class GpuLink(NamedTuple):
    gpu: Gpu
    path: str
    usable: int
    search: str


class PopularPair(NamedTuple):
    model: Model
    gpu: Gpu
    path: str
    estimate: Estimate


@dataclass(frozen=True, slots=True)
class OpenData:
    api: str
    csv: str
    dictionary: str
    llms: str


OPEN_DATA = OpenData(urls.api_index(), urls.PAIRS_CSV, urls.DATAPACKAGE, urls.LLMS_TXT)


@dataclass(frozen=True, slots=True)
class IndexView:
    head: Head
    models: tuple[ModelLink, ...]
    gpus: tuple[GpuLink, ...]
    matches: int  # what the search finds with an empty query
    popular: tuple[PopularPair, ...]
    open_data: OpenData
    popular_rule: str


def index_view(results: Results, key: PageKey, lang: Lang) -> IndexView:
    """Searchable lists of every model and GPU, and popular pairs."""
    _ = lang.gettext
    catalog = results.catalog
    models = sorted(catalog.models.values(), key=lambda m: (m.family, m.total_params, m.id))
    gpus = sorted(catalog.gpus.values(), key=lambda g: (g.vendor, g.memory_bytes, g.id))
    return IndexView(
        head=Head(
            _("VRAM Atlas: can this GPU run this LLM? Memory, speed and cost"),
            _("Memory, speed, cost and launch commands for %(m)s LLMs on %(g)s GPUs, from one published estimator "
              "with its measured error.") % {"m": lang.fmt.number(len(models)), "g": lang.fmt.number(len(gpus))}),
        models=tuple(ModelLink(m, urls.model(lang.code, m.id), f"{m.name} {m.hf_repo} {m.family}".lower())
                     for m in models),
        gpus=tuple(GpuLink(g, urls.gpu(lang.code, g.id), results.devices[g.id].usable_memory_bytes,
                           f"{g.name} {' '.join(g.aliases)}".lower()) for g in gpus),
        matches=len(models) + len(gpus),
        popular=tuple(PopularPair(catalog.models[m], catalog.gpus[g], urls.pair(lang.code, m, g),
                                  results.pairs[(m, g)].estimate) for m, g in results.popular_pairs()),
        open_data=OPEN_DATA,
        popular_rule=_("Not a popularity ranking: models spread evenly by size, each on the catalogued GPU with "
                       "the least memory that holds it with margin at %(context)s context.") % {
            "context": lang.fmt.tokens(PAGE_CONTEXT_TOKENS)},
    )
