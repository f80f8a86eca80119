"""Page view data: estimator results arranged for the templates (numbers only; templates format them)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, TypeVar
from urllib.parse import urlparse

from ..catalog import freshness
from ..catalog.licences import licence_name
from ..catalog.schema import Gpu, Model
from ..estimate import cost, fidelity, serving, serving_setup, speed
from ..estimate.api import Estimate
from ..estimate.fit import on_gpu_verdict
from ..estimate.cost import HOURS_PER_MONTH
from ..links import is_safe_href
from ..sitedata import (FINETUNE_METHODS, FINETUNE_SEQ_LEN, OLDER_LAUNCH_YEAR, PAGE_CONTEXT_TOKENS, RANK, Results,
                       ServingChoice, matrix_quants)
from . import charts, commands, labels
from .api import DATAPACKAGE, PAIRS_CSV
from .plan import API_ROOT, PageKey
from markupsafe import Markup

from .i18n import Formatter

FITTING_SHOWN = 6  # largest models that fit, shown where the page's model does not
OPEN_DATA = {"api": f"{API_ROOT}index.json", "csv": PAIRS_CSV, "dictionary": DATAPACKAGE, "llms": "llms.txt"}


T = TypeVar("T")


@dataclass(frozen=True)
class Lang:
    """What a view needs of a language: its code, formatter, gettext and prose pages (rendered Markdown), and a
    memo for view parts many pages share (one ``Lang`` per language and process)."""

    code: str
    fmt: Formatter
    gettext: Callable[[str], str]
    prose: Callable[[str], Markup]
    memo: dict[tuple[Any, ...], Any] = field(default_factory=dict, compare=False, repr=False)

    def shared(self, key: tuple[Any, ...], compute: Callable[[], T]) -> T:
        """``compute()``, once per key in this language (the key must name everything the result depends on)."""
        try:
            return self.memo[key]
        except KeyError:
            value = self.memo[key] = compute()
            return value


def pair_path(language: str, model_id: str, gpu_id: str) -> str:
    return f"{language}/models/{model_id}/{gpu_id}/"


def model_path(language: str, model_id: str) -> str:
    return f"{language}/models/{model_id}/"


def gpu_path(language: str, gpu_id: str) -> str:
    return f"{language}/gpus/{gpu_id}/"


def compare_path(language: str, model_id: str) -> str:
    return f"{language}/compare/{model_id}/"


def _source_rows(entries: list[tuple[str, Model | Gpu]], gettext: Callable[[str], str]) -> list[dict[str, Any]]:
    rows = []
    for what, entry in entries:
        for source in entry.sources:
            link = is_safe_href(source.url)  # else a document title, shown as text
            fields = ", ".join(gettext(labels.FIELD[f]) if f in labels.FIELD else f for f in source.fields)
            rows.append({"what": f"{what} ({fields})", "url": source.url, "link": link,
                         "host": urlparse(source.url).netloc if link else source.url, "read": source.read})
    return rows


def cheapest_offer(results: Results, gpu_id: str) -> dict[str, Any] | None:
    """The cheapest single-GPU-equivalent offer for a GPU, as a table row."""
    offers = offer_rows(results, gpu_id)
    return offers[0] if offers else None


def marketed_memory_bytes(gpu: Gpu) -> int:
    """The GPU's memory as vendors and clouds state it, in decimal bytes (24 GB for an RTX 4090, whose driver
    reports 23.99 GiB): ``memory_gb`` where given, else ``memory_bytes`` is the marketed size read as GiB."""
    return round((gpu.memory_gb if gpu.memory_gb is not None else gpu.memory_bytes / 2**30) * 1e9)


def offer_rows(results: Results, gpu_id: str) -> list[dict[str, Any]]:
    """Cloud offers for a GPU, cheapest per GPU first, each with its age on the build's price reference date."""
    gpu = results.catalog.gpus[gpu_id]
    as_of = results.price_reference_date
    rows = []
    for p, o in results.offers_by_gpu[gpu_id]:
        age = freshness.age_days(o.checked, as_of) if as_of else 0
        rows.append({"provider": p.name, "instance": o.instance, "vram_bytes": marketed_memory_bytes(gpu) * o.gpu_count,
                     "gpu_count": o.gpu_count, "usd_per_hour": o.price_usd_per_hour,
                     "usd_per_gpu_hour": o.price_usd_per_hour / o.gpu_count,
                     "usd_per_month": o.price_usd_per_hour * HOURS_PER_MONTH, "billing": o.billing, "tier": o.tier,
                     "checked": o.checked, "age_days": age, "stale": freshness.is_stale(age), "url": o.url})
    return rows


