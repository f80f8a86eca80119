"""The index page: the hardware and model finder, example pairs, and every model and GPU in browsable groups."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import NamedTuple

from .. import urls
from ..catalog.schema import Gpu, Model
from ..estimate import fidelity
from ..estimate.estimator import Estimate
from ..sitedata import PAGE_CONTEXT_TOKENS, SiteData
from ..sitedata.navigation import CONSUMER_TIERS_GIB, MAC_GIB
from ..sitedata.policy import FLOOR_GRADES
from . import labels
from .common import Head, Lang
from .plan import PageKey

VENDOR_NAMES = {"nvidia": "NVIDIA", "amd": "AMD", "apple": "Apple", "intel": "Intel", "huawei": "Huawei",
                "cambricon": "Cambricon", "hygon": "Hygon", "metax": "MetaX", "kunlunxin": "Kunlunxin",
                "moore-threads": "Moore Threads"}
DEFAULT_GIB = 24  # the finder opens on the largest example GPU with at most this much memory


class ModelLink(NamedTuple):
    model: Model
    path: str
    search: str  # what the search box matches, lower-case


class GpuLink(NamedTuple):
    gpu: Gpu
    path: str
    usable: int
    search: str


@dataclass(frozen=True)
class Group:
    """A collapsible group of the lists: a model maker, or a GPU vendor and segment."""

    label: str
    count: int
    items: tuple


class Option(NamedTuple):
    value: str
    label: str
    selected: bool = False


class OptionGroup(NamedTuple):
    label: str
    options: tuple[Option, ...]


class PopularPair(NamedTuple):
    model: Model
    gpu: Gpu
    path: str
    estimate: Estimate
    quant: str
    grade: fidelity.Grade


@dataclass(frozen=True, slots=True)
class FinderPart:
    """The finder's controls (filled here, so that the page lists them without script) and what its script needs."""

    data_path: str
    labels_json: str  # the script's translated words, as JSON
    gpu_groups: tuple[OptionGroup, ...]  # every GPU but the Macs, by vendor
    macs: tuple[Option, ...]
    models: tuple[OptionGroup, ...]  # by maker
    context: int  # tokens: the context the memory figures are for


@dataclass(frozen=True, slots=True)
class OpenData:
    api: str
    csv: str
    dictionary: str
    llms: str
    finder: str


OPEN_DATA = OpenData(urls.api_index(), urls.PAIRS_CSV, urls.DATAPACKAGE, urls.LLMS_TXT, urls.FINDER_JSON)


@dataclass(frozen=True, slots=True)
class IndexView:
    head: Head
    models: tuple[ModelLink, ...]
    gpus: tuple[GpuLink, ...]
    model_groups: tuple[Group, ...]
    gpu_groups: tuple[Group, ...]
    matches: int  # what the search finds with an empty query
    popular: tuple[PopularPair, ...]
    open_data: OpenData
    popular_rule: str
    finder: FinderPart


def _script_labels(lang: Lang) -> str:
    """Every word the finder's script writes, translated, as JSON (the script holds no text of its own)."""
    _ = lang.gettext
    words = {
        "model": _("Model"), "quant": _("Quantization"), "memory": _("Memory needed"), "decode": _("Decode speed"),
        "context": _("Max context"), "fit": _("On this hardware"), "toks": _("tok/s"), "gpu": _("GPU"),
        "price": _("Price"), "perHour": _("per GPU-hour"), "perMtok": _("per 1M output tokens"),
        "perUser": _("tok/s per user"), "engine": _("Engine"), "offer": _("Offer"), "serving": _("Cheapest serving"),
        "multi": _("Cheapest cloud (several GPUs)"), "hostRam": _("%(size)s in system RAM"),
        "count": _("%(n)s of %(total)s models run at or above the quality floor: %(fits)s fully on the GPU, "
                   "%(offload)s with offload."),
        "countMemory": _("%(n)s of %(total)s models fit at Q4_K_M or BF16: %(fits)s fully in VRAM, %(offload)s in "
                         "VRAM and system RAM together."),
        "none": _("No model runs here at or above the quality floor."),
        "noSpeed": _("Speed depends on the GPU: pick yours above for speed and context figures."),
        "modelPage": _("All GPUs for %(model)s"), "modelCount": _("Where to run %(model)s, as its model page recommends:"),
        "noPick": _("No single catalogued GPU holds this model."),
        "belowFloor": _("below the quality floor"), "listPrice": _("list price"),
        "verdict": {k: _(labels.VERDICT[k]) for k in ("fits", "tight", "offload")},
        "quality": {k: _(labels.QUALITY[k]) for k in FLOOR_GRADES},
        "role": {k: _(labels.ROLE[k]) for k in ("fastest", "value", "cloud")},
    }
    return json.dumps(words, ensure_ascii=False, sort_keys=True, separators=(",", ":"))


