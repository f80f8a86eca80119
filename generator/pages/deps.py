"""What each page shows, as a digest: a page is re-rendered only when its digest changes."""

from __future__ import annotations

from functools import cached_property

from ..incremental import digest
from ..results import FINETUNE_METHODS, Results, matrix_quants
from .plan import PageKey
from .views import related_ids

GPU_PRICE_FIELDS = {"price_usd", "price_kind", "price_date"}


class PageDependencies:
    """Digests of the inputs behind each page subject (shared by its language versions)."""

    def __init__(self, results: Results, code: str):
        self.results, self.code = results, code
        self._extras_by_model: dict[str, str] = {}

    @cached_property
    def _offers(self) -> dict[str, str]:
        as_of = self.results.price_reference_date  # each price's age shows beside it
        return {g: digest(as_of, [(p.id, o.model_dump_json()) for p, o in offers])
                for g, offers in self.results.offers_by_gpu.items()}

    @cached_property
    def _all_models(self) -> str:
        return digest(sorted(self.results.model_digests.items()))

    @cached_property
    def _all_gpus(self) -> str:
        return digest(sorted(self.results.gpu_digests.items()), sorted(self._offers.items()))

    @cached_property
    def _all_gpu_specs(self) -> str:
        """Every GPU's facts but its list price (a model page shows none), and every cloud offer."""
        gpus = self.results.catalog.gpus
        return digest(sorted((g, gpu.model_dump_json(exclude=GPU_PRICE_FIELDS)) for g, gpu in gpus.items()),
                      sorted(self._offers.items()))

    @cached_property
    def _summaries(self) -> dict[tuple[str, str], str]:
        """What a link or a card shows of another pair: names, quantization, verdict, memory and decode speed."""
        models, gpus = self.results.catalog.models, self.results.catalog.gpus
        return {(m, g): repr((m, g, models[m].name, gpus[g].name, pick.quant, pick.estimate.verdict,
                              pick.estimate.total_bytes, pick.estimate.decode_tokens_per_s))
                for (m, g), pick in self.results.pairs.items()}

    def _model_extras(self, model_id: str) -> tuple:
        """Cross-GPU data a pair page of this model shows: recommendations, best GPU per quant, fine-tuning picks."""
        r = self.results
        picks = [(repr(pick), r.gpu_digests[pick.gpu], self._summaries[(model_id, pick.gpu)])
                 for pick in r.recommendations(model_id)]
        best = [(q, r.best_gpu(model_id, q)) for q in matrix_quants(r.models[model_id])]
        best = [(q, g, r.catalog.gpus[g].name if g else None) for q, g in best]
        finetune = [r.finetune_gpu(model_id, method) for method in FINETUNE_METHODS]
        return picks, best, finetune

    @cached_property
    def _linked(self) -> dict[tuple[str, str], str]:
        """Per pair, a digest of the related pairs its links show. They follow from estimates, names and sizes
        alone, so the store keeps them while no model, GPU spec or code changes (a price edit reuses them)."""
        r = self.results
        key = ("linked", self.code, self._all_models, r.gpu_specs_digest)
        return r.from_store(key, lambda: {
            (m, g): digest("".join([self._summaries[pair] for pair in related_ids(r, m, g)]))
            for m, g in r.pairs})

    def digest(self, key: PageKey) -> str:
        """The digest of everything the page for ``key`` shows."""
        r = self.results
        if key.kind == "pair":
            m, g = key.model, key.gpu
            return digest(self.code, r.model_digests[m], r.gpu_digests[g], self._offers[g], self._extras(m),
                          self._linked[(m, g)])
        if key.kind == "model":  # prices show only through cloud offers and the fine-tuning picks
            finetune = [r.finetune_gpu(key.model, method) for method in FINETUNE_METHODS]
            return digest(self.code, r.model_digests[key.model], self._all_gpu_specs, finetune)
        if key.kind == "gpu":
            return digest(self.code, r.gpu_digests[key.gpu], self._offers[key.gpu], self._all_models,
                          r.compared_with[key.gpu])
        if key.kind == "compare":  # the picks follow from every GPU's estimate of this model and the prices
            return digest(self.code, r.model_digests[key.model], self._all_gpus,
                          [self._summaries[(key.model, g)] for g in r.compare_gpus(key.model)])
        return digest(self.code, self._all_models, self._all_gpus)

    def _extras(self, model_id: str) -> str:
        if model_id not in self._extras_by_model:
            self._extras_by_model[model_id] = digest(self._model_extras(model_id))
        return self._extras_by_model[model_id]
