"""Catalogue entries as the estimator's typed inputs: the only place that knows both (``estimate/`` knows no
catalogue)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..catalog.schema import Gpu, Model
from ..estimate.architecture import parse_hf_config
from ..estimate.device import (
    DeviceSpec,
    Parallel,
    ampere_or_newer,
    geforce_rate,
    is_hbm,
    is_lpddr,
    mmq_kernel,
    pre_ampere,
    pre_turing,
    usable_memory,
    vector_attention,
)
from ..estimate.estimator import ModelSpec, native_format


def model_spec(model: Model) -> ModelSpec:
    """The estimator's view of a catalogued model."""
    arch = parse_hf_config(model.config)
    sizes: dict[str, int] = {}
    for repo in model.gguf:
        for f in repo.files:
            if f.size_bytes is not None:
                sizes.setdefault(f.quant, f.size_bytes)
    return ModelSpec(model.id, model.name, arch, model.total_params, model.active_params or arch.active_params(),
                     model.context_length, tuple(sizes.items()), native_format(model.config), model.hf_repo)


def device_spec(gpu: Gpu, count: int = 1, parallel: Parallel = "tensor") -> DeviceSpec:
    """The estimator's view of ``count`` × ``gpu``."""
    if count < 1:
        raise ValueError("count must be at least 1")
    usable, rule = usable_memory(gpu.memory_bytes, gpu.usable_memory_bytes, gpu.unified_memory, gpu.backends)
    link = gpu.interconnect.bandwidth_gb_per_s * 1e9 if gpu.interconnect else None
    return DeviceSpec(
        id=gpu.id, name=gpu.name, count=count, parallel=parallel if count > 1 else "layer",
        memory_bytes=gpu.memory_bytes * count, usable_memory_bytes=usable * count, usable_rule=rule,
        bandwidth_bytes_per_s=gpu.bandwidth_gb_per_s * 1e9,
        fp16_flops=gpu.fp16_tensor_tflops * 1e12 if gpu.fp16_tensor_tflops else None,
        fp8_flops=gpu.fp8_tensor_tflops * 1e12 if gpu.fp8_tensor_tflops else None,
        backend=gpu.backends[0], backends=tuple(gpu.backends), unified=gpu.unified_memory, tdp_w=gpu.tdp_w,
        interconnect_bytes_per_s=link, fp16_accumulate_doubles=geforce_rate(gpu.vendor, gpu.name),
        hbm=is_hbm(gpu.memory_type), lpddr=is_lpddr(gpu.vendor, gpu.memory_type),
        graphs=not pre_ampere(gpu.vendor, gpu.launch_date),
        ampere_or_newer=ampere_or_newer(gpu.vendor, gpu.launch_date),
        fp32_flops=gpu.fp32_tflops * 1e12 if gpu.fp32_tflops else None,
        mmq=mmq_kernel(gpu.vendor, gpu.launch_date),
        pre_turing=pre_turing(gpu.vendor, gpu.launch_date),
        vector_attention=vector_attention(gpu.vendor, gpu.memory_type),
    )


class _Recorder:
    """An entry that notes the name of every field read from it."""

    def __init__(self, entry: Any, read: set[str]):
        self._entry, self._read = entry, read

    def __getattr__(self, name: str) -> Any:
        self._read.add(name)
        return getattr(self._entry, name)


def fields_read(entry: Any, *uses: Callable[[Any], object]) -> frozenset[str]:
    """The fields of ``entry`` that the adapter calls ``uses`` read (for this entry's values): only those can
    change what they return, so a cache key of their output needs only those."""
    read: set[str] = set()
    for use in uses:
        use(_Recorder(entry, read))
    return frozenset(read)


def device_fields(gpu: Gpu) -> frozenset[str]:
    """The fields of ``gpu`` that estimates read: what one GPU and several (tensor and layer split) read."""
    return fields_read(gpu, device_spec, lambda g: device_spec(g, 2, "tensor"), lambda g: device_spec(g, 2, "layer"))
