"""The pair page (one model on one GPU): its view and the sections it is made of."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from functools import partial
from typing import NamedTuple

from markupsafe import Markup

from .. import urls
from ..catalog import freshness
from ..catalog.schema import Gpu, Model
from ..estimate import bands, cost, fidelity, finetune, speed
from ..estimate.estimator import Estimate, ModelSpec, Verdict
from ..estimate.verdict import DEFAULT_HOST_RAM_BYTES, on_gpu_verdict
from ..sitedata import FINETUNE_METHODS, PAGE_CONTEXT_TOKENS, SiteData, matrix_quants
from ..sitedata.policy import READING_TOKENS_PER_S, holds, meets_floor
from . import charts, labels, pair_text
from .common import (
    PROMPT_TOKENS,
    CloudBasis,
    Crumb,
    Head,
    Lang,
    OfferRow,
    RentalCost,
    RentBuyView,
    home,
    latest_read,
    rental_cost,
    rentbuy_view,
    same_gpu_basis,
)
from .insight import Insight, pair_insight
from .launch import CommandRow, pair_commands
from .parts import (
    AboutGpuPart,
    AboutModelPart,
    ArchitecturePart,
    HardwarePart,
    LinkPart,
    OffersPart,
    SourcesPart,
    about_gpu_part,
    about_model_part,
    architecture_part,
    gpu_sources_part,
    hardware_part,
    link_parts,
    model_sources_part,
    offers_part,
)
from .plan import PageKey
from .serving import ServingView, serving_view

FITTING_SHOWN = 6  # largest models that fit, shown where the page's model does not


class SplitPart(NamedTuple):
    key: str
    width: float  # percent of the total


class MatrixRow(NamedTuple):
    quant: str
    est: Estimate
    grade: fidelity.Grade
    at_floor: bool
    pick: bool  # the page's recommended quantization
    best_gpu: Gpu | None
    best_gpu_path: str


class ContextRow(NamedTuple):
    context: int
    kv_f16: int
    total_f16: int
    over_f16: bool
    kv_q8: int
    total_q8: int
    over_q8: bool


class Owned(NamedTuple):
    months: int
    usd_per_hour: float
    usd_per_mtok: float
    joules_per_token: float
    tokens_per_s_per_100_usd: float


class RentVsBuy(NamedTuple):
    price_usd: float
    price_kind: str
    price_date: dt.date | None
    usd_per_kwh: float
    hours_per_month: float
    power_usd_per_month: float
    breakeven_months: float | None
    owned: Owned | None


class FinetuneRow(NamedTuple):
    method: finetune.Method
    est: finetune.FinetuneEstimate
    verdict: Verdict
    grads_optimizer_bytes: int
    suggestion: str | None
    suggestion_path: str | None


class Offload(NamedTuple):
    """What stays in system RAM when the model does not fit, and the system-RAM bandwidth decode assumes."""

    cpu_moe_layers: int
    cpu_layers: int
    gpu_layers: int
    n_layers: int
    host_bytes: int
    expert_bytes: int
    dense_bytes: int
    gpu_bytes: int
    host_gb_per_s: float
    host_read_efficiency: float


class CloudWay(NamedTuple):
    """The cheapest listed way to rent hardware that holds the model at or above the quality floor."""

    gpu: Gpu
    path: str
    gpu_count: int  # GPUs of the instance priced (a multi-GPU setup: the whole instance that holds it)
    quant: str
    provider: str | None
    usd_per_hour: float

    @property
    def multi(self) -> bool:
        """Several GPUs: the price is the whole instance's."""
        return self.gpu_count > 1


class WayForward(NamedTuple):
    """Where this GPU does not hold the model at or above the quality floor: more of the same GPU in one machine,
    the cheapest cloud setup, and offload to system RAM."""

    multi_count: int | None
    multi_quant: str | None
    multi_total_bytes: int | None
    multi_decode_tokens_per_s: float | None
    offload_host_bytes: int | None  # the offload plan's system RAM (the model runs offloaded on a desktop)
    offload_decode_tokens_per_s: float | None
    ram_needed_bytes: int | None  # beyond the GPU's memory, where even a desktop's RAM is too little


