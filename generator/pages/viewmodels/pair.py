"""The pair page (one model on one GPU): its view and the sections it is made of."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Any, NamedTuple

from markupsafe import Markup

from ... import urls
from ...catalog.schema import Gpu, Model
from ...estimate import bands, cost, fidelity, finetune, serving, speed
from ...estimate.api import Estimate, ModelSpec, Request
from ...estimate.cost import HOURS_PER_MONTH
from ...estimate.fit import on_gpu_verdict
from ...results import FINETUNE_METHODS, FINETUNE_SEQ_LEN, PAGE_CONTEXT_TOKENS, Results, matrix_quants
from .. import charts, commands, labels
from ..plan import PageKey
from .common import (Crumb, Head, Lang, OfferRow, RentalCost, home, latest_read, offer_label, offer_rows,
                     purchase_price, rental_cost)
from .parts import (AboutGpuPart, AboutModelPart, ArchitecturePart, HardwarePart, LinkPart, OffersPart, SourcesPart,
                    about_gpu_part, about_model_part, architecture_part, gpu_sources_part, hardware_part, link_parts,
                    model_sources_part, offers_part)

FITTING_SHOWN = 6  # largest models that fit, shown where the page's model does not
PROMPT_TOKENS = Request().prompt_tokens  # the prompt the time to first token is estimated for
SERVING_TABLE_LEVELS = (1, 8, 32, 128, 512)


class SplitPart(NamedTuple):
    key: str
    width: float  # percent of the total


class MatrixRow(NamedTuple):
    quant: str
    est: Estimate
    grade: str
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
    method: str
    est: finetune.FinetuneEstimate
    verdict: str
    seq_len: int
    grads_optimizer_bytes: int
    suggestion: str | None
    suggestion_path: str | None


class ServingRow(NamedTuple):
    concurrency: int
    output_tokens_per_s_per_gpu: float
    total_tokens_per_s_per_gpu: float
    tokens_per_s_per_user: float
    ttft_s: float
    pick: bool  # the recommended operating point


class ServingCost(NamedTuple):
    usd_per_gpu_hour: float
    offer_label: str
    output_usd_per_mtok: float
    input_usd_per_mtok: float
    prefill_share: float


class ServingView(NamedTuple):
    """Batched serving with vLLM: the throughput/per-user curve, a table, the operating point and its cost."""

    plan: Any
    chart: Markup
    rows: tuple[ServingRow, ...]
    operating: Any
    concurrency: int  # the operating point's, else the KV cache's maximum
    context_tokens: int  # prompt and output of one request
    operating_note: Markup
    cost: ServingCost | None
    floor: float


class CommandRow(NamedTuple):
    engine: str
    text: str
    remark: str | None
    serves: str | None
    size_bytes: int | None
    skipped: str
    setup: Any  # the vLLM setup its note describes, if any
    serving: bool  # serves the serving section's operating point
    multi_gpu: bool  # the setup needs more than one GPU
    note: Markup | None


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
    quant_grade: str
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
    sequences_8k: int
    context_rows: tuple[ContextRow, ...]
    context_chart: Markup
    max_context_f16: int
    max_context_q8: int
    context_note: Markup
    kv_note: Markup | None
    offers: OffersPart
    cost: RentalCost | None
    rent_vs_buy: RentVsBuy | None
    finetune: tuple[FinetuneRow, ...]
    finetune_note: Markup
    serving: ServingView | None
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


def related_pairs(results: Results, model_id: str, gpu_id: str) -> dict[str, list[tuple[str, str]]]:
    """This model on other GPUs (similar memory first), other models on this GPU (similar size first) and the
    largest models that fit on this GPU, as (model, GPU) pairs."""
    return {
        "other_gpus": [(model_id, g) for g in results.similar_gpus[gpu_id]],
        "other_models": [(m, gpu_id) for m in results.similar_models[model_id]],
        "largest_here": [(m, gpu_id) for m in results.largest_fitting(gpu_id, FITTING_SHOWN + 1) if m != model_id][:FITTING_SHOWN],
    }


def related_ids(results: Results, model_id: str, gpu_id: str) -> list[tuple[str, str]]:
    """Every pair the related links of a pair page show (what its page digest depends on)."""
    return [pair for pairs in related_pairs(results, model_id, gpu_id).values() for pair in pairs]


def _context(results: Results, model_id: str, gpu_id: str, lang: Lang) -> tuple[tuple[ContextRow, ...], Markup]:
    sweep = results.context_sweep(model_id, gpu_id)
    usable = sweep.usable_bytes
    rows = tuple(ContextRow(context, kv_f16, total_f16, total_f16 > usable, kv_q8, total_q8, total_q8 > usable)
                 for context, kv_f16, total_f16, kv_q8, total_q8 in sweep.rows)
    _ = lang.gettext
    chart = charts.line_chart(
        _("Memory against context length"), tuple(lang.fmt.tokens(r.context) for r in rows),
        (charts.Series("c-f16", _("KV cache f16"), tuple(r.total_f16 / 2**30 for r in rows)),
         charts.Series("c-q8", _("KV cache q8_0"), tuple(r.total_q8 / 2**30 for r in rows))),
        results.devices[gpu_id].usable_memory_bytes / 2**30, _("usable memory"), "GiB", lambda v: lang.fmt.number(v, 0))
    return rows, chart


def _finetune_rows(results: Results, model_id: str, gpu_id: str, language: str) -> tuple[FinetuneRow, ...]:
    device = results.devices[gpu_id]
    rows = []
    for method in FINETUNE_METHODS:
        est = results.finetune(model_id, method)
        verdict = on_gpu_verdict(est.total_bytes, device.usable_memory_bytes) or "no_fit"
        suggestion = results.finetune_gpu(model_id, method)
        rows.append(FinetuneRow(method, est, verdict, FINETUNE_SEQ_LEN, est.gradients_bytes + est.optimizer_bytes,
                                suggestion[1] if suggestion else None,
                                urls.gpu(language, suggestion[0]) if suggestion else None))
    return tuple(rows)


def _finetune_note(lang: Lang) -> Markup:
    """The fine-tuning setup in words, from the estimator's own defaults."""
    return lang._("Sequence length %(seq)s, micro-batch %(batch)s, gradient checkpointing, LoRA rank %(rank)s on "
                     "the attention and dense or shared MLP projections (routed experts excluded); full fine-tuning "
                     "uses mixed-precision AdamW (%(bytes)s bytes per parameter).",
                     seq=lang.fmt.number(FINETUNE_SEQ_LEN), batch=lang.fmt.number(finetune.MICRO_BATCH),
                     rank=lang.fmt.number(finetune.LORA_RANK), bytes=lang.fmt.number(finetune.full_bytes_per_param()))


