"""The model page: requirements at each precision and context, and where the model runs."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, NamedTuple

from markupsafe import Markup

from .. import urls
from ..catalog.schema import Gpu, Model
from ..estimate import fidelity, finetune, serving, serving_setup
from ..estimate.cost import HOURS_PER_MONTH
from ..estimate.estimator import Estimate, ModelSpec
from ..sitedata import FINETUNE_METHODS, PAGE_CONTEXT_TOKENS, ServingChoice, SiteData
from ..sitedata.policy import below_floor, holds, quality_rank
from .common import Crumb, Head, Lang, home, latest_read
from .parts import (
    AboutModelPart,
    ArchitecturePart,
    SourcesPart,
    about_model_part,
    architecture_part,
    model_sources_part,
)
from .plan import PageKey


class RequirementRow(NamedTuple):
    """Total memory per quantization in one scenario (a context length, one or more sequences)."""

    context: int
    sequences: int
    label: Markup
    cells: Mapping[str, Mapping[str, int]]


@dataclass(frozen=True, slots=True)
class Setup:
    gpu: Gpu
    count: int
    usd_per_hour: float
    usd_per_month: float
    path: str  # the pair page (one GPU) or the GPU page (several)


class SetupRow(NamedTuple):
    """The cheapest rentable single-GPU and multi-GPU setup of one precision."""

    quant: str
    single: Setup | None
    multi: Setup | None


class ServingRow(NamedTuple):
    """A model page's serving row: the setup, its operating point and its price, as the pair page it links to shows
    them (the same plan, offer and ``cost.serving_price``)."""

    precision: str
    gpu: Gpu
    path: str
    gpu_count: int
    tensor_parallel: int
    engine: str
    concurrency: int
    output_tokens_per_s_per_gpu: float
    total_tokens_per_s_per_gpu: float
    tokens_per_s_per_user: float
    offer_label: str
    usd_per_gpu_hour: float
    output_usd_per_mtok: float
    input_usd_per_mtok: float


class FinetuneRow(NamedTuple):
    method: finetune.Method
    est: finetune.FinetuneEstimate
    gpu: tuple[str, str] | None  # (id, name) of the smallest setup that holds it


class GpuRow(NamedTuple):
    gpu: Gpu
    path: str
    quant: str
    estimate: Estimate
    grade: fidelity.Grade
    heavy_loss: bool  # holds the model only below the quality floor: listed after every GPU that holds it above


class Headline(NamedTuple):
    """The description's numbers, kept for the social preview image too (it draws them, never recomputes them)."""

    q4_bytes: int
    bf16_bytes: int
    q4_fits: int  # GPUs that hold the model fully at or above the quality floor (``policy.holds``): Q4_K_M or better
    gpus: int


@dataclass(frozen=True, slots=True)
class ModelView:
    head: Head
    model: Model
    spec: ModelSpec
    requirements: tuple[RequirementRow, ...]
    quality: Mapping[str, fidelity.Grade]
    context: int
    setups: tuple[SetupRow, ...]
    hours_per_month: float
    serving: tuple[ServingRow, ...]
    serving_floor: float
    serving_prompt_tokens: int
    serving_output_tokens: int
    finetune: tuple[FinetuneRow, ...]
    architecture: ArchitecturePart
    about_model: AboutModelPart
    pairs: tuple[GpuRow, ...]
    fits_count: int
    headline: Headline
    compare_path: str
    sources: SourcesPart


def _setup(s: dict[str, Any] | None, path: str) -> Setup | None:
    return None if s is None else Setup(s["gpu"], s["count"], s["usd_per_hour"], s["usd_per_month"], path)


def _requirement_label(context: int, sequences: int, lang: Lang) -> Markup:
    if sequences > 1:
        return lang._("%(n)s sequences × %(ctx)s", n=sequences, ctx=lang.fmt.tokens(context))
    return lang._("%(ctx)s context", ctx=lang.fmt.tokens(context))