def cheapest_per_tier(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The cheapest offer of each tier, cheapest first: what a pair page lists (its GPU page lists them all)."""
    seen: set[str] = set()
    return [row for row in rows if not (row["tier"] in seen or seen.add(row["tier"]))]


def rental_cost(offers: list[dict[str, Any]], e: Estimate) -> dict[str, Any] | None:
    """Cost per 1M output tokens on the cheapest offer (``offer_rows`` order), or None without an offer or speed."""
    if not offers or e.decode_tokens_per_s <= 0:
        return None
    cheapest = offers[0]
    per_gpu = cheapest["usd_per_gpu_hour"]
    return {"usd_per_hour": per_gpu, "offer_label": f"{cheapest['provider']}, {cheapest['instance']}",
            "single_usd_per_mtok": cost.usd_per_million_tokens(e.decode_tokens_per_s, per_gpu),
            "batched_usd_per_mtok": cost.usd_per_million_tokens(max(e.batched_tokens_per_s, e.decode_tokens_per_s), per_gpu)}


def _split(estimate: Estimate) -> list[dict[str, Any]]:
    total = estimate.total_bytes or 1
    parts = (("weights", estimate.weights_bytes), ("kv", estimate.kv_cache_bytes), ("runtime", estimate.runtime_overhead_bytes))
    return [{"key": key, "width": round(100 * size / total, 2)} for key, size in parts]


def _context_view(results: Results, model_id: str, gpu_id: str, lang: Lang) -> dict[str, Any]:
    sweep = results.context_sweep(model_id, gpu_id)
    usable = sweep.usable_bytes
    rows = [{"context": context, "kv_f16": kv_f16, "total_f16": total_f16, "over_f16": total_f16 > usable,
             "kv_q8": kv_q8, "total_q8": total_q8, "over_q8": total_q8 > usable}
            for context, kv_f16, total_f16, kv_q8, total_q8 in sweep.rows]
    _ = lang.gettext
    chart = charts.line_chart(
        _("Memory against context length"), tuple(lang.fmt.tokens(r["context"]) for r in rows),
        (charts.Series("c-f16", _("KV cache f16"), tuple(r["total_f16"] / 2**30 for r in rows)),
         charts.Series("c-q8", _("KV cache q8_0"), tuple(r["total_q8"] / 2**30 for r in rows))),
        results.devices[gpu_id].usable_memory_bytes / 2**30, _("usable memory"), "GiB", lambda v: lang.fmt.number(v, 0))
    return {"context_rows": rows, "context_chart": chart, "max_context_f16": sweep.max_context_f16,
            "max_context_q8": sweep.max_context_q8}


def _link_rows(results: Results, lang: Lang, pairs: list[tuple[str, str]], named: str) -> list[dict[str, Any]]:
    """Link rows to pair pages, named after the pair's GPU or model (``named``); one row object per pair and name
    in a language (every pair appears in the related links of dozens of pages)."""
    def row(m: str, g: str) -> dict[str, Any]:
        pick = results.pairs[(m, g)]
        name = results.catalog.gpus[g].name if named == "gpu" else results.catalog.models[m].name
        return {"path": pair_path(lang.code, m, g), "name": name, "verdict": pick.estimate.verdict,
                "quant": pick.quant, "estimate": pick.estimate}
    return [lang.shared(("link", named, m, g), lambda m=m, g=g: row(m, g)) for m, g in pairs]


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


def related_links(results: Results, model_id: str, gpu_id: str, lang: Lang) -> dict[str, Any]:
    """The related pairs as link rows: GPU names for this model's other GPUs, model names otherwise."""
    related = related_pairs(results, model_id, gpu_id)
    return {"other_gpus": _link_rows(results, lang, related["other_gpus"], "gpu"),
            "other_models": _link_rows(results, lang, related["other_models"], "model"),
            "largest_here": _link_rows(results, lang, related["largest_here"], "model")}


def _crumb(name: str, path: str) -> dict[str, str]:
    return {"name": name, "path": path}


def _latest_read(*entries: Model | Gpu) -> str:
    return max(s.read for e in entries for s in e.sources).isoformat()


def _finetune_rows(results: Results, model_id: str, gpu_id: str, language: str) -> list[dict[str, Any]]:
    device = results.devices[gpu_id]
    rows = []
    for method in FINETUNE_METHODS:
        est = results.finetune(model_id, method)
        verdict = on_gpu_verdict(est.total_bytes, device.usable_memory_bytes) or "no_fit"
        suggestion = results.finetune_gpu(model_id, method)
        rows.append({"method": method, "est": est, "verdict": verdict, "seq_len": FINETUNE_SEQ_LEN,
                     "grads_optimizer_bytes": est.gradients_bytes + est.optimizer_bytes,
                     "suggestion": suggestion[1] if suggestion else None,
                     "suggestion_path": gpu_path(language, suggestion[0]) if suggestion else None})
    return rows


def assumption_rows(estimate: Estimate, lang: Lang) -> list[dict[str, Any]]:
    """The estimator's assumptions with translated labels; a text the label tables miss keeps its English words."""
    # Nearly every pair has its own list (GPU and model figures), but the items recur: translate each once.
    return [lang.shared(("assumption", key, value), lambda: _assumption_row(key, value, lang))
            for key, value in estimate.assumptions]


def _assumption_row(key: str, value: str, lang: Lang) -> dict[str, Any]:
    text, translated = labels.localise(value, lang.gettext, lang.fmt.number(0.5, 1)[1])
    return {"key": key, "label": lang.gettext(labels.ASSUMPTION[key]) if key in labels.ASSUMPTION else key,
            "value": text, "english": not translated and lang.code != "en"}


def native_precision(model: Model, spec: Any) -> str | None:
    """The precision the checkpoint is published in (BF16, FP8, MXFP4), from its config."""
    if spec.native_format in ("mxfp4", "fp8"):
        return spec.native_format.upper()
    dtype = model.config.get("torch_dtype") or model.config.get("dtype")
    return labels.DTYPE.get(str(dtype)) if dtype else None


def about_model(model: Model, spec: Any) -> dict[str, Any]:
    """Catalogue facts of a model: maker, licence, release, repository, native precision, published files."""
    return {"org": model.org, "family": model.family, "license": licence_name(model.license) if model.license else None,
            "release_date": model.release_date,
            "hf_repo": model.hf_repo, "hf_url": f"https://huggingface.co/{model.hf_repo}",
            "native": native_precision(model, spec),
            "gguf": [{"repo": r.repo, "url": f"https://huggingface.co/{r.repo}", "read": r.read,
                      "files": sorted(({"quant": f.quant, "size_bytes": f.size_bytes} for f in r.files),
                                      key=lambda f: -f["size_bytes"])} for r in model.gguf],
            "ollama": [{"tag": t.tag, "quant": t.quant, "size_bytes": t.size_bytes} for t in model.ollama],
            "checkpoints": [{"repo": c.repo, "quant": c.quant, "url": f"https://huggingface.co/{c.repo}"}
                            for c in model.checkpoints]}


def about_gpu(gpu: Gpu) -> dict[str, Any]:
    """Catalogue facts of a GPU: memory, bandwidth, compute, power, launch, price and backends."""
    gib = gpu.memory_bytes / 2**30
    return {"gpu": gpu, "backends": list(gpu.backends),
            "usd_per_gib": gpu.price_usd / gib if gpu.price_usd else None,
            "gb_s_per_gib": gpu.bandwidth_gb_per_s / gib,
            "fp16_per_gb_s": gpu.fp16_tensor_tflops * 1000 / gpu.bandwidth_gb_per_s if gpu.fp16_tensor_tflops else None}


def pair_insight(results: Results, model_id: str, gpu_id: str, e: Estimate, lang: Lang) -> dict[str, Any]:
    """Numbers that reason about this pair: context per GiB of margin, bandwidth ceiling, the model's fastest GPU."""
    spec, device = results.models[model_id], results.devices[gpu_id]
    kv_per_token = results.kv_per_1k(model_id) / 1024
    fits = e.verdict in ("fits", "tight")
    insight: dict[str, Any] = {
        "tokens_per_gib": int(2**30 / kv_per_token) if kv_per_token else None,
        "margin_tokens": int(e.margin_bytes / kv_per_token) if kv_per_token and fits and e.margin_bytes > 0 else None,
        "shortfall_bytes": max(0, e.total_bytes - e.usable_bytes),
        "shortfall_ratio": e.total_bytes / e.usable_bytes - 1 if e.usable_bytes and not fits else None,
        "dense": spec.active_params >= spec.total_params,
        "active_share": spec.active_params / spec.total_params,
        "ceiling": None, "fastest": None, "is_fastest": False}
    if fits and insight["dense"] and device.count == 1 and e.weights_bytes:
        ceiling = device.bandwidth_bytes_per_s / e.weights_bytes
        insight["ceiling"] = {"ms_per_token": 1000 / ceiling, "tokens_per_s": ceiling,
                              "share": e.decode_tokens_per_s / ceiling}
    best = next((pick.gpu for pick in results.recommendations(model_id) if pick.role == "fastest"), None)
    if best == gpu_id:
        insight["is_fastest"] = True
    elif best and e.runs:
        top = results.pairs[(model_id, best)]
        insight["fastest"] = {"gpu": results.catalog.gpus[best], "path": pair_path(lang.code, model_id, best),
                              "quant": top.quant, "decode": top.estimate.decode_tokens_per_s,
                              "ratio": e.decode_tokens_per_s / top.estimate.decode_tokens_per_s}
    return insight


def quality_cells(quant: str, native_format: str) -> dict[str, Any]:
    """A matrix row's quality: the grade and whether the quant meets the recommendation floor."""
    grade = fidelity.grade(quant, native_format)
    return {"grade": grade, "at_floor": grade in fidelity.AT_FLOOR}


def pair_view(results: Results, key: Any, lang: Lang) -> dict[str, Any]:
    """The model-on-GPU report."""
    _ = lang.gettext
    model, gpu = results.catalog.models[key.model], results.catalog.gpus[key.gpu]
    spec, device = results.models[key.model], results.devices[key.gpu]
    pick = results.pairs[(key.model, key.gpu)]
    e = pick.estimate
    view: dict[str, Any] = {
        "model": model, "gpu": gpu, "spec": spec, "headline": e, "quant": pick.quant, "context": PAGE_CONTEXT_TOKENS,
        **{f"quant_{k}": value for k, value in quality_cells(pick.quant, spec.native_format).items()},
        "kv_type": "f16", "device_memory_bytes": device.memory_bytes,
        "margin_ratio": e.margin_bytes / e.usable_bytes if e.usable_bytes else 0.0,
        "utilisation": e.total_bytes / e.usable_bytes if e.usable_bytes else 0.0,
        "offloaded_bytes": max(0, e.total_bytes - e.usable_bytes),
        "split": _split(e),
        "matrix": [{"quant": q, "est": results.quant_estimate(key.model, key.gpu, q), **quality_cells(q, spec.native_format),
                    "best_gpu": results.catalog.gpus.get(results.best_gpu(key.model, q) or ""),
                    "best_gpu_path": pair_path(lang.code, key.model, results.best_gpu(key.model, q) or "")}
                   for q in matrix_quants(spec)],
        "sequences_8k": e.max_sequences,
    }
    view.update(_context_view(results, key.model, key.gpu, lang))
    offers = lang.shared(("offers", gpu.id), lambda: offer_rows(results, gpu.id))
    view["offers"] = offers
    view["offers_shown"] = lang.shared(("offers_shown", gpu.id), lambda: cheapest_per_tier(offers))
    view["gpu_path"] = gpu_path(lang.code, gpu.id)
    view["prices_as_of"], view["stale_after_days"] = results.price_reference_date, freshness.STALE_AFTER_DAYS
    view["cost"] = rental_cost(offers, e)
    view["rent_vs_buy"] = None
    purchase = purchase_price(gpu)
    if purchase and gpu.tdp_w:
        price, kind, date = purchase
        rent = offers[0]["usd_per_gpu_hour"] if offers else None
        view["rent_vs_buy"] = {
            "price_usd": price, "price_kind": kind, "price_date": date, "usd_per_kwh": cost.DEFAULT_USD_PER_KWH, "hours_per_month": HOURS_PER_MONTH,
            "power_usd_per_month": cost.power_usd_per_hour(gpu.tdp_w) * HOURS_PER_MONTH,
            "breakeven_months": cost.break_even_months(price, rent, gpu.tdp_w) if rent else None,
            "owned": _owned(price, gpu.tdp_w, e) if e.runs else None}
    view["finetune"] = _finetune_rows(results, key.model, key.gpu, lang.code)
    view["serving"] = serving_view(results, key, lang, offers)
    view["commands"] = pair_commands(results, key, pick.quant, e)
    view["offload"] = _offload_view(e)
    # Parts shared by every pair page of a model or a GPU (their HTML is cached too: see cached() in render.py).
    view["recommended"] = lang.shared(("recommended", model.id), lambda: recommended_hardware(results, model.id, lang.code))
    view["architecture"] = lang.shared(("architecture", model.id), lambda: architecture_facts(results, model.id))
    view["about_model"] = lang.shared(("about_model", model.id), lambda: about_model(model, spec))
    view["about_gpu"] = lang.shared(("about_gpu", gpu.id), lambda: about_gpu(gpu))
    view["model_sources"] = lang.shared(("model_sources", model.id), lambda: _source_rows([(model.name, model)], _))
    view["gpu_sources"] = lang.shared(("gpu_sources", gpu.id), lambda: _source_rows([(gpu.name, gpu)], _))
    view["insight"] = pair_insight(results, key.model, key.gpu, e, lang)
    view["assumptions"] = assumption_rows(e, lang)
    view["error_band"] = results.error_band(gpu.backends[0])
    view.update(related_links(results, key.model, key.gpu, lang))
    view["compare_path"] = compare_path(lang.code, model.id)
    view["breadcrumbs"] = [_crumb(_("Home"), f"{lang.code}/"), _crumb(model.name, model_path(lang.code, model.id)),
                           _crumb(gpu.name, pair_path(lang.code, model.id, gpu.id))]
    view["title"] = _pair_title(model, gpu, pick.quant, e, lang)
    view["description"] = _pair_description(model, gpu, pick.quant, e, lang)
    view["modified"] = _latest_read(model, gpu)
    return view


def purchase_price(gpu: Gpu) -> tuple[float, str, Any] | None:
    """(USD, kind, date) rent-or-buy uses: a current street price where one is given, else the catalogued price."""
    if gpu.street_price_usd is not None:
        return gpu.street_price_usd, "street", gpu.street_price_date
    if gpu.price_usd is not None:
        return gpu.price_usd, gpu.price_kind or "msrp", gpu.price_date
    return None
def _offload_view(e: Estimate) -> dict[str, Any] | None:
    """What stays in system RAM when the model does not fit: expert layers or whole layers, their bytes, and the
    system-RAM bandwidth the decode speed assumes."""
    plan = e.offload
    if plan is None:
        return None
    return {"cpu_moe_layers": plan.cpu_moe_layers, "cpu_layers": plan.n_layers - plan.gpu_layers,
            "gpu_layers": plan.gpu_layers,
            "n_layers": plan.n_layers, "host_bytes": plan.host_bytes, "expert_bytes": plan.host_expert_bytes,
            "dense_bytes": plan.host_dense_bytes, "gpu_bytes": plan.gpu_bytes,
            "host_gb_per_s": speed.DEFAULT_HOST_BANDWIDTH_BYTES_PER_S / 1e9}


def _owned(price_usd: float, tdp_w: float, e: Estimate) -> dict[str, Any]:
    """Own the GPU for three years at full load: cost per hour and per 1M tokens, energy and speed per dollar."""
    owned = cost.owned_cost(price_usd, tdp_w)
    return {"months": cost.DEFAULT_AMORTISATION_MONTHS, "usd_per_hour": owned.usd_per_hour,
            "usd_per_mtok": cost.usd_per_million_tokens(e.decode_tokens_per_s, owned.usd_per_hour),
            "joules_per_token": tdp_w / e.decode_tokens_per_s,
            "tokens_per_s_per_100_usd": e.decode_tokens_per_s * 100 / price_usd}


def pair_commands(results: Results, key: Any, quant: str, estimate: Estimate) -> list[dict[str, Any]]:
    """llama.cpp, vLLM, SGLang (where the page has a serving plan) and Ollama commands for the page's recommended
    setup (vLLM and SGLang alone where it does not run: their commands may need several GPUs)."""
    model, gpu = results.catalog.models[key.model], results.catalog.gpus[key.gpu]
    setup, (runnable, skipped) = results.vllm_setup(key.model, key.gpu), results.vllm_checkpoints(key.model, key.gpu)
    plan = results.serving(key.model, key.gpu)[0]
    vllm = (commands.vllm_serving(model, gpu, plan, results.vllm_utilisation) if plan else
            commands.vllm(setup, gpu, PAGE_CONTEXT_TOKENS, "f16", results.vllm_utilisation, skipped, bool(runnable)))
    if not estimate.runs and setup is None and plan is None and not skipped:
        return []  # nothing runs: the page says so in one sentence
    found = [vllm, commands.sglang_serving(model, gpu, plan) if plan else None]
    if estimate.runs:  # no llama.cpp or Ollama command for a setup that does not run
        found = [commands.llama_cpp(model, quant, estimate, PAGE_CONTEXT_TOKENS, "f16"), *found,
                 commands.ollama(model, quant, estimate.file_size_bytes, PAGE_CONTEXT_TOKENS, "f16")]
    return [{"engine": c.engine, "text": c.text, "remark": c.remark, "serves": c.serves, "size_bytes": c.size_bytes,
             "skipped": ", ".join(c.skipped),
             "setup": setup if c.engine.startswith("vLLM") and c.remark != "serving" else None}
            for c in found if c is not None]


SERVING_TABLE_LEVELS = (1, 8, 32, 128, 512)


def serving_view(results: Results, key: Any, lang: Lang, offers: list[dict[str, Any]]) -> dict[str, Any] | None:
    """Batched serving with vLLM: the throughput/per-user curve, a table, the operating point and its cost."""
    plan = results.serving(key.model, key.gpu)[0]
    if plan is None:
        return None
    _ = lang.gettext
    op = plan.operating
    chart = charts.curve_chart(
        _("Throughput per GPU against speed per user"),
        tuple((p.tokens_per_s_per_user, p.output_tokens_per_s_per_gpu) for p in plan.points),
        (op.tokens_per_s_per_user, op.output_tokens_per_s_per_gpu) if op else None,
        serving.MIN_USER_TOKENS_PER_S, _("output tok/s per user"), _("output tok/s per GPU"),
        _("%(n)s tok/s per user") % {"n": lang.fmt.number(serving.MIN_USER_TOKENS_PER_S, 0)},
        lambda v: lang.fmt.number(v, 0))
    rows = [p for p in plan.points if p.concurrency in SERVING_TABLE_LEVELS or p is plan.points[-1]]
    if op is not None and all(p.concurrency != op.concurrency for p in rows):
        rows = sorted([*rows, op], key=lambda p: p.concurrency)
    price = None
    if offers and op is not None:
        per_gpu = offers[0]["usd_per_gpu_hour"]
        priced = cost.serving_price(op, per_gpu)
        price = {"usd_per_gpu_hour": per_gpu, "offer_label": f"{offers[0]['provider']}, {offers[0]['instance']}",
                 "output_usd_per_mtok": priced.output_usd_per_mtok, "input_usd_per_mtok": priced.input_usd_per_mtok,
                 "prefill_share": op.prefill_share}
    return {"plan": plan, "chart": chart, "rows": rows, "operating": op, "cost": price,
            "floor": serving.MIN_USER_TOKENS_PER_S}


def recommended_hardware(results: Results, model_id: str, language: str) -> list[dict[str, Any]]:
    """Best single GPU, best value, used/older option, Apple unified memory and cheapest cloud, as pair links, each
    with the figure it won on and its quality grade."""
    native = results.models[model_id].native_format
    rows = []
    for pick in results.recommendations(model_id):
        gpu, pair = results.catalog.gpus[pick.gpu], results.pairs[(model_id, pick.gpu)]
        speed = pair.estimate.decode_tokens_per_s
        rows.append({"role": pick.role, "gpu": gpu, "path": pair_path(language, model_id, pick.gpu),
                     "estimate": pair.estimate, "quant": pair.quant, "offer": pick.offer,
                     "grade": fidelity.grade(pair.quant, native), "below_floor": pick.below_floor,
                     "usd_per_tok_s": gpu.price_usd / speed if gpu.price_usd and speed else None,
                     "older_year": OLDER_LAUNCH_YEAR})
    return rows


def architecture_facts(results: Results, model_id: str) -> dict[str, Any]:
    """Layers, attention kind, KV bytes per 1K tokens and experts, from the estimator's architecture."""
    spec = results.models[model_id]
    mixers: dict[tuple[str, int | None], int] = {}
    for layer in spec.architecture.main_layers:
        key = (layer.attention, layer.window)
        mixers[key] = mixers.get(key, 0) + 1
    return {"arch": spec.architecture, "kv_bytes_per_1k": results.kv_per_1k(model_id),
            "mixers": [{"kind": kind, "window": window, "layers": count} for (kind, window), count in mixers.items()],
            "kv_heads": max((layer.n_kv_heads for layer in spec.architecture.main_layers), default=0),
            "total_params": spec.total_params, "active_params": spec.active_params}


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


def model_view(results: Results, key: Any, lang: Lang) -> dict[str, Any]:
    """Requirements of one model at each precision and context, and where it runs."""
    _ = lang.gettext
    model, spec = results.catalog.models[key.model], results.models[key.model]
    requirement_rows = results.model_requirements(key.model)
    ranked = sorted(results.catalog.gpus, key=lambda g: (RANK[results.pairs[(key.model, g)].estimate.verdict],
                                                           -results.pairs[(key.model, g)].estimate.decode_tokens_per_s, g))
    fitting = sum(1 for g in ranked if results.pairs[(key.model, g)].estimate.verdict in ("fits", "tight"))
    summary = results.page_context_requirements(key.model)
    # The description's numbers, kept for the social preview image too (it draws them, never recomputes them).
    headline = {"q4_bytes": summary["Q4_K_M"], "bf16_bytes": summary["BF16"],
                "q4_fits": results.fitting_count(key.model, "Q4_K_M"), "gpus": len(ranked)}
    return {
        "model": model, "spec": spec, "requirements": requirement_rows,
        "quality": {q: fidelity.grade(q, spec.native_format) for q in (requirement_rows[0]["cells"] if requirement_rows else ())},
        "setups": results.cheapest_setups(key.model),
        "serving": [serving_choice_row(results, choice, key.model, lang.code) for choice in results.cheapest_serving(key.model)],
        "serving_floor": serving.MIN_USER_TOKENS_PER_S,
        "serving_prompt_tokens": serving_setup.PAGE_PROMPT_TOKENS, "serving_output_tokens": serving_setup.PAGE_OUTPUT_TOKENS,
        "finetune": [{"method": m, "est": results.finetune(key.model, m), "gpu": results.finetune_gpu(key.model, m)}
                     for m in FINETUNE_METHODS],
        "architecture": architecture_facts(results, key.model), "about_model": about_model(model, spec),
        "pairs": [{"gpu": results.catalog.gpus[g], "path": pair_path(lang.code, key.model, g),
                   "quant": results.pairs[(key.model, g)].quant, "estimate": results.pairs[(key.model, g)].estimate}
                  for g in ranked],
        "fits_count": fitting, "headline": headline, "compare_path": compare_path(lang.code, model.id),
        "sources": _source_rows([(model.name, model)], _),
        "breadcrumbs": [_crumb(_("Home"), f"{lang.code}/"), _crumb(model.name, model_path(lang.code, model.id))],
        "title": _("%(model)s: VRAM, speed and cost on %(n)s GPUs") % {"model": model.name, "n": len(ranked)},
        "description": _("%(model)s needs %(q4)s at Q4_K_M and %(bf16)s at BF16 with 8K context; at Q4_K_M it fits fully on %(fit)s of %(n)s catalogued GPUs.") % {
            "model": model.name, "q4": lang.fmt.gib(headline["q4_bytes"]), "bf16": lang.fmt.gib(headline["bf16_bytes"]),
            "fit": lang.fmt.number(headline["q4_fits"]), "n": lang.fmt.number(headline["gpus"])},
        "modified": _latest_read(model),
    }


def serving_choice_row(results: Results, choice: ServingChoice, model_id: str, language: str) -> dict[str, Any]:
    """A model page's serving row: the setup, its operating point and its price, as the pair page it links to shows
    them (the same plan, offer and ``cost.serving_price``)."""
    plan, op = choice.plan, choice.plan.operating
    return {"precision": plan.precision, "gpu": results.catalog.gpus[choice.gpu], "path": pair_path(language, model_id, choice.gpu),
            "gpu_count": plan.gpu_count, "tensor_parallel": plan.tensor_parallel, "engine": plan.engine,
            "concurrency": op.concurrency, "output_tokens_per_s_per_gpu": op.output_tokens_per_s_per_gpu,
            "total_tokens_per_s_per_gpu": op.total_tokens_per_s_per_gpu, "tokens_per_s_per_user": op.tokens_per_s_per_user,
            "offer_label": f"{choice.provider}, {choice.instance}", "usd_per_gpu_hour": choice.usd_per_gpu_hour,
            "output_usd_per_mtok": choice.price.output_usd_per_mtok, "input_usd_per_mtok": choice.price.input_usd_per_mtok}


def gpu_view(results: Results, key: Any, lang: Lang) -> dict[str, Any]:
    """Every model on one GPU with its best quantization, speed and largest context."""
    _ = lang.gettext
    gpu = results.catalog.gpus[key.gpu]
    rows = sorted(({"model": results.catalog.models[m], "path": pair_path(lang.code, m, key.gpu),
                    "quant": results.pairs[(m, key.gpu)].quant, "estimate": results.pairs[(m, key.gpu)].estimate}
                   for m in results.catalog.models),
                  key=lambda r: (RANK[r["estimate"].verdict], -r["estimate"].decode_tokens_per_s, r["model"].id))
    fitting = sum(1 for r in rows if r["estimate"].verdict in ("fits", "tight"))
    return {
        "gpu": gpu, "device": results.devices[key.gpu], "rows": rows, "fits_count": fitting, "about_gpu": about_gpu(gpu),
        "offers": offer_rows(results, key.gpu), "prices_as_of": results.price_reference_date,
        "stale_after_days": freshness.STALE_AFTER_DAYS, "sources": _source_rows([(gpu.name, gpu)], _),
        "comparisons": [{"model": results.catalog.models[m], "path": compare_path(lang.code, m)}
                        for m in results.compared_with[key.gpu]],
        "breadcrumbs": [_crumb(_("Home"), f"{lang.code}/"), _crumb(gpu.name, gpu_path(lang.code, gpu.id))],
        "title": _("%(gpu)s for LLMs: which models fit and how fast") % {"gpu": gpu.name},
        "description": _("%(gpu)s offers %(usable)s for models and %(bw)s GB/s: %(fit)s of %(n)s catalogued LLMs fit fully at 8K context.") % {
            "gpu": gpu.name, "usable": lang.fmt.gib(results.devices[key.gpu].usable_memory_bytes),
            "bw": lang.fmt.number(gpu.bandwidth_gb_per_s), "fit": lang.fmt.number(fitting), "n": lang.fmt.number(len(rows))},
        "modified": _latest_read(gpu),
    }


def compare_view(results: Results, key: Any, lang: Lang) -> dict[str, Any]:
    """A model on its recommended GPUs side by side: fit, speed, cost and the llama.cpp command of each."""
    _ = lang.gettext
    model = results.catalog.models[key.model]
    roles: dict[str, list[str]] = {}
    for pick in results.recommendations(model.id):
        roles.setdefault(pick.gpu, []).append(pick.role)
    columns = []
    for gpu_id in results.compare_gpus(model.id):
        pick = results.pairs[(model.id, gpu_id)]
        offers = lang.shared(("offers", gpu_id), lambda gpu_id=gpu_id: offer_rows(results, gpu_id))
        columns.append({"gpu": results.catalog.gpus[gpu_id], "path": pair_path(lang.code, model.id, gpu_id),
                        "roles": roles.get(gpu_id, []), "quant": pick.quant, "estimate": pick.estimate,
                        "cost": rental_cost(offers, pick.estimate),
                        "command": next((c for c in pair_commands(results, PageKey("pair", model.id, gpu_id), pick.quant,
                                                                  pick.estimate) if c["engine"] == "llama.cpp"), None)})
    names = ", ".join(c["gpu"].name for c in columns)
    return {
        "model": model, "columns": columns,
        "breadcrumbs": [_crumb(_("Home"), f"{lang.code}/"), _crumb(model.name, model_path(lang.code, model.id)),
                        _crumb(_("GPU comparison"), compare_path(lang.code, model.id))],
        "title": _("%(model)s on %(n)s GPUs side by side: memory, speed and cost") % {"model": model.name, "n": len(columns)},
        "description": _("%(model)s on %(gpus)s: memory, decode speed, time to first token, cost per million tokens "
                         "and launch commands, side by side.") % {"model": model.name, "gpus": names},
        "modified": _latest_read(model, *(c["gpu"] for c in columns)),
    }


def index_view(results: Results, key: Any, lang: Lang) -> dict[str, Any]:
    """Searchable lists of every model and GPU, and popular pairs."""
    _ = lang.gettext
    catalog = results.catalog
    models = sorted(catalog.models.values(), key=lambda m: (m.family, m.total_params, m.id))
    gpus = sorted(catalog.gpus.values(), key=lambda g: (g.vendor, g.memory_bytes, g.id))
    return {
        "models": [{"model": m, "path": model_path(lang.code, m.id)} for m in models],
        "gpus": [{"gpu": g, "path": gpu_path(lang.code, g.id), "usable": results.devices[g.id].usable_memory_bytes} for g in gpus],
        "popular": [{"model": catalog.models[m], "gpu": catalog.gpus[g], "path": pair_path(lang.code, m, g),
                     "estimate": results.pairs[(m, g)].estimate} for m, g in results.popular_pairs()],
        "open_data": OPEN_DATA,
        "popular_rule": _("Not a popularity ranking: models spread evenly by size, each on the catalogued GPU with "
                          "the least memory that holds it with margin at 8K context."),
        "breadcrumbs": [],
        "title": _("VRAM Atlas: can this GPU run this LLM? Memory, speed and cost"),
        "description": _("Memory, speed, cost and launch commands for %(m)s LLMs on %(g)s GPUs, from one published estimator with its measured error.") % {
            "m": lang.fmt.number(len(models)), "g": lang.fmt.number(len(gpus))},
    }


def methodology_view(results: Results, key: Any, lang: Lang) -> dict[str, Any]:
    """Formulas, assumptions and the cross-validated error on the calibration data."""
    _ = lang.gettext
    methods = {"gpu": _("leave one GPU out"), "source": _("leave one source out"), "formula": _("formula, nothing fitted")}
    kinds = {"decode_tps": _("decode"), "prefill_tps": _("prefill"), "ttft_s": _("time to first token"),
             "filesize": _("file size")}
    rows = [{**r, "method": methods[r["method"]], "kind": kinds[r["kind"]],
             "group": _("all") if r["group"] == "all" else r["group"]} for r in results.cross_validated]
    charts_ = [
        charts.scatter_chart(title, results.held_out_points(kind),
                             _("measured tok/s"), _("estimated tok/s"), lambda v: lang.fmt.number(v, 0))
        for kind, title in (("decode_tps", _("Decode speed on GPUs left out of the fit")),
                            ("prefill_tps", _("Prefill speed on GPUs left out of the fit")))]
    return {
        "report": rows, "constants": results.constants_table, "charts": charts_,
        "engines": [{**e, "engine": labels.localise(e["engine"], lang.gettext, lang.fmt.number(0.5, 1)[1])[0]}
                    for e in results.engines],
        "prose": lang.prose("methodology"),
        "serving": serving_methodology(),
        "quality": [{"figure": f, "grade": fidelity.grade_of_kld(f.kld), "imatrix": None if f.imatrix == "none" else f.imatrix}
                    for f in fidelity.figures().values()],
        "breadcrumbs": [_crumb(_("Home"), f"{lang.code}/"), _crumb(_("Methodology"), f"{lang.code}/methodology/")],
        "title": _("How VRAM Atlas estimates memory, speed and cost, and how far off it is"),
        "description": _("Formulas per attention kind and quantization, speed constants per backend and engine build, and the error on GPUs and sources left out of the fit, over %(n)s measurements.") % {
            "n": lang.fmt.number(sum(r["rows"] for r in results.cross_validated
                                     if r["group"] == "all" and r["method"] in ("gpu", "formula")
                                     and r["kind"] != "ttft_s"))},
        "modified": results.calibration_date,
    }


def serving_methodology() -> dict[str, Any]:
    """The serving model's fitted constants per engine and backend and its error, for the methodology page."""
    from ..estimate import serving_constants

    constants = [{"group": key, "bandwidth_efficiency": c.bandwidth_efficiency,
                  "compute_efficiency": c.compute_efficiency, "step_ms": c.step_s * 1e3,
                  "all_reduce_us": c.all_reduce_s * 1e6, "provenance": c.provenance}
                 for key, c in serving_constants.CONSTANTS.items()]
    errors = [{"kind": kind, "validation": validation, "rows": rows, "median": median, "within": within}
              for kind, validation, rows, median, within in serving_constants.CV_STATS + serving_constants.FIT_STATS]
    return {"constants": constants, "errors": errors, "floor": serving.MIN_USER_TOKENS_PER_S}


def notfound_view(results: Results, key: Any, lang: Lang) -> dict[str, Any]:
    """The 404 page."""
    _ = lang.gettext
    return {"breadcrumbs": [], "title": _("Page not found · VRAM Atlas"),
            "description": _("This page does not exist. Find a model or a GPU from the index.")}


VIEWS: dict[str, Callable[[Results, Any, Lang], dict[str, Any]]] = {
    "pair": pair_view, "model": model_view, "gpu": gpu_view, "compare": compare_view, "index": index_view,
    "methodology": methodology_view, "notfound": notfound_view,
}
