"""The site data: computed up front from the catalogue and the store, then frozen. Rendering only reads it: no
lookup computes, and a value the stage did not compute is a KeyError, never a late estimate."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from functools import partial
from typing import Any, Literal, NamedTuple

from ..catalog.freshness import newest_price_date
from ..catalog.schema import Catalog
from ..estimate import bands, vllm_support
from ..estimate import finetune as finetune_
from ..estimate.device import DeviceSpec
from ..estimate.estimator import Estimate, ModelSpec
from ..estimate.kvcache import kvcache_bytes_per_1k
from ..estimate.runtime import VLLM_GPU_MEMORY_UTILIZATION
from ..incremental import digest
from . import methodology, navigation, policy
from .compute import (
    FINETUNE_METHODS,
    ContextSweep,
    ModelEstimates,
    MultiGpu,
    ServingOptions,
    VllmSetup,
    gpu_counts,
    matrix_quants,
)
from .navigation import Pairs
from .policy import CloudPick, Offers, PairResult, Pick, ServingChoice
from .store import EstimateStore, StoreKeys


class Input(NamedTuple):
    """A read of one entry's estimator input that a stored value follows from (its digest)."""

    kind: Literal["input"]
    input: Literal["model", "gpu-spec", "gpu"]
    id: str


class SharedInput(NamedTuple):
    """A read of an input stored values follow from whole: all GPUs' specs, or the reference GPU."""

    kind: Literal["input"]
    input: Literal["gpu-specs", "reference"]


