"""The home page's finder data (``api/v1/finder.json``): per GPU the models whose recommended setup is at or above
the quality floor and runs, with the pair pages' figures; per model its recommended GPUs and cheapest serving
setups, as the model page shows them; and the memory figures a visitor's own VRAM and RAM are compared with.

Every figure is read from the site data the pages render (never recomputed). Rows are arrays (their columns are
named in the document) to keep the file small enough for a phone."""

from __future__ import annotations

from .. import urls
from ..estimate import fidelity, verdict
from ..estimate.estimator import Verdict
from ..i18n import formatter
from ..sitedata import PAGE_CONTEXT_TOKENS, SiteData
from ..sitedata.policy import FLOOR_GRADES, meets_floor
from ..views.model import serving_row
from .documents import FinderDocument, FinderMultiGpu, FinderPick, FinderRun, FinderServing

_EN = formatter("en")
# A pair is listed when its recommended setup runs at or above the floor.
VERDICTS: tuple[Verdict, ...] = ("fits", "tight", "offload")
RUN_COLUMNS = ("model", "quant", "quality_grade", "verdict", "total_bytes", "decode_tokens_per_s",
               "max_context_tokens", "host_bytes")
MEMORY_QUANTS = ("Q4_K_M", "BF16")  # the model page's summary figures: the floor's usual download, full precision


def shown_speed(tokens_per_s: float) -> float:
    """A speed as the pages show it (three significant digits, ``Formatter.sig``), as a number."""
    return float(_EN.sig(tokens_per_s).replace(",", ""))


def gpu_runs(site: SiteData, gpu_id: str, model_index: dict[str, int],
             quant_index: dict[str, int]) -> list[FinderRun]:
    """The models listed for one GPU: each pair whose recommended setup runs at or above the quality floor."""
    rows: list[FinderRun] = []
    for model_id, index in model_index.items():
        pick = site.pairs[(model_id, gpu_id)]
        e, grade = pick.estimate, fidelity.grade(pick.quant, site.models[model_id].native_format)
        if e.verdict not in VERDICTS or not meets_floor(pick.quant, site.models[model_id].native_format):
            continue
        rows.append((index, quant_index[pick.quant], FLOOR_GRADES.index(grade), VERDICTS.index(e.verdict), e.total_bytes,
                     shown_speed(e.decode_tokens_per_s), e.max_context_tokens or None,
                     e.offload.host_bytes if e.offload else 0))
    return rows


def _picks(site: SiteData, model_id: str, gpu_index: dict[str, int], quant_index: dict[str, int]) -> list[FinderPick]:
    picks: list[FinderPick] = []
    for pick in site.recommendations(model_id):
        if pick.role not in ("fastest", "value", "cloud"):
            continue
        pair = site.pairs[(model_id, pick.gpu)]
        gpu = site.catalog.gpus[pick.gpu]
        offer = pick.offer
        picks.append({"role": pick.role, "gpu": gpu_index[pick.gpu], "quant": quant_index[pair.quant],
                      "decode_tokens_per_s": shown_speed(pair.estimate.decode_tokens_per_s),
                      "below_floor": pick.below_floor,
                      "price_usd": None if offer else gpu.price_usd,  # as the model page shows each pick
                      "price_usd_per_gpu_hour": offer["usd_per_hour"] if offer else None,
                      "offer": f"{offer['provider']}, {offer['instance']}" if offer else None})
    return picks


def _setups(site: SiteData, model_id: str, gpu_index: dict[str, int]) -> list[FinderMultiGpu]:
    """The model page's cheapest rentable multi-GPU setups (where no single GPU holds a precision)."""
    return [{"quant": s["quant"], "gpu": gpu_index[s["multi"]["gpu"].id], "gpu_count": s["multi"]["count"],
             "price_usd_per_hour": s["multi"]["usd_per_hour"]}
            for s in site.cheapest_setups(model_id) if s["multi"] and not s["single"]]


def _serving(site: SiteData, model_id: str, gpu_index: dict[str, int]) -> list[FinderServing]:
    rows = [serving_row(site, choice, model_id, "en") for choice in site.cheapest_serving(model_id)]
    return [{"precision": r.precision, "gpu": gpu_index[r.gpu.id], "gpu_count": r.gpu_count, "engine": r.engine,
             "concurrency": r.concurrency, "tokens_per_s_per_user": shown_speed(r.tokens_per_s_per_user),
             "usd_per_million_output_tokens": r.output_usd_per_mtok, "offer": r.offer_label,
             "price_usd_per_gpu_hour": r.usd_per_gpu_hour} for r in rows]


def finder_document(site: SiteData, version: str) -> FinderDocument:
    """The finder's data: GPUs with the models that run on them, models with where to run them."""
    catalog = site.catalog
    model_ids = sorted(catalog.models, key=lambda m: (catalog.models[m].family, catalog.models[m].total_params, m))
    gpu_ids = sorted(catalog.gpus, key=lambda g: (catalog.gpus[g].vendor, catalog.gpus[g].memory_bytes, g))
    model_index = {m: i for i, m in enumerate(model_ids)}
    gpu_index = {g: i for i, g in enumerate(gpu_ids)}
    quants = sorted({p.quant for p in site.pairs.values()} | set(MEMORY_QUANTS),
                    key=lambda q: (fidelity.figures()[q].kld if q in fidelity.figures() else -1.0, q))
    quant_index = {q: i for i, q in enumerate(quants)}
    return {
        "kind": "finder", "schema_version": version, "schema_path": urls.api_schema("finder"),
        "json_path": urls.FINDER_JSON,
        "description": ("The home page's finder: for each GPU, the models whose recommended setup (as its pair page "
                        "shows it) runs at or above the quality floor (graded good or better, or an unmeasured K- or "
                        "i-quant with at least IQ4_XS's bits per weight); for each model, the "
                        "GPUs and serving setups its model page recommends. Speeds are rounded as the pages show "
                        "them (three significant digits)."),
        "context_tokens": PAGE_CONTEXT_TOKENS,
        "pair_path_template": urls.pair("{language}", "{model}", "{gpu}"),
        "model_path_template": urls.model("{language}", "{model}"), "gpu_path_template": urls.gpu("{language}", "{gpu}"),
        "fit_rule": {"tight_fraction": verdict.TIGHT_FRACTION, "tight_min_bytes": verdict.TIGHT_MIN_BYTES,
                     "fit_target_bytes": verdict.FIT_TARGET_BYTES},
        "quality_grades": list(FLOOR_GRADES), "verdicts": list(VERDICTS),
        "quants": quants, "run_columns": list(RUN_COLUMNS),
        "models": [{"id": m, "name": catalog.models[m].name, "family": catalog.models[m].family,
                    "total_params": catalog.models[m].total_params,
                    "memory_bytes": [site.page_context_requirements(m)[q] for q in MEMORY_QUANTS],
                    "recommended": _picks(site, m, gpu_index, quant_index),
                    "multi_gpu_setups": _setups(site, m, gpu_index),
                    "serving": _serving(site, m, gpu_index)} for m in model_ids],
        "memory_quants": list(MEMORY_QUANTS),
        "memory_quality_grades": [FLOOR_GRADES.index(fidelity.grade(q)) for q in MEMORY_QUANTS],
        "gpus": [{"id": g, "name": catalog.gpus[g].name, "vendor": catalog.gpus[g].vendor,
                  "segment": catalog.gpus[g].segment, "usable_memory_bytes": site.devices[g].usable_memory_bytes,
                  "runs": gpu_runs(site, g, model_index, quant_index)} for g in gpu_ids],
    }
