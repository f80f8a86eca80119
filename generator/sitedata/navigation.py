"""Navigation between pages: sorted lists, nearest neighbours, the largest models that fit a GPU, the GPUs a
comparison page sets side by side and a showcase of popular pairs. Pure functions of the catalogue and the picks."""

from __future__ import annotations

from datetime import date

from ..catalog.schema import Catalog
from ..estimate.estimator import native_format
from .policy import Offers, PairResult, Pick, holds, quality_rank

RELATED_SHOWN = 12
COMPARED_MIN, COMPARED_MAX = 2, 4  # GPUs on a comparison page
Pairs = dict[tuple[str, str], PairResult]
GIB = 2**30


def gpus_by_memory(catalog: Catalog) -> list[str]:
    """GPU ids from least to most memory (stable cross-link order)."""
    return sorted(catalog.gpus, key=lambda g: (catalog.gpus[g].memory_bytes, g))


def models_by_size(catalog: Catalog) -> list[str]:
    """Model ids from fewest to most parameters."""
    return sorted(catalog.models, key=lambda m: (catalog.models[m].total_params, m))


def nearest(items: list[str], current: str, count: int) -> list[str]:
    """Up to ``count`` nearest neighbours of ``current`` in a sorted list, alternating above and below."""
    at = items.index(current)
    picked = []
    for step in range(1, len(items)):
        picked += [items[i] for i in (at + step, at - step) if 0 <= i < len(items)]
        if len(picked) >= count:
            break
    return picked[:count]


def similar(ordered: list[str]) -> dict[str, list[str]]:
    """For each id, the RELATED_SHOWN nearest in ``ordered``."""
    return {item: nearest(ordered, item, RELATED_SHOWN) for item in ordered}


def natives(catalog: Catalog) -> dict[str, str]:
    """Each model's released weight format (its quality floor counts its own release as lossless)."""
    return {m: native_format(model.config) for m, model in catalog.models.items()}


def fitting_by_gpu(catalog: Catalog, by_size: list[str], pairs: Pairs) -> dict[str, list[str]]:
    """For each GPU, the models it holds at 8K context at or above the quality floor (``policy.holds``), largest
    first."""
    native = natives(catalog)
    return {g: [m for m in reversed(by_size) if holds(pairs[(m, g)], native[m])] for g in catalog.gpus}


def compare_gpus(catalog: Catalog, model_id: str, picks: list[Pick], pairs: Pairs) -> list[str]:
    """The GPUs a model's comparison page sets side by side: its distinct recommended GPUs, topped up to
    COMPARED_MIN with the GPUs its model page ranks first (verdict, then decode speed), at most COMPARED_MAX."""
    chosen = list(dict.fromkeys(pick.gpu for pick in picks))[:COMPARED_MAX]
    native = native_format(catalog.models[model_id].config)
    ranked = sorted(catalog.gpus, key=lambda g: (quality_rank(pairs[(model_id, g)], native), g))
    chosen += [g for g in ranked if g not in chosen][:max(0, COMPARED_MIN - len(chosen))]
    return chosen


def compared_with(catalog: Catalog, compared: dict[str, list[str]]) -> dict[str, list[str]]:
    """For each GPU, the models whose comparison page sets it side by side with others, by id."""
    found: dict[str, list[str]] = {g: [] for g in catalog.gpus}
    for model_id in sorted(catalog.models):
        for gpu_id in compared[model_id]:
            found[gpu_id].append(model_id)
    return found


# Example pairs: hardware a visitor recognises, each with the largest model it runs well. Consumer cards by memory
# tier (each tier holds the cards above the previous tier's size, up to its own), a Mac and a datacenter GPU.
CONSUMER_TIERS_GIB = (8, 12, 16, 24, 32)
MAC_GIB = 64


def example_hardware(catalog: Catalog, offers: Offers) -> list[str]:
    """The example GPUs: per consumer memory tier the card the most cloud offers list (how widely a card is rented,
    a proxy for how widely it is owned), the newest Mac with MAC_GIB of memory and the datacenter GPU the most cloud
    offers list; ties go to the newest, then the higher bandwidth, then the id."""
    gpus = catalog.gpus.values()

    def best(candidates: list) -> str | None:
        return max(candidates, key=lambda g: (len(offers[g.id]), g.launch_date or date.min, g.bandwidth_gb_per_s,
                                              g.id)).id if candidates else None

    picked, low = [], 0
    for tier in CONSUMER_TIERS_GIB:
        picked.append(best([g for g in gpus if g.segment == "consumer" and low < g.memory_bytes <= tier * GIB]))
        low = tier * GIB
    picked.append(best([g for g in gpus if g.vendor == "apple" and g.memory_bytes == MAC_GIB * GIB]))
    picked.append(best([g for g in gpus if g.segment == "datacenter"]))
    return [g for g in picked if g]


def popular_pairs(catalog: Catalog, pairs: Pairs, native: dict[str, str], offers: Offers) -> list[tuple[str, str]]:
    """Example pairs: on each example GPU (``example_hardware``), the model with the most parameters whose
    recommended setup fits with margin at or above the quality floor (``native``: each model's released format)."""
    shown = []
    for gpu_id in example_hardware(catalog, offers):
        running = [m for m in catalog.models if pairs[(m, gpu_id)].estimate.verdict == "fits"
                   and holds(pairs[(m, gpu_id)], native[m])]
        if running:
            shown.append((max(running, key=lambda m: (catalog.models[m].total_params, m)), gpu_id))
    return shown
