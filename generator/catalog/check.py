"""Cross-entry and plausibility checks that a single file's schema cannot express.

Tolerances (each catches a wrong figure or unit while admitting the ways honest published figures differ):

- total_params within 5 % of the parameter count the architecture parser computes from ``config``. The low end
  also admits a count without the multi-token-prediction layers (DeepSeek publishes 671 B, the checkpoint holds
  685 B); the high end also admits a tied embedding stored twice in the safetensors (Qwen3-0.6B: 0.75 B for
  0.60 B unique) and, for multimodal configs (``text_config``), a vision/audio tower of up to 30 % of the text
  model (Qwen3-VL-2B's tower is 24 %), which the text architecture does not describe. The 5 % covers small tensors
  the parser does not model; sibling sizes of one family differ by far more.
- active_params within 5 % of the computed active count, or of it less the embedding and output matrices:
  model cards quote nominal figures that leave them out (gpt-oss-20b: 3.6 B of 4.2 B, "A3B" for 3.45 B).
- context_length equal to the config's max_position_embeddings, unless a source other than the config's backs it
  (a model card stating a different native context).
- GPU: 1 to 150 GB/s of bandwidth per GiB of memory (Apple M3 Ultra 512 GB: 1.6; HBM parts: 20 to 60);
  dense FP16 tensor throughput of 10 to 1000 FLOP per byte of bandwidth; FP8/INT8 rates 1 to 4 times FP16.
- GPU: ``memory_gb`` (the size as marketed) 0.95 to 1.10 times the GiB count of ``memory_bytes``: a driver-reported
  total sits a few percent below the marketed size in GiB (L40S: 48 GB marketed, 44.99 GiB reported with ECC on).
- Cloud: 0.05 to 30 USD per GPU-hour; an instance whose name states its GPUs ("8x H100", "8 GPUs", "n3-A100x1")
  must hold a whole number of the offer's ``gpu_count``; one offer per instance and tier in a provider's file.
- No date (read, checked, release, launch, price) after today.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable
from pathlib import Path

from ..errors import Problem, UserError
from ..estimate.architecture import Architecture, ConfigError, parse_hf_config
from ..estimate.quant import FTYPE_BASE, QUANT_INFO
from .schema import Catalog, CloudProvider, Entry, Gpu, Model

SOURCED_GPU_FIELDS = ("memory_bytes", "memory_gb", "usable_memory_bytes", "memory_type", "bandwidth_gb_per_s",
                      "fp16_tensor_tflops", "fp8_tensor_tflops", "int8_tensor_tops", "fp32_tflops", "tdp_w",
                      "launch_date", "price_usd", "street_price_usd", "interconnect")
SOURCED_MODEL_FIELDS = ("total_params", "active_params", "context_length", "config", "license", "release_date",
                        "chat_repo", "gated")

PARAMS_TOLERANCE = 0.05
TOWER_SHARE = 0.30
BANDWIDTH_PER_GIB = (1.0, 150.0)
FLOP_PER_BYTE = (10.0, 1000.0)
LOW_PRECISION_SPEEDUP = (1.0, 4.0)
USD_PER_GPU_HOUR = (0.05, 30.0)
MARKETED_PER_GIB = (0.95, 1.10)
# GPUs an instance name states: "8x H100", "8 x L40S", ", 8 GPUs", "1 GPU", "n3-H100x1" (a trailing xN)
INSTANCE_GPUS = re.compile(r"(?<![\w.])(\d+)\s*[x×]\s|\b(\d+)\s+GPUs?\b|[A-Za-z0-9]x(\d+)\b")
KNOWN_QUANTS = frozenset(QUANT_INFO) | frozenset(FTYPE_BASE) | {"F32"}

Found = list[tuple[str, str]]  # (field, message) problems of one entry
ModelCheck = Callable[[Model], Found]


def _unsourced(entry: Entry, fields: tuple[str, ...]) -> Found:
    backed = entry.sourced_fields()
    known = set(type(entry).model_fields)
    problems = [(f, "has no source: list it in some source's fields") for f in fields
                if getattr(entry, f) is not None and f not in backed]
    problems += [(f"sources.{i}.fields", f"unknown field {name!r}")
                 for i, s in enumerate(entry.sources) for name in s.fields if name not in known]
    return problems


def _future(dates: list[tuple[str, dt.date | None]]) -> Found:
    today = dt.date.today()
    return [(field, f"{date} is in the future") for field, date in dates if date is not None and date > today]


def _source_dates(entry: Entry) -> list[tuple[str, dt.date | None]]:
    return [(f"sources.{i}.read", s.read) for i, s in enumerate(entry.sources)]


def _outside(value: float, bounds: tuple[float, float]) -> bool:
    return not bounds[0] <= value <= bounds[1]


def _gpu_problems(gpu: Gpu) -> Found:
    problems = _unsourced(gpu, SOURCED_GPU_FIELDS)
    problems += _future(_source_dates(gpu) + [("launch_date", gpu.launch_date), ("price_date", gpu.price_date),
                                              ("street_price_date", gpu.street_price_date)])
    if (gpu.street_price_usd is None) != (gpu.street_price_date is None):
        problems.append(("street_price_date", "give street_price_usd and street_price_date together"))
    if gpu.price_usd is not None and gpu.price_date is not None and gpu.launch_date is not None \
            and gpu.price_kind == "msrp" and abs((gpu.price_date - gpu.launch_date).days) > 400:
        problems.append(("price_date", "an MSRP should date from around the launch"))
    gib = gpu.memory_bytes / 2**30
    if gpu.memory_gb is None and gib != round(gib):
        problems.append(("memory_gb", f"required: memory_bytes is {gib:.3f} GiB, not a whole number (a driver-reported "
                         "total); give the size as the vendor states it"))
    if gpu.memory_gb is not None and _outside(gpu.memory_gb / gib, MARKETED_PER_GIB):
        problems.append(("memory_gb", f"implausible: {gpu.memory_gb / gib:.3g} times the {gib:.3f} GiB of memory_bytes, "
                         f"expected {MARKETED_PER_GIB[0]:g} to {MARKETED_PER_GIB[1]:g}"))
    for field in ("price_usd", "street_price_usd"):
        if getattr(gpu, field) is not None and not any(s.url.startswith(("http://", "https://"))
                                                       for s in gpu.sources if field in s.fields):
            problems.append((field, "a price needs a source with the http(s) URL it was read from"))
    if gpu.unified_memory != (gpu.segment == "unified"):
        problems.append(("unified_memory", "must be true exactly for segment 'unified'"))
    per_gib = gpu.bandwidth_gb_per_s / (gpu.memory_bytes / 2**30)
    if _outside(per_gib, BANDWIDTH_PER_GIB):
        problems.append(("bandwidth_gb_per_s", f"implausible for the memory size: {per_gib:.3g} GB/s per GiB, "
                         f"expected {BANDWIDTH_PER_GIB[0]:g} to {BANDWIDTH_PER_GIB[1]:g}"))
    if gpu.fp16_tensor_tflops is not None:
        intensity = gpu.fp16_tensor_tflops * 1000 / gpu.bandwidth_gb_per_s
        if _outside(intensity, FLOP_PER_BYTE):
            problems.append(("fp16_tensor_tflops", f"implausible for the bandwidth: {intensity:.0f} FLOP per byte, "
                             f"expected {FLOP_PER_BYTE[0]:g} to {FLOP_PER_BYTE[1]:g}"))
        for name in ("fp8_tensor_tflops", "int8_tensor_tops"):
            value = getattr(gpu, name)
            if value is not None and _outside(value / gpu.fp16_tensor_tflops, LOW_PRECISION_SPEEDUP):
                problems.append((name, f"implausible: {value / gpu.fp16_tensor_tflops:.3g} times fp16_tensor_tflops, "
                                 f"expected {LOW_PRECISION_SPEEDUP[0]:g} to {LOW_PRECISION_SPEEDUP[1]:g}"))
    return problems


def _params_range(arch: Architecture, multimodal: bool) -> tuple[float, float]:
    total = arch.total_params()
    mtp = sum(t.elements for t in arch.tensors if t.layer >= 0 and arch.layers[t.layer].mtp)
    tied_copy = sum(t.elements for t in arch.tensors if t.role == "embed") if arch.tied_embeddings else 0
    high = (total + tied_copy) * (1 + PARAMS_TOLERANCE) + (TOWER_SHARE * total if multimodal else 0)
    return (total - mtp) * (1 - PARAMS_TOLERANCE), high


def _active_range(arch: Architecture) -> tuple[float, float]:
    active = arch.active_params()
    matrices = sum(t.elements for t in arch.tensors if t.role in ("embed", "output"))
    return (active - matrices) * (1 - PARAMS_TOLERANCE), active * (1 + PARAMS_TOLERANCE)


def _billions(bounds: tuple[float, float]) -> str:
    return f"{bounds[0] / 1e9:.3f} to {bounds[1] / 1e9:.3f} B"


def architecture_problems(model: Model) -> Found:
    """Parameter counts and context length against what the config's architecture implies."""
    try:
        arch = parse_hf_config(model.config)
    except ConfigError as error:
        return [(f"config.{error.field}", error.message)]
    problems: Found = []
    expected = _params_range(arch, "text_config" in model.config)
    if _outside(model.total_params, expected):
        problems.append(("total_params", f"{model.total_params / 1e9:.3f} B is inconsistent with the config "
                         f"(computed {arch.total_params() / 1e9:.3f} B; accepted {_billions(expected)})"))
    expected = _active_range(arch)
    if model.active_params is not None and _outside(model.active_params, expected):
        problems.append(("active_params", f"{model.active_params / 1e9:.3f} B is inconsistent with the config "
                         f"(computed {arch.active_params() / 1e9:.3f} B; accepted {_billions(expected)})"))
    if model.context_length != arch.context_length and not any(
            "context_length" in s.fields and "config" not in s.fields for s in model.sources):
        problems.append(("context_length", f"{model.context_length} differs from the config's "
                         f"max_position_embeddings ({arch.context_length}): cite the source that states it"))
    return problems


