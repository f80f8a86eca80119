"""Contexts of the cached partials (``cached(template, part)``, Hugo's ``partialCached``): each part carries its
cache key and the data the partial shows, and the partial sees nothing else (no page variables), so it cannot show
what its key omits. Each is built once per key and language (``Lang.shared`` on the same key)."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from functools import partial
from typing import Any, NamedTuple

from markupsafe import Markup

from .. import urls
from ..catalog import freshness
from ..catalog.licences import licence_name
from ..catalog.schema import Gpu, Model
from ..estimate import fidelity
from ..estimate.cost import HOURS_PER_MONTH
from ..estimate.estimator import Estimate
from ..sitedata import OLDER_LAUNCH_YEAR, PAGE_CONTEXT_TOKENS, SiteData
from . import labels
from .common import Lang, OfferRow, SourceRow, cheapest_per_tier, offer_rows, source_rows


@dataclass(frozen=True, slots=True)
class OffersPart:
    """A GPU's cloud offers as a pair page lists them: the cheapest of each tier, with a link to all of them."""

    key: tuple[str, str]
    offers: tuple[OfferRow, ...]
    shown: tuple[OfferRow, ...]
    more: bool  # the GPU page lists offers this list leaves out
    all_offers_path: str
    prices_as_of: dt.date | None
    stale_after_days: int
    hours_per_month: float


def offers_part(site: SiteData, gpu_id: str, lang: Lang) -> OffersPart:
    key = ("offers", gpu_id)

    def build() -> OffersPart:
        offers = lang.shared(("offer_rows", gpu_id), lambda: offer_rows(site, gpu_id))
        shown = cheapest_per_tier(offers)
        return OffersPart(key, offers, shown, len(offers) > len(shown), urls.anchor(urls.gpu(lang.code, gpu_id), "h-offers"),
                          site.price_reference_date, freshness.STALE_AFTER_DAYS, HOURS_PER_MONTH)
    return lang.shared(key, build)


class RecommendedRow(NamedTuple):
    """A recommended GPU for a model: the pair it links, the figure it won on and why, in words."""

    role: str
    gpu: Gpu
    path: str
    estimate: Estimate
    quant: str
    offer: dict[str, Any] | None  # policy.recommendations' cloud offer: provider, usd_per_hour, instance
    grade: str
    why: Markup
    below_floor: Markup | None  # the warning, where no GPU holds a good-enough quantization


@dataclass(frozen=True, slots=True)
class HardwarePart:
    key: tuple[str, str]
    rows: tuple[RecommendedRow, ...]
    context: int


def _why(role: str, usd_per_tok_s: float | None, lang: Lang) -> Markup:
    if role == "fastest":
        return lang._("Fastest at this quality.")
    if role == "value":
        assert usd_per_tok_s is not None  # a value pick is priced
        return lang._("Lowest price per tok/s: %(usd)s.", usd=lang.fmt.usd(usd_per_tok_s))
    if role == "older":
        return lang._("Cheapest launched in %(year)s or earlier.", year=OLDER_LAUNCH_YEAR)
    if role == "apple":
        return lang._("Smallest Apple memory that holds it.")
    return lang._("Cheapest hourly rental.")


def hardware_part(site: SiteData, model_id: str, lang: Lang) -> HardwarePart:
    """Best single GPU, best value, used/older option, Apple unified memory and cheapest cloud, as pair links, each
    with the figure it won on and its quality grade."""
    key = ("hardware", model_id)

    def build() -> HardwarePart:
        native = site.models[model_id].native_format
        rows = []
        for pick in site.recommendations(model_id):
            gpu, pair = site.catalog.gpus[pick.gpu], site.pairs[(model_id, pick.gpu)]
            speed = pair.estimate.decode_tokens_per_s
            grade = fidelity.grade(pair.quant, native)
            per_tok_s = gpu.price_usd / speed if gpu.price_usd and speed else None
            below = (lang._("Below the quality floor (%(grade)s): no catalogued GPU holds a 4-bit or better "
                               "quantization with margin.", grade=lang.gettext(labels.QUALITY[grade]))
                     if pick.below_floor else None)
            rows.append(RecommendedRow(pick.role, gpu, urls.pair(lang.code, model_id, pick.gpu), pair.estimate,
                                       pair.quant, pick.offer, grade, _why(pick.role, per_tok_s, lang), below))
        return HardwarePart(key, tuple(rows), PAGE_CONTEXT_TOKENS)
    return lang.shared(key, build)


class GgufFile(NamedTuple):
    quant: str
    size_bytes: int | None


@dataclass(frozen=True, slots=True)
class GgufRepo:
    repo: str
    url: str
    read: dt.date
    files: tuple[GgufFile, ...]


class OllamaTag(NamedTuple):
    tag: str
    quant: str | None
    size_bytes: int | None


class Checkpoint(NamedTuple):
    repo: str
    quant: str
    url: str


@dataclass(frozen=True, slots=True)
class AboutModelPart:
    """Catalogue facts of a model: maker, licence, release, repository, native precision, published files."""

    key: tuple[str, str]
    model_name: str
    org: str
    family: str
    license: str | None
    release_date: dt.date | None
    hf_repo: str
    hf_url: str
    native: str | None
    gguf: tuple[GgufRepo, ...]
    ollama: tuple[OllamaTag, ...]
    checkpoints: tuple[Checkpoint, ...]


