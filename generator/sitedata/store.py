"""The store: results keyed by the content of the estimator's inputs, saved between builds and packed for the
trip from a worker process."""

from __future__ import annotations

import pickle
from functools import cached_property
from pathlib import Path
from typing import Any

from ..adapters import device_fields
from ..cachefile import CorruptCache, discard, load_pickle
from ..catalog.schema import Catalog
from ..estimate.api import Estimate
from ..incremental import collector_paused, digest


class StoreKeys:
    """Store keys of one catalogue: content digests of the estimator's inputs (a GPU's price, source or note is
    no input: its spec digest covers only the fields the adapter reads)."""

    def __init__(self, catalog: Catalog, reference_id: str):
        self.catalog, self.reference_id = catalog, reference_id

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
    def gpu_specs_digest(self) -> str:
        """One digest of every GPU's estimate-relevant facts (prices excluded)."""
        return digest(sorted(self.gpu_spec_digests.items()))

    def estimate(self, model_id: str, gpu_id: str, quant: str, context_tokens: int) -> tuple:
        return (self.model_digests[model_id], self.gpu_spec_digests[gpu_id], quant, context_tokens)

    def pair(self, model_id: str, gpu_id: str, kind: str) -> tuple[str, str, str]:
        """A per-pair result: ``pick``, ``sweep``, ``serving``, ``vllm`` or ``vllm-checkpoints``."""
        return (self.model_digests[model_id], self.gpu_spec_digests[gpu_id], kind)

    def reference(self, model_id: str, kind: str) -> tuple[str, str, str]:
        """A result on the reference device: ``requirements`` or ``summary``."""
        return (self.model_digests[model_id], self.gpu_spec_digests[self.reference_id], kind)

    def finetune(self, model_id: str, method: str) -> tuple[str, str, str]:
        return (self.model_digests[model_id], method, "finetune")

    def across_gpus(self, model_id: str, kind: str) -> tuple[str, str, str]:
        """A result over every GPU: ``fitting <quant>`` or ``fit-counts``."""
        return (self.model_digests[model_id], self.gpu_specs_digest, kind)

    def tensor_parallel(self, model_id: str, gpu_id: str, quant: str) -> tuple[str, str, str, str]:
        return (self.model_digests[model_id], self.gpu_spec_digests[gpu_id], quant, "tensor-parallel")


class EstimateStore:
    """Results of earlier builds keyed by content digests, so an unrelated edit reuses them.

    ``Estimate`` values are saved as plain tuples of their fields and turned back into objects on first use: an
    incremental build checks every key but reads few estimates, and tuples load three times faster."""

    def __init__(self, path: Path | None = None, code: str = ""):
        """The store saved at ``path`` by the same estimator ``code``; with no path, one kept in memory only."""
        self.path, self.code = path, code
        self.entries: dict[tuple, Any] = {}
        self._packed: dict[tuple, tuple] = {}  # saved estimates not yet used in this process, as field tuples
        self.dirty = False
        if path is None:
            return
        try:
            with collector_paused():
                saved = load_pickle(path, _valid_store)
        except CorruptCache as error:
            discard(path, str(error))
            return
        if saved is not None and saved[0] == code:
            self.entries, self._packed = saved[1], saved[2]

    def get(self, key: tuple) -> Any:
        found = self.entries.get(key)
        if found is None and key in self._packed:
            found = self.entries[key] = Estimate._make(self._packed.pop(key))
        return found

    def has(self, key: tuple) -> bool:
        """Whether the store holds a value for ``key`` (without unpacking it)."""
        return key in self.entries or key in self._packed

    def put(self, key: tuple, value: Any) -> None:
        self.entries[key] = value
        self.dirty = True

    def put_packed(self, key: tuple, fields: tuple) -> None:
        """Put an estimate given as :func:`pack` made it (unpacked on first get)."""
        self.entries.pop(key, None)
        self._packed[key] = fields
        self.dirty = True

    def save(self, keep: set[tuple] | None = None) -> None:
        """Write the store (only the keys still in use, when given)."""
        if not self.dirty or self.path is None:
            return
        plain = {}
        packed = {k: v for k, v in self._packed.items() if keep is None or k in keep}
        for k, v in self.entries.items():
            if keep is None or k in keep:
                if type(v) is Estimate:
                    packed[k] = pack(v)
                else:
                    plain[k] = v
        self.path.parent.mkdir(parents=True, exist_ok=True)
        tmp = self.path.with_suffix(".tmp")
        with tmp.open("wb") as handle:
            pickle.dump((self.code, plain, packed), handle, protocol=pickle.HIGHEST_PROTOCOL)
        tmp.replace(self.path)


def _valid_store(data: Any) -> bool:
    """Whether ``data`` has the shape :meth:`EstimateStore.save` writes (packed estimates have every field)."""
    if type(data) is not tuple or len(data) != 3 or type(data[0]) is not str or type(data[1]) is not dict \
            or type(data[2]) is not dict:
        return False
    fields = len(Estimate._fields)
    return all(type(k) is tuple for k in data[1]) and all(
        type(k) is tuple and type(v) is tuple and len(v) == fields for k, v in data[2].items())


ASSUMPTIONS = Estimate._fields.index("assumptions")  # where a packed estimate keeps its assumption list


def pack(estimate: Estimate) -> tuple:
    """An estimate as the tuple of its fields: how the store saves it and workers send it."""
    return tuple(estimate)
