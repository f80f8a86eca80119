"""Every published open-data shape, declared once: the API's JSON documents (index, model, GPU, pair, finder) and a
row of the pairs CSV. The builders (``api``, ``finder``, ``opendata``) return these types; the JSON Schemas and the
CSV's data dictionary are generated from them (``api_schema``). Every key is required (null where the pages show
"—" or the catalogue has no value) and units are in the key names."""

# No ``from __future__ import annotations``: pydantic reads these annotations, f-string descriptions included.
from typing import Annotated, Literal

from pydantic import Field, WithJsonSchema
from typing_extensions import TypedDict

from ..estimate.estimator import Verdict
from ..estimate.fidelity import Grade
from ..estimate.finetune import Method as FinetuneMethod
from ..i18n import formatter
from ..views.common import PROMPT_TOKENS

UInt = Annotated[int, Field(ge=0)]  # bytes, tokens, parameters, a count or a position in a list of the document
Pos = Annotated[float, Field(gt=0)]
Speed = Pos | None  # a speed or time the page shows; null where it shows "—" (the setup does not run)
Date = Annotated[str, WithJsonSchema({"type": "string", "format": "date", "pattern": r"^\d{4}-\d{2}-\d{2}$"})]
SitePath = Annotated[str, Field(pattern=r"^[a-z0-9][\w./-]*$")]  # relative to the site's base URL
Version = Annotated[str, Field(pattern=r"^\d+\.\d+\.\d+$")]


# --- parts shared by the documents ---------------------------------------------------------------------------

class Ref(TypedDict):
    """A model or GPU and the path of its document."""
    id: str
    name: str
    json_path: SitePath


class Source(TypedDict):
    """A catalogue source: where facts were read, when, and which."""
    url: str
    read_date: Date
    fields: list[str]
    title: str | None


class HtmlPaths(TypedDict):
    """The page's path in each language."""
    en: SitePath
    de: SitePath


class Envelope(TypedDict):
    """The keys every page document starts with."""
    schema_version: Version
    schema_path: SitePath
    json_path: SitePath
    html_paths: HtmlPaths


class PairSummary(Ref):
    """One row of a model's GPU list or a GPU's model list: the pair's recommended setup."""
    quant: str
    quality_grade: Grade
    heavy_loss: Annotated[bool, Field(description="Held only below the quality floor (ranked after every row "
                                                  "above it)")]
    verdict: Verdict
    total_bytes: UInt
    decode_tokens_per_s: Speed
    max_context_tokens: UInt | None
    pair_json_path: SitePath


# --- pair ----------------------------------------------------------------------------------------------------

class PairSetup(TypedDict):
    quant: str
    quality_grade: Grade
    at_quality_floor: bool  # graded good or better, the native release, or an unmeasured K-/i-quant with enough bits
    context_tokens: UInt
    kv_cache_type: str
    sequences: int


class HeadlineEstimate(TypedDict):
    """The headline estimate as the pair page shows it."""
    verdict: Verdict
    runs: bool
    weights_bytes: UInt
    weights_source: Literal["measured", "computed"]
    kv_cache_bytes: UInt
    runtime_overhead_bytes: UInt
    total_bytes: UInt
    usable_bytes: UInt
    margin_bytes: int
    max_context_tokens: UInt | None
    max_sequences: UInt | None
    decode_tokens_per_s: Speed
    prefill_tokens_per_s: Speed
    ttft_s: Speed
    batched_tokens_per_s: Speed


class PairEstimate(HeadlineEstimate):
    device_memory_bytes: UInt
    margin_ratio: Annotated[float, Field(description="margin_bytes / usable_bytes (0 where nothing is usable)")]
    utilisation_ratio: Annotated[float, Field(description="total_bytes / usable_bytes (0 where nothing is usable)")]
    offloaded_bytes: Annotated[UInt, Field(description="What does not fit in usable_bytes: total minus usable, "
                                                       "at least 0")]


class QuantRow(TypedDict):
    """One quantization of the model on this GPU."""
    quant: str
    quality_grade: Grade
    weights_bytes: UInt
    kv_cache_bytes: UInt
    total_bytes: UInt
    verdict: Verdict
    decode_tokens_per_s: Speed
    best_gpu_id: Annotated[str | None, Field(description="The cheapest catalogued GPU (list price, then memory) on "
                                                         "which this quantization fits with margin")]


class ContextRow(TypedDict):
    context_tokens: UInt
    kv_cache_f16_bytes: UInt
    total_f16_bytes: UInt
    kv_cache_q8_0_bytes: UInt
    total_q8_0_bytes: UInt


class Context(TypedDict):
    """Memory by context length, with an f16 and a q8_0 KV cache."""
    max_context_tokens_f16_kv: UInt | None
    max_context_tokens_q8_0_kv: UInt | None
    rows: list[ContextRow]