class FirstScreen(NamedTuple):
    """What a buyer asks first, beside the verdict and decode speed: the cost per 1M output tokens on the cheapest
    offer and the cheapest way to run the model at all."""

    usd_per_mtok: float | None
    batched: bool  # the cost is the serving section's (vLLM, many users), else llama.cpp for one user
    cheapest: CloudWay | None


class Assumption(NamedTuple):
    key: str
    label: str
    value: str
    english: bool  # the label tables miss the text: it keeps its English words


@dataclass(frozen=True, slots=True)
class PairView:
    """The model-on-GPU report."""

    head: Head
    model: Model
    gpu: Gpu
    spec: ModelSpec
    headline: Estimate
    quant: str
    context: int
    prompt_tokens: int
    quant_grade: fidelity.Grade
    quant_at_floor: bool
    kv_type: str
    device_memory_bytes: int
    margin_ratio: float
    utilisation: float
    offloaded_bytes: int
    verdict_reason: Markup
    quality_warning: Markup | None
    weights_note: Markup
    split: tuple[SplitPart, ...]
    matrix: tuple[MatrixRow, ...]
    batched_sequences: int | None  # sequences the batched figure runs at once; None where fewer than two fit
    context_rows: tuple[ContextRow, ...]
    context_chart: Markup
    max_context_f16: int
    max_context_q8: int
    context_note: Markup
    kv_note: Markup | None
    offers: OffersPart
    cost: RentalCost | None
    rent_vs_buy: RentVsBuy | None
    rentbuy: RentBuyView
    finetune: tuple[FinetuneRow, ...]
    finetune_note: Markup
    serving: ServingView | None
    first_screen: FirstScreen
    way_forward: WayForward | None
    desktop_ram_bytes: int  # the system RAM offload estimates assume
    cost_note: Markup | None  # why the cost section shows offers but no cost per token
    commands: tuple[CommandRow, ...]
    no_command_note: Markup | None
    offload: Offload | None
    recommended: HardwarePart
    architecture: ArchitecturePart
    about_model: AboutModelPart
    about_gpu: AboutGpuPart
    model_sources: SourcesPart
    gpu_sources: SourcesPart
    insight: Insight
    assumptions: tuple[Assumption, ...]
    error_band: bands.ErrorBand
    other_gpus: tuple[LinkPart, ...]
    other_models: tuple[LinkPart, ...]
    largest_here: tuple[LinkPart, ...]
    instead: tuple[LinkPart, ...]  # models that fit, shown where this one does not
    compare_path: str
    faq_can_run: Markup
    faq_speed: Markup
    faq_context: Markup


def _split(e: Estimate) -> tuple[SplitPart, ...]:
    total = e.total_bytes or 1
    parts = (("weights", e.weights_bytes), ("kv", e.kv_cache_bytes), ("runtime", e.runtime_overhead_bytes))
    return tuple(SplitPart(key, round(100 * size / total, 2)) for key, size in parts)


def related_pairs(site: SiteData, model_id: str, gpu_id: str) -> dict[str, list[tuple[str, str]]]:
    """This model on other GPUs (similar memory first), other models on this GPU (similar size first) and the
    largest models that fit on this GPU, as (model, GPU) pairs."""
    return {
        "other_gpus": [(model_id, g) for g in site.similar_gpus[gpu_id]],
        "other_models": [(m, gpu_id) for m in site.similar_models[model_id]],
        "largest_here": [(m, gpu_id) for m in site.largest_fitting(gpu_id, FITTING_SHOWN + 1) if m != model_id][:FITTING_SHOWN],
    }


def _matrix(site: SiteData, model_id: str, gpu_id: str) -> tuple[tuple[MatrixRow, str], ...]:
    """Each quant of the pair's matrix in every language: a ``MatrixRow`` without its link, then the id of the GPU
    the link names ("" for none)."""
    spec, pick = site.models[model_id], site.pairs[(model_id, gpu_id)]
    rows = []
    for q in matrix_quants(spec):
        grade, best = fidelity.grade(q, spec.native_format), site.best_gpu(model_id, q)
        rows.append((MatrixRow(q, site.quant_estimate(model_id, gpu_id, q), grade, meets_floor(q, spec.native_format),
                               q == pick.quant, site.catalog.gpus.get(best or ""), ""), best or ""))
    return tuple(rows)


