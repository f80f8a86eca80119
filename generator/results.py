"""The estimate stage: every (model, GPU) pair's recommended setup, computed once before pages are planned."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from functools import cache, cached_property
from typing import Any, Callable, Iterator, NamedTuple, TypeVar

from .catalog.schema import Catalog, CloudOffer, CloudProvider, Gpu
from .estimate import api, calibration, finetune
from .estimate import constants as fitted
from .estimate.kvcache import kv_cache_bytes, kv_layout
from .estimate.api import Estimate, ModelSpec, Request
from .estimate.cost import HOURS_PER_MONTH
from .estimate.device import DeviceSpec, device_spec
from .incremental import ASSUMPTIONS, GPU_FIELDS_OUTSIDE_ESTIMATES, EstimateStore, digest, pack

# Quantizations tried for a recommendation, best quality first. Q8_0 leads: BF16 costs twice the memory and
# bandwidth for no measurable quality gain in llama.cpp's perplexity tables.
PREFERENCE = ("Q8_0", "Q6_K", "Q5_K_M", "Q4_K_M", "IQ4_XS", "Q3_K_M", "Q2_K", "IQ2_XXS", "IQ1_S")
NATIVE_MXFP4 = ("MXFP4_MOE", "Q2_K", "IQ1_S")
MATRIX = ("BF16", "Q8_0", "Q6_K", "Q5_K_M", "Q4_K_M", "IQ4_XS", "Q3_K_M", "Q2_K", "IQ2_XXS", "IQ1_S")
PAGE_CONTEXT_TOKENS = 8192
CONTEXT_STEPS = (4096, 8192, 16384, 32768, 65536, 131072, 262144, 524288, 1048576)
RANK = {"fits": 0, "tight": 1, "offload": 2, "no_fit": 3}
T = TypeVar("T")


@cache  # built once each: a frozen dataclass's __init__ sets every field through object.__setattr__
def _page_request(quant: str, context_tokens: int) -> Request:
    return Request(quant=quant, context_tokens=context_tokens)


def preference(model: ModelSpec) -> tuple[str, ...]:
    """Quantizations to try for this model, best first (MXFP4-native models start at their own format)."""
    return NATIVE_MXFP4 if model.native_format == "mxfp4" else PREFERENCE


def matrix_quants(model: ModelSpec) -> tuple[str, ...]:
    """Rows of the quantization matrix for this model."""
    return ("BF16", "MXFP4_MOE", *MATRIX[1:]) if model.native_format == "mxfp4" else MATRIX


@dataclass(frozen=True)
class PairResult:
    """The recommended setup of one model on one GPU and its estimate."""

    quant: str
    estimate: Estimate


def recommend(tried: list[tuple[str, Estimate]]) -> PairResult:
    """The best-quality quantization that fits; else the one that fits tightly; else the smallest that offloads."""
    for wanted in ("fits", "tight"):
        for quant, estimate in tried:
            if estimate.verdict == wanted:
                return PairResult(quant, estimate)
    quant, estimate = min(tried, key=lambda item: (RANK[item[1].verdict], item[1].total_bytes))
    return PairResult(quant, estimate)


class ContextSweep(NamedTuple):
    """A pair's memory against context length, and the largest context that fits with each KV type.

    ``rows``: (context, KV f16, total f16, KV q8_0, total q8_0) in bytes, as plain tuples (cheap to store)."""

    rows: tuple[tuple[int, int, int, int, int], ...]
    max_context_f16: int
    max_context_q8: int
    usable_bytes: int


@dataclass
class Results:
    """Catalogue plus estimator views of it, and every pair's recommendation."""

    catalog: Catalog
    store: EstimateStore = field(default_factory=EstimateStore)  # in memory only unless a build passes its own

    @cached_property
    def model_digests(self) -> dict[str, str]:
        """Content digest of each model entry."""
        return {m: digest(model.model_dump_json()) for m, model in self.catalog.models.items()}

    @cached_property
    def gpu_digests(self) -> dict[str, str]:
        """Content digest of each GPU entry."""
        return {g: digest(gpu.model_dump_json()) for g, gpu in self.catalog.gpus.items()}

    @cached_property
    def gpu_spec_digests(self) -> dict[str, str]:
        """Digest of the GPU fields estimates read (prices and sources excluded)."""
        return {g: digest(gpu.model_dump_json(exclude=GPU_FIELDS_OUTSIDE_ESTIMATES)) for g, gpu in self.catalog.gpus.items()}

    @cached_property
    def models(self) -> dict[str, ModelSpec]:
        return {model_id: api.model_spec(model) for model_id, model in self.catalog.models.items()}

    @cached_property
    def devices(self) -> dict[str, DeviceSpec]:
        return {gpu_id: device_spec(gpu) for gpu_id, gpu in self.catalog.gpus.items()}

    @cached_property
    def pairs(self) -> dict[tuple[str, str], PairResult]:
        return {(m, g): self.pick(m, g) for m in sorted(self.models) for g in sorted(self.devices)}

    def pick(self, model_id: str, gpu_id: str) -> PairResult:
        """The recommended setup of one pair with its full estimate (``pairs`` holds them all; kept in the store)."""
        def choose() -> PairResult:
            quant = recommend([(q, self.quant_estimate(model_id, gpu_id, q)) for q in preference(self.models[model_id])]).quant
            return PairResult(quant, self._estimate(model_id, gpu_id, quant, PAGE_CONTEXT_TOKENS, limits=True))
        return self.from_store(self._pick_key(model_id, gpu_id), choose)

    def _estimate(self, model_id: str, gpu_id: str, quant: str, context_tokens: int, limits: bool) -> Estimate:
        return api.estimate(self.models[model_id], self.devices[gpu_id], _page_request(quant, context_tokens), limits=limits)

    def _pick_key(self, model_id: str, gpu_id: str) -> tuple[str, str, str]:
        return (self.model_digests[model_id], self.gpu_spec_digests[gpu_id], "pick")

    @cached_property
    def offers_by_gpu(self) -> dict[str, list[tuple[CloudProvider, CloudOffer]]]:
        by_gpu: dict[str, list[tuple[CloudProvider, CloudOffer]]] = {g: [] for g in self.catalog.gpus}
        for provider, offer in self.catalog.offers():
            by_gpu[offer.gpu].append((provider, offer))
        for offers in by_gpu.values():
            offers.sort(key=lambda po: (po[1].price_usd_per_hour / po[1].gpu_count, po[0].name, po[1].instance))
        return by_gpu

    def quant_estimate(self, model_id: str, gpu_id: str, quant: str, context_tokens: int = PAGE_CONTEXT_TOKENS) -> Estimate:
        """One model at one quant on one GPU, memory, verdict and decode speed only (``limits=False``): a matrix
        row. Cached: the matrix, the recommendation and the best-GPU search share it."""
        key = (model_id, gpu_id, quant, context_tokens)
        found = self._estimates.get(key)
        if found is None:
            found = self._estimates[key] = self.from_store(self._stored_key(key), lambda: self._estimate(
                model_id, gpu_id, quant, context_tokens, limits=False))
        return found

    def from_store(self, stored: tuple, compute: Callable[[], T]) -> T:
        """The store's value for ``stored``, else ``compute()`` put there; either way kept for the next build."""
        found = self.store.get(stored)
        if found is None:
            found = compute()
            self.store.put(stored, found)
        self._used.add(stored)
        return found

    def _stored_key(self, key: tuple[str, str, str, int]) -> tuple[str, str, str, int]:
        model_id, gpu_id, quant, context_tokens = key
        return (self.model_digests[model_id], self.gpu_spec_digests[gpu_id], quant, context_tokens)

    def _sweep_key(self, model_id: str, gpu_id: str) -> tuple[str, str, str]:
        return (self.model_digests[model_id], self.gpu_spec_digests[gpu_id], "sweep")

    def page_estimate_keys(self, model_id: str) -> list[tuple[str, str, str, int]]:
        """Every per-quant estimate the pages of a model need: the recommendation search and the matrix."""
        quants = dict.fromkeys((*preference(self.models[model_id]), *matrix_quants(self.models[model_id])))
        return [(model_id, g, q, PAGE_CONTEXT_TOKENS) for g in sorted(self.devices) for q in quants]

    def _page_results(self, model_id: str) -> Iterator[tuple[tuple, Callable[[], Any]]]:
        """Each stored result the pages of a model need, as (store key, getter): per-quant estimates, each pair's
        pick and context sweep, the requirement table, fine-tuning memory and the multi-GPU counts behind its
        rentable setups."""
        for key in self.page_estimate_keys(model_id):
            yield self._stored_key(key), lambda key=key: self.quant_estimate(*key)
        for gpu_id in sorted(self.devices):
            yield self._pick_key(model_id, gpu_id), lambda gpu_id=gpu_id: self.pick(model_id, gpu_id)
            yield self._sweep_key(model_id, gpu_id), lambda gpu_id=gpu_id: self.context_sweep(model_id, gpu_id)
        yield self._requirements_key(model_id), lambda: self.model_requirements(model_id)
        for method in FINETUNE_METHODS:
            yield self._finetune_key(model_id, method), lambda method=method: self.finetune(model_id, method)
        for quant in matrix_quants(self.models[model_id]):
            yield self._fitting_key(model_id, quant), lambda quant=quant: self.fitting_gpus(model_id, quant)
        for quant in SETUP_QUANTS:
            for gpu_id in self._rented_gpus:
                yield (self._gpu_count_key(model_id, gpu_id, quant),
                       lambda gpu_id=gpu_id, quant=quant: self.tensor_parallel_count(model_id, gpu_id, quant))

    def page_estimates(self, model_ids: list[str]) -> dict[tuple, Any]:
        """The results of :meth:`_page_results` for these models, computed or taken from the store, by store key."""
        return {key: get() for model_id in model_ids for key, get in self._page_results(model_id)}

    def stored(self, model_id: str) -> bool:
        """Whether the store already holds every result the pages of a model need (nothing to compute); if so,
        they count as used, so saving the store keeps them for pages this build does not render."""
        keys = [key for key, _ in self._page_results(model_id)]
        if not all(map(self.store.has, keys)):
            return False
        self._used.update(keys)
        return True

    def page_answer(self, model_ids: list[str]) -> tuple[dict[tuple, Any], dict[tuple, tuple]]:
        """:meth:`page_estimates` for another process to :meth:`absorb`: the per-quant estimates as field tuples
        (they pickle and unpickle three times faster, and stay packed in the store until a page reads them)."""
        found = self.page_estimates(model_ids)
        return ({key: value for key, value in found.items() if type(value) is not Estimate},
                {key: pack(value) for key, value in found.items() if type(value) is Estimate})

    def absorb(self, answer: tuple[dict[tuple, Any], dict[tuple, tuple]]) -> None:
        """Take what :meth:`page_answer` computed in another process as if computed here (into the store)."""
        found, packed = answer
        by_id: dict[int, tuple] = {}  # estimates of one answer share their lists already: look each up once
        for key, fields in packed.items():
            # Unpickled per answer, equal assumption lists of different answers are separate objects: share them
            # again, as estimate() does, so the store pickles each list once.
            listed = fields[ASSUMPTIONS]
            shared = by_id.get(id(listed))
            if shared is None:
                shared = by_id[id(listed)] = self._assumptions.setdefault(listed, listed)
            if shared is not listed:
                fields = (*fields[:ASSUMPTIONS], shared, *fields[ASSUMPTIONS + 1:])
            self.store.put_packed(key, fields)
            self._used.add(key)
        for key, value in found.items():
            self.from_store(key, lambda: value)

    def save_store(self) -> None:
        """Keep the estimates this build used for the next one."""
        self.store.save(keep=self._used)

    def best_gpu(self, model_id: str, quant: str) -> str | None:
        """The cheapest catalogued GPU (list price, then memory) on which this quant fits with margin."""
        key = (model_id, quant)
        if key not in self._best_gpu:
            gpus = self.catalog.gpus
            candidates = [(gpus[g].price_usd is None, gpus[g].price_usd or 0.0, gpus[g].memory_bytes, g)
                          for g in self.fitting_gpus(model_id, quant)]
            self._best_gpu[key] = min(candidates)[3] if candidates else None
        return self._best_gpu[key]

    def fitting_gpus(self, model_id: str, quant: str) -> tuple[str, ...]:
        """The GPUs on which this quant fits with margin at the pages' context (kept in the store: prices may
        change which one is cheapest, not which ones fit)."""
        return self.from_store(self._fitting_key(model_id, quant), lambda: tuple(
            g for g in sorted(self.devices) if self.quant_estimate(model_id, g, quant).verdict == "fits"))

    def _fitting_key(self, model_id: str, quant: str) -> tuple[str, str, str, str]:
        return (self.model_digests[model_id], self.gpu_specs_digest, quant, "fitting")

    @cached_property
    def gpu_specs_digest(self) -> str:
        """One digest of every GPU's estimate-relevant facts (prices excluded)."""
        return digest(sorted(self.gpu_spec_digests.items()))

    def __post_init__(self) -> None:
        self._estimates: dict[tuple[str, str, str, int], Estimate] = {}
        self._used: set[tuple] = set()
        self._model_views: dict[tuple[str, str], list[dict]] = {}
        self._best_gpu: dict[tuple[str, str], str | None] = {}
        self._finetune: dict[tuple[str, str], finetune.FinetuneEstimate] = {}
        self._finetune_gpu: dict[tuple[str, str], tuple[str, str] | None] = {}
        self._reference_id = _reference_gpu(self.catalog)
        self._reference = _reference_device(self.catalog.gpus[self._reference_id])
        self._sweeps: dict[tuple[str, str], ContextSweep] = {}
        self._assumptions: dict[tuple[tuple[str, str], ...], tuple[tuple[str, str], ...]] = {}

    def context_sweep(self, model_id: str, gpu_id: str) -> ContextSweep:
        """Memory of the pair's recommended quant from 4K to the model's maximum context (cached, and kept in the
        store: a rebuild after a price edit recomputes none)."""
        found = self._sweeps.get((model_id, gpu_id))
        if found is None:
            found = self._sweeps[(model_id, gpu_id)] = self.from_store(
                self._sweep_key(model_id, gpu_id), lambda: self._context_sweep(model_id, gpu_id))
        return found

    def _context_sweep(self, model_id: str, gpu_id: str) -> ContextSweep:
        model, device, quant = self.models[model_id], self.devices[gpu_id], self.pick(model_id, gpu_id).quant
        limit = self.catalog.models[model_id].context_length
        contexts = (*(c for c in CONTEXT_STEPS if c < limit), limit)
        f16, q8 = (api.context_memory(model, device, Request(quant=quant, kv_type=kv), contexts) for kv in ("f16", "q8_0"))
        rows = tuple(zip(contexts, f16.kv_cache_bytes, f16.total_bytes, q8.kv_cache_bytes, q8.total_bytes))
        return ContextSweep(rows, f16.max_context_tokens, q8.max_context_tokens, f16.usable_bytes)

    # --- cross-page views, each computed once per build -------------------------------------------------

    vllm_utilisation: float = 0.90  # vLLM's default --gpu-memory-utilization

    def finetune(self, model_id: str, method: str) -> finetune.FinetuneEstimate:
        """Fine-tuning memory of one model and method at the pages' sequence length (cached, and kept in the store)."""
        key = (model_id, method)
        if key not in self._finetune:
            self._finetune[key] = self.from_store(self._finetune_key(model_id, method), lambda: finetune.finetune_memory(
                self.models[model_id], method, seq_len=FINETUNE_SEQ_LEN))
        return self._finetune[key]

    def _finetune_key(self, model_id: str, method: str) -> tuple[str, str, str]:
        return (self.model_digests[model_id], method, "finetune")

    def finetune_gpu(self, model_id: str, method: str) -> tuple[str, str] | None:
        """(gpu id, label) of the cheapest single GPU, or smallest multi-GPU count, that holds this fine-tuning run."""
        key = (model_id, method)
        if key not in self._finetune_gpu:
            need = self.finetune(model_id, method).total_bytes
            fitting = sorted((g.price_usd is None, g.price_usd or 0.0, g.memory_bytes, g.id) for g in self.catalog.gpus.values()
                             if self.devices[g.id].usable_memory_bytes >= need)
            if fitting:
                gpu_id = fitting[0][3]
                self._finetune_gpu[key] = (gpu_id, self.catalog.gpus[gpu_id].name)
            else:
                self._finetune_gpu[key] = self._multi_gpu_for(need)
        return self._finetune_gpu[key]

    def _multi_gpu_for(self, need_bytes: int) -> tuple[str, str] | None:
        """The largest-memory GPU, times the count that holds ``need_bytes`` (at most 8 per node, else None)."""
        gpu = max(self.catalog.gpus.values(), key=lambda g: (self.devices[g.id].usable_memory_bytes, g.id))
        count = -(-need_bytes // self.devices[gpu.id].usable_memory_bytes)
        return (gpu.id, f"{count}× {gpu.name}") if count <= 8 else None

    def recommendations(self, model_id: str) -> list[tuple[str, str, dict | None]]:
        """(role, gpu id, offer) for best single GPU, best value, used/older, Apple and cheapest cloud (cached)."""
        return self._per_model("recommendations", model_id, self._recommendations)

    def _recommendations(self, model_id: str) -> list[tuple[str, str, dict | None]]:
        gpus = self.catalog.gpus
        fitting = [g for g in gpus if self.pairs[(model_id, g)].estimate.verdict == "fits"]
        speed = {g: self.pairs[(model_id, g)].estimate.decode_tokens_per_s for g in gpus}
        picks: list[tuple[str, str, dict | None]] = []
        if fitting:
            picks.append(("fastest", max(fitting, key=lambda g: (speed[g], g)), None))
            priced = [g for g in fitting if gpus[g].price_usd]
            if priced:
                picks.append(("value", max(priced, key=lambda g: (speed[g] / gpus[g].price_usd, g)), None))
            older = [g for g in priced if gpus[g].launch_date and gpus[g].launch_date.year <= 2021]
            if older:
                picks.append(("older", min(older, key=lambda g: (gpus[g].price_usd, g)), None))
            apple = [g for g in fitting if gpus[g].vendor == "apple"]
            if apple:
                picks.append(("apple", min(apple, key=lambda g: (gpus[g].memory_bytes, -speed[g], g)), None))
            rented = [(o.price_usd_per_hour / o.gpu_count, g, p.name, o) for g in fitting
                      for p, o in self.offers_by_gpu[g]]
            if rented:
                per_gpu, gpu_id, provider, offer = min(rented, key=lambda r: (r[0], r[1], r[2]))
                picks.append(("cloud", gpu_id, {"provider": provider, "usd_per_hour": per_gpu, "instance": offer.instance}))
        return picks

    def compare_gpus(self, model_id: str) -> list[str]:
        """The GPUs a model's comparison page sets side by side: its distinct recommended GPUs, topped up to
        COMPARED_MIN with the GPUs its model page ranks first (verdict, then decode speed), at most COMPARED_MAX."""
        return self._per_model("compare", model_id, self._compare_gpus)

    @cached_property
    def compared_with(self) -> dict[str, list[str]]:
        """For each GPU, the models whose comparison page sets it side by side with others, by id."""
        found: dict[str, list[str]] = {g: [] for g in self.catalog.gpus}
        for model_id in sorted(self.catalog.models):
            for gpu_id in self.compare_gpus(model_id):
                found[gpu_id].append(model_id)
        return found

    def _compare_gpus(self, model_id: str) -> list[str]:
        chosen = list(dict.fromkeys(g for _, g, _ in self.recommendations(model_id)))[:COMPARED_MAX]
        ranked = sorted(self.catalog.gpus, key=lambda g: (RANK[self.pairs[(model_id, g)].estimate.verdict],
                                                          -self.pairs[(model_id, g)].estimate.decode_tokens_per_s, g))
        chosen += [g for g in ranked if g not in chosen][:max(0, COMPARED_MIN - len(chosen))]
        return chosen

    @cached_property
    def gpus_by_memory(self) -> list[str]:
        """GPU ids from least to most memory (stable cross-link order)."""
        return sorted(self.catalog.gpus, key=lambda g: (self.catalog.gpus[g].memory_bytes, g))

    @cached_property
    def models_by_size(self) -> list[str]:
        """Model ids from fewest to most parameters."""
        return sorted(self.catalog.models, key=lambda m: (self.catalog.models[m].total_params, m))

    @cached_property
    def similar_gpus(self) -> dict[str, list[str]]:
        """For each GPU, the 12 with the nearest memory size (cross-links of a pair page)."""
        return {g: nearest(self.gpus_by_memory, g, RELATED_SHOWN) for g in self.gpus_by_memory}

    @cached_property
    def similar_models(self) -> dict[str, list[str]]:
        """For each model, the 12 nearest in parameter count."""
        return {m: nearest(self.models_by_size, m, RELATED_SHOWN) for m in self.models_by_size}

    @cached_property
    def _fitting_by_gpu(self) -> dict[str, list[str]]:
        return {g: [m for m in reversed(self.models_by_size) if self.pairs[(m, g)].estimate.verdict in ("fits", "tight")]
                for g in self.catalog.gpus}

    def largest_fitting(self, gpu_id: str, count: int) -> list[str]:
        """The ``count`` largest models that fit on a GPU at 8K context (fits or tight), largest first."""
        return self._fitting_by_gpu[gpu_id][:count]

    def kv_per_1k(self, model_id: str) -> int:
        """KV-cache bytes per 1,024 tokens at f16 (full-attention growth; windowed layers excluded past their window)."""
        return kv_cache_bytes(kv_layout(self.models[model_id].architecture, "llama.cpp", "f16"), 1024)

    def popular_pairs(self) -> list[tuple[str, str]]:
        """A stable showcase: the smallest-memory GPU each model fits on with margin, for up to 12 models by size."""
        shown = []
        for model_id in sorted(self.models, key=lambda m: (self.catalog.models[m].total_params, m))[:: max(1, len(self.models) // 12)][:12]:
            fitting = [g for g in self.catalog.gpus if self.pairs[(model_id, g)].estimate.verdict == "fits"]
            if fitting:
                shown.append((model_id, min(fitting, key=lambda g: (self.catalog.gpus[g].memory_bytes, g))))
        return shown

    def reference_device(self) -> DeviceSpec:
        """A CUDA device larger than any model, so requirement tables show memory, not a verdict."""
        return self._reference

    def model_requirements(self, model_id: str) -> list[dict]:
        """Cached :meth:`_model_requirements` (kept in the store: it depends only on the model and the reference
        device)."""
        return self.from_store(self._requirements_key(model_id), lambda: self._model_requirements(model_id))

    def _requirements_key(self, model_id: str) -> tuple[str, str, str]:
        return (self.model_digests[model_id], self.gpu_spec_digests[self._reference_id], "requirements")

    def cheapest_setups(self, model_id: str) -> list[dict]:
        """Cached :meth:`_cheapest_setups`."""
        return self._per_model("setups", model_id, self._cheapest_setups)

    def tensor_parallel_count(self, model_id: str, gpu_id: str, quant: str) -> int:
        """The fewest GPUs (2, 4 or 8, tensor parallel) on which ``quant`` fits with margin, or 0 (stored)."""
        def fewest() -> int:
            for count in (2, 4, 8):
                device = device_spec(self.catalog.gpus[gpu_id], count=count, parallel="tensor")
                if api.on_gpu(self.models[model_id], device, Request(quant=quant, gpu_count=count)) == "fits":
                    return count
            return 0
        return self.from_store(self._gpu_count_key(model_id, gpu_id, quant), fewest)

    def _gpu_count_key(self, model_id: str, gpu_id: str, quant: str) -> tuple[str, str, str, str]:
        return (self.model_digests[model_id], self.gpu_spec_digests[gpu_id], quant, "tensor-parallel")

    @cached_property
    def _rented_gpus(self) -> list[str]:
        """GPUs with at least one cloud offer, in id order."""
        return sorted(g for g, offers in self.offers_by_gpu.items() if offers)

    def _per_model(self, kind: str, model_id: str, compute) -> list:
        key = (kind, model_id)
        if key not in self._model_views:
            self._model_views[key] = compute(model_id)
        return self._model_views[key]

    def _model_requirements(self, model_id: str) -> list[dict]:
        """Total memory per quantization at 4K, 32K, 128K context and 16 sequences at 8K (llama.cpp on CUDA)."""
        spec, max_ctx = self.models[model_id], self.catalog.models[model_id].context_length
        scenarios = [(c, 1) for c in (4096, 32768, 131072) if c <= max_ctx] + [(8192, 16)]
        rows = []
        for context_tokens, sequences in scenarios:
            cells = {}
            for quant in REQUIREMENT_QUANTS:
                e = api.estimate(spec, self._reference, Request(quant=quant, context_tokens=context_tokens, sequences=sequences),
                                 limits=False)
                cells[quant] = {"total_bytes": e.total_bytes, "weights_bytes": e.weights_bytes, "kv_cache_bytes": e.kv_cache_bytes}
            rows.append({"context": context_tokens, "sequences": sequences, "cells": cells})
        return rows

    def _cheapest_setups(self, model_id: str) -> list[dict]:
        """Per precision at 8K context: the cheapest rentable single GPU and multi-GPU setup that fit, per month."""
        setups = []
        for quant in SETUP_QUANTS:
            single, multi = None, None
            for gpu_id, offers in self.offers_by_gpu.items():
                if not offers:
                    continue
                per_gpu = min(o.price_usd_per_hour / o.gpu_count for _, o in offers)
                if self.quant_estimate(model_id, gpu_id, quant).verdict == "fits":
                    candidate = (per_gpu, gpu_id, 1)
                    single = min(single, candidate) if single else candidate
                    continue
                count = self.tensor_parallel_count(model_id, gpu_id, quant)
                if count:
                    candidate = (per_gpu * count, gpu_id, count)
                    multi = min(multi, candidate) if multi else candidate
            setups.append({"quant": quant, "single": _setup(self, single), "multi": _setup(self, multi)})
        return setups

    @cached_property
    def accuracy(self) -> list:
        """The estimator's measured error per kind on the bundled calibration data (kept in the store: it depends
        only on the estimator's code and data)."""
        return self.from_store(("accuracy-report",), calibration.accuracy_report)

    @cached_property
    def constants_table(self) -> list[dict]:
        """The fitted speed constants, one row per backend and constant, for the methodology page."""
        return [{"backend": family, "name": name, "value": value}
                for family, constants in sorted(fitted.CONSTANTS.items())
                for name, value in vars(constants).items() if isinstance(value, float)]

    calibration_date = "2024-05-31"  # newest llama.cpp build in the bundled measurements (May 2024)

    @cached_property
    def error_band(self) -> dict[str, float]:
        """Median and worst relative decode error, for the band shown on every pair page."""
        decode = next(r for r in self.accuracy if r.kind.startswith("decode"))
        return {"decode_median": decode.median_abs_error, "decode_worst": decode.worst_abs_error}


def nearest(items: list[str], current: str, count: int) -> list[str]:
    """Up to ``count`` nearest neighbours of ``current`` in a sorted list, alternating above and below."""
    at = items.index(current)
    picked = []
    for step in range(1, len(items)):
        picked += [items[i] for i in (at + step, at - step) if 0 <= i < len(items)]
        if len(picked) >= count:
            break
    return picked[:count]


RELATED_SHOWN = 12
COMPARED_MIN, COMPARED_MAX = 2, 4  # GPUs on a comparison page
FINETUNE_METHODS = ("qlora", "lora", "full")
FINETUNE_SEQ_LEN = 2048
REQUIREMENT_QUANTS = ("BF16", "Q8_0", "Q6_K", "Q5_K_M", "Q4_K_M", "IQ4_XS", "Q3_K_M", "Q2_K")
SETUP_QUANTS = ("BF16", "Q8_0", "Q4_K_M")


def _setup(results: Results, pick: tuple[float, str, int] | None) -> dict | None:
    if pick is None:
        return None
    usd_per_hour, gpu_id, count = pick
    return {"gpu": results.catalog.gpus[gpu_id], "count": count, "usd_per_hour": usd_per_hour,
            "usd_per_month": usd_per_hour * HOURS_PER_MONTH}


def _reference_gpu(catalog: Catalog) -> str:
    """The largest catalogued CUDA GPU (any GPU without one), whose figures the requirement tables use."""
    cuda = [g for g in catalog.gpus.values() if "cuda" in g.backends] or list(catalog.gpus.values())
    return max(cuda, key=lambda g: (g.memory_bytes, g.id)).id


def _reference_device(gpu: Gpu) -> DeviceSpec:
    """The GPU with unbounded memory: requirement tables then show memory, never a verdict."""
    return replace(device_spec(gpu), memory_bytes=2**50, usable_memory_bytes=2**50)
