"""Cross-entry checks that a single file's schema cannot express."""

from __future__ import annotations

from pathlib import Path
from typing import Callable

from ..errors import Problem, UserError
from .schema import Catalog, Entry, Gpu, Model

SOURCED_GPU_FIELDS = ("memory_bytes", "usable_memory_bytes", "memory_type", "bandwidth_gb_per_s",
                      "fp16_tensor_tflops", "fp8_tensor_tflops", "int8_tensor_tops", "tdp_w", "launch_date",
                      "price_usd", "interconnect")
SOURCED_MODEL_FIELDS = ("total_params", "active_params", "context_length", "config", "license", "release_date")

# Extra checks contributed by other layers (the estimator checks architecture and quant names);
# each returns problems as (field, message) for one model.
ModelCheck = Callable[[Model], list[tuple[str, str]]]
MODEL_CHECKS: list[ModelCheck] = []


def _unsourced(entry: Entry, fields: tuple[str, ...]) -> list[tuple[str, str]]:
    backed = entry.sourced_fields()
    known = set(type(entry).model_fields)
    problems = [(f, "has no source: list it in some source's fields") for f in fields
                if getattr(entry, f) is not None and f not in backed]
    problems += [(f"sources.{i}.fields", f"unknown field {name!r}")
                 for i, s in enumerate(entry.sources) for name in s.fields if name not in known]
    return problems


def _gpu_problems(gpu: Gpu) -> list[tuple[str, str]]:
    problems = _unsourced(gpu, SOURCED_GPU_FIELDS)
    if gpu.price_usd is not None and gpu.price_date is not None and gpu.launch_date is not None \
            and gpu.price_kind == "msrp" and abs((gpu.price_date - gpu.launch_date).days) > 400:
        problems.append(("price_date", "an MSRP should date from around the launch"))
    if gpu.unified_memory != (gpu.segment == "unified"):
        problems.append(("unified_memory", "must be true exactly for segment 'unified'"))
    gib = gpu.memory_bytes / 2**30
    if gpu.bandwidth_gb_per_s / gib > 400:
        problems.append(("bandwidth_gb_per_s", "implausibly high for the memory size"))
    return problems


def _model_problems(model: Model) -> list[tuple[str, str]]:
    problems = _unsourced(model, SOURCED_MODEL_FIELDS)
    for check in MODEL_CHECKS:
        problems += check(model)
    return problems


def _unique_names(entries: dict[str, Entry], folder: str, problems: list[Problem]) -> None:
    seen: dict[str, str] = {}
    for entry in entries.values():
        key = entry.name.casefold()
        if key in seen:
            problems.append(Problem(f"{folder}/{entry.id}.yaml", "name", f"duplicate name {entry.name!r}, "
                                    f"also in {folder}/{seen[key]}.yaml"))
        seen[key] = entry.id


def catalog_problems(catalog: Catalog, root: Path) -> list[Problem]:
    """Every cross-entry problem, one per file and field."""
    prefix = root.name
    problems: list[Problem] = []
    for gpu in catalog.gpus.values():
        problems += [Problem(f"{prefix}/gpus/{gpu.id}.yaml", f, m) for f, m in _gpu_problems(gpu)]
    for model in catalog.models.values():
        problems += [Problem(f"{prefix}/models/{model.id}.yaml", f, m) for f, m in _model_problems(model)]
    _unique_names(catalog.gpus, f"{prefix}/gpus", problems)
    _unique_names(catalog.models, f"{prefix}/models", problems)
    repos: dict[str, str] = {}
    for model in catalog.models.values():
        if model.hf_repo.casefold() in repos:
            problems.append(Problem(f"{prefix}/models/{model.id}.yaml", "hf_repo",
                                    f"already used by {repos[model.hf_repo.casefold()]}"))
        repos[model.hf_repo.casefold()] = model.id
    for provider in catalog.clouds.values():
        for i, offer in enumerate(provider.offers):
            if offer.gpu not in catalog.gpus:
                problems.append(Problem(f"{prefix}/clouds/{provider.id}.yaml", f"offers.{i}.gpu",
                                        f"unknown GPU id {offer.gpu!r}"))
    return problems


def check_catalog(catalog: Catalog, root: Path) -> Catalog:
    """Return the catalogue unchanged, or raise :class:`UserError` with every problem."""
    problems = catalog_problems(catalog, root)
    if problems:
        raise UserError(problems)
    return catalog