def _context(site: SiteData, model_id: str, gpu_id: str, lang: Lang) -> tuple[tuple[ContextRow, ...], Markup]:
    sweep = site.context_sweep(model_id, gpu_id)
    usable = sweep.usable_bytes
    rows = tuple(ContextRow(context, kv_f16, total_f16, total_f16 > usable, kv_q8, total_q8, total_q8 > usable)
                 for context, kv_f16, total_f16, kv_q8, total_q8 in sweep.rows)
    _ = lang.gettext
    chart = charts.line_chart(
        _("Memory against context length"), tuple(lang.fmt.tokens(r.context) for r in rows),
        (charts.Series("c-f16", _("KV cache f16"), tuple(r.total_f16 / 2**30 for r in rows)),
         charts.Series("c-q8", _("KV cache q8_0"), tuple(r.total_q8 / 2**30 for r in rows))),
        site.devices[gpu_id].usable_memory_bytes / 2**30, _("usable memory"), "GiB", lambda v: lang.fmt.number(v, 0))
    return rows, chart


def _finetune_rows(site: SiteData, model_id: str, gpu_id: str, lang: Lang) -> tuple[FinetuneRow, ...]:
    return tuple(row._replace(suggestion_path=urls.gpu(lang.code, suggested) if suggested else None)
                 for row, suggested in lang.in_every_language(("finetune", model_id, gpu_id),
                                                               lambda: _finetune(site, model_id, gpu_id)))


def _finetune(site: SiteData, model_id: str, gpu_id: str) -> tuple[tuple[FinetuneRow, str | None], ...]:
    """Each fine-tuning method on the pair's GPU in every language: a ``FinetuneRow`` without its link, then the id
    of the GPU it suggests (None for none)."""
    device = site.devices[gpu_id]
    rows = []
    for method in FINETUNE_METHODS:
        est = site.finetune(model_id, method)
        verdict = on_gpu_verdict(est.total_bytes, device.usable_memory_bytes) or "no_fit"
        suggestion = site.finetune_gpu(model_id, method)
        rows.append((FinetuneRow(method, est, verdict, est.gradients_bytes + est.optimizer_bytes,
                                 suggestion[1] if suggestion else None, None), suggestion[0] if suggestion else None))
    return tuple(rows)


def assumption_rows(estimate: Estimate, lang: Lang) -> tuple[Assumption, ...]:
    """The estimator's assumptions with translated labels; a text the label tables miss keeps its English words."""
    # Nearly every pair has its own list (GPU and model figures), but the items recur: translate each once.
    return tuple(lang.shared(("assumption", key, value), partial(_assumption_row, key, value, lang))
                 for key, value in estimate.assumptions)


def _assumption_row(key: str, value: str, lang: Lang) -> Assumption:
    text, translated = labels.localise(value, lang.gettext, lang.fmt.number(0.5, 1)[1])
    return Assumption(key, lang.gettext(labels.ASSUMPTION[key]) if key in labels.ASSUMPTION else key, text,
                      not translated and lang.code != "en")


def _owned(price_usd: float, tdp_w: float, e: Estimate) -> Owned:
    """Own the GPU for three years at full load: cost per hour and per 1M tokens, energy and speed per dollar."""
    owned = cost.owned_cost(price_usd, tdp_w)
    return Owned(cost.DEFAULT_AMORTISATION_MONTHS, owned.usd_per_hour,
                 cost.usd_per_million_tokens(e.decode_tokens_per_s, owned.usd_per_hour),
                 tdp_w / e.decode_tokens_per_s, e.decode_tokens_per_s * 100 / price_usd)