class RentalCost(TypedDict):
    """The cheapest catalogued cloud offer and its cost per 1M output tokens."""
    offer: str
    price_usd_per_gpu_hour: Pos
    usd_per_million_tokens_single: Pos
    usd_per_million_tokens_batched: Pos


class Owned(TypedDict):
    amortisation_months: int
    usd_per_hour: Pos
    usd_per_million_tokens: Pos
    joules_per_token: Pos
    tokens_per_s_per_100_usd: Pos


class RentVsBuy(TypedDict):
    price_usd: Pos
    power_usd_per_kwh: Pos
    hours_per_month: Pos
    power_usd_per_month: Pos
    breakeven_months: float | None
    owned: Owned | None


class PairFinetune(TypedDict):
    method: FinetuneMethod
    sequence_length_tokens: UInt
    weights_bytes: UInt
    gradients_optimizer_bytes: UInt
    activations_bytes: UInt
    total_bytes: UInt
    verdict: Verdict
    suggested_gpu: str | None


class ServingPoint(TypedDict):
    """One point of a serving curve: throughput and latency at a number of concurrent requests."""
    concurrency: int
    output_tokens_per_s_per_gpu: Pos
    total_tokens_per_s_per_gpu: Pos
    tokens_per_s_per_user: Pos
    ttft_s: Pos


class OperatingPoint(ServingPoint):
    """The recommended operating point of a serving curve."""
    prefill_share: float


class ServingCost(TypedDict):
    offer: str
    price_usd_per_gpu_hour: Pos
    usd_per_million_output_tokens: Pos
    usd_per_million_input_tokens: Pos


class ServingSetup(TypedDict):
    """A tensor-parallel group the serving section compares."""
    gpu_count: int
    tensor_parallel: int
    precision: str
    max_concurrency: int
    single_request_tokens_per_s: Pos
    operating_point: OperatingPoint | None
    offer: str | None
    price_usd_per_gpu_hour: Pos | None
    usd_per_million_output_tokens: Pos | None


class ServingPlan(TypedDict):
    """The serving section's plan: the setup on the fewest GPUs, its curve, operating point and cost, and the next
    larger tensor-parallel group."""
    engine: str
    precision: str
    gpu_count: int
    tensor_parallel: int
    kv_cache_type: str
    prompt_tokens: UInt
    output_tokens: UInt
    max_concurrency: int
    curve: list[ServingPoint]
    operating_point: OperatingPoint | None
    cost: ServingCost | None
    setups: list[ServingSetup]


class Command(TypedDict):
    engine: str
    text: str
    remark: str | None


class ErrorBand(TypedDict):
    """The measured error of the speed figures' backend (leave one GPU out)."""
    backend: str
    validation: str
    decode_median_abs_error_ratio: float
    prefill_median_abs_error_ratio: float
    ttft_median_abs_error_ratio: float
    borrowed_constants_from: str | None
    architecture_class: str
    held_out_rows: int
    status: str


class PairSources(TypedDict):
    model: list[Source]
    gpu: list[Source]


class PairDocument(Envelope):
    """A model on a GPU: the pair page's numbers (its offers are in the GPU's document)."""
    kind: Literal["pair"]
    title: str
    description: str
    model: Ref
    gpu: Ref
    setup: PairSetup
    estimate: PairEstimate
    quantization_matrix: list[QuantRow]
    context: Context
    cost: RentalCost | None
    rent_vs_buy: RentVsBuy | None
    finetune: list[PairFinetune]
    serving: Annotated[ServingPlan | None, Field(description="The vLLM serving plan the page shows; null where it "
                                                             "shows none")]
    commands: list[Command]
    assumptions: dict[str, str]
    error_band: ErrorBand
    sources: PairSources


# --- model ---------------------------------------------------------------------------------------------------

class TokenMixer(TypedDict):
    kind: str
    window_tokens: UInt | None
    layers: UInt


class ModelFacts(TypedDict):
    org: str
    family: str
    license: str | None
    release_date: Date | None
    hf_repo: str
    hf_url: str
    native_precision: str | None
    context_length_tokens: UInt
    total_params: UInt
    active_params: UInt
    layers: UInt
    kv_cache_f16_bytes_per_1k_tokens: UInt
    token_mixers: list[TokenMixer]


class QualityGrade(TypedDict):
    quant: str
    quality_grade: Grade


class RequirementCell(TypedDict):
    quant: str
    total_bytes: UInt
    weights_bytes: UInt
    kv_cache_bytes: UInt


class Requirement(TypedDict):
    """Memory needed at one context length, per quantization."""
    context_tokens: UInt
    sequences: int
    cells: list[RequirementCell]