def known_quant(name: str) -> bool:
    """Whether ``name`` is a quant the estimator knows, or an unsloth/bartowski variant of one."""
    base = name.removeprefix("UD-")  # unsloth dynamic: a per-tensor mix over a llama.cpp type
    if base in KNOWN_QUANTS:
        return True
    stem, _, tail = base.rpartition("_")
    # _L / _XL: a known type with the embedding and output kept at higher precision (Q2_K_L, Q4_K_XL, Q8_K_XL)
    return tail in ("L", "XL") and any(k.startswith(stem.split("_")[0] + "_") for k in KNOWN_QUANTS)


def quant_problems(model: Model) -> Found:
    """GGUF and Ollama quant names the estimator does not know, and dates in the future."""
    named = [(f"gguf.{i}.files.{j}.quant", f.quant) for i, r in enumerate(model.gguf) for j, f in enumerate(r.files)]
    named += [(f"ollama.{i}.quant", t.quant) for i, t in enumerate(model.ollama) if t.quant is not None]
    problems = [(field, f"unknown quant name {name!r}") for field, name in named if not known_quant(name)]
    problems += [(f"checkpoints.{i}.quant", f"{c.quant!r} is not a format vLLM loads")
                 for i, c in enumerate(model.checkpoints)
                 if c.quant not in QUANT_INFO or "vllm" not in QUANT_INFO[c.quant].engines]
    return problems + _future(_source_dates(model) + [("release_date", model.release_date)]
                              + [(f"gguf.{i}.read", r.read) for i, r in enumerate(model.gguf)]
                              + [(f"ollama.{i}.read", t.read) for i, t in enumerate(model.ollama)]
                              + [(f"checkpoints.{i}.read", c.read) for i, c in enumerate(model.checkpoints)]
                              + [(f"mlx.{i}.read", m.read) for i, m in enumerate(model.mlx)])


