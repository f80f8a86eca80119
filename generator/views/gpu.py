"""The GPU page: every model on one GPU with its best quantization, speed and largest context."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import NamedTuple

from .. import urls
from ..catalog import freshness
from ..catalog.schema import Gpu, Model
from ..estimate import fidelity
from ..estimate.device import DeviceSpec
from ..estimate.estimator import Estimate
from ..sitedata import PAGE_CONTEXT_TOKENS, SiteData
from ..sitedata.policy import below_floor, holds, quality_rank
from .common import (
    Crumb,
    Head,
    Lang,
    OfferRow,
    RentBuyView,
    home,
    latest_read,
    offer_rows,
    rentbuy_view,
    same_gpu_basis,
)
from .parts import AboutGpuPart, SourcesPart, about_gpu_part, gpu_sources_part
from .plan import PageKey


class ModelRow(NamedTuple):
    model: Model
    path: str
    quant: str
    estimate: Estimate
    grade: fidelity.Grade
    heavy_loss: bool  # held only below the quality floor: listed after every model held above it


class Comparison(NamedTuple):
    model: Model
    path: str


@dataclass(frozen=True, slots=True)
class GpuView:
    head: Head
    gpu: Gpu
    device: DeviceSpec
    rows: tuple[ModelRow, ...]
    fits_count: int
    about_gpu: AboutGpuPart
    offers: tuple[OfferRow, ...]
    prices_as_of: dt.date | None
    stale_after_days: int
    sources: SourcesPart
    comparisons: tuple[Comparison, ...]
    rentbuy: RentBuyView


def _row(site: SiteData, model_id: str, gpu_id: str, native: str, language: str) -> ModelRow:
    pick = site.pairs[(model_id, gpu_id)]
    return ModelRow(site.catalog.models[model_id], urls.pair(language, model_id, gpu_id), pick.quant, pick.estimate,
                    fidelity.grade(pick.quant, native),
                    below_floor(pick, native))


def gpu_view(site: SiteData, key: PageKey, lang: Lang) -> GpuView:
    """Every model on one GPU with its best quantization, speed and largest context."""
    _ = lang.gettext
    gpu = site.catalog.gpus[key.gpu]
    native = {m: spec.native_format for m, spec in site.models.items()}
    ranked = sorted(site.catalog.models, key=lambda m: (quality_rank(site.pairs[(m, key.gpu)], native[m]), m))
    rows = tuple(_row(site, m, key.gpu, native[m], lang.code) for m in ranked)
    fitting = sum(1 for m in ranked if holds(site.pairs[(m, key.gpu)], native[m]))
    offers = lang.shared(("offer_rows", key.gpu), lambda: offer_rows(site, key.gpu))
    return GpuView(
        head=Head(
            _("%(gpu)s for LLMs: which models fit and how fast") % {"gpu": gpu.name},
            _("%(gpu)s offers %(usable)s for models and %(bw)s GB/s: %(fit)s of %(n)s catalogued LLMs fit fully at "
              "%(context)s context at or above the quality floor.") % {
                "gpu": gpu.name, "usable": lang.fmt.gib(site.devices[key.gpu].usable_memory_bytes),
                "bw": lang.fmt.number(gpu.bandwidth_gb_per_s), "fit": lang.fmt.number(fitting),
                "n": lang.fmt.number(len(rows)), "context": lang.fmt.tokens(PAGE_CONTEXT_TOKENS)},
            (home(lang), Crumb(gpu.name, urls.gpu(lang.code, gpu.id))), latest_read(gpu)),
        gpu=gpu, device=site.devices[key.gpu], rows=rows, fits_count=fitting,
        about_gpu=about_gpu_part(site, key.gpu, lang),
        offers=offers,
        prices_as_of=site.price_reference_date, stale_after_days=freshness.STALE_AFTER_DAYS,
        sources=gpu_sources_part(site, key.gpu, lang),
        comparisons=tuple(Comparison(site.catalog.models[m], urls.compare(lang.code, m))
                          for m in site.compared_with[key.gpu]),
        rentbuy=rentbuy_view(gpu, same_gpu_basis(offers, None, None, gpu.name), None, None),
    )