class SiteData:
    """Catalogue plus estimator views of it, every pair's recommendation and every cross-page table, frozen."""

    vllm_utilisation: float = VLLM_GPU_MEMORY_UTILIZATION  # vLLM's default --gpu-memory-utilization
    calibration_date = methodology.CALIBRATION_DATE

    # Set once in __init__ (through __dict__: the instance is frozen).
    catalog: Catalog
    price_reference_date: dt.date
    model_digests: dict[str, str]
    gpu_digests: dict[str, str]
    gpu_spec_digests: dict[str, str]
    gpu_specs_digest: str
    models: dict[str, ModelSpec]
    devices: dict[str, DeviceSpec]
    pairs: Pairs
    offers_by_gpu: Offers
    gpus_by_memory: list[str]
    models_by_size: list[str]
    similar_gpus: dict[str, list[str]]
    similar_models: dict[str, list[str]]
    compared_with: dict[str, list[str]]
    cheapest_cloud: dict[str, CloudPick | None]
    cross_validated: list[dict]
    constants_table: list[dict]
    engines: list[dict]
    _store: EstimateStore
    _keys: StoreKeys
    _serving_gpus: set[str]
    _reference: DeviceSpec
    _reference_id: str
    _fitting_by_gpu: dict[str, list[str]]
    _popular: list[tuple[str, str]]
    _recommendations: dict[str, list[Pick]]
    _compared: dict[str, list[str]]
    _best_gpu: dict[tuple[str, str], str | None]
    _finetune_gpu: dict[tuple[str, str], tuple[str, str] | None]
    _setups: dict[str, list[dict]]
    _serving: dict[str, list[ServingChoice]]
    _kv_per_1k: dict[str, int]
    _held_out: dict[str, tuple[tuple[float, float], ...]]
    _error_bands: dict[tuple[str, str, str], bands.ErrorBand]

    def __init__(self, catalog: Catalog, store: EstimateStore | None = None, prices_as_of: dt.date | None = None,
                 *, estimates: ModelEstimates | None = None):
        """The site data of ``catalog``; ``estimates``: the estimate stage's values when a build computed them (in
        worker processes), else they are computed here. ``prices_as_of``: the date price ages count to (None: the
        catalogue's newest price date)."""
        if estimates is None:
            estimates = ModelEstimates(catalog, store)
            estimates.compute([m for m in sorted(estimates.models) if not estimates.stored(m)])
        put = self.__dict__.update
        keys, gpus = estimates.keys, catalog.gpus
        put(catalog=catalog, _store=estimates.store, _keys=keys,
            price_reference_date=prices_as_of or newest_price_date(catalog),
            model_digests=keys.model_digests, gpu_digests=keys.gpu_digests,
            gpu_spec_digests=keys.gpu_spec_digests, gpu_specs_digest=keys.gpu_specs_digest,
            models=estimates.models, devices=estimates.devices, _serving_gpus=set(estimates.serving_gpus),
            _reference=estimates.reference, _reference_id=estimates.reference_id)
        texts: dict[tuple[str, str], tuple[str, str]] = {}
        pairs = {(m, g): _sharing_texts(estimates.pick(m, g), texts) for m in sorted(estimates.models)
                 for g in sorted(estimates.devices)}
        offers = policy.offers_by_gpu(catalog)
        by_memory, by_size = navigation.gpus_by_memory(catalog), navigation.models_by_size(catalog)
        recommendations = {m: policy.recommendations(catalog, spec.native_format, {g: pairs[(m, g)] for g in gpus}, offers)
                           for m, spec in estimates.models.items()}
        compared = {m: navigation.compare_gpus(catalog, m, recommendations[m], pairs) for m in sorted(catalog.models)}
        put(pairs=pairs, offers_by_gpu=offers, gpus_by_memory=by_memory, models_by_size=by_size,
            similar_gpus=navigation.similar(by_memory), similar_models=navigation.similar(by_size),
            compared_with=navigation.compared_with(catalog, compared),
            _fitting_by_gpu=navigation.fitting_by_gpu(catalog, by_size, pairs),
            _popular=navigation.popular_pairs(catalog, pairs, {m: s.native_format for m, s in estimates.models.items()},
                                              offers),
            _recommendations=recommendations, _compared=compared,
            _best_gpu={(m, q): policy.best_gpu(catalog, estimates.fitting_gpus(m, q))
                       for m, spec in estimates.models.items() for q in matrix_quants(spec)},
            _finetune_gpu={(m, method): policy.finetune_gpu(catalog, estimates.devices,
                                                            estimates.finetune(m, method).total_bytes, method,
                                                            lambda g: gpu_counts(gpus[g]))
                           for m in estimates.models for method in FINETUNE_METHODS},
            _setups={m: policy.cheapest_setups(catalog, offers, _fits_on(estimates, m),
                                               partial(estimates.tensor_parallel_count, m))
                     for m in estimates.models},
            cheapest_cloud={m: policy.cheapest_cloud(catalog, spec.native_format, {g: pairs[(m, g)] for g in gpus}, offers)
                            for m, spec in estimates.models.items()},
            _serving={m: policy.cheapest_serving({g: estimates.serving(m, g)[0] for g in estimates.serving_gpus}, offers)
                      for m in estimates.models},
            _kv_per_1k={m: kvcache_bytes_per_1k(spec) for m, spec in estimates.models.items()},
            cross_validated=methodology.cross_validated_rows(), constants_table=methodology.constants_table(),
            engines=methodology.engines(), _held_out=methodology.held_out_points(),
            _error_bands=methodology.error_bands(gpus))

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"site data is frozen: cannot set {name}")

    def _stored(self, key: tuple) -> Any:
        found = self._store.get(key)
        if found is None:
            raise KeyError(f"not computed in the site-data stage: {key}")
        return found

    # --- per pair --------------------------------------------------------------------------------------------

    def pick(self, model_id: str, gpu_id: str) -> PairResult:
        """The recommended setup of one pair with its full estimate (``pairs`` holds them all)."""
        return self.pairs[(model_id, gpu_id)]

    def quant_estimate(self, model_id: str, gpu_id: str, quant: str) -> Estimate:
        """One model at one quant on one GPU at the pages' context, memory, verdict and decode speed only: a matrix
        row."""
        return self._stored(self._keys.pair(model_id, gpu_id, "quants"))[quant]

    def context_sweep(self, model_id: str, gpu_id: str) -> ContextSweep:
        """Memory of the pair's recommended quant from 4K to the model's maximum context."""
        return self._stored(self._keys.pair(model_id, gpu_id, "sweep"))

    def serving(self, model_id: str, gpu_id: str) -> ServingOptions:
        """(the pair's vLLM serving plan on the fewest GPUs, the next larger tensor-parallel group), each or None:
        both None on GPUs whose pages show no batched serving."""
        if gpu_id not in self._serving_gpus:
            return ServingOptions(None, None)
        return self._stored(self._keys.pair(model_id, gpu_id, "serving"))

    def multi_gpu(self, model_id: str, gpu_id: str) -> MultiGpu | None:
        """The fewest GPUs of this kind in one machine that hold the model at or above the quality floor, where one
        does not (else None)."""
        return self._stored(self._keys.pair(model_id, gpu_id, "multi-gpu"))[0]

    def serving_context(self, model_id: str, gpu_id: str) -> tuple[int, int, int]:
        """(context the serving commands accept, full-length requests the plan's KV cache holds with vLLM, with
        SGLang); on GPUs whose pages show no batched serving, (context, 0, 0) is never read."""
        return self._stored(self._keys.pair(model_id, gpu_id, "serving-context"))

    def vllm_setup(self, model_id: str, gpu_id: str) -> VllmSetup | None:
        """The checkpoint vLLM serves for this pair on the fewest GPUs (1, 2, 4 or 8), or None."""
        if self.devices[gpu_id].backend not in vllm_support.VLLM_BACKENDS:
            return None
        return self._stored(self._keys.pair(model_id, gpu_id, "vllm"))[0]

    def vllm_checkpoints(self, model_id: str, gpu_id: str) -> tuple[list[tuple[str, str]], tuple[str, ...]]:
        """(repo, quant) checkpoints vLLM's kernels run on this GPU and the formats they do not (CUDA/ROCm only)."""
        if self.devices[gpu_id].backend not in vllm_support.VLLM_BACKENDS:
            return [], ()
        return self._stored(self._keys.pair(model_id, gpu_id, "vllm-checkpoints"))

    def tensor_parallel_count(self, model_id: str, gpu_id: str, quant: str) -> int:
        """The fewest GPUs (2, 4 or 8, tensor parallel) of a rented GPU on which ``quant`` fits with margin, or 0."""
        return self._stored(self._keys.tensor_parallel(model_id, gpu_id, quant))

    # --- per model -------------------------------------------------------------------------------------------

    def recommendations(self, model_id: str) -> list[Pick]:
        """Best single GPU, best value, used/older, Apple and cheapest cloud (see ``policy.recommendations``)."""
        return self._recommendations[model_id]

    def compare_gpus(self, model_id: str) -> list[str]:
        """The GPUs a model's comparison page sets side by side."""
        return self._compared[model_id]

    def best_gpu(self, model_id: str, quant: str) -> str | None:
        """The cheapest catalogued GPU (list price, then memory) on which this quant fits with margin."""
        return self._best_gpu[(model_id, quant)]

    def fitting_gpus(self, model_id: str, quant: str) -> tuple[str, ...]:
        """The GPUs on which this quant fits with margin at the pages' context."""
        return self._stored(self._keys.across_gpus(model_id, f"fitting {quant}"))

    def finetune(self, model_id: str, method: str) -> finetune_.FinetuneEstimate:
        """Fine-tuning memory of one model and method at the pages' sequence length."""
        return self._stored(self._keys.finetune(model_id, method))

    def finetune_gpu(self, model_id: str, method: str) -> tuple[str, str] | None:
        """(gpu id, label) of the cheapest single GPU, or smallest multi-GPU count, that holds this fine-tuning run."""
        return self._finetune_gpu[(model_id, method)]

    def cheapest_setups(self, model_id: str) -> list[dict]:
        """Per precision at 8K context: the cheapest rentable single GPU and multi-GPU setup that fit, per month."""
        return self._setups[model_id]

    def cheapest_serving(self, model_id: str) -> list[ServingChoice]:
        """Per precision the pair pages serve this model at, the cheapest listed cloud setup per 1M output tokens."""
        return self._serving[model_id]

    def model_requirements(self, model_id: str) -> list[dict]:
        """Total memory per quantization at 4K, 32K, 128K context and 16 sequences at 8K (llama.cpp on CUDA)."""
        return self._stored(self._keys.reference(model_id, "requirements"))

    def page_context_requirements(self, model_id: str) -> dict[str, int]:
        """Total memory per summary quantization at the pages' context on the reference device."""
        return self._stored(self._keys.reference(model_id, "summary"))

    def kv_per_1k(self, model_id: str) -> int:
        """KV-cache bytes per 1,024 tokens at f16 (``kvcache.kvcache_bytes_per_1k``)."""
        return self._kv_per_1k[model_id]

    # --- navigation and methodology ----------------------------------------------------------------------------

    def largest_fitting(self, gpu_id: str, count: int) -> list[str]:
        """The ``count`` largest models that fit on a GPU at 8K context (fits or tight), largest first."""
        return self._fitting_by_gpu[gpu_id][:count]

    def popular_pairs(self) -> list[tuple[str, str]]:
        """Example pairs: recognisable GPUs, each with the largest model it runs well (``navigation.popular_pairs``)."""
        return self._popular

    def reference_device(self) -> DeviceSpec:
        """A CUDA device larger than any model, so requirement tables show memory, not a verdict."""
        return self._reference

    def held_out_points(self, kind: str) -> tuple[tuple[float, float], ...]:
        """(measured, estimated) of every calibration row of ``kind`` predicted with its GPU left out of the fit."""
        return self._held_out.get(kind, ())

    def error_band(self, backend: str, arch_class: str = "dense", generation: str = "") -> bands.ErrorBand:
        """Typical cross-validated error of the speed figures on ``backend`` for a model of ``arch_class`` (dense, moe,
        hybrid) on a GPU of ``generation`` (bands.generation), shown beside every speed figure."""
        return self._error_bands[(backend, generation, arch_class)]

    def error_bands(self) -> tuple[bands.ErrorBand, ...]:
        """Every backend's band per GPU generation and architecture class, in that order (the methodology table)."""
        order = sorted(self._error_bands, key=lambda k: (k[0], k[1], bands.CLASSES.index(k[2])))
        return tuple(self._error_bands[k] for k in order)

    # --- what a read of a stored value depends on ----------------------------------------------------------

    def inputs(self, name: str) -> Callable[..., tuple[Input | SharedInput, ...]] | None:
        """For a stored lookup (a method, or a table by key), the estimator inputs its value follows from as a
        function of its arguments (its store key is made of their digests); None for any other lookup: a read of
        it is then compared by value."""
        return _STORED_INPUTS.get(name)

    def input_token(self, item: Input | SharedInput) -> str:
        """The current digest of one input (``"-"`` when the entry is gone)."""
        _, kind, *rest = item
        if kind == "model":
            return self.model_digests.get(rest[0], "-")
        if kind == "gpu-spec":
            return self.gpu_spec_digests.get(rest[0], "-")
        if kind == "gpu":
            return self.gpu_digests.get(rest[0], "-")
        if kind == "gpu-specs":
            return self.gpu_specs_digest
        if kind == "reference":
            return digest(self._reference_id, self.gpu_spec_digests[self._reference_id])
        raise KeyError(item)