# Per-model checks; other layers may append theirs.
MODEL_CHECKS: list[ModelCheck] = [architecture_problems, quant_problems]


def model_problems(model: Model) -> Found:
    """Every problem of one model entry on its own."""
    problems = _unsourced(model, SOURCED_MODEL_FIELDS)
    for check in MODEL_CHECKS:
        problems += check(model)
    return problems


def instance_gpus(instance: str) -> int | None:
    """The number of GPUs an instance's name states, if it states one."""
    found = INSTANCE_GPUS.search(instance)
    return int(next(g for g in found.groups() if g)) if found else None


def _offer_problems(provider: CloudProvider, gpus: dict[str, Gpu]) -> Found:
    problems: Found = []
    first: dict[tuple[str, str], int] = {}
    for i, offer in enumerate(provider.offers):
        stated = instance_gpus(offer.instance)
        if stated is not None and stated % offer.gpu_count:
            problems.append((f"offers.{i}.gpu_count", f"{offer.gpu_count} does not divide the {stated} GPUs the "
                             f"instance name states"))
        key = (offer.instance.casefold(), offer.tier)
        if key in first:
            problems.append((f"offers.{i}", f"duplicate offer: same instance and tier as offers.{first[key]}"))
        first.setdefault(key, i)
        if offer.gpu not in gpus:
            problems.append((f"offers.{i}.gpu", f"unknown GPU id {offer.gpu!r}"))
        per_gpu = offer.price_usd_per_hour / offer.gpu_count
        if _outside(per_gpu, USD_PER_GPU_HOUR):
            problems.append((f"offers.{i}.price_usd_per_hour", f"implausible: {per_gpu:.4g} USD per GPU-hour, "
                             f"expected {USD_PER_GPU_HOUR[0]:g} to {USD_PER_GPU_HOUR[1]:g}"))
        problems += _future([(f"offers.{i}.checked", offer.checked)])
    return problems