def assumption_rows(estimate: Estimate, lang: Lang) -> tuple[Assumption, ...]:
    """The estimator's assumptions with translated labels; a text the label tables miss keeps its English words."""
    # Nearly every pair has its own list (GPU and model figures), but the items recur: translate each once.
    return tuple(lang.shared(("assumption", key, value), lambda: _assumption_row(key, value, lang))
                 for key, value in estimate.assumptions)


def _assumption_row(key: str, value: str, lang: Lang) -> Assumption:
    text, translated = labels.localise(value, lang.gettext, lang.fmt.number(0.5, 1)[1])
    return Assumption(key, lang.gettext(labels.ASSUMPTION[key]) if key in labels.ASSUMPTION else key, text,
                      not translated and lang.code != "en")


def pair_insight(results: Results, model_id: str, gpu_id: str, e: Estimate, lang: Lang) -> Insight:
    spec, device = results.models[model_id], results.devices[gpu_id]
    kv_per_token = results.kv_per_1k(model_id) / 1024
    fits = e.verdict in ("fits", "tight")
    dense = spec.active_params >= spec.total_params
    ceiling = fastest = None
    if fits and dense and device.count == 1 and e.weights_bytes:
        rate = device.bandwidth_bytes_per_s / e.weights_bytes
        ceiling = Ceiling(1000 / rate, rate, e.decode_tokens_per_s / rate)
    best = next((pick.gpu for pick in results.recommendations(model_id) if pick.role == "fastest"), None)
    if best and best != gpu_id and e.runs:
        top = results.pairs[(model_id, best)]
        fastest = Fastest(results.catalog.gpus[best], urls.pair(lang.code, model_id, best), top.quant,
                          top.estimate.decode_tokens_per_s, e.decode_tokens_per_s / top.estimate.decode_tokens_per_s)
    return Insight(
        int(2**30 / kv_per_token) if kv_per_token else None,
        int(e.margin_bytes / kv_per_token) if kv_per_token and fits and e.margin_bytes > 0 else None,
        max(0, e.total_bytes - e.usable_bytes),
        e.total_bytes / e.usable_bytes - 1 if e.usable_bytes and not fits else None,
        dense, spec.active_params / spec.total_params, ceiling, fastest, best == gpu_id)