def _sharing_texts(pick: PairResult, texts: dict[tuple[str, str], tuple[str, str]]) -> PairResult:
    """``pick`` with its assumption texts taken from ``texts`` (added there when new): each pick unpickles its own
    copies, yet the whole catalogue's picks hold under 200 distinct texts (shared, a 10x catalogue's picks take
    a fifth of the memory)."""
    assumptions = pick.estimate.assumptions
    shared = tuple(map(texts.setdefault, assumptions, assumptions))
    return PairResult(pick.quant, pick.estimate._replace(assumptions=shared))


def _fits_on(estimates: ModelEstimates, model_id: str) -> Callable[[str, str], bool]:
    """Whether a model's quant fits with margin on one GPU (from the stored fitting GPUs: no estimate unpickled)."""
    fitting: dict[str, frozenset[str]] = {}

    def fits(gpu_id: str, quant: str) -> bool:
        if quant not in fitting:
            fitting[quant] = frozenset(estimates.fitting_gpus(model_id, quant))
        return gpu_id in fitting[quant]
    return fits


def _pair(model_id: Any, gpu_id: Any = None, *_: Any) -> tuple[Input, ...]:
    if type(model_id) is tuple:  # a ``pairs`` key
        model_id, gpu_id = model_id
    return (Input("input", "model", model_id), Input("input", "gpu-spec", gpu_id))