class GpuSetup(TypedDict):
    gpu: Ref
    gpu_count: int
    price_usd_per_hour: Pos
    price_usd_per_month: Pos


class CheapestSetup(TypedDict):
    """The cheapest single-GPU and multi-GPU setup that holds a quantization."""
    quant: str
    single: GpuSetup | None
    multi: GpuSetup | None


class CheapestServing(TypedDict):
    """The cheapest listed serving setup of a precision at its recommended operating point."""
    precision: str
    engine: str
    gpu: Ref
    gpu_count: int
    tensor_parallel: int
    prompt_tokens: UInt
    output_tokens: UInt
    concurrency: int
    output_tokens_per_s_per_gpu: Pos
    total_tokens_per_s_per_gpu: Pos
    tokens_per_s_per_user: Pos
    offer: str
    price_usd_per_gpu_hour: Pos
    usd_per_million_output_tokens: Pos
    usd_per_million_input_tokens: Pos
    pair_json_path: SitePath


class ModelFinetune(TypedDict):
    method: FinetuneMethod
    total_bytes: UInt
    suggested_gpu: str | None


_FITS_COUNT = Field(description="Pairs whose recommended setup holds the model fully (fits or tight) at or above "
                                "the quality floor")


class ModelDocument(Envelope):
    """A model: the model page's numbers."""
    kind: Literal["model"]
    title: str
    description: str
    id: str
    name: str
    facts: ModelFacts
    quality_grades: list[QualityGrade]
    requirements: list[Requirement]
    cheapest_setups: list[CheapestSetup]
    cheapest_serving: list[CheapestServing]
    finetune: list[ModelFinetune]
    fits_count: Annotated[UInt, _FITS_COUNT]
    gpus: list[PairSummary]
    sources: list[Source]


# --- GPU -----------------------------------------------------------------------------------------------------

class GpuFacts(TypedDict):
    vendor: str
    segment: str
    memory_bytes: UInt
    usable_memory_bytes: UInt
    unified_memory: bool
    memory_type: str
    bandwidth_gb_per_s: Pos
    fp16_tensor_tflops: Pos | None
    tdp_w: Pos | None
    launch_date: Date | None
    price_usd: Pos | None
    price_kind: Literal["msrp", "street"] | None
    price_date: Date | None
    backends: list[str]
    price_usd_per_gib: Pos | None
    bandwidth_gb_per_s_per_gib: Pos


class Offer(TypedDict):
    """A catalogued cloud offer of the GPU."""
    provider: str
    instance: str
    gpu_count: int
    vram_bytes: UInt
    price_usd_per_hour: Pos
    price_usd_per_gpu_hour: Pos
    price_usd_per_month: Pos
    billing: str
    tier: str
    checked_date: Date
    url: str


class GpuDocument(Envelope):
    """A GPU: the GPU page's numbers."""
    kind: Literal["gpu"]
    title: str
    description: str
    id: str
    name: str
    facts: GpuFacts
    fits_count: Annotated[UInt, _FITS_COUNT]
    offers: list[Offer]
    models: list[PairSummary]
    sources: list[Source]


# --- index ---------------------------------------------------------------------------------------------------

class IndexModel(Ref):
    total_params: UInt


class IndexGpu(Ref):
    memory_bytes: UInt
    usable_memory_bytes: UInt


class PopularPair(TypedDict):
    model: Ref
    gpu: Ref
    pair_json_path: SitePath
    quant: str
    quality_grade: Grade
    total_bytes: UInt
    decode_tokens_per_s: Speed


class Downloads(TypedDict):
    pairs_csv_path: SitePath
    datapackage_path: SitePath


class Licence(TypedDict):
    code: str
    data: str
    note: str


class IndexDocument(Envelope):
    """Every model and GPU with its document, the popular pairs, the downloads, schemas and licence."""
    kind: Literal["index"]
    title: str
    description: str
    models: list[IndexModel]
    gpus: list[IndexGpu]
    popular_pairs: list[PopularPair]
    popular_pairs_rule: str
    pair_json_path_template: str
    schemas: dict[str, SitePath]
    changelog_path: SitePath
    assumption_labels: dict[str, str]
    downloads: Downloads
    licence: Licence


# --- finder --------------------------------------------------------------------------------------------------

class FitRule(TypedDict):
    tight_fraction: Pos
    tight_min_bytes: UInt
    fit_target_bytes: UInt


class FinderPick(TypedDict):
    """A GPU the model page recommends (gpu and quant: positions in the document's gpus and quants)."""
    role: Literal["fastest", "value", "cloud"]
    gpu: UInt
    quant: UInt
    decode_tokens_per_s: Pos
    below_floor: bool
    price_usd: Pos | None
    price_usd_per_gpu_hour: Pos | None
    offer: str | None


