"""The store: results keyed by the content of the estimator's inputs, kept as compressed pickles (in memory, on the
trip from a worker process and between builds)."""

from __future__ import annotations

import pickle
import zlib
from functools import cached_property
from pathlib import Path
from typing import Any

from ..cachefile import CorruptCache, discard, load_pickle, loads
from ..catalog.schema import Catalog
from ..incremental import collector_paused, digest
from .adapters import device_fields


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

    def pair(self, model_id: str, gpu_id: str, kind: str) -> tuple[str, str, str]:
        """A per-pair result: ``quants``, ``pick``, ``sweep``, ``serving``, ``vllm`` or ``vllm-checkpoints``."""
        return (self.model_digests[model_id], self.gpu_spec_digests[gpu_id], kind)

    def reference(self, model_id: str, kind: str) -> tuple[str, str, str]:
        """A result on the reference device: ``requirements`` or ``summary``."""
        return (self.model_digests[model_id], self.gpu_spec_digests[self.reference_id], kind)

    def finetune(self, model_id: str, method: str) -> tuple[str, str, str]:
        return (self.model_digests[model_id], method, "finetune")

    def across_gpus(self, model_id: str, kind: str) -> tuple[str, str, str]:
        """A result over every GPU: ``fitting <quant>``."""
        return (self.model_digests[model_id], self.gpu_specs_digest, kind)

    def tensor_parallel(self, model_id: str, gpu_id: str, quant: str) -> tuple[str, str, str, str]:
        return (self.model_digests[model_id], self.gpu_spec_digests[gpu_id], quant, "tensor-parallel")


class EstimateStore:
    """Results of earlier builds keyed by content digests, so an unrelated edit reuses them.

    Each value is kept as its compressed pickle and unpickled when read: a 10x catalogue's results as objects were
    most of the build's memory, and a worker's results travel to the build process and to the file as these bytes
    without being unpickled on the way. A file's bytes are untrusted: they unpickle our record types only."""

    RECENT = 256  # decoded values kept for repeated reads (a pair page reads its values a few times each)

    def __init__(self, path: Path | None = None, code: str = ""):
        """The store saved at ``path`` by the same estimator ``code``; with no path, one kept in memory only."""
        self.path, self.code = path, code
        self.entries: dict[tuple, bytes] = {}
        self._recent: dict[tuple, Any] = {}
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
            self.entries = saved[1]

    def get(self, key: tuple) -> Any:
        """The value stored under ``key``, or None."""
        found = self._recent.get(key)
        if found is None:
            data = self.entries.get(key)
            if data is None:
                return None
            try:
                found = loads(zlib.decompress(data))
            except Exception:  # noqa: BLE001 - a damaged value is a missing one: it is computed again
                del self.entries[key]
                return None
            if len(self._recent) >= self.RECENT:
                self._recent.clear()
            self._recent[key] = found
        return found

    def has(self, key: tuple) -> bool:
        """Whether the store holds a value for ``key`` (without unpickling it)."""
        return key in self.entries

    def put(self, key: tuple, value: Any) -> None:
        self.put_encoded(key, encode(value))

    def encoded(self, key: tuple) -> bytes:
        """The stored bytes of ``key``, for :meth:`put_encoded` in another process."""
        return self.entries[key]

    def put_encoded(self, key: tuple, data: bytes) -> None:
        """Put a value as :meth:`encoded` gave it."""
        self.entries[key] = data
        self._recent.pop(key, None)
        self.dirty = True

    def save(self, keep: set[tuple] | None = None) -> None:
        """Write the store (only the keys still in use, when given)."""
        if not self.dirty or self.path is None:
            return
        kept = self.entries if keep is None else {k: v for k, v in self.entries.items() if k in keep}
        self.path.parent.mkdir(parents=True, exist_ok=True)
        tmp = self.path.with_suffix(".tmp")
        with tmp.open("wb") as handle:
            pickle.dump((self.code, kept), handle, protocol=pickle.HIGHEST_PROTOCOL)
        tmp.replace(self.path)


def encode(value: Any) -> bytes:
    """A value as the store keeps it (zlib's fastest level: a pair's matrix of estimates shrinks fourfold)."""
    return zlib.compress(pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL), 1)


def _valid_store(data: Any) -> bool:
    """Whether ``data`` has the shape :meth:`EstimateStore.save` writes."""
    return (type(data) is tuple and len(data) == 2 and type(data[0]) is str and type(data[1]) is dict
            and all(type(k) is tuple and type(v) is bytes for k, v in data[1].items()))