def _model(model_id: Any, *_: Any) -> tuple[Input, ...]:
    return (Input("input", "model", model_id),)


def _model_and(other: SharedInput) -> Callable[..., tuple[Input | SharedInput, ...]]:
    return lambda model_id, *_: (Input("input", "model", model_id), other)


# Stored lookups (methods, and tables by key) and the inputs their store key digests.
_STORED_INPUTS: dict[str, Callable[..., tuple[Input | SharedInput, ...]]] = {
    "pairs": _pair, "pick": _pair, "quant_estimate": _pair, "context_sweep": _pair, "vllm_setup": _pair,
    "vllm_checkpoints": _pair, "tensor_parallel_count": _pair, "multi_gpu": _pair,
    # which GPUs serve follows from their segment too
    "serving": lambda model_id, gpu_id, *_: (Input("input", "model", model_id), Input("input", "gpu", gpu_id)),
    "serving_context": lambda model_id, gpu_id, *_: (Input("input", "model", model_id), Input("input", "gpu", gpu_id)),
    "models": _model, "model_digests": _model, "finetune": _model, "kv_per_1k": _model,
    "devices": lambda gpu_id, *_: (Input("input", "gpu-spec", gpu_id),),
    "gpu_spec_digests": lambda gpu_id, *_: (Input("input", "gpu-spec", gpu_id),),
    "gpu_digests": lambda gpu_id, *_: (Input("input", "gpu", gpu_id),),
    "model_requirements": _model_and(SharedInput("input", "reference")),
    "page_context_requirements": _model_and(SharedInput("input", "reference")),
    "fitting_gpus": _model_and(SharedInput("input", "gpu-specs")),
}
