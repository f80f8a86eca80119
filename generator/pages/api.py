"""The open-data API: one JSON document per model, GPU and pair page and an index, built from the same view
objects the HTML pages show (nothing recomputed), with units in the key names. Each builder returns its shape
declared in ``documents``, from which the published schemas are generated."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import orjson

from .. import urls
from ..catalog.schema import Gpu, Model
from ..estimate.estimator import Estimate
from ..estimate.fidelity import Grade
from ..urls import DATAPACKAGE, PAIRS_CSV
from ..views import labels
from ..views.common import OfferRow
from ..views.gpu import GpuView
from ..views.index import IndexView
from ..views.model import ModelView, Setup
from ..views.pair import PairView
from ..views.parts import AboutGpuPart, AboutModelPart, ArchitecturePart
from ..views.plan import PageKey
from ..views.serving import ServingView
from .api_schema import KINDS as SCHEMA_KINDS
from .documents import (
    Envelope,
    GpuDocument,
    GpuFacts,
    GpuSetup,
    HeadlineEstimate,
    HtmlPaths,
    IndexDocument,
    ModelDocument,
    ModelFacts,
    Offer,
    OperatingPoint,
    PairDocument,
    PairSummary,
    Ref,
    ServingPlan,
    ServingPoint,
    Source,
)

SCHEMA_VERSION = "1.4.0"
# One line per schema version, newest first: (version, date, what changed). A new key or kind is a minor
# version, a renamed, removed or retyped key a major one.
CHANGELOG = (
    ("1.4.0", "2026-12-07", "Pair documents: setup.at_quality_floor (the recommended quantization is graded good or "
                            "better, is the model's own release, or is an unmeasured K- or i-quant with at least "
                            "IQ4_XS's bits per weight, the site's one quality floor). finder.json lists the pairs at "
                            "that floor, so its quality_grades gain unmeasured."),
    ("1.3.1", "2026-12-07", "Index documents: schemas also names the finder document's schema (published since "
                            "1.2.0, missing from the map until now)."),
    ("1.3.0", "2026-12-02", "Pair documents: serving, the vLLM serving plan the page shows (setup on the fewest GPUs, "
                            "curve, operating point, cost per 1M tokens, and the next larger tensor-parallel group); "
                            "model and GPU list rows: quality_grade and heavy_loss (held only below the quality "
                            "floor, ranked after every row above it)."),
    ("1.2.0", "2026-12-02", "finder.json: per GPU the models that run on it at or above the quality floor with their "
                            "pair pages' figures, per model its recommended GPUs and serving setups (the home page's "
                            "finder); index documents: popular_pairs carry quant and quality_grade, and are chosen by "
                            "a new rule (popular_pairs_rule)."),
    ("1.1.0", "2026-12-01", "Model documents: cheapest_serving, the cheapest listed serving setup per precision "
                            "at its recommended operating point (the numbers of the pair page it names)."),
    ("1.0.0", "2026-12-01", "First version: index, model, GPU and pair documents; the pairs CSV with its data package."),
)
CODE_LICENCE = "MIT"
LICENCE_NOTE = ("The generator's code and the catalogue it reads are published under the MIT licence "
                "(pyproject.toml); the data here is derived from them under the same licence. Every catalogue fact "
                "keeps its source and the date it was read.")


def dumps(document: Any) -> bytes:
    """Deterministic, compact UTF-8 JSON: sorted keys, shortest round-trip floats, a final newline.

    orjson, not the standard library: it encodes the ~8,700 documents of a build eight times faster (the standard
    encoder was 4 % of a full build). It writes NaN and infinities as null; the schemas allow null only where the
    page shows "—", and the tests validate every document."""
    return orjson.dumps(document, option=orjson.OPT_SORT_KEYS | orjson.OPT_APPEND_NEWLINE)


def _html_paths(key: PageKey) -> HtmlPaths:
    return {"en": key.url_path("en"), "de": key.url_path("de")}


def _envelope(key: PageKey) -> Envelope:
    return {"schema_version": SCHEMA_VERSION, "schema_path": urls.api_schema(key.kind), "json_path": key.api_path(),
            "html_paths": _html_paths(key)}


def _sources(entry: Model | Gpu) -> list[Source]:
    return [{"url": s.url, "read_date": s.read.isoformat(), "fields": list(s.fields), "title": s.title}
            for s in entry.sources]


def _ref(kind: str, entry: Model | Gpu) -> Ref:
    key = PageKey(kind, model=entry.id) if kind == "model" else PageKey(kind, gpu=entry.id)
    return {"id": entry.id, "name": entry.name, "json_path": key.api_path()}


def _speed(value: float | None, runs: bool) -> float | None:
    """A speed or time the page shows, or None where it shows "—" (the setup does not run)."""
    return value if runs and value is not None else None


def _estimate(e: Estimate) -> HeadlineEstimate:
    """The headline estimate as the pair page shows it."""
    return {"verdict": e.verdict, "runs": e.runs, "weights_bytes": e.weights_bytes, "weights_source": e.weights_source,
            "kv_cache_bytes": e.kv_cache_bytes, "runtime_overhead_bytes": e.runtime_overhead_bytes,
            "total_bytes": e.total_bytes, "usable_bytes": e.usable_bytes, "margin_bytes": e.margin_bytes,
            "max_context_tokens": e.max_context_tokens or None, "max_sequences": e.max_sequences or None,
            "decode_tokens_per_s": _speed(e.decode_tokens_per_s, e.runs),
            "prefill_tokens_per_s": _speed(e.prefill_tokens_per_s, e.runs), "ttft_s": _speed(e.ttft_s, e.runs),
            "batched_tokens_per_s": _speed(e.batched_tokens_per_s, e.runs)}


def _summary(gpu_or_model: Ref, quant: str, grade: Grade, heavy_loss: bool, e: Estimate,
             pair_json_path: str) -> PairSummary:
    """One row of a model's GPU list or a GPU's model list."""
    return {**gpu_or_model, "quant": quant, "quality_grade": grade, "heavy_loss": heavy_loss, "verdict": e.verdict,
            "total_bytes": e.total_bytes,
            "decode_tokens_per_s": _speed(e.decode_tokens_per_s, e.runs),
            "max_context_tokens": e.max_context_tokens or None, "pair_json_path": pair_json_path}


def _offer(row: OfferRow) -> Offer:
    return {"provider": row.provider, "instance": row.instance, "gpu_count": row.gpu_count,
            "vram_bytes": row.vram_bytes, "price_usd_per_hour": row.usd_per_hour,
            "price_usd_per_gpu_hour": row.usd_per_gpu_hour, "price_usd_per_month": row.usd_per_month,
            "billing": row.billing, "tier": row.tier, "checked_date": row.checked.isoformat(), "url": row.url}


def _gpu_facts(gpu: Gpu, usable_bytes: int, about: AboutGpuPart) -> GpuFacts:
    return {"vendor": gpu.vendor, "segment": gpu.segment, "memory_bytes": gpu.memory_bytes,
            "usable_memory_bytes": usable_bytes, "unified_memory": gpu.unified_memory, "memory_type": gpu.memory_type,
            "bandwidth_gb_per_s": gpu.bandwidth_gb_per_s, "fp16_tensor_tflops": gpu.fp16_tensor_tflops,
            "tdp_w": gpu.tdp_w, "launch_date": gpu.launch_date.isoformat() if gpu.launch_date else None,
            "price_usd": gpu.price_usd, "price_kind": gpu.price_kind,
            "price_date": gpu.price_date.isoformat() if gpu.price_date else None, "backends": list(about.backends),
            "price_usd_per_gib": about.usd_per_gib, "bandwidth_gb_per_s_per_gib": about.gb_s_per_gib}


def _model_facts(model: Model, about: AboutModelPart, architecture: ArchitecturePart) -> ModelFacts:
    return {"org": about.org, "family": about.family, "license": about.license,
            "release_date": about.release_date.isoformat() if about.release_date else None,
            "hf_repo": about.hf_repo, "hf_url": about.hf_url, "native_precision": about.native,
            "context_length_tokens": model.context_length, "total_params": architecture.total_params,
            "active_params": architecture.active_params, "layers": architecture.arch.n_layers,
            "kv_cache_f16_bytes_per_1k_tokens": architecture.kv_bytes_per_1k,
            "token_mixers": [{"kind": m.kind, "window_tokens": m.window, "layers": m.layers}
                             for m in architecture.mixers]}


def _point(p: Any) -> ServingPoint:
    return {"concurrency": p.concurrency, "output_tokens_per_s_per_gpu": p.output_tokens_per_s_per_gpu,
            "total_tokens_per_s_per_gpu": p.total_tokens_per_s_per_gpu,
            "tokens_per_s_per_user": p.tokens_per_s_per_user, "ttft_s": p.ttft_s}


def _operating(p: Any) -> OperatingPoint | None:
    return None if p is None else {**_point(p), "prefill_share": p.prefill_share}


def _serving(s: ServingView | None) -> ServingPlan | None:
    """The serving section's plan: the setup, its curve, operating point and cost, and the larger group beside it."""
    if s is None:
        return None
    plan, cost = s.plan, s.cost
    return {"engine": plan.engine, "precision": plan.precision, "gpu_count": plan.gpu_count,
            "tensor_parallel": plan.tensor_parallel, "kv_cache_type": plan.kv_type,
            "prompt_tokens": plan.prompt_tokens, "output_tokens": plan.output_tokens,
            "max_concurrency": plan.max_concurrency, "curve": [_point(p) for p in plan.points],
            "operating_point": _operating(s.operating),
            "cost": None if cost is None else {
                "offer": cost.offer_label, "price_usd_per_gpu_hour": cost.usd_per_gpu_hour,
                "usd_per_million_output_tokens": cost.output_usd_per_mtok,
                "usd_per_million_input_tokens": cost.input_usd_per_mtok},
            "setups": [{"gpu_count": r.gpu_count, "tensor_parallel": r.tensor_parallel, "precision": r.precision,
                        "max_concurrency": r.max_concurrency, "single_request_tokens_per_s": r.single_user_tokens_per_s,
                        "operating_point": _operating(r.operating), "offer": r.offer_label,
                        "price_usd_per_gpu_hour": r.usd_per_gpu_hour,
                        "usd_per_million_output_tokens": r.output_usd_per_mtok} for r in s.setups]}


