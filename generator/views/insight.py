"""Numbers that reason about a pair: context per GiB of margin, the bandwidth ceiling, the model's fastest GPU."""

from __future__ import annotations

from typing import NamedTuple

from .. import urls
from ..catalog.schema import Gpu
from ..estimate.estimator import Estimate
from ..sitedata import SiteData
from .common import Lang


class Ceiling(NamedTuple):
    ms_per_token: float
    tokens_per_s: float
    share: float


class Fastest(NamedTuple):
    """The model's fastest catalogued single GPU, where it is another one."""

    gpu: Gpu
    path: str
    quant: str
    decode: float
    ratio: float


class Insight(NamedTuple):
    """Numbers that reason about the pair: context per GiB of margin, bandwidth ceiling, the model's fastest GPU."""

    tokens_per_gib: int | None
    margin_tokens: int | None
    shortfall_bytes: int
    shortfall_ratio: float | None
    dense: bool
    active_share: float
    ceiling: Ceiling | None
    fastest: Fastest | None
    is_fastest: bool


def pair_insight(site: SiteData, model_id: str, gpu_id: str, e: Estimate, lang: Lang) -> Insight:
    spec, device = site.models[model_id], site.devices[gpu_id]
    kv_per_token = site.kv_per_1k(model_id) / 1024
    fits = e.verdict in ("fits", "tight")
    dense = spec.active_params >= spec.total_params
    ceiling = fastest = None
    if fits and dense and device.count == 1 and e.weights_bytes:
        rate = device.bandwidth_bytes_per_s / e.weights_bytes
        ceiling = Ceiling(1000 / rate, rate, e.decode_tokens_per_s / rate)
    best = next((pick.gpu for pick in site.recommendations(model_id) if pick.role == "fastest"), None)
    if best and best != gpu_id and e.runs:
        top = site.pairs[(model_id, best)]
        fastest = Fastest(site.catalog.gpus[best], urls.pair(lang.code, model_id, best), top.quant,
                          top.estimate.decode_tokens_per_s, e.decode_tokens_per_s / top.estimate.decode_tokens_per_s)
    return Insight(
        int(2**30 / kv_per_token) if kv_per_token else None,
        int(e.margin_bytes / kv_per_token) if kv_per_token and fits and e.margin_bytes > 0 else None,
        max(0, e.total_bytes - e.usable_bytes),
        e.total_bytes / e.usable_bytes - 1 if e.usable_bytes and not fits else None,
        dense, spec.active_params / spec.total_params, ceiling, fastest, best == gpu_id)
