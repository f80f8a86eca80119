"""Recommendation policy: the pick per pair, the GPUs each model page recommends, the cheapest GPU per quant, the
fine-tuning GPU and the cheapest rentable and serving setups. Pure functions of computed results and prices."""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from typing import Literal, NamedTuple

from ..catalog.schema import Catalog, CloudOffer, CloudProvider, Model
from ..estimate import cost, fidelity, serving_setup
from ..estimate.cost import HOURS_PER_MONTH
from ..estimate.device import DeviceSpec
from ..estimate.estimator import Estimate
from ..estimate.fidelity import Grade
from ..estimate.quant import quant_info

RANK = {"fits": 0, "tight": 1, "offload": 2, "no_fit": 3}
OLDER_LAUNCH_YEAR = 2021  # "used or older": launched in this year or before
SETUP_QUANTS = ("BF16", "Q8_0", "Q4_K_M")
Offers = dict[str, list[tuple[CloudProvider, CloudOffer]]]


@dataclass(frozen=True)
class PairResult:
    """The recommended setup of one model on one GPU and its estimate."""

    quant: str
    estimate: Estimate


# llama-quantize refuses these without an importance matrix (tools/quantize: "requires an importance matrix"):
# never built for a page, only downloaded where a repository publishes them.
NEEDS_IMATRIX = frozenset({"IQ1_S", "IQ1_M", "IQ2_XXS", "IQ2_XS", "IQ2_S", "Q2_K_S"})
SAME_FILE_TYPE = {"MXFP4": "MXFP4_MOE", "MXFP4_MOE": "MXFP4"}  # gpt-oss files: labelled MXFP4, llama.cpp type MXFP4_MOE
# Adults read English non-fiction silently at 238 words per minute (Brysbaert 2019, "How many words do we read per
# minute?", Journal of Memory and Language 109, 104047), and a token is about 3/4 of a word (OpenAI, "What are tokens
# and how to count them"): 238 / 60 / 0.75 = 5.3 tokens per second. A setup at the quality floor that keeps part of
# the model in system RAM and still writes faster than that is recommended over one below the floor on the GPU alone.
READING_TOKENS_PER_S = 238 / 60 / 0.75


def published_quants(model: Model) -> frozenset[str]:
    """Quants a catalogued GGUF repository publishes for ``model``: what llama.cpp's ``-hf`` downloads (a quant only
    an Ollama tag ships would leave the llama.cpp command to build its file)."""
    found = {f.quant for repo in model.gguf for f in repo.files}
    return frozenset(found | {SAME_FILE_TYPE[q] for q in found if q in SAME_FILE_TYPE})


# The grades a setup at the floor can carry, best first: fidelity.AT_FLOOR's, then "unmeasured" (a K-/i-quant the
# floor admits by its bits, ``meets_floor``).
FLOOR_GRADES: tuple[Grade, ...] = ("native", "near_lossless", "good", "unmeasured")
FLOOR_FAMILY = re.compile(r"^(?:Q\d_K(?:_[SML])?|IQ\d_\w+)$")  # llama.cpp K-quants and i-quants


@cache
def floor_bits() -> float:
    """Nominal bits per weight of the smallest measured quant at the quality floor (IQ4_XS)."""
    return min(quant_info(q).nominal_bits for q in fidelity.figures() if fidelity.at_floor(q))


def meets_floor(quant: str, native_format: str = "bf16") -> bool:
    """Whether ``quant`` meets the quality floor: graded so from a measurement, or, unmeasured, a K-quant or
    i-quant with at least the bits per weight of the smallest measured quant that does (Q4_K_S, IQ4_NL, Q5_K_S)."""
    if fidelity.at_floor(quant, native_format):
        return True
    return (fidelity.grade(quant, native_format) == "unmeasured" and bool(FLOOR_FAMILY.match(quant))
            and quant_info(quant).nominal_bits >= floor_bits())