def pair_document(key: PageKey, v: PairView) -> PairDocument:
    """The pair page's numbers (its offers are in the GPU's document)."""
    e = v.headline
    cost, rent = v.cost, v.rent_vs_buy
    owned = rent.owned if rent else None
    band = v.error_band
    return {
        "kind": "pair", **_envelope(key), "model": _ref("model", v.model), "gpu": _ref("gpu", v.gpu),
        "title": v.head.title, "description": v.head.description,
        "setup": {"quant": v.quant, "quality_grade": v.quant_grade, "at_quality_floor": v.quant_at_floor,
                  "context_tokens": v.context,
                  "kv_cache_type": v.kv_type, "sequences": 1},
        "estimate": {**_estimate(e), "device_memory_bytes": v.device_memory_bytes, "margin_ratio": v.margin_ratio,
                     "utilisation_ratio": v.utilisation, "offloaded_bytes": v.offloaded_bytes},
        "quantization_matrix": [
            {"quant": row.quant, "quality_grade": row.grade, "weights_bytes": row.est.weights_bytes,
             "kv_cache_bytes": row.est.kv_cache_bytes, "total_bytes": row.est.total_bytes, "verdict": row.est.verdict,
             "decode_tokens_per_s": _speed(row.est.decode_tokens_per_s, row.est.runs),
             "best_gpu_id": row.best_gpu.id if row.best_gpu else None} for row in v.matrix],
        "context": {"max_context_tokens_f16_kv": v.max_context_f16 or None,
                    "max_context_tokens_q8_0_kv": v.max_context_q8 or None,
                    "rows": [{"context_tokens": r.context, "kv_cache_f16_bytes": r.kv_f16, "total_f16_bytes": r.total_f16,
                              "kv_cache_q8_0_bytes": r.kv_q8, "total_q8_0_bytes": r.total_q8}
                             for r in v.context_rows]},
        "cost": None if cost is None else {
            "offer": cost.offer_label, "price_usd_per_gpu_hour": cost.usd_per_hour,
            "usd_per_million_tokens_single": cost.single_usd_per_mtok,
            "usd_per_million_tokens_batched": cost.batched_usd_per_mtok},
        "rent_vs_buy": None if rent is None else {
            "price_usd": rent.price_usd, "power_usd_per_kwh": rent.usd_per_kwh,
            "hours_per_month": rent.hours_per_month, "power_usd_per_month": rent.power_usd_per_month,
            "breakeven_months": rent.breakeven_months,
            "owned": None if owned is None else {
                "amortisation_months": owned.months, "usd_per_hour": owned.usd_per_hour,
                "usd_per_million_tokens": owned.usd_per_mtok, "joules_per_token": owned.joules_per_token,
                "tokens_per_s_per_100_usd": owned.tokens_per_s_per_100_usd}},
        "finetune": [{"method": f.method, "sequence_length_tokens": f.est.seq_len, "weights_bytes": f.est.weights_bytes,
                      "gradients_optimizer_bytes": f.grads_optimizer_bytes, "activations_bytes": f.est.activations_bytes,
                      "total_bytes": f.est.total_bytes, "verdict": f.verdict, "suggested_gpu": f.suggestion}
                     for f in v.finetune],
        "serving": _serving(v.serving),
        "commands": [{"engine": c.engine, "text": c.text, "remark": c.remark} for c in v.commands],
        "assumptions": {a.key: a.value for a in v.assumptions},
        "error_band": {"backend": band.backend,
                       "validation": ("runs with experts in system RAM: " if band.offload else "")
                       + "leave one GPU out or one source out, the larger error",
                       "decode_median_abs_error_ratio": band.decode,
                       "prefill_median_abs_error_ratio": band.prefill,
                       "ttft_median_abs_error_ratio": band.ttft,
                       "borrowed_constants_from": band.borrowed_from, "architecture_class": band.architecture,
                       "held_out_rows": band.rows, "status": band.status},
        "sources": {"model": _sources(v.model), "gpu": _sources(v.gpu)},
    }


