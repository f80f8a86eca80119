"""The estimate stage: every (model, GPU) pair's recommended setup, computed once before pages are planned."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field, replace
from functools import cache, cached_property
from typing import Any, Callable, Iterator, NamedTuple, TypeVar

from .catalog.freshness import newest_price_date
from .adapters import device_fields, device_spec, model_spec
from .catalog.schema import Catalog, CloudOffer, CloudProvider, Gpu
from .estimate import api, bands, calibration, cost, fidelity, finetune, serving_setup, vllm_support
from .estimate import constants as fitted
from .estimate.kvcache import kv_cache_bytes, kv_layout
from .estimate.api import Estimate, ModelSpec, Request
from .estimate.cost import HOURS_PER_MONTH
from .estimate.device import DeviceSpec
from .estimate.quant import quant_info
from .incremental import ASSUMPTIONS, EstimateStore, digest, pack

# Quantizations tried for a recommendation, best quality first. Q8_0 leads: BF16 costs twice the memory and
# bandwidth for no measurable quality gain in llama.cpp's perplexity tables.
PREFERENCE = ("Q8_0", "Q6_K", "Q5_K_M", "Q4_K_M", "IQ4_XS", "Q3_K_M", "Q2_K", "IQ2_XXS", "IQ1_S")
NATIVE_MXFP4 = ("MXFP4_MOE", "Q2_K", "IQ1_S")
MATRIX = ("BF16", "Q8_0", "Q6_K", "Q5_K_M", "Q4_K_M", "IQ4_XS", "Q3_K_M", "Q2_K", "IQ2_XXS", "IQ1_S")
PAGE_CONTEXT_TOKENS = 8192
CONTEXT_STEPS = (4096, 8192, 16384, 32768, 65536, 131072, 262144, 524288, 1048576)
RANK = {"fits": 0, "tight": 1, "offload": 2, "no_fit": 3}
# The quant a model's own Hugging Face repository holds, by its native format (what vLLM loads from it).
NATIVE_CHECKPOINT = {"bf16": "BF16", "fp8": "FP8", "mxfp4": "MXFP4"}
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


def recommend(tried: list[tuple[str, Estimate]], at_floor: Callable[[str], bool] = lambda quant: True) -> PairResult:
    """The best-quality quantization at or above the quality floor that fits, else fits tightly; only then one below
    the floor that fits or fits tightly; else the smallest that offloads (at the floor first); else the smallest."""
    for group in ([t for t in tried if at_floor(t[0])], [t for t in tried if not at_floor(t[0])]):
        for wanted in ("fits", "tight"):
            for quant, estimate in group:
                if estimate.verdict == wanted:
                    return PairResult(quant, estimate)
    offloaded = [t for t in tried if t[1].verdict == "offload"]
    if offloaded:
        quant, estimate = min(offloaded, key=lambda item: (not at_floor(item[0]), item[1].total_bytes))
    else:  # nothing runs: the smallest, to say how far even that is from fitting
        quant, estimate = min(tried, key=lambda item: (RANK[item[1].verdict], item[1].total_bytes))
    return PairResult(quant, estimate)


@dataclass(frozen=True)
class VllmSetup:
    """A checkpoint vLLM can serve on ``gpu_count`` of a GPU, with the estimate that says it fits."""

    repo: str
    quant: str
    gpu_count: int
    estimate: Estimate


class Pick(NamedTuple):
    """One recommended GPU for a model: its role, the GPU, a cloud offer (cheapest-cloud role) and whether no GPU
    held the model at or above the quality floor, so the pick is below it."""

    role: str
    gpu: str
    offer: dict | None
    below_floor: bool


OLDER_LAUNCH_YEAR = 2021  # "used or older": launched in this year or before


class ServingChoice(NamedTuple):
    """A model's serving plan on one GPU priced on that GPU's cheapest listed offer (a model page's serving row)."""

    gpu: str
    plan: serving_setup.ServingPlan
    provider: str
    instance: str
    usd_per_gpu_hour: float
    price: cost.ServingPrice


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
    prices_as_of: dt.date | None = None  # the date price ages count to; None: the catalogue's newest price date

    @cached_property
    def price_reference_date(self) -> dt.date | None:
        """The date pages count each price's age to: an explicit build input, never the wall clock."""
        return self.prices_as_of or newest_price_date(self.catalog)

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
        """Digest of the GPU fields estimates read, as the adapter reads them (so no price, source or note)."""
        return {g: digest(gpu.model_dump_json(include=set(device_fields(gpu)))) for g, gpu in self.catalog.gpus.items()}

    @cached_property
    def models(self) -> dict[str, ModelSpec]:
        return {model_id: model_spec(model) for model_id, model in self.catalog.models.items()}

    @cached_property
    def devices(self) -> dict[str, DeviceSpec]:
        return {gpu_id: device_spec(gpu) for gpu_id, gpu in self.catalog.gpus.items()}

    @cached_property
    def pairs(self) -> dict[tuple[str, str], PairResult]:
        return {(m, g): self.pick(m, g) for m in sorted(self.models) for g in sorted(self.devices)}

    def pick(self, model_id: str, gpu_id: str) -> PairResult:
        """The recommended setup of one pair with its full estimate (``pairs`` holds them all; kept in the store)."""
        def choose() -> PairResult:
            model = self.models[model_id]
            quant = recommend([(q, self.quant_estimate(model_id, gpu_id, q)) for q in preference(model)],
                              lambda q: fidelity.at_floor(q, model.native_format)).quant
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
        yield self._summary_key(model_id), lambda: self.page_context_requirements(model_id)
        for method in FINETUNE_METHODS:
            yield self._finetune_key(model_id, method), lambda method=method: self.finetune(model_id, method)
        for quant in matrix_quants(self.models[model_id]):
            yield self._fitting_key(model_id, quant), lambda quant=quant: self.fitting_gpus(model_id, quant)
        for gpu_id in self._serving_gpus:
            yield self._serving_key(model_id, gpu_id), lambda gpu_id=gpu_id: self.serving(model_id, gpu_id)
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
        self._vllm: dict[tuple[str, str], VllmSetup | None] = {}

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

    def vllm_setup(self, model_id: str, gpu_id: str) -> VllmSetup | None:
        """The checkpoint vLLM serves for this pair: on the fewest GPUs (1, 2, 4 or 8, tensor parallel), the
        best-precision catalogued checkpoint (the original repository or a published FP8/FP4/AWQ one) whose format
        vLLM's kernels run on this GPU (``vllm_support``) and that fits at the pages' context; None when none fits
        eight. vLLM runs only on CUDA and ROCm GPUs."""
        key = (model_id, gpu_id)
        if key not in self._vllm:
            self._vllm[key] = self._vllm_setup(model_id, gpu_id)
        return self._vllm[key]

    def _vllm_candidates(self, model_id: str, gpu_id: str) -> tuple[list[tuple[str, str]], tuple[str, ...]]:
        """(repo, quant) checkpoints vLLM runs on this GPU, best precision first, and the formats left out."""
        model, spec = self.catalog.models[model_id], self.models[model_id]
        candidates = [(model.hf_repo, NATIVE_CHECKPOINT[spec.native_format])]
        candidates += [(c.repo, c.quant) for c in model.checkpoints]
        candidates.sort(key=lambda c: -quant_info(c[1]).nominal_bits)  # stable: the original first among equals
        return vllm_support.split_by_support(candidates, self.devices[gpu_id], spec.architecture.n_experts > 0)

    def vllm_checkpoints(self, model_id: str, gpu_id: str) -> tuple[list[tuple[str, str]], tuple[str, ...]]:
        """(repo, quant) checkpoints vLLM's kernels run on this GPU and the formats they do not (CUDA/ROCm only)."""
        if self.devices[gpu_id].backend not in vllm_support.VLLM_BACKENDS:
            return [], ()
        return self._vllm_candidates(model_id, gpu_id)

    def _vllm_setup(self, model_id: str, gpu_id: str) -> VllmSetup | None:
        spec, gpu = self.models[model_id], self.catalog.gpus[gpu_id]
        candidates = self.vllm_checkpoints(model_id, gpu_id)[0]
        for count in (1, 2, 4, 8):
            device = self.devices[gpu_id] if count == 1 else device_spec(gpu, count=count, parallel="tensor")
            for repo, quant in candidates:
                request = Request(quant=quant, context_tokens=PAGE_CONTEXT_TOKENS, engine="vllm", gpu_count=count)
                estimate = api.estimate(spec, device, request, limits=False)
                if estimate.verdict in ("fits", "tight"):
                    return VllmSetup(repo, quant, count, estimate)
        return None

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

    def recommendations(self, model_id: str) -> list[Pick]:
        """Best single GPU, best value, used/older, Apple and cheapest cloud (cached): each among the GPUs whose
        recommended setup fits with margin at or above the quality floor; below it only when none does."""
        return self._per_model("recommendations", model_id, self._recommendations)

    def _recommendations(self, model_id: str) -> list[Pick]:
        gpus, native = self.catalog.gpus, self.models[model_id].native_format
        fits = [g for g in gpus if self.pairs[(model_id, g)].estimate.verdict == "fits"]
        fitting = [g for g in fits if fidelity.at_floor(self.pairs[(model_id, g)].quant, native)]
        below = not fitting
        fitting = fitting or fits
        speed = {g: self.pairs[(model_id, g)].estimate.decode_tokens_per_s for g in gpus}
        picks: list[Pick] = []
        if fitting:
            picks.append(Pick("fastest", max(fitting, key=lambda g: (speed[g], g)), None, below))
            priced = [g for g in fitting if gpus[g].price_usd]
            if priced:
                picks.append(Pick("value", min(priced, key=lambda g: (gpus[g].price_usd / speed[g], g)), None, below))
            older = [g for g in priced if gpus[g].launch_date and gpus[g].launch_date.year <= OLDER_LAUNCH_YEAR]
            if older:
                picks.append(Pick("older", min(older, key=lambda g: (gpus[g].price_usd, g)), None, below))
            apple = [g for g in fitting if gpus[g].vendor == "apple"]
            if apple:
                picks.append(Pick("apple", min(apple, key=lambda g: (gpus[g].memory_bytes, -speed[g], g)), None, below))
            rented = [(o.price_usd_per_hour / o.gpu_count, g, p.name, o) for g in fitting
                      for p, o in self.offers_by_gpu[g]]
            if rented:
                per_gpu, gpu_id, provider, offer = min(rented, key=lambda r: (r[0], r[1], r[2]))
                picks.append(Pick("cloud", gpu_id, {"provider": provider, "usd_per_hour": per_gpu,
                                                    "instance": offer.instance}, below))
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
        chosen = list(dict.fromkeys(pick.gpu for pick in self.recommendations(model_id)))[:COMPARED_MAX]
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

    def page_context_requirements(self, model_id: str) -> dict[str, int]:
        """Total memory per ``SUMMARY_QUANTS`` quantization at the pages' context, one sequence, on the reference
        device (the figures a model page's summary states; kept in the store)."""
        return self.from_store(self._summary_key(model_id), lambda: {
            quant: api.estimate(self.models[model_id], self._reference, _page_request(quant, PAGE_CONTEXT_TOKENS),
                                limits=False).total_bytes for quant in SUMMARY_QUANTS})

    def _summary_key(self, model_id: str) -> tuple[str, str, str]:
        return (self.model_digests[model_id], self.gpu_spec_digests[self._reference_id], "summary")

    def fitting_count(self, model_id: str, quant: str) -> int:
        """How many catalogued GPUs hold this quant fully (fits or tight) at the pages' context."""
        return sum(1 for g in sorted(self.devices) if self.quant_estimate(model_id, g, quant).verdict in ("fits", "tight"))

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

    @cached_property
    def _serving_gpus(self) -> list[str]:
        """GPUs whose pair pages show batched serving: datacenter and workstation parts that vLLM runs on."""
        return sorted(g.id for g in self.catalog.gpus.values()
                      if g.segment in SERVING_SEGMENTS and {"cuda", "rocm"} & set(g.backends))

    def serving(self, model_id: str, gpu_id: str) -> tuple[serving_setup.ServingPlan | None]:
        """(the pair's vLLM serving plan, or None), for serving GPUs; kept in the store as a 1-tuple so that "does
        not serve" is stored too."""
        if gpu_id not in self._serving_gpus:
            return (None,)
        return self.from_store(self._serving_key(model_id, gpu_id), lambda: (self._serving_plan(model_id, gpu_id),))

    def _serving_plan(self, model_id: str, gpu_id: str) -> serving_setup.ServingPlan | None:
        """The fewest GPUs that serve the model, or twice as many when that serves more tokens per GPU at the
        operating point (a tight fit leaves little room for KV cache, hence few users)."""
        gpu, spec = self.catalog.gpus[gpu_id], self.models[model_id]
        counts = serving_setup.PAGE_GPU_COUNTS
        plans = []
        for i, count in enumerate(counts):
            plan = serving_setup.page_plan(spec, (device_spec(gpu, count, "tensor"),))
            if plan is not None:
                plans.append(plan)
                if len(plans) == 2 or i + 1 == len(counts):
                    break
                nxt = serving_setup.page_plan(spec, (device_spec(gpu, counts[i + 1], "tensor"),))
                if nxt is not None:
                    plans.append(nxt)
                break
        if not plans:
            return None
        return max(plans, key=lambda p: (p.operating.output_tokens_per_s_per_gpu if p.operating else 0.0,
                                         -p.gpu_count))

    def cheapest_serving(self, model_id: str) -> list[ServingChoice]:
        """Per precision the pair pages serve this model at, the listed cloud setup with the lowest cost per 1M output
        tokens at its operating point (from the stored serving plans; prices pick among them on every build)."""
        return self._per_model("serving-cheapest", model_id, self._cheapest_serving)

    def _cheapest_serving(self, model_id: str) -> list[ServingChoice]:
        best: dict[str, ServingChoice] = {}
        for gpu_id in self._serving_gpus:
            plan, offers = self.serving(model_id, gpu_id)[0], self.offers_by_gpu[gpu_id]
            if plan is None or plan.operating is None or not offers:
                continue
            provider, offer = offers[0]  # offers_by_gpu: cheapest per GPU-hour first, as the pair page prices it
            per_gpu = offer.price_usd_per_hour / offer.gpu_count
            choice = ServingChoice(gpu_id, plan, provider.name, offer.instance, per_gpu,
                                   cost.serving_price(plan.operating, per_gpu))
            found = best.get(plan.precision)
            if found is None or (choice.price.output_usd_per_mtok, gpu_id) < (found.price.output_usd_per_mtok, found.gpu):
                best[plan.precision] = choice
        return [best[p] for p in serving_setup.PRECISIONS if p in best]

    def _serving_key(self, model_id: str, gpu_id: str) -> tuple[str, str, str]:
        return (self.model_digests[model_id], self.gpu_spec_digests[gpu_id], "serving")

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
        """The fitted speed constants, one row per backend-era set and constant, for the methodology page."""
        return [{"backend": f"{family} {era}", "name": name, "value": value}
                for (family, era), constants in sorted(fitted.ERA_CONSTANTS.items())
                for name, value in vars(constants).items() if isinstance(value, float)]

    @cached_property
    def engines(self) -> list[dict]:
        """Per backend-era constants set: the engine builds it describes, and whether the pages use it."""
        newest = {id(c) for c in fitted.CONSTANTS.values()}
        return [{"backend": f"{family} {era}", "engine": c.engine, "current": id(c) in newest}
                for (family, era), c in sorted(fitted.ERA_CONSTANTS.items())]

    @cached_property
    def cross_validated(self) -> list[dict]:
        """The cross-validated error rows (leave one GPU out, leave one source out) and the file-size row."""
        return cross_validated_rows()

    def held_out_points(self, kind: str) -> tuple[tuple[float, float], ...]:
        """(measured, estimated) of every calibration row of ``kind`` predicted with its GPU left out of the fit."""
        return tuple((m, p) for k, _f, _e, m, p in fitted.CV_POINTS if k == kind)

    calibration_date = "2026-04-05"  # newest measurements bundled: the llama.cpp scoreboard rows scraped 2026-04-05

    def error_band(self, backend: str) -> bands.ErrorBand:
        """Typical cross-validated error of the speed figures on ``backend``, shown beside every speed figure."""
        return bands.error_band(backend)


def cross_validated_rows() -> list[dict]:
    """CV_STATS and the file-size statistics as plain rows."""
    rows = [{"method": m, "group": g, "kind": k, "rows": n, "median": md, "worst": w, "within": s}
            for m, g, k, n, md, w, s in fitted.CV_STATS]
    n, md, w, s = fitted.FILESIZE_STATS
    rows.append({"method": "formula", "group": "all", "kind": "filesize", "rows": n, "median": md, "worst": w,
                 "within": s})
    return rows


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
SERVING_SEGMENTS = ("datacenter", "workstation")
SUMMARY_QUANTS = ("Q4_K_M", "BF16")  # a model page's summary sentence: the usual download and full precision


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