def recommend(tried: list[tuple[str, Estimate]], at_floor: Callable[[str], bool] = lambda quant: True,
              published: Callable[[str], bool] = lambda quant: True,
              native: Callable[[str], bool] = lambda quant: False) -> PairResult:
    """The best-quality quantization at or above the quality floor that is published and fits, else one published
    that fits tightly (downloading a ready file beats converting the 16-bit checkpoint), then the same for one to
    build (never one that needs an importance matrix); all of these first among the quants that decode at reading
    speed (``READING_TOKENS_PER_S``) or faster, so a better quant that writes slower than people read gives way to
    one at the floor that keeps up. Then the smallest at the floor that runs with system-RAM offload, if it writes
    at reading speed or faster; only then one below the floor that fits or fits tightly, in the first order (without
    the speed pass: below the floor quality comes first); else the smallest that offloads (at the floor and
    published first); else the smallest. Offloaded, the model's own release
    (``native``: gpt-oss's MXFP4) comes before the smaller files at the floor, as it does among those that fit: a
    re-quantised file of about its size gains little."""
    usable = [t for t in tried if published(t[0]) or t[0] not in NEEDS_IMATRIX] or tried
    above = [t for t in usable if at_floor(t[0])]
    below = [t for t in usable if not at_floor(t[0])]
    offloaded = min((t for t in usable if t[1].verdict == "offload"), default=None,
                    key=lambda t: (not at_floor(t[0]), not published(t[0]), not native(t[0]), t[1].total_bytes))
    readable = (offloaded is not None and at_floor(offloaded[0])
                and offloaded[1].decode_tokens_per_s >= READING_TOKENS_PER_S)
    # below the floor, quality comes before reading speed: the speed pass runs at the floor only
    groups = ((above, offloaded if readable else None, (True, False)), (below, offloaded, (False,)))
    for group, fallback, passes in groups:
        for fast in passes:
            for ready in (True, False):
                for wanted in ("fits", "tight"):
                    for quant, estimate in group:
                        if (estimate.verdict == wanted and published(quant) == ready
                                and (estimate.decode_tokens_per_s >= READING_TOKENS_PER_S or not fast)):
                            return PairResult(quant, estimate)
        if fallback is not None:
            return PairResult(*fallback)
    # nothing runs: the smallest, to say how far even that is from fitting
    quant, estimate = min(usable, key=lambda item: (RANK[item[1].verdict], item[1].total_bytes))
    return PairResult(quant, estimate)


def holds(pick: PairResult, native: str) -> bool:
    """The one meaning of "fits" in rankings and counts: the pair's recommended setup holds the model fully (fits or
    tight) at or above the quality floor."""
    return pick.estimate.verdict in ("fits", "tight") and meets_floor(pick.quant, native)


def below_floor(pick: PairResult, native: str) -> bool:
    """The pair's recommended setup holds the model fully (fits or tight), but only below the quality floor."""
    return pick.estimate.verdict in ("fits", "tight") and not meets_floor(pick.quant, native)


def quality_rank(pick: PairResult, native: str) -> tuple[int, int, float]:
    """Sort key of a ranking, quality first: setups that hold the model at or above the floor, then those below it
    (heavy loss), then offload, then no fit; within each, fits before tight, then faster first."""
    runs_fully = pick.estimate.verdict in ("fits", "tight")
    tier = (0 if meets_floor(pick.quant, native) else 1) if runs_fully else 2 + (pick.estimate.verdict == "no_fit")
    return (tier, RANK[pick.estimate.verdict], -pick.estimate.decode_tokens_per_s)


def rents(offer_gpu_count: int, count: int) -> bool:
    """Whether an instance of ``offer_gpu_count`` GPUs carries a setup of ``count`` tensor-parallel GPUs: one machine
    holds the whole group (single-GPU listings are never summed into a server) and whole replicas fill it, as a
    provider that sells only nodes rents them."""
    return offer_gpu_count >= count and offer_gpu_count % count == 0


Role = Literal["fastest", "value", "older", "apple", "cloud"]


class Pick(NamedTuple):
    """One recommended GPU for a model: its role, the GPU, a cloud offer (cheapest-cloud role) and whether no GPU
    held the model at or above the quality floor, so the pick is below it."""

    role: Role
    gpu: str
    offer: dict | None
    below_floor: bool


class ServingChoice(NamedTuple):
    """A model's serving plan on one GPU priced on that GPU's cheapest listed offer (a model page's serving row)."""

    gpu: str
    plan: serving_setup.ServingPlan
    provider: str
    instance: str
    usd_per_gpu_hour: float
    price: cost.ServingPrice


class CloudPick(NamedTuple):
    """The cloud GPU that makes a model's tokens cheapest (one sequence, its cheapest offer), for pages whose own GPU
    is not rented: what a buyer compares owning with."""

    gpu: str
    gpu_name: str
    provider: str
    instance: str
    usd_per_gpu_hour: float
    single_tokens_per_s: float
    batched_tokens_per_s: float
    single_usd_per_mtok: float
    checked: dt.date  # the date the offer's price applies to


def floor_first(gpu_ids: list[str], picks: dict[str, PairResult], native: str) -> tuple[list[str], bool]:
    """The GPUs whose recommended quant (``picks``) meets the quality floor, else all of them; and whether the
    returned GPUs are below the floor (only when none meets it)."""
    at_floor = [g for g in gpu_ids if meets_floor(picks[g].quant, native)]
    return (at_floor, False) if at_floor or not gpu_ids else (gpu_ids, True)