def _owned(price_usd: float, tdp_w: float, e: Estimate) -> Owned:
    """Own the GPU for three years at full load: cost per hour and per 1M tokens, energy and speed per dollar."""
    owned = cost.owned_cost(price_usd, tdp_w)
    return Owned(cost.DEFAULT_AMORTISATION_MONTHS, owned.usd_per_hour,
                 cost.usd_per_million_tokens(e.decode_tokens_per_s, owned.usd_per_hour),
                 tdp_w / e.decode_tokens_per_s, e.decode_tokens_per_s * 100 / price_usd)


def _rent_vs_buy(gpu: Gpu, offers: tuple[OfferRow, ...], e: Estimate) -> RentVsBuy | None:
    purchase = purchase_price(gpu)
    if not (purchase and gpu.tdp_w):
        return None
    price, kind, date = purchase
    rent = offers[0].usd_per_gpu_hour if offers else None
    return RentVsBuy(price, kind, date, cost.DEFAULT_USD_PER_KWH, HOURS_PER_MONTH,
                     cost.power_usd_per_hour(gpu.tdp_w) * HOURS_PER_MONTH,
                     cost.break_even_months(price, rent, gpu.tdp_w) if rent else None,
                     _owned(price, gpu.tdp_w, e) if e.runs else None)


def _offload(e: Estimate) -> Offload | None:
    plan = e.offload
    if plan is None:
        return None
    return Offload(plan.cpu_moe_layers, plan.n_layers - plan.gpu_layers, plan.gpu_layers, plan.n_layers,
                   plan.host_bytes, plan.host_expert_bytes, plan.host_dense_bytes, plan.gpu_bytes,
                   speed.DEFAULT_HOST_BANDWIDTH_BYTES_PER_S / 1e9)


def _command_note(remark: str | None, quant: str, serves: str | None, lang: Lang) -> Markup | None:
    """What a launch command's remark means, in words."""
    if remark == "built":
        return lang._("No GGUF repository in our catalogue publishes %(quant)s of this model, so the command builds "
                         "it from the original checkpoint with llama.cpp's converter and quantizer (run from a llama.cpp "
                         "checkout).", quant=quant)
    if remark == "built_imatrix":
        return lang._("No GGUF repository in our catalogue publishes %(quant)s of this model, so the command builds "
                         "it from the original checkpoint; %(quant)s needs an importance matrix, computed from a text "
                         "file of your choice (calibration.txt).", quant=quant)
    if remark == "ollama_smaller_quant":
        return lang._("No published %(quant)s file that Ollama can pull is in our catalogue; this command loads the "
                         "smaller %(served)s instead.", quant=quant, served=serves)
    if remark == "ollama_other_quant":
        return lang._("This Ollama tag ships %(served)s, not the %(quant)s recommended here.", served=serves,
                         quant=quant)
    if remark == "ollama_quant_unknown":
        return lang._("Our catalogue does not record which quantization this Ollama tag ships.")
    if remark == "serving":
        return lang._("vLLM serves the original checkpoint from Hugging Face at the serving section's precision "
                         "and operating point.")
    if remark == "sglang_serving":
        return lang._("SGLang with the same checkpoint, precision, tensor parallel size, request length and "
                         "concurrent requests; the serving section's figures are estimated for vLLM, and SGLang sets "
                         "aside its own share of memory (mem_fraction_static), so its KV cache holds a different "
                         "number of requests.")
    if remark == "vllm_none_fits":
        return lang._("No catalogued checkpoint of this model fits vLLM on up to eight of these GPUs at %(ctx)s "
                         "context.", ctx=lang.fmt.tokens(PAGE_CONTEXT_TOKENS))
    return None