def model_document(key: PageKey, v: ModelView) -> ModelDocument:
    """The model page's numbers."""
    model = v.model

    def setup(s: Setup | None) -> GpuSetup | None:
        return None if s is None else {"gpu": _ref("gpu", s.gpu), "gpu_count": s.count,
                                       "price_usd_per_hour": s.usd_per_hour, "price_usd_per_month": s.usd_per_month}

    return {
        "kind": "model", **_envelope(key), "id": model.id, "name": model.name, "title": v.head.title,
        "description": v.head.description, "facts": _model_facts(model, v.about_model, v.architecture),
        "quality_grades": [{"quant": q, "quality_grade": g} for q, g in v.quality.items()],
        "requirements": [{"context_tokens": row.context, "sequences": row.sequences,
                          "cells": [{"quant": q, "total_bytes": c["total_bytes"], "weights_bytes": c["weights_bytes"],
                                     "kv_cache_bytes": c["kv_cache_bytes"]} for q, c in row.cells.items()]}
                         for row in v.requirements],
        "cheapest_setups": [{"quant": s.quant, "single": setup(s.single), "multi": setup(s.multi)} for s in v.setups],
        "cheapest_serving": [
            {"precision": s.precision, "engine": s.engine, "gpu": _ref("gpu", s.gpu), "gpu_count": s.gpu_count,
             "tensor_parallel": s.tensor_parallel, "prompt_tokens": v.serving_prompt_tokens,
             "output_tokens": v.serving_output_tokens, "concurrency": s.concurrency,
             "output_tokens_per_s_per_gpu": s.output_tokens_per_s_per_gpu,
             "total_tokens_per_s_per_gpu": s.total_tokens_per_s_per_gpu,
             "tokens_per_s_per_user": s.tokens_per_s_per_user, "offer": s.offer_label,
             "price_usd_per_gpu_hour": s.usd_per_gpu_hour, "usd_per_million_output_tokens": s.output_usd_per_mtok,
             "usd_per_million_input_tokens": s.input_usd_per_mtok,
             "pair_json_path": urls.api_pair(model.id, s.gpu.id)} for s in v.serving],
        "finetune": [{"method": f.method, "total_bytes": f.est.total_bytes,
                      "suggested_gpu": f.gpu[1] if f.gpu else None} for f in v.finetune],
        "fits_count": v.fits_count,
        "gpus": [_summary(_ref("gpu", p.gpu), p.quant, p.grade, p.heavy_loss, p.estimate,
                          urls.api_pair(model.id, p.gpu.id)) for p in v.pairs],
        "sources": _sources(model),
    }