def cheapest_cloud(catalog: Catalog, native: str, picks: dict[str, PairResult], offers: Offers) -> CloudPick | None:
    """Among the rented GPUs on which the model's recommended setup fits on one GPU (``picks``, by GPU), the one with
    the lowest cost per 1M output tokens for one sequence on its cheapest offer: at or above the quality floor, below
    it only when no rented GPU runs the model there (``floor_first``); None when none is rented."""
    rented: dict[str, CloudPick] = {}
    for gpu_id in sorted(picks):
        e, listed = picks[gpu_id].estimate, offers[gpu_id]
        if not listed or e.verdict not in ("fits", "tight") or e.decode_tokens_per_s <= 0:
            continue
        provider, offer = listed[0]
        per_gpu = offer.price_usd_per_hour / offer.gpu_count
        rented[gpu_id] = CloudPick(gpu_id, catalog.gpus[gpu_id].name, provider.name, offer.instance, per_gpu,
                                   e.decode_tokens_per_s, max(e.batched_tokens_per_s or 0.0, e.decode_tokens_per_s),
                                   cost.usd_per_million_tokens(e.decode_tokens_per_s, per_gpu), offer.checked)
    pool, _ = floor_first(list(rented), picks, native)
    return min((rented[g] for g in pool), key=lambda p: (p.single_usd_per_mtok, p.gpu), default=None)


def offers_by_gpu(catalog: Catalog) -> Offers:
    """Each GPU's cloud offers, cheapest per GPU-hour first."""
    by_gpu: Offers = {g: [] for g in catalog.gpus}
    for provider, offer in catalog.offers():
        by_gpu[offer.gpu].append((provider, offer))
    for offers in by_gpu.values():
        offers.sort(key=lambda po: (po[1].price_usd_per_hour / po[1].gpu_count, po[0].name, po[1].instance))
    return by_gpu


def recommendations(catalog: Catalog, native: str, picks: dict[str, PairResult], offers: Offers) -> list[Pick]:
    """Best single GPU, best value, used/older, Apple and cheapest cloud: each among the GPUs whose recommended
    setup (``picks``, by GPU) fits with margin at or above the quality floor; below it only when none does."""
    gpus = catalog.gpus
    fitting, below = floor_first([g for g in gpus if picks[g].estimate.verdict == "fits"], picks, native)
    speed = {g: picks[g].estimate.decode_tokens_per_s for g in gpus}
    chosen: list[Pick] = []
    if fitting:
        chosen.append(Pick("fastest", max(fitting, key=lambda g: (speed[g], g)), None, below))
        price = {g: usd for g in fitting if (usd := gpus[g].price_usd)}
        if price:
            chosen.append(Pick("value", min(price, key=lambda g: (price[g] / speed[g], g)), None, below))
        older = [g for g in price if (launch := gpus[g].launch_date) and launch.year <= OLDER_LAUNCH_YEAR]
        if older:
            chosen.append(Pick("older", min(older, key=lambda g: (price[g], g)), None, below))
        apple = [g for g in fitting if gpus[g].vendor == "apple"]
        if apple:
            chosen.append(Pick("apple", min(apple, key=lambda g: (gpus[g].memory_bytes, -speed[g], g)), None, below))
        rented = [(o.price_usd_per_hour / o.gpu_count, g, p.name, o) for g in fitting for p, o in offers[g]]
        if rented:
            per_gpu, gpu_id, provider, offer = min(rented, key=lambda r: (r[0], r[1], r[2]))
            chosen.append(Pick("cloud", gpu_id, {"provider": provider, "usd_per_hour": per_gpu,
                                                 "instance": offer.instance}, below))
    return chosen


def best_gpu(catalog: Catalog, fitting: tuple[str, ...]) -> str | None:
    """The cheapest of the ``fitting`` GPUs (list price, then memory)."""
    gpus = catalog.gpus
    candidates = [(gpus[g].price_usd is None, gpus[g].price_usd or 0.0, gpus[g].memory_bytes, g) for g in fitting]
    return min(candidates)[3] if candidates else None


FINETUNE_BACKENDS = ("cuda", "rocm")  # PyTorch training stacks (PEFT, TRL, Axolotl, Unsloth) run on these
MLX_METHODS = ("qlora", "lora")  # Apple: adapters with MLX (mlx-lm's LoRA/QLoRA), not full fine-tuning


