"""A pair page's batched serving section: the throughput/per-user curve, a table, the operating point and its cost."""

from __future__ import annotations

from typing import Any, NamedTuple

from markupsafe import Markup

from ...estimate import cost, serving
from ...estimate.kvcache import VLLM_BLOCK
from ...estimate.runtime import VLLM_GPU_MEMORY_UTILIZATION
from ...sitedata import Results
from .. import charts
from ..plan import PageKey
from .common import Lang, OfferRow, offer_label

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
    defaults_note: Markup


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
    defaults = lang._("Estimated by the calibrated serving model described on the methodology page, at vLLM's "
                      "defaults (%(share)s of memory, pages of %(block)s tokens); the vLLM command below serves this "
                      "operating point.", share=fmt.percent(VLLM_GPU_MEMORY_UTILIZATION), block=fmt.number(VLLM_BLOCK))
    return ServingView(plan, chart, rows, op, op.concurrency if op else plan.max_concurrency,
                       plan.prompt_tokens + plan.output_tokens, note, price, floor, defaults)