class FinderMultiGpu(TypedDict):
    quant: str
    gpu: UInt
    gpu_count: int
    price_usd_per_hour: Pos


class FinderServing(TypedDict):
    precision: str
    gpu: UInt
    gpu_count: int
    engine: str
    concurrency: int
    tokens_per_s_per_user: Pos
    usd_per_million_output_tokens: Pos
    offer: str
    price_usd_per_gpu_hour: Pos


class FinderModel(TypedDict):
    id: str
    name: str
    family: str
    total_params: UInt
    memory_bytes: list[UInt]
    recommended: list[FinderPick]
    multi_gpu_setups: list[FinderMultiGpu]
    serving: list[FinderServing]


# A model that runs on a GPU, in the document's run_columns: model, quant, quality_grade and verdict are positions
# in the document's lists; then total_bytes, decode_tokens_per_s, max_context_tokens, host_bytes.
FinderRun = tuple[UInt, UInt, UInt, UInt, UInt, Pos, UInt | None, UInt]


class FinderGpu(TypedDict):
    id: str
    name: str
    vendor: str
    segment: str
    usable_memory_bytes: UInt
    runs: list[FinderRun]


class FinderDocument(TypedDict):
    """The home page's finder: per GPU the models that run on it at or above the quality floor, per model where to
    run it."""
    kind: Literal["finder"]
    schema_version: Version
    schema_path: SitePath
    json_path: SitePath
    description: str
    context_tokens: UInt
    pair_path_template: str
    model_path_template: str
    gpu_path_template: str
    fit_rule: FitRule
    quality_grades: list[Grade]
    verdicts: list[Verdict]
    quants: list[str]
    run_columns: list[str]
    memory_quants: list[str]
    memory_quality_grades: list[UInt]
    models: list[FinderModel]
    gpus: list[FinderGpu]


# --- the pairs CSV -------------------------------------------------------------------------------------------

_PROMPT = formatter("en").tokens(PROMPT_TOKENS)  # the data files are in English


class PairsCsvRow(TypedDict):
    """One row of the pairs CSV: a pair's recommended setup at the pages' default and its rental cost. The columns
    are these keys, in this order."""
    model_id: Annotated[str, Field(description="Model id (catalogue file name)")]
    model_name: Annotated[str, Field(description="Model name")]
    gpu_id: Annotated[str, Field(description="GPU id (catalogue file name)")]
    gpu_name: Annotated[str, Field(description="GPU name")]
    quant: Annotated[str, Field(description="Recommended quantization: the best-quality one that fits, else the "
                                            "smallest that offloads")]
    context_tokens: Annotated[int, Field(description="Context length of the setup, tokens (one sequence, f16 KV "
                                                     "cache, llama.cpp)")]
    verdict: Annotated[Verdict, Field(description="fits | tight | offload | no_fit")]
    weights_bytes: Annotated[int, Field(description="Weights on the GPU, bytes")]
    kv_cache_bytes: Annotated[int, Field(description="KV cache, bytes")]
    runtime_overhead_bytes: Annotated[int, Field(description="Runtime buffers and context, bytes")]
    total_bytes: Annotated[int, Field(description="Total memory needed, bytes")]
    usable_bytes: Annotated[int, Field(description="Memory usable for models on this GPU, bytes")]
    margin_bytes: Annotated[int, Field(description="Usable minus total, bytes (negative: does not fit)")]
    max_context_tokens: Annotated[int | None, Field(description="Longest context that fits, tokens (empty: does not "
                                                                "run)")]
    max_sequences: Annotated[int | None, Field(description="Concurrent sequences at this context (empty: does not "
                                                           "run)")]
    decode_tokens_per_s: Annotated[float | None, Field(description="Decode speed, one sequence, tokens per second "
                                                                   "(empty: does not run)")]
    prefill_tokens_per_s: Annotated[float | None, Field(description=f"Prefill speed, {_PROMPT}-token prompt, tokens "
                                                                    "per second")]
    ttft_s: Annotated[float | None, Field(description=f"Time to first token of a {_PROMPT}-token prompt, seconds")]
    batched_tokens_per_s: Annotated[float | None, Field(description="Decode throughput with max_sequences "
                                                                    "sequences, tokens per second")]
    price_usd_per_gpu_hour: Annotated[float | None, Field(description="Cheapest catalogued cloud price per "
                                                                      "GPU-hour, USD (empty: no offer)")]
    usd_per_million_tokens_single: Annotated[float | None, Field(description="Rental cost per 1M output tokens, one "
                                                                             "sequence, USD")]
    usd_per_million_tokens_batched: Annotated[float | None, Field(description="Rental cost per 1M output tokens, "
                                                                              "batched, USD")]
    pair_json_path: Annotated[str, Field(description="The pair's JSON document, relative to the site's base URL")]