def _rent_vs_buy(gpu: Gpu, calc: RentBuyView, e: Estimate) -> RentVsBuy | None:
    """The calculator's figures at its defaults, for the open data (where both a price and a TDP are catalogued)."""
    if calc.price_usd is None or calc.price_kind is None or not gpu.tdp_w:
        return None
    result = calc.result
    return RentVsBuy(calc.price_usd, calc.price_kind, calc.price_date, calc.usd_per_kwh, result.hours_per_month,
                     result.power_usd_per_month, result.breakeven_months,
                     _owned(calc.price_usd, gpu.tdp_w, e) if e.runs else None)


def _rentbuy(site: SiteData, model_id: str, gpu: Gpu, offers: tuple[OfferRow, ...], e: Estimate) -> RentBuyView:
    """The calculator against this GPU's cheapest offer, or, where it is not rented, against the cloud GPU that makes
    this model's tokens cheapest (renting as many tokens as the owned GPU makes in an hour)."""
    single = e.decode_tokens_per_s if e.runs and e.decode_tokens_per_s > 0 else None
    batched = max(e.batched_tokens_per_s or 0.0, e.decode_tokens_per_s) if single else None
    cloud = same_gpu_basis(offers, single, batched, gpu.name)
    if cloud is None:
        pick = site.cheapest_cloud[model_id]
        if pick is not None:
            per_gpu = pick.usd_per_gpu_hour
            cloud = CloudBasis(f"{pick.provider}, {pick.instance}", pick.gpu_name, False, per_gpu,
                               pick.single_usd_per_mtok, cost.usd_per_million_tokens(pick.batched_tokens_per_s, per_gpu),
                               cost.rent_equivalent_usd_per_hour(per_gpu, pick.single_tokens_per_s, single)
                               if single else None, _stale(site, pick.checked))
    return rentbuy_view(gpu, cloud, single, batched)


def _rentbuy_and_owned(site: SiteData, model_id: str, gpu: Gpu, offers: tuple[OfferRow, ...],
                       e: Estimate) -> tuple[RentBuyView, RentVsBuy | None]:
    rentbuy = _rentbuy(site, model_id, gpu, offers, e)
    return rentbuy, _rent_vs_buy(gpu, rentbuy, e)


def _stale(site: SiteData, checked: dt.date) -> bool:
    """Whether a price checked on ``checked`` is older than the pages call fresh, on the build's reference date."""
    as_of = site.price_reference_date
    return freshness.is_stale(freshness.age_days(checked, as_of)) if as_of else False


def _offload(e: Estimate) -> Offload | None:
    plan = e.offload
    if plan is None:
        return None
    return Offload(plan.cpu_moe_layers, plan.n_layers - plan.gpu_layers, plan.gpu_layers, plan.n_layers,
                   plan.host_bytes, plan.host_expert_bytes, plan.host_dense_bytes, plan.gpu_bytes,
                   speed.DEFAULT_HOST_BANDWIDTH_BYTES_PER_S / 1e9, speed.HOST_READ_EFFICIENCY)


def cheapest_way(site: SiteData, model_id: str, language: str) -> CloudWay | None:
    """The cheapest listed rental that holds the model at or above the quality floor with margin: the cheapest
    single GPU per hour (the model page's cloud pick), else the cheapest whole instance of several."""
    for pick in site.recommendations(model_id):
        if pick.role == "cloud" and not pick.below_floor:
            gpu = site.catalog.gpus[pick.gpu]
            offer = pick.offer
            assert offer is not None  # a cloud pick names its offer
            return CloudWay(gpu, urls.pair(language, model_id, gpu.id), 1, site.pairs[(model_id, gpu.id)].quant,
                            offer["provider"], offer["usd_per_hour"])
    quant = "MXFP4_MOE" if site.models[model_id].native_format == "mxfp4" else "Q4_K_M"
    for row in site.cheapest_setups(model_id):
        multi = row["multi"]
        if row["quant"] == "Q4_K_M" and multi:
            return CloudWay(multi["gpu"], urls.gpu(language, multi["gpu"].id), multi["count"], quant, None,
                            multi["usd_per_hour"])
    return None