def _finder(site: SiteData, models: list[Model], gpus: list[Gpu], lang: Lang) -> FinderPart:
    catalog = site.catalog
    # Preselected: the example pair (not a Mac) with the most memory up to DEFAULT_GIB, its GPU and its model.
    examples = [(m, g) for m, g in site.popular_pairs() if catalog.gpus[g].vendor != "apple"]
    fitting = [p for p in examples if catalog.gpus[p[1]].memory_bytes <= DEFAULT_GIB * 2**30]
    default_model, default_gpu = (max(fitting, key=lambda p: catalog.gpus[p[1]].memory_bytes) if fitting
                                  else examples[0] if examples else (None, None))
    vendors: dict[str, list[Option]] = {}
    for g in gpus:
        if g.vendor != "apple":
            vendors.setdefault(VENDOR_NAMES[g.vendor], []).append(Option(g.id, g.name, g.id == default_gpu))
    makers: dict[str, list[Option]] = {}
    for m in sorted(models, key=lambda m: (m.org, m.family, m.total_params, m.id)):
        makers.setdefault(m.org, []).append(Option(m.id, m.name, m.id == default_model))
    return FinderPart(
        data_path=urls.FINDER_JSON, labels_json=_script_labels(lang),
        gpu_groups=tuple(OptionGroup(name, tuple(options)) for name, options in vendors.items()),
        macs=tuple(Option(g.id, g.name) for g in gpus if g.vendor == "apple"),
        models=tuple(OptionGroup(name, tuple(options)) for name, options in sorted(makers.items())),
        context=PAGE_CONTEXT_TOKENS)


def _segment(gpu: Gpu, lang: Lang) -> str:
    return f"{VENDOR_NAMES[gpu.vendor]} · {lang.gettext(labels.SEGMENT[gpu.segment])}"


def index_view(site: SiteData, key: PageKey, lang: Lang) -> IndexView:
    """The finder, example pairs and every model and GPU, grouped by maker and by vendor."""
    _ = lang.gettext
    catalog = site.catalog
    models = sorted(catalog.models.values(), key=lambda m: (m.family, m.total_params, m.id))
    gpus = sorted(catalog.gpus.values(), key=lambda g: (g.vendor, g.memory_bytes, g.id))
    model_links = tuple(ModelLink(m, urls.model(lang.code, m.id), f"{m.name} {m.hf_repo} {m.family} {m.org}".lower())
                        for m in models)
    gpu_links = tuple(GpuLink(g, urls.gpu(lang.code, g.id), site.devices[g.id].usable_memory_bytes,
                              f"{g.name} {' '.join(g.aliases)}".lower()) for g in gpus)
    by_maker: dict[str, list[ModelLink]] = {}
    for link in sorted(model_links, key=lambda ml: (ml.model.org.lower(), ml.model.family, ml.model.total_params)):
        by_maker.setdefault(link.model.org, []).append(link)
    by_segment: dict[str, list[GpuLink]] = {}
    for gpu_link in gpu_links:
        by_segment.setdefault(_segment(gpu_link.gpu, lang), []).append(gpu_link)
    popular = []
    for m, g in site.popular_pairs():
        pick = site.pairs[(m, g)]
        popular.append(PopularPair(catalog.models[m], catalog.gpus[g], urls.pair(lang.code, m, g), pick.estimate,
                                   pick.quant, fidelity.grade(pick.quant, site.models[m].native_format)))
    tiers = ", ".join(lang.fmt.number(t) for t in CONSUMER_TIERS_GIB)
    return IndexView(
        head=Head(
            _("VRAM Atlas: can this GPU run this LLM? Memory, speed and cost"),
            _("Memory, speed, cost and launch commands for %(m)s LLMs on %(g)s GPUs, from one published estimator "
              "with its measured error.") % {"m": lang.fmt.number(len(models)), "g": lang.fmt.number(len(gpus))}),
        models=model_links, gpus=gpu_links,
        model_groups=tuple(Group(name, len(items), tuple(items)) for name, items in by_maker.items()),
        gpu_groups=tuple(Group(name, len(items), tuple(items)) for name, items in by_segment.items()),
        matches=len(models) + len(gpus),
        popular=tuple(popular),
        open_data=OPEN_DATA,
        popular_rule=_("Hardware people own: per memory tier (%(tiers)s GiB) the consumer card the most catalogued "
                       "cloud offers list, the newest %(mac)s GiB Mac and the most-listed data-centre GPU; on each, the "
                       "largest model whose recommended quantization is at or above the quality floor and fits with "
                       "margin at %(context)s context.") % {
            "tiers": tiers, "mac": lang.fmt.number(MAC_GIB), "context": lang.fmt.tokens(PAGE_CONTEXT_TOKENS)},
        finder=_finder(site, models, gpus, lang),
    )
