"""A pair page's batched serving section: the throughput/per-user curve, a table, the operating point and its cost."""

from __future__ import annotations

from typing import Any, NamedTuple

from markupsafe import Markup

from ..estimate import cost, serving
from ..estimate.estimator import Estimate
from ..estimate.kvcache import VLLM_BLOCK
from ..estimate.runtime import VLLM_GPU_MEMORY_UTILIZATION
from ..estimate.serving_setup import ServingPlan
from ..sitedata import PAGE_CONTEXT_TOKENS, SiteData
from ..sitedata.policy import rents
from . import charts
from .common import Lang, OfferRow, offer_label
from .plan import PageKey

SERVING_TABLE_LEVELS = (1, 8, 32, 128, 512)


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


class SetupRow(NamedTuple):
    """One serving setup of the section's comparison: the fewest GPUs, then the next larger tensor-parallel group."""

    gpu_count: int
    tensor_parallel: int
    precision: str
    max_concurrency: int
    single_user_tokens_per_s: float  # one request alone
    operating: Any  # ServingPoint or None
    output_usd_per_mtok: float | None  # at the operating point, on an instance that holds the setup
    offer_label: str | None
    usd_per_gpu_hour: float | None


class ServingView(NamedTuple):
    """Batched serving with vLLM: the setup on the fewest GPUs (and what a larger group gains and costs), the
    throughput/per-user curve, a table, the operating point and its cost."""

    plan: Any
    setups: tuple[SetupRow, ...]
    setup_note: Markup
    larger_note: Markup | None
    single_request_note: Markup | None
    chart: Markup
    rows: tuple[ServingRow, ...]
    operating: Any
    concurrency: int  # the operating point's, else the KV cache's maximum
    context_tokens: int  # prompt and output of one request
    operating_note: Markup
    cost: ServingCost | None
    floor: float
    defaults_note: Markup


def _offer_for(offers: tuple[OfferRow, ...], gpu_count: int) -> OfferRow | None:
    """The cheapest offer (per GPU-hour) of an instance that holds ``gpu_count`` GPUs of one setup."""
    return next((o for o in offers if rents(o.gpu_count, gpu_count)), None)


def _setup_row(plan: ServingPlan, offers: tuple[OfferRow, ...]) -> SetupRow:
    offer, op = _offer_for(offers, plan.gpu_count), plan.operating
    price = cost.serving_price(op, offer.usd_per_gpu_hour).output_usd_per_mtok if offer and op else None
    return SetupRow(plan.gpu_count, plan.tensor_parallel, plan.precision, plan.max_concurrency,
                    plan.points[0].tokens_per_s_per_user, op, price, offer_label(offer) if offer else None,
                    offer.usd_per_gpu_hour if offer else None)