def pair_commands(results: Results, key: PageKey, quant: str, estimate: Estimate, lang: Lang) -> tuple[CommandRow, ...]:
    """llama.cpp, vLLM, SGLang (where the page has a serving plan) and Ollama commands for the page's recommended
    setup (vLLM and SGLang alone where it does not run: their commands may need several GPUs)."""
    model, gpu = results.catalog.models[key.model], results.catalog.gpus[key.gpu]
    setup, (runnable, skipped) = results.vllm_setup(key.model, key.gpu), results.vllm_checkpoints(key.model, key.gpu)
    plan = results.serving(key.model, key.gpu)[0]
    vllm = (commands.vllm_serving(model, gpu, plan, results.vllm_utilisation) if plan else
            commands.vllm(setup, gpu, PAGE_CONTEXT_TOKENS, "f16", results.vllm_utilisation, skipped, bool(runnable)))
    if not estimate.runs and setup is None and plan is None and not skipped:
        return ()  # nothing runs: the page says so in one sentence
    found = [vllm, commands.sglang_serving(model, gpu, plan) if plan else None]
    if estimate.runs:  # no llama.cpp or Ollama command for a setup that does not run
        found = [commands.llama_cpp(model, quant, estimate, PAGE_CONTEXT_TOKENS, "f16"), *found,
                 commands.ollama(model, quant, estimate.file_size_bytes, PAGE_CONTEXT_TOKENS, "f16")]
    rows = []
    for c in found:
        if c is None:
            continue
        shown = setup if c.engine.startswith("vLLM") and c.remark != "serving" else None
        rows.append(CommandRow(c.engine, c.text, c.remark, c.serves, c.size_bytes, ", ".join(c.skipped), shown,
                               c.remark in ("serving", "sglang_serving"), bool(shown and shown.gpu_count > 1),
                               _command_note(c.remark, quant, c.serves, lang)))
    return tuple(rows)


def serving_view(results: Results, key: PageKey, lang: Lang, offers: tuple[OfferRow, ...]) -> ServingView | None:
    plan = results.serving(key.model, key.gpu)[0]
    if plan is None:
        return None
    _, fmt = lang.gettext, lang.fmt
    op = plan.operating
    floor = serving.MIN_USER_TOKENS_PER_S
    chart = charts.curve_chart(
        _("Throughput per GPU against speed per user"),
        tuple((p.tokens_per_s_per_user, p.output_tokens_per_s_per_gpu) for p in plan.points),
        (op.tokens_per_s_per_user, op.output_tokens_per_s_per_gpu) if op else None,
        floor, _("output tok/s per user"), _("output tok/s per GPU"),
        _("%(n)s tok/s per user") % {"n": fmt.number(floor, 0)}, lambda v: fmt.number(v, 0))
    points = [p for p in plan.points if p.concurrency in SERVING_TABLE_LEVELS or p is plan.points[-1]]
    if op is not None and all(p.concurrency != op.concurrency for p in points):
        points = sorted([*points, op], key=lambda p: p.concurrency)
    rows = tuple(ServingRow(p.concurrency, p.output_tokens_per_s_per_gpu, p.total_tokens_per_s_per_gpu,
                            p.tokens_per_s_per_user, p.ttft_s, op is not None and p.concurrency == op.concurrency)
                 for p in points)
    price = None
    if offers and op is not None:
        per_gpu = offers[0].usd_per_gpu_hour
        priced = cost.serving_price(op, per_gpu)
        price = ServingCost(per_gpu, offer_label(offers[0]), priced.output_usd_per_mtok, priced.input_usd_per_mtok,
                            op.prefill_share)
    if op:
        note = lang._(
            "Recommended operating point: %(c)s concurrent requests, %(tput)s output tok/s per GPU at %(user)s tok/s "
            "per user. It is the highest throughput that still gives every user at least %(floor)s tok/s, faster than "
            "people read; more requests would raise throughput only by slowing every answer below that.",
            c=fmt.number(op.concurrency), tput=fmt.sig(op.output_tokens_per_s_per_gpu),
            user=fmt.sig(op.tokens_per_s_per_user), floor=fmt.number(floor))
    else:
        note = lang._("Even a single request gets less than %(floor)s tok/s on this setup, so we recommend no "
                         "operating point.", floor=fmt.number(floor))
    return ServingView(plan, chart, rows, op, op.concurrency if op else plan.max_concurrency,
                       plan.prompt_tokens + plan.output_tokens, note, price, floor)


