"""Per-model estimates, the worker's unit: every estimate and estimator-derived value the pages of one model need,
taken from the store or computed and put there."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from functools import cache, partial
from typing import Any, NamedTuple, TypeVar

from ..catalog.schema import Catalog, Gpu
from ..estimate import estimator, fidelity, finetune, serving_setup, vllm_support
from ..estimate.device import DeviceSpec
from ..estimate.estimator import Estimate, ModelSpec, Request
from ..estimate.quant import QUANT_INFO, quant_info
from .adapters import device_spec, model_spec
from .policy import SETUP_QUANTS, PairResult, holds, meets_floor, published_quants, recommend
from .store import EstimateStore, StoreKeys

# Quantizations tried for a recommendation, best quality first. Q8_0 leads: BF16 costs twice the memory and
# bandwidth for no measurable quality gain in llama.cpp's perplexity tables.
PREFERENCE = ("Q8_0", "Q6_K", "Q5_K_M", "Q4_K_M", "IQ4_XS", "Q3_K_M", "Q2_K", "IQ2_XXS", "IQ1_S")
NATIVE_MXFP4 = ("MXFP4_MOE", "Q2_K", "IQ1_S")
MATRIX = ("BF16", "Q8_0", "Q6_K", "Q5_K_M", "Q4_K_M", "IQ4_XS", "Q3_K_M", "Q2_K", "IQ2_XXS", "IQ1_S")
PAGE_CONTEXT_TOKENS = 8192
CONTEXT_STEPS = (4096, 8192, 16384, 32768, 65536, 131072, 262144, 524288, 1048576)
# The quant a model's own Hugging Face repository holds, by its native format (what vLLM loads from it).
NATIVE_CHECKPOINT = {"bf16": "BF16", "fp8": "FP8", "mxfp4": "MXFP4"}
FINETUNE_METHODS: tuple[finetune.Method, ...] = ("qlora", "lora", "full")
FINETUNE_SEQ_LEN = 2048
REQUIREMENT_QUANTS = ("BF16", "Q8_0", "Q6_K", "Q5_K_M", "Q4_K_M", "IQ4_XS", "Q3_K_M", "Q2_K")
SERVING_SEGMENTS = ("datacenter", "workstation")
SUMMARY_QUANTS = ("Q4_K_M", "BF16")  # a model page's summary sentence: the usual download and full precision
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
class VllmSetup:
    """A checkpoint vLLM can serve on ``gpu_count`` of a GPU, with the estimate that says it fits."""

    repo: str
    quant: str
    gpu_count: int
    estimate: Estimate


class ContextSweep(NamedTuple):
    """A pair's memory against context length, and the largest context that fits with each KV type.

    ``rows``: (context, KV f16, total f16, KV q8_0, total q8_0) in bytes, as plain tuples (cheap to store)."""

    rows: tuple[tuple[int, int, int, int, int], ...]
    max_context_f16: int
    max_context_q8: int
    usable_bytes: int


def reference_gpu(catalog: Catalog) -> str:
    """The largest catalogued CUDA GPU (any GPU without one), whose figures the requirement tables use."""
    cuda = [g for g in catalog.gpus.values() if "cuda" in g.backends] or list(catalog.gpus.values())
    return max(cuda, key=lambda g: (g.memory_bytes, g.id)).id


def reference_device(gpu: Gpu) -> DeviceSpec:
    """The GPU with unbounded memory: requirement tables then show memory, never a verdict."""
    return replace(device_spec(gpu), memory_bytes=2**50, usable_memory_bytes=2**50)


def serving_gpus(catalog: Catalog) -> list[str]:
    """GPUs whose pair pages show batched serving: datacenter and workstation parts that vLLM runs on."""
    return sorted(g.id for g in catalog.gpus.values() if g.segment in SERVING_SEGMENTS and {"cuda", "rocm"} & set(g.backends))


def rented_gpus(catalog: Catalog) -> list[str]:
    """GPUs with at least one cloud offer, in id order."""
    return sorted({offer.gpu for _, offer in catalog.offers()})


def gpu_counts(gpu: Gpu) -> tuple[int, ...]:
    """How many of ``gpu`` one machine holds for tensor parallel: 1, 2, 4 or 8 where the catalogue names the link
    between its GPUs (PCIe, NVLink, Infinity Fabric), else one. Separate boxes (Apple, DGX Spark, Ryzen AI Max and
    other unified-memory machines) never count as one server: tensor parallel across them needs a network and the
    engine's multi-node mode, which the pages do not describe."""
    return serving_setup.PAGE_GPU_COUNTS if gpu.interconnect is not None and not gpu.unified_memory else (1,)