def finetune_gpu(catalog: Catalog, devices: dict[str, DeviceSpec], need_bytes: int, method: str,
                 counts: Callable[[str], tuple[int, ...]]) -> tuple[str, str] | None:
    """(gpu id, label) of the cheapest single GPU people fine-tune on that holds ``need_bytes`` (a CUDA or ROCm card,
    not an APU; an Apple machine only for LoRA/QLoRA, labelled as MLX), else of the cheapest multi-GPU server of
    connected GPUs (``counts(gpu)``: the counts one machine holds) that does; None when eight do not."""
    def trains(g) -> bool:
        if g.vendor == "apple":
            return method in MLX_METHODS
        return not g.unified_memory and bool(set(FINETUNE_BACKENDS) & set(g.backends))

    candidates = [g for g in catalog.gpus.values() if trains(g)]
    fitting = sorted((g.price_usd is None, g.price_usd or 0.0, g.memory_bytes, g.id) for g in candidates
                     if devices[g.id].usable_memory_bytes >= need_bytes)
    if fitting:
        gpu = catalog.gpus[fitting[0][3]]
        return (gpu.id, f"{gpu.name} (MLX)" if gpu.vendor == "apple" else gpu.name)
    servers = []
    for g in candidates:
        count = next((n for n in counts(g.id) if n * devices[g.id].usable_memory_bytes >= need_bytes), 0)
        if count > 1:
            servers.append((g.price_usd is None, (g.price_usd or 0.0) * count, count, g.id))
    if not servers:
        return None
    _, _, count, gpu_id = min(servers)
    return (gpu_id, f"{count}× {catalog.gpus[gpu_id].name}")


def cheapest_setups(catalog: Catalog, offers: Offers, fits: Callable[[str, str], bool],
                    gpu_count: Callable[[str, str], int]) -> list[dict]:
    """Per precision at 8K context: the cheapest rentable single GPU and multi-GPU setup that fit, per month
    (``fits(gpu, quant)``: with margin on one GPU; ``gpu_count(gpu, quant)``: the fewest for tensor parallel in one
    machine, or 0). A multi-GPU setup is the whole instance that holds it, priced as the provider rents it."""
    setups = []
    for quant in SETUP_QUANTS:
        single, multi = None, None
        for gpu_id, listed in offers.items():
            if not listed:
                continue
            if fits(gpu_id, quant):
                candidate = (min(o.price_usd_per_hour / o.gpu_count for _, o in listed), gpu_id, 1)
                single = min(single, candidate) if single else candidate
                continue
            count = gpu_count(gpu_id, quant)
            nodes = [o for _, o in listed if rents(o.gpu_count, count)] if count else []
            if nodes:  # the whole instance, as rented: an 8-GPU node sold whole costs all eight
                node = min(nodes, key=lambda o: (o.price_usd_per_hour, o.gpu_count))
                candidate = (node.price_usd_per_hour, gpu_id, node.gpu_count)
                multi = min(multi, candidate) if multi else candidate
        setups.append({"quant": quant, "single": _setup(catalog, single), "multi": _setup(catalog, multi)})
    return setups


def _setup(catalog: Catalog, pick: tuple[float, str, int] | None) -> dict | None:
    if pick is None:
        return None
    usd_per_hour, gpu_id, count = pick
    return {"gpu": catalog.gpus[gpu_id], "count": count, "usd_per_hour": usd_per_hour,
            "usd_per_month": usd_per_hour * HOURS_PER_MONTH}


def cheapest_serving(plans: dict[str, serving_setup.ServingPlan | None], offers: Offers) -> list[ServingChoice]:
    """Per precision the pair pages serve a model at, the listed cloud setup with the lowest cost per 1M output
    tokens at its operating point (``plans``: by serving GPU, in id order), on an instance that holds the plan's
    GPUs (filled with replicas of it)."""
    best: dict[str, ServingChoice] = {}
    for gpu_id, plan in plans.items():
        if plan is None or plan.operating is None:
            continue
        listed = [(p, o) for p, o in offers[gpu_id] if rents(o.gpu_count, plan.gpu_count)]
        if not listed:
            continue
        provider, offer = listed[0]  # cheapest per GPU-hour first, as the pair page prices it
        per_gpu = offer.price_usd_per_hour / offer.gpu_count
        choice = ServingChoice(gpu_id, plan, provider.name, offer.instance, per_gpu,
                               cost.serving_price(plan.operating, per_gpu))
        found = best.get(plan.precision)
        if found is None or (choice.price.output_usd_per_mtok, gpu_id) < (found.price.output_usd_per_mtok, found.gpu):
            best[plan.precision] = choice
    return [best[p] for p in serving_setup.PRECISIONS if p in best]