def _verdict_reason(e: Estimate, quant: str, margin_ratio: float, offloaded: int, insight: Insight, lang: Lang) -> Markup:
    """Why the verdict is what it is, in one or two sentences."""
    fmt = lang.fmt
    need, usable, ctx = fmt.gib(e.total_bytes), fmt.gib(e.usable_bytes), fmt.tokens(PAGE_CONTEXT_TOKENS)
    if e.verdict == "fits":
        text = lang._("%(quant)s weights, an %(ctx)s context and the runtime need %(need)s of the %(usable)s this "
                         "GPU offers, leaving %(margin)s (%(pct)s) free.", quant=quant, ctx=ctx, need=need,
                         usable=usable, margin=fmt.gib(e.margin_bytes), pct=fmt.percent(margin_ratio))
    elif e.verdict == "tight":
        text = lang._("%(quant)s at %(ctx)s context fits, but only %(margin)s (%(pct)s) stays free: a longer "
                         "context or a second sequence will not fit.", quant=quant, ctx=ctx,
                         margin=fmt.gib(e.margin_bytes), pct=fmt.percent(margin_ratio))
    elif e.verdict == "offload":
        text = lang._("Even at %(quant)s the model needs %(need)s but the GPU offers %(usable)s: %(offloaded)s stay "
                         "in system RAM and slow decoding.", quant=quant, need=need, usable=usable,
                         offloaded=fmt.gib(offloaded))
    else:
        text = lang._("Even at %(quant)s the model needs %(need)s; this GPU offers %(usable)s, too little even with "
                         "system-RAM offload.", quant=quant, need=need, usable=usable)
    if not e.runs and insight.shortfall_bytes:
        text += Markup(" ") + lang._("The setup is %(short)s (%(pct)s) larger than the usable memory.",
                                        short=fmt.gib(insight.shortfall_bytes), pct=fmt.percent(insight.shortfall_ratio))
    return text


def _faq_can_run(e: Estimate, quant: str, offloaded: int, lang: Lang) -> Markup:
    need, usable = lang.fmt.gib(e.total_bytes), lang.fmt.gib(e.usable_bytes)
    if e.verdict in ("fits", "tight"):
        return lang._("Yes. At %(quant)s with an %(ctx)s context it needs %(need)s of the %(usable)s available.",
                         quant=quant, ctx=lang.fmt.tokens(PAGE_CONTEXT_TOKENS), need=need, usable=usable)
    if e.verdict == "offload":
        return lang._("Only partly: at %(quant)s it needs %(need)s, more than the %(usable)s available, so llama.cpp "
                         "keeps %(off)s in system RAM.", quant=quant, need=need, usable=usable, off=lang.fmt.gib(offloaded))
    return lang._("No. Even at %(quant)s it needs %(need)s; the GPU offers %(usable)s.", quant=quant, need=need,
                     usable=usable)


def _faq_speed(e: Estimate, lang: Lang) -> Markup:
    if not e.runs:
        return lang._("It does not run on this GPU, so there is no speed to report.")
    return lang._("About %(decode)s tokens per second when generating one answer, %(prefill)s tokens per second "
                     "reading the prompt, and %(ttft)s seconds until the first token of a %(prompt)s-token prompt.",
                     decode=lang.fmt.sig(e.decode_tokens_per_s), prefill=lang.fmt.sig(e.prefill_tokens_per_s),
                     ttft=lang.fmt.sig(e.ttft_s), prompt=lang.fmt.tokens(PROMPT_TOKENS))