def _unique(entries: dict[str, Gpu] | dict[str, Model], folder: str, field: str) -> list[Problem]:
    seen: dict[str, str] = {}
    problems = []
    for entry in entries.values():
        value = getattr(entry, field)
        if value.casefold() in seen:
            problems.append(Problem(f"{folder}/{entry.id}.yaml", field,
                                    f"duplicate {field} {value!r}, also in {folder}/{seen[value.casefold()]}.yaml"))
        seen.setdefault(value.casefold(), entry.id)
    return problems


def catalog_problems(catalog: Catalog, root: Path) -> list[Problem]:
    """Every cross-entry and plausibility problem, one per file and field."""
    prefix = root.name
    problems: list[Problem] = []
    for gpu in catalog.gpus.values():
        problems += [Problem(f"{prefix}/gpus/{gpu.id}.yaml", f, m) for f, m in _gpu_problems(gpu)]
    for model in catalog.models.values():
        problems += [Problem(f"{prefix}/models/{model.id}.yaml", f, m) for f, m in model_problems(model)]
    for provider in catalog.clouds.values():
        problems += [Problem(f"{prefix}/clouds/{provider.id}.yaml", f, m)
                     for f, m in _offer_problems(provider, catalog.gpus)]
    problems += _unique(catalog.gpus, f"{prefix}/gpus", "name")
    problems += _unique(catalog.models, f"{prefix}/models", "name")
    problems += _unique(catalog.models, f"{prefix}/models", "hf_repo")
    return problems


def check_catalog(catalog: Catalog, root: Path) -> Catalog:
    """Return the catalogue unchanged, or raise :class:`UserError` with every problem."""
    problems = catalog_problems(catalog, root)
    if problems:
        raise UserError(problems)
    return catalog