def _way_forward(site: SiteData, model_id: str, gpu_id: str, e: Estimate, native: str) -> WayForward | None:
    pick = site.pairs[(model_id, gpu_id)]
    if holds(pick, native):
        return None
    multi = site.multi_gpu(model_id, gpu_id)
    offload = e.offload if e.verdict == "offload" else None
    return WayForward(multi.gpu_count if multi else None, multi.quant if multi else None,
                      multi.total_bytes if multi else None, multi.decode_tokens_per_s if multi else None,
                      offload.host_bytes if offload else None, e.decode_tokens_per_s if offload else None,
                      max(0, e.total_bytes - e.usable_bytes) if e.verdict == "no_fit" else None)


def pair_view(site: SiteData, key: PageKey, lang: Lang) -> PairView:
    _ = lang.gettext
    model, gpu = site.catalog.models[key.model], site.catalog.gpus[key.gpu]
    spec, device = site.models[key.model], site.devices[key.gpu]
    pick = site.pairs[(key.model, key.gpu)]
    e, quant = pick.estimate, pick.quant
    grade = fidelity.grade(quant, spec.native_format)
    at_floor = meets_floor(quant, spec.native_format)  # unmeasured K-/i-quants by bits (policy.meets_floor)
    margin_ratio = e.margin_bytes / e.usable_bytes if e.usable_bytes else 0.0
    offloaded = max(0, e.total_bytes - e.usable_bytes)
    matrix = tuple(row._replace(best_gpu_path=urls.pair(lang.code, key.model, best))
                   for row, best in lang.in_every_language(("matrix", key.model, key.gpu),
                                                            lambda: _matrix(site, key.model, key.gpu)))
    # A quant below the floor that the GPU would hold alone, where the pick offloads at the floor (policy.recommend).
    alone = next((row for row in matrix if not row.at_floor and row.est.verdict in ("fits", "tight")),
                 None) if e.verdict == "offload" and at_floor else None
    fits_alone = (alone.quant, _(labels.QUALITY[alone.grade])) if alone else None
    # A better quant at the floor that fits too but decodes slower than people read, which the pick, at the floor
    # and keeping up, passed over (policy.recommend's reading-speed pass).
    pick_row = next((i for i, row in enumerate(matrix) if row.pick), 0)
    slower = [row for row in matrix[:pick_row] if row.at_floor and row.est.verdict in ("fits", "tight")
              and row.est.decode_tokens_per_s < READING_TOKENS_PER_S]
    slower_fit = ((slower[0].quant, lang.fmt.sig(slower[0].est.decode_tokens_per_s))
                  if slower and at_floor and e.decode_tokens_per_s >= READING_TOKENS_PER_S else None)
    band = site.error_band(gpu.backends[0], bands.architecture_class(spec.architecture),
                           bands.generation(gpu.backends[0], gpu.segment))
    context_rows, context_chart = _context(site, key.model, key.gpu, lang)
    sweep = site.context_sweep(key.model, key.gpu)
    offers = offers_part(site, gpu.id, lang)
    insight = pair_insight(site, key.model, key.gpu, e, lang)
    context_note, kv_note, faq_context = pair_text.context_notes(e, quant, sweep.max_context_f16, sweep.max_context_q8, model,
                                                        insight, lang)
    command_rows = pair_commands(site, key, lang)
    if e.runs:
        no_command = None
    elif command_rows:
        no_command = lang._("%(model)s does not run on one %(gpu)s with llama.cpp or Ollama, so there is no command "
                               "for them.", model=model.name, gpu=gpu.name)
    else:
        no_command = lang._("No command: no catalogued setup of %(model)s fits one %(gpu)s, or eight with vLLM.",
                               model=model.name, gpu=gpu.name)
    serving = serving_view(site, key, lang, offers.offers, e, quant)
    rental = rental_cost(offers.offers, e)
    if serving and serving.cost:
        first = FirstScreen(serving.cost.output_usd_per_mtok, True, cheapest_way(site, key.model, lang.code))
    else:
        first = FirstScreen(rental.single_usd_per_mtok if rental else None, False,
                            cheapest_way(site, key.model, lang.code))
    cost_note = None
    if rental is None and offers.offers:
        cost_note = lang._("%(model)s does not run on %(gpu)s, so there is no cost per token here; the cloud offers "
                           "for this GPU are listed below, for the multi-GPU setups that hold it.",
                           model=model.name, gpu=gpu.name)
    related = related_pairs(site, key.model, key.gpu)
    # The calculator's figures are the same in every language: made once for both.
    rentbuy, rent_vs_buy = lang.in_every_language(
        ("rentbuy", key.model, key.gpu), lambda: _rentbuy_and_owned(site, key.model, gpu, offers.offers, e))
    largest_here = link_parts(site, lang, related["largest_here"], "model")
    finetune_rows = _finetune_rows(site, key.model, key.gpu, lang)
    return PairView(
        head=Head(pair_text.pair_title(model, gpu, quant, e, lang), pair_text.pair_description(model, gpu, quant, e, lang),
                  (home(lang), Crumb(model.name, urls.model(lang.code, model.id)),
                   Crumb(gpu.name, urls.pair(lang.code, model.id, gpu.id))), latest_read(model, gpu)),
        model=model, gpu=gpu, spec=spec, headline=e, quant=quant, context=PAGE_CONTEXT_TOKENS,
        prompt_tokens=PROMPT_TOKENS, quant_grade=grade, quant_at_floor=at_floor, kv_type="f16",
        device_memory_bytes=device.memory_bytes, margin_ratio=margin_ratio,
        utilisation=e.total_bytes / e.usable_bytes if e.usable_bytes else 0.0, offloaded_bytes=offloaded,
        verdict_reason=pair_text.verdict_reason(e, quant, margin_ratio, offloaded, insight, lang, fits_alone,
                                                slower_fit),
        quality_warning=lang._(
            "Quality: %(grade)s. No quantization graded good or better (Q4_K_M, IQ4_XS and up) fits this GPU or runs "
            "with system-RAM offload at reading speed (%(reading)s tok/s), so %(quant)s is the best that does.",
            grade=_(labels.QUALITY[grade]), quant=quant, reading=lang.fmt.sig(READING_TOKENS_PER_S, 2))
        if e.runs and not at_floor else None,
        weights_note=lang._("Weights: the published GGUF file size.") if e.weights_source == "measured" else
        lang._("Weights: computed tensor by tensor from the architecture and llama.cpp's quantization recipe."),
        split=_split(e), matrix=matrix,
        batched_sequences=e.max_sequences if e.max_sequences and e.max_sequences >= 2 else None,
        context_rows=context_rows, context_chart=context_chart, max_context_f16=sweep.max_context_f16,
        max_context_q8=sweep.max_context_q8, context_note=context_note, kv_note=kv_note,
        offers=offers, cost=rental, rent_vs_buy=rent_vs_buy, rentbuy=rentbuy,
        finetune=finetune_rows,
        finetune_note=pair_text.finetune_note(lang, finetune_rows[0].est.seq_len),
        serving=serving, first_screen=first, way_forward=_way_forward(site, key.model, key.gpu, e, spec.native_format),
        desktop_ram_bytes=DEFAULT_HOST_RAM_BYTES, cost_note=cost_note, commands=command_rows, no_command_note=no_command,
        offload=_offload(e),
        # Parts shared by every pair page of a model or a GPU (their HTML is cached too: see cached() in render.py).
        recommended=hardware_part(site, model.id, lang), architecture=architecture_part(site, model.id, lang),
        about_model=about_model_part(site, model.id, lang), about_gpu=about_gpu_part(site, gpu.id, lang),
        model_sources=model_sources_part(site, model.id, lang), gpu_sources=gpu_sources_part(site, gpu.id, lang),
        insight=insight, assumptions=assumption_rows(e, lang),
        error_band=band if e.verdict != "offload" else bands.offload_band(band),
        other_gpus=link_parts(site, lang, related["other_gpus"], "gpu"),
        other_models=link_parts(site, lang, related["other_models"], "model"),
        largest_here=largest_here, instead=largest_here if e.verdict in ("offload", "no_fit") else (),
        compare_path=urls.compare(lang.code, model.id),
        faq_can_run=pair_text.faq_can_run(e, quant, offloaded, lang), faq_speed=pair_text.faq_speed(e, lang),
        faq_context=faq_context,
    )