def serving_row(site: SiteData, choice: ServingChoice, model_id: str, language: str) -> ServingRow:
    plan, op = choice.plan, choice.plan.operating
    assert op is not None  # policy.cheapest_serving prices only plans with an operating point
    return ServingRow(plan.precision, site.catalog.gpus[choice.gpu], urls.pair(language, model_id, choice.gpu),
                      plan.gpu_count, plan.tensor_parallel, plan.engine, op.concurrency,
                      op.output_tokens_per_s_per_gpu, op.total_tokens_per_s_per_gpu, op.tokens_per_s_per_user,
                      f"{choice.provider}, {choice.instance}", choice.usd_per_gpu_hour,
                      choice.price.output_usd_per_mtok, choice.price.input_usd_per_mtok)


def _gpu_row(site: SiteData, model_id: str, gpu_id: str, native: str, language: str) -> GpuRow:
    pick = site.pairs[(model_id, gpu_id)]
    return GpuRow(site.catalog.gpus[gpu_id], urls.pair(language, model_id, gpu_id), pick.quant, pick.estimate,
                  fidelity.grade(pick.quant, native),
                  below_floor(pick, native))


def model_view(site: SiteData, key: PageKey, lang: Lang) -> ModelView:
    """Requirements of one model at each precision and context, and where it runs."""
    _ = lang.gettext
    model, spec = site.catalog.models[key.model], site.models[key.model]
    requirements = tuple(RequirementRow(r["context"], r["sequences"], _requirement_label(r["context"], r["sequences"], lang),
                                        r["cells"]) for r in site.model_requirements(key.model))
    native = spec.native_format
    ranked = sorted(site.catalog.gpus, key=lambda g: (quality_rank(site.pairs[(key.model, g)], native), g))
    fitting = sum(1 for g in ranked if holds(site.pairs[(key.model, g)], native))
    summary = site.page_context_requirements(key.model)
    headline = Headline(summary["Q4_K_M"], summary["BF16"], fitting, len(ranked))
    setups = tuple(SetupRow(s["quant"],
                            _setup(s["single"], urls.pair(lang.code, key.model, s["single"]["gpu"].id) if s["single"] else ""),
                            _setup(s["multi"], urls.gpu(lang.code, s["multi"]["gpu"].id) if s["multi"] else ""))
                   for s in site.cheapest_setups(key.model))
    return ModelView(
        head=Head(
            _("%(model)s: VRAM, speed and cost on %(n)s GPUs") % {"model": model.name, "n": len(ranked)},
            _("%(model)s needs %(q4)s at Q4_K_M and %(bf16)s at BF16 with %(context)s context; at or above the "
              "quality floor it fits fully on %(fit)s of %(n)s catalogued GPUs.") % {
                "model": model.name, "q4": lang.fmt.gib(headline.q4_bytes), "bf16": lang.fmt.gib(headline.bf16_bytes),
                "fit": lang.fmt.number(headline.q4_fits), "n": lang.fmt.number(headline.gpus),
                "context": lang.fmt.tokens(PAGE_CONTEXT_TOKENS)},
            (home(lang), Crumb(model.name, urls.model(lang.code, model.id))), latest_read(model)),
        model=model, spec=spec, requirements=requirements,
        quality={q: fidelity.grade(q, spec.native_format) for q in (requirements[0].cells if requirements else ())},
        context=PAGE_CONTEXT_TOKENS, setups=setups, hours_per_month=HOURS_PER_MONTH,
        serving=tuple(serving_row(site, choice, key.model, lang.code) for choice in site.cheapest_serving(key.model)),
        serving_floor=serving.MIN_USER_TOKENS_PER_S,
        serving_prompt_tokens=serving_setup.PAGE_PROMPT_TOKENS, serving_output_tokens=serving_setup.PAGE_OUTPUT_TOKENS,
        finetune=tuple(FinetuneRow(m, site.finetune(key.model, m), site.finetune_gpu(key.model, m))
                       for m in FINETUNE_METHODS),
        architecture=architecture_part(site, key.model, lang), about_model=about_model_part(site, key.model, lang),
        pairs=tuple(_gpu_row(site, key.model, g, native, lang.code) for g in ranked),
        fits_count=fitting, headline=headline, compare_path=urls.compare(lang.code, model.id),
        sources=model_sources_part(site, key.model, lang),
    )