def gpu_document(key: PageKey, v: GpuView) -> GpuDocument:
    """The GPU page's numbers."""
    gpu = v.gpu
    return {
        "kind": "gpu", **_envelope(key), "id": gpu.id, "name": gpu.name, "title": v.head.title,
        "description": v.head.description, "facts": _gpu_facts(gpu, v.device.usable_memory_bytes, v.about_gpu),
        "fits_count": v.fits_count, "offers": [_offer(o) for o in v.offers],
        "models": [_summary(_ref("model", r.model), r.quant, r.grade, r.heavy_loss, r.estimate,
                            urls.api_pair(r.model.id, gpu.id))
                   for r in v.rows],
        "sources": _sources(gpu),
    }


def index_document(key: PageKey, v: IndexView) -> IndexDocument:
    """Every model and GPU with its document, the popular pairs, the downloads, schemas and licence."""
    return {
        "kind": "index", **_envelope(key), "title": v.head.title, "description": v.head.description,
        "models": [{**_ref("model", m.model), "total_params": m.model.total_params} for m in v.models],
        "gpus": [{**_ref("gpu", g.gpu), "memory_bytes": g.gpu.memory_bytes, "usable_memory_bytes": g.usable}
                 for g in v.gpus],
        "popular_pairs": [{"model": _ref("model", p.model), "gpu": _ref("gpu", p.gpu),
                           "pair_json_path": urls.api_pair(p.model.id, p.gpu.id),
                           "quant": p.quant, "quality_grade": p.grade, "total_bytes": p.estimate.total_bytes,
                           "decode_tokens_per_s": _speed(p.estimate.decode_tokens_per_s, p.estimate.runs)}
                          for p in v.popular],
        "popular_pairs_rule": v.popular_rule,
        "pair_json_path_template": urls.api_pair("{model}", "{gpu}"),
        "schemas": {kind: urls.api_schema(kind) for kind in SCHEMA_KINDS},
        "changelog_path": urls.api_changelog(),
        "assumption_labels": dict(sorted(labels.ASSUMPTION.items())),
        "downloads": {"pairs_csv_path": PAIRS_CSV, "datapackage_path": DATAPACKAGE},
        "licence": {"code": CODE_LICENCE, "data": CODE_LICENCE, "note": LICENCE_NOTE},
    }


DOCUMENTS: dict[str, Callable[[PageKey, Any], Mapping[str, object]]] = {
    "pair": pair_document, "model": model_document, "gpu": gpu_document, "index": index_document}


def document_bytes(key: PageKey, view: Any) -> bytes:
    """The JSON document of a page subject, from its (English) page view."""
    return dumps(DOCUMENTS[key.kind](key, view))