def _context_notes(e: Estimate, quant: str, f16: int, q8: int, model: Model, insight: Insight,
                   lang: Lang) -> tuple[Markup, Markup | None, Markup]:
    """The largest context sentence (with the concurrent sequences), the KV-per-GiB sentence and the FAQ answer."""
    fmt, ctx = lang.fmt, lang.fmt.tokens(PAGE_CONTEXT_TOKENS)
    if f16 or q8:
        largest = lang._("Largest context that fits: %(f16)s tokens with f16 KV cache, %(q8)s with q8_0.",
                            f16=fmt.number(f16), q8=fmt.number(q8))
        faq = lang._("%(f16)s tokens with an f16 KV cache and %(q8)s with q8_0 at %(quant)s.", f16=fmt.number(f16),
                        q8=fmt.number(q8), quant=quant)
    else:
        largest = lang._("No context length fits entirely in this GPU's memory at %(quant)s.", quant=quant)
        faq = lang._("None: at %(quant)s not even the weights and the runtime fit in this GPU's memory.", quant=quant)
    if e.max_sequences:
        largest += Markup(" ") + lang._("Concurrent sequences at %(ctx)s context: %(n)s.", ctx=ctx,
                                           n=fmt.number(e.max_sequences))
    kv = None
    if insight.tokens_per_gib:
        kv = lang._("For %(model)s every GiB of f16 KV cache holds about %(n)s tokens of context.", model=model.name,
                       n=fmt.number(insight.tokens_per_gib))
        if insight.margin_tokens:
            kv += Markup(" ") + lang._(
                "The %(margin)s left free at %(ctx)s context would take about %(extra)s more tokens, in one sequence "
                "or spread over several.", margin=fmt.gib(e.margin_bytes), ctx=ctx, extra=fmt.number(insight.margin_tokens))
    return largest, kv, faq


def pair_view(results: Results, key: PageKey, lang: Lang) -> PairView:
    _ = lang.gettext
    model, gpu = results.catalog.models[key.model], results.catalog.gpus[key.gpu]
    spec, device = results.models[key.model], results.devices[key.gpu]
    pick = results.pairs[(key.model, key.gpu)]
    e, quant = pick.estimate, pick.quant
    grade = fidelity.grade(quant, spec.native_format)
    at_floor = grade in fidelity.AT_FLOOR
    margin_ratio = e.margin_bytes / e.usable_bytes if e.usable_bytes else 0.0
    offloaded = max(0, e.total_bytes - e.usable_bytes)
    matrix = []
    for q in matrix_quants(spec):
        q_grade, best = fidelity.grade(q, spec.native_format), results.best_gpu(key.model, q)
        matrix.append(MatrixRow(q, results.quant_estimate(key.model, key.gpu, q), q_grade, q_grade in fidelity.AT_FLOOR,
                                q == quant, results.catalog.gpus.get(best or ""), urls.pair(lang.code, key.model, best or "")))
    context_rows, context_chart = _context(results, key.model, key.gpu, lang)
    sweep = results.context_sweep(key.model, key.gpu)
    offers = offers_part(results, gpu.id, lang)
    insight = pair_insight(results, key.model, key.gpu, e, lang)
    context_note, kv_note, faq_context = _context_notes(e, quant, sweep.max_context_f16, sweep.max_context_q8, model,
                                                        insight, lang)
    command_rows = pair_commands(results, key, quant, e, lang)
    if e.runs:
        no_command = None
    elif command_rows:
        no_command = lang._("%(model)s does not run on one %(gpu)s with llama.cpp or Ollama, so there is no command "
                               "for them.", model=model.name, gpu=gpu.name)
    else:
        no_command = lang._("No command: no catalogued setup of %(model)s fits one %(gpu)s, or eight with vLLM.",
                               model=model.name, gpu=gpu.name)
    related = related_pairs(results, key.model, key.gpu)
    largest_here = link_parts(results, lang, related["largest_here"], "model")
    return PairView(
        head=Head(_pair_title(model, gpu, quant, e, lang), _pair_description(model, gpu, quant, e, lang),
                  (home(lang), Crumb(model.name, urls.model(lang.code, model.id)),
                   Crumb(gpu.name, urls.pair(lang.code, model.id, gpu.id))), latest_read(model, gpu)),
        model=model, gpu=gpu, spec=spec, headline=e, quant=quant, context=PAGE_CONTEXT_TOKENS,
        prompt_tokens=PROMPT_TOKENS, quant_grade=grade, quant_at_floor=at_floor, kv_type="f16",
        device_memory_bytes=device.memory_bytes, margin_ratio=margin_ratio,
        utilisation=e.total_bytes / e.usable_bytes if e.usable_bytes else 0.0, offloaded_bytes=offloaded,
        verdict_reason=_verdict_reason(e, quant, margin_ratio, offloaded, insight, lang),
        quality_warning=lang._(
            "Quality: %(grade)s. No quantization graded good or better (Q4_K_M, IQ4_XS and up) fits this GPU, so "
            "%(quant)s is the best that does.", grade=_(labels.QUALITY[grade]), quant=quant)
        if e.runs and not at_floor else None,
        weights_note=lang._("Weights: the published GGUF file size.") if e.weights_source == "measured" else
        lang._("Weights: computed tensor by tensor from the architecture and llama.cpp's quantization recipe."),
        split=_split(e), matrix=tuple(matrix), sequences_8k=e.max_sequences,
        context_rows=context_rows, context_chart=context_chart, max_context_f16=sweep.max_context_f16,
        max_context_q8=sweep.max_context_q8, context_note=context_note, kv_note=kv_note,
        offers=offers, cost=rental_cost(offers.offers, e), rent_vs_buy=_rent_vs_buy(gpu, offers.offers, e),
        finetune=_finetune_rows(results, key.model, key.gpu, lang.code), finetune_note=lang.shared(("finetune_note",), lambda: _finetune_note(lang)),
        serving=serving_view(results, key, lang, offers.offers), commands=command_rows, no_command_note=no_command,
        offload=_offload(e),
        # Parts shared by every pair page of a model or a GPU (their HTML is cached too: see cached() in render.py).
        recommended=hardware_part(results, model.id, lang), architecture=architecture_part(results, model.id, lang),
        about_model=about_model_part(results, model.id, lang), about_gpu=about_gpu_part(results, gpu.id, lang),
        model_sources=model_sources_part(results, model.id, lang), gpu_sources=gpu_sources_part(results, gpu.id, lang),
        insight=insight, assumptions=assumption_rows(e, lang), error_band=results.error_band(gpu.backends[0]),
        other_gpus=link_parts(results, lang, related["other_gpus"], "gpu"),
        other_models=link_parts(results, lang, related["other_models"], "model"),
        largest_here=largest_here, instead=largest_here if e.verdict in ("offload", "no_fit") else (),
        compare_path=urls.compare(lang.code, model.id),
        faq_can_run=_faq_can_run(e, quant, offloaded, lang), faq_speed=_faq_speed(e, lang), faq_context=faq_context,
    )