def _larger_note(small: SetupRow, large: SetupRow, lang: Lang) -> Markup:
    """What the larger tensor-parallel group gains (tokens per GPU, per-user speed) and costs (GPUs, $ per 1M)."""
    fmt = lang.fmt
    speedup = large.single_user_tokens_per_s / small.single_user_tokens_per_s
    if small.operating and large.operating:
        gain = large.operating.output_tokens_per_s_per_gpu / small.operating.output_tokens_per_s_per_gpu - 1
        text = lang._("%(n)s GPUs: %(gain)s tokens per GPU at the operating point, %(speedup)s× the speed of one "
                      "request alone, for %(ratio)s× the GPUs.", n=large.gpu_count,
                      gain=("+" if gain >= 0 else "−") + fmt.percent(abs(gain)), speedup=fmt.number(speedup, 1),
                      ratio=large.gpu_count // small.gpu_count)
    elif large.operating:
        text = lang._("%(n)s GPUs: one request alone runs %(speedup)s× as fast, fast enough for an operating point "
                      "at %(floor)s tok/s per user, which %(small)s GPU(s) do not reach.", n=large.gpu_count,
                      speedup=fmt.number(speedup, 1), floor=fmt.number(serving.MIN_USER_TOKENS_PER_S),
                      small=small.gpu_count)
    else:
        text = lang._("%(n)s GPUs: one request alone runs %(speedup)s× as fast, still below %(floor)s tok/s per user.",
                      n=large.gpu_count, speedup=fmt.number(speedup, 1), floor=fmt.number(serving.MIN_USER_TOKENS_PER_S))
    if small.output_usd_per_mtok is not None and large.output_usd_per_mtok is not None:
        text += Markup(" ") + lang._("Per 1M output tokens: %(large)s against %(small)s.",
                                     large=fmt.usd(large.output_usd_per_mtok), small=fmt.usd(small.output_usd_per_mtok))
    return text


def _single_request_note(plan: ServingPlan, e: Estimate, quant: str, lang: Lang) -> Markup | None:
    """Why one request runs at a different speed on vLLM and on llama.cpp, in the estimator's terms."""
    if not e.runs or e.decode_tokens_per_s <= 0:
        return None
    fmt = lang.fmt
    return lang._(
        "One request alone: %(vllm)s tok/s on vLLM, %(llama)s tok/s with llama.cpp (the speed section). Decoding one "
        "request is mostly reading weights, and the engines differ in what they read and how fast: %(vw)s per GPU at "
        "%(precision)s on vLLM against %(lw)s at %(quant)s with llama.cpp, each engine's own calibrated share of the "
        "memory bandwidth (vLLM %(eff)s), and vLLM's fixed %(ms)s ms per step for scheduling and sampling.",
        vllm=fmt.sig(plan.points[0].tokens_per_s_per_user), llama=fmt.sig(e.decode_tokens_per_s),
        vw=fmt.gib(plan.weights_bytes_per_gpu), precision=plan.precision, lw=fmt.gib(e.weights_bytes), quant=quant,
        eff=fmt.percent(plan.bandwidth_efficiency), ms=fmt.number(plan.step_overhead_s * 1e3, 2))


def _figures(plan: ServingPlan, larger: ServingPlan | None, offers: tuple[OfferRow, ...]
             ) -> tuple[tuple[ServingRow, ...], ServingCost | None, tuple[SetupRow, ...]]:
    """The serving table's rows, the operating point's price and the setup rows: the same in every language."""
    op = plan.operating
    points = [p for p in plan.points if p.concurrency in SERVING_TABLE_LEVELS or p is plan.points[-1]]
    if op is not None and all(p.concurrency != op.concurrency for p in points):
        points = sorted([*points, op], key=lambda p: p.concurrency)
    rows = tuple(ServingRow(p.concurrency, p.output_tokens_per_s_per_gpu, p.total_tokens_per_s_per_gpu,
                            p.tokens_per_s_per_user, p.ttft_s, op is not None and p.concurrency == op.concurrency)
                 for p in points)
    price = None
    offer = _offer_for(offers, plan.gpu_count)
    if offer and op is not None:
        per_gpu = offer.usd_per_gpu_hour
        priced = cost.serving_price(op, per_gpu)
        price = ServingCost(per_gpu, offer_label(offer), priced.output_usd_per_mtok, priced.input_usd_per_mtok,
                            op.prefill_share)
    setups = (_setup_row(plan, offers),) + ((_setup_row(larger, offers),) if larger is not None else ())
    return rows, price, setups


def serving_view(site: SiteData, key: PageKey, lang: Lang, offers: tuple[OfferRow, ...], e: Estimate,
                 quant: str) -> ServingView | None:
    options = site.serving(key.model, key.gpu)
    plan = options[0]
    if plan is None:
        return None
    larger = options[1] if len(options) > 1 else None
    _, fmt = lang.gettext, lang.fmt
    op = plan.operating
    floor = serving.MIN_USER_TOKENS_PER_S
    chart = charts.curve_chart(
        _("Throughput per GPU against speed per user"),
        tuple((p.tokens_per_s_per_user, p.output_tokens_per_s_per_gpu) for p in plan.points),
        (op.tokens_per_s_per_user, op.output_tokens_per_s_per_gpu) if op else None,
        floor, _("output tok/s per user"), _("output tok/s per GPU"),
        _("%(n)s tok/s per user") % {"n": fmt.number(floor, 0)}, lambda v: fmt.number(v, 0))
    rows, price, setups = lang.in_every_language(("serving", key.model, key.gpu),
                                                 lambda: _figures(plan, larger, offers))
    if plan.gpu_count == 1:
        setup_note = lang._("One GPU holds the model with room for the KV cache of a %(ctx)s request, so the setup "
                            "is one GPU; a larger tensor-parallel group is the second row below, with what it gains "
                            "and costs.",
                            ctx=fmt.tokens(min(PAGE_CONTEXT_TOKENS, site.catalog.models[key.model].context_length)))
    else:
        setup_note = lang._("%(n)s GPUs are the fewest that hold the weights and the KV cache of a %(ctx)s request "
                            "in one machine, splitting every layer across them (tensor parallel).", n=plan.gpu_count,
                            ctx=fmt.tokens(min(PAGE_CONTEXT_TOKENS, site.catalog.models[key.model].context_length)))
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
    defaults = lang._("Estimated by the calibrated serving model described on the methodology page, at vLLM's "
                      "defaults (%(share)s of memory, pages of %(block)s tokens); the vLLM command below serves this "
                      "operating point.", share=fmt.percent(VLLM_GPU_MEMORY_UTILIZATION), block=fmt.number(VLLM_BLOCK))
    return ServingView(plan, setups, setup_note, _larger_note(setups[0], setups[1], lang) if larger else None,
                       _single_request_note(plan, e, quant, lang), chart, rows, op,
                       op.concurrency if op else plan.max_concurrency,
                       plan.prompt_tokens + plan.output_tokens, note, price, floor, defaults)