def native_precision(model: Model, spec: Any) -> str | None:
    """The precision the checkpoint is published in (BF16, FP8, MXFP4), from its config."""
    if spec.native_format in ("mxfp4", "fp8"):
        return spec.native_format.upper()
    dtype = model.config.get("torch_dtype") or model.config.get("dtype")
    return labels.DTYPE.get(str(dtype)) if dtype else None


def about_model_part(site: SiteData, model_id: str, lang: Lang) -> AboutModelPart:
    key = ("about_model", model_id)

    def build() -> AboutModelPart:
        model, spec = site.catalog.models[model_id], site.models[model_id]
        return AboutModelPart(
            key, model.name, model.org, model.family, licence_name(model.license) if model.license else None,
            model.release_date, model.hf_repo, urls.huggingface(model.hf_repo), native_precision(model, spec),
            tuple(GgufRepo(r.repo, urls.huggingface(r.repo), r.read,
                           tuple(sorted((GgufFile(f.quant, f.size_bytes) for f in r.files), key=lambda f: -(f.size_bytes or 0))))
                  for r in model.gguf),
            tuple(OllamaTag(t.tag, t.quant, t.size_bytes) for t in model.ollama),
            tuple(Checkpoint(c.repo, c.quant, urls.huggingface(c.repo)) for c in model.checkpoints))
    return lang.shared(key, build)


@dataclass(frozen=True, slots=True)
class AboutGpuPart:
    """Catalogue facts of a GPU: memory, bandwidth, compute, power, launch, price and backends."""

    key: tuple[str, str]
    gpu: Gpu
    backends: tuple[str, ...]
    usd_per_gib: float | None
    gb_s_per_gib: float
    fp16_per_gb_s: float | None


def about_gpu_part(site: SiteData, gpu_id: str, lang: Lang) -> AboutGpuPart:
    key = ("about_gpu", gpu_id)

    def build() -> AboutGpuPart:
        gpu = site.catalog.gpus[gpu_id]
        gib = gpu.memory_bytes / 2**30
        return AboutGpuPart(key, gpu, tuple(gpu.backends), gpu.price_usd / gib if gpu.price_usd else None,
                            gpu.bandwidth_gb_per_s / gib,
                            gpu.fp16_tensor_tflops * 1000 / gpu.bandwidth_gb_per_s if gpu.fp16_tensor_tflops else None)
    return lang.shared(key, build)


class Mixer(NamedTuple):
    kind: str
    window: int | None
    ratio: int  # tokens per compressed KV row (DeepSeek-V4); 0 where rows are not compressed
    layers: int


@dataclass(frozen=True, slots=True)
class ArchitecturePart:
    """Layers, attention kind, KV bytes per 1K tokens and experts, from the estimator's architecture."""

    key: tuple[str, str]
    arch: Any
    kv_bytes_per_1k: int
    mixers: tuple[Mixer, ...]
    kv_heads: int
    total_params: int
    active_params: int
    sparse: bool  # fewer parameters active per token than in all
    context_length: int


def architecture_part(site: SiteData, model_id: str, lang: Lang) -> ArchitecturePart:
    key = ("architecture", model_id)

    def build() -> ArchitecturePart:
        spec = site.models[model_id]
        mixers: dict[tuple[str, int | None, int], int] = {}
        for layer in spec.architecture.main_layers:
            mixer = (layer.attention, layer.window, layer.compress_ratio)
            mixers[mixer] = mixers.get(mixer, 0) + 1
        return ArchitecturePart(
            key, spec.architecture, site.kv_per_1k(model_id),
            tuple(Mixer(kind, window, ratio, count) for (kind, window, ratio), count in mixers.items()),
            max((layer.n_kv_heads for layer in spec.architecture.main_layers), default=0),
            spec.total_params, spec.active_params,
            bool(spec.active_params) and spec.active_params != spec.total_params,
            site.catalog.models[model_id].context_length)
    return lang.shared(key, build)


@dataclass(frozen=True, slots=True)
class SourcesPart:
    key: tuple[str, str, str]
    rows: tuple[SourceRow, ...]


def model_sources_part(site: SiteData, model_id: str, lang: Lang) -> SourcesPart:
    key = ("sources", "model", model_id)
    model = site.catalog.models[model_id]
    return lang.shared(key, lambda: SourcesPart(key, source_rows([(model.name, model)], lang.gettext)))


def gpu_sources_part(site: SiteData, gpu_id: str, lang: Lang) -> SourcesPart:
    key = ("sources", "gpu", gpu_id)
    gpu = site.catalog.gpus[gpu_id]
    return lang.shared(key, lambda: SourcesPart(key, source_rows([(gpu.name, gpu)], lang.gettext)))


class LinkPart(NamedTuple):
    """A link to a pair page, named after its GPU or its model, with its verdict and speed."""

    key: tuple[str, ...]
    path: str
    name: str
    verdict: str
    quant: str
    estimate: Estimate


def link_parts(site: SiteData, lang: Lang, pairs: list[tuple[str, str]], named: str) -> tuple[LinkPart, ...]:
    """Link rows to pair pages, named after the pair's GPU or model (``named``); one object per pair and name in a
    language (every pair appears in the related links of dozens of pages)."""
    def row(m: str, g: str) -> LinkPart:
        pick = site.pairs[(m, g)]
        name = site.catalog.gpus[g].name if named == "gpu" else site.catalog.models[m].name
        return LinkPart(("link", m, g, named), urls.pair(lang.code, m, g), name, pick.estimate.verdict, pick.quant,
                        pick.estimate)
    return tuple(lang.shared(("link", m, g, named), partial(row, m, g)) for m, g in pairs)