def _pair_title(model: Model, gpu: Gpu, quant: str, e: Estimate, lang: Lang) -> str:
    _ = lang.gettext
    values = {"model": model.name, "gpu": gpu.name, "need": lang.fmt.gib(e.total_bytes, 1), "quant": quant,
              "speed": lang.fmt.sig(e.decode_tokens_per_s, 3)}
    if not e.runs:
        return _("%(model)s on %(gpu)s: does not fit, needs %(need)s at %(quant)s") % values
    return _("%(model)s on %(gpu)s: %(need)s at %(quant)s, %(speed)s tok/s") % values


def _pair_description(model: Model, gpu: Gpu, quant: str, e: Estimate, lang: Lang) -> str:
    _ = lang.gettext
    values = {"model": model.name, "gpu": gpu.name, "quant": quant, "need": lang.fmt.gib(e.total_bytes),
              "usable": lang.fmt.gib(e.usable_bytes), "speed": lang.fmt.sig(e.decode_tokens_per_s, 3),
              "ttft": lang.fmt.sig(e.ttft_s, 2), "ctx": lang.fmt.number(e.max_context_tokens),
              "short": lang.fmt.gib(max(0, e.total_bytes - e.usable_bytes))}
    if not e.runs:
        return _("%(model)s does not fit on %(gpu)s, not even with system-RAM offload: %(quant)s needs %(need)s at 8K "
                 "context, %(short)s more than the %(usable)s this GPU offers.") % values
    if e.verdict == "offload":
        return _("%(model)s runs on %(gpu)s only with system-RAM offload: %(quant)s needs %(need)s of %(usable)s at "
                 "8K context, about %(speed)s tok/s decode, %(ttft)s s to first token.") % values
    values["verdict"] = _(labels.VERDICT_PHRASE[e.verdict])
    return _("%(model)s %(verdict)s on %(gpu)s: %(quant)s needs %(need)s of %(usable)s at 8K context, "
             "about %(speed)s tok/s decode, %(ttft)s s to first token, max context %(ctx)s.") % values