class MultiGpu(NamedTuple):
    """A multi-GPU setup of one GPU kind in one machine that holds a model at or above the quality floor."""

    gpu_count: int
    quant: str
    total_bytes: int
    decode_tokens_per_s: float


class ServingOptions(NamedTuple):
    """A pair's serving plan on the fewest GPUs, and the next larger tensor-parallel group (None where none)."""

    plan: serving_setup.ServingPlan | None
    larger: serving_setup.ServingPlan | None


class ModelEstimates:
    """Computes, model by model, every stored result the pages need (or finds it in the store)."""

    def __init__(self, catalog: Catalog, store: EstimateStore | None = None):
        self.catalog = catalog
        self.store = store if store is not None else EstimateStore()
        self.reference_id = reference_gpu(catalog)
        self.keys = StoreKeys(catalog, self.reference_id)
        self.models = {model_id: model_spec(model) for model_id, model in catalog.models.items()}
        self.devices = {gpu_id: device_spec(gpu) for gpu_id, gpu in catalog.gpus.items()}
        self.reference = reference_device(catalog.gpus[self.reference_id])
        self.serving_gpus = serving_gpus(catalog)
        self.rented_gpus = rented_gpus(catalog)
        self.used: set[tuple] = set()
        self._unit: dict[tuple, Any] | None = None  # while computing one model: its values as objects

    def from_store(self, stored: tuple, compute: Callable[[], T]) -> T:
        """The store's value for ``stored``, else ``compute()`` put there; either way kept for the next build."""
        unit = self._unit
        found = None if unit is None else unit.get(stored)
        if found is None:
            found = self.store.get(stored)
            if found is None:
                found = compute()
                self.store.put(stored, found)
            if unit is not None:
                unit[stored] = found
        self.used.add(stored)
        return found

    # --- one result each ---------------------------------------------------------------------------------

    def _estimate(self, model_id: str, gpu_id: str, quant: str, context_tokens: int, limits: bool) -> Estimate:
        return estimator.estimate(self.models[model_id], self.devices[gpu_id], _page_request(quant, context_tokens),
                                  limits=limits)

    def quant_estimates(self, model_id: str, gpu_id: str) -> dict[str, Estimate]:
        """Each quant a pair's pages show or try, at the pages' context: memory, verdict and decode speed only
        (``limits=False``). One stored value per pair: the estimates share most of their assumption texts."""
        return self.from_store(self.keys.pair(model_id, gpu_id, "quants"), lambda: {
            quant: self._estimate(model_id, gpu_id, quant, PAGE_CONTEXT_TOKENS, limits=False)
            for quant in dict.fromkeys((*self.candidates(model_id), *matrix_quants(self.models[model_id])))})

    def quant_estimate(self, model_id: str, gpu_id: str, quant: str) -> Estimate:
        """One model at one quant on one GPU at the pages' context (see :meth:`quant_estimates`)."""
        return self.quant_estimates(model_id, gpu_id)[quant]

    def candidates(self, model_id: str) -> tuple[str, ...]:
        """Quants tried for a pair's recommendation, best first: the preference list and every other GGUF quant
        the catalogue publishes for the model that the estimator knows, the model's own release first (gpt-oss's
        MXFP4 before a Q5_K_M that re-quantises its other tensors), then by nominal bits (the list first at ties)."""
        spec = self.models[model_id]
        listed = preference(spec)
        extra = sorted(q for q in published_quants(self.catalog.models[model_id])
                       if q not in listed and q in QUANT_INFO and QUANT_INFO[q].family == "gguf")
        ranked = [*listed, *extra]
        return tuple(sorted(ranked, key=lambda q: (fidelity.grade(q, spec.native_format) != "native",
                                                   -QUANT_INFO[q].nominal_bits, ranked.index(q)))) if extra else listed

    def pick(self, model_id: str, gpu_id: str) -> PairResult:
        """The recommended setup of one pair with its full estimate."""
        def choose() -> PairResult:
            model, ready = self.models[model_id], published_quants(self.catalog.models[model_id])
            quant = recommend([(q, self.quant_estimate(model_id, gpu_id, q)) for q in self.candidates(model_id)],
                              lambda q: meets_floor(q, model.native_format), ready.__contains__,
                              lambda q: fidelity.grade(q, model.native_format) == "native").quant
            return PairResult(quant, self._estimate(model_id, gpu_id, quant, PAGE_CONTEXT_TOKENS, limits=True))
        return self.from_store(self.keys.pair(model_id, gpu_id, "pick"), choose)

    def context_sweep(self, model_id: str, gpu_id: str) -> ContextSweep:
        """Memory of the pair's recommended quant from 4K to the model's maximum context."""
        def sweep() -> ContextSweep:
            model, device, quant = self.models[model_id], self.devices[gpu_id], self.pick(model_id, gpu_id).quant
            limit = self.catalog.models[model_id].context_length
            contexts = (*(c for c in CONTEXT_STEPS if c < limit), limit)
            f16, q8 = (estimator.context_memory(model, device, Request(quant=quant, kv_type=kv), contexts)
                       for kv in ("f16", "q8_0"))
            rows = tuple(zip(contexts, f16.kv_cache_bytes, f16.total_bytes, q8.kv_cache_bytes, q8.total_bytes))
            return ContextSweep(rows, f16.max_context_tokens, q8.max_context_tokens, f16.usable_bytes)
        return self.from_store(self.keys.pair(model_id, gpu_id, "sweep"), sweep)

    def model_requirements(self, model_id: str) -> list[dict]:
        """Total memory per quantization at 4K, 32K, 128K context and 16 sequences at 8K (llama.cpp on CUDA)."""
        def table() -> list[dict]:
            spec, max_ctx = self.models[model_id], self.catalog.models[model_id].context_length
            scenarios = [(c, 1) for c in (4096, 32768, 131072) if c <= max_ctx] + [(8192, 16)]
            rows = []
            for context_tokens, sequences in scenarios:
                cells = {}
                for quant in REQUIREMENT_QUANTS:
                    e = estimator.estimate(spec, self.reference, Request(quant=quant, context_tokens=context_tokens,
                                                                         sequences=sequences), limits=False)
                    cells[quant] = {"total_bytes": e.total_bytes, "weights_bytes": e.weights_bytes,
                                    "kv_cache_bytes": e.kv_cache_bytes}
                rows.append({"context": context_tokens, "sequences": sequences, "cells": cells})
            return rows
        return self.from_store(self.keys.reference(model_id, "requirements"), table)

    def page_context_requirements(self, model_id: str) -> dict[str, int]:
        """Total memory per ``SUMMARY_QUANTS`` quantization at the pages' context, one sequence, on the reference
        device (the figures a model page's summary states)."""
        return self.from_store(self.keys.reference(model_id, "summary"), lambda: {
            quant: estimator.estimate(self.models[model_id], self.reference, _page_request(quant, PAGE_CONTEXT_TOKENS),
                                      limits=False).total_bytes for quant in SUMMARY_QUANTS})

    def finetune(self, model_id: str, method: finetune.Method) -> finetune.FinetuneEstimate:
        """Fine-tuning memory of one model and method at the pages' sequence length."""
        return self.from_store(self.keys.finetune(model_id, method), lambda: finetune.finetune_memory(
            self.models[model_id], method, seq_len=FINETUNE_SEQ_LEN))

    def fitting_gpus(self, model_id: str, quant: str) -> tuple[str, ...]:
        """The GPUs on which this quant fits with margin at the pages' context."""
        return self.from_store(self.keys.across_gpus(model_id, f"fitting {quant}"), lambda: tuple(
            g for g in sorted(self.devices) if self.quant_estimate(model_id, g, quant).verdict == "fits"))

    def tensor_parallel_count(self, model_id: str, gpu_id: str, quant: str) -> int:
        """The fewest GPUs (2, 4 or 8, tensor parallel) on which ``quant`` fits with margin, or 0."""
        def fewest() -> int:
            for count in gpu_counts(self.catalog.gpus[gpu_id])[1:]:
                device = device_spec(self.catalog.gpus[gpu_id], count=count, parallel="tensor")
                if estimator.on_gpu(self.models[model_id], device, Request(quant=quant, gpu_count=count)) == "fits":
                    return count
            return 0
        return self.from_store(self.keys.tensor_parallel(model_id, gpu_id, quant), fewest)

    def multi_gpu(self, model_id: str, gpu_id: str) -> tuple[MultiGpu | None]:
        """Where the pair's recommended setup does not hold the model at or above the quality floor: the fewest GPUs
        of this kind in one machine (2, 4 or 8) that hold it at the best such quantization with margin, as a 1-tuple
        (None: the pick holds it already, or no such machine does). The quantization is a GGUF, so the GPUs split the
        model by layers as llama.cpp does by default (``--split-mode layer``): memory adds up, decode runs one GPU
        after another at about one GPU's speed."""
        def fewest() -> tuple[MultiGpu | None]:
            model = self.models[model_id]
            if holds(self.pick(model_id, gpu_id), model.native_format):
                return (None,)
            quants = [q for q in preference(model) if meets_floor(q, model.native_format)]
            for count in gpu_counts(self.catalog.gpus[gpu_id])[1:]:
                device = device_spec(self.catalog.gpus[gpu_id], count=count, parallel="layer")
                for quant in quants:
                    e = estimator.estimate(model, device, Request(quant=quant, gpu_count=count), limits=False)
                    if e.verdict == "fits":
                        return (MultiGpu(count, quant, e.total_bytes, e.decode_tokens_per_s),)
            return (None,)
        return self.from_store(self.keys.pair(model_id, gpu_id, "multi-gpu"), fewest)

    def serving(self, model_id: str, gpu_id: str) -> ServingOptions:
        """(the pair's vLLM serving plan or None, the next larger tensor-parallel group or None) on a serving GPU;
        stored as a tuple, so "does not serve" is stored too."""
        return self.from_store(self.keys.pair(model_id, gpu_id, "serving"), lambda: self._serving_options(model_id, gpu_id))

    def _serving_options(self, model_id: str, gpu_id: str) -> ServingOptions:
        """The fewest GPUs in one machine that serve the model with a request of the pages' context, and twice as many
        as a second row (what a larger tensor-parallel group gains and costs), where the GPUs connect in one box."""
        gpu, spec = self.catalog.gpus[gpu_id], self.models[model_id]
        context = min(PAGE_CONTEXT_TOKENS, spec.context_length)
        published = frozenset(c.quant for c in self.catalog.models[model_id].checkpoints
                              if vllm_support.loads_checkpoint(c.repo, c.quant, self.devices[gpu_id].backend))
        counts = gpu_counts(gpu)
        for i, count in enumerate(counts):
            plan = serving_setup.page_plan(spec, (device_spec(gpu, count, "tensor"),), min_context=context,
                                           published=published)
            if plan is None:
                continue
            larger = None
            if i + 1 < len(counts):
                larger = serving_setup.page_plan(spec, (device_spec(gpu, counts[i + 1], "tensor"),),
                                                 min_context=context, published=published)
            return ServingOptions(plan, larger)
        return ServingOptions(None, None)

    def serving_context(self, model_id: str, gpu_id: str) -> tuple[int, int, int]:
        """(the context serving commands accept, requests of that length the serving plan's KV cache holds with
        vLLM, with SGLang): vLLM and SGLang refuse to start when one request of the full length does not fit."""
        def find() -> tuple[int, int, int]:
            plan, spec = self.serving(model_id, gpu_id)[0], self.models[model_id]
            context = min(PAGE_CONTEXT_TOKENS, spec.context_length)
            if plan is None:
                return (context, 0, 0)
            device = device_spec(self.catalog.gpus[gpu_id], plan.gpu_count, "tensor")
            held = []
            for engine in ("vllm", "sglang"):
                try:
                    held.append(serving_setup.setup(spec, device, engine, plan.precision, context - 1, 1,
                                                    plan.tensor_parallel).max_concurrency)
                except serving_setup.ServingError:
                    held.append(0)
            return (context, held[0], held[1])
        return self.from_store(self.keys.pair(model_id, gpu_id, "serving-context"), find)

    def vllm_checkpoints(self, model_id: str, gpu_id: str) -> tuple[list[tuple[str, str]], tuple[str, ...]]:
        """(repo, quant) checkpoints vLLM's kernels run on this GPU, best precision first, and the formats they do
        not (a GPU vLLM does not run on: none)."""
        def split() -> tuple[list[tuple[str, str]], tuple[str, ...]]:
            model, spec = self.catalog.models[model_id], self.models[model_id]
            candidates = [(model.hf_repo, NATIVE_CHECKPOINT[spec.native_format])]
            candidates += [(c.repo, c.quant) for c in model.checkpoints]
            candidates.sort(key=lambda c: -quant_info(c[1]).nominal_bits)  # stable: the original first among equals
            return vllm_support.split_by_support(candidates, self.devices[gpu_id], spec.architecture.n_experts > 0)
        if self.devices[gpu_id].backend not in vllm_support.VLLM_BACKENDS:
            return [], ()
        return self.from_store(self.keys.pair(model_id, gpu_id, "vllm-checkpoints"), split)

    def vllm_setup(self, model_id: str, gpu_id: str) -> VllmSetup | None:
        """The checkpoint vLLM serves for this pair: on the fewest GPUs (1, 2, 4 or 8, tensor parallel), the
        best-precision checkpoint vLLM runs here that fits at the pages' context; None when none fits eight."""
        if self.devices[gpu_id].backend not in vllm_support.VLLM_BACKENDS:
            return None
        return self._stored_vllm_setup(model_id, gpu_id)[0]

    def _stored_vllm_setup(self, model_id: str, gpu_id: str) -> tuple[VllmSetup | None]:
        """:meth:`vllm_setup` as stored: a 1-tuple, so "none fits" is stored too."""
        def find() -> tuple[VllmSetup | None]:
            spec, gpu = self.models[model_id], self.catalog.gpus[gpu_id]
            candidates = self.vllm_checkpoints(model_id, gpu_id)[0]
            for count in gpu_counts(gpu):
                device = self.devices[gpu_id] if count == 1 else device_spec(gpu, count=count, parallel="tensor")
                for repo, quant in candidates:
                    request = Request(quant=quant, context_tokens=PAGE_CONTEXT_TOKENS, engine="vllm", gpu_count=count)
                    estimate = estimator.estimate(spec, device, request, limits=False)
                    if estimate.verdict in ("fits", "tight"):
                        return (VllmSetup(repo, quant, count, estimate),)
            return (None,)
        return self.from_store(self.keys.pair(model_id, gpu_id, "vllm"), find)

    # --- the unit of work: one model ------------------------------------------------------------------------

    def _store_entries(self, model_id: str) -> Iterator[tuple[tuple, Callable[[], Any]]]:
        """Each stored result the pages of a model need, as (store key, getter)."""
        keys = self.keys
        for gpu_id in sorted(self.devices):
            yield keys.pair(model_id, gpu_id, "quants"), partial(self.quant_estimates, model_id, gpu_id)
            yield keys.pair(model_id, gpu_id, "pick"), partial(self.pick, model_id, gpu_id)
            yield keys.pair(model_id, gpu_id, "sweep"), partial(self.context_sweep, model_id, gpu_id)
            yield keys.pair(model_id, gpu_id, "multi-gpu"), partial(self.multi_gpu, model_id, gpu_id)
            if self.devices[gpu_id].backend in vllm_support.VLLM_BACKENDS:
                yield keys.pair(model_id, gpu_id, "vllm-checkpoints"), partial(self.vllm_checkpoints, model_id, gpu_id)
                yield keys.pair(model_id, gpu_id, "vllm"), partial(self._stored_vllm_setup, model_id, gpu_id)
        yield keys.reference(model_id, "requirements"), lambda: self.model_requirements(model_id)
        yield keys.reference(model_id, "summary"), lambda: self.page_context_requirements(model_id)
        for method in FINETUNE_METHODS:
            yield keys.finetune(model_id, method), partial(self.finetune, model_id, method)
        for quant in matrix_quants(self.models[model_id]):
            yield keys.across_gpus(model_id, f"fitting {quant}"), partial(self.fitting_gpus, model_id, quant)
        for gpu_id in self.serving_gpus:
            yield keys.pair(model_id, gpu_id, "serving"), partial(self.serving, model_id, gpu_id)
            yield (keys.pair(model_id, gpu_id, "serving-context"),
                   partial(self.serving_context, model_id, gpu_id))
        for quant in SETUP_QUANTS:
            for gpu_id in self.rented_gpus:
                yield (keys.tensor_parallel(model_id, gpu_id, quant),
                       partial(self.tensor_parallel_count, model_id, gpu_id, quant))

    def compute(self, model_ids: list[str]) -> None:
        """Put the results of these models into the store, computed or found there, one model at a time (a model's
        values stay objects only while it is computed)."""
        for model_id in model_ids:
            self._unit = {}
            try:
                for _, get in self._store_entries(model_id):
                    get()
            finally:
                self._unit = None

    def stored(self, model_id: str) -> bool:
        """Whether the store already holds every result the pages of a model need (nothing to compute); if so,
        they count as used, so saving the store keeps them for pages this build does not render."""
        keys = [key for key, _ in self._store_entries(model_id)]
        if not all(map(self.store.has, keys)):
            return False
        self.used.update(keys)
        return True

    def page_answer(self, model_ids: list[str]) -> dict[tuple, bytes]:
        """:meth:`compute` for another process to :meth:`absorb`: each result as the store keeps it."""
        self.compute(model_ids)
        return {key: self.store.encoded(key) for model_id in model_ids for key, _ in self._store_entries(model_id)}

    def absorb(self, answer: dict[tuple, bytes]) -> None:
        """Take what :meth:`page_answer` computed in another process as if computed here (into the store)."""
        for key, data in answer.items():
            self.store.put_encoded(key, data)
            self.used.add(key)

    def save_store(self) -> None:
        """Keep the results this build used for the next one."""
        self.store.save(keep=self.used)
